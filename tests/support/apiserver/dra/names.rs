//! The name checks resource.k8s.io validation applies to what a scheduler writes into an
//! allocation: DNS-1123 labels and subdomains (`k8s.io/apimachinery/pkg/util/validation`,
//! `IsDNS1123Label`/`IsDNS1123Subdomain` and their `RegexError` texts), driver names
//! (`ValidateCSIDriverName` in `pkg/apis/core/validation`) and pool names (`validatePoolName`
//! in `pkg/apis/resource/validation/validation.go`).

use super::super::field_errors::{BadValue, FieldError};

const DNS1123_LABEL_MAX: usize = 63;
const DNS1123_SUBDOMAIN_MAX: usize = 253;
/// `resource.PoolNameMaxLength`.
const POOL_NAME_MAX: usize = 253;
/// `ValidateCSIDriverName`'s limit.
const DRIVER_NAME_MAX: usize = 63;

const LABEL_MSG: &str = "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')";
const SUBDOMAIN_MSG: &str = "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";

fn alnum(c: u8) -> bool {
    c.is_ascii_lowercase() || c.is_ascii_digit()
}

/// `[a-z0-9]([-a-z0-9]*[a-z0-9])?`
fn is_label(s: &str) -> bool {
    let b = s.as_bytes();
    !b.is_empty() && alnum(b[0]) && alnum(b[b.len() - 1]) && b.iter().all(|c| alnum(*c) || *c == b'-')
}

/// Labels joined by dots.
fn is_subdomain(s: &str) -> bool {
    s.split('.').all(is_label)
}

/// The `field.Invalid` errors of a name `value` that must be at most `max` characters and
/// pass `valid` (`format` is the regex text).
fn dns1123(value: &str, field: &str, max: usize, valid: fn(&str) -> bool, format: &str) -> Vec<FieldError> {
    let mut errs = Vec::new();
    if value.len() > max {
        errs.push(FieldError::invalid(field, BadValue::Str(value.into()), &format!("must be no more than {max} characters")));
    }
    if !valid(value) {
        errs.push(FieldError::invalid(field, BadValue::Str(value.into()), format));
    }
    errs
}

/// `IsDNS1123Label` as `field.Invalid` errors.
pub fn dns1123_label(value: &str, field: &str) -> Vec<FieldError> {
    dns1123(value, field, DNS1123_LABEL_MAX, is_label, LABEL_MSG)
}

/// `IsDNS1123Subdomain` as `field.Invalid` errors.
pub fn dns1123_subdomain(value: &str, field: &str) -> Vec<FieldError> {
    dns1123(value, field, DNS1123_SUBDOMAIN_MAX, is_subdomain, SUBDOMAIN_MSG)
}

/// `ValidateCSIDriverName`: required, at most 63 bytes, and a subdomain once lower-cased.
pub fn driver_name(value: &str, field: &str) -> Vec<FieldError> {
    let mut errs = Vec::new();
    if value.is_empty() {
        errs.push(FieldError::required(field, ""));
    }
    if value.len() > DRIVER_NAME_MAX {
        errs.push(FieldError::too_long(field, DRIVER_NAME_MAX));
    }
    for e in dns1123_subdomain(&value.to_ascii_lowercase(), field) {
        errs.push(FieldError::invalid(field, BadValue::Str(value.into()), &e.detail));
    }
    errs
}

/// `validatePoolName`: required, at most 253 bytes, each `/`-separated part a subdomain.
pub fn pool_name(value: &str, field: &str) -> Vec<FieldError> {
    if value.is_empty() {
        return vec![FieldError::required(field, "")];
    }
    let mut errs = Vec::new();
    if value.len() > POOL_NAME_MAX {
        errs.push(FieldError::too_long(field, POOL_NAME_MAX));
    }
    for part in value.split('/') {
        errs.extend(dns1123_subdomain(part, field));
    }
    errs
}

#[cfg(test)]
#[allow(unused_imports)] // a bench includes this file with cfg(test) but without the #[test] functions
mod tests {
    //! Cases of `TestIsDNS1123Label`/`TestIsDNS1123Subdomain` (k8s.io/apimachinery
    //! `pkg/util/validation/validation_test.go`) and the driver/pool rules.

    use super::*;

    #[test]
    fn labels_and_subdomains() {
        for good in ["a", "ab", "abc", "a1", "a-1", "a--1--2--b", "0", "01", "012", "1a", "1-a", "1--a--b--2"] {
            assert!(dns1123_label(good, "f").is_empty(), "{good}");
        }
        for bad in [
            "", "A", "ABC", "aBc", "A1", "A-1", "1-A", "-", "a-", "-a", "1-", "-1", "_", "a_", "_a", "a_b", "1_", "_1", "1_2",
            ".",
        ] {
            assert!(!dns1123_label(bad, "f").is_empty(), "{bad}");
        }
        assert_eq!(dns1123_label(&"a".repeat(64), "f")[0].detail, "must be no more than 63 characters");
        for good in ["a.b.c", "11.22.33", "a-1.b-2", "0.a"] {
            assert!(dns1123_subdomain(good, "f").is_empty(), "{good}");
        }
        for bad in ["a..b", ".a", "a.", "A.a", "a_b.c"] {
            assert!(!dns1123_subdomain(bad, "f").is_empty(), "{bad}");
        }
    }

    #[test]
    fn driver_and_pool_names() {
        assert!(driver_name("gpu.example.com", "d").is_empty());
        assert!(driver_name("GPU.example.com", "d").is_empty(), "checked lower-cased");
        let empty: Vec<String> = driver_name("", "d").iter().map(FieldError::message).collect();
        assert_eq!(empty[0], "d: Required value");
        assert!(pool_name("node-1/slot.a", "p").is_empty());
        assert_eq!(pool_name("", "p")[0].message(), "p: Required value");
        assert!(!pool_name("a//b", "p").is_empty());
    }
}
