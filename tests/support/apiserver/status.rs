//! `metav1.Status` failure bodies with the exact messages, reasons and details of
//! `k8s.io/apimachinery/pkg/api/errors/errors.go` (`NewNotFound`, `NewAlreadyExists`,
//! `NewConflict`, `NewTooManyRequests`, ...), because clients branch on `reason` and `code`.

use super::resources::ResourceType;
use serde_json::{json, Map, Value};

/// An error response: HTTP code, Status body and optional `Retry-After` seconds.
#[derive(Debug, Clone, PartialEq)]
pub struct ApiError {
    /// HTTP status code (also the body's `code`).
    pub code: u16,
    /// The Status object.
    pub body: Value,
    /// `Retry-After` header value in seconds.
    pub retry_after: Option<u32>,
}

/// A `Failure` Status; `details` is omitted when empty, as `omitempty` does.
pub fn failure(code: u16, reason: &str, message: &str, details: Map<String, Value>) -> ApiError {
    let mut body = json!({"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure"});
    if !message.is_empty() {
        body["message"] = json!(message);
    }
    if !reason.is_empty() {
        body["reason"] = json!(reason);
    }
    if !details.is_empty() {
        body["details"] = Value::Object(details);
    }
    body["code"] = json!(code);
    ApiError { code, body, retry_after: None }
}

/// `details` naming an object: name, group (omitted for core), kind (the plural).
fn details(name: &str, group: &str, kind: &str) -> Map<String, Value> {
    let mut d = Map::new();
    if !name.is_empty() {
        d.insert("name".into(), json!(name));
    }
    if !group.is_empty() {
        d.insert("group".into(), json!(group));
    }
    if !kind.is_empty() {
        d.insert("kind".into(), json!(kind));
    }
    d
}

/// 404 `pods "x" not found`.
pub fn not_found(res: &ResourceType, name: &str) -> ApiError {
    let message = format!("{} \"{name}\" not found", res.qualified());
    failure(404, "NotFound", &message, details(name, res.group, res.plural))
}

/// 404 `<kind>.<group> "x" not found` for a lister lookup (`NewNotFound(group.Resource(kind))`),
/// as a binding to a missing role gets.
pub fn not_found_in(group: &str, kind: &str, name: &str) -> ApiError {
    let message = format!("{kind}.{group} {} not found", quote(name));
    failure(404, "NotFound", &message, details(name, group, kind))
}

/// 404 for a URL that names no served resource.
pub fn no_such_resource() -> ApiError {
    failure(404, "NotFound", "the server could not find the requested resource", Map::new())
}

/// 409 `pods "x" already exists`.
pub fn already_exists(res: &ResourceType, name: &str) -> ApiError {
    let message = format!("{} \"{name}\" already exists", res.qualified());
    failure(409, "AlreadyExists", &message, details(name, res.group, res.plural))
}

/// 409 `Operation cannot be fulfilled on <qualified> "<name>": <why>` (`NewConflict`).
pub fn conflict(qualified: &str, group: &str, kind: &str, name: &str, why: &str) -> ApiError {
    let message = format!("Operation cannot be fulfilled on {qualified} \"{name}\": {why}");
    failure(409, "Conflict", &message, details(name, group, kind))
}

/// 409 for a stale `metadata.resourceVersion` (`storage.NewResourceVersionConflictsError` text).
pub fn object_modified(res: &ResourceType, name: &str) -> ApiError {
    let why = "the object has been modified; please apply your changes to the latest version and try again";
    conflict(&res.qualified(), res.group, res.plural, name, why)
}

/// 409 for a failed UID precondition (`storage.NewInvalidObjError` via `InterpretUpdateError`).
pub fn uid_precondition_failed(res: &ResourceType, name: &str, wanted: &str, actual: &str) -> ApiError {
    let why = format!("Precondition failed: UID in precondition: {wanted}, UID in object meta: {actual}");
    conflict(&res.qualified(), res.group, res.plural, name, &why)
}

/// 400 BadRequest.
pub fn bad_request(message: &str) -> ApiError {
    failure(400, "BadRequest", message, Map::new())
}

/// 422 Invalid with one cause, `<Kind> "<name>" is invalid: <field>: <message>`.
pub fn invalid(res: &ResourceType, name: &str, field: &str, cause_reason: &str, message: &str) -> ApiError {
    let text = format!("{} \"{name}\" is invalid: {field}: {message}", res.kind);
    let mut d = details(name, res.group, res.kind);
    d.insert("causes".into(), json!([{"reason": cause_reason, "message": message, "field": field}]));
    failure(422, "Invalid", &text, d)
}

/// 403 Forbidden, as admission plugins reject.
pub fn forbidden(res: &ResourceType, name: &str, why: &str) -> ApiError {
    let message = format!("{} \"{name}\" is forbidden: {why}", res.qualified());
    failure(403, "Forbidden", &message, details(name, res.group, res.plural))
}

