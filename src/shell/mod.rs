//! Everything that does I/O or owns a thread, in five parts: talking to the API server
//! ([`kube`]), serving health and metrics ([`serving`]), the long-running scheduler
//! ([`daemon`]: informers, API workers, event recorder, leader election), the one-shot commands
//! that read a cluster once and answer ([`commands`]: simulate, snapshot, capacity, explain,
//! status), and the process itself ([`process`]: allocator, signals, clock, logs). The command
//! line ([`cli`]) and [`app`] pick the command; [`extender_client`] is the HTTP side of extenders,
//! shared by the daemon and the commands. The shell drives [`crate::core`]; the core never calls
//! back into it.

pub mod app;
pub mod cli;
pub mod commands;
pub mod daemon;
pub mod extender_client;
pub mod http_framing;
pub mod kube;
pub mod process;
pub mod serving;
