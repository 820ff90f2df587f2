//! RFC 3339 timestamps as the API server writes them (`Time` with seconds, `MicroTime` with six
//! fractional digits), read as Go's `time.Parse(time.RFC3339, …)` reads them; checked against
//! the `time` crate in the tests.

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

/// Days in `month` of `year` (Go's `daysIn`: February has 29 in leap years, year 0 included).
fn days_in(month: u32, year: i64) -> u32 {
    match month {
        2 if year % 4 == 0 && (year % 100 != 0 || year % 400 == 0) => 29,
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    }
}

/// Reads the fields of a timestamp left to right, as Go's layout parser does.
struct Fields<'a>(&'a [u8]);

impl Fields<'_> {
    /// Exactly `n` digits (Go's `getnum(s, true)` for two, `atoi` of four for the year).
    fn digits(&mut self, n: usize) -> Option<u32> {
        let (head, rest) = self.0.split_at_checked(n)?;
        if !head.iter().all(u8::is_ascii_digit) {
            return None;
        }
        self.0 = rest;
        Some(head.iter().fold(0, |v, d| v * 10 + u32::from(d - b'0')))
    }

    /// One or two digits (Go's `getnum(s, false)`, the layout's non-padded hour `15`).
    fn one_or_two_digits(&mut self) -> Option<u32> {
        match self.0 {
            [a, b, ..] if a.is_ascii_digit() && b.is_ascii_digit() => self.digits(2),
            _ => self.digits(1),
        }
    }

    /// The literal byte `c`.
    fn literal(&mut self, c: u8) -> Option<()> {
        let (&first, rest) = self.0.split_first()?;
        (first == c).then(|| self.0 = rest)
    }
}

