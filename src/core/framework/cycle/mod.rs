//! One scheduling cycle for one pod: PreFilter, Filter over a rotating sample of nodes, PostFilter
//! when nothing fits, PreScore/Score/normalise/weight, and a uniformly random choice among the best
//! nodes (pkg/scheduler/schedule_one.go: `schedulePod`, `findNodesThatFitPod`,
//! `numFeasibleNodesToFind`, `prioritizeNodes`).

use super::filter_walk::{Walk, WalkInput};
use super::instrument::{point, status_label, CycleRecorder, Rec, SKIP};
use super::plugins::default_preemption::Candidate;
use super::status::{fit_error_message, Code, Diagnosis, Rejection};
use super::waiting::{WaitingAction, WaitingHandle, WaitingPods, MAX_PERMIT_WAIT};
use super::PermitOutcome;
use super::{Framework, PluginState, PostFilterResult, PreFilterOutcome, PreScoreOutcome, MAX_NODE_SCORE, MIN_NODE_SCORE};
use crate::core::cache::{AssignedPod, Cache, NodeId, NodeInfo};
use crate::core::extender::{ExtenderNote, ExtenderSet, EXTENDER_NAME};
use crate::core::model::PodInfo;
use crate::core::rng::Rng;
use crate::core::texts::framework as texts;

/// `minFeasibleNodesToFind`.
const MIN_FEASIBLE_NODES_TO_FIND: usize = 100;
/// `minFeasibleNodesPercentageToFind`.
const MIN_FEASIBLE_NODES_PERCENTAGE_TO_FIND: i64 = 5;
/// `ErrNoNodesAvailable` (declared in [`crate::core::texts`]; re-exported for the scheduler core).
pub use crate::core::texts::framework::NO_NODES_AVAILABLE;

/// Inputs that live across cycles.
pub struct CycleParams<'a> {
    /// Where the next cycle starts walking the node list (shared by all profiles, as upstream).
    pub next_start_node_index: &'a mut usize,
    /// The global `percentageOfNodesToScore` (0 = adaptive).
    pub percentage_of_nodes_to_score: i32,
    pub rng: &'a mut Rng,
    /// Which nodes' per-plugin scores to keep (for `simulate`/`explain`).
    pub explain: Explain,
    /// The configured extenders and the pod as they receive it (`None` without extenders).
    pub extenders: Option<CycleExtenders<'a>>,
    /// Pods waiting at Permit, shown to Permit and PostFilter plugins (`None`: nobody waits).
    pub waiting: Option<&'a WaitingPods>,
}

/// Which feasible nodes' per-plugin scores a cycle keeps. The scores of every plugin are kept
/// for all nodes in one flat table while the cycle runs; only the kept nodes become
/// [`NodeScores`], so `simulate --top 5` on a large cluster does not build thousands of them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Explain {
    /// None (the live scheduler).
    #[default]
    Off,
    /// Every feasible node.
    All,
    /// The best N by total, ties by node name (the order `simulate` prints them in).
    Top(usize),
}

/// What a cycle needs to consult the extenders (see [`crate::core::extender`]).
pub struct CycleExtenders<'a> {
    pub set: &'a ExtenderSet,
    pub pod: &'a crate::core::api::Pod,
    /// The pod's JSON document, built once per cycle.
    pub doc: serde_json::Value,
}

impl<'a> CycleExtenders<'a> {
    pub fn new(set: &'a ExtenderSet, pod: &'a crate::core::api::Pod) -> CycleExtenders<'a> {
        CycleExtenders { set, pod, doc: crate::core::extender::calls::pod_document(pod) }
    }

    /// `findNodesThatPassExtenders` over `feasible`, recording the extenders' verdicts in the
    /// diagnosis; a pod some extender narrowed counts [`EXTENDER_NAME`] among its rejectors.
    fn filter<'n>(&self, feasible: Vec<&'n NodeInfo>, diagnosis: &mut Diagnosis) -> Result<Vec<&'n NodeInfo>, String> {
        let verdict = self.set.filter(self.pod, &self.doc, &feasible, &mut diagnosis.extender_notes)?;
        for (node, r) in verdict.statuses {
            diagnosis.node_to_status.insert(node.into(), r);
        }
        if verdict.kept.len() != feasible.len() {
            diagnosis.add_plugin(EXTENDER_NAME);
        }
        Ok(verdict.kept.iter().map(|&i| feasible[i]).collect())
    }
}

/// A successful placement.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ScheduleResult {
    pub node: Box<str>,
    pub evaluated_nodes: usize,
    pub feasible_nodes: usize,
}

/// Scores of one feasible node: weighted total and each plugin's normalised (unweighted) score.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NodeScores {
    pub node: Box<str>,
    pub total: i64,
    pub plugins: Vec<(&'static str, i64)>,
}

