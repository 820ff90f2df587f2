//! HTTP extenders (`KubeSchedulerConfiguration.extenders`), wire-compatible with upstream's
//! `pkg/scheduler/extender.go` and `k8s.io/kube-scheduler/extender/v1`.
//!
//! Why the split: the core decides *when* an extender is called and *how* its answer is combined
//! (which nodes survive, how scores are scaled, which preemption victims stand, whether binding is
//! delegated), exactly where upstream's `schedule_one.go` and `preemption.go` do. The HTTP round
//! trip itself is the shell's: the core calls through [`ExtenderTransport`], a port that takes the
//! JSON request body and returns the reply body. The core stays free of sockets and clocks — a
//! call blocks the scheduling cycle for at most the extender's `httpTimeout`, as upstream's
//! synchronous call does — and every rule here is tested with a fake transport.
//!
//! - [`wire`]: the request and reply documents (Go field names, decoded case-insensitively as Go's
//!   `encoding/json` does).
//! - [`calls`]: findNodesThatPassExtenders, the prioritize part of prioritizeNodes, callExtenders
//!   (preemption) and extendersBinding.

pub mod calls;
pub mod wire;

use crate::core::api;
use crate::core::config::{Extender, Profile};
use serde::Serialize;
use std::collections::{BTreeMap, HashSet};
use std::sync::Arc;

pub use calls::{BindTarget, FilterVerdict};

/// Name under which extender rejections are recorded among a pod's unschedulable plugins
/// (`framework.ExtenderName`): any cluster event may requeue such a pod.
pub const EXTENDER_NAME: &str = "Extender";

/// `extenderv1.MaxExtenderPriority`: extenders score 0..=10.
pub const MAX_EXTENDER_PRIORITY: i64 = 10;

/// The one thing the core needs from the outside world to talk to an extender: POST a JSON body
/// to `<urlPrefix>/<verb>` of extender `index` (its position in the configuration) and return the
/// body of a `200 OK` reply. Any other outcome is an `Err` with upstream's wording (e.g.
/// `failed filter with extender at URL http://x/filter, code 500`, or the transport error).
pub trait ExtenderTransport: Send + Sync {
    fn post(&self, index: usize, verb: &str, body: &[u8]) -> Result<Vec<u8>, String>;

    /// Several independent calls — (extender index, verb, body) — answered in order. The shell
    /// makes them concurrently, as upstream's `prioritizeNodes` runs each prioritizer in its own
    /// goroutine; this default makes them one after another.
    fn post_many(&self, calls: &[(usize, &str, Vec<u8>)]) -> Vec<Result<Vec<u8>, String>> {
        calls.iter().map(|(i, verb, body)| self.post(*i, verb, body)).collect()
    }
}

/// One configured extender, with its managed resources as a set.
#[derive(Debug, Clone)]
pub struct ExtenderEntry {
    /// Position in `extenders` of the configuration (what [`ExtenderTransport::post`] receives).
    pub index: usize,
    pub config: Extender,
    managed: HashSet<String>,
}

impl ExtenderEntry {
    /// `HTTPExtender.Name()`: the URL prefix identifies an extender in logs and explanations.
    pub fn name(&self) -> &str {
        &self.config.url_prefix
    }

    /// `IsInterested`: an extender without managed resources wants every pod; otherwise only pods
    /// whose containers or init containers request or limit one of its resources.
    pub fn is_interested(&self, pod: &api::Pod) -> bool {
        if self.managed.is_empty() {
            return true;
        }
        pod.spec
            .containers
            .iter()
            .chain(pod.spec.init_containers.iter())
            .any(|c| c.resources.requests.keys().chain(c.resources.limits.keys()).any(|r| self.managed.contains(r.as_str())))
    }
}

/// The configured extenders and the transport that reaches them. Non-ignorable extenders come
/// first, ignorable ones last, as upstream's `buildExtenders` orders them.
#[derive(Clone)]
pub struct ExtenderSet {
    pub entries: Vec<ExtenderEntry>,
    pub transport: Arc<dyn ExtenderTransport>,
}

impl std::fmt::Debug for ExtenderSet {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list().entries(self.entries.iter().map(|e| e.name())).finish()
    }
}

impl ExtenderSet {
    /// Order the configured extenders and attach the transport; `None` without extenders.
    pub fn new(extenders: &[Extender], transport: Arc<dyn ExtenderTransport>) -> Option<ExtenderSet> {
        if extenders.is_empty() {
            return None;
        }
        let all = extenders.iter().enumerate().map(|(index, config)| ExtenderEntry {
            index,
            config: config.clone(),
            managed: config.managed_resources.iter().map(|r| r.name.clone()).collect(),
        });
        // Each group keeps the configured order.
        let (mut entries, ignorable): (Vec<ExtenderEntry>, Vec<ExtenderEntry>) = all.partition(|e| !e.config.ignorable);
        entries.extend(ignorable);
        Some(ExtenderSet { entries, transport })
    }

    /// `hasExtenderFilters`: some extender filters nodes.
    pub fn has_filters(&self) -> bool {
        self.entries.iter().any(|e| !e.config.filter_verb.is_empty())
    }

    /// Some extender scores nodes (`IsPrioritizer`).
    pub fn has_prioritizers(&self) -> bool {
        self.entries.iter().any(|e| !e.config.prioritize_verb.is_empty())
    }
}

/// The resources NodeResourcesFit must ignore because an extender manages them with
/// `ignoredByScheduler: true` (buildExtenders in pkg/scheduler/scheduler.go).
pub fn ignored_resources(extenders: &[Extender]) -> Vec<String> {
    extenders.iter().flat_map(|e| e.managed_resources.iter()).filter(|r| r.ignored_by_scheduler).map(|r| r.name.clone()).collect()
}

/// As upstream's `buildExtenders`: when extenders ignore resources, every profile's
/// NodeResourcesFit args get exactly those as `ignoredResources` (replacing what was configured,
/// "the extender ignored resources take precedence").
pub fn apply_ignored_resources(extenders: &[Extender], profiles: &mut [Profile]) {
    let ignored = ignored_resources(extenders);
    if ignored.is_empty() {
        return;
    }
    for p in profiles {
        for c in &mut p.plugin_config {
            if let crate::core::config::PluginArgs::NodeResourcesFit(args) = &mut c.args {
                args.ignored_resources = ignored.clone();
            }
        }
    }
}

/// What one extender said during one cycle, for `simulate` and `explain`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ExtenderNote {
    /// The extender's URL prefix.
    pub extender: String,
    /// `filter`, `prioritize`, `preempt` (the configured verb's role, not its path).
    pub call: &'static str,
    /// Nodes the extender kept (filter) or nominated for preemption (preempt).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub kept: Vec<String>,
    /// Node → reason, for nodes the extender filtered out.
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub failed: BTreeMap<String, String>,
    /// Node → the extender's 0–10 score (prioritize).
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub scores: BTreeMap<String, i64>,
    /// The call failed: why.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// The failure was ignored (ignorable extender, or any prioritize failure).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub ignored: bool,
}

#[cfg(test)]
mod tests;
