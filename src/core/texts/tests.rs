//! One test per row of [`super::ROWS`] (the test is named after the row's `id`): each produces
//! the text through the code that writes it for users — a plugin's PreFilter/Filter/PostFilter,
//! the framework cycle, the scheduler core (`handle`/`schedule_one`/`tick` → `Effect`s) or the
//! event/condition builders — and compares it with the upstream string written out here
//! literally, never with the constant under test. Then the composed FitError messages of
//! upstream's own tables: pkg/scheduler/framework/types_test.go `TestFitError_Error`,
//! pkg/scheduler/schedule_one_test.go `TestSchedulerSchedulePod` (PreFilter cases) and
//! `TestSchedulerWithVolumeBinding`, and defaultpreemption/default_preemption_test.go
//! `TestPostFilter`, all as of v1.35.0. The volume table's expectations quote
//! `ErrReasonNodeConflict`, so they read as PR #129887 left them.
//!
//! Last, the guards: every row has its test, and no row's text is written inline elsewhere.

use super::{Kind, Origin, ROWS};
use crate::core::api;
use crate::core::cache::storage::testutil::{bound, claimed, class, node_affinity, pod_with_volumes, pv, pvc, pvc_volume};
use crate::core::cache::{AssignedPod, Cache, NodeInfo};
use crate::core::config::{DefaultPreemptionArgs, NodeAffinityArgs, NodeResourcesFitArgs};
use crate::core::events::{self, EventRecord, EventType};
use crate::core::framework::cycle::CycleParams;
use crate::core::framework::plugins::default_preemption::{select_victims_on_node, DefaultPreemption};
use crate::core::framework::plugins::gang_scheduling::GangScheduling;
use crate::core::framework::plugins::names;
use crate::core::framework::plugins::node_affinity::NodeAffinity;
use crate::core::framework::plugins::node_resources_fit::NodeResourcesFit;
use crate::core::framework::plugins::node_volume_limits::NodeVolumeLimits;
use crate::core::framework::plugins::scheduling_gates::SchedulingGates;
use crate::core::framework::plugins::test_util::{
    cache_with, field_term, framework_with, message, req, required, schedule_with, sel_req, selector, term, NodeBuilder,
    PodBuilder,
};
use crate::core::framework::plugins::volume_binding::{find_pod_volumes, PodClaims};
use crate::core::framework::plugins::volume_restrictions::VolumeRestrictions;
use crate::core::framework::plugins::volume_zone::VolumeZone;
use crate::core::framework::status::{fit_error_message, truncate_note};
use crate::core::framework::{
    Code, Diagnosis, FilterRunner, Framework, Plugin, PluginState, Points, PreFilterOutcome, PreScoreOutcome, Rejection,
    ScheduleOutcome,
};
use crate::core::metrics::Metrics;
use crate::core::model::PodInfo;
use crate::core::rng::Rng;
use crate::core::scheduler::{BindFailure, BindOutcome, Effect, Input, Scheduler, Settings};
use crate::core::watched::Change;
use crate::core::watched::KindId;
use std::sync::Arc;
use std::time::{Duration, Instant, SystemTime};

// ---------------------------------------------------------------------------------------------
// Helpers
// ---------------------------------------------------------------------------------------------

/// A worker node with cpu, memory and 110 pod slots.
fn worker(name: &str, cpu: &str) -> NodeBuilder {
    NodeBuilder::new(name)
        .allocatable(&[("cpu", cpu), ("memory", "8Gi"), ("pods", "110")])
        .labels(&[("kubernetes.io/hostname", name)])
}

/// A framework of PrioritySort, the given plugins and DefaultBinder.
fn profile(plugins: &[&str]) -> Framework {
    let mut enabled = vec![(names::PRIORITY_SORT, 0)];
    enabled.extend(plugins.iter().map(|p| (*p, 1)));
    enabled.push((names::DEFAULT_BINDER, 0));
    framework_with(&enabled)
}

/// One cycle of `pod` over `cache` (seeded, every node scored).
fn schedule_in(fw: &Framework, cache: &Cache, pod: &PodInfo) -> ScheduleOutcome {
    let (mut start, mut rng) = (0usize, Rng::seeded(7));
    let mut params = CycleParams {
        next_start_node_index: &mut start,
        percentage_of_nodes_to_score: 0,
        rng: &mut rng,
        explain: crate::core::framework::cycle::Explain::Off,
        extenders: None,
        waiting: None,
        clock: None,
        now: None,
    };
    fw.schedule(cache, pod, &mut params)
}

/// The FitError text of `pod` on `nodes` (with `existing` pods) under a profile of `plugins`.
fn fit_error(plugins: &[&str], nodes: &[NodeBuilder], existing: &[PodBuilder], pod: PodBuilder) -> String {
    message(schedule_with(&profile(plugins), nodes, existing, pod))
}

/// The SchedulerError text of an outcome that must be an error.
fn error_of(outcome: ScheduleOutcome) -> String {
    match outcome {
        ScheduleOutcome::Error { message, .. } => message,
        other => panic!("expected an error, got {other:?}"),
    }
}

/// The PreFilter rejection of an outcome.
fn rejection(outcome: PreFilterOutcome) -> Rejection {
    match outcome {
        PreFilterOutcome::Reject(r) => r,
        other => panic!("expected a rejection, got {other:?}"),
    }
}

/// A cache of nodes labelled with their hostname plus storage objects.
fn storage_cache(
    nodes: &[&str],
    classes: &[api::StorageClass],
    pvcs: &[api::PersistentVolumeClaim],
    pvs: &[api::PersistentVolume],
) -> Cache {
    let mut c = Cache::new();
    for n in nodes {
        c.upsert_node(worker(n, "4").spec());
    }
    for sc in classes {
        c.storage_mut().upsert_storage_class(sc);
    }
    for p in pvcs {
        c.storage_mut().upsert_pvc(p);
    }
    for v in pvs {
        c.storage_mut().upsert_pv(v);
    }
    c.prepare();
    c
}

/// What a fake Filter answers for a node.
type FakeFilter = fn(&NodeInfo) -> Result<(), Rejection>;

/// A test plugin whose extension points misbehave on purpose (upstream's `tf.FakePreFilterPlugin`,
/// `FakeFilterPlugin` and friends), added to a real framework so the real cycle composes what
/// it returns.
struct Fake {
    name: &'static str,
    points: Points,
    pre_filter: Option<fn() -> PreFilterOutcome>,
    filter: Option<FakeFilter>,
    score: Option<fn() -> Result<i64, Rejection>>,
    reserve: Option<fn() -> Rejection>,
}

impl Fake {
    fn new(name: &'static str) -> Fake {
        Fake { name, points: Points::default(), pre_filter: None, filter: None, score: None, reserve: None }
    }
    fn pre_filter(mut self, f: fn() -> PreFilterOutcome) -> Fake {
        self.points.pre_filter = true;
        self.pre_filter = Some(f);
        self
    }
    fn filter(mut self, f: FakeFilter) -> Fake {
        self.points.filter = true;
        self.filter = Some(f);
        self
    }
    fn score(mut self, f: fn() -> Result<i64, Rejection>) -> Fake {
        self.points.score = true;
        self.score = Some(f);
        self
    }
    fn reserve(mut self, f: fn() -> Rejection) -> Fake {
        self.points.reserve = true;
        self.reserve = Some(f);
        self
    }
}

impl Plugin for Fake {
    fn name(&self) -> &'static str {
        self.name
    }
    fn points(&self) -> Points {
        self.points
    }
    fn pre_filter(&self, _: &Cache, _: &PodInfo, _: &mut PluginState) -> PreFilterOutcome {
        self.pre_filter.map_or(PreFilterOutcome::Continue, |f| f())
    }
    fn filter(&self, _: &Cache, _: &PodInfo, node: &NodeInfo, _: &PluginState) -> Result<(), Rejection> {
        self.filter.map_or(Ok(()), |f| f(node))
    }
    fn pre_score(&self, _: &Cache, _: &PodInfo, _: &[&NodeInfo], _: &mut PluginState) -> PreScoreOutcome {
        PreScoreOutcome::Run
    }
    fn score(&self, _: &Cache, _: &PodInfo, _: &NodeInfo, _: &PluginState) -> Result<i64, Rejection> {
        self.score.map_or(Ok(0), |f| f())
    }
    fn reserve(
        &self,
        _: &Cache,
        _: &PodInfo,
        _: &NodeInfo,
        _: &PluginState,
    ) -> Result<Vec<crate::core::framework::PreBindAction>, Rejection> {
        self.reserve.map_or(Ok(Vec::new()), |f| Err(f()))
    }
}

/// Add fake plugins to a framework at the extension points they declare (after the real ones).
fn with_fakes(mut fw: Framework, fakes: Vec<Fake>) -> Framework {
    for f in fakes {
        let p = f.points;
        let i = fw.plugins.len();
        fw.plugins.push(Arc::new(f));
        if p.pre_filter {
            fw.pre_filter.push(i);
        }
        if p.filter {
            fw.filter.push(i);
        }
        if p.score {
            fw.pre_score.push(i);
            fw.score.push((i, 1));
        }
        if p.reserve {
            fw.reserve.push(i);
        }
    }
    fw
}

fn nodes(names: &[&str]) -> Vec<NodeBuilder> {
    names.iter().map(|n| worker(n, "4")).collect()
}

fn only(names: &[&str]) -> PreFilterOutcome {
    PreFilterOutcome::Nodes(names.iter().map(|n| Box::from(*n)).collect())
}

// ---------------------------------------------------------------------------------------------
// The scheduler core, driven through its public API as `simulate` drives it.
// ---------------------------------------------------------------------------------------------

struct Core {
    sched: Scheduler,
    now: Instant,
}

impl Core {
    /// The default configuration's profile (`default-scheduler`), `nodes`, no other pods.
    fn new(nodes: &[NodeBuilder], settings: Settings) -> Core {
        let profiles = crate::core::simulate::frameworks(&crate::core::config::default_config()).unwrap();
        let now = Instant::now();
        let mut sched = Scheduler::new(profiles, &settings, Metrics::new(), Rng::seeded(1), now);
        sched.handle(Input::watch::<api::PriorityClass>(Change::ListBegin), now);
        sched.handle(Input::watch::<api::PriorityClass>(Change::ListDone), now);
        sched.handle(Input::watch_boxed::<api::Node>(Change::ListBegin), now);
        sched.handle(
            Input::watch_boxed::<api::Node>(Change::ListPage(nodes.iter().map(|n| Box::new(n.node.clone())).collect())),
            now,
        );
        sched.handle(Input::watch_boxed::<api::Node>(Change::ListDone), now);
        sched.handle(Input::watch_boxed::<api::Pod>(Change::ListBegin), now);
        sched.handle(Input::watch_boxed::<api::Pod>(Change::ListDone), now);
        sched.handle(Input::Leading(true), now);
        Core { sched, now }
    }

    fn add(&mut self, pod: &PodBuilder) {
        self.sched.handle(Input::watch_boxed::<api::Pod>(Change::Added(Box::new(pod.pod.clone()))), self.now);
    }

    /// Schedule the next pod and return the effects of the attempt.
    fn attempt(&mut self) -> Vec<Effect> {
        self.now += Duration::from_millis(1);
        self.sched.schedule_one(self.now, crate::core::framework::cycle::Explain::Off).expect("a pod to schedule");
        self.sched.take_effects()
    }
}

fn event_of(effects: &[Effect], reason: &str) -> EventRecord {
    effects
        .iter()
        .find_map(|e| match e {
            Effect::Event(ev) if ev.reason == reason => Some(ev.clone()),
            _ => None,
        })
        .unwrap_or_else(|| panic!("no {reason} event in {effects:?}"))
}

fn condition_of(effects: &[Effect]) -> api::PodCondition {
    effects
        .iter()
        .find_map(|e| match e {
            Effect::PatchStatus(p) => p.condition.clone(),
            _ => None,
        })
        .unwrap_or_else(|| panic!("no condition in {effects:?}"))
}

/// One unschedulable attempt of a pod asking for 2 cpu on a 1-cpu node (default profile).
fn too_big_attempt() -> Vec<Effect> {
    let mut core = Core::new(&[worker("n1", "1")], Settings::default());
    core.add(&PodBuilder::new("big").container(&[("cpu", "2")]));
    core.attempt()
}

// ---------------------------------------------------------------------------------------------
// The FitError and the framework
// ---------------------------------------------------------------------------------------------

#[test]
fn fit_error_frame() {
    // PreFilter message, then (without one) the sorted histogram, then PostFilter's message:
    // the default profile's real cycle and the default PostFilters (DynamicResources,
    // DefaultPreemption) on an unresolvable node.
    let ev = event_of(&too_big_attempt(), "FailedScheduling");
    assert_eq!(
        ev.note,
        "0/1 nodes are available: 1 Insufficient cpu. no new claims to deallocate, preemption: 0/1 nodes are available: 1 Preemption is not helpful for scheduling."
    );
    let mut pvc_missing = PodBuilder::new("p");
    pvc_missing.pod.spec.volumes.push(pvc_volume("v", "data"));
    assert_eq!(
        fit_error(&[names::VOLUME_BINDING], &nodes(&["n1", "n2"]), &[], pvc_missing),
        r#"0/2 nodes are available: persistentvolumeclaim "data" not found."#
    );
}

#[test]
fn no_nodes_available() {
    // schedule_one.go: no nodes → ErrNoNodesAvailable, reason Unschedulable.
    let mut core = Core::new(&[], Settings::default());
    core.add(&PodBuilder::new("p"));
    let effects = core.attempt();
    assert_eq!(event_of(&effects, "FailedScheduling").note, "no nodes available to schedule pods");
    let c = condition_of(&effects);
    assert_eq!((c.reason.as_deref(), c.message.as_deref()), (Some("Unschedulable"), Some("no nodes available to schedule pods")));
}

#[test]
fn prefilter_plugin_error() {
    // A PreFilter error is a SchedulerError; a real one: PodTopologySpread's unparsable selector.
    let fw = with_fakes(
        profile(&[]),
        vec![Fake::new("FakePreFilter").pre_filter(|| PreFilterOutcome::Reject(Rejection::error("boom")))],
    );
    let cache = cache_with(&nodes(&["n1"]), &[]);
    assert_eq!(
        error_of(schedule_in(&fw, &cache, &PodBuilder::new("p").info())),
        r#"running PreFilter plugin "FakePreFilter": boom"#
    );
    let bad = PodBuilder::new("p").spread(1, "zone", "DoNotSchedule", Some(selector(vec![sel_req("app", "Bogus", &["x"])])));
    assert_eq!(
        error_of(schedule_with(&profile(&[names::POD_TOPOLOGY_SPREAD]), &nodes(&["n1"]), &[], bad)),
        r#"running PreFilter plugin "PodTopologySpread": get constraints from pod: "Bogus" is not a valid label selector operator"#
    );
}

