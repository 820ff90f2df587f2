//! The pure scheduler: data in, decisions and effects out. Nothing here performs I/O, starts a
//! thread or reads a clock, so the live scheduler, `simulate`, `explain` and the tests all drive
//! the same code with the same results. Nothing here imports [`crate::shell`].

// The core is safe Rust only: memory-level work belongs to the shell.
#![forbid(unsafe_code)]

pub mod api;
pub mod cache;
pub mod conditions;
pub mod config;
pub mod custom_resources;
pub mod dra;
pub mod events;
pub mod extender;
pub mod features;
pub mod framework;
pub mod fxhash;
pub mod gang;
pub mod gojson;
pub mod intern;
pub mod labels;
pub mod lease;
pub mod logging;
pub mod metrics;
pub mod model;
pub mod pod_requests;
pub mod quantity;
pub mod queue;
pub mod resources;
pub mod rng;
pub mod scheduler;
#[cfg(test)]
pub mod scratch;
pub mod seeded_hash;
pub mod served_names;
pub mod simulate;
pub mod texts;
pub mod timefmt;
pub mod watched;