/// The result of a cycle, with everything needed to explain it.
#[derive(Debug, Clone)]
pub enum ScheduleOutcome {
    Scheduled {
        result: ScheduleResult,
        /// API writes to perform before binding (from Reserve plugins), in order.
        pre_bind: Vec<super::PreBindAction>,
        /// Nodes rejected by filters on the way (evaluated but infeasible).
        diagnosis: Diagnosis,
        /// Filled when `explain` is set and more than one node was feasible.
        scores: Vec<NodeScores>,
        /// Permit plugins that asked the pod to wait, and for how long (empty: bind now).
        permit_wait: Vec<(&'static str, std::time::Duration)>,
    },
    /// No node fits. `message` is the FitError text (events and the PodScheduled condition).
    Unschedulable { num_all_nodes: usize, diagnosis: Diagnosis, post_filter: PostFilterResult, message: String },
    /// Something other than the pod's requirements went wrong (reason `SchedulerError`).
    Error { message: String, diagnosis: Diagnosis },
}

/// The filters' rejections (walk order) into `diagnosis.node_to_status`, keyed by node name.
fn statuses_into(cache: &Cache, mut rejected: Vec<(NodeId, Rejection)>, diagnosis: &mut Diagnosis) {
    if diagnosis.node_to_status.is_empty() {
        // Sorted by the cache's name rank first (integer compares), the map's own sort of its
        // input only confirms the order.
        rejected.sort_unstable_by_key(|(id, _)| cache.name_rank(*id));
    }
    let named = rejected.into_iter().map(|(id, r)| (cache.node(id).node.name.clone(), r));
    if diagnosis.node_to_status.is_empty() {
        diagnosis.node_to_status = named.collect();
    } else {
        diagnosis.node_to_status.extend(named);
    }
}

/// `numFeasibleNodesToFind`: how many feasible nodes are enough to stop filtering.
pub fn num_feasible_nodes_to_find(percentage: i32, num_all_nodes: usize) -> usize {
    if num_all_nodes < MIN_FEASIBLE_NODES_TO_FIND {
        return num_all_nodes;
    }
    let mut pct = i64::from(percentage);
    if pct == 0 {
        pct = 50 - num_all_nodes as i64 / 125;
        if pct < MIN_FEASIBLE_NODES_PERCENTAGE_TO_FIND {
            pct = MIN_FEASIBLE_NODES_PERCENTAGE_TO_FIND;
        }
    }
    let num = (num_all_nodes as i64 * pct / 100) as usize;
    num.max(MIN_FEASIBLE_NODES_TO_FIND)
}

#[derive(Default)]
struct PreFilterRun {
    restricted: Option<Vec<Box<str>>>,
    plugins_with_nodes: Vec<&'static str>,
    rejection: Option<Rejection>,
}

struct CycleState {
    states: Vec<PluginState>,
    /// Plugins whose Filter is skipped for this pod (PreFilter returned Skip).
    skip_filter: Vec<bool>,
    skip_score: Vec<bool>,
}

impl Framework {
    /// RunPreFilterPlugins (framework/runtime/framework.go): an Unresolvable rejection stops at
    /// once; an Unschedulable one is remembered while the remaining PreFilters still run (their
    /// state is needed by preemption); node-set restrictions are intersected.
    fn run_pre_filter(&self, cache: &Cache, pod: &PodInfo, cs: &mut CycleState, rec: Rec<'_>) -> PreFilterRun {
        let start = rec.start();
        let run = self.pre_filter_plugins(cache, pod, cs, rec);
        rec.point(point::PRE_FILTER, status_label(run.rejection.as_ref().map(|r| r.code)), start);
        run
    }

    fn pre_filter_plugins(&self, cache: &Cache, pod: &PodInfo, cs: &mut CycleState, rec: Rec<'_>) -> PreFilterRun {
        let mut run = PreFilterRun::default();
        for &i in &self.pre_filter {
            let pl = &self.plugins[i];
            let state = &mut cs.states[i];
            let outcome = rec.plugin(
                i,
                pl.name(),
                point::PRE_FILTER,
                || pl.pre_filter(cache, pod, state),
                |o| match o {
                    PreFilterOutcome::Skip => SKIP,
                    PreFilterOutcome::Reject(r) => status_label(Some(r.code)),
                    PreFilterOutcome::Continue | PreFilterOutcome::Nodes(_) => status_label(None),
                },
            );
            match outcome {
                PreFilterOutcome::Continue => {}
                PreFilterOutcome::Skip => cs.skip_filter[i] = true,
                PreFilterOutcome::Reject(r) => {
                    let r = r.with_plugin(pl.name());
                    match r.code {
                        Code::UnschedulableAndUnresolvable => {
                            run.rejection = Some(r);
                            return run;
                        }
                        Code::Unschedulable => {
                            run.rejection = Some(r);
                        }
                        Code::Error => {
                            run.rejection = Some(
                                Rejection::error(texts::prefilter_plugin_error(pl.name(), &r.message())).with_plugin(pl.name()),
                            );
                            return run;
                        }
                    }
                }
                PreFilterOutcome::Nodes(names) => {
                    // In PreFilter order, as upstream's `pluginsWithNodes`.
                    if !run.plugins_with_nodes.contains(&pl.name()) {
                        run.plugins_with_nodes.push(pl.name());
                    }
                    let merged = match run.restricted.take() {
                        None => names,
                        Some(prev) => prev.into_iter().filter(|n| names.contains(n)).collect(),
                    };
                    if merged.is_empty() {
                        let msg = if run.plugins_with_nodes.len() == 1 {
                            texts::didnt_satisfy_plugin(run.plugins_with_nodes[0])
                        } else {
                            texts::didnt_satisfy_plugins_simultaneously(&run.plugins_with_nodes)
                        };
                        run.rejection = Some(Rejection::unresolvable(msg).with_plugin(pl.name()));
                        return run;
                    }
                    run.restricted = Some(merged);
                }
            }
        }
        run
    }

