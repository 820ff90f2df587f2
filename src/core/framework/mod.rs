//! The scheduling framework: plugin traits, profiles built from configuration, and the cycle
//! (PreFilter → Filter → PostFilter → PreScore → Score → select host), following upstream's
//! `pkg/scheduler/framework/runtime/framework.go` and `pkg/scheduler/schedule_one.go`.
//!
//! Everything here is pure: the cycle reads the [`Cache`] and the pod, uses the random source it is
//! given, and returns a decision with the reasons behind it. The live scheduler, `simulate` and
//! `explain` all call the same [`Framework::schedule`].

pub mod api_writes;
pub mod binding;
pub mod cluster_events;
pub mod cycle;
pub mod instrument;
pub mod plugins;
pub mod pre_bind;
pub mod profile;
pub mod queued_pod;
pub mod registry;
pub mod status;
pub mod waiting;

pub use binding::{ApiFailure, ApiHandle, BindStatus};
pub use cluster_events::{ClusterEvent, EventMask, EventObject, QueueingHint};
pub use cycle::{NodeScores, ScheduleOutcome, ScheduleResult};
pub use profile::{Framework, ProfileError};
pub use status::{fit_error_message, Code, Diagnosis, Rejection};

use crate::core::cache::{Cache, NodeInfo};
use crate::core::model::PodInfo;
use std::any::Any;

/// Upper and lower bounds every normalised score must respect (`fwk.MaxNodeScore`).
pub const MAX_NODE_SCORE: i64 = 100;
pub const MIN_NODE_SCORE: i64 = 0;

/// Per-pod, per-plugin state computed at PreFilter/PreScore and read by Filter/Score.
pub type PluginState = Option<Box<dyn Any + Send>>;

/// Borrow a plugin's state as its concrete type.
#[inline(always)]
pub fn state_as<T: 'static>(state: &PluginState) -> Option<&T> {
    state.as_ref().and_then(|b| b.downcast_ref::<T>())
}

/// What a PreFilter plugin decided for a pod.
#[derive(Debug)]
pub enum PreFilterOutcome {
    /// Run this plugin's Filter on every candidate node.
    Continue,
    /// This plugin has nothing to check for the pod: skip its Filter.
    Skip,
    /// Only these nodes can possibly fit (e.g. `metadata.name In` node affinity).
    Nodes(Vec<Box<str>>),
    /// The pod cannot be scheduled anywhere.
    Reject(Rejection),
}

/// What a Permit plugin decided for a pod about to be bound (`Success`, `Wait`, rejection).
#[derive(Debug)]
pub enum PermitOutcome {
    Allow,
    /// Hold the pod (assumed on its node) until this plugin allows it, another plugin rejects
    /// it, or this long has passed (capped at 15 minutes), which rejects it.
    Wait(std::time::Duration),
    Reject(Rejection),
}

/// Whether a score plugin takes part for this pod.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PreScoreOutcome {
    Run,
    Skip,
}

/// Extension points a plugin implements (upstream: the Go interfaces a plugin type satisfies).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Points {
    pub pre_enqueue: bool,
    pub queue_sort: bool,
    pub pre_filter: bool,
    pub filter: bool,
    pub post_filter: bool,
    pub pre_score: bool,
    pub score: bool,
    /// The plugin normalises its raw scores (upstream `ScoreExtensions`).
    pub normalize: bool,
    pub reserve: bool,
    pub permit: bool,
    pub pre_bind: bool,
    pub bind: bool,
    pub post_bind: bool,
}

pub use api_writes::ApiWrite;
pub use instrument::Ticker;
pub use pre_bind::{ClaimReservation, PreBindAction, PreFlight};

/// What a PostFilter plugin (preemption) decided after the pod fit nowhere.
#[derive(Debug, Clone, Default)]
pub struct PostFilterResult {
    /// Node nominated for the pod (preemption victims are being evicted there).
    pub nominated_node: Option<Box<str>>,
    /// Pods to evict from the nominated node.
    pub victims: Vec<std::sync::Arc<crate::core::cache::AssignedPod>>,
    /// `None` when the plugin succeeded; otherwise why it could not help. Its message is appended
    /// to the FitError (e.g. `preemption: 0/3 nodes are available: ...`).
    pub rejection: Option<Rejection>,
    /// API writes the plugin asks for (DynamicResources deallocating a claim), performed by the
    /// shell after the cycle.
    pub writes: Vec<ApiWrite>,
}

