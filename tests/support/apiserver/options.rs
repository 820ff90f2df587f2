//! Validation of list and watch query options, with the WatchList feature enabled as in current
//! releases (`k8s.io/apimachinery/pkg/apis/meta/internalversion/validation/validation.go`,
//! table `TestValidateListOptions`): a client sending an option combination the real server
//! rejects gets the same 422 here instead of a silently working stream.

use super::http::Request;
use super::status::{self, ApiError};
use serde_json::{json, Map, Value};

/// One `field.Error`: field path, reason, and the text after `<field>: `.
struct FieldError {
    field: &'static str,
    reason: &'static str,
    detail: String,
}

fn forbidden(field: &'static str, why: &str) -> FieldError {
    FieldError { field, reason: "FieldValueForbidden", detail: format!("Forbidden: {why}") }
}

fn not_supported(field: &'static str, value: &str, supported: &[&str]) -> FieldError {
    let list: Vec<String> = supported.iter().map(|s| format!("\"{s}\"")).collect();
    FieldError {
        field,
        reason: "FieldValueNotSupported",
        detail: format!("Unsupported value: \"{value}\": supported values: {}", list.join(", ")),
    }
}

fn list_errors(req: &Request) -> Vec<FieldError> {
    let mut errs = Vec::new();
    let rv = req.param("resourceVersion").unwrap_or("");
    if let Some(m) = req.param("resourceVersionMatch").filter(|m| !m.is_empty()) {
        if rv.is_empty() {
            errs.push(forbidden("resourceVersionMatch", "resourceVersionMatch is forbidden unless resourceVersion is provided"));
        }
        if req.param("continue").is_some_and(|c| !c.is_empty()) {
            errs.push(forbidden("resourceVersionMatch", "resourceVersionMatch is forbidden when continue is provided"));
        }
        if m != "Exact" && m != "NotOlderThan" {
            errs.push(not_supported("resourceVersionMatch", m, &["Exact", "NotOlderThan", ""]));
        }
        if m == "Exact" && rv == "0" {
            errs.push(forbidden("resourceVersionMatch", "resourceVersionMatch \"exact\" is forbidden for resourceVersion \"0\""));
        }
    }
    if req.param("sendInitialEvents").is_some() {
        errs.push(forbidden("sendInitialEvents", "sendInitialEvents is forbidden for list"));
    }
    errs
}

fn watch_errors(req: &Request) -> Vec<FieldError> {
    let mut errs = Vec::new();
    let matching = req.param("resourceVersionMatch").unwrap_or("");
    match req.param("sendInitialEvents") {
        None if !matching.is_empty() => {
            errs.push(forbidden(
                "resourceVersionMatch",
                "resourceVersionMatch is forbidden for watch unless sendInitialEvents is provided",
            ));
        }
        None => {}
        Some(_) if matching != "NotOlderThan" => {
            errs.push(forbidden(
                "resourceVersionMatch",
                "sendInitialEvents requires setting resourceVersionMatch to NotOlderThan",
            ));
            if !matching.is_empty() {
                errs.push(not_supported("resourceVersionMatch", matching, &["NotOlderThan"]));
            }
        }
        Some(_) if req.param("continue").is_some_and(|c| !c.is_empty()) => {
            errs.push(forbidden("resourceVersionMatch", "resourceVersionMatch is forbidden when continue is provided"));
        }
        Some(_) => {}
    }
    errs
}

/// 422 `ListOptions.meta.k8s.io "" is invalid: ...` if the options are rejected.
pub fn validate(req: &Request, watch: bool) -> Result<(), ApiError> {
    let errs = if watch { watch_errors(req) } else { list_errors(req) };
    if errs.is_empty() {
        return Ok(());
    }
    let texts: Vec<String> = errs.iter().map(|e| format!("{}: {}", e.field, e.detail)).collect();
    let summary = if texts.len() == 1 { texts[0].clone() } else { format!("[{}]", texts.join(", ")) };
    let causes: Vec<Value> = errs.iter().map(|e| json!({"reason": e.reason, "message": e.detail, "field": e.field})).collect();
    let mut details = Map::new();
    details.insert("group".into(), json!("meta.k8s.io"));
    details.insert("kind".into(), json!("ListOptions"));
    details.insert("causes".into(), Value::Array(causes));
    Err(status::failure(422, "Invalid", &format!("ListOptions.meta.k8s.io \"\" is invalid: {summary}"), details))
}