    /// Run the Filter plugins on one node; the first rejection stops (RunFilterPlugins).
    /// [`Framework::walk_whole_lists`] does the same for many nodes at once.
    fn run_filters(
        &self,
        cache: &Cache,
        pod: &PodInfo,
        node: &NodeInfo,
        states: &[PluginState],
        skip: &[bool],
        rec: Rec<'_>,
    ) -> Result<(), Rejection> {
        let filters = || {
            for &i in &self.filter {
                if skip[i] {
                    continue;
                }
                let pl = &self.plugins[i];
                let filtered = match rec.0 {
                    // Not measured: the plugin's name is needed only when it rejects.
                    None => pl.filter(cache, pod, node, &states[i]),
                    Some(_) => rec.plugin(
                        i,
                        pl.name(),
                        point::FILTER,
                        || pl.filter(cache, pod, node, &states[i]),
                        |r| status_label(r.as_ref().err().map(|r| r.code)),
                    ),
                };
                filtered.map_err(|r| r.with_plugin(pl.name()))?;
            }
            Ok(())
        };
        rec.chain(true);
        let filtered = filters();
        rec.chain(false);
        filtered
    }

    /// Copy the PreFilter states: through each plugin's `clone_state`, or — for a plugin that
    /// keeps state but does not implement it — by running its PreFilter again (same inputs, same
    /// state), so simulations never see a missing state.
    pub(crate) fn copy_states(&self, cache: &Cache, pod: &PodInfo, states: &[PluginState]) -> Vec<PluginState> {
        states
            .iter()
            .enumerate()
            .map(|(i, s)| {
                let copied = self.plugins[i].clone_state(s);
                if copied.is_none() && s.is_some() {
                    let mut fresh: PluginState = None;
                    let _ = self.plugins[i].pre_filter(cache, pod, &mut fresh);
                    fresh
                } else {
                    copied
                }
            })
            .collect()
    }

    /// RunFilterPluginsWithNominatedPods: when pods of higher or equal priority are nominated to
    /// the node, the filters first run as if those pods were already there (so lower-priority
    /// pods cannot take the room preemption is freeing), then again without them (filters such
    /// as inter-pod affinity may only pass without them).
    pub(super) fn filter_node(
        &self,
        cache: &Cache,
        pod: &PodInfo,
        node: &NodeInfo,
        states: &[PluginState],
        skip: &[bool],
        rec: Rec<'_>,
    ) -> Result<(), Rejection> {
        if cache.nominations().any() {
            let nominated: Vec<&std::sync::Arc<PodInfo>> = cache
                .nominations()
                .pods_on(node.name())
                .iter()
                .filter(|p| p.key != pod.key && p.priority >= pod.priority)
                .collect();
            if !nominated.is_empty() {
                let mut with = node.clone();
                let mut with_states = self.copy_states(cache, pod, states);
                for p in nominated {
                    let added = std::sync::Arc::new(AssignedPod::from_pod(p, node.name()));
                    with.add_pod(added.clone());
                    self.pre_filter_extension(&mut with_states, pod, &added, &with, skip, rec, true);
                }
                self.run_filters(cache, pod, &with, &with_states, skip, rec)?;
            }
        }
        self.run_filters(cache, pod, node, states, skip, rec)
    }

    /// RunPreFilterExtensionAddPod / RemovePod: tell every PreFilter plugin (not skipped) that
    /// `changed` joined (`added`) or left `node`.
    #[allow(clippy::too_many_arguments)]
    fn pre_filter_extension(
        &self,
        states: &mut [PluginState],
        pod: &PodInfo,
        changed: &AssignedPod,
        node: &NodeInfo,
        skip: &[bool],
        rec: Rec<'_>,
        added: bool,
    ) {
        let point = if added { point::PRE_FILTER_ADD_POD } else { point::PRE_FILTER_REMOVE_POD };
        for &i in &self.pre_filter {
            if !skip[i] {
                let pl = &self.plugins[i];
                let state = &mut states[i];
                let call = || {
                    if added {
                        pl.add_pod(state, pod, changed, node)
                    } else {
                        pl.remove_pod(state, pod, changed, node)
                    }
                };
                rec.plugin(i, pl.name(), point, call, |_| status_label(None));
            }
        }
    }

    /// The tallies the PreFilter and PreScore plugins will read for `pod` (register them with
    /// `Cache::ensure_tallies` before [`Framework::schedule`]).
    pub fn tallies(&self, cache: &Cache, pod: &PodInfo) -> Vec<crate::core::cache::tally::TallyKey> {
        let mut out = Vec::new();
        let mut seen: Vec<usize> = Vec::new();
        for &i in self.pre_filter.iter().chain(self.pre_score.iter()) {
            if !seen.contains(&i) {
                seen.push(i);
                self.plugins[i].tallies(cache, pod, &mut out);
            }
        }
        out
    }

    /// Schedule one pod against the cache. Pure: reads the cache, returns the decision.
    pub fn schedule(&self, cache: &Cache, pod: &PodInfo, params: &mut CycleParams) -> ScheduleOutcome {
        self.schedule_recorded(cache, pod, params, None)
    }

