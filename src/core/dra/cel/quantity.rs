//! The CEL `Quantity` type of the Kubernetes quantity library, modelled on Go's
//! `resource.Quantity` closely enough that every library function answers as upstream does.
//!
//! Why not the scheduler's own [`crate::core::quantity::Quantity`]: that one only answers "how
//! many whole units, rounded up". The CEL library exposes more of Go's type: `isInteger()` is
//! false for `quantity("1.0")` because Go keeps it as `10 × 10⁻¹`, `add` keeps the int64 fast
//! form until it overflows, `compareTo` is exact. So this module keeps Go's two representations
//! (`int64Amount` and `inf.Dec`) and follows `ParseQuantity`, `Add`, `Sub`, `Cmp`, `AsInt64`,
//! `Sign` and `AsApproximateFloat64` (kubernetes/kubernetes v1.35,
//! `staging/src/k8s.io/apimachinery/pkg/api/resource/quantity.go` and `amount.go`).
//!
//! What differs: Go's `inf.Dec` is arbitrary precision; here its unscaled value is an `i128`
//! (38 significant digits). Quantities with more significant digits are rounded away from zero to
//! 38 digits; sums whose exponents are more than 38 decimal places apart keep the larger term.
//! No selector that compares device capacities comes near either limit.

use std::any::Any;
use std::cmp::Ordering;
use std::fmt;

use cel::common::types::Type;
use cel::common::value::{StaticVal, Val};

use crate::core::quantity::QuantityError;

/// The CEL type name upstream registers (`apiservercel.QuantityType`).
pub static QUANTITY_TYPE: Type = Type::new_unspecified_type("kubernetes.Quantity");

/// Go's `Nano` scale: `inf.Dec` amounts are rounded up to 10⁻⁹.
const NANO: i32 = -9;
/// `maxInt64Factors`: decimal digits an int64 always holds.
const MAX_INT64_FACTORS: i32 = 18;
/// Significant digits an `i128` always holds.
const MAX_DEC_DIGITS: u32 = 38;

/// A quantity value: `int64Amount` (`value × 10^scale`) or `inf.Dec` (`unscaled × 10^exp`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Amount {
    /// Go's `int64Amount` fast form.
    Int { value: i64, scale: i32 },
    /// Go's `inf.Dec` form (`exp` is minus Go's `Scale()`).
    Dec { unscaled: i128, exp: i32 },
}

/// The CEL value `kubernetes.Quantity`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CelQuantity {
    amount: Amount,
}

impl CelQuantity {
    /// `resource.ParseQuantity`, keeping the representation Go picks.
    pub fn parse(input: &str) -> Result<CelQuantity, QuantityError> {
        let format_wrong = || QuantityError::FormatWrong(input.to_string());
        if input.is_empty() {
            return Err(format_wrong());
        }
        if input == "0" {
            return Ok(CelQuantity { amount: Amount::Int { value: 0, scale: 0 } });
        }
        let parts = split(input).ok_or_else(format_wrong)?;
        let (base, exponent) = interpret_suffix(parts.suffix).ok_or_else(|| QuantityError::Suffix(input.to_string()))?;
        let digits = |s: &str| i32::try_from(s.len()).unwrap_or(i32::MAX);
        let (precision, mut scale, mantissa): (i32, i32, i64) = match base {
            Base::Ten => (MAX_INT64_FACTORS.saturating_sub(digits(parts.num).saturating_add(digits(parts.denom))), exponent, 1),
            Base::Two => {
                if exponent >= 0 && parts.denom.is_empty() {
                    // 1Mi (2^20) has ~6 digits of decimal precision, as upstream reasons.
                    let p = 15 - digits(parts.num) - ((exponent as f32) * 3.0 / 10.0) as i32 - 1;
                    (p, 0, 1i64 << exponent.min(62))
                } else {
                    (-1, 0, 1)
                }
            }
        };
        if precision >= 0 {
            scale = scale.saturating_sub(digits(parts.denom));
            if scale >= NANO {
                let shifted: String = [parts.num, parts.denom].concat();
                let value: i64 = shifted.parse().map_err(|_| QuantityError::Numeric(input.to_string()))?;
                if let Some(result) = value.checked_mul(mantissa) {
                    let value = if parts.positive { result } else { -result };
                    return Ok(CelQuantity { amount: Amount::Int { value, scale } });
                }
            }
        }
        // The inf.Dec path: the digits as written, the suffix applied, rounded up to nano.
        let mut dec = Decimal::from_digits(parts.positive, parts.num, parts.denom)
            .ok_or_else(|| QuantityError::Numeric(input.to_string()))?;
        match base {
            Base::Ten => dec.exp = dec.exp.saturating_add(exponent),
            Base::Two => dec = dec.mul_pow2(exponent),
        }
        dec = dec.round_up_to(NANO);
        if base == Base::Two && dec.cmp_magnitude_i64(i64::MAX) == Ordering::Greater {
            // `maxAllowed`: BinarySI amounts are capped at 2^63-1.
            dec = Decimal { unscaled: if dec.unscaled < 0 { -i128::from(i64::MAX) } else { i128::from(i64::MAX) }, exp: 0 };
        }
        Ok(CelQuantity { amount: Amount::Dec { unscaled: dec.unscaled, exp: dec.exp } })
    }

