//! Field validation errors worded as `k8s.io/apimachinery/pkg/util/validation/field`
//! (`errors.go`: `Error.ErrorBody`, `Required`, `Invalid`, `TooMany`, ...) writes them, and the
//! 422 that `errors.NewInvalid` builds from a list of them: one cause per error and the message
//! `<Kind>.<group> "<name>" is invalid: <aggregate>`, where the aggregate
//! (`ErrorList.ToAggregate`) drops repeated texts and brackets more than one.

use super::resources::ResourceType;
use super::status::{self, quote, ApiError};
use serde_json::{json, Map, Value};

/// `field.ErrorType`: the cause's `reason` and the words that open the message.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ErrorType {
    /// `FieldValueRequired`.
    Required,
    /// `FieldValueInvalid`.
    Invalid,
    /// `FieldValueForbidden`.
    Forbidden,
    /// `FieldValueDuplicate`.
    Duplicate,
    /// `FieldValueTooMany`.
    TooMany,
    /// `FieldValueTooLong`.
    TooLong,
    /// `FieldValueNotSupported`.
    NotSupported,
}

impl ErrorType {
    /// The `reason` of a `StatusCause`.
    pub fn reason(self) -> &'static str {
        match self {
            ErrorType::Required => "FieldValueRequired",
            ErrorType::Invalid => "FieldValueInvalid",
            ErrorType::Forbidden => "FieldValueForbidden",
            ErrorType::Duplicate => "FieldValueDuplicate",
            ErrorType::TooMany => "FieldValueTooMany",
            ErrorType::TooLong => "FieldValueTooLong",
            ErrorType::NotSupported => "FieldValueNotSupported",
        }
    }

    /// `ErrorType.String()`.
    fn words(self) -> &'static str {
        match self {
            ErrorType::Required => "Required value",
            ErrorType::Invalid => "Invalid value",
            ErrorType::Forbidden => "Forbidden",
            ErrorType::Duplicate => "Duplicate value",
            ErrorType::TooMany => "Too many",
            ErrorType::TooLong => "Too long",
            ErrorType::NotSupported => "Unsupported value",
        }
    }
}

/// The offending value as `ErrorBody` prints it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum BadValue {
    /// Not printed (`omitValue`, and the types whose body never shows one).
    Omitted,
    /// A nil value, printed `null`.
    Null,
    /// A string (or string-kinded type), printed quoted like `%q`.
    Str(String),
    /// An integer, printed plainly.
    Int(i64),
    /// A value whose type has a `String()` method, printed as that text, unquoted.
    Text(String),
    /// A structured value. Go prints the internal struct with `%#v` (type names and pointer
    /// addresses, which no other process can reproduce); it is printed here as its JSON.
    Json(Value),
}

/// One `field.Error`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FieldError {
    /// What kind of problem.
    pub kind: ErrorType,
    /// The field path, e.g. `status.reservedFor[3].uid`.
    pub field: String,
    /// The offending value.
    pub value: BadValue,
    /// The explanation after the value.
    pub detail: String,
}

impl FieldError {
    fn new(kind: ErrorType, field: &str, value: BadValue, detail: &str) -> FieldError {
        FieldError { kind, field: field.to_string(), value, detail: detail.to_string() }
    }

    /// `field.Required(path, detail)`.
    pub fn required(field: &str, detail: &str) -> FieldError {
        FieldError::new(ErrorType::Required, field, BadValue::Omitted, detail)
    }

    /// `field.Invalid(path, value, detail)`.
    pub fn invalid(field: &str, value: BadValue, detail: &str) -> FieldError {
        FieldError::new(ErrorType::Invalid, field, value, detail)
    }

    /// `field.Forbidden(path, detail)`.
    pub fn forbidden(field: &str, detail: &str) -> FieldError {
        FieldError::new(ErrorType::Forbidden, field, BadValue::Omitted, detail)
    }

    /// `field.Duplicate(path, value)`.
    pub fn duplicate(field: &str, value: BadValue) -> FieldError {
        FieldError::new(ErrorType::Duplicate, field, value, "")
    }

    /// `field.TooMany(path, actual, max)`.
    pub fn too_many(field: &str, actual: usize, max: usize) -> FieldError {
        let items = if max == 1 { "item" } else { "items" };
        let actual = i64::try_from(actual).map(BadValue::Int).unwrap_or(BadValue::Omitted);
        FieldError::new(ErrorType::TooMany, field, actual, &format!("must have at most {max} {items}"))
    }

    /// `field.TooLong(path, value, max)` (its value is never printed).
    pub fn too_long(field: &str, max: usize) -> FieldError {
        let bytes = if max == 1 { "byte" } else { "bytes" };
        FieldError::new(ErrorType::TooLong, field, BadValue::Omitted, &format!("may not be more than {max} {bytes}"))
    }

    /// `field.NotSupported(path, value, supported)`.
    pub fn not_supported(field: &str, value: &str, supported: &[&str]) -> FieldError {
        let detail = if supported.is_empty() {
            String::new()
        } else {
            let quoted: Vec<String> = supported.iter().map(|s| quote(s)).collect();
            format!("supported values: {}", quoted.join(", "))
        };
        FieldError::new(ErrorType::NotSupported, field, BadValue::Str(value.to_string()), &detail)
    }

