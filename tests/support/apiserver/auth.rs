//! Authentication (client certificate, else bearer token from a runtime-editable table) and the
//! two review APIs a scheduler's secure serving delegates to: TokenReview answered from the same
//! token table, SubjectAccessReview answered from an allow-list of non-resource paths.

use super::clock;
use super::tls::identity_from_cert;
use serde_json::{json, Value};
use std::collections::HashMap;

/// Group every authenticated request carries.
pub const AUTHENTICATED_GROUP: &str = "system:authenticated";
/// Group that RBAC lets do anything.
pub const MASTERS_GROUP: &str = "system:masters";

/// Who sent a request.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Identity {
    /// User name.
    pub user: String,
    /// User UID ("" for certificate users, which have none).
    pub uid: String,
    /// Groups, including `system:authenticated`.
    pub groups: Vec<String>,
}

impl Identity {
    fn new(user: &str, uid: &str, groups: &[String]) -> Identity {
        let mut groups = groups.to_vec();
        if !groups.iter().any(|g| g == AUTHENTICATED_GROUP) {
            groups.push(AUTHENTICATED_GROUP.to_string());
        }
        Identity { user: user.to_string(), uid: uid.to_string(), groups }
    }
}

/// Tokens and authorization rules, editable while the server runs.
#[derive(Debug, Default)]
pub struct AuthTables {
    tokens: HashMap<String, Identity>,
    non_resource_allow: Vec<(String, String)>,
}

impl AuthTables {
    /// Accept `token` as `user` in `groups`.
    pub fn add_token(&mut self, token: &str, user: &str, groups: &[&str]) {
        let groups: Vec<String> = groups.iter().map(|g| g.to_string()).collect();
        self.tokens.insert(token.to_string(), Identity::new(user, &clock::uuid(), &groups));
    }

    /// Stop accepting `token`.
    pub fn remove_token(&mut self, token: &str) {
        self.tokens.remove(token);
    }

    /// The identity behind a bearer token.
    pub fn lookup_token(&self, token: &str) -> Option<&Identity> {
        self.tokens.get(token)
    }

    /// Let `subject` (a user or group name) `get` the non-resource `path`; a trailing `*`
    /// matches a prefix, as RBAC `nonResourceURLs` do.
    pub fn allow_non_resource(&mut self, subject: &str, path: &str) {
        self.non_resource_allow.push((subject.to_string(), path.to_string()));
    }

    fn non_resource_rule(&self, user: &str, groups: &[String], path: &str) -> Option<&(String, String)> {
        self.non_resource_allow.iter().find(|(subject, pattern)| {
            let who = subject == user || groups.iter().any(|g| g == subject);
            let what = match pattern.strip_suffix('*') {
                Some(prefix) => path.starts_with(prefix),
                None => path == pattern,
            };
            who && what
        })
    }
}

/// Authenticate like the API server's union authenticator: a verified client certificate wins,
/// then `Authorization: Bearer`. `None` means 401.
pub fn authenticate(peer_cert: Option<&[u8]>, authorization: Option<&str>, tables: &AuthTables) -> Option<Identity> {
    if let Some((user, groups)) = peer_cert.and_then(identity_from_cert) {
        return Some(Identity::new(&user, "", &groups));
    }
    let token = authorization?.strip_prefix("Bearer ")?.trim();
    tables.lookup_token(token).cloned()
}

/// The TokenReview response for a request body (`authentication.k8s.io/v1`).
pub fn token_review(request: &Value, tables: &AuthTables) -> Value {
    let token = request["spec"]["token"].as_str().unwrap_or("");
    let status = match tables.lookup_token(token) {
        Some(id) => {
            let mut status = json!({
                "authenticated": true,
                "user": {"username": id.user, "uid": id.uid, "groups": id.groups},
            });
            if let Some(aud) = request["spec"]["audiences"].as_array() {
                status["audiences"] = Value::Array(aud.clone());
            }
            status
        }
        None => json!({"user": {}, "error": "invalid bearer token"}),
    };
    json!({
        "kind": "TokenReview",
        "apiVersion": "authentication.k8s.io/v1",
        "metadata": {"creationTimestamp": null},
        "spec": request["spec"].clone(),
        "status": status,
    })
}

/// The SubjectAccessReview response (`authorization.k8s.io/v1`): non-resource requests are
/// allowed by the allow-list, `system:masters` may do anything, everything else gets no opinion.
pub fn subject_access_review(request: &Value, tables: &AuthTables) -> Value {
    let spec = &request["spec"];
    let user = spec["user"].as_str().unwrap_or("");
    let groups: Vec<String> =
        spec["groups"].as_array().map(|g| g.iter().filter_map(|v| v.as_str().map(String::from)).collect()).unwrap_or_default();
    let status = if groups.iter().any(|g| g == MASTERS_GROUP) {
        json!({"allowed": true})
    } else if let Some(path) = spec["nonResourceAttributes"]["path"].as_str() {
        match tables.non_resource_rule(user, &groups, path) {
            Some((subject, _)) => json!({
                "allowed": true,
                "reason": format!("RBAC: allowed by ClusterRoleBinding \"edgesched-test\" of ClusterRole \"edgesched-test\" to User \"{subject}\"")
            }),
            None => json!({"allowed": false}),
        }
    } else {
        json!({"allowed": false})
    };
    json!({
        "kind": "SubjectAccessReview",
        "apiVersion": "authorization.k8s.io/v1",
        "metadata": {"creationTimestamp": null},
        "spec": spec.clone(),
        "status": status,
    })
}
