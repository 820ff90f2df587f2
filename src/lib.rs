//! edgesched: a small, synchronous, kube-scheduler-compatible scheduler for edge control planes.
//!
//! Two areas, visible in the folders:
//!
//! - [`core`]: the deterministic scheduler — API object types, the compact cluster model and
//!   cache, the queue, the framework and its plugins, configuration, and the scheduler state
//!   machine that turns watch changes into effects. No I/O, no threads, no clock reads (`now` is
//!   passed in), randomness from a seeded generator. It imports nothing from the shell.
//! - [`shell`]: everything that talks to the world or owns a thread — the API client and watches,
//!   the informers feeding the core, the API workers that bind and write, leader election, the
//!   health/metrics server, the command line and the `run` wiring.
//!
//! - [`plugin`]: the stable surface for out-of-tree plugins and custom builds.
//!
//! The binary in `main.rs` only calls the command line in [`shell::app`].

// Unsafe code lives in the shell only (`core` forbids it), every unsafe operation inside an
// `unsafe fn` is its own block, and every block says why it is sound.
#![deny(unsafe_op_in_unsafe_fn)]
#![deny(clippy::undocumented_unsafe_blocks)]

pub mod core;
pub mod plugin;
pub mod shell;
