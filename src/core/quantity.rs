//! Kubernetes `resource.Quantity` parsing into the integers scheduling compares.
//!
//! Quantities arrive as strings (`"500m"`, `"8146056Ki"`, `"1e3"`). The scheduler needs exact
//! integers: CPU in millicores (`MilliValue`) and everything else in whole units (`Value`), both
//! rounded up as upstream's `Quantity.ScaledValue` does. The grammar and suffix table follow
//! `k8s.io/apimachinery/pkg/api/resource/quantity.go` (`ParseQuantity`, `parseQuantityString`)
//! and `suffix.go`. Values beyond `i64` saturate instead of wrapping, so an absurd request simply
//! never fits rather than becoming negative.

use std::fmt;

/// Why a quantity string was rejected; the text mirrors upstream's `ErrFormatWrong`,
/// `ErrSuffix` and `ErrNumeric`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum QuantityError {
    /// Empty input or characters where a number was expected.
    FormatWrong(String),
    /// A suffix that is not one of the SI, binary or exponent forms.
    Suffix(String),
    /// A number that cannot be represented (e.g. only a dot).
    Numeric(String),
}

impl fmt::Display for QuantityError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            QuantityError::FormatWrong(s) => write!(
                f,
                "quantity {s:?}: quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'"
            ),
            QuantityError::Suffix(s) => write!(f, "quantity {s:?}: unable to parse quantity's suffix"),
            QuantityError::Numeric(s) => write!(f, "quantity {s:?}: unable to parse quantity's numeric part"),
        }
    }
}

impl std::error::Error for QuantityError {}

/// A parsed quantity: `sign · mantissa · 10^dec_exp · 2^bin_exp`, exact for every input upstream
/// accepts with up to 38 significant digits (more digits are rounded up, never down).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Quantity {
    negative: bool,
    mantissa: u128,
    dec_exp: i64,
    bin_exp: u32,
}

const MAX_DIGITS: usize = 38;

impl Quantity {
    /// Parse a quantity string with upstream's grammar.
    pub fn parse(input: &str) -> Result<Quantity, QuantityError> {
        let bytes = input.as_bytes();
        if bytes.is_empty() {
            return Err(QuantityError::FormatWrong(input.to_string()));
        }
        let mut pos = 0;
        let mut negative = false;
        match bytes[0] {
            b'-' => {
                negative = true;
                pos += 1;
            }
            b'+' => pos += 1,
            _ => {}
        }
        let int_start = pos;
        while pos < bytes.len() && bytes[pos].is_ascii_digit() {
            pos += 1;
        }
        let int_digits = &bytes[int_start..pos];
        let mut frac_digits: &[u8] = &[];
        if pos < bytes.len() && bytes[pos] == b'.' {
            pos += 1;
            let frac_start = pos;
            while pos < bytes.len() && bytes[pos].is_ascii_digit() {
                pos += 1;
            }
            frac_digits = &bytes[frac_start..pos];
        }
        // No digits at all ("-", ".", "Mi", "e3") is not an error upstream: parseQuantityString
        // reads the missing numerator as "0", so such inputs are zero as long as the suffix is
        // valid (TestParseQuantityString accepts "." and "-.").
        // Suffix: letters from the suffix alphabet, then an optional sign and digits (exponent form).
        let suffix_start = pos;
        while pos < bytes.len() && b"eEinumkKMGTP".contains(&bytes[pos]) {
            pos += 1;
        }
        if pos < bytes.len() && (bytes[pos] == b'-' || bytes[pos] == b'+') {
            pos += 1;
        }
        while pos < bytes.len() && bytes[pos].is_ascii_digit() {
            pos += 1;
        }
        if pos != bytes.len() {
            return Err(QuantityError::FormatWrong(input.to_string()));
        }
        let suffix = &input[suffix_start..];
        let (mut dec_exp, bin_exp) = interpret_suffix(suffix).ok_or_else(|| QuantityError::Suffix(input.to_string()))?;

        // Mantissa from the significant digits of int + frac.
        let mut mantissa: u128 = 0;
        let mut digits_used = 0usize;
        let mut round_up = false;
        let mut leading = true;
        for (i, &d) in int_digits.iter().chain(frac_digits.iter()).enumerate() {
            let is_frac = i >= int_digits.len();
            if leading && d == b'0' {
                if is_frac {
                    dec_exp -= 1;
                }
                continue;
            }
            leading = false;
            if digits_used < MAX_DIGITS {
                mantissa = mantissa * 10 + u128::from(d - b'0');
                digits_used += 1;
                if is_frac {
                    dec_exp -= 1;
                }
            } else {
                // Digit beyond what u128 holds: drop it, keeping the magnitude.
                if d != b'0' {
                    round_up = true;
                }
                if !is_frac {
                    dec_exp += 1;
                }
            }
        }
        if round_up {
            mantissa += 1;
        }
        if mantissa == 0 {
            negative = false;
        }
        Ok(Quantity { negative, mantissa, dec_exp, bin_exp })
    }

