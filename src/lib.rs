//! edgesched: a small, synchronous, kube-scheduler-compatible scheduler for edge control planes.
//!
//! The crate is split into a pure core (model, cache, queue, framework, plugins, config) that never
//! performs I/O or reads the clock, and a thin shell (kube client, watchers, binder, leader election,
//! serving) running on plain threads. The binary in `main.rs` only wires them together.

pub mod cache;
pub mod cli;
pub mod config;
pub mod framework;
pub mod intern;
pub mod kube;
pub mod model;
pub mod rng;
pub mod timefmt;
