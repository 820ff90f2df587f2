//! Client-side request rate limiting, as kube-scheduler's `clientConnection.qps`/`burst` ask.
//!
//! client-go throttles every request through a token bucket (`flowcontrol.NewTokenBucketRateLimiter`,
//! built on `golang.org/x/time/rate`): the bucket starts full with `burst` tokens, refills at `qps`
//! tokens per second, and a caller that finds it empty reserves a future token and sleeps until
//! then, so concurrent callers are served in arrival order without bursts above the limit.
//!
//! How the two numbers reach the client upstream:
//! - `pkg/scheduler/apis/config/v1/defaults.go` (`SetDefaults_KubeSchedulerConfiguration`) turns a
//!   zero `clientConnection.qps`/`burst` into the scheduler's own defaults, 50 and 100. That is
//!   the configuration layer's job, not this module's.
//! - `cmd/kube-scheduler/app/options/options.go` (`createKubeConfig`) copies them into
//!   `rest.Config.QPS`/`Burst` unchanged.
//! - `staging/src/k8s.io/client-go/rest/config.go` (`RESTClientFor`) then maps `QPS == 0` to
//!   `DefaultQPS` (5) and `Burst == 0` to `DefaultBurst` (10), and creates a limiter only when the
//!   resulting qps is `> 0`: a negative qps disables client-side limiting (API Priority and
//!   Fairness on the server still applies).
//!
//! [`RateLimiter::for_client_connection`] implements the last step. A negative burst (which
//! upstream would turn into a limiter that never grants a token) is treated as 1.

use std::sync::Mutex;
use std::time::{Duration, Instant};

/// client-go `rest.DefaultQPS`.
pub const DEFAULT_QPS: f32 = 5.0;
/// client-go `rest.DefaultBurst`.
pub const DEFAULT_BURST: i32 = 10;

/// A token bucket with reservation semantics (`x/time/rate.Limiter.Reserve`). Pure: the caller
/// supplies the time.
#[derive(Debug, Clone)]
pub struct TokenBucket {
    qps: f64,
    burst: f64,
    tokens: f64,
    last: Instant,
}

impl TokenBucket {
    /// A full bucket. `qps` must be positive and `burst` at least 1 (see
    /// [`RateLimiter::for_client_connection`] for how configuration values are mapped).
    pub fn new(qps: f64, burst: u32, now: Instant) -> TokenBucket {
        let burst = f64::from(burst.max(1));
        TokenBucket { qps: qps.max(f64::MIN_POSITIVE), burst, tokens: burst, last: now }
    }

    /// Take one token, returning how long the caller must wait before using it (zero when a
    /// token was available). The token is taken even when the wait is non-zero, so later callers
    /// queue behind this one.
    pub fn reserve(&mut self, now: Instant) -> Duration {
        self.refill(now);
        self.tokens -= 1.0;
        if self.tokens >= 0.0 {
            Duration::ZERO
        } else {
            Duration::from_secs_f64(-self.tokens / self.qps)
        }
    }

    fn refill(&mut self, now: Instant) {
        if now > self.last {
            let elapsed = now.duration_since(self.last).as_secs_f64();
            self.tokens = (self.tokens + elapsed * self.qps).min(self.burst);
            self.last = now;
        }
    }
}

/// A token bucket shared by every thread using one API client.
#[derive(Debug)]
pub struct RateLimiter {
    bucket: Mutex<TokenBucket>,
}

impl RateLimiter {
    /// A limiter with explicit limits (already defaulted; see [`RateLimiter::for_client_connection`]).
    pub fn new(qps: f64, burst: u32, now: Instant) -> RateLimiter {
        RateLimiter { bucket: Mutex::new(TokenBucket::new(qps, burst, now)) }
    }

