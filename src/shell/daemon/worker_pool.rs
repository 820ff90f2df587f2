//! A pool of threads that grows with the load and shrinks when idle.
//!
//! Upstream binds each pod on its own goroutine; threads are dearer, so the API workers run on a
//! pool: a new thread starts only when a job arrives and no worker is idle (up to `max`), and a
//! worker that has had nothing to do for `idle_exit` ends (down to `min`). An edge cluster that
//! binds a pod a minute keeps one thread; a burst of thousands of pods gets `max` of them.

use log::warn;
use std::collections::VecDeque;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::time::{Duration, Instant};

/// Limits of a [`Pool`].
#[derive(Debug, Clone, Copy)]
pub struct PoolSize {
    /// Threads kept even when idle (at least 1).
    pub min: usize,
    /// Threads at most.
    pub max: usize,
    /// How long an idle thread above `min` waits for work before it ends.
    pub idle_exit: Duration,
}

/// Jobs waiting and the threads' bookkeeping, under one lock.
struct State<J> {
    jobs: VecDeque<J>,
    /// Since when jobs have been waiting with no worker taking them (none while the queue is
    /// empty); see [`Pool::take_stalled`].
    waiting_since: Option<Instant>,
    threads: usize,
    idle: usize,
    started: usize,
}

struct Shared<J> {
    state: Mutex<State<J>>,
    work: Condvar,
    size: PoolSize,
    name: &'static str,
    stack_size: usize,
    /// Most jobs a worker takes at once (its owner may change it as it goes).
    batch: Arc<AtomicUsize>,
    handler: Box<dyn Fn(Vec<J>) + Send + Sync>,
    in_flight: AtomicUsize,
}

impl<J> Shared<J> {
    fn lock(&self) -> MutexGuard<'_, State<J>> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }
}

/// Handle to a pool; clones share it.
pub struct Pool<J: Send + 'static> {
    shared: Arc<Shared<J>>,
}

impl<J: Send + 'static> Clone for Pool<J> {
    fn clone(&self) -> Self {
        Pool { shared: self.shared.clone() }
    }
}

impl<J: Send + 'static> Pool<J> {
    /// Start `size.min` threads named `name-N` that run `handler` on each submitted job.
    pub fn new(
        name: &'static str,
        size: PoolSize,
        stack_size: usize,
        handler: impl Fn(J) + Send + Sync + 'static,
    ) -> std::io::Result<Pool<J>> {
        let one = Arc::new(AtomicUsize::new(1));
        Pool::batched(name, size, stack_size, one, move |jobs| jobs.into_iter().for_each(&handler))
    }

    /// A pool whose workers take up to `batch` queued jobs at once (at least one; the caller
    /// may change it at any time) and run `handler` on them together (binds pipelined on one
    /// connection): with few threads, what queues while they are busy is served by one wake-up.
    pub fn batched(
        name: &'static str,
        size: PoolSize,
        stack_size: usize,
        batch: Arc<AtomicUsize>,
        handler: impl Fn(Vec<J>) + Send + Sync + 'static,
    ) -> std::io::Result<Pool<J>> {
        let size = PoolSize { min: size.min.max(1), max: size.max.max(size.min.max(1)), idle_exit: size.idle_exit };
        let pool = Pool {
            shared: Arc::new(Shared {
                state: Mutex::new(State { jobs: VecDeque::new(), waiting_since: None, threads: 0, idle: 0, started: 0 }),
                work: Condvar::new(),
                size,
                name,
                stack_size,
                batch,
                handler: Box::new(handler),
                in_flight: AtomicUsize::new(0),
            }),
        };
        for _ in 0..size.min {
            let mut state = pool.shared.lock();
            pool.start_thread(&mut state)?;
        }
        Ok(pool)
    }

    /// Queue a job; starts a thread when none is idle and the pool is below its maximum.
    pub fn submit(&self, job: J) {
        self.submit_all(vec![job]);
    }

    /// Queue several jobs under one lock (the effects of one scheduler pass), starting threads
    /// and waking idle workers as [`Pool::submit`] would for each.
    pub fn submit_all(&self, jobs: Vec<J>) {
        let mut state = self.shared.lock();
        if state.jobs.is_empty() && !jobs.is_empty() {
            state.waiting_since = Some(Instant::now());
        }
        let mut added = 0;
        for job in jobs {
            // Counted before a worker can take it (the lock is held until all are queued).
            self.shared.in_flight.fetch_add(1, Ordering::SeqCst);
            state.jobs.push_back(job);
            added += 1;
            if state.idle < state.jobs.len() && state.threads < self.shared.size.max {
                if let Err(e) = self.start_thread(&mut state) {
                    // The running threads still drain the queue; only the extra parallelism is lost.
                    warn!("cannot start another {} thread ({} running): {e}", self.shared.name, state.threads);
                }
            }
        }
        // A notify is a system call even when nobody waits: wake only idle workers, one per
        // job (busy ones take the rest from the queue when they finish theirs).
        let wake = state.idle.min(added);
        drop(state);
        for _ in 0..wake {
            self.shared.work.notify_one();
        }
    }

    /// Take every queued job when jobs have waited at least `age` for a worker (all busy, say
    /// on a slow server), so that the caller can run them elsewhere; they no longer count here.
    pub fn take_stalled(&self, now: Instant, age: Duration) -> Vec<J> {
        let mut state = self.shared.lock();
        if state.waiting_since.is_none_or(|since| now.saturating_duration_since(since) < age) {
            return Vec::new();
        }
        state.waiting_since = None;
        let jobs: Vec<J> = state.jobs.drain(..).collect();
        self.shared.in_flight.fetch_sub(jobs.len(), Ordering::SeqCst);
        jobs
    }

    /// Jobs queued and not yet taken by a worker.
    pub fn queued(&self) -> usize {
        self.shared.lock().jobs.len()
    }

    /// Jobs queued or running.
    pub fn pending(&self) -> usize {
        self.shared.in_flight.load(Ordering::SeqCst)
    }

    /// Threads currently running.
    pub fn threads(&self) -> usize {
        self.shared.lock().threads
    }

    fn start_thread(&self, state: &mut State<J>) -> std::io::Result<()> {
        let shared = self.shared.clone();
        let id = state.started;
        std::thread::Builder::new()
            .name(format!("{}-{id}", shared.name))
            .stack_size(self.shared.stack_size)
            .spawn(move || worker(&shared))?;
        state.threads += 1;
        state.started += 1;
        Ok(())
    }
}

