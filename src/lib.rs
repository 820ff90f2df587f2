//! edgesched: a small, synchronous, kube-scheduler-compatible scheduler for edge control planes.
//!
//! The crate is split into a pure core (model, cache, queue, framework, plugins, config) that never
//! performs I/O or reads the clock, and a thin shell (kube client, watchers, binder, leader election,
//! serving) running on plain threads. The binary in `main.rs` only wires them together.

pub mod affinity_terms;
pub mod bind;
pub mod cache;
pub mod cli;
pub mod cluster;
pub mod config;
pub mod diagnose;
pub mod election;
pub mod events;
pub mod framework;
pub mod fxhash;
pub mod intern;
pub mod kube;
pub mod labelsel;
pub mod leader;
pub mod logging;
pub mod metrics;
pub mod model;
pub mod nominator;
pub mod pdb;
pub mod permissions;
pub mod podindex;
pub mod queue;
pub mod recorder;
pub mod rng;
pub mod run;
pub mod scheduler;
#[cfg(test)]
pub mod scratch;
pub mod sdnotify;
pub mod serve;
pub mod served;
pub mod signals;
pub mod simulate;
pub mod storage;
pub mod timefmt;
pub mod watched;
