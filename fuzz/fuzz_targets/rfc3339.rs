//! RFC 3339 timestamps as Go's `time.Parse(time.RFC3339, …)` reads them: any text parses or is
//! refused without panicking, and an accepted one keeps its invariants (nanoseconds below a
//! second, the instant within Go's year range shifted by at most a 24:60 offset, and the same
//! instant read back from its UTC formatting when it has no more than microseconds).
#![no_main]

use edgesched::core::timefmt::{format_micro, parse_rfc3339, parse_system_time};
use libfuzzer_sys::fuzz_target;

/// 0000-01-01T00:00:00Z and 9999-12-31T23:59:59Z in Unix seconds, widened by 25 hours.
const FIRST: i64 = -62_167_219_200 - 25 * 3600;
const LAST: i64 = 253_402_300_799 + 25 * 3600;

fuzz_target!(|input: &str| {
    let Some((secs, nanos)) = parse_rfc3339(input) else { return };
    assert!(nanos < 1_000_000_000, "{input:?}");
    assert!((FIRST..=LAST).contains(&secs), "{input:?}: {secs}");
    if nanos % 1000 == 0 && secs >= 0 {
        let t = parse_system_time(input).expect("an accepted timestamp is a time");
        assert_eq!(parse_rfc3339(&format_micro(t)), Some((secs, nanos)), "{input:?}");
    }
});