    /// [`Framework::schedule`], measuring the cycle into `recorder` (the live scheduler's metrics).
    pub fn schedule_recorded(
        &self,
        cache: &Cache,
        pod: &PodInfo,
        params: &mut CycleParams,
        recorder: Option<&CycleRecorder<'_>>,
    ) -> ScheduleOutcome {
        let rec = Rec(recorder);
        let mut diagnosis = Diagnosis::default();
        let all_nodes = cache.node_order_snapshot();
        if all_nodes.is_empty() {
            diagnosis.absent_nodes_status = Some(Rejection::unresolvable(NO_NODES_AVAILABLE));
            return ScheduleOutcome::Unschedulable {
                num_all_nodes: 0,
                diagnosis,
                post_filter: PostFilterResult::default(),
                message: NO_NODES_AVAILABLE.to_string(),
            };
        }
        let n = self.plugins.len();
        let mut cs =
            CycleState { states: (0..n).map(|_| None).collect(), skip_filter: vec![false; n], skip_score: vec![false; n] };

        let pre = self.run_pre_filter(cache, pod, &mut cs, rec);
        for p in &pre.plugins_with_nodes {
            diagnosis.add_plugin(p);
        }
        if let Some(r) = pre.rejection {
            if r.code == Code::Error {
                return ScheduleOutcome::Error { message: r.message(), diagnosis };
            }
            diagnosis.pre_filter_msg = r.message();
            diagnosis.add_plugin(r.plugin);
            diagnosis.absent_nodes_status = Some(r);
            return self.fit_error(cache, pod, diagnosis, &cs, params, rec);
        }
        let restricted = pre.restricted;

        // A nominated node (from an earlier preemption) is tried first; if it fits, it is the answer.
        if !pod.nominated_node_name.is_empty() {
            if let Some(node) = cache.node_by_name(&pod.nominated_node_name) {
                if self.filter_node(cache, pod, node, &cs.states, &cs.skip_filter, rec).is_ok() {
                    // evaluateNominatedNode: the extenders have their say on the nominated node too.
                    let passed = match &params.extenders {
                        None => true,
                        Some(x) => {
                            let mut d = Diagnosis::default();
                            let kept = x.filter(vec![node], &mut d);
                            diagnosis.extender_notes.append(&mut d.extender_notes);
                            kept.is_ok_and(|k| !k.is_empty())
                        }
                    };
                    if passed {
                        let result = ScheduleResult { node: (*node.node.name).into(), evaluated_nodes: 1, feasible_nodes: 1 };
                        return self.reserve_on(cache, pod, &cs, result, diagnosis, Vec::new(), params.waiting, rec);
                    }
                }
            }
        }

        let restricted_ids: Vec<NodeId>;
        let nodes: &[NodeId] = match &restricted {
            None => all_nodes,
            Some(names) => {
                // Names to ids once, then the snapshot's order kept (integer compares, not names).
                let ids: Vec<NodeId> = names.iter().filter_map(|nm| cache.node_id(nm)).collect();
                // One node (a daemonset pod's `metadata.name` field selector) has one order: only
                // that node is evaluated, as upstream's findNodesThatFitPod (schedule_one.go)
                // takes just the PreFilterResult's nodes from the snapshot. Every known node is in
                // the order, so no walk over the cluster is needed for it.
                restricted_ids =
                    if ids.len() <= 1 { ids } else { all_nodes.iter().copied().filter(|id| ids.contains(id)).collect() };
                // Sorted, as upstream's `sets.List(unscheduledPlugins)`.
                let mut plugins = pre.plugins_with_nodes.clone();
                plugins.sort_unstable();
                diagnosis.absent_nodes_status = Some(Rejection::unresolvable(texts::didnt_satisfy_plugins(&plugins)));
                &restricted_ids
            }
        };

        let ext_set = params.extenders.as_ref().map(|x| x.set);
        let has_scoring = !self.score.is_empty() || ext_set.is_some_and(ExtenderSet::has_prioritizers);
        let mut num_to_find = num_feasible_nodes_to_find(
            self.percentage_of_nodes_to_score.unwrap_or(params.percentage_of_nodes_to_score),
            nodes.len(),
        );
        if !has_scoring && !ext_set.is_some_and(ExtenderSet::has_filters) {
            num_to_find = 1;
        }
        let start = *params.next_start_node_index;
        let input = WalkInput { cache, pod, nodes, start, num_to_find, states: &cs.states, skip: &cs.skip_filter, rec };
        let walk = self.walk_filters(input, &mut diagnosis);
        // Rejections in walk order (node ids, reasons inline): turned into the name-ordered map
        // once, and only when something reads it (see `statuses_into`).
        let Walk { mut feasible, failed, rejected, error } = walk;
        let processed = feasible.len() + failed;
        *params.next_start_node_index = (start + processed) % all_nodes.len();
        if let Some(message) = error {
            statuses_into(cache, rejected, &mut diagnosis);
            return ScheduleOutcome::Error { message, diagnosis };
        }
        if let Some(x) = &params.extenders {
            feasible = match x.filter(feasible, &mut diagnosis) {
                Ok(kept) => kept,
                Err(message) => {
                    statuses_into(cache, rejected, &mut diagnosis);
                    return ScheduleOutcome::Error { message, diagnosis };
                }
            };
        }
        // The extenders' rejections are in the map already; the filters' are counted apart.
        let evaluated = feasible.len() + failed + diagnosis.node_to_status.len();
        if feasible.is_empty() {
            statuses_into(cache, rejected, &mut diagnosis);
            return self.fit_error(cache, pod, diagnosis, &cs, params, rec);
        }
        // A placed pod's per-node statuses are read only to explain the cycle: upstream's
        // ScheduleResult keeps just the counts, and the live scheduler drops them. Building the
        // name-ordered map for thousands of rejected nodes per placed pod cost more than the
        // filters themselves when one node in thousands fits (SchedulingWithExtendedResource).
        if params.explain != Explain::Off {
            statuses_into(cache, rejected, &mut diagnosis);
        }
        if feasible.len() == 1 {
            let result = ScheduleResult { node: (*feasible[0].node.name).into(), evaluated_nodes: evaluated, feasible_nodes: 1 };
            return self.reserve_on(cache, pod, &cs, result, diagnosis, Vec::new(), params.waiting, rec);
        }

        let explain = params.explain != Explain::Off;
        let mut scores = match self.prioritize(cache, pod, &feasible, &mut cs, explain, params.extenders.is_some(), rec) {
            Ok(s) => s,
            Err(message) => return ScheduleOutcome::Error { message, diagnosis },
        };
        if let Some(x) = &params.extenders {
            let extra = x.set.prioritize(x.pod, &x.doc, &feasible, &mut diagnosis.extender_notes);
            for (k, add) in extra.into_iter().enumerate() {
                scores.totals[k] = scores.totals[k].saturating_add(add);
            }
        }
        let explained = scores.kept(&feasible, params.explain);
        let chosen = select_host(&scores.totals, params.rng);
        self.scratch.borrow_mut().totals = std::mem::take(&mut scores.totals);
        let result = ScheduleResult {
            node: (*feasible[chosen].node.name).into(),
            evaluated_nodes: evaluated,
            feasible_nodes: feasible.len(),
        };
        self.reserve_on(cache, pod, &cs, result, diagnosis, explained, params.waiting, rec)
    }

