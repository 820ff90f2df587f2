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
//! methods; the framework calls them in upstream's order (see `docs/architecture.md`):
//!
//! - QueueSort ([`Plugin::less`] over [`QueuedPod`]s): replaces PrioritySort's order for the one
//!   scheduling queue; every profile must name the same queue-sort plugin, as upstream.
//! - PreEnqueue ([`Plugin::pre_enqueue`]): hold a pod back (gated) — it may count other pending
//!   pods ([`Cache::pending_pods`]) or read a declared custom resource ([`Cache::custom_object`])
//!   — until an event it registered for lets it in.
//! - PreFilter (+ `add_pod`/`remove_pod` for preemption's simulations), Filter, PostFilter (with
//!   a [`FilterRunner`] to re-run the filters and see the pods waiting at Permit), PreScore,
//!   Score + NormalizeScore (`points().normalize`).
//! - Reserve and Unreserve ([`Plugin::unreserve`], in reverse order, whenever the pod will not
//!   be bound after Reserve: a later Reserve or a Permit rejected it, its wait ended in
//!   rejection, or the binding cycle failed).
//! - Permit ([`Plugin::permit`]: allow, [`PermitOutcome::Wait`] with a timeout, or reject; a
//!   [`WaitingHandle`] lets one pod's Permit allow or reject others, as upstream's waiting pods).
//! - PreBind, Bind and PostBind ([`Plugin::pre_bind`], [`Plugin::bind`], [`Plugin::post_bind`]):
//!   the binding cycle, run on the scheduler's binder threads with an [`ApiHandle`] (the
//!   scheduler's API client), because binding is I/O (see
//!   [`crate::core::framework::binding`]). The first Bind plugin that does not
//!   [`BindStatus::Skip`] binds; Bind plugins run in configured order, with DefaultBinder where
//!   the configuration puts it. Before the binding cycle, [`Plugin::pre_bind_pre_flight`] says
//!   whether a PreBind plugin has work for the pod ([`PreFlight`]): when one has (or the pod
//!   waits at Permit), the pod's `.status.nominatedNodeName` is written first, as v1.35 does with
//!   its `NominatedNodeNameForExpectation` gate on.
//! - EnqueueExtensions ([`Plugin::events`] and [`Plugin::queueing_hint`]): the cluster events
//!   that may make a pod this plugin rejected schedulable, and per event (with the old and new
//!   object, [`ClusterEvent`]) whether it does — [`QueueingHint::QueueSkip`] leaves the pod in
//!   the unschedulable pool.
//!
//! # Custom resources
//!
//! A plugin that reads objects of another project's API — scheduler-plugins' Coscheduling reads
//! `PodGroup`s — declares the resource with [`Builder::with_custom_resource`]:
//!
//! ```no_run
//! # use edgesched::plugin::{Builder, CustomResource};
//! # struct Gang;
//! # impl edgesched::plugin::Plugin for Gang {
//! #     fn name(&self) -> &'static str { "Gang" }
//! #     fn points(&self) -> edgesched::plugin::Points { Default::default() }
//! # }
//! let builder = Builder::new()
//!     .with_plugin("Gang", || Gang)
//!     .with_custom_resource("Gang", CustomResource::namespaced("scheduling.x-k8s.io", "v1alpha1", "podgroups", "PodGroup"));
//! ```
//!
//! A scheduler whose profiles enable the plugin then lists and watches the resource like its own
//! kinds (readiness waits for its first list; RBAC must grant `list` and `watch`, and a denial is
//! logged with the rule to add), keeps the objects as JSON ([`Cache::custom_object`], the
//! resource named `plural.group`), and delivers each addition, change and deletion as an
//! [`EventMask::CUSTOM_RESOURCE`] event carrying [`EventObject::Custom`] — to the queueing hints
//! of pods the plugin rejected and to the PreEnqueue of pods it gated, so a pod waiting for its
//! object is asked again when the object appears.
//!
//! Per-pod state computed at PreFilter/PreScore lives in the plugin's [`PluginState`] slot
//! ([`state_as`] reads it back).
//!
//! Scheduling-cycle plugins are pure functions of what they are given — the node table
//! ([`Cache`]), the pod ([`PodInfo`]), their state — like every in-tree plugin: no I/O, no
//! clock, so `simulate` and `explain` show exactly what the live scheduler would do (they stop
//! before the binding cycle). Plugins log with [`Line`] (klog lines, as the scheduler's own).
//!
//! # Args
//!
//! `pluginConfig` args of an out-of-tree plugin are decoded into the plugin's own type with
//! [`Builder::with_plugin_args`] (any `serde::Deserialize + Default` type; missing args are the
//! default). A decoding error fails `check-config` and start-up with the profile and plugin named.

// Safe Rust only: memory-level work belongs to the shell.
#![forbid(unsafe_code)]

pub use crate::core::cache::{AssignedPod, Cache, NodeInfo};
pub use crate::core::custom_resources::{CustomObject, CustomResource};
pub use crate::core::framework::registry::{decode_args, Factory, Registry, RegistryError};
pub use crate::core::framework::waiting::{WaitingHandle, WaitingPod};
pub use crate::core::framework::{
    state_as, ApiFailure, ApiHandle, BindStatus, ClusterEvent, Code, Diagnosis, EventMask, EventObject, FilterRunner,
    PermitOutcome, Plugin, PluginState, Points, PostFilterResult, PreBindAction, PreFilterOutcome, PreFlight, PreScoreOutcome,
    QueueingHint, Rejection, MAX_NODE_SCORE, MIN_NODE_SCORE,
};
pub use crate::core::logging::{v, Line};
pub use crate::core::model::{Labels, NodeSpecInfo, PodInfo, PodKey};
pub use crate::core::queue::QueuedPod;

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

    /// Declare that plugin `plugin` reads the custom resource `resource` (see
    /// [`Registry::read_custom_resource`]); its objects are in [`Cache::custom_object`].
    pub fn with_custom_resource(mut self, plugin: &str, resource: CustomResource) -> Builder {
        self.registry.read_custom_resource(plugin, resource);
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
        crate::shell::daemon::informers::enable_custom_resources();
        crate::shell::app::main()
    }
}
