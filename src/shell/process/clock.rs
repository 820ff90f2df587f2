//! Time for the shell's loops, behind one trait so the list+watch loop and leader election run
//! against a fake clock in tests (no real waiting), and one stop-aware sleep that every loop
//! uses so a shutdown is noticed within a fraction of a second.

use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant, SystemTime};

/// The time sources and the sleep a loop needs.
pub trait Clock {
    /// Monotonic now, for deadlines and intervals.
    fn now(&self) -> Instant;
    /// Wall-clock now, for timestamps written to the API (lease renew times, events).
    fn wall(&self) -> SystemTime;
    /// Block the calling thread for `duration`.
    fn sleep(&self, duration: Duration);
}

/// The real clock.
#[derive(Debug, Clone, Copy, Default)]
pub struct SystemClock;

impl Clock for SystemClock {
    fn now(&self) -> Instant {
        Instant::now()
    }
    fn wall(&self) -> SystemTime {
        SystemTime::now()
    }
    fn sleep(&self, duration: Duration) {
        std::thread::sleep(duration);
    }
}

impl crate::core::framework::instrument::Ticker for SystemClock {
    fn now(&self) -> Instant {
        Instant::now()
    }
}

/// Longest single sleep while waiting, so a raised stop flag is noticed promptly.
pub const STOP_POLL: Duration = Duration::from_millis(50);

/// Sleep until `until` (on `clock`) in short slices; returns `false` as soon as `stop` is raised.
pub fn sleep_until(clock: &dyn Clock, stop: &AtomicBool, until: Instant) -> bool {
    loop {
        if stop.load(Ordering::SeqCst) {
            return false;
        }
        let now = clock.now();
        if now >= until {
            return true;
        }
        clock.sleep((until - now).min(STOP_POLL));
    }
}

/// Sleep for `total`; returns `false` as soon as `stop` is raised.
pub fn sleep_for(clock: &dyn Clock, stop: &AtomicBool, total: Duration) -> bool {
    let until = clock.now() + total;
    sleep_until(clock, stop, until)
}

/// Wait up to `timeout` for `done` to become true, checking every 10 ms; returns whether it did.
pub fn wait_for(clock: &dyn Clock, timeout: Duration, mut done: impl FnMut() -> bool) -> bool {
    let until = clock.now() + timeout;
    loop {
        if done() {
            return true;
        }
        let now = clock.now();
        if now >= until {
            return false;
        }
        clock.sleep((until - now).min(Duration::from_millis(10)));
    }
}

#[cfg(test)]
pub mod fake {
    //! A clock that only moves when slept on (or advanced), recording every sleep.

    use super::Clock;
    use std::sync::{Arc, Mutex};
    use std::time::{Duration, Instant, SystemTime};

    #[derive(Debug)]
    struct State {
        now: Instant,
        wall: SystemTime,
        slept: Vec<Duration>,
    }

    /// Cloning shares the time: a test keeps one handle while the loop under test owns another.
    #[derive(Debug, Clone)]
    pub struct FakeClock(Arc<Mutex<State>>);

    impl FakeClock {
        pub fn new() -> FakeClock {
            FakeClock(Arc::new(Mutex::new(State {
                now: Instant::now(),
                wall: SystemTime::UNIX_EPOCH + Duration::from_secs(1_760_000_000),
                slept: Vec::new(),
            })))
        }

        fn state(&self) -> std::sync::MutexGuard<'_, State> {
            self.0.lock().unwrap_or_else(|e| e.into_inner())
        }

        /// Move time forward without a sleep.
        pub fn advance(&self, d: Duration) {
            let mut s = self.state();
            s.now += d;
            s.wall += d;
        }

        /// Total time slept so far.
        pub fn slept(&self) -> Duration {
            self.state().slept.iter().sum()
        }
    }

    impl Default for FakeClock {
        fn default() -> FakeClock {
            FakeClock::new()
        }
    }

    impl Clock for FakeClock {
        fn now(&self) -> Instant {
            self.state().now
        }
        fn wall(&self) -> SystemTime {
            self.state().wall
        }
        fn sleep(&self, d: Duration) {
            let mut s = self.state();
            s.now += d;
            s.wall += d;
            s.slept.push(d);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::fake::FakeClock;
    use super::*;

    #[test]
    fn sleeps_in_slices_and_stops_early() {
        let clock = FakeClock::new();
        let stop = AtomicBool::new(false);
        assert!(sleep_for(&clock, &stop, Duration::from_millis(120)));
        assert_eq!(clock.slept(), Duration::from_millis(120));
        stop.store(true, Ordering::SeqCst);
        assert!(!sleep_for(&clock, &stop, Duration::from_secs(10)));
        assert_eq!(clock.slept(), Duration::from_millis(120), "no sleep once stopped");
    }
}