    /// The limiter client-go would build for `clientConnection.qps`/`burst` (see the module
    /// docs): `None` means unlimited.
    pub fn for_client_connection(qps: f32, burst: i32, now: Instant) -> Option<RateLimiter> {
        let (qps, burst) = effective_limits(qps, burst)?;
        Some(RateLimiter::new(qps, burst, now))
    }

    /// Reserve a token at `now` and return the wait (the testable half of [`acquire`](Self::acquire)).
    pub fn reserve_at(&self, now: Instant) -> Duration {
        self.bucket.lock().unwrap_or_else(|poisoned| poisoned.into_inner()).reserve(now)
    }

    /// Block until this caller may send a request.
    pub fn acquire(&self) {
        let wait = self.reserve_at(Instant::now());
        if !wait.is_zero() {
            std::thread::sleep(wait);
        }
    }
}

/// `rest.RESTClientFor` defaulting: `None` when limiting is disabled, else (qps, burst).
pub fn effective_limits(qps: f32, burst: i32) -> Option<(f64, u32)> {
    let qps = if qps == 0.0 { DEFAULT_QPS } else { qps };
    if qps.is_nan() || qps <= 0.0 {
        return None;
    }
    let burst = if burst == 0 { DEFAULT_BURST } else { burst };
    Some((f64::from(qps), u32::try_from(burst).unwrap_or(0).max(1)))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ms(n: u64) -> Duration {
        Duration::from_millis(n)
    }

    #[test]
    fn burst_is_free_then_requests_are_spaced_at_qps() {
        let t0 = Instant::now();
        let mut bucket = TokenBucket::new(10.0, 3, t0);
        assert_eq!(bucket.reserve(t0), Duration::ZERO);
        assert_eq!(bucket.reserve(t0), Duration::ZERO);
        assert_eq!(bucket.reserve(t0), Duration::ZERO);
        // Empty: callers queue 100 ms apart.
        assert_eq!(bucket.reserve(t0), ms(100));
        assert_eq!(bucket.reserve(t0), ms(200));
        // 250 ms later two reserved tokens have been paid back and half of the next one.
        assert_eq!(bucket.reserve(t0 + ms(250)), ms(50));
    }

    #[test]
    fn refill_is_capped_at_burst() {
        let t0 = Instant::now();
        let mut bucket = TokenBucket::new(1.0, 2, t0);
        bucket.reserve(t0);
        bucket.reserve(t0);
        let later = t0 + Duration::from_secs(3600);
        assert_eq!(bucket.reserve(later), Duration::ZERO);
        assert_eq!(bucket.reserve(later), Duration::ZERO);
        assert_eq!(bucket.reserve(later), Duration::from_secs(1));
    }

    #[test]
    fn fractional_qps() {
        let t0 = Instant::now();
        let mut bucket = TokenBucket::new(0.5, 1, t0);
        assert_eq!(bucket.reserve(t0), Duration::ZERO);
        assert_eq!(bucket.reserve(t0), Duration::from_secs(2));
    }

    #[test]
    fn client_connection_defaults_follow_rest_client_for() {
        assert_eq!(effective_limits(0.0, 0), Some((5.0, 10)));
        assert_eq!(effective_limits(50.0, 100), Some((50.0, 100)));
        assert_eq!(effective_limits(20.0, 0), Some((20.0, 10)));
        assert_eq!(effective_limits(-1.0, 100), None);
        assert_eq!(effective_limits(f32::NAN, 100), None);
        assert_eq!(effective_limits(5.0, -3), Some((5.0, 1)));
        assert!(RateLimiter::for_client_connection(-1.0, 0, Instant::now()).is_none());
    }

    #[test]
    fn shared_limiter_reserves_in_order() {
        let t0 = Instant::now();
        let limiter = RateLimiter::new(2.0, 1, t0);
        assert_eq!(limiter.reserve_at(t0), Duration::ZERO);
        assert_eq!(limiter.reserve_at(t0), ms(500));
        assert_eq!(limiter.reserve_at(t0), ms(1000));
    }
}