impl PostFilterResult {
    /// The nominating info of a cycle that failed after the pod had fit somewhere, or because no
    /// node exists at all: the pod's nomination is cleared (upstream `clearNominatedNode`,
    /// schedule_one.go v1.35: `NominatingInfo{NominatingMode: ModeOverride, NominatedNodeName: ""}`,
    /// returned for ErrNoNodesAvailable, Reserve and Permit rejections and scheduling errors, and
    /// passed by `handleBindingCycleError`). The status patch clears the field only when the pod
    /// entered the cycle with one, as `updatePod` compares against that pod.
    pub fn clear_nominated_node() -> PostFilterResult {
        PostFilterResult { nominated_node: Some("".into()), ..PostFilterResult::default() }
    }
}

/// What PostFilter plugins need from the framework to simulate evictions: the cycle's PreFilter
/// state (cloneable per candidate node), the pod add/remove extensions, and the filters.
pub trait FilterRunner {
    /// The PreFilter states of this cycle (one slot per plugin).
    fn states(&self) -> &[PluginState];
    /// Deep-copy the states (for one candidate node).
    fn clone_states(&self, cache: &Cache, pod: &PodInfo, states: &[PluginState]) -> Vec<PluginState>;
    /// Tell every PreFilter plugin that `removed` left `node`.
    fn remove_pod(&self, states: &mut [PluginState], pod: &PodInfo, removed: &crate::core::cache::AssignedPod, node: &NodeInfo);
    /// Tell every PreFilter plugin that `added` joined `node`.
    fn add_pod(&self, states: &mut [PluginState], pod: &PodInfo, added: &crate::core::cache::AssignedPod, node: &NodeInfo);
    /// Run every Filter plugin against a (possibly modified) node.
    fn run_filters(&self, cache: &Cache, pod: &PodInfo, node: &NodeInfo, states: &[PluginState]) -> Result<(), Rejection>;
    /// The pods waiting at Permit (coscheduling PostFilters reject a failed group's waiting pods).
    fn waiting_pods(&self) -> Vec<waiting::WaitingPod> {
        Vec::new()
    }
    /// Reject a pod waiting at Permit; applied after the cycle.
    fn reject_waiting_pod(&self, _pod: &crate::core::model::PodKey, _plugin: &'static str, _message: String) {}
    /// Let the extenders that support preemption narrow the candidates (`callExtenders`); the
    /// error is a non-ignorable extender's failure.
    fn call_extenders(
        &self,
        _cache: &Cache,
        candidates: Vec<plugins::default_preemption::Candidate>,
    ) -> Result<Vec<plugins::default_preemption::Candidate>, String> {
        Ok(candidates)
    }
}

/// A scheduling plugin. Every method has a neutral default, so a plugin implements only the
/// extension points it declares in [`Plugin::points`].
pub trait Plugin: Send + Sync {
    /// The plugin's name as used in configuration (`NodeResourcesFit`).
    fn name(&self) -> &'static str;

    /// The extension points this plugin implements.
    fn points(&self) -> Points;

    /// Cluster events that can make a pod this plugin rejected (or gated at PreEnqueue)
    /// schedulable (upstream `EnqueueExtensions.EventsToRegister`). Other events leave the pod
    /// in the unschedulable pool.
    fn events(&self) -> EventMask {
        EventMask::ALL
    }

    /// Queueing hint for one of [`Plugin::events`]: whether this event may make `pod`, which
    /// this plugin rejected, schedulable (upstream `QueueingHintFn`). The default queues on
    /// every registered event, as a registration without a hint function does upstream. Called
    /// by the scheduling queue on the scheduler thread: keep it cheap.
    fn queueing_hint(&self, _event: &ClusterEvent<'_>, _pod: &PodInfo) -> QueueingHint {
        QueueingHint::Queue
    }