/// Parse an RFC 3339 timestamp into (unix seconds, nanoseconds), accepting exactly what Go's
/// `time.Parse(time.RFC3339, s)` accepts — the form every Kubernetes `Time` and `MicroTime`
/// takes. Go (src/time/format.go `Parse` and `parse`, format_rfc3339.go `parseRFC3339`, commit
/// 08d24035): a fast path for the strict form, then the layout `2006-01-02T15:04:05Z07:00` read
/// field by field, which accepts a little more. So:
/// - a four-digit year (0000–9999), two-digit month (1–12) and day (1 to the month's length,
///   29 February in leap years only), the literals `-`, `T`, `:` exactly (no `t`, no space);
/// - the hour in one or two digits (0–23), minute and second in two (0–59: no leap second);
/// - an optional fraction after `.` or `,` of any number of digits, of which the first nine
///   count (the rest are read and dropped);
/// - `Z` (not `z`) or a sign, two-digit hours, `:` and two-digit minutes, where Go allows up to
///   24 hours and 60 minutes ("some people do write offsets of 24 hours");
/// - nothing after that.
pub fn parse_rfc3339(s: &str) -> Option<(i64, u32)> {
    let mut f = Fields(s.as_bytes());
    let year = f.digits(4)?;
    f.literal(b'-')?;
    let month = f.digits(2)?;
    f.literal(b'-')?;
    let day = f.digits(2)?;
    f.literal(b'T')?;
    let hour = f.one_or_two_digits()?;
    f.literal(b':')?;
    let min = f.digits(2)?;
    f.literal(b':')?;
    let sec = f.digits(2)?;
    let year = i64::from(year);
    if !(1..=12).contains(&month) || hour > 23 || min > 59 || sec > 59 {
        return None;
    }
    let mut nanos = 0u32;
    if let [b'.' | b',', d, ..] = f.0 {
        if d.is_ascii_digit() {
            let digits = f.0[1..].iter().take_while(|b| b.is_ascii_digit()).count();
            for (k, d) in f.0[1..=digits].iter().take(9).enumerate() {
                nanos += u32::from(d - b'0') * 10u32.pow(8 - k as u32);
            }
            f.0 = &f.0[1 + digits..];
        }
    }
    let offset = if f.literal(b'Z').is_some() {
        0
    } else {
        let sign = match f.0.first()? {
            b'+' => 1,
            b'-' => -1,
            _ => return None,
        };
        f.0 = &f.0[1..];
        let h = f.digits(2)?;
        f.literal(b':')?;
        let m = f.digits(2)?;
        if h > 24 || m > 60 {
            return None;
        }
        sign * (i64::from(h) * 3600 + i64::from(m) * 60)
    };
    if !f.0.is_empty() || day < 1 || day > days_in(month, year) {
        return None;
    }
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

    /// What Go's `time.Parse(time.RFC3339, s)` accepts and refuses. Cases from Go's
    /// src/time/format_test.go (commit 01ec3bd0: `parseTests` "RFC3339", `parseErrorTests` for
    /// RFC3339, `dayOutOfRangeTests` transposed to this layout) and the rules of format.go
    /// (`parse`: `getnum` for the hour without padding, the offset range test "> rather than
    /// >=", `commaOrPeriod` for the fraction) and format_rfc3339.go (`parseRFC3339`).
    #[test]
    fn accepts_and_refuses_what_go_does() {
        let pst = |secs: i64| secs + 8 * 3600;
        // 2010-02-04T21:00:57-08:00 (Go's test instant).
        let base = days_from_civil(2010, 2, 4) * 86400 + 21 * 3600 + 57;
        let accepted: &[(&str, (i64, u32))] = &[
            ("2010-02-04T21:00:57-08:00", (pst(base), 0)),
            ("2010-02-04T21:00:57.012345678-08:00", (pst(base), 12_345_678)),
            ("2010-02-04T21:00:57,012345678-08:00", (pst(base), 12_345_678)),
            // More than nine digits: read and dropped (parseNanoseconds keeps ten bytes).
            ("2010-02-04T21:00:57.0123456789999-08:00", (pst(base), 12_345_678)),
            ("2010-02-04T21:00:57.5Z", (base, 500_000_000)),
            // The layout's hour `15` is not padded: one digit is enough.
            ("2010-02-04T9:00:57Z", (base - 12 * 3600, 0)),
            // Offsets up to 24 hours and 60 minutes.
            ("2010-02-04T21:00:57+24:00", (base - 24 * 3600, 0)),
            ("2010-02-04T21:00:57-00:60", (base + 3600, 0)),
            ("2012-02-29T21:00:57Z", (days_from_civil(2012, 2, 29) * 86400 + 21 * 3600 + 57, 0)),
            ("2000-02-29T00:00:00Z", (days_from_civil(2000, 2, 29) * 86400, 0)),
            ("0000-02-29T00:00:00Z", (days_from_civil(0, 2, 29) * 86400, 0)),
            ("9999-12-31T23:59:59Z", (days_from_civil(9999, 12, 31) * 86400 + 86399, 0)),
        ];
        for (s, want) in accepted {
            assert_eq!(parse_rfc3339(s), Some(*want), "{s}");
        }
        let refused = [
            // parseErrorTests
            "2006-01-02T15:04:05Z07:00",
            "2006-01-02T15:04_abc",
            "2006-01-02T15:04:05_abc",
            "2006-01-02T15:04:05Z_abc",
            "2010-02-04T21:00:67.012345678-08:00",
            "\"",
            // Days out of range (dayOutOfRangeTests' dates in this layout).
            "2010-01-32T21:00:57Z",
            "2010-02-29T21:00:57Z",
            "2010-04-31T21:00:57Z",
            "2010-06-31T21:00:57Z",
            "2010-09-31T21:00:57Z",
            "2010-11-31T21:00:57Z",
            "2010-12-00T21:00:57Z",
            "1900-02-29T00:00:00Z",
            // Ranges: month, hour 24, minute 60, the leap second 60, offset 25 hours or 61 minutes.
            "2010-00-04T21:00:57Z",
            "2010-13-04T21:00:57Z",
            "2010-02-04T24:00:00Z",
            "2010-02-04T21:60:57Z",
            "2016-12-31T23:59:60Z",
            "2010-02-04T21:00:57+25:00",
            "2010-02-04T21:00:57+00:61",
            // Literals exactly: lower-case `t` and `z`, a space, missing or short fields.
            "2010-02-04t21:00:57Z",
            "2010-02-04T21:00:57z",
            "2010-02-04 21:00:57Z",
            "2010-02-04T21:00:57",
            "2010-02-04T21:00Z",
            "2010-2-04T21:00:57Z",
            "2010-02-4T21:00:57Z",
            "2010-02-04T21:0:57Z",
            "2010-02-04T21:00:7Z",
            "210-02-04T21:00:57Z",
            "+2010-02-04T21:00:57Z",
            "-010-02-04T21:00:57Z",
            "12010-02-04T21:00:57Z",
            "2010-02-04T021:00:57Z",
            // A fraction needs a digit; offsets need two-digit hours, a colon, two-digit minutes.
            "2010-02-04T21:00:57.Z",
            "2010-02-04T21:00:57.-1Z",
            "2010-02-04T21:00:57+8:00",
            "2010-02-04T21:00:57+0800",
            "2010-02-04T21:00:57+08",
            "2010-02-04T21:00:57+08:0",
            "2010-02-04T21:00:57+08:00:00",
            "2010-02-04T21:00:57 +08:00",
            "2010-02-04T21:00:57UTC",
            "2010-02-04T21:00:57Z ",
            " 2010-02-04T21:00:57Z",
            "２010-02-04T21:00:57Z",
        ];
        for s in refused {
            assert_eq!(parse_rfc3339(s), None, "{s}");
        }
    }

    /// A small deterministic generator of timestamp texts: fields mostly in range, sometimes one
    /// past it, in the strict form both Go and the `time` crate read (`T`, `Z`, `.`, two-digit
    /// hours, offsets within ±23:59).
    fn random_timestamp(rng: &mut crate::core::rng::Rng) -> String {
        let mut pick = |n: u64| rng.below(n) as i64;
        let year = pick(10_000);
        let month = pick(14);
        let day = pick(33);
        let (hour, min, sec) = (pick(25), pick(61), pick(60));
        let frac = match pick(4) {
            0 => String::new(),
            _ => {
                let digits = 1 + pick(12) as usize;
                let mut f = String::from(".");
                for _ in 0..digits {
                    f.push(char::from(b'0' + pick(10) as u8));
                }
                f
            }
        };
        let zone = match pick(3) {
            0 => "Z".to_string(),
            _ => format!("{}{:02}:{:02}", if pick(2) == 0 { '+' } else { '-' }, pick(24), pick(60)),
        };
        format!("{year:04}-{month:02}-{day:02}T{hour:02}:{min:02}:{sec:02}{frac}{zone}")
    }

    /// The parse agrees with the `time` crate's RFC 3339 parser on every timestamp of the
    /// strict form (where Go, RFC 3339 and the crate agree), valid or not: same refusals, same
    /// instant to the nanosecond. (Outside that form Go accepts more than RFC 3339 — one-digit
    /// hours, `,`, offsets of 24 hours — and refuses `t`, `z`, leap seconds; the table above
    /// pins those.)
    #[test]
    fn agrees_with_the_time_crate_on_strict_timestamps() {
        use time::format_description::well_known::Rfc3339;
        let mut rng = crate::core::rng::Rng::seeded(3339);
        let mut valid = 0;
        for _ in 0..200_000 {
            let s = random_timestamp(&mut rng);
            let theirs = time::OffsetDateTime::parse(&s, &Rfc3339).ok().map(|t| (t.unix_timestamp(), t.nanosecond()));
            assert_eq!(parse_rfc3339(&s), theirs, "{s}");
            valid += usize::from(theirs.is_some());
        }
        assert!(valid > 50_000, "the generator mostly makes valid timestamps: {valid}");
    }
}
