//! Bounded polling and scratch directories: end-to-end tests observe a separate process, so they
//! must poll for an outcome with a deadline instead of sleeping a guessed amount.

use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};
use std::thread;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

/// How often [`wait_until`] re-checks its condition.
const POLL_INTERVAL: Duration = Duration::from_millis(20);

/// Poll `cond` every 20 ms until it holds or `timeout` passes; the error names `what` so a
/// failing test says which outcome never happened.
pub fn wait_until(timeout: Duration, what: &str, mut cond: impl FnMut() -> bool) -> Result<(), String> {
    let deadline = Instant::now() + timeout;
    loop {
        if cond() {
            return Ok(());
        }
        if Instant::now() >= deadline {
            return Err(format!("timed out after {timeout:?} waiting for {what}"));
        }
        thread::sleep(POLL_INTERVAL);
    }
}

/// Like [`wait_until`], for outcomes that carry a value: poll until `get` returns one.
pub fn wait_for<T>(timeout: Duration, what: &str, mut get: impl FnMut() -> Option<T>) -> Result<T, String> {
    let mut found = None;
    wait_until(timeout, what, || {
        found = get();
        found.is_some()
    })?;
    found.ok_or_else(|| format!("{what}: vanished"))
}

/// A scratch directory that is removed (with everything in it) when dropped, so test runs leave
/// nothing behind in the temp dir. Dereferences to its path.
#[derive(Debug)]
pub struct TempDir(PathBuf);

impl TempDir {
    /// The directory's path.
    pub fn path(&self) -> &std::path::Path {
        &self.0
    }
}

impl std::ops::Deref for TempDir {
    type Target = std::path::Path;
    fn deref(&self) -> &std::path::Path {
        &self.0
    }
}

impl AsRef<std::path::Path> for TempDir {
    fn as_ref(&self) -> &std::path::Path {
        &self.0
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// A fresh, unique directory under the system temp dir, so parallel tests never share files;
/// removed when the returned guard is dropped.
pub fn tempdir(tag: &str) -> TempDir {
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let nanos = SystemTime::now().duration_since(UNIX_EPOCH).map(|d| d.subsec_nanos()).unwrap_or(0);
    let n = COUNTER.fetch_add(1, Ordering::Relaxed);
    let dir = std::env::temp_dir().join(format!("edgesched-{tag}-{}-{n}-{nanos}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    TempDir(dir)
}