    /// A capacity from a device: the scheduler's quantity rebuilt in the representation Go's
    /// `ParseQuantity` gives the same text (the digits and exponents are what it kept).
    pub fn from_device(q: &crate::core::quantity::Quantity) -> CelQuantity {
        let (negative, mantissa, dec_exp, bin_exp) = q.parts();
        let signed = |m: i128| if negative { -m } else { m };
        if bin_exp == 0 {
            if let (Ok(value), Ok(scale)) = (i64::try_from(mantissa), i32::try_from(dec_exp)) {
                if scale >= NANO && decimal_digits(mantissa) <= MAX_INT64_FACTORS as u32 {
                    let value = if negative { -value } else { value };
                    return CelQuantity { amount: Amount::Int { value, scale } };
                }
            }
        } else if dec_exp == 0 {
            if let Ok(value) = i64::try_from(mantissa) {
                if let Some(v) = value.checked_mul(1i64 << bin_exp.min(62)) {
                    if bin_exp < 63 {
                        let value = if negative { -v } else { v };
                        return CelQuantity { amount: Amount::Int { value, scale: 0 } };
                    }
                }
            }
        }
        let unscaled = i128::try_from(mantissa).unwrap_or(i128::MAX);
        let exp = i32::try_from(dec_exp).unwrap_or(if dec_exp < 0 { i32::MIN } else { i32::MAX });
        let dec =
            Decimal { unscaled: signed(unscaled), exp }.mul_pow2(i32::try_from(bin_exp).unwrap_or(i32::MAX)).round_up_to(NANO);
        CelQuantity { amount: Amount::Dec { unscaled: dec.unscaled, exp: dec.exp } }
    }

    /// `resource.NewQuantity(v, DecimalExponent)`.
    pub fn from_i64(value: i64) -> CelQuantity {
        CelQuantity { amount: Amount::Int { value, scale: 0 } }
    }

    /// The representation (for tests).
    pub fn amount(&self) -> Amount {
        self.amount
    }

    fn as_decimal(&self) -> Decimal {
        match self.amount {
            Amount::Int { value, scale } => Decimal { unscaled: i128::from(value), exp: scale },
            Amount::Dec { unscaled, exp } => Decimal { unscaled, exp },
        }
    }

    /// `Quantity.Sign()`.
    pub fn sign(&self) -> i64 {
        match self.amount {
            Amount::Int { value, .. } => value.signum(),
            Amount::Dec { unscaled, .. } => unscaled.signum() as i64,
        }
    }

    /// `Quantity.AsInt64()`: only the int64 form converts, and only without a fraction.
    pub fn as_i64(&self) -> Option<i64> {
        match self.amount {
            Amount::Dec { .. } => None,
            Amount::Int { value, scale } => match scale.cmp(&0) {
                Ordering::Equal => Some(value),
                Ordering::Less => None,
                Ordering::Greater => positive_scale_i64(value, scale),
            },
        }
    }

    /// `Quantity.AsApproximateFloat64()`.
    pub fn as_approximate_f64(&self) -> f64 {
        let (base, exponent) = match self.amount {
            Amount::Int { value, scale } => (value as f64, scale),
            Amount::Dec { unscaled, exp } => (unscaled as f64, exp),
        };
        if exponent == 0 {
            return base;
        }
        base * 10f64.powi(exponent)
    }

