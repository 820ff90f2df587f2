//! Writing your own scheduling logic in Rust: the plugin API.
//!
//! kube-scheduler users add out-of-tree plugins by compiling their own scheduler
//! (`app.NewSchedulerCommand(app.WithPlugin(name, factory))`). edgesched works the same way: a
//! crate depending on `edgesched` implements [`Plugin`] for its types, registers them with a
//! [`Builder`], and its `main` runs the normal edgesched command line — `run`, `check-config`,
//! `simulate`, `explain` — with those plugins available to every profile by name.
//!
//! ```no_run
//! use edgesched::plugin::{Builder, Cache, NodeInfo, Plugin, PluginState, Points, PodInfo, Rejection};
//!
//! /// Refuse nodes labelled `edge.example.com/maintenance`.
//! struct NoMaintenance;
//!
//! impl Plugin for NoMaintenance {
//!     fn name(&self) -> &'static str {
//!         "NoMaintenance"
//!     }
//!     fn points(&self) -> Points {
//!         Points { filter: true, ..Default::default() }
//!     }
//!     fn filter(&self, _: &Cache, _: &PodInfo, node: &NodeInfo, _: &PluginState) -> Result<(), Rejection> {
//!         match node.node.labels.get_str("edge.example.com/maintenance") {
//!             Some(_) => Err(Rejection::unresolvable("node(s) were in maintenance")),
//!             None => Ok(()),
//!         }
//!     }
//! }
//!
//! fn main() {
//!     std::process::exit(Builder::new().with_plugin("NoMaintenance", || NoMaintenance).run());
//! }
//! ```
//!
//! and in the configuration, as for any plugin:
//!
//! ```yaml
//! profiles:
//! - schedulerName: edge
//!   plugins:
//!     multiPoint:
//!       enabled:
//!       - name: NoMaintenance
//! ```
//!
//! # Extension points
//!
//! A plugin declares the points it implements in [`Plugin::points`] and overrides the matching
//! methods; the framework calls them in upstream's order (see the README's architecture section):
//! PreEnqueue ([`Plugin::pre_enqueue`]), PreFilter (+ `add_pod`/`remove_pod` for preemption's
//! simulations), Filter, PostFilter (with a [`FilterRunner`] to re-run the filters and see the
//! pods waiting at Permit), PreScore, Score + NormalizeScore (`points().normalize`), Reserve,
//! Permit ([`Plugin::permit`]: allow, [`PermitOutcome::Wait`] with a timeout, or reject; a
//! [`WaitingHandle`] lets one pod's Permit allow or reject others, as upstream's waiting pods),
//! and the queueing hints ([`Plugin::events`]: the cluster events that can make a pod this plugin
//! rejected schedulable). Per-pod state computed at PreFilter/PreScore lives in the plugin's
//! [`PluginState`] slot ([`state_as`] reads it back).
//!
//! Plugins are pure functions of what they are given — the node table ([`Cache`]), the pod
//! ([`PodInfo`]), their state — like every in-tree plugin: no I/O, no clock, so `simulate` and
//! `explain` show exactly what the live scheduler would do.
//!
//! Not offered (yet): QueueSort (the queue orders by priority, then creation time, as
//! PrioritySort), PreBind/Bind/PostBind and Unreserve for out-of-tree plugins.
//!
//! # Args
//!
//! `pluginConfig` args of an out-of-tree plugin are decoded into the plugin's own type with
//! [`Builder::with_plugin_args`] (any `serde::Deserialize + Default` type; missing args are the
//! default). A decoding error fails `check-config` and start-up with the profile and plugin named.

pub use crate::core::cache::{AssignedPod, Cache, NodeInfo};
pub use crate::core::framework::registry::{decode_args, Factory, Registry, RegistryError};
pub use crate::core::framework::waiting::{WaitingHandle, WaitingPod};
pub use crate::core::framework::{
    state_as, Code, Diagnosis, EventMask, FilterRunner, PermitOutcome, Plugin, PluginState, Points, PostFilterResult,
    PreFilterOutcome, PreScoreOutcome, Rejection, MAX_NODE_SCORE, MIN_NODE_SCORE,
};
pub use crate::core::model::{Labels, PodInfo, PodKey};

use std::sync::Arc;

/// Builds a custom edgesched: the shipped command line plus your plugins.
#[derive(Debug, Default)]
pub struct Builder {
    registry: Registry,
    errors: Vec<RegistryError>,
}

impl Builder {
    pub fn new() -> Builder {
        Builder::default()
    }

    /// Add a plugin without args, made by `build` for every profile that enables it.
    pub fn with_plugin<P, F>(mut self, name: &str, build: F) -> Builder
    where
        P: Plugin + 'static,
        F: Fn() -> P + Send + Sync + 'static,
    {
        let factory: Factory = Arc::new(move |_args: Option<&serde_json::Value>| Ok(Arc::new(build()) as Arc<dyn Plugin>));
        if let Err(e) = self.registry.register(name, factory) {
            self.errors.push(e);
        }
        self
    }

    /// Add a plugin whose `pluginConfig` args decode into `A`.
    pub fn with_plugin_args<A, P, F>(mut self, name: &str, build: F) -> Builder
    where
        A: serde::de::DeserializeOwned + Default,
        P: Plugin + 'static,
        F: Fn(A) -> Result<P, String> + Send + Sync + 'static,
    {
        if let Err(e) = self.registry.register_with_args(name, build) {
            self.errors.push(e);
        }
        self
    }

    /// The registry built so far (for tests that build frameworks directly).
    pub fn registry(&self) -> &Registry {
        &self.registry
    }

    /// Install the plugins and run the edgesched command line with this process's arguments;
    /// returns the exit code (2 when a plugin could not be registered).
    pub fn run(self) -> i32 {
        if !self.errors.is_empty() {
            for e in &self.errors {
                eprintln!("error: {e}");
            }
            return 2;
        }
        if crate::core::framework::registry::install(self.registry).is_err() {
            eprintln!("error: plugins were already installed in this process");
            return 2;
        }
        crate::shell::app::main()
    }
}