/// A string quoted as Go's `%q` does (`strconv.Quote`), as upstream messages quote names.
pub fn quote(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '\u{7}' => out.push_str("\\a"),
            '\u{8}' => out.push_str("\\b"),
            '\u{c}' => out.push_str("\\f"),
            '\u{b}' => out.push_str("\\v"),
            c if (c as u32) < 0x80 && c.is_control() => out.push_str(&format!("\\x{:02x}", c as u32)),
            c if c.is_control() => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// 403 from the authorization filter (`responsewriters.Forbidden` + `errors.NewForbidden`):
/// `<resource>[.<group>] ["<name>"] is forbidden: <what>[: <reason>]`, or `forbidden: <what>`
/// for non-resource paths; `details` is always present, even when empty.
pub fn forbidden_by_authorizer(group: &str, resource: &str, name: &str, what: &str, reason: &str) -> ApiError {
    // `responsewriters.sanitizer`: the part built from request attributes must not look like HTML.
    let what = what.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;");
    let err = if reason.is_empty() { what } else { format!("{what}: {reason}") };
    let qualified = if group.is_empty() { resource.to_string() } else { format!("{resource}.{group}") };
    let message = match (group.is_empty() && resource.is_empty(), name.is_empty()) {
        (true, _) => format!("forbidden: {err}"),
        (false, true) => format!("{qualified} is forbidden: {err}"),
        (false, false) => format!("{qualified} {} is forbidden: {err}", quote(name)),
    };
    let mut e = failure(403, "Forbidden", &message, Map::new());
    e.body["details"] = Value::Object(details(name, group, resource));
    e
}

/// 405 for a verb the resource does not support.
pub fn method_not_allowed() -> ApiError {
    failure(405, "MethodNotAllowed", "the server does not allow this method on the requested resource", Map::new())
}

/// 415 for an unknown patch content type.
pub fn unsupported_media_type(content_type: &str) -> ApiError {
    let message = format!(
        "the body of the request was in an unknown format - accepted media types include: application/json-patch+json, application/merge-patch+json, application/apply-patch+yaml, application/strategic-merge-patch+json; got {content_type:?}"
    );
    failure(415, "UnsupportedMediaType", &message, Map::new())
}

/// 401, byte for byte the real body.
pub fn unauthorized() -> ApiError {
    failure(401, "Unauthorized", "Unauthorized", Map::new())
}

/// 500 InternalError (`NewInternalError`).
pub fn internal_error(cause: &str) -> ApiError {
    let mut d = Map::new();
    d.insert("causes".into(), json!([{ "message": cause }]));
    failure(500, "InternalError", &format!("Internal error occurred: {cause}"), d)
}

/// 503 ServiceUnavailable (`NewServiceUnavailable`).
pub fn service_unavailable(message: &str) -> ApiError {
    failure(503, "ServiceUnavailable", message, Map::new())
}

/// 429 TooManyRequests with `details.retryAfterSeconds` and the `Retry-After` header.
pub fn too_many_requests(message: &str, retry_after_seconds: u32) -> ApiError {
    let mut d = Map::new();
    d.insert("retryAfterSeconds".into(), json!(retry_after_seconds));
    let mut e = failure(429, "TooManyRequests", message, d);
    e.retry_after = Some(retry_after_seconds);
    e
}

/// The message for a `continue` token whose snapshot was compacted away.
pub const EXPIRED_CONTINUE_MESSAGE: &str = "The provided continue parameter is too old to display a consistent list result. You can start a new list without the continue parameter, or use the continue token in this response to retrieve the remainder of the results. Continuing with the provided token results in an inconsistent list - objects that were created, modified, or deleted between the time the first chunk was returned and now may show up in the list.";

/// 410 Expired for a list `continue` token, carrying a fresh inconsistent-continue token.
pub fn expired_continue(fresh_token: &str) -> ApiError {
    let mut e = failure(410, "Expired", EXPIRED_CONTINUE_MESSAGE, Map::new());
    e.body["metadata"] = json!({ "continue": fresh_token });
    e
}

/// 410 Expired for a too old list/watch resourceVersion (`storage/cacher` wording).
pub fn too_old_resource_version(requested: u64, oldest: u64) -> ApiError {
    failure(410, "Expired", &format!("too old resource version: {requested} ({oldest})"), Map::new())
}

/// `Success` Status, as a DELETE or a binding returns.
pub fn success(code: Option<u16>, details: Option<Map<String, Value>>) -> Value {
    let mut body = json!({"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Success"});
    if let Some(d) = details {
        body["details"] = Value::Object(d);
    }
    if let Some(c) = code {
        body["code"] = json!(c);
    }
    body
}

/// Success details for a deleted object: name, group, kind (plural), uid.
pub fn deleted_details(res: &ResourceType, name: &str, uid: &str) -> Map<String, Value> {
    let mut d = details(name, res.group, res.plural);
    d.insert("uid".into(), json!(uid));
    d
}
