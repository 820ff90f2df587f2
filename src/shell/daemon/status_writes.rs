//! A pod's status writes come before its binding.
//!
//! The scheduler core asks for a pod's `.status` writes (the nominated node the binding cycle
//! records, a failed attempt's condition) and later for its binding; the API workers run them on
//! several threads. Upstream's binding goroutine writes the nominated node itself before it
//! binds, so the binding can never overtake it and leave a bound pod nominated. Here a binding
//! waits until every status write of its pod submitted before it has been answered.
//!
//! Writes are counted when submitted, before any worker can take them, and the pools take jobs
//! in order: a write a binding waits for is already running or done, never queued behind it.

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Condvar, Mutex};
use std::time::Duration;

/// How often a binding waiting for its pod's status writes looks at the stop flag.
const STOP_CHECK: Duration = Duration::from_millis(100);

/// Status writes submitted and not answered yet, by pod (`namespace/name`).
#[derive(Debug, Default)]
pub struct PendingStatusWrites {
    /// All pods' writes in flight: a binding reads only this while there are none.
    total: AtomicUsize,
    by_pod: Mutex<HashMap<String, usize>>,
    answered: Condvar,
}

impl PendingStatusWrites {
    /// A status write of `pod` was submitted.
    pub fn begin(&self, pod: String) {
        let mut by_pod = self.by_pod.lock().unwrap_or_else(|e| e.into_inner());
        *by_pod.entry(pod).or_insert(0) += 1;
        self.total.fetch_add(1, Ordering::SeqCst);
    }

    /// A status write of `pod` was answered (or failed).
    pub fn end(&self, pod: &str) {
        let mut by_pod = self.by_pod.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(n) = by_pod.get_mut(pod) {
            *n -= 1;
            if *n == 0 {
                by_pod.remove(pod);
            }
            self.total.fetch_sub(1, Ordering::SeqCst);
        }
        drop(by_pod);
        self.answered.notify_all();
    }

    /// Wait until no status write of `pod` is in flight. Returns false when `stop` was raised
    /// first (the caller goes on: at shutdown nothing is gained by waiting).
    pub fn wait_for(&self, pod: &str, stop: &AtomicBool) -> bool {
        if self.total.load(Ordering::SeqCst) == 0 {
            return true;
        }
        let mut by_pod = self.by_pod.lock().unwrap_or_else(|e| e.into_inner());
        while by_pod.contains_key(pod) {
            if stop.load(Ordering::SeqCst) {
                return false;
            }
            by_pod = match self.answered.wait_timeout(by_pod, STOP_CHECK) {
                Ok((guard, _)) => guard,
                Err(e) => e.into_inner().0,
            };
        }
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::mpsc;
    use std::sync::Arc;

    #[test]
    fn a_pod_without_writes_in_flight_does_not_wait() {
        let w = PendingStatusWrites::default();
        w.begin("ns/other".into());
        assert!(w.wait_for("ns/p", &AtomicBool::new(false)));
    }

    #[test]
    fn a_binding_waits_for_its_pods_write_to_be_answered() {
        let w = Arc::new(PendingStatusWrites::default());
        w.begin("ns/p".into());
        w.begin("ns/p".into());
        let (tx, rx) = mpsc::channel();
        let waiter = {
            let w = w.clone();
            std::thread::spawn(move || {
                let done = w.wait_for("ns/p", &AtomicBool::new(false));
                tx.send(done).unwrap();
            })
        };
        w.end("ns/p");
        // One write is still in flight: the waiter cannot have finished, wherever it is.
        assert!(rx.try_recv().is_err());
        w.end("ns/p");
        assert!(rx.recv().unwrap());
        waiter.join().unwrap();
        assert_eq!(w.total.load(Ordering::SeqCst), 0);
    }

    #[test]
    fn stopping_ends_the_wait() {
        let w = PendingStatusWrites::default();
        w.begin("ns/p".into());
        assert!(!w.wait_for("ns/p", &AtomicBool::new(true)));
    }

    #[test]
    fn an_unknown_answer_changes_nothing() {
        let w = PendingStatusWrites::default();
        w.end("ns/p");
        assert_eq!(w.total.load(Ordering::SeqCst), 0);
        assert!(w.wait_for("ns/p", &AtomicBool::new(false)));
    }
}
