//! PostFilter, when no node fits: the PostFilter plugins (preemption) run in order until one
//! nominates a node or rejects for good, and the FitError text is built
//! (schedule_one.go `schedulePod`'s FitError path, framework/runtime/framework.go
//! `RunPostFilterPlugins`). The plugins see the framework through [`Runner`].

use super::{CycleExtenders, CycleParams, CycleState, ScheduleOutcome};
use crate::core::cache::{AssignedPod, Cache, NodeInfo};
use crate::core::extender::ExtenderNote;
use crate::core::framework::instrument::{point, status_label, Rec};
use crate::core::framework::plugins::default_preemption::Candidate;
use crate::core::framework::status::{fit_error_message, Code, Diagnosis, Rejection};
use crate::core::framework::waiting::{WaitingAction, WaitingPods};
use crate::core::framework::{FilterRunner, Framework, PluginState, PostFilterResult};
use crate::core::model::PodInfo;

impl Framework {
    pub(super) fn fit_error(
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
                clock: params.clock,
                extenders: params.extenders.as_ref(),
                notes: std::cell::RefCell::new(Vec::new()),
                waiting: params.waiting,
                waiting_actions: std::cell::RefCell::new(Vec::new()),
            };
            let mut reasons: Vec<std::borrow::Cow<'static, str>> = Vec::new();
            let mut rejector: &'static str = "";
            let mut chosen: Option<PostFilterResult> = None;
            let mut writes = Vec::new();
            for &i in &self.post_filter {
                let pl = &self.plugins[i];
                let rng = &mut *params.rng;
                let mut r = rec.plugin(
                    i,
                    pl.name(),
                    point::POST_FILTER,
                    || pl.post_filter(cache, pod, &diagnosis, &runner, rng),
                    |r| status_label(r.rejection.as_ref().map(|r| r.code)),
                );
                // Every plugin's writes happen, whichever result is kept (they are API calls
                // upstream makes inside PostFilter).
                writes.append(&mut r.writes);
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
            diagnosis.api_writes.append(&mut writes);
            diagnosis.post_filter_msg = post.rejection.as_ref().map(|r| r.message()).unwrap_or_default();
            rec.point(point::POST_FILTER, status_label(post.rejection.as_ref().map(|r| r.code)), start);
        }
        let message = fit_error_message(num_all_nodes, &diagnosis);
        ScheduleOutcome::Unschedulable { num_all_nodes, diagnosis, post_filter: post, message }
    }
}

/// The framework as PostFilter plugins see it.
struct Runner<'a> {
    fw: &'a Framework,
    states: &'a [PluginState],
    skip: &'a [bool],
    rec: Rec<'a>,
    clock: Option<&'a dyn crate::core::framework::Ticker>,
    extenders: Option<&'a CycleExtenders<'a>>,
    /// What the extenders said during preemption (appended to the diagnosis afterwards).
    notes: std::cell::RefCell<Vec<ExtenderNote>>,
    waiting: Option<&'a WaitingPods>,
    /// Waiting pods PostFilter plugins rejected (appended to the diagnosis afterwards).
    waiting_actions: std::cell::RefCell<Vec<WaitingAction>>,
}

impl FilterRunner for Runner<'_> {
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
        self.fw.filter_node(cache, pod, node, states, self.skip, self.rec, self.clock)
    }

    fn waiting_pods(&self) -> Vec<crate::core::framework::waiting::WaitingPod> {
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
