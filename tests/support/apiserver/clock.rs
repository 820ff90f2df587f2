//! Timestamps and identifiers the server stamps on objects: RFC 3339 `Time` (seconds), `MicroTime`,
//! the HTTP `Date` header, UIDs and `generateName` suffixes. Independent of the crate under test
//! so a formatting bug there cannot hide behind the same bug here.

use ring::rand::{SecureRandom, SystemRandom};
use std::time::{SystemTime, UNIX_EPOCH};

/// Civil date from days since 1970-01-01 (H. Hinnant's `civil_from_days`).
fn civil_from_days(days: i64) -> (i64, u32, u32) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let month = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    let year = yoe + era * 400 + i64::from(month <= 2);
    (year, month, day)
}

struct Parts {
    year: i64,
    month: u32,
    day: u32,
    hour: u64,
    minute: u64,
    second: u64,
    micros: u32,
    weekday: usize,
}

fn parts(t: SystemTime) -> Parts {
    let d = t.duration_since(UNIX_EPOCH).unwrap_or_default();
    let secs = d.as_secs();
    let days = (secs / 86_400) as i64;
    let (year, month, day) = civil_from_days(days);
    let rem = secs % 86_400;
    Parts {
        year,
        month,
        day,
        hour: rem / 3600,
        minute: rem % 3600 / 60,
        second: rem % 60,
        micros: d.subsec_micros(),
        weekday: ((days + 4).rem_euclid(7)) as usize,
    }
}

/// metav1.Time: `2025-09-11T20:39:39Z`.
pub fn rfc3339(t: SystemTime) -> String {
    let p = parts(t);
    format!("{:04}-{:02}-{:02}T{:02}:{:02}:{:02}Z", p.year, p.month, p.day, p.hour, p.minute, p.second)
}

/// metav1.MicroTime: `2025-09-11T20:39:39.123456Z`.
pub fn rfc3339_micro(t: SystemTime) -> String {
    let p = parts(t);
    format!("{:04}-{:02}-{:02}T{:02}:{:02}:{:02}.{:06}Z", p.year, p.month, p.day, p.hour, p.minute, p.second, p.micros)
}

/// HTTP `Date` header (IMF-fixdate).
pub fn http_date(t: SystemTime) -> String {
    const DAYS: [&str; 7] = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"];
    const MONTHS: [&str; 12] = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"];
    let p = parts(t);
    format!(
        "{}, {:02} {} {:04} {:02}:{:02}:{:02} GMT",
        DAYS[p.weekday],
        p.day,
        MONTHS[(p.month - 1) as usize],
        p.year,
        p.hour,
        p.minute,
        p.second
    )
}

fn random_bytes<const N: usize>() -> [u8; N] {
    let mut b = [0u8; N];
    SystemRandom::new().fill(&mut b).unwrap();
    b
}

/// A random RFC 4122 version-4 UUID, the shape of `metadata.uid`.
pub fn uuid() -> String {
    let mut b: [u8; 16] = random_bytes();
    b[6] = (b[6] & 0x0f) | 0x40;
    b[8] = (b[8] & 0x3f) | 0x80;
    let hex: String = b.iter().map(|x| format!("{x:02x}")).collect();
    format!("{}-{}-{}-{}-{}", &hex[0..8], &hex[8..12], &hex[12..16], &hex[16..20], &hex[20..32])
}

/// Five random characters from the alphabet of `k8s.io/apimachinery/pkg/util/rand.String`
/// (no vowels, no confusable digits), appended to `metadata.generateName`.
pub fn name_suffix() -> String {
    const ALPHABET: &[u8] = b"bcdfghjklmnpqrstvwxz2456789";
    let b: [u8; 5] = random_bytes();
    b.iter().map(|x| char::from(ALPHABET[usize::from(*x) % ALPHABET.len()])).collect()
}
