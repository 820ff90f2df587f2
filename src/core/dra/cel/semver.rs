//! The CEL `Semver` type: version attributes of devices and the `semver()` library function.
//!
//! Upstream parses both with `github.com/blang/semver/v4` (`semver.Parse`), and its error texts
//! reach users (a device whose version attribute does not parse fails every selector evaluated on
//! it with `attribute <name>: parse semantic version: <blang's text>`). The `semver` crate accepts
//! nearly the same language but words its errors differently and orders build metadata, which
//! blang ignores; so this is a transcription of blang's `Parse`, `NewPRVersion` and `Compare`
//! (github.com/blang/semver v4.0.0, `semver.go`) and of the library's `normalizeAndParse`
//! (kubernetes/kubernetes v1.35, `staging/src/k8s.io/apiserver/pkg/cel/library/semverlib.go`).
//! The `cel_selector` fuzz target exercises it through selectors and device attributes.

use std::any::Any;
use std::cmp::Ordering;

use cel::common::types::Type;
use cel::common::value::{StaticVal, Val};

/// The CEL type name upstream registers (`apiservercel.SemverType`).
pub static SEMVER_TYPE: Type = Type::new_unspecified_type("kubernetes.Semver");

/// One pre-release identifier.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Pre {
    Num(u64),
    Str(String),
}

/// A parsed semantic version (build metadata is kept only to be ignored, as blang does).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Semver {
    pub major: u64,
    pub minor: u64,
    pub patch: u64,
    pre: Vec<Pre>,
}

const NUMBERS: &str = "0123456789";
const ALPHANUM: &str = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ-0123456789";

fn contains_only(s: &str, set: &str) -> bool {
    s.chars().all(|c| set.contains(c))
}

fn has_leading_zeroes(s: &str) -> bool {
    s.len() > 1 && s.starts_with('0')
}

/// Go's `strconv.ParseUint(s, 10, 64)` error texts, for the digit strings that reach it.
fn parse_u64(s: &str) -> Result<u64, String> {
    if s.is_empty() {
        return Err(format!("strconv.ParseUint: parsing {s:?}: invalid syntax"));
    }
    s.parse::<u64>().map_err(|_| format!("strconv.ParseUint: parsing {s:?}: value out of range"))
}

fn number(s: &str, what: &str, capital: &str) -> Result<u64, String> {
    if !contains_only(s, NUMBERS) {
        return Err(format!("Invalid character(s) found in {what} number {s:?}"));
    }
    if has_leading_zeroes(s) {
        return Err(format!("{capital} number must not contain leading zeroes {s:?}"));
    }
    parse_u64(s)
}

impl Semver {
    /// blang's `semver.Parse`, with its error texts.
    pub fn parse(s: &str) -> Result<Semver, String> {
        if s.is_empty() {
            return Err("Version string empty".into());
        }
        let parts: Vec<&str> = s.splitn(3, '.').collect();
        if parts.len() != 3 {
            return Err("No Major.Minor.Patch elements found".into());
        }
        let major = number(parts[0], "major", "Major")?;
        let minor = number(parts[1], "minor", "Minor")?;
        let mut patch_str = parts[2];
        let mut build: Vec<&str> = Vec::new();
        if let Some(i) = patch_str.find('+') {
            build = patch_str[i + 1..].split('.').collect();
            patch_str = &patch_str[..i];
        }
        let mut prerelease: Vec<&str> = Vec::new();
        if let Some(i) = patch_str.find('-') {
            prerelease = patch_str[i + 1..].split('.').collect();
            patch_str = &patch_str[..i];
        }
        let patch = number(patch_str, "patch", "Patch")?;
        let mut pre = Vec::with_capacity(prerelease.len());
        for p in prerelease {
            pre.push(pre_version(p)?);
        }
        for b in build {
            if b.is_empty() {
                return Err("Build meta data is empty".into());
            }
            if !contains_only(b, ALPHANUM) {
                return Err(format!("Invalid character(s) found in build meta data {b:?}"));
            }
        }
        Ok(Semver { major, minor, patch, pre })
    }

    /// The library's `normalizeAndParse`: no `v` prefix, leading zeros dropped, missing minor and
    /// patch filled with 0.
    pub fn parse_normalized(s: &str) -> Result<Semver, String> {
        let s = s.strip_prefix('v').unwrap_or(s);
        let mut parts: Vec<String> = s.splitn(3, '.').map(str::to_string).collect();
        for p in parts.iter_mut() {
            if p.len() > 1 {
                let mut t = p.trim_start_matches('0').to_string();
                if !t.starts_with(|c: char| c.is_ascii_digit()) {
                    t.insert(0, '0');
                }
                *p = t;
            }
        }
        if parts.len() < 3 {
            if parts.last().is_some_and(|l| l.contains(['+', '-'])) {
                return Err("short version cannot contain PreRelease/Build meta data".into());
            }
            while parts.len() < 3 {
                parts.push("0".into());
            }
        }
        Semver::parse(&parts.join("."))
    }

