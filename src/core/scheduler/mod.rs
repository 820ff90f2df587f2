//! The scheduler core: a deterministic state machine fed with watch changes and binding results,
//! producing effects (bind, record an event, patch a pod's status, evict) for the shell to
//! perform.
//!
//! It owns the node table, the queue and the profiles, mirrors upstream's event handlers
//! (pkg/scheduler/eventhandlers.go), scheduling cycle and failure handling (schedule_one.go), and
//! never performs I/O itself, so the live loop, `simulate` and the tests drive the same code.
//!
//! - [`input`]: what it reacts to ([`Input`], [`Change`](crate::core::watched::Change), the watched kinds' types);
//! - [`effects`]: what it asks for ([`Effect`]) and what an attempt did ([`Attempt`]);
//! - `state.rs`: what it owns; `handlers.rs`: watch changes; `schedule_one.rs`: the cycle and
//!   bind results; `expectation.rs`: the nominated node written as the binding cycle starts;
//!   `failure.rs`: failed attempts; `unserved.rs`: names nobody serves.

mod dra_handlers;
pub mod effects;
mod expectation;
mod failure;
mod handlers;
pub mod input;
mod permit;
mod schedule_one;
mod state;
#[cfg(test)]
mod tests;
#[cfg(test)]
mod tests_dra;
#[cfg(test)]
mod tests_expectation;
#[cfg(test)]
mod tests_list_pages;
#[cfg(test)]
mod tests_plugin_api;
#[cfg(test)]
mod tests_resize;
mod unserved;

pub use effects::{Attempt, BindRequest, Effect, PatchOrigin, StatusPatch};
pub use handlers::{enable_custom_resources, node_change_mask};
pub use input::{BindFailure, BindOutcome, Input};
pub use state::{PriorityClasses, Scheduler, Settings, NOMINATED_NODE_NAME_FOR_EXPECTATION, UNSERVED_GRACE};
