//! library.Format (`staging/src/k8s.io/apiserver/pkg/cel/library/format.go`, v1.35): named
//! string formats (`format.dns1123Label()`, `format.named("uuid")`) and `<format>.validate(s)`,
//! which returns `optional.none()` when `s` is valid and the list of validation errors otherwise.

use cel::{DeclarationError, Env};

/// The formats the library names.
pub const NAMES: &[&str] = &[
    "dns1123Label",
    "dns1123Subdomain",
    "dns1035Label",
    "qualifiedName",
    "dns1123LabelPrefix",
    "dns1123SubdomainPrefix",
    "dns1035LabelPrefix",
    "labelValue",
    "uri",
    "uuid",
    "byte",
    "date",
    "datetime",
];

/// Registers the library.
pub fn register(_env: &mut Env) -> Result<(), DeclarationError> {
    Ok(())
}
