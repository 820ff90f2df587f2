//! Authentication as kube-apiserver's union authenticator does it: a verified client certificate,
//! else `Authorization: Bearer` looked up in a runtime-editable token table; a request with
//! neither is anonymous (`system:anonymous`, group `system:unauthenticated`) when anonymous auth
//! is on, while a bearer token that does not authenticate is always a 401. TokenReviews are
//! answered from the same table.

use super::clock;
use super::tls::identity_from_cert;
use serde_json::{json, Value};
use std::collections::HashMap;

/// Group every authenticated request carries.
pub const AUTHENTICATED_GROUP: &str = "system:authenticated";
/// The user of requests without credentials (`k8s.io/apiserver/pkg/authentication/request/anonymous`).
pub const ANONYMOUS_USER: &str = "system:anonymous";
/// The only group of anonymous requests.
pub const UNAUTHENTICATED_GROUP: &str = "system:unauthenticated";
/// Group the privileged-group authorizer lets do anything, before RBAC is asked.
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
    /// An authenticated user: `groups` plus `system:authenticated`.
    pub fn new(user: &str, uid: &str, groups: &[String]) -> Identity {
        let mut groups = groups.to_vec();
        if !groups.iter().any(|g| g == AUTHENTICATED_GROUP) {
            groups.push(AUTHENTICATED_GROUP.to_string());
        }
        Identity { user: user.to_string(), uid: uid.to_string(), groups }
    }

    /// The anonymous user (not in `system:authenticated`).
    pub fn anonymous() -> Identity {
        Identity { user: ANONYMOUS_USER.to_string(), uid: String::new(), groups: vec![UNAUTHENTICATED_GROUP.to_string()] }
    }
}

/// Bearer tokens, editable while the server runs.
#[derive(Debug, Default)]
pub struct AuthTables {
    tokens: HashMap<String, Identity>,
}

impl AuthTables {
    /// Accept `token` as `user` in `groups`.
    pub fn add_token(&mut self, token: &str, user: &str, groups: &[&str]) {
        let groups: Vec<String> = groups.iter().map(|g| g.to_string()).collect();
        self.insert(token, Identity::new(user, &clock::uuid(), &groups));
    }

    /// Accept `token` as `identity`.
    pub fn insert(&mut self, token: &str, identity: Identity) {
        self.tokens.insert(token.to_string(), identity);
    }

    /// Stop accepting `token`.
    pub fn remove_token(&mut self, token: &str) {
        self.tokens.remove(token);
    }

    /// The identity behind a bearer token.
    pub fn lookup_token(&self, token: &str) -> Option<&Identity> {
        self.tokens.get(token)
    }
}

/// The bearer token of an `Authorization` header: scheme `bearer` in any case, then a non-empty
/// token; anything else is no token at all (`k8s.io/apiserver/pkg/authentication/request/
/// bearertoken`).
fn bearer_token(authorization: Option<&str>) -> Option<&str> {
    let mut parts = authorization?.trim().splitn(3, ' ');
    let scheme = parts.next()?;
    let token = parts.next()?;
    (scheme.eq_ignore_ascii_case("bearer") && !token.is_empty()).then_some(token)
}

/// Authenticate like the API server's union authenticator: a verified client certificate wins,
/// then a bearer token; with neither, the request is anonymous if `anonymous` is on. `None`
/// means 401 (an unknown token is never anonymous).
pub fn authenticate(
    peer_cert: Option<&[u8]>,
    authorization: Option<&str>,
    tables: &AuthTables,
    anonymous: bool,
) -> Option<Identity> {
    if let Some((user, groups)) = peer_cert.and_then(identity_from_cert) {
        return Some(Identity::new(&user, "", &groups));
    }
    match bearer_token(authorization) {
        Some(token) => tables.lookup_token(token).cloned(),
        None if anonymous => Some(Identity::anonymous()),
        None => None,
    }
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
