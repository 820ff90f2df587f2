//! Scheduler configuration: `KubeSchedulerConfiguration` in every version users still have, converted
//! into one internal form ([`types::SchedulerConfig`]) with upstream's defaults and validation.

pub mod types;

pub use types::*;
