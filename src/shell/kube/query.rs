//! The query strings of list and watch requests, built and percent-encoded in one place.

use std::time::Duration;

/// Query parameters of one list page.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ListParams {
    /// `labelSelector`, e.g. `app=web`.
    pub label_selector: Option<String>,
    /// `fieldSelector`, e.g. `spec.nodeName=`.
    pub field_selector: Option<String>,
    /// Page size (`limit`); `None` or 0 asks for everything at once.
    pub limit: Option<u32>,
    /// `continue` token from the previous page.
    pub continue_token: Option<String>,
    /// `resourceVersion`; `None` asks for a consistent (most recent) read.
    pub resource_version: Option<String>,
}

impl ListParams {
    pub(crate) fn query(&self) -> Vec<(&'static str, String)> {
        let mut q = Vec::new();
        push_opt(&mut q, "labelSelector", self.label_selector.as_deref());
        push_opt(&mut q, "fieldSelector", self.field_selector.as_deref());
        if let Some(limit) = self.limit.filter(|l| *l > 0) {
            q.push(("limit", limit.to_string()));
        }
        push_opt(&mut q, "continue", self.continue_token.as_deref());
        push_opt(&mut q, "resourceVersion", self.resource_version.as_deref());
        q
    }
}

/// Parameters of one watch request.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct WatchParams {
    /// `labelSelector`, as for the list the watch continues.
    pub label_selector: Option<String>,
    /// `fieldSelector`, as for the list the watch continues.
    pub field_selector: Option<String>,
    /// Watch events after this version. Callers should pass the list's version: an empty value
    /// makes the server start "now" and silently skip whatever changed since the list.
    pub resource_version: String,
    /// Server-side end of the watch (`timeoutSeconds`).
    pub timeout_seconds: Option<u32>,
    /// Ask for BOOKMARK events, which keep our resource version fresh on quiet resources.
    pub allow_watch_bookmarks: bool,
    /// Client-side limit on silence: if no byte arrives for this long the stream ends with an
    /// error, so a dead connection cannot hang the watcher forever.
    pub idle_timeout: Option<Duration>,
}

impl WatchParams {
    pub(crate) fn query(&self) -> Vec<(&'static str, String)> {
        // `true`, as client-go encodes `ListOptions.Watch` (kube-apiserver also takes `1`; other
        // servers do not, and answer a plain LIST).
        let mut q = vec![("watch", "true".to_string())];
        push_opt(&mut q, "labelSelector", self.label_selector.as_deref());
        push_opt(&mut q, "fieldSelector", self.field_selector.as_deref());
        push_opt(&mut q, "resourceVersion", Some(self.resource_version.as_str()));
        if let Some(t) = self.timeout_seconds {
            q.push(("timeoutSeconds", t.to_string()));
        }
        if self.allow_watch_bookmarks {
            q.push(("allowWatchBookmarks", "true".to_string()));
        }
        q
    }
}

fn push_opt(q: &mut Vec<(&'static str, String)>, key: &'static str, value: Option<&str>) {
    if let Some(v) = value.filter(|v| !v.is_empty()) {
        q.push((key, v.to_string()));
    }
}

/// Percent-encode a query component (RFC 3986: everything but unreserved characters).
fn encode_component(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for b in s.bytes() {
        if b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_' | b'~') {
            out.push(char::from(b));
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

pub(crate) fn with_query(path: &str, query: &[(&'static str, String)]) -> String {
    if query.is_empty() {
        return path.to_string();
    }
    let joined: Vec<String> = query.iter().map(|(k, v)| format!("{k}={}", encode_component(v))).collect();
    let sep = if path.contains('?') { '&' } else { '?' };
    format!("{path}{sep}{}", joined.join("&"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn list_and_watch_queries_are_encoded() {
        let lp = ListParams {
            field_selector: Some("spec.nodeName=,status.phase!=Succeeded".into()),
            limit: Some(500),
            continue_token: Some("eyJ2Ijoi+/=".into()),
            ..Default::default()
        };
        assert_eq!(
            with_query("/api/v1/pods", &lp.query()),
            "/api/v1/pods?fieldSelector=spec.nodeName%3D%2Cstatus.phase%21%3DSucceeded&limit=500&continue=eyJ2Ijoi%2B%2F%3D"
        );
        let wp = WatchParams {
            resource_version: "123".into(),
            timeout_seconds: Some(301),
            allow_watch_bookmarks: true,
            label_selector: Some("a in (b,c)".into()),
            ..Default::default()
        };
        assert_eq!(
            with_query("/api/v1/nodes", &wp.query()),
            "/api/v1/nodes?watch=true&labelSelector=a%20in%20%28b%2Cc%29&resourceVersion=123&timeoutSeconds=301&allowWatchBookmarks=true"
        );
    }
}
