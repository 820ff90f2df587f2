//! The binding cycle of out-of-tree plugins: PreBind, Bind and PostBind
//! (upstream `RunPreBindPlugins`, `RunBindPlugins`, `RunPostBindPlugins` in
//! pkg/scheduler/framework/runtime/framework.go, called from `bindingCycle` in schedule_one.go).
//!
//! Real binding-cycle plugins talk to the API server: a Bind plugin POSTs its own binding or
//! delegates it, a PreBind plugin patches objects or waits for another controller. That is I/O,
//! so these methods are never called by the pure core: the scheduling cycle only decides *which*
//! plugins run for the pod ([`BindingPlugins`], carried by the bind request), and the shell's
//! binder threads call them with an [`ApiHandle`] — exactly where upstream runs them, on the
//! binding goroutine, after the pod is assumed. Returning effects instead was considered and
//! rejected: a Bind plugin's decision (bound, skip, failed) depends on the API server's answer,
//! and a PreBind that polls would need a state machine per plugin in the core.
//!
//! `simulate` and `explain` stop at Permit, as they stop before the in-tree DefaultBinder.

use super::plugins::{is_in_tree, names};
use super::Plugin;
use std::fmt;
use std::sync::Arc;
use std::time::Duration;

/// Why an API request of a binding-cycle plugin failed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ApiFailure {
    /// The HTTP status (`None`: no answer, e.g. the connection broke).
    pub code: Option<u16>,
    /// The server's message (or the transport error).
    pub message: String,
}

impl fmt::Display for ApiFailure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for ApiFailure {}

/// The API access a binding-cycle plugin gets: the scheduler's own client (its credentials, rate
/// limit and retries; the scheduler's RBAC applies), JSON in and out, and a wait that ends early
/// at shutdown. Paths are API paths (`/api/v1/namespaces/ns/pods/p/binding`).
pub trait ApiHandle {
    /// GET an object.
    fn get(&self, path: &str) -> Result<serde_json::Value, ApiFailure>;
    /// POST `body` (create; a binding subresource).
    fn create(&self, path: &str, body: &serde_json::Value) -> Result<serde_json::Value, ApiFailure>;
    /// PATCH with a JSON merge patch.
    fn merge_patch(&self, path: &str, patch: &serde_json::Value) -> Result<serde_json::Value, ApiFailure>;
    /// Sleep `d` (the scheduler's clock); `false` when the scheduler is stopping and the plugin
    /// should give up.
    fn wait(&self, d: Duration) -> bool;
    /// Bind with the DefaultBinder (POST `pods/binding`), for a Bind plugin that delegates after
    /// doing its own work.
    fn default_bind(&self, pod: &crate::core::model::PodInfo, node: &str) -> Result<(), ApiFailure>;
}

/// What a Bind plugin did (upstream: `Success`, `Skip`, or an error status).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum BindStatus {
    /// The pod is bound; no further Bind plugin runs.
    Bound,
    /// Not this plugin's pod: the next Bind plugin decides.
    Skip,
    /// Binding failed: the pod is forgotten on the node and retried after a backoff.
    Failed(String),
}

/// One PreBind step in configured order: an in-tree plugin's writes planned at Reserve
/// ([`super::PreBindAction`]s whose `plugin()` it is), or an out-of-tree plugin.
#[derive(Clone)]
pub enum PreBindStep {
    InTree(&'static str),
    Plugin(Arc<dyn Plugin>),
}

/// One Bind step in configured order: the in-tree DefaultBinder or an out-of-tree plugin.
#[derive(Clone)]
pub enum BindStep {
    Default,
    Plugin(Arc<dyn Plugin>),
}

/// The out-of-tree binding-cycle plugins of a profile, in configured order; built once per
/// profile, and only when it has at least one (the shipped binary never builds one).
#[derive(Clone, Default)]
pub struct BindingPlugins {
    /// PreBind plugins in configured order.
    pub pre_bind: Vec<PreBindStep>,
    pub bind: Vec<BindStep>,
    pub post_bind: Vec<Arc<dyn Plugin>>,
}

impl fmt::Debug for BindingPlugins {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let name = |p: &PreBindStep| match p {
            PreBindStep::InTree(name) => *name,
            PreBindStep::Plugin(p) => p.name(),
        };
        let bind = |s: &BindStep| match s {
            BindStep::Default => names::DEFAULT_BINDER,
            BindStep::Plugin(p) => p.name(),
        };
        f.debug_struct("BindingPlugins")
            .field("pre_bind", &self.pre_bind.iter().map(name).collect::<Vec<_>>())
            .field("bind", &self.bind.iter().map(bind).collect::<Vec<_>>())
            .field("post_bind", &self.post_bind.iter().map(|p| p.name()).collect::<Vec<_>>())
            .finish()
    }
}

impl BindingPlugins {
    /// The binding-cycle plan of a profile's lists, `None` when every plugin there is in-tree.
    pub(crate) fn build(
        plugins: &[Arc<dyn Plugin>],
        pre_bind: &[usize],
        bind: &[usize],
        post_bind: &[usize],
    ) -> Option<Arc<BindingPlugins>> {
        let out_of_tree = |i: &usize| !is_in_tree(plugins[*i].name());
        if !pre_bind.iter().chain(bind).chain(post_bind).any(out_of_tree) {
            return None;
        }
        let pick = |i: &usize| out_of_tree(i).then(|| plugins[*i].clone());
        Some(Arc::new(BindingPlugins {
            pre_bind: pre_bind
                .iter()
                .map(|i| pick(i).map_or_else(|| PreBindStep::InTree(plugins[*i].name()), PreBindStep::Plugin))
                .collect(),
            bind: bind.iter().map(|i| pick(i).map_or(BindStep::Default, BindStep::Plugin)).collect(),
            post_bind: post_bind.iter().filter_map(pick).collect(),
        }))
    }
}