    /// Whole units rounded up (upstream `Value()`), saturating at the i64 range.
    pub fn value(&self) -> i64 {
        self.scaled(0)
    }

    /// Thousandths rounded up (upstream `MilliValue()`), saturating at the i64 range.
    pub fn milli_value(&self) -> i64 {
        self.scaled(3)
    }

    /// The parsed parts, `sign · mantissa · 10^dec_exp · 2^bin_exp`, for code that needs Go's
    /// exact representation (the CEL quantity library of DRA device selectors).
    pub fn parts(&self) -> (bool, u128, i64, u32) {
        (self.negative, self.mantissa, self.dec_exp, self.bin_exp)
    }

    /// True for values below zero (API validation rejects negative requests; we treat them as errors).
    pub fn is_negative(&self) -> bool {
        self.negative
    }

    /// `ceil(|v| · 10^scale)` with the sign applied, rounding away from zero like upstream's RoundUp.
    fn scaled(&self, scale: i64) -> i64 {
        let magnitude = self.scaled_magnitude(scale);
        let clamped = if magnitude > i64::MAX as u128 { i64::MAX } else { magnitude as i64 };
        if self.negative {
            -clamped
        } else {
            clamped
        }
    }

    fn scaled_magnitude(&self, scale: i64) -> u128 {
        if self.mantissa == 0 {
            return 0;
        }
        let mut n = self.mantissa;
        for _ in 0..self.bin_exp {
            n = match n.checked_mul(2) {
                Some(v) => v,
                None => return u128::MAX,
            };
        }
        let e = self.dec_exp.saturating_add(scale);
        if e >= 0 {
            for _ in 0..e.min(40) {
                n = match n.checked_mul(10) {
                    Some(v) => v,
                    None => return u128::MAX,
                };
            }
            n
        } else if -e > 38 {
            1 // a positive value smaller than one unit rounds up to one
        } else {
            let d = 10u128.pow((-e) as u32);
            n / d + u128::from(n % d != 0)
        }
    }
}

/// Map a suffix to (decimal exponent, binary exponent), per upstream `suffix.go`.
fn interpret_suffix(s: &str) -> Option<(i64, u32)> {
    let decimal = |e: i64| Some((e, 0));
    match s {
        "" => decimal(0),
        "n" => decimal(-9),
        "u" => decimal(-6),
        "m" => decimal(-3),
        "k" => decimal(3),
        "M" => decimal(6),
        "G" => decimal(9),
        "T" => decimal(12),
        "P" => decimal(15),
        "E" => decimal(18),
        "Ki" => Some((0, 10)),
        "Mi" => Some((0, 20)),
        "Gi" => Some((0, 30)),
        "Ti" => Some((0, 40)),
        "Pi" => Some((0, 50)),
        "Ei" => Some((0, 60)),
        _ if s.len() > 1 && (s.starts_with('e') || s.starts_with('E')) => {
            let exp: i64 = s[1..].parse().ok()?;
            // Upstream stores the exponent as int32 and negates it later, so it accepts
            // [-MaxInt32, MaxInt32] (TestInterpretExponentInt32Bounds).
            let exp = i32::try_from(exp).ok().filter(|e| *e != i32::MIN)?;
            Some((i64::from(exp), 0))
        }
        _ => None,
    }
}

/// Parse and return whole units (rounded up). Negative values are rejected.
pub fn parse_value(s: &str) -> Result<i64, QuantityError> {
    let q = Quantity::parse(s)?;
    if q.is_negative() {
        return Err(QuantityError::Numeric(s.to_string()));
    }
    Ok(q.value())
}