    /// `Quantity.Cmp`: exact.
    pub fn compare(&self, other: &CelQuantity) -> Ordering {
        self.as_decimal().compare(&other.as_decimal())
    }

    /// `Quantity.Add`.
    pub fn add(&self, other: &CelQuantity) -> CelQuantity {
        if let (Amount::Int { value: a, scale: sa }, Amount::Int { value: b, scale: sb }) = (self.amount, other.amount) {
            if let Some((value, scale)) = int64_add(a, sa, b, sb) {
                return CelQuantity { amount: Amount::Int { value, scale } };
            }
        }
        let sum = self.as_decimal().add(&other.as_decimal());
        CelQuantity { amount: Amount::Dec { unscaled: sum.unscaled, exp: sum.exp } }
    }

    /// `Quantity.Sub`.
    pub fn sub(&self, other: &CelQuantity) -> CelQuantity {
        if let (Amount::Int { value: a, scale: sa }, Amount::Int { value: b, scale: sb }) = (self.amount, other.amount) {
            // int64Amount.Sub negates b first; MinInt64 has no negation and takes the Dec path.
            if let Some(neg) = b.checked_neg() {
                if let Some((value, scale)) = int64_add(a, sa, neg, sb) {
                    return CelQuantity { amount: Amount::Int { value, scale } };
                }
            }
        }
        let o = other.as_decimal();
        let diff = self.as_decimal().add(&Decimal { unscaled: o.unscaled.saturating_neg(), exp: o.exp });
        CelQuantity { amount: Amount::Dec { unscaled: diff.unscaled, exp: diff.exp } }
    }

    /// The size cel-go's cost model gives an opaque value: 1.
    pub fn cost_size(&self) -> u64 {
        1
    }
}

impl fmt::Display for CelQuantity {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let d = self.as_decimal();
        write!(f, "{}e{}", d.unscaled, d.exp)
    }
}

impl Val for CelQuantity {
    fn get_type(&self) -> &Type {
        &QUANTITY_TYPE
    }

    fn cel_type() -> &'static Type {
        &QUANTITY_TYPE
    }

    fn equals(&self, other: &dyn Val) -> bool {
        // cel-go's `Quantity.Equal` compares with `Cmp` (apiserver/pkg/cel/quantity.go).
        other.downcast_ref::<CelQuantity>().is_some_and(|o| self.compare(o) == Ordering::Equal)
    }

    fn clone_as_boxed<'v>(&self) -> Box<dyn Val + 'v> {
        Box::new(*self)
    }

    fn as_any(&self) -> Option<&dyn Any> {
        Some(self)
    }
}

impl StaticVal for CelQuantity {}

/// `positiveScaleInt64`: `value × 10^scale` if it fits.
fn positive_scale_i64(value: i64, scale: i32) -> Option<i64> {
    let mut v = value;
    for _ in 0..scale {
        v = v.checked_mul(10)?;
    }
    Some(v)
}

