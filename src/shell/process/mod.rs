//! The process itself, whatever command it runs: the global allocator ([`alloc`]) and the
//! dropping of start-up code pages ([`code_pages`]), signals, systemd readiness ([`sdnotify`]),
//! the clock the shell's loops wait on, the log output, and the `process_*` metrics read from
//! `/proc` ([`metrics`]).

pub mod alloc;
pub mod clock;
pub mod code_pages;
pub mod logging;
pub mod metrics;
pub mod sdnotify;
pub mod signals;
