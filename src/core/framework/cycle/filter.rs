//! PreFilter and Filter (framework/runtime/framework.go `RunPreFilterPlugins`,
//! `RunFilterPlugins`, `RunFilterPluginsWithNominatedPods`, `RunPreFilterExtensionAddPod` /
//! `RemovePod`): the per-pod states and node-set restrictions PreFilter leaves, and the filters
//! run on one node, with the pods nominated to it and without.

use super::CycleState;
use crate::core::cache::{AssignedPod, Cache, NodeInfo};
use crate::core::framework::instrument::{point, status_label, Rec, SKIP};
use crate::core::framework::status::{Code, Rejection};
use crate::core::framework::{Framework, PluginState, PreFilterOutcome};
use crate::core::model::PodInfo;
use crate::core::texts::framework as texts;

#[derive(Default)]
pub(super) struct PreFilterRun {
    pub(super) restricted: Option<Vec<Box<str>>>,
    pub(super) plugins_with_nodes: Vec<&'static str>,
    pub(super) rejection: Option<Rejection>,
}

impl Framework {
    /// RunPreFilterPlugins (framework/runtime/framework.go): an Unresolvable rejection stops at
    /// once; an Unschedulable one is remembered while the remaining PreFilters still run (their
    /// state is needed by preemption); node-set restrictions are intersected.
    pub(super) fn run_pre_filter(&self, cache: &Cache, pod: &PodInfo, cs: &mut CycleState, rec: Rec<'_>) -> PreFilterRun {
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
    #[allow(clippy::too_many_arguments)]
    fn run_filters(
        &self,
        cache: &Cache,
        pod: &PodInfo,
        node: &NodeInfo,
        states: &[PluginState],
        skip: &[bool],
        rec: Rec<'_>,
        clock: Option<&dyn crate::core::framework::Ticker>,
    ) -> Result<(), Rejection> {
        let filters = || {
            for &i in &self.filter {
                if skip[i] {
                    continue;
                }
                let pl = &self.plugins[i];
                let filtered = match rec.0 {
                    // Not measured: the plugin's name is needed only when it rejects.
                    None => pl.filter_timed(cache, pod, node, &states[i], clock),
                    Some(_) => rec.plugin(
                        i,
                        pl.name(),
                        point::FILTER,
                        || pl.filter_timed(cache, pod, node, &states[i], clock),
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
    #[allow(clippy::too_many_arguments)]
    pub(super) fn filter_node(
        &self,
        cache: &Cache,
        pod: &PodInfo,
        node: &NodeInfo,
        states: &[PluginState],
        skip: &[bool],
        rec: Rec<'_>,
        clock: Option<&dyn crate::core::framework::Ticker>,
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
                self.run_filters(cache, pod, &with, &with_states, skip, rec, clock)?;
            }
        }
        self.run_filters(cache, pod, node, states, skip, rec, clock)
    }

    /// RunPreFilterExtensionAddPod / RemovePod: tell every PreFilter plugin (not skipped) that
    /// `changed` joined (`added`) or left `node`.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn pre_filter_extension(
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
}