/// `int64Amount.Add`: aligned to the smaller scale, `None` on overflow (Go then uses inf.Dec).
fn int64_add(a: i64, sa: i32, b: i64, sb: i32) -> Option<(i64, i32)> {
    if b == 0 {
        return Some((a, sa));
    }
    if a == 0 {
        return Some((b, sb));
    }
    match sa.cmp(&sb) {
        Ordering::Equal => Some((a.checked_add(b)?, sa)),
        Ordering::Greater => Some((positive_scale_i64(a, sa - sb)?.checked_add(b)?, sb)),
        Ordering::Less => Some((a.checked_add(positive_scale_i64(b, sb - sa)?)?, sa)),
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Base {
    Ten,
    Two,
}

/// `quantitySuffixer.interpret`: base and exponent of a suffix.
fn interpret_suffix(s: &str) -> Option<(Base, i32)> {
    let ten = |e| Some((Base::Ten, e));
    match s {
        "" => ten(0),
        "n" => ten(-9),
        "u" => ten(-6),
        "m" => ten(-3),
        "k" => ten(3),
        "M" => ten(6),
        "G" => ten(9),
        "T" => ten(12),
        "P" => ten(15),
        "E" => ten(18),
        "Ki" => Some((Base::Two, 10)),
        "Mi" => Some((Base::Two, 20)),
        "Gi" => Some((Base::Two, 30)),
        "Ti" => Some((Base::Two, 40)),
        "Pi" => Some((Base::Two, 50)),
        "Ei" => Some((Base::Two, 60)),
        _ if s.len() > 1 && (s.starts_with('e') || s.starts_with('E')) => {
            let e: i64 = s[1..].parse().ok()?;
            let e = i32::try_from(e).ok().filter(|e| *e != i32::MIN)?;
            ten(e)
        }
        _ => None,
    }
}

/// What `parseQuantityString` returns.
struct Parts<'a> {
    positive: bool,
    num: &'a str,
    denom: &'a str,
    suffix: &'a str,
}

/// `parseQuantityString`: sign, numerator without leading zeros, denominator, suffix.
fn split(s: &str) -> Option<Parts<'_>> {
    let b = s.as_bytes();
    let mut pos = 0;
    let mut positive = true;
    match b.first() {
        Some(b'-') => {
            positive = false;
            pos = 1;
        }
        Some(b'+') => pos = 1,
        _ => {}
    }
    while pos < b.len() && b[pos] == b'0' {
        pos += 1;
    }
    if pos >= b.len() {
        return Some(Parts { positive, num: "0", denom: "", suffix: "" });
    }
    let num_start = pos;
    while pos < b.len() && b[pos].is_ascii_digit() {
        pos += 1;
    }
    let mut num = &s[num_start..pos];
    if num.is_empty() {
        num = "0";
    }
    let mut denom = "";
    if pos < b.len() && b[pos] == b'.' {
        pos += 1;
        let d = pos;
        while pos < b.len() && b[pos].is_ascii_digit() {
            pos += 1;
        }
        denom = &s[d..pos];
    }
    let suffix_start = pos;
    while pos < b.len() && b"eEinumkKMGTP".contains(&b[pos]) {
        pos += 1;
    }
    if pos < b.len() && (b[pos] == b'-' || b[pos] == b'+') {
        pos += 1;
    }
    while pos < b.len() && b[pos].is_ascii_digit() {
        pos += 1;
    }
    if pos != b.len() {
        return None;
    }
    Some(Parts { positive, num, denom, suffix: &s[suffix_start..] })
}

fn decimal_digits(mut m: u128) -> u32 {
    let mut n = 1;
    while m >= 10 {
        m /= 10;
        n += 1;
    }
    n
}

/// `unscaled × 10^exp`, the stand-in for Go's `inf.Dec`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Decimal {
    unscaled: i128,
    exp: i32,
}

impl Decimal {
    /// `inf.Dec.SetString` of `num.denom`: digits beyond 38 are rounded away from zero.
    fn from_digits(positive: bool, num: &str, denom: &str) -> Option<Decimal> {
        let mut unscaled: i128 = 0;
        let mut exp: i32 = 0;
        let mut used = 0u32;
        let mut dropped_nonzero = false;
        for (i, c) in num.bytes().chain(denom.bytes()).enumerate() {
            let is_frac = i >= num.len();
            let d = i128::from(c.checked_sub(b'0').filter(|d| *d < 10)?);
            if used < MAX_DEC_DIGITS {
                unscaled = unscaled * 10 + d;
                if unscaled != 0 {
                    used += 1;
                }
                if is_frac {
                    exp = exp.saturating_sub(1);
                }
            } else {
                dropped_nonzero |= d != 0;
                if !is_frac {
                    exp = exp.saturating_add(1);
                }
            }
        }
        if dropped_nonzero {
            unscaled += 1;
        }
        Some(Decimal { unscaled: if positive { unscaled } else { -unscaled }, exp })
    }

