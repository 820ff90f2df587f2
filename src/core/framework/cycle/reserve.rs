//! Reserve and Permit on the chosen node (framework/runtime/framework.go `RunReservePluginsReserve`,
//! `RunPermitPlugins`; schedule_one.go's Unreserve on a rejection): the PreBind actions Reserve
//! collects, the Permit plugins that hold the pod, and a rejection turned into a FitError on that
//! one node.

use super::{CycleState, NodeScores, ScheduleOutcome, ScheduleResult};
use crate::core::cache::Cache;
use crate::core::framework::instrument::{point, status_label, Rec};
use crate::core::framework::status::{fit_error_message, Code, Diagnosis};
use crate::core::framework::waiting::{WaitingHandle, WaitingPods, MAX_PERMIT_WAIT};
use crate::core::framework::{Framework, PermitOutcome, PostFilterResult, PreBindAction};
use crate::core::model::PodInfo;
use crate::core::texts::framework as texts;

impl Framework {
    /// Reserve on the chosen node: collect the PreBind actions; a rejection turns the attempt
    /// into a FitError on that single node (as upstream's Reserve failure handling).
    #[allow(clippy::too_many_arguments)]
    pub(super) fn reserve_on(
        &self,
        cache: &Cache,
        pod: &PodInfo,
        cs: &CycleState,
        result: ScheduleResult,
        diagnosis: Diagnosis,
        scores: Vec<NodeScores>,
        waiting: Option<&WaitingPods>,
        now: Option<std::time::Instant>,
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
                    let outcome = self.permit(cache, pod, cs, result, pre_bind, diagnosis, scores, waiting, now, rec);
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
                let unreserved = self.unreserve(cache, pod, &node, waiting);
                diagnosis.waiting_actions.extend(unreserved.waiting);
                diagnosis.api_writes.extend(unreserved.writes);
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
        pre_bind: Vec<PreBindAction>,
        mut diagnosis: Diagnosis,
        scores: Vec<NodeScores>,
        waiting: Option<&WaitingPods>,
        now: Option<std::time::Instant>,
        rec: Rec<'_>,
    ) -> ScheduleOutcome {
        let mut permit_wait = Vec::new();
        let Some(node) = cache.node_by_name(&result.node) else {
            return ScheduleOutcome::Scheduled { result, pre_bind, diagnosis, scores, permit_wait };
        };
        let mut handle = WaitingHandle::new(waiting).at(now);
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
                        post_filter: PostFilterResult::clear_nominated_node(),
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
                            post_filter: PostFilterResult::clear_nominated_node(),
                            message,
                        };
                    }
                }
            }
        }
        ScheduleOutcome::Scheduled { result, pre_bind, diagnosis, scores, permit_wait: Vec::new() }
    }
}
