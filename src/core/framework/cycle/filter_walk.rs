//! The Filter walk of a cycle (upstream `findNodesThatPassFilters` in
//! pkg/scheduler/schedule_one.go): from the rotating start index, run the Filter plugins on the
//! nodes in order until enough feasible nodes are found, the first rejecting plugin giving each
//! rejected node its status, and an error stopping the walk.
//!
//! Two ways, one result. Node by node, each plugin is a dynamic call per node (and a timed one in
//! sampled cycles). When no plugin call is timed, no pod is nominated anywhere and every Filter
//! plugin running for the pod has a whole-list filter ([`crate::core::framework::plugins::FilterAll`]: the
//! in-tree plugins that run for pods without volumes have one), the walk takes the nodes in runs;
//! each plugin filters the run's nodes still standing in one call, and the run's verdicts are then
//! taken in node order exactly as the node-by-node walk takes them, up to the error or the last
//! feasible node wanted that ends the walk. The nodes of a run after that point were evaluated but
//! are dropped, which no one can observe: those filters are pure. The evaluation counts
//! (`scheduler_plugin_evaluation_total`) are those of the nodes taken.
//!
//! A run is as long as the feasible nodes still wanted when feasible nodes have been plentiful,
//! and longer when they have been sparse ([`run_length`]): where most nodes are rejected (required
//! anti-affinity per hostname on a nearly full cluster) runs of a few nodes would cost a call of
//! every plugin per few nodes.

use crate::core::cache::{Cache, NodeId, NodeInfo};
use crate::core::framework::instrument::{point, Rec};
use crate::core::framework::plugins::{FilterAll, Rejections};
use crate::core::framework::status::{Code, Diagnosis, Rejection};
use crate::core::framework::{Framework, PluginState};
use crate::core::model::PodInfo;
use crate::core::texts::framework as texts;

/// What the walk found: the feasible nodes in walk order, how many nodes were rejected (their
/// statuses in walk order) and the error that ended it, if one did.
#[derive(Debug, Default)]
pub(crate) struct Walk<'n> {
    pub feasible: Vec<&'n NodeInfo>,
    pub failed: usize,
    pub rejected: Vec<(NodeId, Rejection)>,
    pub error: Option<String>,
}

/// What a walk reads: the pod and the cycle's PreFilter states and skips; the candidate nodes,
/// where it starts among them and how many feasible nodes end it.
#[derive(Clone, Copy)]
pub(crate) struct WalkInput<'n, 'a> {
    pub cache: &'n Cache,
    pub pod: &'a PodInfo,
    pub nodes: &'a [NodeId],
    pub start: usize,
    pub num_to_find: usize,
    pub states: &'a [PluginState],
    pub skip: &'a [bool],
    pub rec: Rec<'a>,
    /// The time source of per-node Filter time limits (see [`super::cycle::CycleParams::clock`]).
    pub clock: Option<&'a dyn crate::core::framework::Ticker>,
}

impl Walk<'_> {
    /// Take one node's verdict (walk order); `false` once the walk must stop at an error.
    fn take<'n>(walk: &mut Walk<'n>, node: &'n NodeInfo, verdict: Result<(), Rejection>, diagnosis: &mut Diagnosis) -> bool {
        match verdict {
            Ok(()) => walk.feasible.push(node),
            Err(r) if r.code == Code::Error => {
                walk.error = Some(texts::filter_plugin_error(r.plugin, &r.message()));
                return false;
            }
            Err(r) => {
                walk.failed += 1;
                diagnosis.add_plugin(r.plugin);
                walk.rejected.push((node.id, r));
            }
        }
        true
    }
}

impl Framework {
    /// The Filter walk over `span` (see the module documentation); the rejecting plugins join
    /// `diagnosis`'s unschedulable plugins in walk order.
    pub(crate) fn walk_filters<'n>(&self, input: WalkInput<'n, '_>, diagnosis: &mut Diagnosis) -> Walk<'n> {
        match self.whole_list_filters(input.cache, input.skip, input.rec) {
            Some(active) => self.walk_whole_lists(input, &active, diagnosis),
            None => self.walk_node_by_node(input, diagnosis),
        }
    }

    /// The Filter plugins running for the pod with their whole-list filters, when the walk may
    /// use them: no call is timed, nobody is nominated (those nodes are filtered twice) and each
    /// running plugin has one.
    pub(crate) fn whole_list_filters(&self, cache: &Cache, skip: &[bool], rec: Rec<'_>) -> Option<Vec<(usize, &dyn FilterAll)>> {
        if rec.times_plugins() || cache.nominations().any() {
            return None;
        }
        let mut active = Vec::with_capacity(self.filter.len());
        for &i in &self.filter {
            if !skip[i] {
                active.push((i, self.filter_all.get(i)?.as_deref()?));
            }
        }
        Some(active)
    }

    /// The walk with one (dynamic, possibly timed) call per plugin per node.
    pub(crate) fn walk_node_by_node<'n>(&self, input: WalkInput<'n, '_>, diagnosis: &mut Diagnosis) -> Walk<'n> {
        let WalkInput { cache, pod, nodes, start, num_to_find, states, skip, rec, clock } = input;
        let len = nodes.len();
        let mut walk = Walk { feasible: Vec::with_capacity(num_to_find.min(len)), ..Default::default() };
        for i in 0..len {
            let node = cache.node(nodes[(start + i) % len]);
            let verdict = self.filter_node(cache, pod, node, states, skip, rec, clock);
            if !Walk::take(&mut walk, node, verdict, diagnosis) || walk.feasible.len() >= num_to_find {
                break;
            }
        }
        walk
    }

