//! The nominated node the binding cycle records (`NominatedNodeNameForExpectation`, v1.35):
//! when, in which order with the binding, what the echo of that write does to the nominator,
//! and what a pod nominated that way before a restart holds.
//!
//! Cases transcribed from kubernetes/kubernetes
//! `test/integration/scheduler/nominated_node_name/nominated_node_name_test.go` at commit
//! 7757b73f34985bc316e6c7ee85d72bf85c749c06 (v1.35 line): `TestNominatedNodeNameIsSetBeforePreBindAndWaitOnPermit`
//! (four cases, each with the gate on and off) and `TestPartialBindingFailureRetriedWithNNN`
//! (the pod nominated before a restart gets its node back).

use super::tests::{harness, harness_with, node, pod, Harness};
use super::*;
use crate::core::cache::{Cache, NodeInfo};
use crate::core::framework::plugins::test_util::{preferred, req, term};
use crate::core::framework::registry::{Factory, Registry};
use crate::core::framework::waiting::WaitingHandle;
use crate::core::framework::{PermitOutcome, Plugin, PluginState, Points, PreBindAction, PreFlight};
use crate::core::model::PodInfo;
use crate::core::watched::Change;
use std::sync::Arc;
use std::time::Duration;

/// `RunForeverPreBindPlugin`: a PreBind plugin whose PreBindPreFlight says it has work.
struct LongPreBind;

impl Plugin for LongPreBind {
    fn name(&self) -> &'static str {
        "LongPreBind"
    }
    fn points(&self) -> Points {
        Points { pre_bind: true, ..Default::default() }
    }
}

/// A PreBind plugin with nothing to do for any pod.
struct IdlePreBind;

impl Plugin for IdlePreBind {
    fn name(&self) -> &'static str {
        "IdlePreBind"
    }
    fn points(&self) -> Points {
        Points { pre_bind: true, ..Default::default() }
    }
    fn pre_bind_pre_flight(&self, _: &Cache, _: &PodInfo, _: &str, _: &[PreBindAction]) -> PreFlight {
        PreFlight::Skip
    }
}

/// `FakePermitPlugin`: Wait for 10 minutes, or Success; or (not upstream's) a rejection.
#[derive(Clone, Copy)]
enum FakePermit {
    Wait,
    Allow,
    Deny,
}

impl Plugin for FakePermit {
    fn name(&self) -> &'static str {
        match self {
            FakePermit::Wait => "PermitWait",
            FakePermit::Allow => "PermitAllow",
            FakePermit::Deny => "PermitDeny",
        }
    }
    fn points(&self) -> Points {
        Points { permit: true, ..Default::default() }
    }
    fn permit(&self, _: &Cache, _: &PodInfo, _: &NodeInfo, _: &PluginState, _: &mut WaitingHandle<'_>) -> PermitOutcome {
        match self {
            FakePermit::Wait => PermitOutcome::Wait(Duration::from_secs(600)),
            FakePermit::Allow => PermitOutcome::Allow,
            FakePermit::Deny => PermitOutcome::Reject(crate::core::framework::Rejection::unschedulable("denied")),
        }
    }
}

/// A scheduler whose `edgesched` profile also enables `plugin` (none: the default plugins),
/// with the gate set to `gate`.
fn with_plugin(plugin: Option<&str>, gate: bool) -> Harness {
    let mut registry = Registry::default();
    let mut add = |name: &str, f: Factory| registry.register(name, f).expect("register");
    add("LongPreBind", Arc::new(|_| Ok(Arc::new(LongPreBind) as Arc<dyn Plugin>)));
    add("IdlePreBind", Arc::new(|_| Ok(Arc::new(IdlePreBind) as Arc<dyn Plugin>)));
    for permit in [FakePermit::Wait, FakePermit::Allow, FakePermit::Deny] {
        add(permit.name(), Arc::new(move |_| Ok(Arc::new(permit) as Arc<dyn Plugin>)));
    }
    let plugins = match plugin {
        Some(name) => format!("  plugins:\n    multiPoint:\n      enabled:\n      - name: {name}\n"),
        None => String::new(),
    };
    let mut h = harness_with(registry, &plugins);
    h.s.set_nominated_node_name_for_expectation(gate);
    h
}

fn nominations(effects: &[String]) -> Vec<&String> {
    effects.iter().filter(|e| e.contains("nominatedNodeName")).collect()
}

#[test]
fn the_gate_is_on_by_default_as_in_v1_35() {
    let mut h = harness(&["edgesched"]);
    assert!(h.s.nominate_for_expectation);
    h.start(&[node("n1", "4")], &[pod("p", "100m")]);
    h.cycles();
    assert_eq!(h.effects(), vec!["bind default/p -> n1"], "a pod bound at once gets no nomination");
}

