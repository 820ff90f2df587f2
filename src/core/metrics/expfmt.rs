//! The Prometheus text exposition format byte for byte as client_golang writes it
//! (`expfmt/text_create.go`): numbers as Go's `strconv.FormatFloat(v, 'g', -1, 64)`, label pairs
//! sorted by name with `le` last, `\\`, `"` and newlines escaped in label values, `\\` and
//! newlines in help text. Byte equality matters beyond looks: Prometheus stores `le` as a string,
//! so `le="1e-05"` and `le="0.00001"` would be different series for a dashboard.

use std::fmt::Write as _;

/// `strconv.FormatFloat(v, 'g', -1, 64)` with client_golang's special cases (`+Inf`, `-Inf`, `NaN`).
pub fn go_float(v: f64) -> String {
    if v.is_nan() {
        return "NaN".into();
    }
    if v.is_infinite() {
        return if v > 0.0 { "+Inf".into() } else { "-Inf".into() };
    }
    if v == 0.0 {
        return if v.is_sign_negative() { "-0".into() } else { "0".into() };
    }
    // Rust's `{:e}` gives the shortest digits that round-trip, as Go's shortest formatting does.
    let sci = format!("{:e}", v.abs());
    let (mantissa, exp) = sci.split_once('e').unwrap_or((sci.as_str(), "0"));
    let exp: i32 = exp.parse().unwrap_or(0);
    let digits: String = mantissa.chars().filter(char::is_ascii_digit).collect();
    let mut out = String::with_capacity(24);
    if v < 0.0 {
        out.push('-');
    }
    // %e when the exponent is below -4 or at least the shortest-format precision, 6.
    if !(-4..6).contains(&exp) {
        out.push_str(&digits[..1]);
        if digits.len() > 1 {
            out.push('.');
            out.push_str(&digits[1..]);
        }
        let _ = write!(out, "e{}{:02}", if exp < 0 { '-' } else { '+' }, exp.unsigned_abs());
    } else if exp < 0 {
        out.push_str("0.");
        for _ in 0..(-exp - 1) {
            out.push('0');
        }
        out.push_str(&digits);
    } else {
        let int_len = exp as usize + 1;
        if digits.len() <= int_len {
            out.push_str(&digits);
            for _ in digits.len()..int_len {
                out.push('0');
            }
        } else {
            out.push_str(&digits[..int_len]);
            out.push('.');
            out.push_str(&digits[int_len..]);
        }
    }
    out
}

/// A label value as client_golang escapes it.
pub fn escape_label_value(v: &str, out: &mut String) {
    for c in v.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '"' => out.push_str("\\\""),
            '\n' => out.push_str("\\n"),
            c => out.push(c),
        }
    }
}

/// Help text as client_golang escapes it.
pub fn escape_help(v: &str) -> String {
    v.replace('\\', "\\\\").replace('\n', "\\n")
}

/// `{a="x",b="y"}` from (name, value) pairs already in output order, plus an optional `le`.
pub fn label_block(pairs: &[(&str, &str)], le: Option<&str>) -> String {
    if pairs.is_empty() && le.is_none() {
        return String::new();
    }
    let mut out = String::with_capacity(64);
    out.push('{');
    for (i, (name, value)) in pairs.iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        out.push_str(name);
        out.push_str("=\"");
        escape_label_value(value, &mut out);
        out.push('"');
    }
    if let Some(le) = le {
        if !pairs.is_empty() {
            out.push(',');
        }
        out.push_str("le=\"");
        out.push_str(le);
        out.push('"');
    }
    out.push('}');
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn floats_format_as_go_strconv_g() {
        // strconv.FormatFloat(x, 'g', -1, 64) for each x.
        let cases: &[(f64, &str)] = &[
            (0.0, "0"),
            (1.0, "1"),
            (-1.0, "-1"),
            (0.001, "0.001"),
            (0.0001, "0.0001"),
            (0.00001, "1e-05"),
            (1.5e-05, "1.5e-05"),
            (2.25e-05, "2.25e-05"),
            (0.0015, "0.0015"),
            (16.384, "16.384"),
            (100000.0, "100000"),
            (123456.7, "123456.7"),
            (1000000.0, "1e+06"),
            (1234567.0, "1.234567e+06"),
            (16777216.0, "1.6777216e+07"),
            (1.7e9, "1.7e+09"),
            (-0.5, "-0.5"),
            (f64::INFINITY, "+Inf"),
            (f64::NEG_INFINITY, "-Inf"),
            (f64::NAN, "NaN"),
            (0.1 + 0.2, "0.30000000000000004"),
        ];
        for (v, want) in cases {
            assert_eq!(go_float(*v), *want, "{v}");
        }
    }

    #[test]
    fn label_values_and_help_escape_as_client_golang() {
        assert_eq!(label_block(&[("a", "x\"y\\z\nw")], Some("0.5")), r#"{a="x\"y\\z\nw",le="0.5"}"#);
        assert_eq!(label_block(&[], None), "");
        assert_eq!(label_block(&[], Some("+Inf")), r#"{le="+Inf"}"#);
        assert_eq!(escape_help("a\\b\nc \"d\""), "a\\\\b\\nc \"d\"");
    }
}