    /// [`Plugin::queueing_hint`] with the cache, for hints that look objects up
    /// (DynamicResources finds the pod's claims). The framework calls this; the default calls
    /// `queueing_hint`.
    fn queueing_hint_in(&self, _cache: &Cache, event: &ClusterEvent<'_>, pod: &PodInfo) -> QueueingHint {
        self.queueing_hint(event, pod)
    }

    /// QueueSort: whether `a` is scheduled before `b` (upstream `QueueSortPlugin.Less`). Only
    /// the first profile's queue-sort plugin orders the one queue (every profile must name the
    /// same, as upstream requires); PrioritySort's order is used when that is PrioritySort.
    fn less(&self, _a: &queued_pod::QueuedPod, _b: &queued_pod::QueuedPod) -> bool {
        false
    }

    /// PreEnqueue: may the pod enter the active queue at all? (SchedulingGates). A rejected pod
    /// waits gated until an event this plugin registered for ([`Plugin::events`],
    /// [`Plugin::queueing_hint`]) or an update of the pod itself. `cache` shows the assigned
    /// pods and, when some out-of-tree plugin is enabled, the pending ones
    /// ([`Cache::pending_pods`]).
    fn pre_enqueue(&self, _cache: &Cache, _pod: &PodInfo) -> Result<(), Rejection> {
        Ok(())
    }

    /// The incrementally kept counts ([`crate::core::cache::tally`]) this plugin's PreFilter and
    /// PreScore will look up for `pod`; the scheduler registers them before the cycle. A plugin
    /// finding none computes the same counts by walking the pods.
    fn tallies(&self, _cache: &Cache, _pod: &PodInfo, _out: &mut Vec<crate::core::cache::tally::TallyKey>) {}

    /// PreFilter: per-pod preparation, node-set restriction or early rejection.
    fn pre_filter(&self, _cache: &Cache, _pod: &PodInfo, _state: &mut PluginState) -> PreFilterOutcome {
        PreFilterOutcome::Continue
    }

    /// Copy this plugin's PreFilter state, so preemption can simulate removing pods per candidate
    /// node without disturbing the cycle's own state. Plugins whose state never changes after
    /// PreFilter can keep the default (no state to copy).
    fn clone_state(&self, _state: &PluginState) -> PluginState {
        None
    }

    /// PreFilter extension: account a pod added to a node during preemption simulation.
    fn add_pod(&self, _state: &mut PluginState, _pod: &PodInfo, _added: &crate::core::cache::AssignedPod, _node: &NodeInfo) {}

    /// PreFilter extension: account a pod removed from a node during preemption simulation.
    fn remove_pod(&self, _state: &mut PluginState, _pod: &PodInfo, _removed: &crate::core::cache::AssignedPod, _node: &NodeInfo) {
    }

    /// Filter: can the pod run on this node?
    fn filter(&self, _cache: &Cache, _pod: &PodInfo, _node: &NodeInfo, _state: &PluginState) -> Result<(), Rejection> {
        Ok(())
    }

    /// Filter with the cycle's time source (`None`: no time limit applies, as in `simulate`),
    /// for plugins that bound how long one node may take (DynamicResources' `filterTimeout`).
    /// The framework calls this; the default ignores the clock and calls [`Plugin::filter`].
    fn filter_timed(
        &self,
        cache: &Cache,
        pod: &PodInfo,
        node: &NodeInfo,
        state: &PluginState,
        _clock: Option<&dyn Ticker>,
    ) -> Result<(), Rejection> {
        self.filter(cache, pod, node, state)
    }

    /// PostFilter: try to make the pod schedulable later (preemption).
    fn post_filter(
        &self,
        _cache: &Cache,
        _pod: &PodInfo,
        _diagnosis: &Diagnosis,
        _runner: &dyn FilterRunner,
        _rng: &mut crate::core::rng::Rng,
    ) -> PostFilterResult {
        PostFilterResult::default()
    }

    /// PreScore: per-pod preparation for scoring over the feasible nodes.
    fn pre_score(&self, _cache: &Cache, _pod: &PodInfo, _nodes: &[&NodeInfo], _state: &mut PluginState) -> PreScoreOutcome {
        PreScoreOutcome::Run
    }

