//! Label key/value syntax (`k8s.io/apimachinery/pkg/util/validation` `IsQualifiedName`,
//! `IsValidLabelValue`): the message lists configuration validation reports (so a typo in
//! `ignoredResources` or `addedAffinity` is named when the file is loaded), and the yes/no forms
//! selectors check per pod without allocating.

const NAME_MAX: usize = 63;
const PREFIX_MAX: usize = 253;
const NAME_RULE: &str = "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an \
alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is \
'([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')";
const SUBDOMAIN_RULE: &str = "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or \
'.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is \
'[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";

/// `[prefix/]name`: the prefix (if any) and the name, or `None` with more than one `/`.
fn split_qualified(value: &str) -> Option<(Option<&str>, &str)> {
    let mut parts = value.split('/');
    match (parts.next(), parts.next(), parts.next()) {
        (Some(name), None, _) => Some((None, name)),
        (Some(prefix), Some(name), None) => Some((Some(prefix), name)),
        _ => None,
    }
}

/// Whether `value` is a qualified name (`validation.IsQualifiedName` finds nothing).
pub fn is_qualified_name(value: &str) -> bool {
    let Some((prefix, name)) = split_qualified(value) else { return false };
    prefix.is_none_or(|p| !p.is_empty() && is_dns1123_subdomain(p)) && name.len() <= NAME_MAX && is_name_token(name)
}

/// Whether `value` is a valid label value (`validation.IsValidLabelValue` finds nothing): empty,
/// or up to 63 characters of `[-A-Za-z0-9_.]` starting and ending alphanumeric.
pub fn is_valid_label_value(value: &str) -> bool {
    value.is_empty() || (value.len() <= NAME_MAX && is_name_token(value))
}

/// Problems with a qualified name such as `example.com/gpu` or `cpu` (empty when valid).
pub fn qualified_name_errors(value: &str) -> Vec<String> {
    let (prefix, name) = match split_qualified(value) {
        Some(parts) => parts,
        None => {
            return vec![format!(
                "a qualified name {NAME_RULE} with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')"
            )]
        }
    };
    let mut errs = Vec::new();
    if let Some(prefix) = prefix {
        if prefix.is_empty() {
            errs.push("prefix part must be non-empty".to_string());
        } else if !is_dns1123_subdomain(prefix) {
            errs.push(format!("prefix part {SUBDOMAIN_RULE}"));
        }
    }
    if name.is_empty() {
        errs.push("name part must be non-empty".to_string());
    } else if name.len() > NAME_MAX {
        errs.push(format!("name part must be no more than {NAME_MAX} characters"));
    } else if !is_name_token(name) {
        errs.push(format!("name part {NAME_RULE}"));
    }
    errs
}

/// Problems with a label value (empty when valid; the empty value is valid).
pub fn label_value_errors(value: &str) -> Vec<String> {
    let mut errs = Vec::new();
    if value.len() > NAME_MAX {
        errs.push(format!("must be no more than {NAME_MAX} characters"));
    }
    if !value.is_empty() && !is_name_token(value) {
        errs.push(format!("a valid label {NAME_RULE}"));
    }
    errs
}

/// `([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]`
fn is_name_token(s: &str) -> bool {
    let b = s.as_bytes();
    let edge_ok = |c: u8| c.is_ascii_alphanumeric();
    !b.is_empty()
        && edge_ok(b[0])
        && edge_ok(b[b.len() - 1])
        && b.iter().all(|c| c.is_ascii_alphanumeric() || matches!(c, b'-' | b'_' | b'.'))
}

/// RFC 1123 subdomain: dot-separated lowercase labels, at most 253 characters.
fn is_dns1123_subdomain(s: &str) -> bool {
    s.len() <= PREFIX_MAX
        && s.split('.').all(|label| {
            let b = label.as_bytes();
            !b.is_empty()
                && b[0].is_ascii_alphanumeric()
                && b[b.len() - 1].is_ascii_alphanumeric()
                && b.iter().all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || *c == b'-')
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn qualified_names() {
        for ok in ["cpu", "example.com/gpu", "kubernetes.io/hostname", "a_b.c-d", "A1"] {
            assert!(qualified_name_errors(ok).is_empty(), "{ok}");
        }
        assert_eq!(qualified_name_errors("/x"), vec!["prefix part must be non-empty".to_string()]);
        assert_eq!(qualified_name_errors("x/"), vec!["name part must be non-empty".to_string()]);
        assert!(qualified_name_errors("a/b/c")[0].starts_with("a qualified name"));
        assert!(qualified_name_errors("-bad")[0].starts_with("name part must consist"));
        assert!(qualified_name_errors("Example.com/x")[0].starts_with("prefix part a lowercase"));
        assert!(!qualified_name_errors(&"a".repeat(64)).is_empty());
    }

    #[test]
    fn yes_no_forms_agree_with_the_message_lists() {
        let mut samples: Vec<String> =
            ["cpu", "example.com/gpu", "/x", "x/", "a/b/c", "-bad", "Example.com/x", "", "a.b", "a..b/c"]
                .iter()
                .map(|s| s.to_string())
                .collect();
        samples.push("a".repeat(63));
        samples.push("a".repeat(64));
        samples.push(format!("{}/n", "p".repeat(254)));
        for s in &samples {
            assert_eq!(is_qualified_name(s), qualified_name_errors(s).is_empty(), "{s:?}");
            assert_eq!(is_valid_label_value(s), label_value_errors(s).is_empty(), "{s:?}");
        }
    }

    #[test]
    fn label_values() {
        assert!(label_value_errors("").is_empty());
        assert!(label_value_errors("v1.2_x-y").is_empty());
        assert!(!label_value_errors("bad value").is_empty());
        assert!(!label_value_errors(&"a".repeat(64)).is_empty());
    }
}
