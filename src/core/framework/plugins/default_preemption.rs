//! DefaultPreemption (pkg/scheduler/framework/plugins/defaultpreemption/default_preemption.go and
//! pkg/scheduler/framework/preemption/preemption.go): when a pod fits nowhere, find nodes where
//! evicting lower-priority pods would make it fit, choose the best one, and nominate it.
//!
//! Dry runs work on copies of the node and of the PreFilter states (`AddPod`/`RemovePod`
//! extensions), never on the cache. The victims are the minimal set found by removing every
//! lower-priority pod and then reprieving the most important ones first — PodDisruptionBudget
//! violators before the others — while the pod still fits.

use crate::core::cache::{AssignedPod, Cache, NodeInfo};
use crate::core::config::DefaultPreemptionArgs;
use crate::core::framework::status::fit_error_message;
use crate::core::framework::{Code, Diagnosis, EventMask, FilterRunner, Plugin, Points, PostFilterResult, Rejection};
use crate::core::model::{PodInfo, PreemptionPolicy};
use crate::core::rng::Rng;
use std::cmp::Ordering;
use std::sync::Arc;

pub struct DefaultPreemption {
    pub args: DefaultPreemptionArgs,
}

use crate::core::texts::preemption::{
    self as texts, NOT_ELIGIBLE_POLICY_NEVER, NOT_ELIGIBLE_TERMINATING, NOT_HELPFUL, NO_CANDIDATE, NO_VICTIMS,
};

/// Victims on one node and how many of them violate a PodDisruptionBudget.
#[derive(Debug, Clone)]
pub struct Candidate {
    pub node: Box<str>,
    /// Ordered by decreasing importance.
    pub victims: Vec<Arc<AssignedPod>>,
    pub pdb_violations: usize,
}

impl DefaultPreemption {
    /// `calculateNumCandidates`.
    pub fn num_candidates(&self, num_nodes: usize) -> usize {
        let n = num_nodes as i64 * i64::from(self.args.min_candidate_nodes_percentage) / 100;
        (n.max(i64::from(self.args.min_candidate_nodes_absolute)) as usize).min(num_nodes)
    }
}

/// `util.MoreImportantPod`: higher priority, then the longer-running (earlier start; a pod that
/// has not started counts as starting now).
pub fn more_important(a: &AssignedPod, b: &AssignedPod) -> bool {
    if a.priority != b.priority {
        return a.priority > b.priority;
    }
    start_or_now(a) < start_or_now(b)
}

/// [`more_important`] as a sort order: the most important pods first.
fn by_importance(a: &AssignedPod, b: &AssignedPod) -> Ordering {
    if more_important(a, b) {
        Ordering::Less
    } else if more_important(b, a) {
        Ordering::Greater
    } else {
        Ordering::Equal
    }
}

fn start_or_now(p: &AssignedPod) -> i64 {
    if p.start_unix == 0 {
        i64::MAX
    } else {
        p.start_unix
    }
}

/// `filterPodsWithPDBViolation`: split (keeping order) into PDB-violating and other victims.
fn split_by_pdb(cache: &Cache, pods: Vec<Arc<AssignedPod>>) -> (Vec<Arc<AssignedPod>>, Vec<Arc<AssignedPod>>) {
    let budgets: Vec<&crate::core::cache::pdb::Budget> = cache.budgets().iter().collect();
    let mut allowed: Vec<i32> = budgets.iter().map(|b| b.disruptions_allowed).collect();
    let (mut violating, mut ok) = (Vec::new(), Vec::new());
    for p in pods {
        let mut violated = false;
        if !p.labels.is_empty() {
            let name = p.key.split_once('/').map(|(_, n)| n).unwrap_or("");
            for (i, b) in budgets.iter().enumerate() {
                if !b.selects(&p.namespace, &p.labels) || b.disrupted_pods.iter().any(|d| d == name) {
                    continue;
                }
                allowed[i] -= 1;
                if allowed[i] < 0 {
                    violated = true;
                }
            }
        }
        if violated {
            violating.push(p);
        } else {
            ok.push(p);
        }
    }
    (violating, ok)
}