    /// Reserve on the chosen node: collect the PreBind actions; a rejection turns the attempt
    /// into a FitError on that single node (as upstream's Reserve failure handling).
    #[allow(clippy::too_many_arguments)]
    fn reserve_on(
        &self,
        cache: &Cache,
        pod: &PodInfo,
        cs: &CycleState,
        result: ScheduleResult,
        diagnosis: Diagnosis,
        scores: Vec<NodeScores>,
        waiting: Option<&WaitingPods>,
        rec: Rec<'_>,
    ) -> ScheduleOutcome {
        let node = result.node.clone();
        let mut outcome = {
            let start = rec.start();
            let outcome = self.reserve_plugins(cache, pod, cs, result, diagnosis, scores, rec);
            let status = match &outcome {
                ScheduleOutcome::Scheduled { .. } => status_label(None),
                ScheduleOutcome::Unschedulable { .. } => status_label(Some(Code::Unschedulable)),
                ScheduleOutcome::Error { .. } => status_label(Some(Code::Error)),
            };
            rec.point(point::RESERVE, status, start);
            match outcome {
                ScheduleOutcome::Scheduled { result, pre_bind, diagnosis, scores, .. } if !self.permit.is_empty() => {
                    let start = rec.start();
                    let outcome = self.permit(cache, pod, cs, result, pre_bind, diagnosis, scores, waiting, rec);
                    let status = match &outcome {
                        ScheduleOutcome::Scheduled { permit_wait, .. } if !permit_wait.is_empty() => point::WAIT,
                        ScheduleOutcome::Scheduled { .. } => status_label(None),
                        ScheduleOutcome::Unschedulable { .. } => status_label(Some(Code::Unschedulable)),
                        ScheduleOutcome::Error { .. } => status_label(Some(Code::Error)),
                    };
                    rec.point(point::PERMIT, status, start);
                    outcome
                }
                other => other,
            }
        };
        // A Reserve or Permit rejection or error: RunReservePluginsUnreserve (schedule_one.go).
        if let ScheduleOutcome::Unschedulable { diagnosis, .. } | ScheduleOutcome::Error { diagnosis, .. } = &mut outcome {
            if !self.reserve.is_empty() {
                diagnosis.waiting_actions.extend(self.unreserve(cache, pod, &node, waiting));
            }
        }
        outcome
    }

    /// RunPermitPlugins: a rejection makes the attempt a FitError on the chosen node, an error a
    /// SchedulerError; plugins asking to wait (each capped at 15 minutes) hold the pod.
    #[allow(clippy::too_many_arguments)]
    fn permit(
        &self,
        cache: &Cache,
        pod: &PodInfo,
        cs: &CycleState,
        result: ScheduleResult,
        pre_bind: Vec<super::PreBindAction>,
        mut diagnosis: Diagnosis,
        scores: Vec<NodeScores>,
        waiting: Option<&WaitingPods>,
        rec: Rec<'_>,
    ) -> ScheduleOutcome {
        let mut permit_wait = Vec::new();
        let Some(node) = cache.node_by_name(&result.node) else {
            return ScheduleOutcome::Scheduled { result, pre_bind, diagnosis, scores, permit_wait };
        };
        let mut handle = WaitingHandle::new(waiting);
        for &i in &self.permit {
            let pl = &self.plugins[i];
            let outcome = rec.plugin(
                i,
                pl.name(),
                point::PERMIT,
                || pl.permit(cache, pod, node, &cs.states[i], &mut handle),
                |o| match o {
                    PermitOutcome::Reject(r) => status_label(Some(r.code)),
                    PermitOutcome::Wait(_) => point::WAIT,
                    PermitOutcome::Allow => status_label(None),
                },
            );
            diagnosis.waiting_actions.extend(handle.take_actions());
            match outcome {
                PermitOutcome::Allow => {}
                PermitOutcome::Wait(d) => permit_wait.push((pl.name(), d.min(MAX_PERMIT_WAIT))),
                PermitOutcome::Reject(r) if r.code == Code::Error => {
                    return ScheduleOutcome::Error { message: texts::permit_plugin_error(pl.name(), &r.message()), diagnosis };
                }
                PermitOutcome::Reject(r) => {
                    let mut d =
                        Diagnosis { waiting_actions: std::mem::take(&mut diagnosis.waiting_actions), ..Default::default() };
                    d.add_plugin(pl.name());
                    d.node_to_status.insert((*result.node).into(), r.with_plugin(pl.name()));
                    let message = fit_error_message(1, &d);
                    return ScheduleOutcome::Unschedulable {
                        num_all_nodes: 1,
                        diagnosis: d,
                        post_filter: PostFilterResult::default(),
                        message,
                    };
                }
            }
        }
        ScheduleOutcome::Scheduled { result, pre_bind, diagnosis, scores, permit_wait }
    }

