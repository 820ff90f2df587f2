//! Fault injection for resilience tests: latency, scripted and random failures (500, 503, JSON
//! 429 with Retry-After, or the plain-text priority-and-fairness 429), truncated bodies and
//! stalled watches. Rules match on method and a path substring; randomness is seeded.

use super::http::Response;
use super::status;
use super::wire;
use std::sync::Mutex;
use std::time::Duration;

/// How an injected failure answers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Failure {
    /// A JSON Status with this code (500 InternalError, 503 ServiceUnavailable, others generic).
    Status(u16),
    /// JSON 429 `TooManyRequests` with `Retry-After` and `details.retryAfterSeconds`.
    TooManyRequests {
        /// Seconds the client should wait.
        retry_after: u32,
    },
    /// Plain-text 429 from API Priority and Fairness (`Too many requests, please try again later.`).
    ApfTooManyRequests {
        /// Seconds in the `Retry-After` header.
        retry_after: u32,
    },
}

/// The body of an APF rejection (`kubernetes/apiserver` `pkg/server/filters/priority-and-fairness.go`).
pub const APF_BODY: &str = "Too many requests, please try again later.\n";

impl Failure {
    /// The response this failure produces.
    pub fn response(self) -> Response {
        let err = match self {
            Failure::Status(500) => status::internal_error("injected fault"),
            Failure::Status(503) => status::service_unavailable("the server is currently unable to handle the request"),
            Failure::Status(code) => status::failure(code, "", "injected fault", Default::default()),
            Failure::TooManyRequests { retry_after } => status::too_many_requests("storage is (re)initializing", retry_after),
            Failure::ApfTooManyRequests { retry_after } => {
                return Response {
                    code: 429,
                    content_type: "text/plain; charset=utf-8",
                    headers: vec![
                        ("Retry-After".into(), retry_after.to_string()),
                        ("X-Content-Type-Options".into(), "nosniff".into()),
                    ],
                    body: APF_BODY.as_bytes().to_vec(),
                }
            }
        };
        let headers = err.retry_after.map(|s| vec![("Retry-After".to_string(), s.to_string())]).unwrap_or_default();
        Response { code: err.code, content_type: "application/json", headers, body: wire::encode(&err.body, false) }
    }
}

#[derive(Debug, Clone)]
struct Matcher {
    method: String,
    path: String,
}

impl Matcher {
    fn new(method: &str, path: &str) -> Matcher {
        Matcher { method: method.to_string(), path: path.to_string() }
    }

    fn matches(&self, method: &str, path: &str) -> bool {
        (self.method.is_empty() || self.method == "*" || self.method.eq_ignore_ascii_case(method)) && path.contains(&self.path)
    }
}

#[derive(Debug, Clone)]
struct RandomRule {
    matcher: Matcher,
    probability: f64,
    failure: Failure,
    rng: u64,
}

/// SplitMix64: a tiny seeded generator, good enough for fault dice.
fn next_unit(state: &mut u64) -> f64 {
    *state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
    let mut z = *state;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^= z >> 31;
    (z >> 11) as f64 / (1u64 << 53) as f64
}

#[derive(Debug, Default)]
struct State {
    latency: Vec<(String, Duration)>,
    fail_next: Vec<(Matcher, usize, Failure)>,
    random: Vec<RandomRule>,
    truncate: Vec<(String, usize)>,
    stalled: bool,
}

/// All fault knobs, shared by connection threads.
#[derive(Debug, Default)]
pub struct Faults(Mutex<State>);

impl Faults {
    fn state(&self) -> std::sync::MutexGuard<'_, State> {
        self.0.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Delay requests whose path contains `path_substring` ("" = all) by `delay`.
    pub fn set_latency(&self, path_substring: &str, delay: Duration) {
        let mut s = self.state();
        s.latency.retain(|(p, _)| p != path_substring);
        if !delay.is_zero() {
            s.latency.push((path_substring.to_string(), delay));
        }
    }

    /// The delay for a request path (the largest matching rule).
    pub fn latency_for(&self, path: &str) -> Duration {
        self.state().latency.iter().filter(|(p, _)| path.contains(p.as_str())).map(|(_, d)| *d).max().unwrap_or_default()
    }

    /// Fail the next `n` requests matching `method` ("" or "*" = any) and `path_substring`.
    pub fn fail_next(&self, n: usize, method: &str, path_substring: &str, failure: Failure) {
        self.state().fail_next.push((Matcher::new(method, path_substring), n, failure));
    }

    /// Fail matching requests with probability `p`, using a generator seeded with `seed`.
    pub fn set_failure_rate(&self, p: f64, method: &str, path_substring: &str, failure: Failure, seed: u64) {
        let rule = RandomRule { matcher: Matcher::new(method, path_substring), probability: p, failure, rng: seed };
        self.state().random.push(rule);
    }

    /// The failure to inject for this request, consuming a scripted one if it matches.
    pub fn take_failure(&self, method: &str, path: &str) -> Option<Failure> {
        let mut s = self.state();
        if let Some(rule) = s.fail_next.iter_mut().find(|(m, n, _)| *n > 0 && m.matches(method, path)) {
            rule.1 -= 1;
            return Some(rule.2);
        }
        s.fail_next.retain(|(_, n, _)| *n > 0);
        s.random.iter_mut().filter(|r| r.matcher.matches(method, path)).find_map(|r| {
            let roll = next_unit(&mut r.rng);
            (roll < r.probability).then_some(r.failure)
        })
    }

    /// Cut the next `n` responses whose path contains `path_substring` in half.
    pub fn truncate_next(&self, n: usize, path_substring: &str) {
        self.state().truncate.push((path_substring.to_string(), n));
    }

    /// Whether to truncate this response (consumes one).
    pub fn take_truncate(&self, path: &str) -> bool {
        let mut s = self.state();
        let hit = s.truncate.iter_mut().find(|(p, n)| *n > 0 && path.contains(p.as_str()));
        match hit {
            Some(rule) => {
                rule.1 -= 1;
                true
            }
            None => false,
        }
    }

    /// Keep watches open but send nothing (true) or resume them (false).
    pub fn set_stalled(&self, stalled: bool) {
        self.state().stalled = stalled;
    }

    /// Whether watches are stalled.
    pub fn stalled(&self) -> bool {
        self.state().stalled
    }

    /// Remove every fault.
    pub fn clear(&self) {
        *self.state() = State::default();
    }
}
