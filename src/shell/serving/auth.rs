//! Delegated authentication and authorisation for the secure port, as kube-scheduler's handler
//! chain does it (`WithAuthentication` then `WithAuthorization`, apiserver's
//! `pkg/endpoints/filters`): a verified client certificate or a bearer token the API server
//! authenticates (TokenReview) names the user; a request with neither is `system:anonymous`;
//! then a SubjectAccessReview decides whether that user may `get` the non-resource URL. An
//! invalid token is 401, a denied user 403. Decisions are cached briefly (allowed and denied 10 s,
//! `--authorization-webhook-cache-*-ttl`) so a scraper does not cost two API calls per scrape.

use super::http::Request;
use super::Authorizer;
use crate::core::metrics::{names as m, Metrics};
use std::collections::HashMap;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use super::client_cert::CertIdentity;
pub use super::identity::UserInfo;

/// The two reviews, performed against the API server (or a fake in tests).
pub trait Reviewer: Send + Sync {
    /// `Ok(Some(user))` authenticated, `Ok(None)` rejected token, `Err` review failed.
    fn token_review(&self, token: &str) -> Result<Option<UserInfo>, String>;
    /// Whether `user` may perform `verb` on the non-resource `path`.
    fn access_review(&self, user: &UserInfo, verb: &str, path: &str) -> Result<bool, String>;
}

/// (user key, verb, path) → (allowed, decided at).
type DecisionCache = HashMap<(String, String, String), (bool, Instant)>;

const MAX_CACHE: usize = 1024;

/// How long decisions are cached (`--authorization-webhook-cache-{authorized,unauthorized}-ttl`,
/// `--authentication-token-webhook-cache-ttl`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CacheTtls {
    pub allowed: Duration,
    pub denied: Duration,
    /// TokenReview answers (`--authentication-token-webhook-cache-ttl`).
    pub token: Duration,
}

impl Default for CacheTtls {
    fn default() -> Self {
        CacheTtls { allowed: Duration::from_secs(10), denied: Duration::from_secs(10), token: Duration::from_secs(10) }
    }
}

/// Delegating authoriser with a small decision cache.
pub struct Delegating<R: Reviewer> {
    reviewer: R,
    cache: Mutex<DecisionCache>,
    /// token digest → (TokenReview answer, when).
    tokens: Mutex<HashMap<String, (Option<UserInfo>, Instant)>>,
    ttls: CacheTtls,
    clock: fn() -> Instant,
    metrics: Option<Metrics>,
}

/// A 401 or 403 answer with upstream's `metav1.Status` body.
fn status(code: u16, reason: &str, message: &str) -> (u16, String) {
    let body = serde_json::json!({"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure",
        "message": message, "reason": reason, "details": {}, "code": code});
    (code, body.to_string())
}

fn unauthorized() -> (u16, String) {
    status(401, "Unauthorized", "Unauthorized")
}

/// `compressUsername` (apiserver filters/metrics.go): the label of `authenticated_user_requests`.
fn compress_username(name: &str) -> &str {
    match name {
        "admin" | "client" | "kube_proxy" | "kubelet" | "system:serviceaccount:kube-system:default" => name,
        n if n.contains('@') => "email_id",
        _ => "other",
    }
}

impl<R: Reviewer> Delegating<R> {
    pub fn new(reviewer: R) -> Delegating<R> {
        Delegating {
            reviewer,
            cache: Mutex::new(HashMap::new()),
            tokens: Mutex::new(HashMap::new()),
            ttls: CacheTtls::default(),
            clock: Instant::now,
            metrics: None,
        }
    }

    /// Record `authentication_*`/`authorization_*` into `metrics`.
    pub fn with_metrics(mut self, metrics: Metrics) -> Self {
        self.metrics = Some(metrics);
        self
    }

    /// Cache decisions for these durations.
    pub fn with_ttls(mut self, ttls: CacheTtls) -> Self {
        self.ttls = ttls;
        self
    }