    #[allow(clippy::too_many_arguments)]
    fn reserve_plugins(
        &self,
        cache: &Cache,
        pod: &PodInfo,
        cs: &CycleState,
        result: ScheduleResult,
        mut diagnosis: Diagnosis,
        scores: Vec<NodeScores>,
        rec: Rec<'_>,
    ) -> ScheduleOutcome {
        let mut pre_bind = Vec::new();
        if let Some(node) = cache.node_by_name(&result.node) {
            for &i in &self.reserve {
                let pl = &self.plugins[i];
                let reserved = rec.plugin(
                    i,
                    pl.name(),
                    point::RESERVE,
                    || pl.reserve(cache, pod, node, &cs.states[i]),
                    |r| status_label(r.as_ref().err().map(|r| r.code)),
                );
                match reserved {
                    Ok(actions) => pre_bind.extend(actions),
                    Err(r) if r.code == Code::Error => {
                        return ScheduleOutcome::Error {
                            message: texts::reserve_plugin_error(pl.name(), &r.message()),
                            diagnosis,
                        };
                    }
                    Err(r) => {
                        let mut d = Diagnosis::default();
                        d.add_plugin(pl.name());
                        d.node_to_status.insert((*result.node).into(), r.with_plugin(pl.name()));
                        let message = fit_error_message(1, &d);
                        diagnosis = d;
                        return ScheduleOutcome::Unschedulable {
                            num_all_nodes: 1,
                            diagnosis,
                            post_filter: PostFilterResult::default(),
                            message,
                        };
                    }
                }
            }
        }
        ScheduleOutcome::Scheduled { result, pre_bind, diagnosis, scores, permit_wait: Vec::new() }
    }

    fn fit_error(
        &self,
        cache: &Cache,
        pod: &PodInfo,
        mut diagnosis: Diagnosis,
        cs: &CycleState,
        params: &mut CycleParams,
        rec: Rec<'_>,
    ) -> ScheduleOutcome {
        let num_all_nodes = cache.num_nodes();
        let mut post = PostFilterResult::default();
        if self.has_post_filter() {
            let start = rec.start();
            let runner = Runner {
                fw: self,
                states: &cs.states,
                skip: &cs.skip_filter,
                rec,
                extenders: params.extenders.as_ref(),
                notes: std::cell::RefCell::new(Vec::new()),
                waiting: params.waiting,
                waiting_actions: std::cell::RefCell::new(Vec::new()),
            };
            let mut reasons: Vec<std::borrow::Cow<'static, str>> = Vec::new();
            let mut rejector: &'static str = "";
            let mut chosen: Option<PostFilterResult> = None;
            for &i in &self.post_filter {
                let pl = &self.plugins[i];
                let rng = &mut *params.rng;
                let r = rec.plugin(
                    i,
                    pl.name(),
                    point::POST_FILTER,
                    || pl.post_filter(cache, pod, &diagnosis, &runner, rng),
                    |r| status_label(r.rejection.as_ref().map(|r| r.code)),
                );
                match &r.rejection {
                    None => {
                        chosen = Some(r);
                        reasons.clear();
                        break;
                    }
                    Some(rej) if rej.code == Code::UnschedulableAndUnresolvable || rej.code == Code::Error => {
                        reasons = rej.reasons.to_vec();
                        rejector = pl.name();
                        chosen = Some(PostFilterResult { rejection: Some(rej.clone().with_plugin(pl.name())), ..r });
                        break;
                    }
                    Some(rej) => {
                        reasons.extend(rej.reasons.iter().cloned());
                        if rejector.is_empty() {
                            rejector = pl.name();
                        }
                        if r.nominated_node.is_some() {
                            chosen = Some(r.clone());
                        }
                    }
                }
            }
            post = match chosen {
                Some(r) if r.rejection.is_none() => r,
                Some(mut r) => {
                    r.rejection =
                        Some(Rejection { code: Code::Unschedulable, reasons: reasons.clone().into(), plugin: rejector });
                    r
                }
                None => PostFilterResult {
                    rejection: Some(Rejection { code: Code::Unschedulable, reasons: reasons.into(), plugin: rejector }),
                    ..Default::default()
                },
            };
            diagnosis.extender_notes.append(&mut runner.notes.borrow_mut());
            diagnosis.waiting_actions.append(&mut runner.waiting_actions.borrow_mut());
            diagnosis.post_filter_msg = post.rejection.as_ref().map(|r| r.message()).unwrap_or_default();
            rec.point(point::POST_FILTER, status_label(post.rejection.as_ref().map(|r| r.code)), start);
        }
        let message = fit_error_message(num_all_nodes, &diagnosis);
        ScheduleOutcome::Unschedulable { num_all_nodes, diagnosis, post_filter: post, message }
    }