    /// The walk in runs, each plugin filtering a run's standing nodes in one call.
    pub(crate) fn walk_whole_lists<'n>(
        &self,
        input: WalkInput<'n, '_>,
        active: &[(usize, &dyn FilterAll)],
        diagnosis: &mut Diagnosis,
    ) -> Walk<'n> {
        let WalkInput { cache, pod, nodes, start, num_to_find, states, rec, .. } = input;
        let len = nodes.len();
        let mut walk = Walk { feasible: Vec::with_capacity(num_to_find.min(len)), ..Default::default() };
        // The run; its nodes still standing (and their places in the run); the position (in
        // `active`) of the plugin that rejected each node (`active.len()`: none did) and its
        // status (kept empty while no node of the run is rejected).
        let (mut run, mut standing, mut places): (Vec<&NodeInfo>, Vec<&NodeInfo>, Vec<usize>) = Default::default();
        let (mut verdicts, mut rejected_at): (Vec<Option<Rejection>>, Vec<usize>) = Default::default();
        let mut out: Rejections = Vec::new();
        // Nodes taken whose walk ended at each plugin position (`active.len()`: passed them all).
        let mut ended_at = vec![0usize; active.len() + 1];
        let mut walked = 0;
        while walked < len && walk.feasible.len() < num_to_find {
            let want = run_length(num_to_find - walk.feasible.len(), walked, walk.feasible.len()).min(len - walked);
            // At most this many rejections more: reserved at once, not grown by doubling (a
            // cycle on a nearly full cluster rejects thousands of nodes).
            walk.rejected.reserve(want);
            run.clear();
            run.extend((walked..walked + want).map(|j| cache.node(nodes[(start + j) % len])));
            standing.clear();
            standing.extend_from_slice(&run);
            places.clear();
            places.extend(0..want);
            verdicts.clear();
            rejected_at.clear();
            rejected_at.resize(want, active.len());
            for (at, &(i, filter)) in active.iter().enumerate() {
                if standing.is_empty() {
                    break;
                }
                out.clear();
                filter.filter_all(cache, pod, &standing, &states[i], &mut out);
                if out.is_empty() {
                    continue;
                }
                let name = self.plugins[i].name();
                if verdicts.is_empty() {
                    verdicts.resize_with(want, || None);
                }
                // Slices, not `Vec`s, are indexed below: opt-level "z" leaves `Vec`'s indexing a call.
                let (verdicts_at, rejected) = (verdicts.as_mut_slice(), rejected_at.as_mut_slice());
                for (k, r) in out.drain(..) {
                    let place = places.as_slice()[k];
                    verdicts_at[place] = Some(r.with_plugin(name));
                    rejected[place] = at;
                }
                let (standing_s, places_s) = (standing.as_mut_slice(), places.as_mut_slice());
                let mut kept = 0;
                for k in 0..standing_s.len().min(places_s.len()) {
                    if rejected[places_s[k]] == active.len() {
                        standing_s[kept] = standing_s[k];
                        places_s[kept] = places_s[k];
                        kept += 1;
                    }
                }
                standing.truncate(kept);
                places.truncate(kept);
            }
            let mut taken = 0;
            let (ended, verdicts_at) = (ended_at.as_mut_slice(), verdicts.as_mut_slice());
            for (k, (&at, &node)) in rejected_at.iter().zip(run.iter()).enumerate() {
                if walk.feasible.len() >= num_to_find {
                    break;
                }
                taken = k + 1;
                ended[at] += 1;
                match verdicts_at.get_mut(k).and_then(Option::take) {
                    None => walk.feasible.push(node),
                    Some(r) => {
                        if !Walk::take(&mut walk, node, Err(r), diagnosis) {
                            break;
                        }
                    }
                }
            }
            walked += taken;
            if walk.error.is_some() {
                break;
            }
        }
        if rec.0.is_some() {
            // A plugin was called on every taken node whose walk ended at or after it.
            for (at, &(i, _)) in active.iter().enumerate() {
                let n: usize = ended_at[at..].iter().sum();
                if n > 0 {
                    rec.count(i, self.plugins[i].name(), point::FILTER, n);
                }
            }
        }
        walk
    }
}

/// How many nodes the next run of a whole-list walk evaluates, `wanted` feasible nodes still
/// wanted after `walked` nodes gave `found`: the nodes still wanted at the feasible share seen so
/// far, with an eighth more (at least `wanted`: the node-by-node walk evaluates that many anyway).
/// Nothing found yet: twice the nodes walked. The caller caps it at the nodes left.
fn run_length(wanted: usize, walked: usize, found: usize) -> usize {
    if walked == 0 {
        return wanted;
    }
    let estimate = match found {
        0 => walked.saturating_mul(2),
        _ => wanted.saturating_mul(walked).saturating_mul(9) / found.saturating_mul(8),
    };
    estimate.max(wanted)
}

#[cfg(test)]
mod tests {
    use super::run_length;

    #[test]
    fn runs_grow_where_feasible_nodes_are_sparse() {
        assert_eq!(run_length(300, 0, 0), 300, "the first run is the nodes wanted");
        assert_eq!(run_length(10, 300, 290), 11, "plentiful: about the nodes wanted");
        assert_eq!(run_length(5, 300, 300), 5, "never fewer than wanted");
        assert_eq!(run_length(285, 300, 15), 6412, "sparse: the share seen so far, an eighth more");
        assert_eq!(run_length(300, 300, 0), 600, "none found: twice the nodes walked");
        assert_eq!(run_length(usize::MAX, usize::MAX, 1), usize::MAX, "saturates");
    }
}