    fn cached(&self, key: &(String, String, String), now: Instant) -> Option<bool> {
        let cache = self.cache.lock().ok()?;
        cache
            .get(key)
            .filter(|(allowed, t)| {
                now.saturating_duration_since(*t) < if *allowed { self.ttls.allowed } else { self.ttls.denied }
            })
            .map(|(d, _)| *d)
    }

    fn remember(&self, key: (String, String, String), allowed: bool, now: Instant) {
        let longest = self.ttls.allowed.max(self.ttls.denied);
        if let Ok(mut cache) = self.cache.lock() {
            if cache.len() >= MAX_CACHE {
                cache.retain(|_, (_, t)| now.saturating_duration_since(*t) < longest);
                if cache.len() >= MAX_CACHE {
                    cache.clear();
                }
            }
            cache.insert(key, (allowed, now));
        }
    }

    fn record(&self, attempts: &str, duration: &str, result: &str, start: Instant) {
        if let Some(metrics) = &self.metrics {
            metrics.inc(attempts, &[result], 1.0);
            metrics.observe(duration, &[result], (self.clock)().saturating_duration_since(start).as_secs_f64());
        }
    }

    /// A TokenReview, answered from the cache while fresh. The key is a digest of the token,
    /// never the token itself.
    fn review_token(&self, token: &str, now: Instant) -> Result<(Option<UserInfo>, String), String> {
        let digest = ring::digest::digest(&ring::digest::SHA256, token.as_bytes());
        let key: String = digest.as_ref().iter().map(|b| format!("{b:02x}")).collect();
        if let Some((user, at)) = self.tokens.lock().ok().and_then(|c| c.get(&key).cloned()) {
            if now.saturating_duration_since(at) < self.ttls.token {
                return Ok((user, key));
            }
        }
        let user = self.reviewer.token_review(token)?;
        if let Ok(mut cache) = self.tokens.lock() {
            if cache.len() >= MAX_CACHE {
                cache.clear();
            }
            cache.insert(key.clone(), (user.clone(), now));
        }
        Ok((user, key))
    }

    /// WithAuthentication: the client certificate's user, the token's user, or anonymous.
    /// Returns the user and the cache key naming it (never the token itself).
    fn authenticate(&self, req: &Request) -> Result<(UserInfo, String), (u16, String)> {
        let start = (self.clock)();
        let token = req
            .header("Authorization")
            .and_then(|h| h.strip_prefix("Bearer ").or_else(|| h.strip_prefix("bearer ")))
            .map(str::trim)
            .filter(|t| !t.is_empty());
        let outcome = match (&req.client_cert, token) {
            (CertIdentity::User(user), _) => {
                Ok((user.clone(), format!("x509:{}:{:?}:{:?}", user.username, user.groups, user.extra)))
            }
            (cert, Some(token)) => match self.review_token(token, start) {
                Ok((Some(user), digest)) => Ok((user, digest)),
                Ok((None, _)) => Err("failure"),
                Err(e) => {
                    crate::core::logging::Line::new("Unable to authenticate the request").s("err", e).error();
                    Err(if matches!(cert, CertIdentity::Rejected(_)) { "failure" } else { "error" })
                }
            },
            (CertIdentity::Rejected(why), None) => {
                crate::core::logging::Line::new("Unable to authenticate the request").s("err", why).error();
                Err("failure")
            }
            (CertIdentity::None, None) => Ok((UserInfo::anonymous(), "anonymous".to_string())),
        };
        match outcome {
            Ok((user, key)) => {
                self.record(m::AUTHENTICATION_ATTEMPTS, m::AUTHENTICATION_DURATION, "success", start);
                if let Some(metrics) = &self.metrics {
                    metrics.inc(m::AUTHENTICATED_USER_REQUESTS, &[compress_username(&user.username)], 1.0);
                }
                Ok((user, key))
            }
            Err(result) => {
                self.record(m::AUTHENTICATION_ATTEMPTS, m::AUTHENTICATION_DURATION, result, start);
                Err(unauthorized())
            }
        }
    }
}