    #[allow(clippy::too_many_arguments)]
    fn prioritize(
        &self,
        cache: &Cache,
        pod: &PodInfo,
        nodes: &[&NodeInfo],
        cs: &mut CycleState,
        explain: bool,
        has_extenders: bool,
        rec: Rec<'_>,
    ) -> Result<Scores, String> {
        // Without score plugins and extenders every node scores 1 (prioritizeNodes).
        if self.score.is_empty() && !has_extenders {
            return Ok(Scores { totals: vec![1; nodes.len()], plugins: Vec::new(), table: None });
        }
        let start = rec.start();
        for &i in &self.pre_score {
            let pl = &self.plugins[i];
            let state = &mut cs.states[i];
            let outcome = rec.plugin(
                i,
                pl.name(),
                point::PRE_SCORE,
                || pl.pre_score(cache, pod, nodes, state),
                |o| {
                    if *o == PreScoreOutcome::Skip {
                        SKIP
                    } else {
                        status_label(None)
                    }
                },
            );
            if outcome == PreScoreOutcome::Skip {
                cs.skip_score[i] = true;
            }
        }
        rec.point(point::PRE_SCORE, status_label(None), start);
        let start = rec.start();
        let scored = self.score_plugins(cache, pod, nodes, cs, explain, rec);
        rec.point(point::SCORE, status_label(scored.as_ref().err().map(|_| Code::Error)), start);
        scored
    }

    /// RunScorePlugins: score, normalise and weigh every feasible node.
    fn score_plugins(
        &self,
        cache: &Cache,
        pod: &PodInfo,
        nodes: &[&NodeInfo],
        cs: &CycleState,
        explain: bool,
        rec: Rec<'_>,
    ) -> Result<Scores, String> {
        let (mut totals, mut raw) = {
            let mut s = self.scratch.borrow_mut();
            (std::mem::take(&mut s.totals), std::mem::take(&mut s.raw))
        };
        totals.clear();
        totals.resize(nodes.len(), 0);
        raw.clear();
        raw.resize(nodes.len(), 0);
        let (mut plugins, mut table) = (Vec::new(), explain.then(Vec::new));
        for &(i, weight) in &self.score {
            if cs.skip_score[i] {
                continue;
            }
            let pl = &self.plugins[i];
            let name = pl.name();
            let state = &cs.states[i];
            match self.score_all.get(i).and_then(Option::as_ref).filter(|_| !rec.times_plugins()) {
                // The whole list in one call (counted as one evaluation per node).
                Some(all) => {
                    let scored = all.score_all(cache, pod, nodes, state, &mut raw);
                    // Their errors are the pod's (its state, its requests): node by node, the
                    // first node's score would have failed.
                    rec.count(i, name, point::SCORE, if scored.is_ok() { nodes.len() } else { 1 });
                    scored.map_err(|r| texts::score_plugin_error(name, &r.message()))?;
                }
                None => {
                    let mut scores = || {
                        for (k, node) in nodes.iter().enumerate() {
                            raw[k] = rec
                                .plugin(
                                    i,
                                    name,
                                    point::SCORE,
                                    || pl.score(cache, pod, node, state),
                                    |r| status_label(r.as_ref().err().map(|r| r.code)),
                                )
                                .map_err(|r| texts::score_plugin_error(name, &r.message()))?;
                        }
                        Ok::<(), String>(())
                    };
                    rec.chain(true);
                    let scored = scores();
                    rec.chain(false);
                    scored?;
                }
            }
            if pl.points().normalize {
                let raw = &mut raw;
                rec.plugin(i, pl.name(), point::NORMALIZE, || pl.normalize(pod, raw, &cs.states[i]), |_| status_label(None));
            }
            // Zipped, not indexed: opt-level "z" leaves `Vec`'s indexing a call per node.
            for (total, &s) in totals.iter_mut().zip(raw.iter()) {
                if !(MIN_NODE_SCORE..=MAX_NODE_SCORE).contains(&s) {
                    return Err(texts::invalid_score(pl.name(), s, MIN_NODE_SCORE, MAX_NODE_SCORE));
                }
                *total += s * weight;
            }
            if let Some(table) = &mut table {
                plugins.push(pl.name());
                table.extend_from_slice(&raw);
            }
        }
        self.scratch.borrow_mut().raw = raw;
        Ok(Scores { totals, plugins, table })
    }
}

/// The scores of a cycle's feasible nodes.
struct Scores {
    /// Weighted total per node (extenders' scores added by the caller).
    totals: Vec<i64>,
    /// Plugins that scored, in order, when explaining.
    plugins: Vec<&'static str>,
    /// Their normalised scores, plugin by plugin: `table[p * nodes + k]` (`None`: not kept).
    table: Option<Vec<i64>>,
}

impl Scores {
    /// The [`NodeScores`] of the nodes `explain` keeps (all in `nodes` order, or the best first).
    fn kept(&self, nodes: &[&NodeInfo], explain: Explain) -> Vec<NodeScores> {
        let n = nodes.len();
        let Some(table) = self.table.as_ref().filter(|t| t.len() == self.plugins.len() * n) else {
            return Vec::new();
        };
        let keep: Vec<usize> = match explain {
            Explain::Off => return Vec::new(),
            Explain::All => (0..n).collect(),
            Explain::Top(top) => {
                // The best `top`, best first, by insertion (`top` is small: no sort code is
                // instantiated for this in the binary).
                let better = |a: usize, b: usize| {
                    (self.totals[a], std::cmp::Reverse(&nodes[a].node.name))
                        > (self.totals[b], std::cmp::Reverse(&nodes[b].node.name))
                };
                let mut best: Vec<usize> = Vec::with_capacity(top.min(n) + 1);
                for k in 0..n {
                    let at = best.iter().position(|&b| better(k, b)).unwrap_or(best.len());
                    if at < top {
                        best.insert(at, k);
                        best.truncate(top);
                    }
                }
                best
            }
        };
        keep.into_iter()
            .map(|k| NodeScores {
                node: (*nodes[k].node.name).into(),
                total: self.totals[k],
                plugins: self.plugins.iter().enumerate().map(|(p, name)| (*name, table[p * n + k])).collect(),
            })
            .collect()
    }
}

/// Highest total wins; ties are broken uniformly at random (reservoir sampling, as `selectHost`).
pub fn select_host(totals: &[i64], rng: &mut Rng) -> usize {
    let mut best = 0usize;
    let mut count = 0u64;
    let mut max = i64::MIN;
    for (i, &t) in totals.iter().enumerate() {
        if t > max {
            max = t;
            best = i;
            count = 1;
        } else if t == max {
            count += 1;
            if rng.below(count) == 0 {
                best = i;
            }
        }
    }
    best
}

/// The framework as PostFilter plugins see it.
struct Runner<'a> {
    fw: &'a Framework,
    states: &'a [PluginState],
    skip: &'a [bool],
    rec: Rec<'a>,
    extenders: Option<&'a CycleExtenders<'a>>,
    /// What the extenders said during preemption (appended to the diagnosis afterwards).
    notes: std::cell::RefCell<Vec<ExtenderNote>>,
    waiting: Option<&'a WaitingPods>,
    /// Waiting pods PostFilter plugins rejected (appended to the diagnosis afterwards).
    waiting_actions: std::cell::RefCell<Vec<WaitingAction>>,
}

