//! The capacity planner (`edgesched capacity`): how many more copies of a pod fit, where, and
//! what stops the next one — kubernetes-sigs/cluster-capacity's question, answered with
//! edgesched's own filters, scores and the configured profile.
//!
//! Copies are queued one at a time after the cluster's own pending pods have been placed (they
//! are ahead in the queue), each placement applied before the next copy, until a copy does not
//! fit or `max` copies are placed. Preemption does not evict anything: a copy that would only fit
//! by preempting does not fit.

use super::report::{Detail, PodDecision};
use super::stream::Simulation;
use crate::core::api;
use crate::core::texts::dynamic_resources::CANNOT_ALLOCATE_ALL_CLAIMS;
use serde::Serialize;
use std::collections::BTreeMap;

/// The planner's answer.
#[derive(Debug, Clone, Serialize, PartialEq, Eq)]
#[serde(rename_all = "camelCase")]
pub struct CapacityReport {
    /// Copies that fit.
    pub count: usize,
    /// Node → copies placed there.
    pub per_node: BTreeMap<String, usize>,
    /// Why the next copy does not fit (the FitError text), or that `max` was reached.
    pub stopped_by: String,
    /// The nodes that rejected the next copy, grouped by reason (empty when `max` was reached);
    /// the JSON answer has them in `stoppedBy` already.
    #[serde(skip)]
    pub stopped_reasons: Vec<super::report::ReasonGroup>,
}

/// The `n`th copy of `template`: a pending pod of `scheduler_name`, named `NAME-n`.
pub fn copy_of(template: &api::Pod, scheduler_name: &str, n: usize) -> api::Pod {
    let mut p = template.clone();
    let base = if template.metadata.name.is_empty() { "pod" } else { template.metadata.name.as_str() };
    p.metadata.name = format!("{base}-{n}");
    if p.metadata.namespace.is_empty() {
        p.metadata.namespace = "default".into();
    }
    p.metadata.uid = format!("capacity-{n}");
    p.metadata.creation_timestamp = None;
    p.metadata.deletion_timestamp = None;
    p.spec.node_name.clear();
    p.spec.scheduler_name = scheduler_name.to_string();
    p.spec.scheduling_gates.clear();
    p.status = api::PodStatus::default();
    p
}

/// On the nodes where the copy found no devices (`cannot allocate all claims`), which requests
/// found none, each with the number of such nodes: `None` when devices did not stop it.
fn devices_missing(sim: &Simulation, d: &PodDecision) -> Option<String> {
    let mut misses: BTreeMap<String, usize> = BTreeMap::new();
    let nodes = d.filtered.iter().filter(|g| g.reason == CANNOT_ALLOCATE_ALL_CLAIMS).flat_map(|g| g.nodes.iter());
    for node in nodes {
        for miss in sim.devices_missing(&d.pod, node) {
            *misses.entry(miss).or_default() += 1;
        }
    }
    if misses.is_empty() {
        return None;
    }
    let parts: Vec<String> = misses.iter().map(|(m, n)| format!("{m} ({n} node(s))")).collect();
    Some(parts.join("; "))
}

/// The text when `max` copies fit.
pub fn max_reached(max: usize) -> String {
    format!("the limit of {max} copies (--max) was reached")
}

/// What the planner keeps of each decision: the reasons, all nodes, no scores.
const DETAIL: Detail = Detail { scores: false, reasons: true, top: 0 };

/// First: schedule the cluster's own pending pods (they are ahead of the copies in the queue),
/// evicting nothing.
pub fn place_pending(sim: &mut Simulation) {
    sim.set_evictions(false);
    let _ = sim.run::<std::convert::Infallible>(&DETAIL, &mut |_| Ok(()));
}

/// Then: place copies of `template` until one does not fit or `max` fit.
pub fn place_copies(sim: &mut Simulation, template: &api::Pod, scheduler_name: &str, max: usize) -> CapacityReport {
    sim.set_evictions(false);
    let detail = DETAIL;
    let mut report =
        CapacityReport { count: 0, per_node: BTreeMap::new(), stopped_by: max_reached(max), stopped_reasons: Vec::new() };
    for n in 1..=max {
        let copy = copy_of(template, scheduler_name, n);
        let key = format!("{}/{}", copy.metadata.namespace, copy.metadata.name);
        sim.enqueue(Box::new(copy));
        let mut mine: Option<PodDecision> = None;
        let _ = sim.run::<std::convert::Infallible>(&detail, &mut |d| {
            if d.pod == key {
                mine = Some(d);
            }
            Ok(())
        });
        match mine {
            Some(PodDecision { node: Some(node), .. }) => {
                report.count += 1;
                *report.per_node.entry(node).or_default() += 1;
            }
            Some(d) => {
                report.stopped_by = match devices_missing(sim, &d) {
                    Some(misses) => crate::core::texts::what_if_devices::capacity_devices(&d.message, &misses),
                    None => d.message,
                };
                report.stopped_reasons = d.filtered;
                return report;
            }
            None => {
                report.stopped_by = format!("{key} was not scheduled (scheduling gates, or a pod being deleted)");
                return report;
            }
        }
    }
    report
}