#[test]
fn prefilter_didnt_satisfy_plugin() {
    // TestSchedulerSchedulePod "test prefilter plugin returning empty node set".
    let fw = with_fakes(
        profile(&[]),
        vec![
            Fake::new("FakePreFilter1").pre_filter(|| PreFilterOutcome::Continue),
            Fake::new("FakePreFilter2").pre_filter(|| only(&[])),
        ],
    );
    let cache = cache_with(&nodes(&["node1"]), &[]);
    assert_eq!(
        message(schedule_in(&fw, &cache, &PodBuilder::new("test-prefilter").info())),
        "0/1 nodes are available: node(s) didn't satisfy plugin FakePreFilter2."
    );
}

#[test]
fn prefilter_didnt_satisfy_plugins_simultaneously() {
    // TestSchedulerSchedulePod "test prefilter plugin returning non-intersecting nodes".
    let fw = with_fakes(
        profile(&[]),
        vec![
            Fake::new("FakePreFilter1").pre_filter(|| PreFilterOutcome::Continue),
            Fake::new("FakePreFilter2").pre_filter(|| only(&["node2"])),
            Fake::new("FakePreFilter3").pre_filter(|| only(&["node1"])),
        ],
    );
    let cache = cache_with(&nodes(&["node1", "node2", "node3"]), &[]);
    assert_eq!(
        message(schedule_in(&fw, &cache, &PodBuilder::new("test-prefilter").info())),
        "0/3 nodes are available: node(s) didn't satisfy plugin(s) [FakePreFilter2 FakePreFilter3] simultaneously."
    );
}

#[test]
fn absent_nodes_didnt_satisfy_plugins() {
    // TestSchedulerSchedulePod "test some nodes are filtered out by prefilter plugin and other
    // are filtered out by filter plugin" and "test prefilter plugin returned an invalid node".
    let fw = with_fakes(
        profile(&[]),
        vec![
            Fake::new("FakePreFilter").pre_filter(|| only(&["node2"])),
            Fake::new("FakeFilter").filter(|n| {
                if n.name() == "node2" {
                    Err(Rejection::unschedulable("injecting failure for pod test-prefilter"))
                } else {
                    Ok(())
                }
            }),
        ],
    );
    let cache = cache_with(&nodes(&["node1", "node2"]), &[]);
    assert_eq!(
        message(schedule_in(&fw, &cache, &PodBuilder::new("test-prefilter").info())),
        "0/2 nodes are available: 1 injecting failure for pod test-prefilter, 1 node(s) didn't satisfy plugin(s) [FakePreFilter]."
    );
    let fw = with_fakes(profile(&[]), vec![Fake::new("FakePreFilter").pre_filter(|| only(&["invalid-node"]))]);
    let cache = cache_with(&nodes(&["1", "2"]), &[]);
    assert_eq!(
        message(schedule_in(&fw, &cache, &PodBuilder::new("test-prefilter").info())),
        "0/2 nodes are available: 2 node(s) didn't satisfy plugin(s) [FakePreFilter]."
    );
}

#[test]
fn filter_plugin_error() {
    // TestSchedulerWithVolumeBinding "predicate error": the binder's error in Filter.
    let fw = with_fakes(profile(&[]), vec![Fake::new("VolumeBinding").filter(|_| Err(Rejection::error("find err")))]);
    let cache = cache_with(&nodes(&["node1"]), &[]);
    assert_eq!(
        error_of(schedule_in(&fw, &cache, &PodBuilder::new("foo").info())),
        r#"running "VolumeBinding" filter plugin: find err"#
    );
}

#[test]
fn score_plugin_error() {
    let fw = with_fakes(profile(&[]), vec![Fake::new("FakeScore").score(|| Err(Rejection::error("score err")))]);
    let cache = cache_with(&nodes(&["n1", "n2"]), &[]);
    assert_eq!(
        error_of(schedule_in(&fw, &cache, &PodBuilder::new("p").info())),
        r#"running Score plugins: plugin "FakeScore" failed with: score err"#
    );
}

#[test]
fn invalid_score() {
    let fw = with_fakes(profile(&[]), vec![Fake::new("FakeScore").score(|| Ok(101))]);
    let cache = cache_with(&nodes(&["n1", "n2"]), &[]);
    assert_eq!(
        error_of(schedule_in(&fw, &cache, &PodBuilder::new("p").info())),
        r#"applying score defaultWeights on Score plugins: plugin "FakeScore" returns an invalid score 101, it should in the range of [0, 100] after normalizing"#
    );
}

#[test]
fn reserve_plugin_error() {
    // TestSchedulerWithVolumeBinding "assume error"; and a Reserve rejection is a one-node
    // FitError ("failed to Reserve on node" in types_test.go).
    let fw = with_fakes(profile(&[]), vec![Fake::new("VolumeBinding").reserve(|| Rejection::error("assume err"))]);
    let cache = cache_with(&nodes(&["node1"]), &[]);
    assert_eq!(
        error_of(schedule_in(&fw, &cache, &PodBuilder::new("foo").info())),
        r#"running Reserve plugin "VolumeBinding": assume err"#
    );
    let fw = with_fakes(
        profile(&[]),
        vec![Fake::new("Reserve-1").reserve(|| Rejection::unschedulable("Node failed Reserve plugin Reserve-1"))],
    );
    assert_eq!(
        message(schedule_in(&fw, &cache, &PodBuilder::new("foo").info())),
        "0/1 nodes are available: 1 Node failed Reserve plugin Reserve-1."
    );
}

#[test]
fn prebind_plugin_error() {
    // TestSchedulerWithVolumeBinding "bind error"; built by the API workers when a claim write
    // or the wait for claims fails.
    assert_eq!(
        super::framework::prebind_plugin_error(names::VOLUME_BINDING, "bind err"),
        r#"running PreBind plugin "VolumeBinding": bind err"#
    );
}

