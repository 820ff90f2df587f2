//! Delegated authentication and authorisation for the secure port.
//!
//! kube-scheduler asks the API server: a TokenReview says who a bearer token belongs to, a
//! SubjectAccessReview whether that user may `get` the non-resource URL. Decisions are cached
//! briefly (allowed 10 s, denied 10 s, as the apiserver library's defaults) so a scraper does not
//! cost two API calls per scrape.

use super::http::Request;
use super::Authorizer;
use std::collections::HashMap;
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// Who the API server says a token belongs to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UserInfo {
    pub username: String,
    pub uid: String,
    pub groups: Vec<String>,
}

/// The two reviews, performed against the API server (or a fake in tests).
pub trait Reviewer: Send + Sync {
    /// `Ok(Some(user))` authenticated, `Ok(None)` rejected token, `Err` review failed.
    fn token_review(&self, token: &str) -> Result<Option<UserInfo>, String>;
    /// Whether `user` may perform `verb` on the non-resource `path`.
    fn access_review(&self, user: &UserInfo, verb: &str, path: &str) -> Result<bool, String>;
}

/// (token digest, verb, path) → (allowed, decided at).
type DecisionCache = HashMap<(String, String, String), (bool, Instant)>;

const CACHE_TTL: Duration = Duration::from_secs(10);
const MAX_CACHE: usize = 1024;

/// Delegating authoriser with a small decision cache.
pub struct Delegating<R: Reviewer> {
    reviewer: R,
    cache: Mutex<DecisionCache>,
    clock: fn() -> Instant,
}

impl<R: Reviewer> Delegating<R> {
    pub fn new(reviewer: R) -> Delegating<R> {
        Delegating { reviewer, cache: Mutex::new(HashMap::new()), clock: Instant::now }
    }

    fn cached(&self, key: &(String, String, String), now: Instant) -> Option<bool> {
        let cache = self.cache.lock().ok()?;
        cache.get(key).filter(|(_, t)| now.saturating_duration_since(*t) < CACHE_TTL).map(|(d, _)| *d)
    }

    fn remember(&self, key: (String, String, String), allowed: bool, now: Instant) {
        if let Ok(mut cache) = self.cache.lock() {
            if cache.len() >= MAX_CACHE {
                cache.retain(|_, (_, t)| now.saturating_duration_since(*t) < CACHE_TTL);
                if cache.len() >= MAX_CACHE {
                    cache.clear();
                }
            }
            cache.insert(key, (allowed, now));
        }
    }
}

impl<R: Reviewer> Authorizer for Delegating<R> {
    fn authorize(&self, req: &Request) -> Result<(), (u16, String)> {
        let token = req
            .header("Authorization")
            .and_then(|h| h.strip_prefix("Bearer ").or_else(|| h.strip_prefix("bearer ")))
            .map(str::trim)
            .filter(|t| !t.is_empty())
            .ok_or((401, "Unauthorized".to_string()))?;
        let verb = if req.method == "HEAD" { "head" } else { "get" };
        let now = (self.clock)();
        // The cache key uses a digest of the token, never the token itself.
        let digest = ring::digest::digest(&ring::digest::SHA256, token.as_bytes());
        let key = (digest.as_ref().iter().map(|b| format!("{b:02x}")).collect::<String>(), verb.to_string(), req.path.clone());
        if let Some(allowed) = self.cached(&key, now) {
            return if allowed { Ok(()) } else { Err((403, "Forbidden".into())) };
        }
        let user = match self.reviewer.token_review(token) {
            Ok(Some(u)) => u,
            Ok(None) => return Err((401, "Unauthorized".into())),
            Err(e) => {
                log::warn!("TokenReview failed: {e}");
                return Err((401, "Unauthorized".into()));
            }
        };
        let allowed = match self.reviewer.access_review(&user, verb, &req.path) {
            Ok(a) => a,
            Err(e) => {
                log::warn!("SubjectAccessReview failed: {e}");
                return Err((403, "Forbidden".into()));
            }
        };
        self.remember(key, allowed, now);
        if allowed {
            Ok(())
        } else {
            Err((403, format!("forbidden: User \"{}\" cannot {verb} path \"{}\"", user.username, req.path)))
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
                "good" | "reader" => Some(UserInfo { username: token.into(), uid: "1".into(), groups: vec![] }),
                _ => None,
            })
        }
        fn access_review(&self, user: &UserInfo, _verb: &str, path: &str) -> Result<bool, String> {
            Ok(user.username == "good" || path == "/metrics")
        }
    }

    fn req(path: &str, auth: Option<&str>) -> Request {
        let headers = auth.map(|a| vec![("Authorization".to_string(), a.to_string())]).unwrap_or_default();
        Request { method: "GET".into(), path: path.into(), query: String::new(), headers, body: vec![], close: false }
    }

    #[test]
    fn tokens_are_reviewed_and_decisions_cached() {
        let d = Delegating::new(Fake { calls: AtomicUsize::new(0) });
        assert_eq!(d.authorize(&req("/metrics", None)).map_err(|e| e.0), Err(401));
        assert_eq!(d.authorize(&req("/metrics", Some("Bearer bad"))).map_err(|e| e.0), Err(401));
        assert!(d.authorize(&req("/metrics", Some("Bearer good"))).is_ok());
        assert!(d.authorize(&req("/metrics", Some("Bearer good"))).is_ok());
        assert_eq!(d.reviewer.calls.load(Ordering::SeqCst), 2, "second decision came from the cache");
        assert_eq!(d.authorize(&req("/configz", Some("Bearer reader"))).map_err(|e| e.0), Err(403));
    }
}
