//! The health/metrics server's request handling: raw bytes from a client go through the HTTP/1.1
//! reader, the delegated authoriser (with a fake TokenReview/SubjectAccessReview) and the router,
//! exactly as on a connection. Every reply must be a well-formed HTTP/1.1 response, and nothing but
//! the health paths may be answered 200 without the accepted token.
#![no_main]

use edgesched::core::metrics::Metrics;
use edgesched::shell::serving::auth::{Delegating, Reviewer, UserInfo};
use edgesched::shell::serving::http::{parse_request, serve_connection, Limits};
use edgesched::shell::serving::{route, AllowPaths, HealthState};
use libfuzzer_sys::fuzz_target;
use std::io::{self, Read, Write};
use std::sync::atomic::AtomicBool;
use std::sync::{Mutex, OnceLock};

struct FakeReviewer;

impl Reviewer for FakeReviewer {
    fn token_review(&self, token: &str) -> Result<Option<UserInfo>, String> {
        Ok((token == "good").then(|| UserInfo { username: "scraper".into(), uid: "1".into(), groups: vec![], extra: Default::default() }))
    }
    /// Only the token's user may read /metrics: `system:anonymous` reaches the authoriser (as
    /// upstream's delegated authorisation does) and is denied, as a default RBAC policy denies it.
    fn access_review(&self, user: &UserInfo, _verb: &str, path: &str) -> Result<bool, String> {
        Ok(user.username == "scraper" && path == "/metrics")
    }
}

struct Duplex<'a> {
    input: &'a [u8],
    output: Vec<u8>,
}

impl Read for Duplex<'_> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        self.input.read(buf)
    }
}

impl Write for Duplex<'_> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.output.extend_from_slice(buf);
        Ok(buf.len())
    }
    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

fn state() -> &'static (HealthState, Delegating<FakeReviewer>) {
    static STATE: OnceLock<(HealthState, Delegating<FakeReviewer>)> = OnceLock::new();
    STATE.get_or_init(|| {
        let health = HealthState {
            healthz: vec![],
            livez: vec![],
            readyz: vec![],
            metrics: Metrics::new(),
            configz: Mutex::new("{}".into()),
            shutting_down: AtomicBool::new(false),
        };
        (health, Delegating::new(FakeReviewer))
    })
}

fuzz_target!(|data: &[u8]| {
    let (health, authz) = state();
    let allow = AllowPaths::default();
    let limits = Limits::default();
    // The pure parser and router, request by request.
    let mut rest = data;
    while let Ok(Some((req, used))) = parse_request(rest, &limits) {
        assert!(used > 0 && used <= rest.len());
        let resp = route(health, authz, &allow, &req);
        let authorised = req.header("Authorization").is_some_and(|h| h.contains("good"));
        if resp.status == 200 && !authorised {
            assert!(allow.allows(&req.path), "{} answered 200 without credentials", req.path);
        }
        rest = &rest[used..];
    }
    // The same bytes as one connection.
    let mut conn = Duplex { input: data, output: Vec::new() };
    let _ = serve_connection(&mut conn, &limits, |req| route(health, authz, &allow, req));
    assert!(conn.output.is_empty() || conn.output.starts_with(b"HTTP/1.1 "));
});
