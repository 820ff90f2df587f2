//! The typed error of every API call: what the server answered (a `metav1.Status`, another body,
//! or nothing usable) in a one-line message that names the request, plus the questions callers
//! ask of it (conflict? gone? forbidden? when to retry?).

use crate::core::api;
use crate::core::gojson;
use serde::Deserialize;
use std::fmt;
use std::time::Duration;
use ureq::http;

/// Largest error body we read; error bodies are small Status objects or short texts.
pub const MAX_ERROR_BODY_BYTES: u64 = 1024 * 1024;
/// How much of a non-JSON error body is kept for the error message.
const ERROR_BODY_EXCERPT: usize = 512;

/// A failed API call. `request` is `"VERB /path"` (no query string) for the message.
#[derive(Debug, Clone)]
pub enum ApiError {
    /// The server answered with a `metav1.Status` body.
    Status { request: String, code: u16, status: Box<api::Status>, retry_after: Option<Duration> },
    /// The server answered with a non-Status body (e.g. the plain-text APF 429).
    Http { request: String, code: u16, body: String, retry_after: Option<Duration> },
    /// No usable HTTP response: connection, TLS, timeout or token file problems.
    Transport { request: String, message: String },
    /// The connection was refused (nothing listens): the request never reached a server.
    Refused { request: String, message: String },
    /// A 2xx response (or a watch event) whose JSON did not match the expected type.
    Decode { request: String, message: String },
}

impl ApiError {
    /// The HTTP status code, if the server answered.
    pub fn code(&self) -> Option<u16> {
        match self {
            ApiError::Status { code, .. } | ApiError::Http { code, .. } => Some(*code),
            ApiError::Transport { .. } | ApiError::Refused { .. } | ApiError::Decode { .. } => None,
        }
    }

    /// 404: the object (or the API) does not exist.
    pub fn is_not_found(&self) -> bool {
        self.code() == Some(404)
    }

    /// 409: an optimistic-concurrency conflict, an existing object, or (for bindings) a pod
    /// that is already bound.
    pub fn is_conflict(&self) -> bool {
        self.code() == Some(409)
    }

    /// A create that lost to an existing object (409 with reason `AlreadyExists`), as opposed to
    /// an optimistic-concurrency conflict.
    pub fn is_already_exists(&self) -> bool {
        matches!(self, ApiError::Status { code: 409, status, .. } if status.reason == "AlreadyExists")
    }

    /// 403: RBAC (or another authorizer) denied the request. Not retried inside the client: the
    /// caller decides whether the permission is required or the feature can be turned off.
    pub fn is_forbidden(&self) -> bool {
        self.code() == Some(403)
    }

    /// The server's explanation (`Status.message`), or the error text when there is none.
    pub fn server_message(&self) -> String {
        match self {
            ApiError::Status { status, .. } if !status.message.is_empty() => status.message.clone(),
            other => other.to_string(),
        }
    }

    /// 410 Gone: the resource version is too old. Detected by code only, never by message text.
    pub fn is_gone(&self) -> bool {
        self.code() == Some(410)
    }

    /// 429: throttled by API Priority and Fairness or a cache that is not ready.
    pub fn is_too_many_requests(&self) -> bool {
        self.code() == Some(429)
    }

    /// The server's requested wait before retrying, if it gave one.
    pub fn retry_after(&self) -> Option<Duration> {
        match self {
            ApiError::Status { retry_after, .. } | ApiError::Http { retry_after, .. } => *retry_after,
            _ => None,
        }
    }

    /// The same error attributed to `request` (used where the error was produced without one).
    pub fn for_request(mut self, req: &str) -> ApiError {
        match &mut self {
            ApiError::Status { request, .. }
            | ApiError::Http { request, .. }
            | ApiError::Transport { request, .. }
            | ApiError::Refused { request, .. }
            | ApiError::Decode { request, .. } => *request = req.to_string(),
        }
        self
    }

    fn request(&self) -> &str {
        match self {
            ApiError::Status { request, .. }
            | ApiError::Http { request, .. }
            | ApiError::Transport { request, .. }
            | ApiError::Refused { request, .. }
            | ApiError::Decode { request, .. } => request,
        }
    }
}

impl fmt::Display for ApiError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if !self.request().is_empty() {
            write!(f, "{}: ", self.request())?;
        }
        match self {
            ApiError::Status { code, status, .. } => {
                write!(f, "{code} {}", reason_phrase(*code))?;
                let detail = if status.message.is_empty() { &status.reason } else { &status.message };
                if !detail.is_empty() {
                    write!(f, ": {}", one_line(detail))?;
                }
                Ok(())
            }
            ApiError::Http { code, body, .. } => {
                write!(f, "{code} {}", reason_phrase(*code))?;
                if !body.is_empty() {
                    write!(f, ": {body}")?;
                }
                Ok(())
            }
            ApiError::Transport { message, .. } | ApiError::Refused { message, .. } => f.write_str(message),
            ApiError::Decode { message, .. } => write!(f, "cannot decode response: {message}"),
        }
    }
}

impl std::error::Error for ApiError {}

fn reason_phrase(code: u16) -> &'static str {
    http::StatusCode::from_u16(code).ok().and_then(|c| c.canonical_reason()).unwrap_or("")
}