/// Parse and return thousandths (rounded up). Negative values are rejected.
pub fn parse_milli(s: &str) -> Result<i64, QuantityError> {
    let q = Quantity::parse(s)?;
    if q.is_negative() {
        return Err(QuantityError::Numeric(s.to_string()));
    }
    Ok(q.milli_value())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn v(s: &str) -> i64 {
        Quantity::parse(s).unwrap_or_else(|e| panic!("{s}: {e}")).value()
    }
    fn m(s: &str) -> i64 {
        Quantity::parse(s).unwrap_or_else(|e| panic!("{s}: {e}")).milli_value()
    }

    #[test]
    fn wire_samples_from_real_nodes() {
        assert_eq!(m("2"), 2000);
        assert_eq!(m("7500m"), 7500);
        assert_eq!(v("8146056Ki"), 8146056 * 1024);
        assert_eq!(v("50125951961"), 50125951961);
        assert_eq!(v("322550Mi"), 322550 * 1024 * 1024);
        assert_eq!(m("0.1"), 100);
        assert_eq!(m("100m"), 100);
        assert_eq!(v("1e3"), 1000);
        assert_eq!(v("1E"), 1_000_000_000_000_000_000);
        assert_eq!(v("128974848"), 128974848);
        assert_eq!(v("129e6"), 129_000_000);
        assert_eq!(v("123Mi"), 123 * 1024 * 1024);
        assert_eq!(v("+5"), 5);
    }

    #[test]
    fn rounding_is_upward() {
        assert_eq!(v("100m"), 1);
        assert_eq!(m("1n"), 1);
        assert_eq!(m("0.0001"), 1);
        assert_eq!(v("1.5"), 2);
        assert_eq!(v("0"), 0);
        assert_eq!(m("0m"), 0);
    }

    #[test]
    fn saturates_instead_of_wrapping() {
        assert_eq!(v("1e100"), i64::MAX);
        assert_eq!(v("9Ei"), i64::MAX);
        assert_eq!(m("99999999999999999999999999999999999999999999"), i64::MAX);
    }

    #[test]
    fn rejects_malformed() {
        for bad in ["", "1K", "1ki", "abc", "1 ", " 1", "1e", "1.2.3", "1Mi1", "--1", "1e1.5", "i", "e"] {
            assert!(Quantity::parse(bad).is_err(), "{bad:?} should fail");
        }
        assert!(parse_value("-1").is_err());
    }

    /// staging/src/k8s.io/apimachinery/pkg/api/resource/quantity_test.go TestQuantityParse: every
    /// valid input with `(Value(), MilliValue())` of the expected quantity (both round up).
    const VALID: &[(&str, i64, i64)] = &[
        ("0", 0, 0),
        ("0n", 0, 0),
        ("0u", 0, 0),
        ("0m", 0, 0),
        ("0Ki", 0, 0),
        ("0k", 0, 0),
        ("0Mi", 0, 0),
        ("0M", 0, 0),
        ("0Gi", 0, 0),
        ("0G", 0, 0),
        ("0Ti", 0, 0),
        ("0T", 0, 0),
        // Quantity less numbers are allowed
        ("1", 1, 1000),
        // Binary suffixes
        ("1Ki", 1024, 1024 * 1000),
        ("8Ki", 8 * 1024, 8 * 1024 * 1000),
        ("7Mi", 7 << 20, (7 << 20) * 1000),
        ("6Gi", 6 << 30, (6 << 30) * 1000),
        ("5Ti", 5 << 40, (5 << 40) * 1000),
        ("4Pi", 4 << 50, (4 << 50) * 1000),
        ("3Ei", 3 << 60, i64::MAX),
        ("10Ti", 10 << 40, (10 << 40) * 1000),
        ("100Ti", 100 << 40, (100 << 40) * 1000),
        // Decimal suffixes
        ("5n", 1, 1),
        ("4u", 1, 1),
        ("3m", 1, 3),
        ("9", 9, 9000),
        ("8k", 8000, 8_000_000),
        ("50k", 50_000, 50_000_000),
        ("7M", 7_000_000, 7_000_000_000),
        ("6G", 6_000_000_000, 6_000_000_000_000),
        ("5T", 5_000_000_000_000, 5_000_000_000_000_000),
        ("40T", 40_000_000_000_000, 40_000_000_000_000_000),
        ("300T", 300_000_000_000_000, 300_000_000_000_000_000),
        ("2P", 2_000_000_000_000_000, 2_000_000_000_000_000_000),
        ("1E", 1_000_000_000_000_000_000, i64::MAX),
        // Decimal exponents
        ("1E-3", 1, 1),
        ("1e3", 1000, 1_000_000),
        ("1E6", 1_000_000, 1_000_000_000),
        ("1e9", 1_000_000_000, 1_000_000_000_000),
        ("1E12", 1_000_000_000_000, 1_000_000_000_000_000),
        ("1e15", 1_000_000_000_000_000, 1_000_000_000_000_000_000),
        ("1E18", 1_000_000_000_000_000_000, i64::MAX),
        // Nonstandard but still parsable
        ("1e14", 100_000_000_000_000, 100_000_000_000_000_000),
        ("1e13", 10_000_000_000_000, 10_000_000_000_000_000),
        ("100.035k", 100_035, 100_035_000),
        // Things that look like floating point
        ("0.001", 1, 1),
        ("0.0005k", 1, 500),
        ("0.005", 1, 5),
        ("0.05", 1, 50),
        ("0.5", 1, 500),
        ("0.00050k", 1, 500),
        ("0.00500", 1, 5),
        ("0.05000", 1, 50),
        ("0.50000", 1, 500),
        ("0.5e0", 1, 500),
        ("0.5e-1", 1, 50),
        ("0.5e-2", 1, 5),
        ("10.035M", 10_035_000, 10_035_000_000),
        ("1.2e3", 1200, 1_200_000),
        ("1.3E+6", 1_300_000, 1_300_000_000),
        ("1.40e9", 1_400_000_000, 1_400_000_000_000),
        ("1.53E12", 1_530_000_000_000, 1_530_000_000_000_000),
        ("1.6e15", 1_600_000_000_000_000, 1_600_000_000_000_000_000),
        ("1.7E18", 1_700_000_000_000_000_000, i64::MAX),
        ("9.01", 10, 9010),
        ("8.1k", 8100, 8_100_000),
        ("7.123456M", 7_123_456, 7_123_456_000),
        ("6.987654321G", 6_987_654_321, 6_987_654_321_000),
        ("5.444T", 5_444_000_000_000, 5_444_000_000_000_000),
        ("40.1T", 40_100_000_000_000, 40_100_000_000_000_000),
        ("300.2T", 300_200_000_000_000, 300_200_000_000_000_000),
        ("2.5P", 2_500_000_000_000_000, 2_500_000_000_000_000_000),
        ("1.01E", 1_010_000_000_000_000_000, i64::MAX),
        // Things that saturate/round
        ("3.001n", 1, 1),
        ("1.1E-9", 1, 1),
        ("0.0000000001", 1, 1),
        ("0.0000000005", 1, 1),
        ("0.00000000050", 1, 1),
        ("0.5e-9", 1, 1),
        ("0.9n", 1, 1),
        ("0.00000012345", 1, 1),
        ("0.00000012354", 1, 1),
        ("9Ei", i64::MAX, i64::MAX),
        ("9223372036854775807Ki", i64::MAX, i64::MAX),
        ("12E", i64::MAX, i64::MAX),
        // We'll accept fractional binary stuff, too.
        ("100.035Ki", 102_436, 102_435_840),
        ("0.5Mi", 524_288, 524_288_000),
        ("0.05Gi", 53_687_092, 53_687_091_200),
        ("0.025Ti", 27_487_790_695, 27_487_790_694_400),
        // Things written by trolls
        ("0.000000000001Ki", 1, 1),
        (".001", 1, 1),
        (".0001k", 1, 100),
        ("1.", 1, 1000),
        ("1.G", 1_000_000_000, 1_000_000_000_000),
    ];

    #[test]
    fn upstream_parse_table() {
        for &(input, value, milli) in VALID {
            assert_eq!((v(input), m(input)), (value, milli), "{input}");
            // "Try everything with an explicit +"
            assert_eq!(v(&format!("+{input}")), value, "+{input}");
            // "Try the negative version of everything"
            let neg = Quantity::parse(&format!("-{input}")).unwrap_or_else(|e| panic!("-{input}: {e}"));
            assert_eq!(neg.is_negative(), value != 0, "-{input}");
        }
    }

    #[test]
    fn upstream_invalid_table() {
        // quantity_test.go TestQuantityParse `invalid`.
        for bad in ["1.1.M", "1+1.0M", "0.1mi", "0.1am", "aoeu", ".5i", "1i", "-3.01i", "-3.01e-", "1e4294967297", " 1", "1 "] {
            assert!(Quantity::parse(bad).is_err(), "{bad:?} should fail");
        }
    }

    #[test]
    fn upstream_parse_quantity_string_table() {
        // quantity_test.go TestParseQuantityString: these split cleanly, so they parse.
        assert_eq!(v("0.025Ti"), 27_487_790_695);
        assert_eq!(v("1.025Ti"), 1_126_999_418_471);
        assert!(Quantity::parse("-1.025Ti").unwrap().is_negative());
        assert_eq!(v("."), 0);
        assert_eq!(v("-."), 0);
        assert_eq!(m("1E-3"), 1);
        // A missing numerator reads as zero whatever the (valid) suffix.
        assert_eq!(v("-"), 0);
        assert_eq!(v("Mi"), 0);
        assert_eq!(v("e3"), 0);
    }

    #[test]
    fn exponent_int32_bounds() {
        // quantity_test.go TestInterpretExponentInt32Bounds.
        assert_eq!(interpret_suffix("e14"), Some((14, 0)));
        assert_eq!(interpret_suffix("E2147483647"), Some((2_147_483_647, 0)));
        assert_eq!(interpret_suffix("E-2147483647"), Some((-2_147_483_647, 0)));
        for bad in ["E2147483648", "E-2147483648", "E4294967297", "E8589934592", "E9223372036854775807"] {
            assert_eq!(interpret_suffix(bad), None, "{bad}");
        }
    }
}
