//! The scheduler as a long-running process: [`run`] wires the API client, one informer thread
//! per watched kind, the scheduler thread's loop, the API workers that bind and write (on a
//! [`worker_pool`]), the event recorder, leader election and serving, and shuts them down in
//! order. [`permissions`] declares every API call it makes and records the ones denied.

pub mod api_workers;
pub mod dra_writes;
pub mod event_recorder;
pub mod informers;
pub mod leader_election;
pub mod permissions;
pub mod run;
pub mod status_writes;
pub mod worker_pool;