    /// Multiplied by 2^e (e ≥ 0; negative exponents do not occur in suffixes). Beyond 38
    /// digits the value is rounded away from zero.
    fn mul_pow2(self, e: i32) -> Decimal {
        let mut d = self;
        for _ in 0..e.max(0) {
            match d.unscaled.checked_mul(2) {
                Some(v) if v.unsigned_abs() < 10u128.pow(MAX_DEC_DIGITS) => d.unscaled = v,
                _ => {
                    // Keep 37 digits: divide by 10 rounding away from zero, then double.
                    let q = d.unscaled / 10 + if d.unscaled % 10 != 0 { d.unscaled.signum() } else { 0 };
                    d = Decimal { unscaled: q * 2, exp: d.exp.saturating_add(1) };
                }
            }
        }
        d
    }

    /// `inf.Dec.Round(x, -exp, RoundUp)`: away from zero, only when more precise than `exp`.
    fn round_up_to(self, exp: i32) -> Decimal {
        if self.exp >= exp || self.unscaled == 0 {
            return self;
        }
        let shift = exp.saturating_sub(self.exp);
        if shift as u32 > MAX_DEC_DIGITS {
            return Decimal { unscaled: self.unscaled.signum(), exp };
        }
        let div = 10i128.pow(shift as u32);
        let q = self.unscaled / div;
        let r = self.unscaled % div;
        Decimal { unscaled: q + if r != 0 { self.unscaled.signum() } else { 0 }, exp }
    }

    fn magnitude_order(&self) -> i64 {
        i64::from(decimal_digits(self.unscaled.unsigned_abs())) + i64::from(self.exp)
    }

    fn cmp_magnitude_i64(&self, v: i64) -> Ordering {
        let other = Decimal { unscaled: i128::from(v), exp: 0 };
        self.abs().compare(&other)
    }

    fn abs(&self) -> Decimal {
        Decimal { unscaled: self.unscaled.saturating_abs(), exp: self.exp }
    }

    /// Exact comparison.
    fn compare(&self, other: &Decimal) -> Ordering {
        let (sa, sb) = (self.unscaled.signum(), other.unscaled.signum());
        if sa != sb {
            return sa.cmp(&sb);
        }
        if sa == 0 {
            return Ordering::Equal;
        }
        let magnitude = {
            let (a, b) = (self.abs(), other.abs());
            match a.magnitude_order().cmp(&b.magnitude_order()) {
                Ordering::Equal => {
                    // Same order of magnitude: the exponents differ by less than 38 digits.
                    let (hi, lo, flip) = if a.exp >= b.exp { (a, b, false) } else { (b, a, true) };
                    let shift = (i64::from(hi.exp) - i64::from(lo.exp)) as u32;
                    let scaled = hi.unscaled.checked_mul(10i128.pow(shift.min(MAX_DEC_DIGITS)));
                    let ord = match scaled {
                        Some(h) => h.cmp(&lo.unscaled),
                        None => Ordering::Greater,
                    };
                    if flip {
                        ord.reverse()
                    } else {
                        ord
                    }
                }
                ord => ord,
            }
        };
        if sa < 0 {
            magnitude.reverse()
        } else {
            magnitude
        }
    }

