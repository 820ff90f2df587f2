//! SIGTERM/SIGINT handling: the first signal asks for a graceful shutdown (stop taking pods,
//! finish binds, release the lease), a second one exits at once with status 1 — the behaviour of
//! Kubernetes components' `SetupSignalHandler`.

use std::sync::atomic::{AtomicUsize, Ordering};

static SIGNALS: AtomicUsize = AtomicUsize::new(0);

extern "C" fn on_signal(_sig: libc::c_int) {
    // Only async-signal-safe operations here: an atomic increment and _exit.
    if SIGNALS.fetch_add(1, Ordering::SeqCst) >= 1 {
        // SAFETY: `_exit` is async-signal-safe and takes no pointers.
        unsafe { libc::_exit(1) };
    }
}

/// Install the handlers (call once, early in `main`).
pub fn install() {
    // SAFETY: `on_signal` only touches an atomic and calls the async-signal-safe `_exit`; the
    // sigaction struct is fully initialised before use.
    unsafe {
        let mut action: libc::sigaction = std::mem::zeroed();
        action.sa_sigaction = on_signal as *const () as usize;
        action.sa_flags = libc::SA_RESTART;
        libc::sigemptyset(&mut action.sa_mask);
        libc::sigaction(libc::SIGTERM, &action, std::ptr::null_mut());
        libc::sigaction(libc::SIGINT, &action, std::ptr::null_mut());
    }
}

/// Whether a termination signal has arrived.
pub fn terminating() -> bool {
    SIGNALS.load(Ordering::SeqCst) > 0
}
