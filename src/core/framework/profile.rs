//! Building a [`Framework`] (one per profile) from configuration: instantiate each enabled plugin
//! once, expand `multiPoint`, and order plugins per extension point exactly as upstream's
//! `NewFramework`/`expandMultiPointPlugins` (pkg/scheduler/framework/runtime/framework.go).

use super::plugins;
use super::{Plugin, Points};
use crate::core::config::{PluginSet, Profile};
use std::collections::HashMap;
use std::fmt;
use std::sync::Arc;

/// Why a profile cannot be built; the message names the profile and plugin.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProfileError(pub String);

impl fmt::Display for ProfileError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for ProfileError {}

/// One profile's plugins, instantiated and ordered per extension point.
pub struct Framework {
    pub scheduler_name: String,
    pub percentage_of_nodes_to_score: Option<i32>,
    /// Every instantiated plugin; the per-point lists index into it.
    pub(crate) plugins: Vec<Arc<dyn Plugin>>,
    /// `plugins[i]`'s whole-list scorer, if it has one (shorter than `plugins` when plugins are
    /// added afterwards: those score node by node).
    pub(crate) score_all: Vec<Option<Arc<dyn plugins::ScoreAll>>>,
    /// `plugins[i]`'s whole-list filter, if it has one (the same way shorter than `plugins`).
    pub(crate) filter_all: Vec<Option<Arc<dyn plugins::FilterAll>>>,
    pub(crate) pre_enqueue: Vec<usize>,
    pub(crate) queue_sort: Vec<usize>,
    pub(crate) pre_filter: Vec<usize>,
    pub(crate) filter: Vec<usize>,
    pub(crate) post_filter: Vec<usize>,
    pub(crate) pre_score: Vec<usize>,
    /// Score plugins with their weights.
    pub(crate) score: Vec<(usize, i64)>,
    pub(crate) reserve: Vec<usize>,
    pub(crate) permit: Vec<usize>,
    pub(crate) pre_bind: Vec<usize>,
    pub(crate) bind: Vec<usize>,
    pub(crate) post_bind: Vec<usize>,
    /// The out-of-tree PreBind/Bind/PostBind plugins, run by the shell's binder threads.
    pub(crate) binding: Option<Arc<super::binding::BindingPlugins>>,
    /// The score vectors of the last cycle, reused by the next one (see [`ScoreScratch`]).
    pub(crate) scratch: std::cell::RefCell<ScoreScratch>,
}

/// Per-node score vectors kept from cycle to cycle: allocated afresh they were a page each, which
/// musl's allocator maps and unmaps again on every cycle (an `munmap`, its TLB shoot-down and the
/// page faults of the next `mmap`).
#[derive(Debug, Default)]
pub(crate) struct ScoreScratch {
    pub(crate) totals: Vec<i64>,
    pub(crate) raw: Vec<i64>,
}

impl fmt::Debug for Framework {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Framework").field("scheduler_name", &self.scheduler_name).field("plugins", &self.plugin_names()).finish()
    }
}

type PointSel = fn(&Points) -> bool;