    /// Exact when the aligned sum fits 38 digits; otherwise the smaller term is rounded.
    fn add(&self, other: &Decimal) -> Decimal {
        if self.unscaled == 0 {
            return *other;
        }
        if other.unscaled == 0 {
            return *self;
        }
        let (hi, lo) = if self.exp >= other.exp { (*self, *other) } else { (*other, *self) };
        let mut hi = hi;
        let mut lo = lo;
        loop {
            let shift = i64::from(hi.exp) - i64::from(lo.exp);
            if shift == 0 {
                if let Some(sum) = hi.unscaled.checked_add(lo.unscaled) {
                    return Decimal { unscaled: sum, exp: hi.exp };
                }
                // Too many digits: drop one from both.
                hi = Decimal { unscaled: hi.unscaled / 10, exp: hi.exp.saturating_add(1) };
                lo = Decimal { unscaled: lo.unscaled / 10, exp: lo.exp.saturating_add(1) };
                continue;
            }
            if shift > i64::from(MAX_DEC_DIGITS) {
                return if hi.magnitude_order() >= lo.magnitude_order() { hi } else { lo };
            }
            match 10i128.checked_pow(shift as u32).and_then(|p| hi.unscaled.checked_mul(p)) {
                Some(v) if v.unsigned_abs() < 10u128.pow(MAX_DEC_DIGITS) => {
                    hi = Decimal { unscaled: v, exp: lo.exp };
                }
                _ => {
                    // Round the finer term instead.
                    let q = lo.unscaled / 10 + if lo.unscaled % 10 != 0 { lo.unscaled.signum() } else { 0 };
                    lo = Decimal { unscaled: q, exp: lo.exp.saturating_add(1) };
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn q(s: &str) -> CelQuantity {
        CelQuantity::parse(s).unwrap()
    }

    // Representation after ParseQuantity (quantity.go): the int64 fast form keeps the digits as
    // written, which is what `isInteger` reads.
    #[test]
    fn parse_keeps_go_representation() {
        assert_eq!(q("1.0").amount(), Amount::Int { value: 10, scale: -1 });
        assert_eq!(q("1k").amount(), Amount::Int { value: 1, scale: 3 });
        assert_eq!(q("1Ki").amount(), Amount::Int { value: 1024, scale: 0 });
        assert_eq!(q("-5m").amount(), Amount::Int { value: -5, scale: -3 });
        assert_eq!(q("0.5Ki").amount(), Amount::Dec { unscaled: 5120, exp: -1 });
        assert_eq!(q("1n").amount(), Amount::Int { value: 1, scale: -9 });
        // Below a nano the Dec path rounds up (away from zero).
        assert_eq!(q("0.1n").amount(), Amount::Dec { unscaled: 1, exp: -9 });
        assert!(CelQuantity::parse("200K").is_err());
        assert!(CelQuantity::parse("Three").is_err());
        assert!(CelQuantity::parse("1,3G").is_err());
        assert!(CelQuantity::parse("").is_err());
    }

    // The examples of the library's documentation (staging/src/k8s.io/apiserver/pkg/cel/library/
    // quantity.go, v1.35).
    #[test]
    fn library_doc_examples() {
        assert_eq!(q("50000000G").as_i64(), Some(50_000_000_000_000_000));
        assert_eq!(q("50k").as_i64(), Some(50_000));
        assert_eq!(q("9999999999999999999999999999999999999G").as_i64(), None);
        assert_eq!(q("50k").sub(&CelQuantity::from_i64(20000)).as_approximate_f64(), 30000.0);
        assert_eq!(q("50k").add(&q("20k")).compare(&q("70k")), Ordering::Equal);
        assert_eq!(q("50k").add(&CelQuantity::from_i64(20)).compare(&q("50020")), Ordering::Equal);
        assert_eq!(q("50k").sub(&q("20k")).compare(&q("30k")), Ordering::Equal);
        let chain = q("50k").add(&CelQuantity::from_i64(20)).sub(&q("100k")).sub(&CelQuantity::from_i64(-50000));
        assert_eq!(chain.compare(&q("20")), Ordering::Equal);
        assert_eq!(q("200M").compare(&q("0.2G")), Ordering::Equal);
        assert_eq!(q("50M").compare(&q("50Mi")), Ordering::Less);
        assert_eq!(q("50Mi").compare(&q("50M")), Ordering::Greater);
        assert_eq!(q("150Mi").compare(&q("100Mi")), Ordering::Greater);
        assert_eq!(q("1.3G").sign(), 1);
        assert_eq!(q("-1").sign(), -1);
        assert_eq!(q("0").sign(), 0);
    }

    #[test]
    fn device_capacity_matches_parse() {
        for s in ["40Gi", "1Mi", "1.5", "1.0", "100m", "2e3", "1.5Gi", "0", "123456789012345678901", "-3"] {
            let dev = CelQuantity::from_device(&crate::core::quantity::Quantity::parse(s).unwrap());
            assert_eq!(dev.compare(&q(s)), Ordering::Equal, "{s}");
            assert_eq!(dev.as_i64(), q(s).as_i64(), "{s}");
        }
    }

    #[test]
    fn extreme_exponents_compare_without_overflow() {
        assert_eq!(q("1e2000000000").compare(&q("1")), Ordering::Greater);
        assert_eq!(q("-1e2000000000").compare(&q("1")), Ordering::Less);
        assert_eq!(q("1e-2000000000").compare(&q("0")), Ordering::Greater);
        let big = q("1e2000000000").add(&q("1"));
        assert_eq!(big.compare(&q("1e2000000000")), Ordering::Equal);
    }
}
