//! Everything that does I/O or owns a thread: the API client and list+watch machinery, the
//! informers that feed the core, the API workers (bind, status patches, evictions), the event
//! recorder, leader election, the health/metrics server, the command line and the wiring of the
//! live scheduler, and the shipped binary's memory allocator. The shell drives [`crate::core`];
//! the core never calls back into it.

pub mod alloc;
pub mod api_workers;
pub mod app;
pub mod capacity;
pub mod cli;
pub mod clock;
pub mod cluster_file;
pub mod cluster_reader;
pub mod code_pages;
pub mod diagnose;
pub mod event_recorder;
pub mod extender_client;
pub mod http_framing;
pub mod informers;
pub mod kube;
pub mod leader_election;
pub mod logging;
pub mod permissions;
pub mod process_metrics;
pub mod run;
pub mod sdnotify;
pub mod serving;
pub mod signals;
pub mod snapshot;
pub mod what_if;
pub mod what_if_setup;
pub mod worker_pool;