impl Framework {
    /// Build a framework for one profile.
    pub fn new(profile: &Profile, ctx: &plugins::PluginContext) -> Result<Framework, ProfileError> {
        let name = &profile.scheduler_name;
        let err = |m: String| ProfileError(format!("profile {name:?}: {m}"));
        let p = &profile.plugins;

        // Instantiate every plugin enabled anywhere (upstream pluginsMap), in first-seen order.
        let mut instances: Vec<Arc<dyn Plugin>> = Vec::new();
        let mut score_all = Vec::new();
        let mut filter_all = Vec::new();
        let mut by_name: HashMap<String, usize> = HashMap::new();
        let all_sets: [&PluginSet; 13] = [
            &p.pre_enqueue,
            &p.queue_sort,
            &p.pre_filter,
            &p.filter,
            &p.post_filter,
            &p.pre_score,
            &p.score,
            &p.reserve,
            &p.permit,
            &p.pre_bind,
            &p.bind,
            &p.post_bind,
            &p.multi_point,
        ];
        for set in all_sets {
            for r in &set.enabled {
                if by_name.contains_key(&r.name) {
                    continue;
                }
                let args = profile.args(&r.name);
                let (plugin, scorer, filterer) = plugins::new_plugin_scored(&r.name, args, ctx)
                    .map_err(|e| err(format!("plugin {:?}: {e}", r.name)))?
                    .ok_or_else(|| err(format!("plugin {:?} does not exist", r.name)))?;
                by_name.insert(r.name.clone(), instances.len());
                instances.push(plugin);
                score_all.push(scorer);
                filter_all.push(filterer);
            }
        }
        for c in &profile.plugin_config {
            if !by_name.contains_key(&c.name) && !plugins::is_known(&c.name) {
                return Err(err(format!("pluginConfig for unknown plugin {:?}", c.name)));
            }
        }

        let mut fw = Framework {
            scheduler_name: name.clone(),
            percentage_of_nodes_to_score: profile.percentage_of_nodes_to_score,
            plugins: instances,
            score_all,
            filter_all,
            pre_enqueue: Vec::new(),
            queue_sort: Vec::new(),
            pre_filter: Vec::new(),
            filter: Vec::new(),
            post_filter: Vec::new(),
            pre_score: Vec::new(),
            score: Vec::new(),
            reserve: Vec::new(),
            permit: Vec::new(),
            pre_bind: Vec::new(),
            bind: Vec::new(),
            post_bind: Vec::new(),
            binding: None,
            scratch: Default::default(),
        };

        let points: [(&str, &PluginSet, PointSel); 12] = [
            ("PreEnqueuePlugin", &p.pre_enqueue, |x| x.pre_enqueue),
            ("QueueSortPlugin", &p.queue_sort, |x| x.queue_sort),
            ("PreFilterPlugin", &p.pre_filter, |x| x.pre_filter),
            ("FilterPlugin", &p.filter, |x| x.filter),
            ("PostFilterPlugin", &p.post_filter, |x| x.post_filter),
            ("PreScorePlugin", &p.pre_score, |x| x.pre_score),
            ("ScorePlugin", &p.score, |x| x.score),
            ("ReservePlugin", &p.reserve, |x| x.reserve),
            ("PermitPlugin", &p.permit, |x| x.permit),
            ("PreBindPlugin", &p.pre_bind, |x| x.pre_bind),
            ("BindPlugin", &p.bind, |x| x.bind),
            ("PostBindPlugin", &p.post_bind, |x| x.post_bind),
        ];
        let mut lists: Vec<Vec<usize>> = Vec::new();
        for (kind, set, implements) in points {
            // updatePluginList: specific-point plugins must implement the point, no duplicates.
            let mut enabled: Vec<usize> = Vec::new();
            for r in &set.enabled {
                let idx = by_name[&r.name];
                if !implements(&fw.plugins[idx].points()) {
                    return Err(err(format!("plugin {:?} does not extend {kind} plugin", r.name)));
                }
                if enabled.contains(&idx) {
                    return Err(err(format!("plugin {:?} already registered as {kind:?}", r.name)));
                }
                enabled.push(idx);
            }
            // expandMultiPointPlugins.
            let disabled: Vec<&str> = set.disabled.iter().map(|d| d.name.as_str()).collect();
            let mut ordered = enabled.clone();
            if !disabled.contains(&"*") && !p.multi_point.enabled.is_empty() {
                let mut overrides: Vec<usize> = Vec::new();
                let mut multi: Vec<usize> = Vec::new();
                for r in &p.multi_point.enabled {
                    let idx = by_name[&r.name];
                    if !implements(&fw.plugins[idx].points()) || disabled.contains(&r.name.as_str()) {
                        continue;
                    }
                    if enabled.contains(&idx) {
                        overrides.push(idx);
                        continue;
                    }
                    if multi.contains(&idx) {
                        return Err(err(format!("plugin {:?} already registered as {kind:?}", r.name)));
                    }
                    multi.push(idx);
                }
                ordered = Vec::new();
                for idx in overrides.into_iter().chain(multi).chain(enabled) {
                    if !ordered.contains(&idx) {
                        ordered.push(idx);
                    }
                }
            }
            lists.push(ordered);
        }
        let mut it = lists.into_iter();
        let mut next = || it.next().unwrap_or_default();
        fw.pre_enqueue = next();
        fw.queue_sort = next();
        fw.pre_filter = next();
        fw.filter = next();
        fw.post_filter = next();
        fw.pre_score = next();
        let score_list = next();
        fw.reserve = next();
        fw.permit = next();
        fw.pre_bind = next();
        fw.bind = next();
        fw.post_bind = next();
        fw.binding = super::binding::BindingPlugins::build(&fw.plugins, &fw.pre_bind, &fw.bind, &fw.post_bind);

        // getScoreWeights: the Score list's weight wins over multiPoint's; 0 means 1.
        let mut weights: HashMap<usize, i64> = HashMap::new();
        let mut total: i64 = 0;
        for r in p.score.enabled.iter().chain(p.multi_point.enabled.iter()) {
            let idx = by_name[&r.name];
            if !fw.plugins[idx].points().score || weights.contains_key(&idx) {
                continue;
            }
            let w = if r.weight == 0 { 1 } else { i64::from(r.weight) };
            // Checked: validation refuses negative weights, but a profile is built from any config.
            // checked_add fails exactly where upstream's `> MaxTotalScore - total` test does.
            total = match w.checked_mul(super::MAX_NODE_SCORE).filter(|_| w > 0).and_then(|add| total.checked_add(add)) {
                Some(t) => t,
                None => {
                    return Err(err(format!(
                        "plugins.score.enabled weight {} of plugin {:?}: total score of Score plugins could overflow or weight is negative",
                        r.weight, r.name
                    )))
                }
            };
            weights.insert(idx, w);
        }
        fw.score = score_list.into_iter().map(|idx| (idx, weights.get(&idx).copied().unwrap_or(1))).collect();

        if fw.queue_sort.len() != 1 {
            return Err(err(format!("exactly one queue sort plugin is required, found {}", fw.queue_sort.len())));
        }
        if fw.bind.is_empty() {
            return Err(err("at least one bind plugin is required".into()));
        }
        Ok(fw)
    }

