//! Authorization as kube-apiserver's chain decides it (`--authorization-mode=Node,RBAC` behind
//! the privileged-group authorizer): members of `system:masters` pass at once, everyone else
//! needs an RBAC rule. A refused request gets the exact 403 of `responsewriters.Forbidden`
//! (`k8s.io/apiserver/pkg/endpoints/handlers/responsewriters/errors.go`, `forbiddenMessage`) and
//! SubjectAccessReviews are answered by the same chain.

use super::attributes::RequestInfo;
use super::auth::MASTERS_GROUP;
use super::rbac::{self, Decision, User};
use super::status::{self, quote, ApiError};
use super::store::Store;
use serde_json::{json, Value};

/// Which authorizer the server runs.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Authorization {
    /// RBAC against the stored roles and bindings, like every real cluster.
    #[default]
    Rbac,
    /// Everything an authenticated (or anonymous) client asks is allowed
    /// (`--authorization-mode=AlwaysAllow`), for the rare test that is about something else.
    AlwaysAllow,
}

/// The chain's decision for `user`: allowed or not, and the reason (empty for the privileged
/// group and AlwaysAllow, which give none).
pub fn decide(store: &Store, mode: Authorization, user: User<'_>, attrs: &RequestInfo) -> (bool, String) {
    if user.groups.iter().any(|g| g == MASTERS_GROUP) || mode == Authorization::AlwaysAllow {
        return (true, String::new());
    }
    match rbac::authorize(store, user, attrs) {
        Decision::Allow(reason) => (true, reason),
        Decision::NoOpinion(reason) => (false, reason),
    }
}

/// What was refused, in `forbiddenMessage`'s words.
fn forbidden_message(user: &str, attrs: &RequestInfo) -> String {
    if !attrs.is_resource_request {
        return format!("User {} cannot {} path {}", quote(user), attrs.verb, quote(&attrs.path));
    }
    let resource =
        if attrs.subresource.is_empty() { attrs.resource.clone() } else { format!("{}/{}", attrs.resource, attrs.subresource) };
    let scope = if attrs.namespace.is_empty() {
        "at the cluster scope".to_string()
    } else {
        format!("in the namespace {}", quote(&attrs.namespace))
    };
    format!(
        "User {} cannot {} resource {} in API group {} {scope}",
        quote(user),
        attrs.verb,
        quote(&resource),
        quote(&attrs.api_group)
    )
}

/// The 403 for a request the chain refused.
pub fn forbidden(user: &str, attrs: &RequestInfo, reason: &str) -> ApiError {
    let (group, resource) =
        if attrs.is_resource_request { (attrs.api_group.as_str(), attrs.resource.as_str()) } else { ("", "") };
    status::forbidden_by_authorizer(group, resource, &attrs.name, &forbidden_message(user, attrs), reason)
}

/// Authorize one request; `Err` is the 403 to send.
pub fn check(store: &Store, mode: Authorization, user: User<'_>, attrs: &RequestInfo) -> Result<(), ApiError> {
    match decide(store, mode, user, attrs) {
        (true, _) => Ok(()),
        (false, reason) => Err(forbidden(user.name, attrs, &reason)),
    }
}

fn str_of<'a>(v: &'a Value, key: &str) -> &'a str {
    v[key].as_str().unwrap_or("")
}

/// The attributes a SubjectAccessReview spec asks about (`AuthorizationAttributesFrom`).
fn review_attributes(spec: &Value) -> RequestInfo {
    let r = &spec["resourceAttributes"];
    if r.is_object() {
        return RequestInfo {
            is_resource_request: true,
            verb: str_of(r, "verb").into(),
            api_group: str_of(r, "group").into(),
            api_version: str_of(r, "version").into(),
            namespace: str_of(r, "namespace").into(),
            resource: str_of(r, "resource").into(),
            subresource: str_of(r, "subresource").into(),
            name: str_of(r, "name").into(),
            ..RequestInfo::default()
        };
    }
    let n = &spec["nonResourceAttributes"];
    RequestInfo { verb: str_of(n, "verb").into(), path: str_of(n, "path").into(), ..RequestInfo::default() }
}