    /// `ErrorBody()`: the message without the field.
    pub fn body(&self) -> String {
        let value_shown = !matches!(self.kind, ErrorType::Required | ErrorType::Forbidden | ErrorType::TooLong);
        let mut s = match (&self.value, value_shown) {
            (BadValue::Omitted, _) | (_, false) => self.kind.words().to_string(),
            (BadValue::Str(v), true) => format!("{}: {}", self.kind.words(), quote(v)),
            (BadValue::Null, true) => format!("{}: null", self.kind.words()),
            (BadValue::Int(v), true) => format!("{}: {v}", self.kind.words()),
            (BadValue::Text(v), true) => format!("{}: {v}", self.kind.words()),
            (BadValue::Json(v), true) => format!("{}: {v}", self.kind.words()),
        };
        if !self.detail.is_empty() {
            s.push_str(": ");
            s.push_str(&self.detail);
        }
        s
    }

    /// `Error()`: `<field>: <body>`.
    pub fn message(&self) -> String {
        format!("{}: {}", self.field, self.body())
    }
}

/// `ErrorList.ToAggregate().Error()`: repeated texts once, more than one in brackets.
fn aggregate(errs: &[FieldError]) -> String {
    let mut seen: Vec<String> = Vec::new();
    for e in errs {
        let m = e.message();
        if !seen.contains(&m) {
            seen.push(m);
        }
    }
    match seen.len() {
        1 => seen.remove(0),
        _ => format!("[{}]", seen.join(", ")),
    }
}

/// The 422 of `errors.NewInvalid(<kind>.<group>, name, errs)`; `errs` must not be empty.
pub fn invalid(res: &ResourceType, name: &str, errs: &[FieldError]) -> ApiError {
    let qualified_kind = if res.group.is_empty() { res.kind.to_string() } else { format!("{}.{}", res.kind, res.group) };
    let causes: Vec<Value> =
        errs.iter().map(|e| json!({"reason": e.kind.reason(), "message": e.body(), "field": e.field})).collect();
    let mut details = Map::new();
    if !name.is_empty() {
        details.insert("name".into(), json!(name));
    }
    if !res.group.is_empty() {
        details.insert("group".into(), json!(res.group));
    }
    details.insert("kind".into(), json!(res.kind));
    details.insert("causes".into(), Value::Array(causes));
    let message = format!("{qualified_kind} {} is invalid: {}", quote(name), aggregate(errs));
    status::failure(422, "Invalid", &message, details)
}

/// `Ok` for no errors, else [`invalid`].
pub fn check(res: &ResourceType, name: &str, errs: Vec<FieldError>) -> Result<(), ApiError> {
    if errs.is_empty() {
        Ok(())
    } else {
        Err(invalid(res, name, &errs))
    }
}

#[cfg(test)]
#[allow(unused_imports)] // a bench includes this file with cfg(test) but without the #[test] functions
mod tests {
    //! Texts pinned against `field/errors.go` and `errors.NewInvalid`.

    use super::*;
    use crate::support::apiserver::resources::{dra_resource, RESOURCES};

    #[test]
    fn bodies_read_like_error_body() {
        assert_eq!(FieldError::required("spec.x", "").message(), "spec.x: Required value");
        assert_eq!(
            FieldError::too_many("status.reservedFor", 257, 256).message(),
            "status.reservedFor: Too many: 257: must have at most 256 items"
        );
        assert_eq!(
            FieldError::duplicate("status.reservedFor[1]", BadValue::Str("u1".into())).message(),
            "status.reservedFor[1]: Duplicate value: \"u1\""
        );
        assert_eq!(
            FieldError::forbidden("status.reservedFor", "may not be specified when `allocated` is not set").message(),
            "status.reservedFor: Forbidden: may not be specified when `allocated` is not set"
        );
        assert_eq!(FieldError::too_long("spec.driver", 63).message(), "spec.driver: Too long: may not be more than 63 bytes");
        assert_eq!(
            FieldError::not_supported("x.source", "Nope", &["FromClaim", "FromClass"]).message(),
            "x.source: Unsupported value: \"Nope\": supported values: \"FromClaim\", \"FromClass\""
        );
    }

    #[test]
    fn new_invalid_aggregates_causes_and_names_the_group() {
        let res = &RESOURCES[dra_resource("resourceclaims")];
        let errs = [
            FieldError::required("status.reservedFor[0].uid", ""),
            FieldError::required("status.reservedFor[0].uid", ""),
            FieldError::forbidden("status.reservedFor", "no"),
        ];
        let e = invalid(res, "c", &errs);
        assert_eq!(e.code, 422);
        assert_eq!(
            e.body["message"],
            "ResourceClaim.resource.k8s.io \"c\" is invalid: [status.reservedFor[0].uid: Required value, status.reservedFor: Forbidden: no]"
        );
        assert_eq!(e.body["details"]["kind"], "ResourceClaim");
        assert_eq!(e.body["details"]["group"], "resource.k8s.io");
        assert_eq!(e.body["details"]["causes"].as_array().unwrap().len(), 3, "causes are not deduplicated");
        assert_eq!(
            e.body["details"]["causes"][2],
            json!({"reason": "FieldValueForbidden", "message": "Forbidden: no", "field": "status.reservedFor"})
        );
        let one = invalid(res, "c", &errs[2..]);
        assert_eq!(one.body["message"], "ResourceClaim.resource.k8s.io \"c\" is invalid: status.reservedFor: Forbidden: no");
    }
}