/// `SelectVictimsOnNode` on a copy of the node.
pub fn select_victims_on_node(
    cache: &Cache,
    pod: &PodInfo,
    node: &NodeInfo,
    runner: &dyn FilterRunner,
) -> Result<(Vec<Arc<AssignedPod>>, usize), Rejection> {
    let mut node = node.clone();
    let mut states = runner.clone_states(cache, pod, runner.states());
    let mut potential: Vec<Arc<AssignedPod>> = node.pods.iter().filter(|p| p.priority < pod.priority).cloned().collect();
    for v in &potential {
        node.remove_pod(&v.key);
        runner.remove_pod(&mut states, pod, v, &node);
    }
    if potential.is_empty() {
        return Err(Rejection::unresolvable(NO_VICTIMS));
    }
    runner.run_filters(cache, pod, &node, &states)?;
    potential.sort_by(|a, b| by_importance(a, b));
    let (violating, non_violating) = split_by_pdb(cache, potential);
    let mut victims: Vec<Arc<AssignedPod>> = Vec::new();
    let mut violations = 0usize;
    let both = !violating.is_empty() && !non_violating.is_empty();
    for (group, counts) in [(violating, true), (non_violating, false)] {
        for p in group {
            node.add_pod(p.clone());
            runner.add_pod(&mut states, pod, &p, &node);
            if runner.run_filters(cache, pod, &node, &states).is_err() {
                node.remove_pod(&p.key);
                runner.remove_pod(&mut states, pod, &p, &node);
                if counts {
                    violations += 1;
                }
                victims.push(p);
            }
        }
    }
    if both {
        victims.sort_by(|a, b| by_importance(a, b));
    }
    if victims.is_empty() {
        return Err(Rejection::error(texts::no_victim_on_node(node.name())));
    }
    Ok((victims, violations))
}

/// `pickOneNodeForPreemption`: fewest PDB violations, lowest highest-priority victim, lowest sum
/// of priorities, fewest victims, latest start of the highest-priority victims, then first.
pub fn pick_one(candidates: &[Candidate]) -> Option<usize> {
    if candidates.is_empty() {
        return None;
    }
    let scores: [&dyn Fn(&Candidate) -> i64; 5] = [
        &|c| -(c.pdb_violations as i64),
        &|c| -i64::from(c.victims.first().map(|v| v.priority).unwrap_or(0)),
        &|c| -c.victims.iter().map(|v| i64::from(v.priority) + i64::from(i32::MAX) + 1).sum::<i64>(),
        &|c| -(c.victims.len() as i64),
        &|c| {
            let top = c.victims.first().map(|v| v.priority).unwrap_or(0);
            c.victims.iter().filter(|v| v.priority == top).map(|v| start_or_now(v)).min().unwrap_or(i64::MIN)
        },
    ];
    let mut pool: Vec<usize> = (0..candidates.len()).collect();
    for f in scores {
        let best = pool.iter().map(|i| f(&candidates[*i])).max().unwrap_or(i64::MIN);
        pool.retain(|i| f(&candidates[*i]) == best);
        if pool.len() == 1 {
            break;
        }
    }
    pool.first().copied()
}