    /// blang's `Version.Compare`: build metadata does not count.
    pub fn compare(&self, other: &Semver) -> Ordering {
        let core = (self.major, self.minor, self.patch).cmp(&(other.major, other.minor, other.patch));
        if core != Ordering::Equal {
            return core;
        }
        match (self.pre.is_empty(), other.pre.is_empty()) {
            (true, true) => return Ordering::Equal,
            (true, false) => return Ordering::Greater,
            (false, true) => return Ordering::Less,
            (false, false) => {}
        }
        for (a, b) in self.pre.iter().zip(other.pre.iter()) {
            let ord = match (a, b) {
                (Pre::Num(x), Pre::Num(y)) => x.cmp(y),
                (Pre::Num(_), Pre::Str(_)) => Ordering::Less,
                (Pre::Str(_), Pre::Num(_)) => Ordering::Greater,
                (Pre::Str(x), Pre::Str(y)) => x.cmp(y),
            };
            if ord != Ordering::Equal {
                return ord;
            }
        }
        self.pre.len().cmp(&other.pre.len())
    }
}

/// blang's `NewPRVersion`.
fn pre_version(s: &str) -> Result<Pre, String> {
    if s.is_empty() {
        return Err("Prerelease is empty".into());
    }
    if contains_only(s, NUMBERS) {
        if has_leading_zeroes(s) {
            return Err(format!("Numeric PreRelease version must not contain leading zeroes {s:?}"));
        }
        return Ok(Pre::Num(parse_u64(s)?));
    }
    if contains_only(s, ALPHANUM) {
        return Ok(Pre::Str(s.to_string()));
    }
    Err(format!("Invalid character(s) found in prerelease {s:?}"))
}

impl Val for Semver {
    fn get_type(&self) -> &Type {
        &SEMVER_TYPE
    }

    fn cel_type() -> &'static Type {
        &SEMVER_TYPE
    }

    fn equals(&self, other: &dyn Val) -> bool {
        // apiservercel.Semver.Equal compares with Version.Equals (= Compare == 0).
        other.downcast_ref::<Semver>().is_some_and(|o| self.compare(o) == Ordering::Equal)
    }

    fn clone_as_boxed<'v>(&self) -> Box<dyn Val + 'v> {
        Box::new(self.clone())
    }

    fn as_any(&self) -> Option<&dyn Any> {
        Some(self)
    }
}

impl StaticVal for Semver {}

#[cfg(test)]
mod tests {
    use super::*;

    fn v(s: &str) -> Semver {
        Semver::parse(s).unwrap()
    }

    #[test]
    fn parse_errors_in_blangs_words() {
        let err = |s: &str| Semver::parse(s).unwrap_err();
        assert_eq!(err(""), "Version string empty");
        assert_eq!(err("1.0"), "No Major.Minor.Patch elements found");
        assert_eq!(err("a.0.0"), "Invalid character(s) found in major number \"a\"");
        assert_eq!(err("01.0.0"), "Major number must not contain leading zeroes \"01\"");
        assert_eq!(err("1.01.0"), "Minor number must not contain leading zeroes \"01\"");
        assert_eq!(err("1.0.01"), "Patch number must not contain leading zeroes \"01\"");
        assert_eq!(err("1.0.0-"), "Prerelease is empty");
        assert_eq!(err("1.0.0-01"), "Numeric PreRelease version must not contain leading zeroes \"01\"");
        assert_eq!(err("1.0.0-a_b"), "Invalid character(s) found in prerelease \"a_b\"");
        assert_eq!(err("1.0.0+"), "Build meta data is empty");
        assert_eq!(err("1..0"), "strconv.ParseUint: parsing \"\": invalid syntax");
        assert_eq!(err("v1.0.0"), "Invalid character(s) found in major number \"v1\"");
        assert_eq!(err("99999999999999999999.0.0"), "strconv.ParseUint: parsing \"99999999999999999999\": value out of range");
    }

    #[test]
    fn precedence_as_semver_org() {
        // semver.org §11 example chain.
        let chain = [
            "1.0.0-alpha",
            "1.0.0-alpha.1",
            "1.0.0-alpha.beta",
            "1.0.0-beta",
            "1.0.0-beta.2",
            "1.0.0-beta.11",
            "1.0.0-rc.1",
            "1.0.0",
        ];
        for w in chain.windows(2) {
            assert_eq!(v(w[0]).compare(&v(w[1])), Ordering::Less, "{} < {}", w[0], w[1]);
        }
        assert_eq!(v("1.0.0+build.1").compare(&v("1.0.0+other")), Ordering::Equal);
        assert_eq!(v("2.0.0").compare(&v("1.9.9")), Ordering::Greater);
    }

    // The normalisation examples of the library's documentation (semverlib.go, v1.35).
    #[test]
    fn normalized_parsing() {
        assert_eq!(Semver::parse_normalized("v1.0.0").unwrap(), v("1.0.0"));
        assert_eq!(Semver::parse_normalized("1.0").unwrap(), v("1.0.0"));
        assert_eq!(Semver::parse_normalized("01.01.01").unwrap(), v("1.1.1"));
        assert_eq!(Semver::parse_normalized("v1.0").unwrap(), v("1.0.0"));
        assert_eq!(Semver::parse_normalized("1.0-alpha").unwrap_err(), "short version cannot contain PreRelease/Build meta data");
        assert!(Semver::parse_normalized("hello").is_err());
    }
}
