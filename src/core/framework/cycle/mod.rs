//! One scheduling cycle for one pod: PreFilter, Filter over a rotating sample of nodes, PostFilter
//! when nothing fits, PreScore/Score/normalise/weight, and a uniformly random choice among the best
//! nodes (pkg/scheduler/schedule_one.go: `schedulePod`, `findNodesThatFitPod`,
//! `numFeasibleNodesToFind`, `prioritizeNodes`).
//!
//! This file holds the cycle's inputs and outcome and [`Framework::schedule`], which runs the
//! extension points in order; each point lives in a file of its own: `filter.rs` (PreFilter,
//! Filter with nominated pods, the PreFilter extensions) with the walk over the nodes
//! (`filter_walk.rs`), `post_filter.rs` (the FitError and preemption), `score.rs` (PreScore,
//! Score, normalise, weights, `selectHost`) and `reserve.rs` (Reserve, Permit, Unreserve).

mod filter;
pub(super) mod filter_walk;
mod post_filter;
mod pre_flight;
mod reserve;
mod score;

use super::instrument::{CycleRecorder, Rec};
use super::status::{Code, Diagnosis, Rejection};
use super::waiting::WaitingPods;
use super::{Framework, PluginState, PostFilterResult};
use crate::core::cache::{Cache, NodeId, NodeInfo};
use crate::core::extender::{ExtenderSet, EXTENDER_NAME};
use crate::core::model::PodInfo;
use crate::core::rng::Rng;
use crate::core::texts::framework as texts;
use filter_walk::{Walk, WalkInput};
pub use score::select_host;

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
    /// The time source of per-node Filter time limits (DynamicResources' `filterTimeout`);
    /// `None`: no limit applies (the what-if commands, whose virtual time stands still).
    pub clock: Option<&'a dyn crate::core::framework::Ticker>,
    /// The cycle's time, shown to Permit plugins whose pods share one deadline (GangScheduling);
    /// `None` where no time is kept (plugin tests).
    pub now: Option<std::time::Instant>,
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

/// What one cycle's extension points share: each plugin's state and the plugins skipped.
struct CycleState {
    states: Vec<PluginState>,
    /// Plugins whose Filter is skipped for this pod (PreFilter returned Skip).
    skip_filter: Vec<bool>,
    skip_score: Vec<bool>,
}

impl Framework {
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
                post_filter: PostFilterResult::clear_nominated_node(),
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
                if self.filter_node(cache, pod, node, &cs.states, &cs.skip_filter, rec, params.clock).is_ok() {
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
                        return self.reserve_on(cache, pod, &cs, result, diagnosis, Vec::new(), params.waiting, params.now, rec);
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
        let input = WalkInput {
            cache,
            pod,
            nodes,
            start,
            num_to_find,
            states: &cs.states,
            skip: &cs.skip_filter,
            rec,
            clock: params.clock,
        };
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
            return self.reserve_on(cache, pod, &cs, result, diagnosis, Vec::new(), params.waiting, params.now, rec);
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
        self.reserve_on(cache, pod, &cs, result, diagnosis, explained, params.waiting, params.now, rec)
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
}