#[test]
fn nominated_node_name_is_set_before_pre_bind_and_wait_on_permit() {
    // (plugin, expectNominatedNodeName, bound at once)
    let cases: [(Option<&str>, bool, bool); 4] = [
        // "NominatedNodeName is put if PreBindPlugin will run"
        (Some("LongPreBind"), true, true),
        // "NominatedNodeName is put if PermitPlugin will run at WaitOnPermit"
        (Some("PermitWait"), true, false),
        // "NominatedNodeName is not put if PermitPlugin won't run at WaitOnPermit"
        (Some("PermitAllow"), false, true),
        // "NominatedNodeName is not put if PermitPlugin nor PreBindPlugin will run"
        (None, false, true),
    ];
    for (plugin, expect, bound) in cases {
        for gate in [true, false] {
            let mut h = with_plugin(plugin, gate);
            h.start(&[node("n1", "4")], &[pod("test-pod", "100m")]);
            h.cycles();
            let effects = h.effects();
            let want: Vec<String> =
                if expect && gate { vec![r#"status default/test-pod: nominatedNodeName="n1""#.to_string()] } else { Vec::new() };
            assert_eq!(nominations(&effects), want.iter().collect::<Vec<_>>(), "{plugin:?} gate={gate}: {effects:?}");
            assert_eq!(effects.iter().any(|e| e == "bind default/test-pod -> n1"), bound, "{plugin:?} gate={gate}");
        }
    }
}

#[test]
fn a_pre_bind_plugin_with_nothing_to_do_writes_nothing_and_is_skipped() {
    // RunPreBindPreFlights: all Skip → no write, and SetSkipPreBindPlugins keeps their PreBind
    // from running (without the gate no PreBindPreFlight runs, so nothing is skipped).
    for (gate, skipped) in [(true, vec!["IdlePreBind", "VolumeBinding", "DynamicResources"]), (false, vec![])] {
        let mut h = with_plugin(Some("IdlePreBind"), gate);
        h.start(&[node("n1", "4")], &[pod("p", "100m")]);
        h.cycles();
        let effects = h.s.take_effects();
        assert!(!effects.iter().any(|e| matches!(e, Effect::PatchStatus(_))), "gate={gate}");
        let mut got: Vec<&str> = effects
            .iter()
            .find_map(|e| match e {
                Effect::Bind(b) => Some(b.pre_bind_skipped.clone()),
                _ => None,
            })
            .expect("bound at once");
        got.sort_unstable();
        let mut want = skipped;
        want.sort_unstable();
        assert_eq!(got, want, "gate={gate}");
    }
}

#[test]
fn the_nomination_is_written_before_the_binding_and_logged() {
    let mut h = with_plugin(Some("LongPreBind"), true);
    h.start(&[node("n1", "4")], &[pod("p", "100m")]);
    let lines = crate::core::logging::capture::lines(|| {
        h.cycles();
    });
    assert_eq!(h.effects(), vec![r#"status default/p: nominatedNodeName="n1""#, "bind default/p -> n1"]);
    // schedule_one.go updatePod's V(3) line (nominatingMode is fwk.ModeOverride, a Go int).
    assert!(
        lines.iter().any(|l| l
            == r#""Updating pod condition and nominated node name" pod="default/p" nominatedNodeName="n1" nominatingMode=1"#),
        "{lines:?}"
    );
}

#[test]
fn a_pod_nominated_there_already_is_not_written_again() {
    // updatePod patches only when the nominated node differs (after a preemption, say).
    let mut h = with_plugin(Some("PermitWait"), true);
    let mut p = pod("p", "100m");
    p.pod.status.nominated_node_name = "n1".into();
    h.start(&[node("n1", "4")], &[p]);
    h.cycles();
    assert!(nominations(&h.effects()).is_empty());
}

#[test]
fn the_echo_of_the_write_does_not_count_the_waiting_pod_twice() {
    // updatePodInSchedulingQueue ignores updates of assumed pods: the waiting pod's room is
    // taken once, through the node table, not again by the nominator.
    let mut h = with_plugin(Some("PermitWait"), true);
    h.start(&[node("n1", "2")], &[pod("w", "1")]);
    h.cycles();
    assert_eq!(nominations(&h.effects()).len(), 1);
    let mut echo = pod("w", "1");
    echo.pod.status.nominated_node_name = "n1".into();
    echo.pod.metadata.resource_version = "2".into();
    h.feed(Change::Modified(echo.pod));
    assert_eq!(h.s.cache.nominations().node_of("default/w"), None);
    // Another pod of the same priority still fits in the room left (1 of 2 CPUs).
    h.feed(Change::Added(pod("other", "1").pod));
    let attempts = h.cycles();
    assert!(attempts.iter().any(|a| matches!(a, Attempt::Scheduled { node, .. } if &**node == "n1")), "{attempts:?}");
}

#[test]
fn a_pod_nominated_before_a_restart_gets_its_node_back() {
    // TestPartialBindingFailureRetriedWithNNN: pod1's binding cycle wrote n1 and the scheduler
    // stopped before binding; after the restart pod2, of the same priority and preferring n1 as
    // well, is scheduled first and must leave n1 to pod1.
    let prefers_n1 = || preferred(vec![(100, term(vec![req("kubernetes.io/hostname", "In", &["n1"])]))]);
    let mut pod1 = pod("test-pod1", "1").node_affinity(prefers_n1());
    pod1.pod.status.nominated_node_name = "n1".into();
    let pod2 = pod("test-pod2", "1").node_affinity(prefers_n1());
    let n1 = node("n1", "1").labels(&[("kubernetes.io/hostname", "n1")]);
    let n2 = node("n2", "1").labels(&[("kubernetes.io/hostname", "n2")]);
    let mut h = harness(&["edgesched"]);
    h.start(&[n1, n2], &[pod2, pod1]);
    h.cycles();
    let binds: Vec<String> = h.effects().into_iter().filter(|e| e.starts_with("bind")).collect();
    // pod2 first: n1, which it prefers, is held for pod1 (equal priority, nominated there).
    assert_eq!(binds, vec!["bind default/test-pod2 -> n2", "bind default/test-pod1 -> n1"]);
}

/// A pod that comes with a nomination to `n2`, where it does not fit, so that it goes to `n1`.
fn nominated_elsewhere(h: &mut Harness) {
    let mut p = pod("p", "1");
    p.pod.status.nominated_node_name = "n2".into();
    h.start(&[node("n1", "4"), node("n2", "500m")], &[p]);
}

#[test]
fn a_failed_binding_cycle_clears_the_nomination_the_pod_came_with() {
    // handleBindingCycleError passes clearNominatedNode; updatePod compares with the pod as it
    // entered the cycle (nominated to n2), so the failure writes "".
    let mut h = with_plugin(Some("PermitWait"), true);
    nominated_elsewhere(&mut h);
    h.cycles();
    assert_eq!(nominations(&h.effects()), vec![r#"status default/p: nominatedNodeName="n1""#]);
    h.advance(Duration::from_secs(601));
    assert_eq!(
        nominations(&h.effects()),
        vec![r#"status default/p: PodScheduled=False Unschedulable, nominatedNodeName="""#],
        "the wait ran out"
    );
    assert_eq!(h.s.cache.nominations().node_of("default/p"), None);
}

#[test]
fn a_failed_binding_cycle_leaves_the_nomination_it_wrote_itself() {
    // The pod entered the cycle without a nomination: clearNominatedNode is no change for
    // updatePod, and the field keeps the node the binding cycle wrote (as upstream).
    let mut h = with_plugin(Some("PermitWait"), true);
    h.start(&[node("n1", "4")], &[pod("p", "1")]);
    h.cycles();
    assert_eq!(nominations(&h.effects()).len(), 1);
    h.advance(Duration::from_secs(601));
    let effects = h.effects();
    assert!(effects.iter().any(|e| e == "status default/p: PodScheduled=False Unschedulable"), "{effects:#?}");
    assert!(nominations(&effects).is_empty(), "{effects:#?}");
}

#[test]
fn a_failed_binding_clears_the_nomination_the_pod_came_with() {
    let mut h = with_plugin(Some("LongPreBind"), true);
    nominated_elsewhere(&mut h);
    h.cycles();
    assert_eq!(nominations(&h.effects()), vec![r#"status default/p: nominatedNodeName="n1""#]);
    let failure = super::input::BindFailure::Other("boom".into());
    h.s.handle(Input::BindDone(super::input::BindOutcome::new("default/p".into(), "n1".into(), Err(failure))), h.now);
    assert_eq!(nominations(&h.effects()), vec![r#"status default/p: PodScheduled=False SchedulerError, nominatedNodeName="""#]);
}

#[test]
fn a_permit_rejection_clears_the_nomination_the_pod_came_with() {
    // schedulingCycle returns clearNominatedNode for a Permit (or Reserve) rejection; the pod
    // also leaves the in-memory nominator.
    let mut h = with_plugin(Some("PermitDeny"), true);
    nominated_elsewhere(&mut h);
    assert_eq!(h.s.cache.nominations().node_of("default/p"), Some("n2"));
    h.cycles();
    assert_eq!(nominations(&h.effects()), vec![r#"status default/p: PodScheduled=False Unschedulable, nominatedNodeName="""#]);
    assert_eq!(h.s.cache.nominations().node_of("default/p"), None);
}

#[test]
fn waiting_on_permit_is_logged_after_the_nomination() {
    let mut h = with_plugin(Some("PermitWait"), true);
    h.start(&[node("n1", "4")], &[pod("p", "1")]);
    let lines = crate::core::logging::capture::lines(|| {
        h.cycles();
    });
    let at = |text: &str| lines.iter().position(|l| l.starts_with(text)).unwrap_or_else(|| panic!("{text}: {lines:#?}"));
    // RunPermitPlugins, then the binding cycle: updatePod's line, then WaitOnPermit's.
    assert!(at(r#""One or more plugins asked to wait"#) < at(r#""Updating pod condition and nominated node name""#));
    assert!(at(r#""Updating pod condition and nominated node name""#) < at(r#""Pod waiting on permit" pod="default/p""#));
}