impl<R: Reviewer> Authorizer for Delegating<R> {
    fn authorize(&self, req: &Request) -> Result<(), (u16, String)> {
        let (user, user_key) = self.authenticate(req)?;
        let verb = if req.method == "HEAD" { "head" } else { "get" };
        let now = (self.clock)();
        let key = (user_key, verb.to_string(), req.path.clone());
        let decision = match self.cached(&key, now) {
            Some(allowed) => Ok(allowed),
            None => self.reviewer.access_review(&user, verb, &req.path).inspect(|allowed| self.remember(key, *allowed, now)),
        };
        let forbidden =
            || status(403, "Forbidden", &format!("forbidden: User \"{}\" cannot {verb} path \"{}\"", user.username, req.path));
        match decision {
            Ok(true) => {
                self.record(m::AUTHORIZATION_ATTEMPTS, m::AUTHORIZATION_DURATION, "allowed", now);
                Ok(())
            }
            Ok(false) => {
                self.record(m::AUTHORIZATION_ATTEMPTS, m::AUTHORIZATION_DURATION, "denied", now);
                Err(forbidden())
            }
            Err(e) => {
                crate::core::logging::Line::new("Authorization error").s("user", &user.username).s("err", e).warning();
                self.record(m::AUTHORIZATION_ATTEMPTS, m::AUTHORIZATION_DURATION, "error", now);
                Err(forbidden())
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicUsize, Ordering};

    struct Fake {
        calls: AtomicUsize,
    }
    impl Reviewer for Fake {
        fn token_review(&self, token: &str) -> Result<Option<UserInfo>, String> {
            self.calls.fetch_add(1, Ordering::SeqCst);
            Ok(match token {
                "good" | "reader" => Some(UserInfo { username: token.into(), uid: "1".into(), ..Default::default() }),
                _ => None,
            })
        }
        fn access_review(&self, user: &UserInfo, _verb: &str, path: &str) -> Result<bool, String> {
            Ok(user.username == "good" || path == "/metrics")
        }
    }

    fn req(path: &str, auth: Option<&str>) -> Request {
        let headers = auth.map(|a| vec![("Authorization".to_string(), a.to_string())]).unwrap_or_default();
        Request {
            method: "GET".into(),
            path: path.into(),
            query: String::new(),
            headers,
            body: vec![],
            close: false,
            client_cert: Default::default(),
        }
    }

    #[test]
    fn tokens_are_reviewed_and_decisions_cached() {
        let metrics = Metrics::new();
        let d = Delegating::new(Fake { calls: AtomicUsize::new(0) }).with_metrics(metrics.clone());
        // No credentials: system:anonymous, authorised by SubjectAccessReview (denied here).
        let (code, body) = d.authorize(&req("/configz", None)).unwrap_err();
        assert_eq!(code, 403);
        assert!(body.contains(r#"forbidden: User \"system:anonymous\" cannot get path \"/configz\""#), "{body}");
        assert_eq!(d.authorize(&req("/metrics", Some("Bearer bad"))).map_err(|e| e.0), Err(401));
        assert_eq!(metrics.value(m::AUTHENTICATION_ATTEMPTS, &["failure"]), 1.0);
        assert_eq!(metrics.value(m::AUTHORIZATION_ATTEMPTS, &["denied"]), 1.0);
        assert!(d.authorize(&req("/metrics", Some("Bearer good"))).is_ok());
        assert!(d.authorize(&req("/metrics", Some("Bearer good"))).is_ok());
        assert_eq!(d.reviewer.calls.load(Ordering::SeqCst), 2, "second decision came from the cache");
        assert_eq!(metrics.value(m::AUTHENTICATED_USER_REQUESTS, &["other"]), 3.0);
        assert_eq!(d.authorize(&req("/configz", Some("Bearer reader"))).map_err(|e| e.0), Err(403));
    }
}