/// The SubjectAccessReview response (`authorization.k8s.io/v1`): the spec echoed, and
/// `status.allowed` with the chain's reason (omitted when empty, as `omitempty` does).
pub fn subject_access_review(store: &Store, mode: Authorization, request: &Value) -> Value {
    let spec = &request["spec"];
    let groups: Vec<String> =
        spec["groups"].as_array().map(|g| g.iter().filter_map(|v| v.as_str().map(String::from)).collect()).unwrap_or_default();
    let user = User { name: str_of(spec, "user"), groups: &groups };
    let (allowed, reason) = decide(store, mode, user, &review_attributes(spec));
    let mut status = json!({"allowed": allowed});
    if !reason.is_empty() {
        status["reason"] = json!(reason);
    }
    json!({
        "kind": "SubjectAccessReview",
        "apiVersion": "authorization.k8s.io/v1",
        "metadata": {"creationTimestamp": null},
        "spec": spec.clone(),
        "status": status,
    })
}

#[cfg(test)]
mod tests {
    //! The denial texts pinned against `forbiddenMessage` and `errors.NewForbidden`
    //! (`k8s.io/apiserver/pkg/endpoints/handlers/responsewriters/errors.go`,
    //! `k8s.io/apimachinery/pkg/api/errors/errors.go`).

    use super::super::attributes::{request_info, split_url};
    use super::*;

    fn denial(method: &str, url: &str, user: &str) -> Value {
        let (path, query) = split_url(url);
        forbidden(user, &request_info(method, &path, &query).unwrap(), "").body
    }

    #[test]
    fn denials_read_like_the_real_server() {
        let lease = denial("GET", "/apis/coordination.k8s.io/v1/namespaces/kube-system/leases/x", "system:kube-scheduler");
        assert_eq!(lease["message"], "leases.coordination.k8s.io \"x\" is forbidden: User \"system:kube-scheduler\" cannot get resource \"leases\" in API group \"coordination.k8s.io\" in the namespace \"kube-system\"");
        assert_eq!(lease["details"], json!({"name": "x", "group": "coordination.k8s.io", "kind": "leases"}));
        let pcs = denial("GET", "/apis/scheduling.k8s.io/v1/priorityclasses", "u");
        assert_eq!(pcs["message"], "priorityclasses.scheduling.k8s.io is forbidden: User \"u\" cannot list resource \"priorityclasses\" in API group \"scheduling.k8s.io\" at the cluster scope");
        let bind = denial("POST", "/api/v1/namespaces/default/pods/p/binding", "u");
        assert_eq!(bind["message"], "pods \"p\" is forbidden: User \"u\" cannot create resource \"pods/binding\" in API group \"\" in the namespace \"default\"");
        assert_eq!(bind["details"], json!({"name": "p", "kind": "pods"}));
        let metrics = denial("GET", "/metrics", "u");
        assert_eq!(metrics["message"], "forbidden: User \"u\" cannot get path \"/metrics\"");
        assert_eq!(metrics["details"], json!({}));
        assert_eq!((metrics["reason"].clone(), metrics["code"].clone()), (json!("Forbidden"), json!(403)));
        let ns = denial("GET", "/api/v1/namespaces/foo", "u");
        assert_eq!(ns["message"], "namespaces \"foo\" is forbidden: User \"u\" cannot get resource \"namespaces\" in API group \"\" in the namespace \"foo\"");
    }

    #[test]
    fn the_reason_follows_the_message_and_only_the_message_is_sanitized() {
        let attrs = RequestInfo { verb: "get".into(), path: "/<x>".into(), ..RequestInfo::default() };
        let e = forbidden("a&b", &attrs, "RBAC: <why>");
        assert_eq!(e.body["message"], "forbidden: User \"a&amp;b\" cannot get path \"/&lt;x&gt;\": RBAC: <why>");
    }
}