impl super::FilterRunner for Runner<'_> {
    fn states(&self) -> &[PluginState] {
        self.states
    }

    fn clone_states(&self, cache: &Cache, pod: &PodInfo, states: &[PluginState]) -> Vec<PluginState> {
        self.fw.copy_states(cache, pod, states)
    }

    fn remove_pod(&self, states: &mut [PluginState], pod: &PodInfo, removed: &AssignedPod, node: &NodeInfo) {
        self.fw.pre_filter_extension(states, pod, removed, node, self.skip, self.rec, false);
    }

    fn add_pod(&self, states: &mut [PluginState], pod: &PodInfo, added: &AssignedPod, node: &NodeInfo) {
        self.fw.pre_filter_extension(states, pod, added, node, self.skip, self.rec, true);
    }

    fn run_filters(&self, cache: &Cache, pod: &PodInfo, node: &NodeInfo, states: &[PluginState]) -> Result<(), Rejection> {
        self.fw.filter_node(cache, pod, node, states, self.skip, self.rec)
    }

    fn waiting_pods(&self) -> Vec<super::waiting::WaitingPod> {
        self.waiting.map(|w| w.iter().cloned().collect()).unwrap_or_default()
    }

    fn reject_waiting_pod(&self, pod: &crate::core::model::PodKey, plugin: &'static str, message: String) {
        self.waiting_actions.borrow_mut().push(WaitingAction::Reject { pod: pod.clone(), plugin, message });
    }

    fn call_extenders(&self, cache: &Cache, candidates: Vec<Candidate>) -> Result<Vec<Candidate>, String> {
        match self.extenders {
            None => Ok(candidates),
            Some(x) => x.set.preempt(cache, x.pod, &x.doc, candidates, &mut self.notes.borrow_mut()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn feasible_nodes_to_find_matches_upstream_examples() {
        // schedule_one_test.go TestNumFeasibleNodesToFind.
        assert_eq!(num_feasible_nodes_to_find(0, 10), 10);
        assert_eq!(num_feasible_nodes_to_find(40, 10), 10);
        assert_eq!(num_feasible_nodes_to_find(0, 1000), 420);
        assert_eq!(num_feasible_nodes_to_find(40, 1000), 400);
        assert_eq!(num_feasible_nodes_to_find(0, 6000), 300);
        assert_eq!(num_feasible_nodes_to_find(40, 6000), 2400);
        assert_eq!(num_feasible_nodes_to_find(0, 500), 230);
        assert_eq!(num_feasible_nodes_to_find(0, 5000), 500);
        assert_eq!(num_feasible_nodes_to_find(1, 150), 100);
    }

    #[test]
    fn ties_are_spread_uniformly() {
        let mut rng = Rng::seeded(1);
        let mut counts = [0u32; 3];
        for _ in 0..3000 {
            counts[select_host(&[5, 9, 9, 9][..], &mut rng).saturating_sub(1)] += 1;
        }
        assert!(counts.iter().all(|c| (850..1150).contains(c)), "{counts:?}");
        assert_eq!(select_host(&[1, 7, 3], &mut rng), 1);
    }
}