/// Turn a non-2xx response into an [`ApiError`]: a JSON `kind: Status` body becomes
/// [`ApiError::Status`], anything else [`ApiError::Http`] with an excerpt of the body.
pub fn error_from_response(request: &str, code: u16, retry_after_header: Option<&str>, body: &[u8]) -> ApiError {
    let mut retry_after = retry_after_header.and_then(parse_retry_after);
    if let Some(mut status) = parse_status(body) {
        if status.code == 0 {
            status.code = code;
        }
        if retry_after.is_none() {
            retry_after = status
                .details
                .as_ref()
                .and_then(|d| d.retry_after_seconds)
                .and_then(|s| u64::try_from(s).ok())
                .map(Duration::from_secs);
        }
        return ApiError::Status { request: request.to_string(), code, status: Box::new(status), retry_after };
    }
    ApiError::Http { request: request.to_string(), code, body: excerpt(body), retry_after }
}

fn parse_status(body: &[u8]) -> Option<api::Status> {
    #[derive(Deserialize, Default)]
    #[serde(default)]
    struct Kind {
        kind: String,
    }
    let kind: Kind = gojson::from_slice(body).ok()?;
    if kind.kind != "Status" {
        return None;
    }
    gojson::from_slice(body).ok()
}

/// `Retry-After` in whole seconds (the only form the API server sends, and the only one
/// client-go reads).
pub fn parse_retry_after(value: &str) -> Option<Duration> {
    value.trim().parse::<u64>().ok().map(Duration::from_secs)
}

/// The start of a non-Status error body on one line (proxies answer with multi-line HTML).
fn excerpt(body: &[u8]) -> String {
    let text = one_line(&String::from_utf8_lossy(body));
    match text.char_indices().nth(ERROR_BODY_EXCERPT) {
        Some((cut, _)) => format!("{}…", &text[..cut]),
        None => text,
    }
}

/// Collapse all whitespace runs (newlines included) into single spaces.
fn one_line(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::shell::kube::fixture;

    #[test]
    fn status_bodies_become_status_errors_with_one_line_display() {
        let body = fixture("status/status-409-conflict-binding-already-assigned.RECONSTRUCTED.json");
        let err = error_from_response("POST /api/v1/namespaces/ns/pods/p/binding", 409, None, &body);
        assert!(err.is_conflict() && !err.is_already_exists() && !err.is_gone());
        let text = err.to_string();
        assert!(
            text.starts_with(
                "POST /api/v1/namespaces/ns/pods/p/binding: 409 Conflict: Operation cannot be fulfilled on pods/binding"
            ),
            "{text}"
        );
        assert!(!text.contains('\n'), "{text}");
    }

    #[test]
    fn not_found_and_expired_continue_are_detected_by_code() {
        let err =
            error_from_response("GET /api/v1/namespaces/x/pods/y", 404, None, &fixture("status/status-404-notfound-pod.json"));
        assert!(err.is_not_found());
        let err = error_from_response("GET /api/v1/pods", 410, None, &fixture("status/status-410-expired-continue-token.json"));
        assert!(err.is_gone());
        assert_eq!(err.code(), Some(410));
    }

    #[test]
    fn plain_text_apf_429_keeps_retry_after_header() {
        let err =
            error_from_response("GET /api/v1/pods", 429, Some("3"), &fixture("status/http-429-apf-too-many-requests.body.txt"));
        match &err {
            ApiError::Http { code: 429, body, retry_after: Some(d), .. } => {
                assert_eq!(*d, Duration::from_secs(3));
                assert_eq!(body, "Too many requests, please try again later.");
            }
            other => panic!("unexpected {other:?}"),
        }
        assert!(err.is_too_many_requests());
        assert_eq!(err.to_string(), "GET /api/v1/pods: 429 Too Many Requests: Too many requests, please try again later.");
    }

    #[test]
    fn json_429_takes_retry_after_from_details_when_header_missing() {
        let err =
            error_from_response("GET /x", 429, None, &fixture("status/status-429-storage-reinitializing.RECONSTRUCTED.json"));
        assert!(matches!(err, ApiError::Status { .. }));
        assert!(err.retry_after().is_some());
    }

    #[test]
    fn already_exists_needs_the_reason() {
        let body = br#"{"kind":"Status","apiVersion":"v1","status":"Failure","message":"events \"e\" already exists","reason":"AlreadyExists","code":409}"#;
        assert!(error_from_response("POST /x", 409, None, body).is_already_exists());
    }

    #[test]
    fn html_error_pages_are_shortened_to_one_line() {
        let page = format!("<html>\n<body>\n502 Bad Gateway\n{}</body></html>", "x".repeat(2000));
        let text = error_from_response("GET /x", 502, None, page.as_bytes()).to_string();
        assert!(text.starts_with("GET /x: 502 Bad Gateway: <html> <body> 502 Bad Gateway xxx"), "{text}");
        assert!(!text.contains('\n') && text.ends_with('…') && text.len() < 700, "{text}");
    }

    #[test]
    fn non_status_json_is_http_error() {
        let err = error_from_response("GET /x", 500, Some("soon"), br#"{"kind":"Pod"}"#);
        assert!(matches!(err, ApiError::Http { code: 500, retry_after: None, .. }));
    }
}