/// One thread: run jobs until idle past `idle_exit` while more than `min` threads run.
fn worker<J>(shared: &Shared<J>) {
    let mut state = shared.lock();
    loop {
        if !state.jobs.is_empty() {
            let n = state.jobs.len().min(shared.batch.load(Ordering::Relaxed).max(1));
            let jobs: Vec<J> = state.jobs.drain(..n).collect();
            state.waiting_since = (!state.jobs.is_empty()).then(Instant::now);
            drop(state);
            (shared.handler)(jobs);
            shared.in_flight.fetch_sub(n, Ordering::SeqCst);
            state = shared.lock();
            continue;
        }
        state.idle += 1;
        let (next, wait) = shared.work.wait_timeout(state, shared.size.idle_exit).unwrap_or_else(|e| e.into_inner());
        state = next;
        state.idle -= 1;
        if wait.timed_out() && state.jobs.is_empty() && state.threads > shared.size.min {
            state.threads -= 1;
            return;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::mpsc;
    use std::time::Instant;

    fn wait_for(what: &str, mut done: impl FnMut() -> bool) {
        let deadline = Instant::now() + Duration::from_secs(20);
        while !done() {
            assert!(Instant::now() < deadline, "gave up waiting for {what}");
            std::thread::sleep(Duration::from_millis(5));
        }
    }

    /// How long a test waits for a worker before it fails instead of hanging.
    const TEST_BOUND: Duration = Duration::from_secs(10);

    #[test]
    fn grows_to_the_load_up_to_max_then_shrinks_to_min() {
        let (release_tx, release_rx) = mpsc::channel::<()>();
        let release_rx = Arc::new(Mutex::new(release_rx));
        let started = Arc::new(AtomicUsize::new(0));
        let (r, s) = (release_rx.clone(), started.clone());
        let size = PoolSize { min: 1, max: 3, idle_exit: Duration::from_millis(20) };
        let pool = Pool::new("test-pool", size, 64 * 1024, move |_: u32| {
            s.fetch_add(1, Ordering::SeqCst);
            let _ = r.lock().unwrap().recv();
        })
        .unwrap();
        assert_eq!(pool.threads(), 1);
        for j in 0..5 {
            pool.submit(j);
        }
        // Three jobs run at once (one per thread), two wait: never more threads than max.
        wait_for("three running jobs", || started.load(Ordering::SeqCst) == 3);
        assert_eq!(pool.threads(), 3);
        assert_eq!(pool.pending(), 5);
        for _ in 0..5 {
            release_tx.send(()).unwrap();
        }
        wait_for("all jobs done", || pool.pending() == 0);
        assert_eq!(started.load(Ordering::SeqCst), 5);
        wait_for("idle threads ending", || pool.threads() == 1);
        // The remaining thread still serves.
        pool.submit(9);
        release_tx.send(()).unwrap();
        wait_for("the late job", || pool.pending() == 0);
        assert_eq!(started.load(Ordering::SeqCst), 6);
    }

    #[test]
    fn a_batched_pool_hands_what_queued_to_one_worker_in_order() {
        let (entered_tx, entered_rx) = mpsc::channel::<Vec<u32>>();
        let (release_tx, release_rx) = mpsc::channel::<()>();
        let (entered_tx, release_rx) = (Mutex::new(entered_tx), Mutex::new(release_rx));
        let size = PoolSize { min: 1, max: 1, idle_exit: Duration::from_secs(60) };
        let pool = Pool::batched("test-batch", size, 64 * 1024, Arc::new(AtomicUsize::new(3)), move |jobs: Vec<u32>| {
            let _ = entered_tx.lock().unwrap().send(jobs);
            let _ = release_rx.lock().unwrap().recv();
        })
        .unwrap();
        pool.submit(0);
        assert_eq!(entered_rx.recv_timeout(TEST_BOUND).expect("a batch within the bound"), [0]);
        // While the only worker is busy, five more queue; it takes them three, then two.
        pool.submit_all(vec![1, 2, 3, 4, 5]);
        assert_eq!(pool.pending(), 6);
        release_tx.send(()).unwrap();
        assert_eq!(entered_rx.recv_timeout(TEST_BOUND).expect("a batch within the bound"), [1, 2, 3]);
        release_tx.send(()).unwrap();
        assert_eq!(entered_rx.recv_timeout(TEST_BOUND).expect("a batch within the bound"), [4, 5]);
        release_tx.send(()).unwrap();
        wait_for("all jobs done", || pool.pending() == 0);
        assert_eq!(pool.threads(), 1);
    }

    #[test]
    fn jobs_waiting_behind_busy_workers_can_be_taken_elsewhere() {
        let (release_tx, release_rx) = mpsc::channel::<()>();
        let (entered_tx, entered_rx) = mpsc::channel::<Vec<u32>>();
        let (release_rx, entered_tx) = (Mutex::new(release_rx), Mutex::new(entered_tx));
        let size = PoolSize { min: 1, max: 1, idle_exit: Duration::from_secs(60) };
        let pool = Pool::batched("test-stall", size, 64 * 1024, Arc::new(AtomicUsize::new(8)), move |jobs: Vec<u32>| {
            let _ = entered_tx.lock().unwrap().send(jobs);
            let _ = release_rx.lock().unwrap().recv();
        })
        .unwrap();
        pool.submit(0);
        assert_eq!(entered_rx.recv_timeout(TEST_BOUND).expect("a batch within the bound"), [0]);
        pool.submit_all(vec![1, 2]);
        let now = Instant::now();
        assert!(pool.take_stalled(now, Duration::from_secs(3600)).is_empty(), "not waiting that long yet");
        assert_eq!(pool.queued(), 2);
        // Seen from an hour later, they have waited long enough.
        assert_eq!(pool.take_stalled(now + Duration::from_secs(3600), Duration::from_secs(3600)), [1, 2]);
        assert_eq!((pool.queued(), pool.pending()), (0, 1));
        release_tx.send(()).unwrap();
        wait_for("the running job", || pool.pending() == 0);
        assert!(pool.take_stalled(now + Duration::from_secs(7200), Duration::ZERO).is_empty(), "nothing queued");
    }

    #[test]
    fn an_idle_pool_serves_sequential_jobs_without_growing() {
        let (done_tx, done_rx) = mpsc::channel::<u32>();
        let done_tx = Mutex::new(done_tx);
        let size = PoolSize { min: 1, max: 8, idle_exit: Duration::from_secs(60) };
        let pool = Pool::new("test-seq", size, 64 * 1024, move |j: u32| {
            let _ = done_tx.lock().unwrap().send(j);
        })
        .unwrap();
        let all_idle = || {
            let s = pool.shared.lock();
            s.idle == s.threads
        };
        wait_for("the first worker waiting", all_idle);
        for j in 0..20 {
            pool.submit(j);
            assert_eq!(done_rx.recv_timeout(TEST_BOUND).expect("the job within the bound"), j);
            wait_for("the worker idle again", all_idle);
        }
        assert_eq!(pool.threads(), 1, "one job at a time needs one thread");
    }
}
