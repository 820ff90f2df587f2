//! Who a client of the secure port is: the user a client certificate, a TokenReview or the
//! anonymous authenticator names (apiserver's `user.Info`).

/// Who the API server (or a client certificate) says a client is.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct UserInfo {
    pub username: String,
    pub uid: String,
    pub groups: Vec<String>,
    /// Extra attributes (front-proxy `X-Remote-Extra-*` headers), sent on in SubjectAccessReviews.
    pub extra: std::collections::BTreeMap<String, Vec<String>>,
}

impl UserInfo {
    /// The user of a request without credentials (apiserver's anonymous authenticator).
    pub fn anonymous() -> UserInfo {
        UserInfo { username: "system:anonymous".into(), groups: vec!["system:unauthenticated".into()], ..Default::default() }
    }
}
