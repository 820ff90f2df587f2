//! The one-shot commands: read a cluster once — a cluster file ([`cluster_file`]) or a live API
//! server, read-only ([`cluster_reader`], [`snapshot`]) — hand it to the core, print the answer
//! and exit. `simulate` ([`what_if`]), `snapshot` and `capacity` ask what-if questions and share
//! [`what_if_setup`]; `explain` and `status` ([`diagnose`]) say why pods are pending and how the
//! running scheduler is doing.

pub mod capacity;
pub mod cluster_file;
pub mod cluster_reader;
pub mod diagnose;
pub mod snapshot;
pub mod what_if;
pub mod what_if_setup;
