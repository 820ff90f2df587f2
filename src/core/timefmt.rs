//! RFC 3339 timestamps as the API server writes them (`Time` with seconds, `MicroTime` with six
//! fractional digits), without a date-time dependency.

use std::time::{Duration, SystemTime, UNIX_EPOCH};

/// Days since 1970-01-01 for a proleptic Gregorian date (Howard Hinnant's `days_from_civil`).
fn days_from_civil(y: i64, m: u32, d: u32) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = if y >= 0 { y } else { y - 399 } / 400;
    let yoe = y - era * 400;
    let m = i64::from(m);
    let doy = (153 * (if m > 2 { m - 3 } else { m + 9 }) + 2) / 5 + i64::from(d) - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146097 + doe - 719468
}

/// Inverse of [`days_from_civil`].
fn civil_from_days(z: i64) -> (i64, u32, u32) {
    let z = z + 719468;
    let era = if z >= 0 { z } else { z - 146096 } / 146097;
    let doe = z - era * 146097;
    let yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
    let y = yoe + era * 400;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    (if m <= 2 { y + 1 } else { y }, m, d)
}

fn num(s: &[u8]) -> Option<u32> {
    if s.is_empty() || !s.iter().all(u8::is_ascii_digit) {
        return None;
    }
    std::str::from_utf8(s).ok()?.parse().ok()
}

/// Parse `2025-09-11T20:39:39Z`, `...39.123456Z` or `...39+02:00` into (unix seconds, nanos).
pub fn parse_rfc3339(s: &str) -> Option<(i64, u32)> {
    let b = s.as_bytes();
    if b.len() < 20 || b[4] != b'-' || b[7] != b'-' || (b[10] != b'T' && b[10] != b't' && b[10] != b' ') {
        return None;
    }
    if b[13] != b':' || b[16] != b':' {
        return None;
    }
    let year = i64::from(num(&b[0..4])?);
    let month = num(&b[5..7])?;
    let day = num(&b[8..10])?;
    let hour = num(&b[11..13])?;
    let min = num(&b[14..16])?;
    let sec = num(&b[17..19])?;
    if !(1..=12).contains(&month) || !(1..=31).contains(&day) || hour > 23 || min > 59 || sec > 60 {
        return None;
    }
    let mut i = 19;
    let mut nanos = 0u32;
    if b[i] == b'.' {
        i += 1;
        let start = i;
        while i < b.len() && b[i].is_ascii_digit() {
            i += 1;
        }
        let frac = &b[start..i];
        if frac.is_empty() {
            return None;
        }
        let mut n = 0u32;
        for (k, d) in frac.iter().take(9).enumerate() {
            n += u32::from(d - b'0') * 10u32.pow(8 - k as u32);
        }
        nanos = n;
    }
    let offset = match b.get(i)? {
        b'Z' | b'z' if i + 1 == b.len() => 0i64,
        sign @ (b'+' | b'-') if b.len() == i + 6 && b[i + 3] == b':' => {
            let h = i64::from(num(&b[i + 1..i + 3])?);
            let m = i64::from(num(&b[i + 4..i + 6])?);
            let o = h * 3600 + m * 60;
            if *sign == b'+' {
                o
            } else {
                -o
            }
        }
        _ => return None,
    };
    let days = days_from_civil(year, month, day);
    let secs = days * 86400 + i64::from(hour) * 3600 + i64::from(min) * 60 + i64::from(sec) - offset;
    Some((secs, nanos))
}

fn split(t: SystemTime) -> (i64, u32) {
    match t.duration_since(UNIX_EPOCH) {
        Ok(d) => (d.as_secs() as i64, d.subsec_nanos()),
        Err(e) => {
            let d = e.duration();
            let mut secs = -(d.as_secs() as i64);
            let mut nanos = d.subsec_nanos();
            if nanos > 0 {
                secs -= 1;
                nanos = 1_000_000_000 - nanos;
            }
            (secs, nanos)
        }
    }
}

fn format_parts(secs: i64, frac: Option<u32>) -> String {
    let days = secs.div_euclid(86400);
    let rem = secs.rem_euclid(86400);
    let (y, m, d) = civil_from_days(days);
    let (hh, mm, ss) = (rem / 3600, (rem % 3600) / 60, rem % 60);
    match frac {
        Some(micros) => format!("{y:04}-{m:02}-{d:02}T{hh:02}:{mm:02}:{ss:02}.{micros:06}Z"),
        None => format!("{y:04}-{m:02}-{d:02}T{hh:02}:{mm:02}:{ss:02}Z"),
    }
}

/// `metav1.Time` format: seconds precision, UTC.
pub fn format_rfc3339(t: SystemTime) -> String {
    format_parts(split(t).0, None)
}

/// `metav1.MicroTime` format: six fractional digits, UTC (Event `eventTime`, Lease times).
pub fn format_micro(t: SystemTime) -> String {
    let (s, n) = split(t);
    format_parts(s, Some(n / 1000))
}

/// Parse an RFC 3339 string into a `SystemTime`.
pub fn parse_system_time(s: &str) -> Option<SystemTime> {
    let (secs, nanos) = parse_rfc3339(s)?;
    if secs >= 0 {
        UNIX_EPOCH.checked_add(Duration::new(secs as u64, nanos))
    } else {
        UNIX_EPOCH
            .checked_sub(Duration::from_secs(secs.unsigned_abs()))
            .and_then(|t| t.checked_add(Duration::from_nanos(u64::from(nanos))))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips_api_timestamps() {
        for s in ["2025-09-11T20:39:39Z", "1970-01-01T00:00:00Z", "2000-02-29T23:59:59Z", "2024-12-31T00:00:00Z"] {
            let t = parse_system_time(s).expect("parses");
            assert_eq!(format_rfc3339(t), s);
        }
        let t = parse_system_time("2025-09-11T20:39:39.123456Z").expect("parses");
        assert_eq!(format_micro(t), "2025-09-11T20:39:39.123456Z");
        assert_eq!(parse_rfc3339("2025-09-11T20:39:39Z"), Some((1757623179, 0)));
        assert_eq!(parse_rfc3339("2025-09-11T22:39:39+02:00"), Some((1757623179, 0)));
    }

    #[test]
    fn rejects_garbage() {
        for s in ["", "yesterday", "2025-13-01T00:00:00Z", "2025-09-11T20:39:39", "2025-09-11T20:39:39.Z"] {
            assert_eq!(parse_rfc3339(s), None, "{s}");
        }
    }
}
