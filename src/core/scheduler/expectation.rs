//! The nominated node as the binding cycle starts (feature gate `NominatedNodeNameForExpectation`,
//! beta and on in v1.35): before a pod waits at Permit or runs a PreBind plugin with work to do,
//! its `.status.nominatedNodeName` is set to the chosen node, so that cluster autoscalers and
//! queue controllers see the node as taken while the binding cycle may last minutes.
//!
//! Upstream: `bindingCycle` in pkg/scheduler/schedule_one.go (v1.35, commit
//! 003b4460edb52bc9a9fe6cf54294e5b3e4681610) calls `updatePod` with
//! `NominatingInfo{NominatedNodeName: SuggestedHost, NominatingMode: ModeOverride}` when
//! `RunPreBindPreFlights` is Success or `WillWaitOnPermit`; `updatePod` logs its V(3) line and
//! patches only when the field differs. The write goes through the same status writer as the
//! preemption's nominations ([`Effect::PatchStatus`]); the shell performs a pod's status writes
//! before its binding starts, as upstream's binding goroutine waits for this one.
//!
//! The in-memory nominator does not hold such a pod: it is assumed on the node already (upstream's
//! `assume` deletes it from the nominator, and updates of an assumed pod are not applied to the
//! queue), so other pods see its room taken through the node table. After the binding, the API
//! server clears the field (`ClearingNominatedNodeNameAfterBinding`, read by kube-apiserver's
//! `pods/binding`, not by the scheduler).

use super::effects::{Effect, PatchOrigin, StatusPatch};
use super::state::Scheduler;
use crate::core::logging::{self, Line};
use crate::core::model::PodInfo;

/// `fwk.ModeOverride` as klog prints the `nominatingMode` value (a Go int without `String()`).
const MODE_OVERRIDE: u8 = 1;

impl Scheduler {
    /// `updatePod(pod, nil, {node, ModeOverride})` at the start of the binding cycle.
    pub(super) fn nominate_for_binding(&mut self, pod: &PodInfo, node: &str) {
        logging::v(3, || {
            Line::new("Updating pod condition and nominated node name")
                .o("pod", &pod.key)
                .s("nominatedNodeName", node)
                .n("nominatingMode", MODE_OVERRIDE)
        });
        if *pod.nominated_node_name == *node {
            return;
        }
        self.effects.push(Effect::PatchStatus(StatusPatch {
            namespace: pod.namespace.to_string(),
            name: pod.name.to_string(),
            uid: pod.uid.to_string(),
            condition: None,
            nominated_node_name: Some(node.to_string()),
            origin: PatchOrigin::BindingCycle,
        }));
    }
}