impl Plugin for DefaultPreemption {
    fn name(&self) -> &'static str {
        super::names::DEFAULT_PREEMPTION
    }

    fn points(&self) -> Points {
        Points { post_filter: true, ..Default::default() }
    }

    fn events(&self) -> EventMask {
        EventMask::ASSIGNED_POD_DELETE
    }

    fn post_filter(
        &self,
        cache: &Cache,
        pod: &PodInfo,
        diagnosis: &Diagnosis,
        runner: &dyn FilterRunner,
        rng: &mut Rng,
    ) -> PostFilterResult {
        let reject = |msg: String, clear: bool| PostFilterResult {
            nominated_node: clear.then(|| "".into()),
            victims: Vec::new(),
            rejection: Some(Rejection::unschedulable(texts::prefixed(&msg))),
            writes: Vec::new(),
        };
        // 1) PodEligibleToPreemptOthers.
        if pod.preemption_policy == PreemptionPolicy::Never {
            return reject(NOT_ELIGIBLE_POLICY_NEVER.into(), false);
        }
        if !pod.nominated_node_name.is_empty() {
            let unresolvable =
                diagnosis.status_of(&pod.nominated_node_name).is_some_and(|s| s.code == Code::UnschedulableAndUnresolvable);
            if !unresolvable {
                if let Some(n) = cache.node_by_name(&pod.nominated_node_name) {
                    if n.pods.iter().any(|p| p.priority < pod.priority && p.preempted_by_scheduler) {
                        return reject(NOT_ELIGIBLE_TERMINATING.into(), false);
                    }
                }
            }
        }
        // 2) Candidates among nodes whose failure preemption might fix (code Unschedulable).
        let num_all = cache.num_nodes();
        let potential: Vec<&NodeInfo> = cache
            .node_order_snapshot()
            .iter()
            .map(|id| cache.node(*id))
            .filter(|n| diagnosis.status_of(n.name()).is_some_and(|s| s.code == Code::Unschedulable))
            .collect();
        let mut statuses = Diagnosis::default();
        let mut candidates: Vec<Candidate> = Vec::new();
        if !potential.is_empty() {
            let len = potential.len();
            let offset = rng.below(len as u64) as usize;
            let wanted = self.num_candidates(len);
            let (mut non_violating, mut violating) = (0usize, 0usize);
            for i in 0..len {
                let node = potential[(offset + i) % len];
                match select_victims_on_node(cache, pod, node, runner) {
                    Ok((victims, pdb_violations)) => {
                        if pdb_violations == 0 {
                            non_violating += 1;
                        } else {
                            violating += 1;
                        }
                        candidates.push(Candidate { node: (*node.node.name).into(), victims, pdb_violations });
                        if non_violating > 0 && non_violating + violating >= wanted {
                            break;
                        }
                    }
                    Err(r) => {
                        statuses.node_to_status.insert(node.node.name.clone(), r);
                    }
                }
            }
            // Candidates without PDB violations come first, as upstream's two lists.
            candidates.sort_by_key(|c| c.pdb_violations > 0);
        }
        if candidates.is_empty() {
            statuses.absent_nodes_status = Some(Rejection::unresolvable(NOT_HELPFUL));
            return reject(fit_error_message(num_all, &statuses), true);
        }
        // 4) The extenders that support preemption may narrow the candidates (callExtenders).
        let mut candidates = match runner.call_extenders(cache, candidates) {
            Ok(c) => c,
            Err(e) => {
                return PostFilterResult {
                    nominated_node: None,
                    victims: Vec::new(),
                    rejection: Some(Rejection::error(texts::prefixed(&e))),
                    writes: Vec::new(),
                }
            }
        };
        let Some(best) = pick_one(&candidates) else {
            return PostFilterResult {
                nominated_node: None,
                victims: Vec::new(),
                rejection: Some(Rejection::unschedulable(texts::prefixed(NO_CANDIDATE))),
                writes: Vec::new(),
            };
        };
        let c = candidates.swap_remove(best);
        PostFilterResult { nominated_node: Some(c.node), victims: c.victims, rejection: None, writes: Vec::new() }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn victim(name: &str, priority: i32, start: i64) -> Arc<AssignedPod> {
        let mut p = crate::core::api::Pod::default();
        p.metadata.namespace = "ns".into();
        p.metadata.name = name.into();
        p.spec.priority = Some(priority);
        let mut info = PodInfo::from_api(&p, &crate::core::model::NoPriorityClasses);
        info.start_unix = start;
        Arc::new(AssignedPod::from_pod(&info, "n"))
    }

    #[test]
    fn candidate_choice_follows_upstream_criteria() {
        // preemption_test.go TestPickOneNodeForPreemption: fewer PDB violations first, then the
        // lowest highest-priority victim, sum of priorities, count, latest start.
        let c = |node: &str, victims: Vec<Arc<AssignedPod>>, pdb: usize| Candidate {
            node: node.into(),
            victims,
            pdb_violations: pdb,
        };
        let cands = vec![
            c("a", vec![victim("a1", 10, 100)], 1),
            c("b", vec![victim("b1", 20, 100)], 0),
            c("c", vec![victim("c1", 10, 100), victim("c2", 5, 100)], 0),
            c("d", vec![victim("d1", 10, 100)], 0),
        ];
        assert_eq!(pick_one(&cands).map(|i| &*cands[i].node), Some("d"), "lowest highest priority, then smaller sum");
        let cands = vec![c("x", vec![victim("x1", 10, 100)], 0), c("y", vec![victim("y1", 10, 200)], 0)];
        assert_eq!(pick_one(&cands).map(|i| &*cands[i].node), Some("y"), "latest start time wins");
        assert_eq!(pick_one(&[]), None);
    }

    #[test]
    fn importance_orders_by_priority_then_age() {
        assert!(more_important(&victim("a", 5, 100), &victim("b", 1, 50)));
        assert!(more_important(&victim("a", 1, 50), &victim("b", 1, 100)));
        assert!(more_important(&victim("a", 1, 50), &victim("b", 1, 0)), "a pod that has not started counts as newest");
    }

    #[test]
    fn candidate_count_follows_args() {
        let p = DefaultPreemption { args: DefaultPreemptionArgs::default() };
        assert_eq!(p.num_candidates(5000), 500);
        assert_eq!(p.num_candidates(50), 50);
        assert_eq!(p.num_candidates(2000), 200);
        let p = DefaultPreemption {
            args: DefaultPreemptionArgs {
                min_candidate_nodes_percentage: 0,
                min_candidate_nodes_absolute: 3,
                ..Default::default()
            },
        };
        assert_eq!(p.num_candidates(100), 3);
    }
}