#[test]
fn bind_plugin_error() {
    // RunBindPlugins; built by the API workers for a binding the API server refuses.
    assert_eq!(
        super::framework::bind_plugin_error(names::DEFAULT_BINDER, r#"pods "p" is forbidden"#),
        r#"running Bind plugin "DefaultBinder": pods "p" is forbidden"#
    );
}

#[test]
fn bind_plugin_error_reaches_the_event_unchanged() {
    // The scheduler core writes the binder's message as the FailedScheduling note and the
    // PodScheduled message, as handleSchedulingFailure does (no "binding rejected: " prefix).
    let mut core = Core::new(&[worker("n1", "4")], Settings::default());
    core.add(&PodBuilder::new("p"));
    let effects = core.attempt();
    assert!(effects.iter().any(|e| matches!(e, Effect::Bind(_))), "{effects:?}");
    let msg = r#"running Bind plugin "DefaultBinder": pods "p" is forbidden"#;
    let key = crate::core::model::pod_key("default", "p");
    core.sched.handle(Input::BindDone(BindOutcome::new(key, "n1".into(), Err(BindFailure::Other(msg.into())))), core.now);
    let effects = core.sched.take_effects();
    assert_eq!(event_of(&effects, "FailedScheduling").note, msg);
    assert_eq!(condition_of(&effects).message.as_deref(), Some(msg));
}

#[test]
fn note_truncation() {
    // schedule_one.go truncateMessage: 1024 bytes at most, ending in " ...".
    let long = format!("0/1 nodes are available: {}", "x".repeat(2000));
    let note = events::failed_scheduling(&PodBuilder::new("p").info(), "default-scheduler", &long).note;
    assert_eq!(note.len(), 1024);
    assert_eq!(note, format!("{} ...", &long[..1020]));
    assert_eq!(truncate_note("short"), "short");
}

// ---------------------------------------------------------------------------------------------
// Filter plugins
// ---------------------------------------------------------------------------------------------

#[test]
fn node_unschedulable() {
    let n = [worker("n1", "4").unschedulable()];
    assert_eq!(
        fit_error(&[names::NODE_UNSCHEDULABLE], &n, &[], PodBuilder::new("p")),
        "0/1 nodes are available: 1 node(s) were unschedulable."
    );
}

#[test]
fn node_name() {
    assert_eq!(
        fit_error(&[names::NODE_NAME], &nodes(&["n1"]), &[], PodBuilder::new("p").node_name("n9")),
        "0/1 nodes are available: 1 node(s) didn't match the requested node name."
    );
}

#[test]
fn taint_toleration() {
    // PR #134740: the reason no longer names the taint.
    let n = [worker("n1", "4").taint("dedicated", "secret-team", "NoSchedule")];
    assert_eq!(
        fit_error(&[names::TAINT_TOLERATION], &n, &[], PodBuilder::new("p")),
        "0/1 nodes are available: 1 node(s) had untolerated taint(s)."
    );
}

#[test]
fn node_affinity_pod() {
    let pod = PodBuilder::new("p").node_selector(&[("disk", "ssd")]);
    assert_eq!(
        fit_error(&[names::NODE_AFFINITY], &nodes(&["n1"]), &[], pod),
        "0/1 nodes are available: 1 node(s) didn't match Pod's node affinity/selector."
    );
}

#[test]
fn node_affinity_enforced() {
    let args =
        NodeAffinityArgs { added_affinity: Some(required(vec![term(vec![req("zone", "In", &["foo"])])])), ..Default::default() };
    let pl = NodeAffinity::new(&args).unwrap();
    let cache = cache_with(&[worker("n1", "4").labels(&[("zone", "bar")])], &[]);
    let pod = PodBuilder::new("p").info();
    let mut state = None;
    assert!(matches!(pl.pre_filter(&cache, &pod, &mut state), PreFilterOutcome::Continue));
    let r = pl.filter(&cache, &pod, cache.node_by_name("n1").unwrap(), &state).unwrap_err();
    assert_eq!(
        (r.code, r.message().as_str()),
        (Code::UnschedulableAndUnresolvable, "node(s) didn't match scheduler-enforced node affinity")
    );
}

#[test]
fn node_affinity_conflict() {
    let conflict = PodBuilder::new("p").node_affinity(required(vec![field_term(vec![
        req("metadata.name", "In", &["n1"]),
        req("metadata.name", "In", &["n2"]),
    ])]));
    assert_eq!(
        fit_error(&[names::NODE_AFFINITY], &nodes(&["n1", "n2"]), &[], conflict),
        "0/2 nodes are available: pod affinity terms conflict."
    );
}

#[test]
fn node_ports() {
    let existing = [PodBuilder::new("e").host_port("", "TCP", 8080).node_name("n1")];
    let pod = PodBuilder::new("p").host_port("", "TCP", 8080);
    assert_eq!(
        fit_error(&[names::NODE_PORTS], &nodes(&["n1"]), &existing, pod),
        "0/1 nodes are available: 1 node(s) didn't have free ports for the requested pod ports."
    );
}

#[test]
fn too_many_pods() {
    let n = [NodeBuilder::new("n1").allocatable(&[("cpu", "4"), ("memory", "8Gi"), ("pods", "1")])];
    let existing = [PodBuilder::new("e").node_name("n1")];
    assert_eq!(
        fit_error(&[names::NODE_RESOURCES_FIT], &n, &existing, PodBuilder::new("p")),
        "0/1 nodes are available: 1 Too many pods."
    );
}

#[test]
fn insufficient_resource() {
    let n = [NodeBuilder::new("n1").allocatable(&[
        ("cpu", "1"),
        ("memory", "1Gi"),
        ("ephemeral-storage", "1Gi"),
        ("example.com/gpu", "1"),
        ("pods", "110"),
    ])];
    let pod = PodBuilder::new("p").container(&[
        ("cpu", "2"),
        ("memory", "2Gi"),
        ("ephemeral-storage", "2Gi"),
        ("example.com/gpu", "2"),
    ]);
    assert_eq!(
        fit_error(&[names::NODE_RESOURCES_FIT], &n, &[], pod),
        "0/1 nodes are available: 1 Insufficient cpu, 1 Insufficient ephemeral-storage, 1 Insufficient example.com/gpu, 1 Insufficient memory."
    );
}

#[test]
fn pod_resources_error() {
    // edgesched's own: unparsable requests (the scheduler core refuses such pods before the
    // cycle, see pod_spec_cannot_be_scheduled; plugins called directly say why too).
    let mut p = PodBuilder::new("p").container(&[("cpu", "1x")]);
    p.pod.spec.containers[0].name = "app".into();
    let info = p.info();
    let fit = NodeResourcesFit::new(&NodeResourcesFitArgs::default()).unwrap();
    let r = rejection(fit.pre_filter(&cache_with(&nodes(&["n1"]), &[]), &info, &mut None));
    assert_eq!(r.code, Code::Error);
    let reason = info.unschedulable_reason().unwrap().to_string();
    assert!(reason.starts_with(r#"container "app": cpu: "#), "{reason}");
    assert_eq!(r.message(), format!("pod resources: {reason}"));
}

#[test]
fn disk_conflict() {
    let gce = || api::Volume {
        name: "v".into(),
        gce_persistent_disk: Some(api::GcePersistentDiskSource { pd_name: "foo".into(), read_only: false }),
        ..Default::default()
    };
    let mut c = storage_cache(&["n1"], &[], &[], &[]);
    let user = pod_with_volumes("ns", "user", vec![gce()]);
    c.assume_pod(&user, "n1");
    c.storage_mut().pod_added(&user, "n1");
    let new = pod_with_volumes("ns", "new", vec![gce()]);
    assert_eq!(
        message(schedule_in(&profile(&[names::VOLUME_RESTRICTIONS]), &c, &new)),
        "0/1 nodes are available: 1 node(s) had no available disk."
    );
}

#[test]
fn read_write_once_pod_conflict() {
    let mut rwop = pvc("ns", "claim", "sc");
    rwop.spec.access_modes = vec!["ReadWriteOncePod".into()];
    let mut c = storage_cache(&["n1", "n2"], &[], &[rwop], &[]);
    let user = pod_with_volumes("ns", "user", vec![pvc_volume("v", "claim")]);
    c.assume_pod(&user, "n2");
    c.storage_mut().pod_added(&user, "n2");
    let new = pod_with_volumes("ns", "new", vec![pvc_volume("v", "claim")]);
    assert_eq!(
        message(schedule_in(&profile(&[names::VOLUME_RESTRICTIONS]), &c, &new)),
        "0/2 nodes are available: 2 node has pod using PersistentVolumeClaim with the same name and ReadWriteOncePod access mode."
    );
}

#[test]
fn pvc_not_found() {
    // The lister's NotFound error, as VolumeBinding, VolumeRestrictions and VolumeZone return it.
    let c = storage_cache(&["n1"], &[], &[], &[]);
    let pod = pod_with_volumes("ns", "p", vec![pvc_volume("v", "data")]);
    let want = r#"persistentvolumeclaim "data" not found"#;
    let vb = crate::core::framework::plugins::volume_binding::VolumeBinding::new(None);
    assert_eq!(rejection(vb.pre_filter(&c, &pod, &mut None)).message(), want);
    assert_eq!(rejection(VolumeRestrictions.pre_filter(&c, &pod, &mut None)).message(), want);
    let r = VolumeZone.filter(&c, &pod, c.node_by_name("n1").unwrap(), &None).unwrap_err();
    assert_eq!(r.message(), want);
}

#[test]
fn pv_not_found() {
    let c = storage_cache(&["n1"], &[], &[bound(pvc("ns", "data", "sc"), "pv-gone")], &[]);
    let pod = pod_with_volumes("ns", "p", vec![pvc_volume("v", "data")]);
    let r = VolumeZone.filter(&c, &pod, c.node_by_name("n1").unwrap(), &None).unwrap_err();
    assert_eq!((r.code, r.message().as_str()), (Code::UnschedulableAndUnresolvable, r#"persistentvolume "pv-gone" not found"#));
}

#[test]
fn storage_class_not_found() {
    let c = storage_cache(&["n1"], &[], &[pvc("ns", "data", "gone-class")], &[]);
    let pod = pod_with_volumes("ns", "p", vec![pvc_volume("v", "data")]);
    let r = VolumeZone.filter(&c, &pod, c.node_by_name("n1").unwrap(), &None).unwrap_err();
    assert_eq!(r.message(), r#"storageclass.storage.k8s.io "gone-class" not found"#);
}

#[test]
fn claim_without_name() {
    let c = storage_cache(&["n1"], &[], &[], &[]);
    let pod = pod_with_volumes("ns", "p", vec![pvc_volume("v", "")]);
    let r = VolumeZone.filter(&c, &pod, c.node_by_name("n1").unwrap(), &None).unwrap_err();
    assert_eq!((r.code, r.message().as_str()), (Code::UnschedulableAndUnresolvable, "PersistentVolumeClaim had no name"));
    let r = NodeVolumeLimits.filter(&c, &pod, c.node_by_name("n1").unwrap(), &None).unwrap_err();
    assert_eq!((r.code, r.message().as_str()), (Code::Error, "PersistentVolumeClaim had no name"));
}

/// A generic ephemeral volume `v` of pod `p` (its claim is named `p-v`).
fn ephemeral_volume() -> api::Volume {
    api::Volume { name: "v".into(), ephemeral: Some(serde_json::json!({"volumeClaimTemplate": {}})), ..Default::default() }
}

#[test]
fn ephemeral_not_owned() {
    let c = storage_cache(&["n1"], &[class("wait", true, "")], &[pvc("ns", "p-v", "wait")], &[]);
    let pod = pod_with_volumes("ns", "p", vec![ephemeral_volume()]);
    let vb = crate::core::framework::plugins::volume_binding::VolumeBinding::new(None);
    assert_eq!(
        rejection(vb.pre_filter(&c, &pod, &mut None)).message(),
        "PVC ns/p-v was not created for pod ns/p (pod is not owner)"
    );
}

#[test]
fn max_volume_count() {
    let csi_pv = |name: &str| {
        let mut v = claimed(pv(name, "sc"), "ns", name);
        v.spec.csi =
            Some(api::CsiPersistentVolumeSource { driver: "ebs.csi.aws.com".into(), volume_handle: format!("{name}-h") });
        v
    };
    let mut c = storage_cache(
        &["n1"],
        &[],
        &[bound(pvc("ns", "a", "sc"), "a"), bound(pvc("ns", "b", "sc"), "b")],
        &[csi_pv("a"), csi_pv("b")],
    );
    let mut csi = api::CsiNode::default();
    csi.metadata.name = "n1".into();
    csi.spec.drivers.push(api::CsiNodeDriver {
        name: "ebs.csi.aws.com".into(),
        allocatable: Some(api::VolumeNodeResources { count: Some(1) }),
        ..Default::default()
    });
    c.storage_mut().upsert_csi_node(&csi);
    let user = pod_with_volumes("ns", "user", vec![pvc_volume("v", "a")]);
    c.assume_pod(&user, "n1");
    c.storage_mut().pod_added(&user, "n1");
    let new = pod_with_volumes("ns", "new", vec![pvc_volume("v", "b")]);
    assert_eq!(
        message(schedule_in(&profile(&[names::NODE_VOLUME_LIMITS]), &c, &new)),
        "0/1 nodes are available: 1 node(s) exceed max volume count."
    );
}

#[test]
fn looking_up_pvc() {
    let c = storage_cache(&["n1"], &[], &[], &[]);
    let pod = pod_with_volumes("ns", "p", vec![pvc_volume("v", "data")]);
    let r = NodeVolumeLimits.filter(&c, &pod, c.node_by_name("n1").unwrap(), &None).unwrap_err();
    assert_eq!(r.message(), r#"looking up PVC ns/data: persistentvolumeclaim "data" not found"#);
}

/// TestSchedulerWithVolumeBinding's profile: PrioritySort, VolumeBinding, DefaultBinder; node1.
fn volume_fit_error(pvcs: &[api::PersistentVolumeClaim], pvs: &[api::PersistentVolume], claims: &[&str]) -> String {
    let c = storage_cache(&["node1"], &[class("wait", true, "kubernetes.io/no-provisioner")], pvcs, pvs);
    let pod =
        pod_with_volumes("foo-ns", "foo", claims.iter().enumerate().map(|(i, n)| pvc_volume(&format!("v{i}"), n)).collect());
    message(schedule_in(&profile(&[names::VOLUME_BINDING]), &c, &pod))
}

/// A claim bound to a PV whose node affinity excludes node1.
fn bound_elsewhere() -> (api::PersistentVolumeClaim, api::PersistentVolume) {
    let claim = bound(pvc("foo-ns", "bound", "wait"), "pv-elsewhere");
    let volume = node_affinity(claimed(pv("pv-elsewhere", "wait"), "foo-ns", "bound"), &[("kubernetes.io/hostname", &["node2"])]);
    (claim, volume)
}

#[test]
fn volume_bind_conflict() {
    // TestSchedulerWithVolumeBinding "unbound/no matches".
    assert_eq!(
        volume_fit_error(&[pvc("foo-ns", "unbound", "wait")], &[], &["unbound"]),
        "0/1 nodes are available: 1 node(s) didn't find available persistent volumes to bind."
    );
}

#[test]
fn volume_node_conflict() {
    // TestSchedulerWithVolumeBinding "bound/invalid pv affinity" (PR #129887's wording).
    let (claim, volume) = bound_elsewhere();
    assert_eq!(
        volume_fit_error(&[claim], &[volume], &["bound"]),
        "0/1 nodes are available: 1 node(s) didn't match PersistentVolume's node affinity."
    );
}

#[test]
fn volume_pv_not_exist() {
    assert_eq!(
        volume_fit_error(&[bound(pvc("foo-ns", "data", "wait"), "pv-gone")], &[], &["data"]),
        "0/1 nodes are available: 1 node(s) unavailable due to one or more pvc(s) bound to non-existent pv(s)."
    );
}

#[test]
fn unbound_immediate_claims() {
    let c = storage_cache(&["n1"], &[class("immediate", false, "")], &[pvc("ns", "data", "immediate")], &[]);
    let pod = pod_with_volumes("ns", "p", vec![pvc_volume("v", "data")]);
    assert_eq!(
        message(schedule_in(&profile(&[names::VOLUME_BINDING]), &c, &pod)),
        "0/1 nodes are available: pod has unbound immediate PersistentVolumeClaims."
    );
}

#[test]
fn waiting_for_ephemeral_claim() {
    let c = storage_cache(&["n1"], &[], &[], &[]);
    let pod = pod_with_volumes("ns", "p", vec![ephemeral_volume()]);
    let vb = crate::core::framework::plugins::volume_binding::VolumeBinding::new(None);
    assert_eq!(
        rejection(vb.pre_filter(&c, &pod, &mut None)).message(),
        r#"waiting for ephemeral volume controller to create the persistentvolumeclaim "p-v""#
    );
}

#[test]
fn claim_lost() {
    let mut lost = bound(pvc("ns", "data", "wait"), "pv-1");
    lost.status.phase = "Lost".into();
    let c = storage_cache(&["n1"], &[], &[lost], &[]);
    let vb = crate::core::framework::plugins::volume_binding::VolumeBinding::new(None);
    let pod = pod_with_volumes("ns", "p", vec![pvc_volume("v", "data")]);
    assert_eq!(
        rejection(vb.pre_filter(&c, &pod, &mut None)).message(),
        r#"persistentvolumeclaim "data" bound to non-existent persistentvolume "pv-1""#
    );
}

#[test]
fn claim_being_deleted() {
    let mut deleting = bound(pvc("ns", "data", "wait"), "pv-1");
    deleting.metadata.deletion_timestamp = Some("2025-01-01T00:00:00Z".into());
    let c = storage_cache(&["n1"], &[], &[deleting], &[]);
    let vb = crate::core::framework::plugins::volume_binding::VolumeBinding::new(None);
    let pod = pod_with_volumes("ns", "p", vec![pvc_volume("v", "data")]);
    assert_eq!(rejection(vb.pre_filter(&c, &pod, &mut None)).message(), r#"persistentvolumeclaim "data" is being deleted"#);
}

#[test]
fn no_class_for_claim() {
    // Unreachable through PreFilter (such claims are Immediate); FindPodVolumes reports it.
    let c = storage_cache(&["n1"], &[], &[pvc("ns", "data", "")], &[]);
    let claim = c.storage().claim("ns", "data").unwrap().clone();
    let claims = PodClaims { bound: Vec::new(), to_bind: vec![claim] };
    let r = find_pod_volumes(c.storage(), &claims, c.node_by_name("n1").unwrap()).unwrap_err();
    assert_eq!((r.code, r.message().as_str()), (Code::Error, r#"no class for claim "ns/data""#));
}

#[test]
fn storage_class_missing() {
    let c = storage_cache(&["n1"], &[], &[pvc("ns", "data", "gone")], &[]);
    let claim = c.storage().claim("ns", "data").unwrap().clone();
    let claims = PodClaims { bound: Vec::new(), to_bind: vec![claim] };
    let r = find_pod_volumes(c.storage(), &claims, c.node_by_name("n1").unwrap()).unwrap_err();
    assert_eq!(r.message(), r#"failed to find storage class "gone""#);
}

#[test]
fn volume_zone_conflict() {
    let mut zoned = claimed(pv("pv-1", "sc"), "ns", "data");
    zoned.metadata.labels.insert("topology.kubernetes.io/zone".into(), "zone-b".into());
    let mut c = Cache::new();
    c.upsert_node(worker("n1", "4").labels(&[("topology.kubernetes.io/zone", "zone-a")]).spec());
    c.storage_mut().upsert_pvc(&bound(pvc("ns", "data", "sc"), "pv-1"));
    c.storage_mut().upsert_pv(&zoned);
    c.prepare();
    let pod = pod_with_volumes("ns", "p", vec![pvc_volume("v", "data")]);
    assert_eq!(
        message(schedule_in(&profile(&[names::VOLUME_ZONE]), &c, &pod)),
        "0/1 nodes are available: 1 node(s) had no available volume zone."
    );
}

#[test]
fn claim_without_volume_or_class() {
    let c = storage_cache(&["n1"], &[], &[pvc("ns", "data", "")], &[]);
    let pod = pod_with_volumes("ns", "p", vec![pvc_volume("v", "data")]);
    let r = VolumeZone.filter(&c, &pod, c.node_by_name("n1").unwrap(), &None).unwrap_err();
    assert_eq!(r.message(), "PersistentVolumeClaim had no pv name and storageClass name");
}

#[test]
fn volume_without_name() {
    let c = storage_cache(&["n1"], &[class("immediate", false, "")], &[pvc("ns", "data", "immediate")], &[]);
    let pod = pod_with_volumes("ns", "p", vec![pvc_volume("v", "data")]);
    let r = VolumeZone.filter(&c, &pod, c.node_by_name("n1").unwrap(), &None).unwrap_err();
    assert_eq!(r.message(), "PersistentVolume had no name");
}

#[test]
fn spread_constraints() {
    let app = || Some(selector(vec![sel_req("app", "In", &["web"])]));
    let n = [worker("n1", "4").labels(&[("zone", "a")]), worker("n2", "4").labels(&[("zone", "b")])];
    let existing = [
        PodBuilder::new("e1").labels(&[("app", "web")]).node_name("n1"),
        PodBuilder::new("e2").labels(&[("app", "web")]).node_name("n1"),
    ];
    let pod = PodBuilder::new("p").labels(&[("app", "web")]).spread(1, "zone", "DoNotSchedule", app());
    let mut n = n.to_vec();
    n[1] = n[1].clone().unschedulable();
    assert_eq!(
        fit_error(&[names::NODE_UNSCHEDULABLE, names::POD_TOPOLOGY_SPREAD], &n, &existing, pod),
        "0/2 nodes are available: 1 node(s) didn't match pod topology spread constraints, 1 node(s) were unschedulable."
    );
}

#[test]
fn spread_missing_label() {
    let pod = PodBuilder::new("p").spread(1, "zone", "DoNotSchedule", Some(selector(vec![sel_req("app", "Exists", &[])])));
    assert_eq!(
        fit_error(&[names::POD_TOPOLOGY_SPREAD], &nodes(&["n1"]), &[], pod),
        "0/1 nodes are available: 1 node(s) didn't match pod topology spread constraints (missing required label)."
    );
}

#[test]
fn spread_constraints_error() {
    let pl = crate::core::framework::plugins::pod_topology_spread::PodTopologySpread::new(&Default::default()).unwrap();
    let bad = PodBuilder::new("p").spread(1, "zone", "DoNotSchedule", Some(selector(vec![sel_req("app", "Bogus", &["x"])])));
    let r = rejection(pl.pre_filter(&cache_with(&nodes(&["n1"]), &[]), &bad.info(), &mut None));
    assert_eq!(
        (r.code, r.message().as_str()),
        (Code::Error, r#"get constraints from pod: "Bogus" is not a valid label selector operator"#)
    );
}

#[test]
fn spread_prefilter_state_missing() {
    let pl = crate::core::framework::plugins::pod_topology_spread::PodTopologySpread::new(&Default::default()).unwrap();
    let cache = cache_with(&nodes(&["n1"]), &[]);
    let r = pl.filter(&cache, &PodBuilder::new("p").info(), cache.node_by_name("n1").unwrap(), &None).unwrap_err();
    assert_eq!(
        (r.code, r.message().as_str()),
        (Code::Error, r#"reading "PreFilterPodTopologySpread" from cycleState: not found"#)
    );
}

#[test]
fn spread_prescore_state_missing() {
    let pl = crate::core::framework::plugins::pod_topology_spread::PodTopologySpread::new(&Default::default()).unwrap();
    let cache = cache_with(&nodes(&["n1"]), &[]);
    let r = pl.score(&cache, &PodBuilder::new("p").info(), cache.node_by_name("n1").unwrap(), &None).unwrap_err();
    assert_eq!(r.message(), r#"error reading "PreScorePodTopologySpread" from cycleState: not found"#);
}

fn web() -> Option<api::LabelSelector> {
    Some(selector(vec![sel_req("app", "In", &["web"])]))
}

#[test]
fn existing_anti_affinity() {
    let existing = [PodBuilder::new("e")
        .pod_anti_affinity_required(crate::core::framework::plugins::test_util::pod_term(web(), "kubernetes.io/hostname"))
        .node_name("n1")];
    let pod = PodBuilder::new("p").labels(&[("app", "web")]);
    assert_eq!(
        fit_error(&[names::INTER_POD_AFFINITY], &nodes(&["n1"]), &existing, pod),
        "0/1 nodes are available: 1 node(s) didn't satisfy existing pods anti-affinity rules."
    );
}

#[test]
fn pod_affinity() {
    let pod = PodBuilder::new("p")
        .pod_affinity_required(crate::core::framework::plugins::test_util::pod_term(web(), "kubernetes.io/hostname"));
    let existing = [PodBuilder::new("e").labels(&[("app", "db")]).node_name("n1")];
    assert_eq!(
        fit_error(&[names::INTER_POD_AFFINITY], &nodes(&["n1"]), &existing, pod),
        "0/1 nodes are available: 1 node(s) didn't match pod affinity rules."
    );
}

#[test]
fn pod_anti_affinity() {
    let pod = PodBuilder::new("p")
        .pod_anti_affinity_required(crate::core::framework::plugins::test_util::pod_term(web(), "kubernetes.io/hostname"));
    let existing = [PodBuilder::new("e").labels(&[("app", "web")]).node_name("n1")];
    assert_eq!(
        fit_error(&[names::INTER_POD_AFFINITY], &nodes(&["n1"]), &existing, pod),
        "0/1 nodes are available: 1 node(s) didn't match pod anti-affinity rules."
    );
}

fn inter_pod_affinity() -> crate::core::framework::plugins::inter_pod_affinity::InterPodAffinity {
    crate::core::framework::plugins::inter_pod_affinity::InterPodAffinity::new(&Default::default()).unwrap()
}

#[test]
fn affinity_parsing_pod() {
    // framework.NewPodInfo's aggregate: one error as is, several in brackets.
    let bad = || Some(selector(vec![sel_req("app", "Bogus", &["x"])]));
    let term = |s| crate::core::framework::plugins::test_util::pod_term(s, "kubernetes.io/hostname");
    let cache = cache_with(&nodes(&["n1"]), &[]);
    let one = rejection(inter_pod_affinity().pre_filter(
        &cache,
        &PodBuilder::new("p").pod_affinity_required(term(bad())).info(),
        &mut None,
    ));
    assert_eq!(one.code, Code::UnschedulableAndUnresolvable);
    assert_eq!(one.message(), r#"parsing pod: requiredAffinityTerms: "Bogus" is not a valid label selector operator"#);
    let both = PodBuilder::new("p").pod_affinity_required(term(bad())).pod_anti_affinity_required(term(bad()));
    assert_eq!(
        rejection(inter_pod_affinity().pre_filter(&cache, &both.info(), &mut None)).message(),
        r#"parsing pod: [requiredAffinityTerms: "Bogus" is not a valid label selector operator, requiredAntiAffinityTerms: "Bogus" is not a valid label selector operator]"#
    );
}

#[test]
fn affinity_prefilter_state_missing() {
    let cache = cache_with(&nodes(&["n1"]), &[]);
    let r =
        inter_pod_affinity().filter(&cache, &PodBuilder::new("p").info(), cache.node_by_name("n1").unwrap(), &None).unwrap_err();
    assert_eq!(
        (r.code, r.message().as_str()),
        (Code::Error, r#"error reading "PreFilterInterPodAffinity" from cycleState: not found"#)
    );
}

#[test]
fn affinity_prescore_state_missing() {
    let cache = cache_with(&nodes(&["n1"]), &[]);
    let r =
        inter_pod_affinity().score(&cache, &PodBuilder::new("p").info(), cache.node_by_name("n1").unwrap(), &None).unwrap_err();
    assert_eq!(r.message(), r#"failed to read "PreScoreInterPodAffinity" from cycleState: not found"#);
}

#[test]
fn no_new_claims_to_deallocate() {
    let fw = profile(&[names::NODE_RESOURCES_FIT, names::DYNAMIC_RESOURCES]);
    let cache = cache_with(&[worker("n1", "1")], &[]);
    let pod = PodBuilder::new("p").container(&[("cpu", "2")]).info();
    assert_eq!(
        message(schedule_in(&fw, &cache, &pod)),
        "0/1 nodes are available: 1 Insufficient cpu. no new claims to deallocate"
    );
}

// The structured allocator's texts, each produced by the allocator itself, with the real CEL
// selector environment.

mod dra_support {
    use crate::core::api;
    use crate::core::dra::allocator::{
        AllocError, Allocator, DeviceId, Features, NoDeadline, NodeRef, PreparedSlice, SliceIndex,
    };
    use crate::core::dra::cel::{CelFeatures, SelectorCache};
    use crate::core::gojson;
    use crate::core::model::Labels;
    use serde_json::Value;
    use std::collections::HashSet;
    use std::sync::Arc;

    /// A class `gpu` matching every device.
    pub fn gpu_class() -> Value {
        serde_json::json!({"metadata": {"name": "gpu"}, "spec": {"selectors": [{"cel": {"expression": "true"}}]}})
    }

    /// A slice of driver `gpu.example.com`, pool `node-1`, on node-1 with the given devices.
    pub fn local_slice(devices: Value) -> Value {
        serde_json::json!({"metadata": {"name": "node-1-gpu"}, "spec": {"driver": "gpu.example.com", "nodeName": "node-1",
            "pool": {"name": "node-1", "generation": 1, "resourceSliceCount": 1}, "devices": devices}})
    }

    /// One claim `ns/claim` with one exact request `gpu` modified by `exactly`.
    pub fn claim(exactly: Value) -> Value {
        let mut request = serde_json::json!({"deviceClassName": "gpu", "allocationMode": "ExactCount", "count": 1});
        if let (Some(r), Some(e)) = (request.as_object_mut(), exactly.as_object()) {
            r.extend(e.clone());
        }
        serde_json::json!({"metadata": {"name": "claim", "namespace": "ns"}, "spec": {"devices": {"requests": [{"name": "gpu", "exactly": request}]}}})
    }

    pub fn allocate(
        features: Features,
        claims: Value,
        classes: Value,
        slices: Value,
        allocated: &[DeviceId],
    ) -> Result<(), String> {
        allocate_until(features, claims, classes, slices, allocated, &NoDeadline)
    }

    pub fn allocate_until(
        features: Features,
        claims: Value,
        classes: Value,
        slices: Value,
        allocated: &[DeviceId],
        deadline: &dyn crate::core::dra::allocator::Deadline,
    ) -> Result<(), String> {
        let claims: Vec<api::ResourceClaim> = gojson::from_value(claims).map_err(|e| e.to_string())?;
        let classes: Vec<api::DeviceClass> = gojson::from_value(classes).map_err(|e| e.to_string())?;
        let slices: Vec<api::ResourceSlice> = gojson::from_value(slices).map_err(|e| e.to_string())?;
        let index = SliceIndex::new(slices.iter().map(|s| Arc::new(PreparedSlice::new(s).expect("slice"))));
        let allocated: HashSet<DeviceId> = allocated.iter().cloned().collect();
        let allocator = Allocator::new(features, &allocated, &classes, &index).map_err(|e: AllocError| e.to_string())?;
        let labels = Labels::default();
        let claims: Vec<&api::ResourceClaim> = claims.iter().collect();
        allocator
            .allocate(
                NodeRef { name: "node-1", labels: &labels },
                &claims,
                &mut SelectorCache::new(CelFeatures::default()),
                deadline,
            )
            .map(|_| ())
            .map_err(|e| e.to_string())
    }

    pub fn one_device() -> Value {
        serde_json::json!([{"name": "gpu-0"}])
    }
}

fn dra_err(one_claim: serde_json::Value, slices: serde_json::Value) -> String {
    use dra_support::{allocate, gpu_class};
    allocate(Default::default(), serde_json::json!([one_claim]), serde_json::json!([gpu_class()]), slices, &[])
        .expect_err("fails")
}

/// The error for the plain claim with a class `gpu` of the given selectors, on node-1's device.
fn dra_class_err(class_selectors: serde_json::Value) -> String {
    use dra_support::{allocate, claim, local_slice, one_device};
    let class = serde_json::json!({"metadata": {"name": "gpu"}, "spec": {"selectors": class_selectors}});
    let slices = serde_json::json!([local_slice(one_device())]);
    allocate(Default::default(), serde_json::json!([claim(serde_json::json!({}))]), serde_json::json!([class]), slices, &[])
        .expect_err("fails")
}

#[test]
fn cannot_allocate_all_claims() {
    use dra_support::*;
    let taken = [crate::core::dra::allocator::DeviceId::new("gpu.example.com", "node-1", "gpu-0")];
    let err = allocate(
        Default::default(),
        serde_json::json!([claim(serde_json::json!({}))]),
        serde_json::json!([gpu_class()]),
        serde_json::json!([local_slice(one_device())]),
        &taken,
    );
    assert_eq!(err, Err("cannot allocate all claims".to_string()));
}

#[test]
fn dra_invalid_pools() {
    use dra_support::*;
    let err = dra_err(
        claim(serde_json::json!({})),
        serde_json::json!([local_slice(serde_json::json!([{"name": "gpu-0"}, {"name": "gpu-0"}]))]),
    );
    assert_eq!(err, "invalid resource pools were encountered");
}

#[test]
fn dra_filter_aborted() {
    use dra_support::*;
    struct Passed;
    impl crate::core::dra::allocator::Deadline for Passed {
        fn expired(&self) -> bool {
            true
        }
    }
    let err = allocate_until(
        Default::default(),
        serde_json::json!([claim(serde_json::json!({}))]),
        serde_json::json!([gpu_class()]),
        serde_json::json!([local_slice(one_device())]),
        &[],
        &Passed,
    );
    assert_eq!(err, Err("filter operation aborted: context deadline exceeded".to_string()));
}

#[test]
fn dra_subrequests_disabled() {
    use dra_support::*;
    let claim = serde_json::json!({"metadata": {"name": "claim", "namespace": "ns"}, "spec": {"devices": {"requests": [
        {"name": "gpu", "firstAvailable": [{"name": "one", "deviceClassName": "gpu", "allocationMode": "ExactCount", "count": 1}]}]}}});
    assert_eq!(
        dra_err(claim, serde_json::json!([local_slice(one_device())])),
        "claim ns/claim, request gpu: has subrequests, but the DRAPrioritizedList feature is disabled"
    );
}

#[test]
fn dra_too_many_devices() {
    use dra_support::*;
    assert_eq!(
        dra_err(claim(serde_json::json!({"count": 33})), serde_json::json!([])),
        "claim ns/claim: number of requested devices 33 exceeds the claim limit of 32"
    );
}

#[test]
fn dra_empty_constraint() {
    use dra_support::*;
    let mut c = claim(serde_json::json!({}));
    c["spec"]["devices"]["constraints"] = serde_json::json!([{}]);
    assert_eq!(
        dra_err(c, serde_json::json!([])),
        "claim ns/claim, constraint #0: empty constraint (unsupported constraint type?)"
    );
}

#[test]
fn dra_empty_selector() {
    use dra_support::*;
    assert_eq!(
        dra_err(claim(serde_json::json!({"selectors": [{"cel": {"expression": "true"}}, {}]})), serde_json::json!([])),
        "claim ns/claim, request gpu, selector #1: CEL expression empty (unsupported selector type?)"
    );
}

#[test]
fn dra_admin_access_disabled() {
    use dra_support::*;
    assert_eq!(
        dra_err(claim(serde_json::json!({"adminAccess": false})), serde_json::json!([])),
        "claim ns/claim, request gpu: admin access is requested, but the feature is disabled"
    );
}

#[test]
fn dra_missing_class_name() {
    use dra_support::*;
    assert_eq!(
        dra_err(claim(serde_json::json!({"deviceClassName": ""})), serde_json::json!([])),
        "claim ns/claim, request gpu: missing device class name (unsupported request type?)"
    );
}

#[test]
fn dra_class_not_found() {
    use dra_support::*;
    assert_eq!(
        dra_err(claim(serde_json::json!({"deviceClassName": "fpga"})), serde_json::json!([])),
        "claim ns/claim, request gpu: could not retrieve device class fpga: deviceclass.resource.k8s.io \"fpga\" not found"
    );
}

#[test]
fn dra_all_devices_pool_incomplete() {
    use dra_support::*;
    let mut slice = local_slice(one_device());
    slice["spec"]["pool"]["resourceSliceCount"] = serde_json::json!(2);
    assert_eq!(
        dra_err(claim(serde_json::json!({"allocationMode": "All"})), serde_json::json!([slice])),
        "claim ns/claim, request gpu: asks for all devices, but resource pool gpu.example.com/node-1 is currently being updated"
    );
}

#[test]
fn dra_all_devices_pool_invalid() {
    use dra_support::*;
    let slice = local_slice(serde_json::json!([{"name": "gpu-0"}, {"name": "gpu-0"}]));
    assert_eq!(
        dra_err(claim(serde_json::json!({"allocationMode": "All"})), serde_json::json!([slice])),
        "claim ns/claim, request gpu: asks for all devices, but resource pool gpu.example.com/node-1 is currently invalid"
    );
}

#[test]
fn dra_unsupported_count_mode() {
    use dra_support::*;
    assert_eq!(
        dra_err(claim(serde_json::json!({"allocationMode": "Some"})), serde_json::json!([])),
        "claim ns/claim, request gpu: unsupported count mode Some"
    );
}

#[test]
fn dra_cel_compile_error() {
    use dra_support::*;
    assert_eq!(
        dra_err(claim(serde_json::json!({"selectors": [{"cel": {"expression": "noSuchVar"}}]})), serde_json::json!([local_slice(one_device())])),
        "claim ns/claim: selector #0: CEL compile error: compilation failed: ERROR: <input>:1:1: undeclared reference to 'noSuchVar' (in container '')\n | noSuchVar\n | ^"
    );
    assert_eq!(
        dra_class_err(serde_json::json!([{"cel": {"expression": "noSuchVar"}}])),
        "class gpu: selector #0: CEL compile error: compilation failed: ERROR: <input>:1:1: undeclared reference to 'noSuchVar' (in container '')\n | noSuchVar\n | ^"
    );
}

#[test]
fn dra_cel_runtime_error() {
    use dra_support::*;
    assert_eq!(
        dra_err(
            claim(serde_json::json!({"selectors": [{"cel": {"expression": "device.attributes['x'].y"}}]})),
            serde_json::json!([local_slice(one_device())])
        ),
        "claim ns/claim: selector #0: CEL runtime error: no such key: y"
    );
}

#[test]
fn dra_class_selector_without_cel() {
    assert_eq!(
        dra_class_err(serde_json::json!([{}])),
        "class gpu: selector #0: CEL expression empty (unsupported selector type?)"
    );
}

#[test]
fn dra_constraint_not_satisfied() {
    use dra_support::*;
    let mut c = claim(serde_json::json!({"allocationMode": "All"}));
    c["spec"]["devices"]["constraints"] = serde_json::json!([{"matchAttribute": "gpu.example.com/numa"}]);
    let devices = serde_json::json!([{"name": "gpu-0", "attributes": {"numa": {"int": 0}}}, {"name": "gpu-1", "attributes": {"numa": {"int": 1}}}]);
    assert_eq!(
        dra_err(c, serde_json::json!([local_slice(devices)])),
        "claim ns/claim, request gpu: cannot add device gpu.example.com/node-1/gpu-1 because a claim constraint would not be satisfied"
    );
}

#[test]
fn dra_node_selector_terms() {
    use dra_support::*;
    let slice = serde_json::json!({"metadata": {"name": "fabric"}, "spec": {"driver": "gpu.example.com",
        "pool": {"name": "fabric", "generation": 1, "resourceSliceCount": 1},
        "nodeSelector": {"nodeSelectorTerms": [{"matchFields": [{"key": "metadata.name", "operator": "In", "values": ["node-1"]}]},
                                               {"matchFields": [{"key": "metadata.name", "operator": "In", "values": ["node-2"]}]}]},
        "devices": [{"name": "gpu-0"}]}});
    assert_eq!(
        dra_err(claim(serde_json::json!({})), serde_json::json!([slice])),
        "create NodeSelector for claim claim: unsupported ResourceSlice.NodeSelector with 2 terms"
    );
}

#[test]
fn dra_gather_slice() {
    use dra_support::*;
    let slice = serde_json::json!({"metadata": {"name": "fabric"}, "spec": {"driver": "gpu.example.com",
        "pool": {"name": "fabric", "generation": 1, "resourceSliceCount": 1},
        "nodeSelector": {"nodeSelectorTerms": [{"matchExpressions": [{"key": "zone", "operator": "Near", "values": ["a"]}]}]},
        "devices": [{"name": "gpu-0"}]}});
    let err = dra_err(claim(serde_json::json!({})), serde_json::json!([slice]));
    assert!(
        err.starts_with(
            "gather pool information: failed to perform node selection for slice fabric: failed to parse node selector: "
        ),
        "{err}"
    );
}

#[test]
fn dra_gather_device() {
    use dra_support::*;
    let slice = serde_json::json!({"metadata": {"name": "parts"}, "spec": {"driver": "gpu.example.com",
        "pool": {"name": "parts", "generation": 1, "resourceSliceCount": 1}, "perDeviceNodeSelection": true,
        "devices": [{"name": "gpu-0", "nodeSelector": {"nodeSelectorTerms": [{"matchExpressions": [{"key": "zone", "operator": "Near", "values": ["a"]}]}]}}]}});
    // Per-device node selection is only read with partitionable devices, which edgesched's
    // allocator does not enable: the slice is skipped, and the builder is compared with
    // upstream's format.
    let err = allocate(
        Default::default(),
        serde_json::json!([claim(serde_json::json!({}))]),
        serde_json::json!([gpu_class()]),
        serde_json::json!([slice]),
        &[],
    );
    assert_eq!(err, Err("cannot allocate all claims".to_string()), "skipped while the gate is off");
    assert!(super::dra_allocator::gather_device("parts", "gpu-0", "zone: bad")
        .starts_with("gather pool information: failed to perform node selection for device gpu-0 in slice parts: failed to parse node selector: "));
}

#[test]
fn dra_unsupported_attribute_value() {
    use dra_support::*;
    // A device attribute without a value (never stored by the API server) fails the evaluation.
    let devices = serde_json::json!([{"name": "gpu-0", "attributes": {"model": {}}}]);
    assert_eq!(
        dra_err(claim(serde_json::json!({})), serde_json::json!([local_slice(devices)])),
        "class gpu: selector #0: CEL runtime error: attribute gpu.example.com/model: unsupported attribute value"
    );
}

#[test]
fn dra_device_node_selector() {
    assert_eq!(super::dra_allocator::device_node_selector("zone: bad"), "failed to parse node selector: zone: bad");
}

#[test]
fn dra_unsupported_features() {
    use dra_support::*;
    let features =
        crate::core::dra::allocator::Features { partitionable_devices: true, consumable_capacity: true, ..Default::default() };
    assert_eq!(
        allocate(features, serde_json::json!([]), serde_json::json!([]), serde_json::json!([]), &[]),
        Err("the structured allocator of edgesched does not implement the alpha features DRAConsumableCapacity, DRAPartitionableDevices (enabled by feature gates); disable them to schedule pods with resource claims".to_string())
    );
}

// DynamicResources' texts, each produced by the plugin (alone in a profile, or called at its
// extension point) over a cache holding the DRA objects; the PreBind texts, written by the
// shell's API workers, are compared through their builders.

mod dra_plugin_support {
    use crate::core::api;
    use crate::core::cache::Cache;
    use crate::core::framework::plugins::dynamic_resources::{DraFeatures, DynamicResources};
    use crate::core::framework::plugins::test_util::{cache_with, NodeBuilder, PodBuilder};
    use crate::core::gojson;

    pub fn claim(name: &str, request: serde_json::Value) -> api::ResourceClaim {
        gojson::from_value(serde_json::json!({
            "metadata": {"name": name, "namespace": "default", "uid": format!("uid-{name}"), "resourceVersion": "5"},
            "spec": {"devices": {"requests": [request]}}
        }))
        .expect("claim")
    }

    pub fn gpu() -> serde_json::Value {
        serde_json::json!({"name": "gpu", "exactly": {"deviceClassName": "gpu", "allocationMode": "ExactCount", "count": 1}})
    }

    /// `nodes` (hostname labels), each with `devices` GPUs, the class `gpu`, and `claims`.
    pub fn cache(nodes: &[&str], devices: usize, claims: Vec<api::ResourceClaim>) -> Cache {
        let builders: Vec<NodeBuilder> = nodes
            .iter()
            .map(|n| NodeBuilder::new(n).allocatable(&[("pods", "10")]).labels(&[("kubernetes.io/hostname", n)]))
            .collect();
        let mut c = cache_with(&builders, &[]);
        c.dra_mut().upsert_class(gojson::from_value(serde_json::json!({"metadata": {"name": "gpu"}})).expect("class"));
        for n in nodes {
            let devices: Vec<serde_json::Value> = (0..devices).map(|i| serde_json::json!({"name": format!("gpu-{i}")})).collect();
            let slice: api::ResourceSlice = gojson::from_value(serde_json::json!({
                "metadata": {"name": format!("{n}-gpu")},
                "spec": {"driver": "gpu.example.com", "nodeName": n, "pool": {"name": n, "generation": 1, "resourceSliceCount": 1},
                         "devices": devices}
            }))
            .expect("slice");
            c.dra_mut().upsert_slice(&slice).expect("slice");
        }
        for cl in claims {
            c.dra_mut().upsert_claim(cl);
        }
        c.prepare();
        c
    }

    /// Pod `p` with pod claims (name, claim name, template name) and statuses.
    pub fn pod(claims: serde_json::Value, statuses: serde_json::Value) -> PodBuilder {
        let mut p = PodBuilder::new("p");
        p.pod.spec.resource_claims = gojson::from_value(claims).expect("claims");
        p.pod.status.resource_claim_statuses = gojson::from_value(statuses).expect("statuses");
        p
    }

    pub fn named(claim: &str) -> PodBuilder {
        pod(serde_json::json!([{"name": "gpu", "resourceClaimName": claim}]), serde_json::json!([]))
    }

    pub fn plugin() -> DynamicResources {
        DynamicResources::with_features(None, DraFeatures::defaults())
    }
}

#[test]
fn dra_deallocation_completed() {
    use dra_plugin_support::*;
    let mut c = claim("c", gpu());
    c.status.allocation = Some(
        crate::core::gojson::from_value(serde_json::json!({
            "nodeSelector": {"nodeSelectorTerms": [{"matchFields": [{"key": "metadata.name", "operator": "In", "values": ["gone"]}]}]}
        }))
        .expect("allocation"),
    );
    let fw = profile(&[names::DYNAMIC_RESOURCES]);
    assert_eq!(
        message(schedule_in(&fw, &cache(&["n1"], 1, vec![c]), &named("c").info())),
        "0/1 nodes are available: 1 resourceclaim not available on the node. deallocation of ResourceClaim completed"
    );
}

#[test]
fn dra_not_available_on_node() {
    // The same cycle as `dra_deallocation_completed`: the node's reason.
    use dra_plugin_support::*;
    let mut c = claim("c", gpu());
    c.status.allocation = Some(
        crate::core::gojson::from_value(serde_json::json!({
            "nodeSelector": {"nodeSelectorTerms": [{"matchExpressions": [{"key": "zone", "operator": "In", "values": ["b"]}]}]}
        }))
        .expect("allocation"),
    );
    c.status.reserved_for = vec![api::ResourceClaimConsumerReference {
        api_group: String::new(),
        resource: "pods".into(),
        name: "other".into(),
        uid: "uid-other".into(),
    }];
    let fw = profile(&[names::DYNAMIC_RESOURCES]);
    assert_eq!(
        message(schedule_in(&fw, &cache(&["n1"], 1, vec![c]), &named("c").info())),
        "0/1 nodes are available: 1 resourceclaim not available on the node. still not schedulable"
    );
}

#[test]
fn dra_still_not_schedulable() {
    use dra_plugin_support::*;
    let fw = profile(&[names::DYNAMIC_RESOURCES]);
    assert_eq!(
        message(schedule_in(&fw, &cache(&["n1"], 0, vec![claim("c", gpu())]), &named("c").info())),
        "0/1 nodes are available: 1 cannot allocate all claims. still not schedulable"
    );
}

#[test]
fn dra_timed_out() {
    use crate::core::framework::plugins::dynamic_resources::{DraFeatures, DynamicResources};
    use crate::core::framework::Ticker;
    use dra_plugin_support::*;
    struct Ticking(std::cell::Cell<Instant>);
    impl Ticker for Ticking {
        fn now(&self) -> Instant {
            self.0.set(self.0.get() + Duration::from_millis(1));
            self.0.get()
        }
    }
    let args = crate::core::config::DynamicResourcesArgs {
        filter_timeout: crate::core::config::GoDuration(Duration::from_nanos(1)),
        ..Default::default()
    };
    let pl = DynamicResources::with_features(Some(&args), DraFeatures::defaults());
    let cache = cache(&["n1"], 1, vec![claim("c", gpu())]);
    let pod = named("c").info();
    let mut state = None;
    assert!(matches!(pl.pre_filter(&cache, &pod, &mut state), PreFilterOutcome::Continue));
    let clock = Ticking(std::cell::Cell::new(Instant::now()));
    let r = pl.filter_timed(&cache, &pod, cache.node_by_name("n1").expect("node"), &state, Some(&clock)).unwrap_err();
    assert_eq!((r.code, r.message().as_str()), (Code::UnschedulableAndUnresolvable, "timed out trying to allocate devices"));
}

#[test]
fn dra_allocation_not_found() {
    use dra_plugin_support::*;
    let pl = plugin();
    let cache = cache(&["n1"], 1, vec![claim("c", gpu())]);
    let pod = named("c").info();
    let mut state = None;
    assert!(matches!(pl.pre_filter(&cache, &pod, &mut state), PreFilterOutcome::Continue));
    // Reserve on a node Filter never saw.
    let r = pl.reserve(&cache, &pod, cache.node_by_name("n1").expect("node"), &state).unwrap_err();
    assert_eq!((r.code, r.message().as_str()), (Code::Error, "claim allocation not found for node"));
}

#[test]
fn dra_allocation_count_mismatch() {
    // Reserve's sanity check cannot fail through Filter; its builder against upstream's format.
    assert_eq!(
        super::dynamic_resources::allocation_count_mismatch(2, 1, 1),
        "internal error, have 2 allocations, 1 claims to allocate, want 1 claims"
    );
}

#[test]
fn dra_being_allocated() {
    use dra_plugin_support::*;
    let mut cache = cache(&["n1"], 1, vec![claim("c", gpu())]);
    let in_flight = std::sync::Arc::new(claim("c", gpu()));
    cache.dra_mut().signal_pending_allocation(&"default/other".into(), in_flight);
    let r = rejection(plugin().pre_filter(&cache, &named("c").info(), &mut None));
    assert_eq!(
        (r.code, r.message().as_str()),
        (Code::UnschedulableAndUnresolvable, "resource claim default/c is in the process of being allocated")
    );
}

#[test]
fn dra_class_missing() {
    use dra_plugin_support::*;
    let request =
        serde_json::json!({"name": "gpu", "exactly": {"deviceClassName": "tpu", "allocationMode": "ExactCount", "count": 1}});
    let cache = cache(&["n1"], 1, vec![claim("c", request)]);
    let r = rejection(plugin().pre_filter(&cache, &named("c").info(), &mut None));
    assert_eq!(
        (r.code, r.message().as_str()),
        (Code::UnschedulableAndUnresolvable, "request gpu: device class tpu does not exist")
    );
}

#[test]
fn dra_unsupported_request_type() {
    use dra_plugin_support::*;
    let request = serde_json::json!({"name": "gpu", "exactly": {"allocationMode": "ExactCount", "count": 1}});
    let cache = cache(&["n1"], 1, vec![claim("c", request)]);
    let r = rejection(plugin().pre_filter(&cache, &named("c").info(), &mut None));
    assert_eq!((r.code, r.message().as_str()), (Code::Error, "request gpu: unsupported request type"));
}

#[test]
fn dra_prefilter_subrequests_disabled() {
    use crate::core::framework::plugins::dynamic_resources::{DraFeatures, DynamicResources};
    use dra_plugin_support::*;
    let mut features = DraFeatures::defaults();
    features.allocator.prioritized_list = false;
    let request = serde_json::json!({"name": "gpu", "firstAvailable": [{"name": "big", "deviceClassName": "gpu"}]});
    let cache = cache(&["n1"], 1, vec![claim("c", request)]);
    let r = rejection(DynamicResources::with_features(None, features).pre_filter(&cache, &named("c").info(), &mut None));
    assert_eq!(
        r.message(),
        "resource claim default/c, request gpu: has subrequests, but the DRAPrioritizedList feature is disabled"
    );
}

#[test]
fn dra_unknown_request_type() {
    use dra_plugin_support::*;
    let cache = cache(&["n1"], 1, vec![claim("c", serde_json::json!({"name": "gpu"}))]);
    let r = rejection(plugin().pre_filter(&cache, &named("c").info(), &mut None));
    assert_eq!(r.message(), "resource claim default/c, request gpu: unknown request type");
}

#[test]
fn dra_claim_being_deleted() {
    use dra_plugin_support::*;
    let mut c = claim("c", gpu());
    c.metadata.deletion_timestamp = Some("2026-01-01T00:00:00Z".into());
    let r = plugin().pre_enqueue(&cache(&["n1"], 1, vec![c]), &named("c").info()).unwrap_err();
    assert_eq!((r.code, r.message().as_str()), (Code::UnschedulableAndUnresolvable, "resourceclaim \"c\" is being deleted"));
}

#[test]
fn dra_claim_not_created() {
    use dra_plugin_support::*;
    let p = pod(serde_json::json!([{"name": "gpu", "resourceClaimTemplateName": "t"}]), serde_json::json!([]));
    let r = plugin().pre_enqueue(&cache(&["n1"], 1, vec![]), &p.info()).unwrap_err();
    assert_eq!(r.message(), "pod \"default/p\": ResourceClaim not created yet");
}

#[test]
fn dra_claim_api_unsupported() {
    use dra_plugin_support::*;
    let p = pod(serde_json::json!([{"name": "gpu"}]), serde_json::json!([]));
    let r = plugin().pre_enqueue(&cache(&["n1"], 1, vec![]), &p.info()).unwrap_err();
    assert_eq!(r.message(), "pod \"default/p\", spec.resourceClaim \"gpu\": none of the supported fields are set");
}

#[test]
fn dra_claim_not_owner() {
    use dra_plugin_support::*;
    let p = pod(
        serde_json::json!([{"name": "gpu", "resourceClaimTemplateName": "t"}]),
        serde_json::json!([{"name": "gpu", "resourceClaimName": "p-gpu"}]),
    );
    let r = plugin().pre_enqueue(&cache(&["n1"], 1, vec![claim("p-gpu", gpu())]), &p.info()).unwrap_err();
    assert_eq!(r.message(), "ResourceClaim default/p-gpu was not created for pod default/p (pod is not owner)");
}

#[test]
fn dra_claim_not_found() {
    use dra_plugin_support::*;
    let r = plugin().pre_enqueue(&cache(&["n1"], 1, vec![]), &named("c").info()).unwrap_err();
    assert_eq!(r.message(), "could not find ResourceClaim \"default/c\"");
}

#[test]
fn dra_claim_out_of_sync() {
    use dra_plugin_support::*;
    let mut cache = cache(&["n1"], 1, vec![claim("c", gpu())]);
    let mut older = claim("c", gpu());
    older.metadata.resource_version = "4".into();
    assert_eq!(
        cache.dra_mut().assume_claim(older).unwrap_err().0,
        "ResourceClaim \"default/c\" is out of sync (stored: 5, assume: 4)"
    );
}

#[test]
fn dra_claim_version_unreadable() {
    use dra_plugin_support::*;
    let mut cache = cache(&["n1"], 1, vec![claim("c", gpu())]);
    let mut odd = claim("c", gpu());
    odd.metadata.resource_version = "abc".into();
    assert_eq!(
        cache.dra_mut().assume_claim(odd).unwrap_err().0,
        "error parsing ResourceVersion \"abc\" for ResourceClaim \"default/c\": strconv.ParseInt: parsing \"abc\": invalid syntax"
    );
}

#[test]
fn dra_claim_deleted_meanwhile() {
    assert_eq!(super::dynamic_resources::claim_deleted_meanwhile("ns/c"), "claim ns/c got deleted in the meantime");
}

#[test]
fn dra_claim_allocated_elsewhere() {
    assert_eq!(super::dynamic_resources::claim_allocated_elsewhere("ns/c"), "claim ns/c got allocated elsewhere in the meantime");
}

#[test]
fn dra_add_finalizer_failed() {
    assert_eq!(super::dynamic_resources::add_finalizer_failed("ns/c", "boom"), "add finalizer to claim ns/c: boom");
}

#[test]
fn dra_add_allocation_failed() {
    assert_eq!(
        super::dynamic_resources::add_allocation_failed("ns/c", "boom"),
        "add allocation and reservation to claim ns/c: boom"
    );
}

#[test]
fn dra_add_reservation_failed() {
    assert_eq!(super::dynamic_resources::add_reservation_failed("ns/c", "boom"), "add reservation to claim ns/c: boom");
}

#[test]
fn dra_refresh_after_conflict_failed() {
    assert_eq!(
        super::dynamic_resources::refresh_after_conflict_failed("ns/c", "boom"),
        "get updated claim ns/c after conflict: boom"
    );
}

#[test]
fn dra_unreadable() {
    use crate::core::cache::dra::DraKind;
    use dra_plugin_support::*;
    let mut cache = cache(&["n1"], 1, vec![]);
    cache.dra_mut().set_unreadable(DraKind::ResourceClaims);
    cache.dra_mut().set_unreadable(DraKind::DeviceClasses);
    let r = rejection(plugin().pre_filter(&cache, &named("c").info(), &mut None));
    assert_eq!(
        r.message(),
        "the resource.k8s.io/v1 kinds deviceclasses, resourceclaims cannot be read (forbidden by RBAC or not served by the API server); pods with resource claims wait until the scheduler may list and watch them"
    );
}

#[test]
fn dra_fewer_allocations_than_claims() {
    // Upstream's Score walks all the pod's claims against the allocations of those it had to
    // allocate: an allocated claim next to an unallocated one fails when several nodes fit.
    use dra_plugin_support::*;
    let mut allocated = claim("a", gpu());
    allocated.status.allocation = Some(api::AllocationResult::default());
    let cache = cache(&["n1", "n2"], 1, vec![allocated, claim("b", gpu())]);
    let p = pod(
        serde_json::json!([{"name": "one", "resourceClaimName": "a"}, {"name": "two", "resourceClaimName": "b"}]),
        serde_json::json!([]),
    );
    let fw = profile(&[names::DYNAMIC_RESOURCES]);
    match schedule_in(&fw, &cache, &p.info()) {
        ScheduleOutcome::Error { message, .. } => assert_eq!(
            message,
            "running Score plugins: plugin \"DynamicResources\" failed with: number of allocations 1 is smaller than number of claims"
        ),
        other => panic!("{other:?}"),
    }
}

fn gang_pod(workload: &str, group: &str) -> PodInfo {
    let mut p = PodBuilder::new("p");
    p.pod.spec.workload_ref =
        Some(api::WorkloadReference { name: workload.into(), pod_group: group.into(), ..Default::default() });
    p.info()
}

fn gang_cache(min_count: i32) -> Cache {
    let mut w = api::Workload::default();
    w.metadata.namespace = gang_pod("w", "g").namespace.to_string();
    w.metadata.name = "w".into();
    w.spec.pod_groups = vec![api::workload_v1alpha1::PodGroup {
        name: "g".into(),
        policy: api::workload_v1alpha1::PodGroupPolicy {
            gang: Some(api::workload_v1alpha1::GangSchedulingPolicy { min_count }),
            ..Default::default()
        },
    }];
    let mut cache = cache_with(&[NodeBuilder::new("n1")], &[]);
    cache.track_pending_pods();
    cache.workloads.upsert(w);
    cache
}

#[test]
fn gang_waiting_for_workload() {
    // gangscheduling_test.go "gang pod fails PreEnqueue when workload is not yet created".
    let msg = GangScheduling.pre_enqueue(&Cache::new(), &gang_pod("w", "g")).unwrap_err().message();
    assert_eq!(msg, "waiting for pods's workload \"w\" to appear in scheduling queue");
}

#[test]
fn gang_no_pod_group() {
    let msg = GangScheduling.pre_enqueue(&gang_cache(2), &gang_pod("w", "other")).unwrap_err().message();
    assert_eq!(msg, "pod group \"other\" doesn't exist for a workload \"w\"");
}

#[test]
fn gang_waiting_for_min_count() {
    // gangscheduling_test.go "gang pod fails PreEnqueue when quorum is not met".
    let mut cache = gang_cache(2);
    let p = gang_pod("w", "g");
    cache.set_pending_pod(&std::sync::Arc::new(p.clone()));
    assert_eq!(
        GangScheduling.pre_enqueue(&cache, &p).unwrap_err().message(),
        "waiting for minCount pods from a gang to appear in scheduling queue"
    );
}

#[test]
fn gang_workload_gone() {
    let cache = cache_with(&[NodeBuilder::new("n1")], &[]);
    let p = gang_pod("w", "g");
    let node = cache.node_by_name("n1").expect("node");
    let mut h = crate::core::framework::waiting::WaitingHandle::new(None);
    match GangScheduling.permit(&cache, &p, node, &None, &mut h) {
        crate::core::framework::PermitOutcome::Reject(r) => assert_eq!(
            r.message(),
            format!("failed to get workload {}/w: workload.scheduling.k8s.io \"w\" not found", p.namespace)
        ),
        _ => panic!("not rejected"),
    }
}

#[test]
fn waiting_for_scheduling_gates() {
    // scheduling_gates_test.go "pod carries scheduling gates".
    let mut p = PodBuilder::new("p");
    p.pod.spec.scheduling_gates =
        vec![api::PodSchedulingGate { name: "foo".into() }, api::PodSchedulingGate { name: "bar".into() }];
    assert_eq!(
        SchedulingGates.pre_enqueue(&crate::core::cache::Cache::new(), &p.info()).unwrap_err().message(),
        "waiting for scheduling gates: [foo bar]"
    );
}

// ---------------------------------------------------------------------------------------------
// Preemption: default_preemption_test.go TestPostFilter, with NodeResourcesFit as the only
// Filter/PreFilter plugin as upstream registers it, and the node statuses the table passes in.
// ---------------------------------------------------------------------------------------------

/// The framework upstream's table builds: NodeResourcesFit as PreFilter and Filter.
struct FitRunner {
    fit: NodeResourcesFit,
    states: Vec<PluginState>,
}

impl FitRunner {
    fn new(cache: &Cache, pod: &PodInfo) -> FitRunner {
        let fit = NodeResourcesFit::new(&NodeResourcesFitArgs::default()).unwrap();
        let mut state = None;
        let _ = fit.pre_filter(cache, pod, &mut state);
        FitRunner { fit, states: vec![state] }
    }
}

impl FilterRunner for FitRunner {
    fn states(&self) -> &[PluginState] {
        &self.states
    }
    fn clone_states(&self, _: &Cache, _: &PodInfo, states: &[PluginState]) -> Vec<PluginState> {
        states.iter().map(|s| self.fit.clone_state(s)).collect()
    }
    fn remove_pod(&self, _: &mut [PluginState], _: &PodInfo, _: &AssignedPod, _: &NodeInfo) {}
    fn add_pod(&self, _: &mut [PluginState], _: &PodInfo, _: &AssignedPod, _: &NodeInfo) {}
    fn run_filters(&self, cache: &Cache, pod: &PodInfo, node: &NodeInfo, states: &[PluginState]) -> Result<(), Rejection> {
        self.fit.filter(cache, pod, node, &states[0])
    }
}

const HIGH: i32 = 100;

fn prio(p: PodBuilder, priority: i32) -> PodBuilder {
    let mut p = p;
    p.pod.spec.priority = Some(priority);
    p
}

/// `st.MakeNode().Capacity(nodeRes)`: 200m cpu, 400 bytes, 32 pods.
fn node_res(name: &str) -> NodeBuilder {
    NodeBuilder::new(name).allocatable(&[("cpu", "200m"), ("memory", "400"), ("pods", "32")])
}

/// `st.MakeNode().Capacity(onePodRes)`.
fn one_pod_res(name: &str) -> NodeBuilder {
    NodeBuilder::new(name).allocatable(&[("pods", "1")])
}

/// Run DefaultPreemption's PostFilter; `statuses` are the node statuses the table passes in
/// (nodes not listed are absent, i.e. UnschedulableAndUnresolvable).
fn post_filter(nodes: &[NodeBuilder], pods: &[PodBuilder], pod: PodBuilder, statuses: &[(&str, Code)]) -> Option<String> {
    let cache = cache_with(nodes, pods);
    let pod = pod.info();
    let mut d = Diagnosis::default();
    for (n, code) in statuses {
        d.node_to_status.insert((*n).into(), Rejection { code: *code, reasons: Default::default(), plugin: "" });
    }
    d.absent_nodes_status = Some(Rejection::unresolvable(""));
    let runner = FitRunner::new(&cache, &pod);
    let pl = DefaultPreemption { args: DefaultPreemptionArgs::default() };
    let r = pl.post_filter(&cache, &pod, &d, &runner, &mut Rng::seeded(1));
    r.rejection.map(|r| r.message())
}

/// largeRes: 300m cpu, 300 bytes.
fn large(p: PodBuilder) -> PodBuilder {
    p.container(&[("cpu", "300m"), ("memory", "300")])
}

#[test]
fn preemption_prefix() {
    // TestPostFilter "no candidate nodes found, no enough resource after removing low priority pods".
    let nodes = [node_res("node1"), node_res("node2")];
    let pods = [PodBuilder::new("p1").node_name("node1"), PodBuilder::new("p2").node_name("node2")];
    assert_eq!(
        post_filter(
            &nodes,
            &pods,
            large(prio(PodBuilder::new("p"), HIGH)),
            &[("node1", Code::Unschedulable), ("node2", Code::Unschedulable)]
        )
        .as_deref(),
        Some("preemption: 0/2 nodes are available: 2 Insufficient cpu.")
    );
}

#[test]
fn preemption_policy_never() {
    let mut pod = prio(PodBuilder::new("p"), HIGH);
    pod.pod.spec.preemption_policy = Some("Never".into());
    assert_eq!(
        post_filter(&[one_pod_res("node1")], &[PodBuilder::new("p1").node_name("node1")], pod, &[("node1", Code::Unschedulable)])
            .as_deref(),
        Some("preemption: not eligible due to preemptionPolicy=Never.")
    );
}

#[test]
fn preemption_terminating_victim() {
    let mut victim = PodBuilder::new("p1").node_name("node1").terminating();
    victim.pod.status.conditions.push(crate::core::conditions::disruption_target("default-scheduler"));
    let mut pod = prio(PodBuilder::new("p"), HIGH);
    pod.pod.status.nominated_node_name = "node1".into();
    assert_eq!(
        post_filter(&[one_pod_res("node1")], &[victim], pod, &[("node1", Code::Unschedulable)]).as_deref(),
        Some("preemption: not eligible due to a terminating pod on the nominated node.")
    );
}

#[test]
fn preemption_not_helpful() {
    // TestPostFilter "preemption should respect filteredNodesStatuses", "... absent
    // NodeToStatusReader entry ..." and "no candidate nodes found with mixed reason, 2
    // UnschedulableAndUnresolvable nodes and 2 nodes don't have enough CPU resource".
    let pods = [PodBuilder::new("p1").node_name("node1")];
    let high = || prio(PodBuilder::new("p"), HIGH);
    let want = Some("preemption: 0/1 nodes are available: 1 Preemption is not helpful for scheduling.");
    assert_eq!(
        post_filter(&[one_pod_res("node1")], &pods, high(), &[("node1", Code::UnschedulableAndUnresolvable)]).as_deref(),
        want
    );
    assert_eq!(post_filter(&[one_pod_res("node1")], &pods, high(), &[]).as_deref(), want);
    let nodes = [node_res("node1"), node_res("node2"), node_res("node3"), node_res("node4")];
    let pods = [PodBuilder::new("p1").node_name("node1"), PodBuilder::new("p2").node_name("node2")];
    let statuses =
        [("node1", Code::Unschedulable), ("node2", Code::Unschedulable), ("node4", Code::UnschedulableAndUnresolvable)];
    assert_eq!(
        post_filter(&nodes, &pods, large(high()), &statuses).as_deref(),
        Some("preemption: 0/4 nodes are available: 2 Insufficient cpu, 2 Preemption is not helpful for scheduling.")
    );
}

#[test]
fn preemption_no_victims() {
    // TestPostFilter "pod with tied priority is still unschedulable" and "no candidate nodes
    // found with mixed reasons, no lower priority pod and no enough CPU resource".
    assert_eq!(
        post_filter(
            &[one_pod_res("node1")],
            &[PodBuilder::new("p1").node_name("node1")],
            PodBuilder::new("p"),
            &[("node1", Code::Unschedulable)]
        )
        .as_deref(),
        Some("preemption: 0/1 nodes are available: 1 No preemption victims found for incoming pod.")
    );
    let nodes = [one_pod_res("node1"), node_res("node2"), one_pod_res("node3")];
    let pods = [
        prio(PodBuilder::new("p1").node_name("node1"), HIGH),
        PodBuilder::new("p2").node_name("node2"),
        prio(PodBuilder::new("p3").node_name("node3"), HIGH),
    ];
    let statuses = [("node1", Code::Unschedulable), ("node2", Code::Unschedulable), ("node3", Code::Unschedulable)];
    assert_eq!(
        post_filter(&nodes, &pods, large(prio(PodBuilder::new("p"), HIGH)), &statuses).as_deref(),
        Some("preemption: 0/3 nodes are available: 1 Insufficient cpu, 2 No preemption victims found for incoming pod.")
    );
}

/// A runner whose filters always pass: the pod fits without evicting anyone.
struct PassRunner;

impl FilterRunner for PassRunner {
    fn states(&self) -> &[PluginState] {
        &[]
    }
    fn clone_states(&self, _: &Cache, _: &PodInfo, _: &[PluginState]) -> Vec<PluginState> {
        Vec::new()
    }
    fn remove_pod(&self, _: &mut [PluginState], _: &PodInfo, _: &AssignedPod, _: &NodeInfo) {}
    fn add_pod(&self, _: &mut [PluginState], _: &PodInfo, _: &AssignedPod, _: &NodeInfo) {}
    fn run_filters(&self, _: &Cache, _: &PodInfo, _: &NodeInfo, _: &[PluginState]) -> Result<(), Rejection> {
        Ok(())
    }
}

#[test]
fn preemption_no_victim_on_node() {
    let cache = cache_with(&[one_pod_res("node1")], &[PodBuilder::new("p1").node_name("node1")]);
    let pod = prio(PodBuilder::new("p"), HIGH).info();
    let r = select_victims_on_node(&cache, &pod, cache.node_by_name("node1").unwrap(), &PassRunner).unwrap_err();
    assert_eq!((r.code, r.message().as_str()), (Code::Error, r#"expected at least one victim pod on node "node1""#));
}

// ---------------------------------------------------------------------------------------------
// Events and conditions
// ---------------------------------------------------------------------------------------------

#[test]
fn event_type_normal() {
    let ev = events::scheduled(&PodBuilder::new("p").info(), "n1", "default-scheduler");
    assert_eq!(ev.type_.as_str(), "Normal");
}

#[test]
fn event_type_warning() {
    assert_eq!(event_of(&too_big_attempt(), "FailedScheduling").type_.as_str(), "Warning");
    assert_eq!(EventType::Warning.as_str(), "Warning");
}

#[test]
fn failed_scheduling_event() {
    let ev = event_of(&too_big_attempt(), "FailedScheduling");
    assert_eq!((ev.reason.as_str(), ev.reporting_controller.as_str()), ("FailedScheduling", "default-scheduler"));
}

#[test]
fn scheduling_action() {
    assert_eq!(event_of(&too_big_attempt(), "FailedScheduling").action, "Scheduling");
}

#[test]
fn scheduled_event() {
    assert_eq!(events::scheduled(&PodBuilder::new("p").info(), "n1", "default-scheduler").reason, "Scheduled");
}

#[test]
fn binding_action() {
    assert_eq!(events::scheduled(&PodBuilder::new("p").info(), "n1", "default-scheduler").action, "Binding");
}

#[test]
fn scheduled_note() {
    // TestSchedulerScheduleOne / e2e: "Successfully assigned default/on-ssd to ssd".
    let ev = events::scheduled(&PodBuilder::new("on-ssd").info(), "ssd", "default-scheduler");
    assert_eq!(ev.note, "Successfully assigned default/on-ssd to ssd");
}

fn preempted_low_by_high() -> EventRecord {
    let victim = events::pod_reference("ns", "low", "uid-low", "");
    let preemptor = events::pod_reference("ns", "high", "uid-high", "5");
    events::preempted(victim, preemptor, "n1", "default-scheduler")
}

#[test]
fn preempted_event() {
    assert_eq!(preempted_low_by_high().reason, "Preempted");
}

#[test]
fn preempting_action() {
    assert_eq!(preempted_low_by_high().action, "Preempting");
}

#[test]
fn preempted_note() {
    let ev = preempted_low_by_high();
    assert_eq!((ev.note.as_str(), ev.type_), ("Preempted by pod uid-high on node n1", EventType::Normal));
}

#[test]
fn preempted_names_the_preemptor_as_the_related_object() {
    // executor.go: Eventf(victim, preemptor, ...).
    let ev = preempted_low_by_high();
    assert_eq!((ev.regarding.name.as_str(), ev.related.as_ref().map(|r| r.name.as_str())), ("low", Some("high")));
}

#[test]
fn leader_election_event() {
    // The shell writes the Lease event; tests/e2e_ha.rs pins it end to end.
    assert_eq!(super::events::REASON_LEADER_ELECTION, "LeaderElection");
}

#[test]
fn became_leader_note() {
    // `RecordEvent("became leader")` formats "<identity> became leader"; tests/e2e_ha.rs pins
    // the event the shell writes end to end.
    assert_eq!(super::events::became_leader("node-a_8c0f"), "node-a_8c0f became leader");
}

#[test]
fn skip_deleting_pod() {
    let mut core = Core::new(&[worker("n1", "4")], Settings::default());
    core.add(&PodBuilder::new("going").terminating());
    let ev = event_of(&core.attempt(), "FailedScheduling");
    assert_eq!((ev.action.as_str(), ev.note.as_str()), ("Scheduling", "skip schedule deleting pod: default/going"));
}

/// A scheduler watching leases that warns about unserved names, with a pod of `scheduler_name`
/// pending past the grace period.
fn unserved_note(scheduler_name: &str) -> EventRecord {
    let settings = Settings { warn_unserved_scheduler_names: true, ..Default::default() };
    let mut core = Core::new(&[worker("n1", "4")], settings);
    core.sched.watch_kinds(&[KindId::Node, KindId::Pod, KindId::PriorityClass, KindId::Lease]);
    core.sched.handle(Input::watch::<api::Lease>(Change::ListBegin), core.now);
    core.sched.handle(Input::watch::<api::Lease>(Change::ListDone), core.now);
    let mut p = PodBuilder::new("orphan");
    p.pod.spec.scheduler_name = scheduler_name.into();
    core.add(&p);
    core.sched.tick(core.now + crate::core::scheduler::UNSERVED_GRACE + Duration::from_secs(1), SystemTime::now());
    event_of(&core.sched.take_effects(), "NoSchedulerForName")
}

#[test]
fn no_scheduler_for_name_event() {
    let ev = unserved_note("my-scheduler");
    assert_eq!((ev.type_, ev.action.as_str()), (EventType::Warning, "Scheduling"));
}

#[test]
fn no_scheduler_for_name_note() {
    assert_eq!(
        unserved_note("my-scheduler").note,
        r#"no running scheduler serves schedulerName "my-scheduler"; running schedulers: default-scheduler"#
    );
    assert_eq!(
        unserved_note("default-schedular").note,
        r#"no running scheduler serves schedulerName "default-schedular" (did you mean "default-scheduler"?); running schedulers: default-scheduler"#
    );
    assert_eq!(
        super::events::no_scheduler_for_name("x", None, &[]),
        r#"no running scheduler serves schedulerName "x"; running schedulers: none seen"#
    );
}

#[test]
fn pod_scheduled_condition() {
    let c = condition_of(&too_big_attempt());
    assert_eq!((c.type_.as_str(), c.status.as_str()), ("PodScheduled", "False"));
}

#[test]
fn unschedulable_reason() {
    let effects = too_big_attempt();
    let c = condition_of(&effects);
    assert_eq!(c.reason.as_deref(), Some("Unschedulable"));
    assert_eq!(c.message.as_deref(), Some(event_of(&effects, "FailedScheduling").note.as_str()));
}

#[test]
fn scheduler_error_reason() {
    // A binding the API server refuses: SchedulerError (handleSchedulingFailure).
    let mut core = Core::new(&[worker("n1", "4")], Settings::default());
    core.add(&PodBuilder::new("p"));
    assert!(core.attempt().iter().any(|e| matches!(e, Effect::Bind(_))));
    let key = crate::core::model::pod_key("default", "p");
    let failure = BindFailure::Other(super::framework::bind_plugin_error(names::DEFAULT_BINDER, "boom"));
    core.sched.handle(Input::BindDone(BindOutcome::new(key, "n1".into(), Err(failure))), core.now);
    let c = condition_of(&core.sched.take_effects());
    assert_eq!((c.type_.as_str(), c.reason.as_deref()), ("PodScheduled", Some("SchedulerError")));
}

#[test]
fn disruption_target_condition() {
    let c = crate::core::conditions::disruption_target("default-scheduler");
    assert_eq!((c.type_.as_str(), c.status.as_str()), ("DisruptionTarget", "True"));
}

#[test]
fn preemption_by_scheduler_reason() {
    assert_eq!(crate::core::conditions::disruption_target("default-scheduler").reason.as_deref(), Some("PreemptionByScheduler"));
}

#[test]
fn preempting_message() {
    assert_eq!(
        crate::core::conditions::disruption_target("my-scheduler").message.as_deref(),
        Some("my-scheduler: preempting to accommodate a higher priority pod")
    );
}

#[test]
fn pod_spec_cannot_be_scheduled() {
    let mut core = Core::new(&[worker("n1", "4")], Settings::default());
    let mut p = PodBuilder::new("p").container(&[("cpu", "1x")]);
    p.pod.spec.containers[0].name = "app".into();
    let reason = p.info().unschedulable_reason().unwrap().to_string();
    core.add(&p);
    let effects = core.attempt();
    assert_eq!(event_of(&effects, "FailedScheduling").note, format!("pod spec cannot be scheduled: {reason}"));
    assert_eq!(condition_of(&effects).reason.as_deref(), Some("Unschedulable"));
}

#[test]
fn pod_undecodable() {
    // A relist delivers a pod of ours that does not decode: it is reported on the pod.
    let mut core = Core::new(&[worker("n1", "4")], Settings::default());
    let u = crate::core::watched::Undecodable {
        namespace: "default".into(),
        name: "p".into(),
        scheduler_name: "default-scheduler".into(),
        error: "invalid type: string \"x\", expected i32".into(),
        ..Default::default()
    };
    core.sched.handle(Input::watch_boxed::<api::Pod>(Change::ListBegin), core.now);
    core.sched.handle(Input::watch_boxed::<api::Pod>(Change::Undecodable(Box::new(u))), core.now);
    core.sched.handle(Input::watch_boxed::<api::Pod>(Change::ListDone), core.now);
    assert_eq!(
        event_of(&core.attempt(), "FailedScheduling").note,
        "pod spec cannot be scheduled: cannot decode the pod: invalid type: string \"x\", expected i32"
    );
}

#[test]
fn no_priority_class() {
    let mut core = Core::new(&[worker("n1", "4")], Settings::default());
    let mut p = PodBuilder::new("p");
    p.pod.spec.priority_class_name = "gold".into();
    core.add(&p);
    assert_eq!(
        event_of(&core.attempt(), "FailedScheduling").note,
        "pod spec cannot be scheduled: no PriorityClass with name gold was found"
    );
}

#[test]
fn bound_elsewhere_log() {
    let mut core = Core::new(&[worker("n1", "4")], Settings::default());
    core.add(&PodBuilder::new("p"));
    assert!(core.attempt().iter().any(|e| matches!(e, Effect::Bind(_))));
    let key = crate::core::model::pod_key("default", "p");
    let conflict = BindFailure::Conflict("pod p is already assigned to node \"n2\"".into());
    let now = core.now;
    let lines = crate::core::logging::capture::lines(|| {
        core.sched.handle(Input::BindDone(BindOutcome::new(key, "n1".into(), Err(conflict))), now)
    });
    assert!(lines.iter().any(|l| l.starts_with(r#""Pod was bound elsewhere; forgetting it" pod="default/p""#)), "{lines:?}");
    assert!(!core.sched.take_effects().iter().any(|e| matches!(e, Effect::Event(_))), "no event");
}

// ---------------------------------------------------------------------------------------------
// Composed FitError messages from upstream's tables
// ---------------------------------------------------------------------------------------------

#[test]
fn fit_error_table_of_types_test() {
    // pkg/scheduler/framework/types_test.go TestFitError_Error, every case.
    let status = |m: &str| Rejection::unschedulable(m.to_string());
    let diagnosis = |pre: &str, nodes: &[(&str, &str)], post: &str| {
        let mut d = Diagnosis { pre_filter_msg: pre.into(), post_filter_msg: post.into(), ..Default::default() };
        for (n, m) in nodes {
            d.node_to_status.insert((*n).into(), status(m));
        }
        d.absent_nodes_status =
            Some(Rejection { code: Code::UnschedulableAndUnresolvable, reasons: Default::default(), plugin: "" });
        d
    };
    let pre = "Node(s) failed PreFilter plugin FalsePreFilter";
    let three_pre = [("node1", pre), ("node2", pre), ("node3", pre)];
    let f1 = "Node(s) failed Filter plugin FalseFilter-1";
    let f2 = "Node(s) failed Filter plugin FalseFilter-2";
    let post = "Error running PostFilter plugin FailedPostFilter";
    let cases: [(&str, usize, Diagnosis, &str); 8] = [
        (
            "nodes failed Prefilter plugin",
            3,
            diagnosis(pre, &three_pre, ""),
            "0/3 nodes are available: Node(s) failed PreFilter plugin FalsePreFilter.",
        ),
        (
            "nodes failed Prefilter plugin and the preemption also failed",
            3,
            diagnosis(pre, &three_pre, post),
            "0/3 nodes are available: Node(s) failed PreFilter plugin FalsePreFilter. Error running PostFilter plugin FailedPostFilter",
        ),
        (
            "nodes failed one Filter plugin with an empty PostFilterMsg",
            3,
            diagnosis("", &[("node1", f1), ("node2", f1), ("node3", f1)], ""),
            "0/3 nodes are available: 3 Node(s) failed Filter plugin FalseFilter-1.",
        ),
        (
            "nodes failed one Filter plugin with a non-empty PostFilterMsg",
            3,
            diagnosis("", &[("node1", f1), ("node2", f1), ("node3", f1)], post),
            "0/3 nodes are available: 3 Node(s) failed Filter plugin FalseFilter-1. Error running PostFilter plugin FailedPostFilter",
        ),
        (
            "nodes failed two Filter plugins with an empty PostFilterMsg",
            3,
            diagnosis("", &[("node1", f1), ("node2", f1), ("node3", f2)], ""),
            "0/3 nodes are available: 1 Node(s) failed Filter plugin FalseFilter-2, 2 Node(s) failed Filter plugin FalseFilter-1.",
        ),
        (
            "nodes failed two Filter plugins with a non-empty PostFilterMsg",
            3,
            diagnosis("", &[("node1", f1), ("node2", f1), ("node3", f2)], post),
            "0/3 nodes are available: 1 Node(s) failed Filter plugin FalseFilter-2, 2 Node(s) failed Filter plugin FalseFilter-1. Error running PostFilter plugin FailedPostFilter",
        ),
        (
            "failed to Permit on node",
            1,
            diagnosis("", &[("node1", "Node failed Permit plugin Permit-1")], ""),
            "0/1 nodes are available: 1 Node failed Permit plugin Permit-1.",
        ),
        (
            "failed to Reserve on node",
            1,
            diagnosis("", &[("node1", "Node failed Reserve plugin Reserve-1")], ""),
            "0/1 nodes are available: 1 Node failed Reserve plugin Reserve-1.",
        ),
    ];
    for (name, n, d, want) in cases {
        assert_eq!(fit_error_message(n, &d), want, "{name}");
    }
}

#[test]
fn fit_error_table_of_scheduler_with_volume_binding() {
    // pkg/scheduler/schedule_one_test.go TestSchedulerWithVolumeBinding "bound and unbound
    // unsatisfied" (the single-reason cases are volume_node_conflict and volume_bind_conflict;
    // the error cases filter_plugin_error, reserve_plugin_error and prebind_plugin_error).
    let (claim, volume) = bound_elsewhere();
    assert_eq!(
        volume_fit_error(&[claim, pvc("foo-ns", "unbound", "wait")], &[volume], &["bound", "unbound"]),
        "0/1 nodes are available: 1 node(s) didn't find available persistent volumes to bind, 1 node(s) didn't match PersistentVolume's node affinity."
    );
}

#[test]
fn fit_error_with_many_nodes_sorts_counts_as_strings() {
    // sort.Strings on "<count> <reason>": "10 ..." sorts before "2 ...".
    let mut nodes: Vec<NodeBuilder> = (0..10).map(|i| worker(&format!("t{i}"), "4").taint("k", "v", "NoSchedule")).collect();
    nodes.extend((0..2).map(|i| worker(&format!("s{i}"), "1")));
    let pod = PodBuilder::new("p").container(&[("cpu", "2")]);
    assert_eq!(
        fit_error(&[names::TAINT_TOLERATION, names::NODE_RESOURCES_FIT], &nodes, &[], pod),
        "0/12 nodes are available: 10 node(s) had untolerated taint(s), 2 Insufficient cpu."
    );
}

#[test]
fn fit_error_of_the_default_profile_with_preemption() {
    // The default profile end to end: filter histogram, then DynamicResources' and
    // DefaultPreemption's PostFilter messages joined by ", " (RunPostFilterPlugins); a node whose
    // low-priority pod could be evicted gets nominated instead.
    let mut core = Core::new(&[worker("n1", "1").taint("k", "v", "NoSchedule"), worker("n2", "1")], Settings::default());
    core.sched.handle(
        Input::watch_boxed::<api::Pod>(Change::Added(Box::new(
            PodBuilder::new("e").container(&[("cpu", "1")]).node_name("n2").pod,
        ))),
        core.now,
    );
    core.add(&PodBuilder::new("p").container(&[("cpu", "1")]));
    assert_eq!(
        event_of(&core.attempt(), "FailedScheduling").note,
        "0/2 nodes are available: 1 Insufficient cpu, 1 node(s) had untolerated taint(s). no new claims to deallocate, preemption: 0/2 nodes are available: 1 No preemption victims found for incoming pod, 1 Preemption is not helpful for scheduling."
    );
}

// ---------------------------------------------------------------------------------------------
// Guards
// ---------------------------------------------------------------------------------------------

#[test]
fn every_row_has_its_test_and_an_origin() {
    let source = include_str!("tests.rs");
    let mut ids: Vec<&str> = ROWS.iter().map(|r| r.id).collect();
    for r in ROWS {
        assert!(source.contains(&format!("fn {}()", r.id)), "row {:?} has no test `fn {}()`", r.text, r.id);
        match r.origin {
            Origin::Upstream { file, at } => {
                assert!(
                    ["pkg/", "staging/", "plugin/"].iter().any(|p| file.starts_with(p))
                        && file.ends_with(".go")
                        && !at.is_empty(),
                    "{}: cite an upstream Go file and what in it",
                    r.id
                );
            }
            Origin::Own { why } => assert!(why.len() > 20, "{}: say why upstream has no such text", r.id),
        }
        assert!(!r.text.is_empty(), "{}", r.id);
    }
    ids.sort_unstable();
    ids.dedup();
    assert_eq!(ids.len(), ROWS.len(), "row ids are unique");
}

fn rust_files(dir: &std::path::Path, out: &mut Vec<std::path::PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else { return };
    for e in entries.flatten() {
        let p = e.path();
        if p.is_dir() {
            rust_files(&p, out);
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(p);
        }
    }
}

#[test]
fn no_text_is_written_inline_outside_the_table() {
    // A row's text (or a template's fixed start) as a string literal anywhere under src/ but in
    // the table and in test code means a second place to change: use the constant or builder.
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    rust_files(&root, &mut files);
    let needles: Vec<&str> = ROWS
        .iter()
        .filter(|r| {
            !matches!(
                r.kind,
                Kind::EventType | Kind::EventReason | Kind::EventAction | Kind::ConditionType | Kind::ConditionReason
            )
        })
        .map(|r| r.text.split('{').next().unwrap_or(""))
        .filter(|n| n.len() >= 12)
        .collect();
    let mut found = Vec::new();
    for f in &files {
        let rel = f.strip_prefix(&root).unwrap_or(f).to_string_lossy().replace('\\', "/");
        let name = f.file_name().map(|n| n.to_string_lossy().to_string()).unwrap_or_default();
        if rel.starts_with("core/texts/") || name.contains("test") || rel.contains("/tests/") {
            continue;
        }
        let Ok(text) = std::fs::read_to_string(f) else { continue };
        let code = text.split("#[cfg(test)]\nmod tests").next().unwrap_or("");
        for n in &needles {
            if code.contains(&format!("\"{n}")) {
                found.push(format!("{rel}: {n:?}"));
            }
        }
    }
    assert!(found.is_empty(), "texts written inline instead of taken from core::texts:\n{}", found.join("\n"));
}

// Extender texts. The code paths that produce them (a fake extender answering the cycle, the
// preemption call and the bind) are exercised in `core/extender/tests.rs`; here each builder is
// compared with upstream's format string.

#[test]
fn extender_http_status() {
    assert_eq!(
        super::extender::http_status("filter", "http://127.0.0.1:1/filter", 500),
        "failed filter with extender at URL http://127.0.0.1:1/filter, code 500"
    );
}

#[test]
fn extender_unknown_filtered_node() {
    assert_eq!(
        super::extender::unknown_filtered_node("http://x", "ghost"),
        "extender \"http://x\" claims a filtered node \"ghost\" which is not found in the input node list"
    );
}

#[test]
fn extender_node_info_not_found() {
    assert_eq!(super::extender::node_info_not_found("nodeX"), "nodeinfo not found for node name \"nodeX\"");
}

#[test]
fn extender_victim_not_on_node() {
    assert_eq!(
        super::extender::victim_not_on_node("http://x", "uid2", "node1"),
        "extender: http://x claims to preempt pod (UID: &{uid2}) on node: node1, but the pod is not found on that node"
    );
}

#[test]
fn preemption_no_candidate() {
    assert_eq!(super::preemption::NO_CANDIDATE, "no candidate node for preemption");
}

// Permit texts; the timeout is produced through the scheduler core in
// `core/scheduler/tests.rs` (`a_waiting_pod_is_rejected_when_its_wait_runs_out`).

#[test]
fn permit_plugin_error() {
    assert_eq!(super::framework::permit_plugin_error("Coscheduling", "boom"), "running Permit plugin \"Coscheduling\": boom");
}

#[test]
fn permit_timeout() {
    assert_eq!(
        super::framework::permit_timeout("10s", "Coscheduling"),
        "rejected due to timeout after waiting 10s at plugin Coscheduling"
    );
}

/// The cycle's lines at kube-scheduler's levels (`schedule_one.go`, `scheduling_queue.go`,
/// `eventhandlers.go`, v1.35): a pod that fits and one that does not.
#[test]
fn cycle_lines_at_upstream_levels() {
    use crate::core::logging::Severity;
    let mut core = Core::new(&[worker("n1", "1")], Settings::default());
    let entries = crate::core::logging::capture::entries(|| {
        core.add(&PodBuilder::new("small"));
        core.attempt();
        core.add(&PodBuilder::new("big").container(&[("cpu", "2")]));
        core.attempt();
    });
    let at = |v: u8, prefix: &str| {
        assert!(
            entries.iter().any(|(s, lv, l)| *s == Severity::Info && *lv == v && l.starts_with(prefix)),
            "no V({v}) {prefix} in {entries:#?}"
        )
    };
    at(3, r#""Add event for unscheduled pod" pod="default/small""#);
    at(5, r#""Pod moved to an internal scheduling queue" pod="default/small" event="UnschedulablePodAdd" queue="Active""#);
    at(4, r#""About to try and schedule pod" pod="default/small""#);
    at(3, r#""Attempting to schedule pod" pod="default/small""#);
    at(2, r#""Unable to schedule pod; no fit; waiting" pod="default/big" err="0/1 nodes are available"#);
    at(
        3,
        r#""Pod moved to an internal scheduling queue" pod="default/big" event="ScheduleAttemptFailure" queue="Unschedulable" unschedulable plugins=[NodeResourcesFit]"#,
    );
}

/// The FailedScheduling summary of a pod whose claim finds no device on any node: Filter's
/// reason per node, then PostFilter's (nothing of this scheduler's to deallocate), then
/// preemption's, as kube-scheduler v1.35 writes it (`dynamicresources.go` Filter and
/// PostFilter; `schedule_one.go` FitError).
#[test]
fn dra_cannot_allocate_all_claims_summary() {
    use dra_plugin_support::*;
    let cache = cache(&["n1", "n2"], 0, vec![claim("c", gpu())]);
    let fw = profile(&["DynamicResources", "DefaultPreemption"]);
    let msg = message(schedule_in(&fw, &cache, &named("c").info()));
    assert_eq!(
        msg,
        "0/2 nodes are available: 2 cannot allocate all claims. still not schedulable, preemption: 0/2 nodes are available: 2 Preemption is not helpful for scheduling."
    );
}

/// The remaining fixed texts of DynamicResources, pinned to upstream's words
/// (`pkg/scheduler/framework/plugins/dynamicresources/dynamicresources.go`,
/// `pkg/scheduler/util/assumecache/assume_cache.go`, and the structured allocator's
/// `allocator_stable.go`, kubernetes/kubernetes v1.35).
#[test]
fn dra_fixed_texts() {
    use super::{dra_allocator as a, dynamic_resources as d};
    let table = [
        (d::NO_NEW_CLAIMS_TO_DEALLOCATE, "no new claims to deallocate"),
        (d::DEALLOCATION_COMPLETED, "deallocation of ResourceClaim completed"),
        (d::STILL_NOT_SCHEDULABLE, "still not schedulable"),
        (d::CANNOT_ALLOCATE_ALL_CLAIMS, "cannot allocate all claims"),
        (d::NOT_AVAILABLE_ON_NODE, "resourceclaim not available on the node"),
        (d::TIMED_OUT, "timed out trying to allocate devices"),
        (d::ALLOCATION_NOT_FOUND, "claim allocation not found for node"),
        (d::CLAIM_DESCRIPTION, "ResourceClaim"),
        (a::INVALID_POOLS, "invalid resource pools were encountered"),
        (a::ABORTED, "filter operation aborted: context deadline exceeded"),
    ];
    for (text, upstream) in table {
        assert_eq!(text, upstream);
    }
}