    /// Score one feasible node (raw score; see [`Plugin::normalize`]).
    fn score(&self, _cache: &Cache, _pod: &PodInfo, _node: &NodeInfo, _state: &PluginState) -> Result<i64, Rejection> {
        Ok(0)
    }

    /// Turn raw scores into 0..=100 (only called when `points().normalize`).
    fn normalize(&self, _pod: &PodInfo, _scores: &mut [i64], _state: &PluginState) {}

    /// Reserve: plan the API writes needed before binding to `node` (PreBind). A rejection here
    /// makes the attempt fail as unschedulable on that node.
    fn reserve(
        &self,
        _cache: &Cache,
        _pod: &PodInfo,
        _node: &NodeInfo,
        _state: &PluginState,
    ) -> Result<Vec<PreBindAction>, Rejection> {
        Ok(Vec::new())
    }

    /// Permit: allow the pod to be bound to `node`, make it wait, or reject it. `waiting` shows
    /// the pods already waiting and lets the plugin allow or reject them.
    fn permit(
        &self,
        _cache: &Cache,
        _pod: &PodInfo,
        _node: &NodeInfo,
        _state: &PluginState,
        _waiting: &mut waiting::WaitingHandle<'_>,
    ) -> PermitOutcome {
        PermitOutcome::Allow
    }

    /// Unreserve: the pod reserved on `node` will not be bound there after all (a later Reserve
    /// or a Permit rejected it, its wait at Permit ended in rejection, or PreBind/Bind failed).
    /// Called on every Reserve plugin in reverse order, as upstream's
    /// `RunReservePluginsUnreserve`; must be idempotent. `waiting` lets the plugin reject the
    /// pod's waiting siblings.
    fn unreserve(&self, _cache: &Cache, _pod: &PodInfo, _node: &str, _waiting: &mut waiting::WaitingHandle<'_>) {}

    /// Unreserve's API writes (upstream plugins call the API server there; the core cannot):
    /// what the shell writes because the pod will not be bound on `node` after all. Called right
    /// after [`Plugin::unreserve`], with the cache as the binding left it; the default writes
    /// nothing.
    fn unreserve_writes(&self, _cache: &Cache, _pod: &PodInfo, _node: &str) -> Vec<ApiWrite> {
        Vec::new()
    }

    /// PreBindPreFlight (upstream v1.35): whether this plugin's [`Plugin::pre_bind`] has work
    /// for `pod` on `node`, asked of the profile's PreBind plugins once the pod passed Permit;
    /// `planned` are the PreBind writes the Reserve plugins planned for it. Lightweight and
    /// pure: no API call. Only [`PreFlight::Work`] and [`PreFlight::Skip`] exist (upstream may
    /// also fail here; nothing a pure plugin decides can). A plugin answering Skip is not called
    /// at PreBind for that pod. Asked only with the `NominatedNodeNameForExpectation` gate on (as
    /// upstream). The default says there is work, as upstream's PreBind plugins without anything
    /// to decide answer Success.
    fn pre_bind_pre_flight(&self, _cache: &Cache, _pod: &PodInfo, _node: &str, _planned: &[PreBindAction]) -> PreFlight {
        PreFlight::Work
    }

    /// PreBind (binding cycle, on a binder thread; see [`binding`]): prepare the API objects the
    /// pod needs on `node`. An error fails the binding: the pod is unreserved and retried.
    fn pre_bind(&self, _api: &dyn ApiHandle, _pod: &PodInfo, _node: &str) -> Result<(), String> {
        Ok(())
    }

    /// Bind (binding cycle): bind the pod, or [`BindStatus::Skip`] to let the next Bind plugin
    /// (the DefaultBinder by default) do it.
    fn bind(&self, _api: &dyn ApiHandle, _pod: &PodInfo, _node: &str) -> BindStatus {
        BindStatus::Skip
    }

    /// PostBind (binding cycle): informational, after the pod was bound.
    fn post_bind(&self, _api: &dyn ApiHandle, _pod: &PodInfo, _node: &str) {}
}