    /// Name of the queue-sort plugin (all profiles must agree on it).
    pub fn queue_sort_name(&self) -> &'static str {
        self.queue_sort.first().map(|i| self.plugins[*i].name()).unwrap_or("")
    }

    /// Names of every instantiated plugin.
    pub fn plugin_names(&self) -> Vec<&'static str> {
        self.plugins.iter().map(|p| p.name()).collect()
    }

    /// Names per extension point, for the startup log and `check-config`.
    pub fn extension_points(&self) -> Vec<(&'static str, Vec<String>)> {
        let names = |l: &[usize]| l.iter().map(|i| self.plugins[*i].name().to_string()).collect::<Vec<_>>();
        vec![
            ("preEnqueue", names(&self.pre_enqueue)),
            ("queueSort", names(&self.queue_sort)),
            ("preFilter", names(&self.pre_filter)),
            ("filter", names(&self.filter)),
            ("postFilter", names(&self.post_filter)),
            ("preScore", names(&self.pre_score)),
            ("score", self.score.iter().map(|(i, w)| format!("{}({w})", self.plugins[*i].name())).collect()),
            ("reserve", names(&self.reserve)),
            ("permit", names(&self.permit)),
            ("preBind", names(&self.pre_bind)),
            ("bind", names(&self.bind)),
            ("postBind", names(&self.post_bind)),
        ]
    }

    /// Whether a plugin of that name is instantiated in this profile.
    /// Whether a plugin of this profile reads the pending pods and the objects of cluster
    /// events: out-of-tree plugins may, GangScheduling does (it counts a group's pods the way
    /// upstream's workload manager does from the pod informer).
    pub fn reads_pending_pods(&self) -> bool {
        self.has_out_of_tree() || self.has_plugin(plugins::names::GANG_SCHEDULING)
    }

    pub fn has_plugin(&self, name: &str) -> bool {
        self.plugins.iter().any(|p| p.name() == name)
    }

    /// Whether any PostFilter (preemption) plugin is enabled.
    pub fn has_post_filter(&self) -> bool {
        !self.post_filter.is_empty()
    }

    /// Run PreEnqueue plugins: `Err` carries the gate that holds the pod back.
    pub fn pre_enqueue(
        &self,
        cache: &crate::core::cache::Cache,
        pod: &crate::core::model::PodInfo,
    ) -> Result<(), super::Rejection> {
        for &i in &self.pre_enqueue {
            let pl = &self.plugins[i];
            pl.pre_enqueue(cache, pod).map_err(|r| r.with_plugin(pl.name()))?;
        }
        Ok(())
    }

    /// Whether `event` may make `pod` schedulable, given the plugins that rejected it
    /// (upstream `isPodWorthRequeuing`): a rejector that registered for the event and whose
    /// queueing hint says Queue moves it; no rejector (or an unknown one) always does.
    pub fn worth_requeuing(
        &self,
        cache: &crate::core::cache::Cache,
        rejectors: &[&str],
        event: &super::ClusterEvent<'_>,
        pod: &crate::core::model::PodInfo,
    ) -> bool {
        if rejectors.is_empty() {
            return true;
        }
        rejectors.iter().any(|name| match self.plugins.iter().find(|p| p.name() == *name) {
            Some(p) => p.events().intersects(event.mask) && p.queueing_hint_in(cache, event, pod) == super::QueueingHint::Queue,
            None => true,
        })
    }

    /// Whether an out-of-tree plugin is enabled (the scheduler then keeps the pending pods for
    /// plugins to read and emits unscheduled-pod-add events).
    pub fn has_out_of_tree(&self) -> bool {
        self.plugins.iter().any(|p| !plugins::is_in_tree(p.name()))
    }

    /// The out-of-tree queue-sort plugin, if the profile replaces PrioritySort.
    pub fn custom_queue_sort(&self) -> Option<Arc<dyn Plugin>> {
        self.queue_sort.first().map(|i| &self.plugins[*i]).filter(|p| !plugins::is_in_tree(p.name())).cloned()
    }

    /// The out-of-tree binding-cycle plugins (`None` for the in-tree ones only).
    pub fn binding_plugins(&self) -> Option<Arc<super::binding::BindingPlugins>> {
        self.binding.clone()
    }

    /// RunReservePluginsUnreserve: every Reserve plugin in reverse order; returns what they
    /// decided about waiting pods and the API writes they ask for.
    pub fn unreserve(
        &self,
        cache: &crate::core::cache::Cache,
        pod: &crate::core::model::PodInfo,
        node: &str,
        waiting: Option<&super::waiting::WaitingPods>,
    ) -> Unreserved {
        let mut handle = super::waiting::WaitingHandle::new(waiting);
        let mut writes = Vec::new();
        for &i in self.reserve.iter().rev() {
            self.plugins[i].unreserve(cache, pod, node, &mut handle);
            writes.extend(self.plugins[i].unreserve_writes(cache, pod, node));
        }
        Unreserved { waiting: handle.into_actions(), writes }
    }
}

/// What Unreserve asked for: decisions about waiting pods and API writes.
#[derive(Debug, Default)]
pub struct Unreserved {
    pub waiting: Vec<super::waiting::WaitingAction>,
    pub writes: Vec<super::ApiWrite>,
}
