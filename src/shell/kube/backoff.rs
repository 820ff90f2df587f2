//! Exponential backoff with jitter for reconnecting to an unhealthy API server.
//!
//! Mirrors the reflector's backoff in client-go (`tools/cache/reflector.go`:
//! `wait.NewExponentialBackoffManager(800ms, 30s, 2m, 2.0, 1.0, clock)`): delays start at 800 ms and
//! double up to a 30 s cap; jitter 1.0 adds a random 0–100 % on top (so once capped, sleeps fall in
//! [30 s, 60 s), as upstream's comment says: about 0.22 requests per second against a sick server);
//! and if no backoff was needed for 2 minutes the sequence starts again from 800 ms, because the
//! server is evidently healthy again. `wait.Backoff.Step` semantics: the cap applies to the base
//! delay before jitter.

use crate::core::rng::Rng;
use std::time::{Duration, Instant};

/// Backoff parameters and state. Pure: the time and the random source are passed in.
#[derive(Debug, Clone)]
pub struct Backoff {
    initial: Duration,
    max: Duration,
    factor: f64,
    jitter: f64,
    reset_after: Duration,
    next_base: Duration,
    last_backoff: Option<Instant>,
}

impl Backoff {
    /// Custom parameters (see [`Backoff::reflector`] for the ones the watcher uses).
    pub fn new(initial: Duration, max: Duration, factor: f64, jitter: f64, reset_after: Duration) -> Backoff {
        Backoff { initial, max, factor, jitter, reset_after, next_base: initial, last_backoff: None }
    }

    /// The reflector's parameters: 800 ms initial, ×2, 30 s cap, jitter 1.0, reset after 2 min.
    pub fn reflector() -> Backoff {
        Backoff::new(Duration::from_millis(800), Duration::from_secs(30), 2.0, 1.0, Duration::from_secs(120))
    }

    /// How long to wait before the next attempt, given that one just failed at `now`.
    pub fn next_delay(&mut self, now: Instant, rng: &mut Rng) -> Duration {
        if let Some(last) = self.last_backoff {
            if now.saturating_duration_since(last) > self.reset_after {
                self.next_base = self.initial;
            }
        }
        self.last_backoff = Some(now);
        let base = self.next_base;
        self.next_base = base.mul_f64(self.factor).min(self.max);
        if self.jitter > 0.0 {
            base + base.mul_f64(rng.unit() * self.jitter)
        } else {
            base
        }
    }

    /// Forget all failures: the next delay is the initial one again.
    pub fn reset(&mut self) {
        self.next_base = self.initial;
        self.last_backoff = None;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn secs(s: f64) -> Duration {
        Duration::from_secs_f64(s)
    }

    #[test]
    fn grows_by_factor_with_jitter_and_caps_the_base() {
        let mut backoff = Backoff::reflector();
        let mut rng = Rng::seeded(1);
        let t0 = Instant::now();
        let bases = [0.8, 1.6, 3.2, 6.4, 12.8, 25.6, 30.0, 30.0, 30.0];
        for (i, base) in bases.iter().enumerate() {
            // Failures every second: never long enough to reset.
            let d = backoff.next_delay(t0 + Duration::from_secs(i as u64), &mut rng);
            assert!(d >= secs(*base) && d < secs(2.0 * base), "step {i}: {d:?} not in [{base}, {})", 2.0 * base);
        }
    }

    #[test]
    fn without_jitter_the_sequence_is_exact() {
        let mut backoff = Backoff::new(Duration::from_millis(100), Duration::from_millis(350), 2.0, 0.0, Duration::from_secs(60));
        let mut rng = Rng::seeded(0);
        let t0 = Instant::now();
        let got: Vec<u64> = (0..5).map(|_| backoff.next_delay(t0, &mut rng).as_millis() as u64).collect();
        assert_eq!(got, vec![100, 200, 350, 350, 350]);
    }

    #[test]
    fn resets_after_two_quiet_minutes_but_not_before() {
        let mut backoff = Backoff::new(Duration::from_millis(800), Duration::from_secs(30), 2.0, 0.0, Duration::from_secs(120));
        let mut rng = Rng::seeded(0);
        let t0 = Instant::now();
        backoff.next_delay(t0, &mut rng);
        backoff.next_delay(t0, &mut rng);
        assert_eq!(backoff.next_delay(t0 + Duration::from_secs(120), &mut rng), Duration::from_millis(3200));
        let later = t0 + Duration::from_secs(120) + Duration::from_millis(120_001);
        assert_eq!(backoff.next_delay(later, &mut rng), Duration::from_millis(800));
        backoff.reset();
        assert_eq!(backoff.next_delay(later, &mut rng), Duration::from_millis(800));
    }
}
