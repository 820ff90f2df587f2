//! The resource quantity parser: any string must parse or fail cleanly, and accepted values must
//! keep their invariants (no wrap-around, sign respected, milli = value scaled up).
#![no_main]

use edgesched::core::quantity::{parse_milli, parse_value, Quantity};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|input: &str| {
    let Ok(q) = Quantity::parse(input) else {
        assert!(parse_value(input).is_err() && parse_milli(input).is_err());
        return;
    };
    let (v, m) = (q.value(), q.milli_value());
    if q.is_negative() {
        assert!(v <= 0 && m < 0, "{input:?}: negative quantity gave value {v} milli {m}");
        assert!(parse_value(input).is_err() && parse_milli(input).is_err());
    } else {
        assert!(v >= 0 && m >= 0, "{input:?}: non-negative quantity gave value {v} milli {m}");
        // Rounded up: milli is at least 1000·(value-1) unless it saturated.
        assert!(m == i64::MAX || m > (v - 1).saturating_mul(1000), "{input:?}: value {v} milli {m}");
        assert_eq!(parse_value(input), Ok(v));
        assert_eq!(parse_milli(input), Ok(m));
    }
});
