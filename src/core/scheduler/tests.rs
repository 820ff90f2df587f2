//! Table tests of the scheduler core, the way upstream's `schedule_one_test.go` and
//! `eventhandlers_test.go` pin theirs: each case feeds [`Input`]s (watch changes, bind results,
//! leadership) at explicit instants — a fake clock — and asserts the [`Effect`]s that come out
//! (bind, status patch, event, nomination, eviction) and what is requeued.

use super::*;
use crate::core::api;
use crate::core::config;
use crate::core::framework::plugins::test_util::{NodeBuilder, PodBuilder};
use crate::core::framework::Framework;
use crate::core::metrics::Metrics;
use crate::core::rng::Rng;
use crate::core::watched::{Change, KindId, Watched};
use std::time::{Duration, Instant};

/// A scheduler serving `names` with the default plugins, fed through its public inputs.
pub(super) struct Harness {
    pub(super) s: Scheduler,
    t0: Instant,
    pub(super) now: Instant,
}

pub(super) fn harness(names: &[&str]) -> Harness {
    let mut yaml = String::from("apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\nprofiles:\n");
    for n in names {
        yaml.push_str(&format!("- schedulerName: {n}\n"));
    }
    harness_from(&yaml, &crate::core::framework::plugins::PluginContext::default())
}

/// A scheduler with one `edgesched` profile, `profile_extra` (YAML under the profile, e.g. its
/// `plugins:`), and the out-of-tree plugins of `registry`.
pub(super) fn harness_with(registry: crate::core::framework::registry::Registry, profile_extra: &str) -> Harness {
    let yaml = format!(
        "apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\nprofiles:\n- schedulerName: edgesched\n{profile_extra}"
    );
    harness_from(&yaml, &crate::core::framework::plugins::PluginContext { registry, features: Default::default() })
}

fn harness_from(yaml: &str, ctx: &crate::core::framework::plugins::PluginContext) -> Harness {
    let cfg = config::load_str(yaml, "test").expect("config").config;
    let profiles: Vec<Framework> = cfg.profiles.iter().map(|p| Framework::new(p, ctx).expect("profile")).collect();
    let settings = Settings {
        percentage_of_nodes_to_score: 100,
        pod_initial_backoff: Duration::from_secs(1),
        pod_max_backoff: Duration::from_secs(10),
        ..Default::default()
    };
    let t0 = Instant::now();
    let mut s = Scheduler::new(profiles, &settings, Metrics::new(), Rng::seeded(7), t0);
    s.watch_kinds(&[KindId::Node, KindId::Pod]);
    Harness { s, t0, now: t0 }
}

impl Harness {
    pub(super) fn feed<T: Watched>(&mut self, change: Change<T>) {
        self.s.handle(Input::watch(change), self.now);
    }

    /// List the cluster: nodes, then the pods (bound and pending), and lead.
    pub(super) fn start(&mut self, nodes: &[NodeBuilder], pods: &[PodBuilder]) {
        self.feed::<api::Node>(Change::ListBegin);
        self.feed(Change::ListPage(nodes.iter().map(|n| n.node.clone()).collect()));
        self.feed::<api::Node>(Change::ListDone);
        self.feed::<api::Pod>(Change::ListBegin);
        self.feed(Change::ListPage(pods.iter().map(|p| p.pod.clone()).collect()));
        self.feed::<api::Pod>(Change::ListDone);
        self.s.handle(Input::Leading(true), self.now);
    }

    /// Let time pass, with the periodic maintenance the live loop runs every second (backoff
    /// expiry, the unschedulable flush).
    pub(super) fn advance(&mut self, d: Duration) {
        self.now += d;
        self.s.tick(self.now, std::time::SystemTime::UNIX_EPOCH + (self.now - self.t0));
    }

    /// Run cycles until the queue has nothing runnable now; returns what each attempt did.
    pub(super) fn cycles(&mut self) -> Vec<Attempt> {
        let mut out = Vec::new();
        while self.s.has_work() {
            match self.s.schedule_one(self.now, crate::core::framework::cycle::Explain::Off) {
                Some((a, _)) => out.push(a),
                None => break,
            }
        }
        out
    }

    /// The effects produced so far, each as one readable line.
    pub(super) fn effects(&mut self) -> Vec<String> {
        self.s.take_effects().iter().map(describe).collect()
    }
}

fn describe(e: &Effect) -> String {
    match e {
        Effect::Bind(b) => format!("bind {} -> {}", b.pod.key, b.node),
        Effect::Event(ev) => format!(
            "event {:?} {} {}/{} by {}: {}",
            ev.type_, ev.reason, ev.regarding.namespace, ev.regarding.name, ev.reporting_controller, ev.note
        ),
        Effect::PatchStatus(p) => {
            let mut parts = Vec::new();
            if let Some(c) = &p.condition {
                parts.push(format!("{}={} {}", c.type_, c.status, c.reason.as_deref().unwrap_or("")));
            }
            if let Some(n) = &p.nominated_node_name {
                parts.push(format!("nominatedNodeName={n:?}"));
            }
            format!("status {}/{}: {}", p.namespace, p.name, parts.join(", "))
        }
        Effect::Evict(e) => format!("evict {}/{} on {} for {}", e.namespace, e.name, e.node, e.profile),
        Effect::ApiWrite(w) => format!("write {w:?}"),
    }
}

pub(super) fn node(name: &str, cpu: &str) -> NodeBuilder {
    NodeBuilder::new(name).allocatable(&[("cpu", cpu), ("memory", "8Gi"), ("pods", "110")])
}

pub(super) fn pod(name: &str, cpu: &str) -> PodBuilder {
    let mut p = PodBuilder::new(name).container(&[("cpu", cpu)]);
    p.pod.spec.scheduler_name = "edgesched".into();
    p.pod.metadata.creation_timestamp = Some(format!("2026-01-01T00:00:{:02}Z", name.len()));
    p
}

pub(super) fn with_priority(mut p: PodBuilder, priority: i32) -> PodBuilder {
    p.pod.spec.priority = Some(priority);
    p
}

fn bound(p: PodBuilder, node: &str) -> PodBuilder {
    let mut p = p.node_name(node);
    p.pod.status.phase = "Running".into();
    p
}

/// One row: a cluster, the pods that arrive pending, and what must come out.
struct Case {
    name: &'static str,
    nodes: Vec<NodeBuilder>,
    existing: Vec<PodBuilder>,
    pending: Vec<PodBuilder>,
    effects: Vec<&'static str>,
}

#[test]
fn cycle_effects_table() {
    let cases = vec![
        Case {
            name: "a fitting pod is assumed and bound",
            nodes: vec![node("n1", "2")],
            existing: vec![],
            pending: vec![pod("p", "1")],
            effects: vec!["bind default/p -> n1"],
        },
        Case {
            name: "no nodes: FailedScheduling and PodScheduled=False",
            nodes: vec![],
            existing: vec![],
            pending: vec![pod("p", "1")],
            effects: vec![
                "event Warning FailedScheduling default/p by edgesched: no nodes available to schedule pods",
                "status default/p: PodScheduled=False Unschedulable",
            ],
        },
        Case {
            name: "insufficient cpu everywhere, and nothing to preempt",
            nodes: vec![node("n1", "1"), node("n2", "1")],
            existing: vec![],
            pending: vec![pod("p", "2")],
            effects: vec![
                // Requests beyond a node's allocatable are unresolvable (upstream NodeResourcesFit),
                // so preemption is not even tried there.
                "event Warning FailedScheduling default/p by edgesched: 0/2 nodes are available: 2 Insufficient cpu. no new claims to deallocate, preemption: 0/2 nodes are available: 2 Preemption is not helpful for scheduling.",
                "status default/p: PodScheduled=False Unschedulable",
            ],
        },
        Case {
            name: "preemption nominates the node and evicts the lower-priority victim",
            nodes: vec![node("n1", "2")],
            existing: vec![bound(with_priority(pod("low", "2"), 10), "n1")],
            pending: vec![with_priority(pod("high", "2"), 1000)],
            effects: vec![
                // A successful PostFilter adds no "preemption:" part to the message.
                "event Warning FailedScheduling default/high by edgesched: 0/1 nodes are available: 1 Insufficient cpu.",
                "status default/high: PodScheduled=False Unschedulable, nominatedNodeName=\"n1\"",
                "evict default/low on n1 for edgesched",
            ],
        },
        Case {
            name: "a pod being deleted is skipped with an event",
            nodes: vec![node("n1", "2")],
            existing: vec![],
            pending: vec![pod("p", "1").terminating()],
            effects: vec!["event Warning FailedScheduling default/p by edgesched: skip schedule deleting pod: default/p"],
        },
        Case {
            name: "pods of other schedulers and bound pods are left alone",
            nodes: vec![node("n1", "2")],
            existing: vec![bound(pod("running", "1"), "n1")],
            pending: vec![{
                let mut p = pod("theirs", "1");
                p.pod.spec.scheduler_name = "default-scheduler".into();
                p
            }],
            effects: vec![],
        },
    ];
    for case in cases {
        let mut h = harness(&["edgesched"]);
        h.start(&case.nodes, &case.existing);
        for p in &case.pending {
            h.feed(Change::Added(p.pod.clone()));
        }
        h.cycles();
        assert_eq!(h.effects(), case.effects, "{}", case.name);
    }
}

#[test]
fn the_preemptor_lands_on_its_nominated_node_once_the_victim_is_gone() {
    let mut h = harness(&["edgesched"]);
    let low = bound(with_priority(pod("low", "2"), 10), "n1");
    h.start(&[node("n1", "2")], std::slice::from_ref(&low));
    let high = with_priority(pod("high", "2"), 1000);
    h.feed(Change::Added(high.pod.clone()));
    h.cycles();
    assert_eq!(h.effects().len(), 3);
    // The shell's writes come back through the watch: the preemptor nominated, the victim
    // terminating. While it terminates nothing is evicted twice (upstream
    // PodEligibleToPreemptOthers) and nothing binds.
    let mut nominated = high.pod.clone();
    nominated.status.nominated_node_name = "n1".into();
    h.feed(Change::Modified(nominated));
    let mut terminating = low.clone().terminating();
    terminating.pod.status.conditions.push(api::PodCondition {
        type_: "DisruptionTarget".into(),
        status: "True".into(),
        reason: Some("PreemptionByScheduler".into()),
        ..Default::default()
    });
    h.feed(Change::Modified(terminating.pod.clone()));
    h.advance(Duration::from_secs(2));
    h.feed(Change::Added(node("n0", "1").node));
    h.cycles();
    assert!(!h.effects().iter().any(|e| e.starts_with("evict") || e.starts_with("bind")));
    // The victim's deletion arrives; the nominated pod then fits.
    h.feed(Change::Deleted(terminating.pod));
    h.advance(Duration::from_secs(11));
    h.cycles();
    assert_eq!(h.effects(), ["bind default/high -> n1"]);
}

#[test]
fn the_condition_is_patched_only_when_it_changes() {
    let mut h = harness(&["edgesched"]);
    h.start(&[node("n1", "1")], &[]);
    let p = pod("p", "2");
    h.feed(Change::Added(p.pod.clone()));
    h.cycles();
    let condition =
        h.s.take_effects()
            .into_iter()
            .find_map(|e| match e {
                Effect::PatchStatus(StatusPatch { condition: Some(c), .. }) => Some(c),
                _ => None,
            })
            .expect("PodScheduled=False patched");
    assert_eq!((condition.status.as_str(), condition.reason.as_deref()), ("False", Some("Unschedulable")));
    // The patched condition comes back through the watch; an allocatable change wakes the pod,
    // which fails the same way: an event again, but no second patch.
    let mut seen = p.pod.clone();
    seen.status.conditions.push(condition);
    h.feed(Change::Modified(seen));
    h.feed(Change::Modified(node("n1", "1500m").node));
    h.advance(Duration::from_secs(2));
    h.cycles();
    let second = h.effects();
    assert!(second.iter().any(|e| e.starts_with("event Warning FailedScheduling default/p")), "{second:#?}");
    assert!(!second.iter().any(|e| e.starts_with("status ")), "{second:#?}");
    // A different outcome is patched again.
    h.feed(Change::Added(node("n2", "1").node));
    h.advance(Duration::from_secs(11));
    h.cycles();
    assert!(h.effects().iter().any(|e| e.starts_with("status default/p: PodScheduled=False")));
}

#[test]
fn an_unschedulable_pod_waits_for_a_cluster_event_that_can_help() {
    let mut h = harness(&["edgesched"]);
    h.start(&[node("small", "1")], &[]);
    h.feed(Change::Added(pod("p", "2").pod));
    assert!(matches!(h.cycles()[..], [Attempt::Unschedulable { .. }]));
    h.effects();
    // Time alone does not help an unschedulable pod (until the 5-minute flush)...
    h.advance(Duration::from_secs(30));
    assert!(h.cycles().is_empty());
    // ...a label change on a node does not either (NodeResourcesFit ignores labels)...
    h.feed(Change::Modified(node("small", "1").labels(&[("zone", "a")]).node));
    h.advance(Duration::from_secs(11));
    assert!(h.cycles().is_empty(), "a label change cannot give cpu");
    // ...a new node with room does.
    h.feed(Change::Added(node("big", "4").node));
    h.advance(Duration::from_secs(11));
    h.cycles();
    assert_eq!(h.effects(), ["bind default/p -> big"]);
}

#[test]
fn bind_results_confirm_forget_or_requeue() {
    // Success: nothing more happens; the watch later confirms the assumed pod.
    let mut h = harness(&["edgesched"]);
    h.start(&[node("n1", "2")], &[]);
    h.feed(Change::Added(pod("ok", "1").pod));
    h.cycles();
    assert_eq!(h.effects(), ["bind default/ok -> n1"]);
    h.s.handle(Input::BindDone(BindOutcome::new("default/ok".into(), "n1".into(), Ok(()))), h.now);
    assert!(h.effects().is_empty());
    assert!(h.s.cache().is_assumed("default/ok"));
    h.feed(Change::Modified(bound(pod("ok", "1"), "n1").pod));
    assert!(!h.s.cache().is_assumed("default/ok"), "the watch confirmed it");

    // Conflict (409: someone else bound it): forgotten, not retried, no event.
    h.feed(Change::Added(pod("lost", "1").pod));
    h.cycles();
    assert_eq!(h.effects(), ["bind default/lost -> n1"]);
    let conflict = BindFailure::Conflict("pods \"lost\" is already assigned to node \"n9\"".into());
    h.s.handle(Input::BindDone(BindOutcome::new("default/lost".into(), "n1".into(), Err(conflict))), h.now);
    assert!(h.effects().is_empty());
    assert!(!h.s.cache().is_assumed("default/lost"));
    h.advance(Duration::from_secs(20));
    assert!(h.cycles().is_empty(), "a lost pod is not retried");

    // Other failure: forgotten, FailedScheduling, retried after backoff.
    let mut h = harness(&["edgesched"]);
    h.start(&[node("n1", "2")], &[]);
    h.feed(Change::Added(pod("flaky", "1").pod));
    h.cycles();
    h.effects();
    let other = BindFailure::Other("POST .../binding: 500 Internal Server Error".into());
    h.s.handle(Input::BindDone(BindOutcome::new("default/flaky".into(), "n1".into(), Err(other))), h.now);
    assert_eq!(
        h.effects(),
        [
            "event Warning FailedScheduling default/flaky by edgesched: POST .../binding: 500 Internal Server Error",
            "status default/flaky: PodScheduled=False SchedulerError",
        ]
    );
    assert!(h.cycles().is_empty(), "backing off");
    h.advance(Duration::from_secs(3));
    h.cycles();
    assert_eq!(h.effects(), ["bind default/flaky -> n1"]);
}

#[test]
fn nothing_is_scheduled_before_the_caches_sync_or_without_leadership() {
    let mut h = harness(&["edgesched"]);
    h.feed::<api::Node>(Change::ListBegin);
    h.feed(Change::ListPage(vec![node("n1", "2").node]));
    h.feed::<api::Node>(Change::ListDone);
    h.s.handle(Input::Leading(true), h.now);
    h.feed(Change::Added(pod("p", "1").pod));
    assert!(!h.s.caches_synced(), "pods not listed yet");
    assert_eq!(h.s.kinds_not_synced(), [KindId::Pod]);
    assert!(h.cycles().is_empty());
    h.feed::<api::Pod>(Change::ListBegin);
    h.feed::<api::Pod>(Change::ListDone);
    h.s.handle(Input::Leading(false), h.now);
    assert!(h.cycles().is_empty(), "a standby schedules nothing");
    h.s.handle(Input::Leading(true), h.now);
    h.cycles();
    // The relist did not contain p: it is gone, nothing to bind.
    assert!(h.effects().is_empty());
}

#[test]
fn relists_remove_what_they_did_not_see_but_keep_assumed_pods() {
    let mut h = harness(&["edgesched"]);
    h.start(&[node("n1", "4"), node("n2", "4")], &[bound(pod("a", "1"), "n1")]);
    h.feed(Change::Added(pod("mine", "1").pod));
    h.cycles();
    assert_eq!(h.s.cache().num_pods(), 2, "a and the assumed pod");
    // A relist that predates our binding and no longer has a or n2.
    h.feed::<api::Node>(Change::ListBegin);
    h.feed(Change::ListPage(vec![node("n1", "4").node]));
    h.feed::<api::Node>(Change::ListDone);
    h.feed::<api::Pod>(Change::ListBegin);
    h.feed::<api::Pod>(Change::ListDone);
    assert_eq!(h.s.cache().num_nodes(), 1);
    assert!(h.s.cache().is_assumed("default/mine"), "in flight: kept");
    assert!(h.s.cache().assigned_pod("default/a").is_none(), "gone from the relist: removed");
}

#[test]
fn optional_kinds_answer_readiness_and_unavailable_priority_classes_give_priority_zero() {
    let mut h = harness(&["edgesched"]);
    h.s.watch_kinds(&[KindId::Node, KindId::Pod, KindId::PriorityClass, KindId::Lease]);
    h.start(&[node("n1", "2")], &[]);
    assert_eq!(h.s.kinds_not_synced(), [KindId::PriorityClass, KindId::Lease]);
    h.feed::<api::PriorityClass>(Change::Unavailable);
    h.feed::<api::Lease>(Change::Unavailable);
    assert!(h.s.caches_synced(), "optional kinds that are forbidden do not hold scheduling up");
    // A pod that names a class but carries no spec.priority: with classes unavailable it is not
    // refused for a class we cannot look up.
    let mut p = pod("classy", "1");
    p.pod.spec.priority_class_name = "gold".into();
    h.feed(Change::Added(p.pod));
    h.cycles();
    assert_eq!(h.effects(), ["bind default/classy -> n1"]);
    // With classes known, the same pod naming a missing class is refused with upstream's reason.
    let mut h = harness(&["edgesched"]);
    h.s.watch_kinds(&[KindId::Node, KindId::Pod, KindId::PriorityClass]);
    h.start(&[node("n1", "2")], &[]);
    h.feed::<api::PriorityClass>(Change::ListBegin);
    h.feed::<api::PriorityClass>(Change::ListDone);
    let mut p = pod("classy", "1");
    p.pod.spec.priority_class_name = "gold".into();
    h.feed(Change::Added(p.pod));
    h.cycles();
    let effects = h.effects();
    assert!(effects[0].contains("pod spec cannot be scheduled: no PriorityClass with name gold was found"), "{effects:#?}");
}

#[test]
fn unserved_scheduler_names_are_reported_once_leases_are_visible() {
    let mut h = harness(&["edgesched"]);
    let profiles = std::mem::take(&mut h.s.profiles);
    let settings = Settings { warn_unserved_scheduler_names: true, ..Default::default() };
    h.s = Scheduler::new(profiles, &settings, Metrics::new(), Rng::seeded(1), h.t0);
    h.s.watch_kinds(&[KindId::Node, KindId::Pod, KindId::Lease]);
    h.start(&[node("n1", "2")], &[]);
    let mut typo = pod("typo", "1");
    typo.pod.spec.scheduler_name = "edgeshed".into();
    h.feed(Change::Added(typo.pod));
    // Without other schedulers' Leases nothing is judged unserved.
    h.advance(UNSERVED_GRACE + Duration::from_secs(1));
    h.s.tick(h.now, std::time::SystemTime::now());
    assert!(h.effects().is_empty());
    h.feed::<api::Lease>(Change::ListBegin);
    h.feed::<api::Lease>(Change::ListDone);
    h.advance(Duration::from_secs(11));
    h.s.tick(h.now, std::time::SystemTime::now());
    let effects = h.effects();
    assert_eq!(effects.len(), 1, "{effects:#?}");
    assert!(
        effects[0].starts_with(
            "event Warning NoSchedulerForName default/typo by edgesched: no running scheduler serves schedulerName \"edgeshed\" (did you mean \"edgesched\"?)"
        ),
        "{effects:#?}"
    );
    h.advance(Duration::from_secs(11));
    h.s.tick(h.now, std::time::SystemTime::now());
    assert!(h.effects().is_empty(), "reported once");
}

#[test]
fn a_higher_priority_nomination_clears_lower_ones_on_the_node() {
    let mut h = harness(&["edgesched"]);
    let low = bound(with_priority(pod("low", "2"), 10), "n1");
    h.start(&[node("n1", "2")], std::slice::from_ref(&low));
    // "mid" was nominated to n1 by an earlier preemption (its status says so).
    let mut mid = with_priority(pod("mid", "2"), 100);
    mid.pod.status.nominated_node_name = "n1".into();
    h.feed(Change::Added(mid.pod));
    h.cycles();
    h.effects();
    // A more important pod preempts on the same node: mid's nomination is taken back.
    h.feed(Change::Added(with_priority(pod("top", "2"), 1000).pod));
    h.advance(Duration::from_secs(11));
    h.cycles();
    let effects = h.effects();
    assert!(effects.contains(&"status default/mid: nominatedNodeName=\"\"".to_string()), "{effects:#?}");
    assert!(
        effects.contains(&"status default/top: PodScheduled=False Unschedulable, nominatedNodeName=\"n1\"".to_string()),
        "{effects:#?}"
    );
}

#[test]
fn objects_a_relist_cannot_decode_keep_their_state_and_pending_pods_of_ours_are_told_why() {
    use crate::core::watched::Undecodable;
    let mut h = harness(&["edgesched"]);
    let bound = pod("bound", "3").node_name("n1");
    h.start(&[node("n1", "4")], &[bound]);
    let undecodable = |name: &str, scheduler: &str, node: &str| {
        Box::new(Undecodable {
            namespace: if name == "n1" { String::new() } else { "default".into() },
            name: name.into(),
            scheduler_name: scheduler.into(),
            node_name: node.into(),
            error: "invalid type: string \"x\", expected i32".into(),
            ..Default::default()
        })
    };
    // A relist in which the node, the bound pod and a new pending pod of ours do not decode.
    h.feed::<api::Node>(Change::ListBegin);
    h.feed::<api::Node>(Change::Undecodable(undecodable("n1", "", "")));
    h.feed::<api::Node>(Change::ListDone);
    h.feed::<api::Pod>(Change::ListBegin);
    h.feed::<api::Pod>(Change::Undecodable(undecodable("bound", "edgesched", "n1")));
    h.feed::<api::Pod>(Change::Undecodable(undecodable("odd", "edgesched", "")));
    h.feed::<api::Pod>(Change::ListDone);
    assert_eq!(h.s.cache().num_nodes(), 1, "the node keeps its last known state");
    assert!(h.s.cache().assigned_pod("default/bound").is_some(), "the bound pod still counts");
    h.cycles();
    let effects = h.effects();
    assert!(
        effects.iter().any(|e| e.starts_with(
            "event Warning FailedScheduling default/odd by edgesched: pod spec cannot be scheduled: cannot decode the pod:"
        )),
        "{effects:?}"
    );
    assert!(!effects.iter().any(|e| e.starts_with("bind")), "{effects:?}");
    // Once it decodes, it is scheduled (the bound pod's 3 cpu still count: 1 cpu is left).
    h.feed(Change::Modified(pod("odd", "1").pod));
    h.advance(Duration::from_secs(11));
    h.cycles();
    assert!(h.effects().contains(&"bind default/odd -> n1".to_string()));
}

/// A Permit plugin that holds pods labelled `group` until two of them are there, like a tiny
/// gang; pods labelled `deny` are rejected.
struct WaitForTwo;

impl crate::core::framework::Plugin for WaitForTwo {
    fn name(&self) -> &'static str {
        "WaitForTwo"
    }
    fn points(&self) -> crate::core::framework::Points {
        crate::core::framework::Points { permit: true, ..Default::default() }
    }
    fn permit(
        &self,
        _cache: &crate::core::cache::Cache,
        pod: &crate::core::model::PodInfo,
        _node: &crate::core::cache::NodeInfo,
        _state: &crate::core::framework::PluginState,
        waiting: &mut crate::core::framework::waiting::WaitingHandle<'_>,
    ) -> crate::core::framework::PermitOutcome {
        use crate::core::framework::{PermitOutcome, Rejection};
        if pod.labels.get_str("deny").is_some() {
            return PermitOutcome::Reject(Rejection::unschedulable("denied by WaitForTwo"));
        }
        if pod.labels.get_str("group").is_none() {
            return PermitOutcome::Allow;
        }
        let others: Vec<crate::core::model::PodKey> =
            waiting.iter().filter(|w| w.pod.labels.get_str("group").is_some()).map(|w| w.pod.key.clone()).collect();
        if others.is_empty() {
            return PermitOutcome::Wait(Duration::from_secs(10));
        }
        for k in others {
            waiting.allow(&k, "WaitForTwo");
        }
        PermitOutcome::Allow
    }
}

fn permit_harness() -> Harness {
    let mut h = harness(&["edgesched"]);
    let fw = &mut h.s.profiles[0];
    fw.plugins.push(std::sync::Arc::new(WaitForTwo));
    fw.permit.push(fw.plugins.len() - 1);
    h
}

fn grouped(name: &str) -> PodBuilder {
    pod(name, "100m").labels(&[("group", "g")])
}

#[test]
fn permit_holds_a_pod_until_another_plugin_call_allows_it() {
    // RunPermitPlugins / WaitOnPermit: the first pod waits (assumed, not bound); the second
    // one's Permit allows it and both are bound.
    let mut h = permit_harness();
    h.start(&[node("n1", "4")], &[]);
    h.feed(Change::Added(grouped("a").pod.clone()));
    h.cycles();
    assert!(h.effects().iter().all(|e| !e.starts_with("bind")), "the first pod waits");
    assert_eq!(h.s.waiting_pods().len(), 1);
    assert_eq!(h.s.cache.node_by_name("n1").map(|n| n.pods.len()), Some(1), "it stays assumed on its node");
    h.now += Duration::from_millis(300);
    h.feed(Change::Added(grouped("b").pod.clone()));
    h.cycles();
    let binds: Vec<String> = h.effects().into_iter().filter(|e| e.starts_with("bind")).collect();
    assert_eq!(binds, vec!["bind default/b -> n1".to_string(), "bind default/a -> n1".to_string()]);
    assert!(h.s.waiting_pods().is_empty());
    assert_eq!(h.s.metrics.histogram_count(crate::core::metrics::names::PERMIT_WAIT_DURATION, &["Success"]), 1);
}

#[test]
fn a_waiting_pod_is_rejected_when_its_wait_runs_out() {
    let mut h = permit_harness();
    h.start(&[node("n1", "4")], &[]);
    h.feed(Change::Added(grouped("a").pod.clone()));
    h.cycles();
    h.effects();
    assert_eq!(h.s.next_wakeup(h.now), Some(h.now + Duration::from_secs(10)));
    h.advance(Duration::from_secs(11));
    let effects = h.effects();
    assert!(
        effects.iter().any(|e| e.ends_with(
            "FailedScheduling default/a by edgesched: 0/1 nodes are available: 1 rejected due to timeout after waiting 10s at plugin WaitForTwo."
        )),
        "{effects:#?}"
    );
    assert!(h.s.waiting_pods().is_empty());
    assert_eq!(h.s.cache.node_by_name("n1").map(|n| n.pods.len()), Some(0), "the assumption is forgotten");
    assert_eq!(h.s.metrics.histogram_count(crate::core::metrics::names::PERMIT_WAIT_DURATION, &["Unschedulable"]), 1);
}

#[test]
fn a_permit_rejection_is_a_fit_error_on_the_chosen_node() {
    let mut h = permit_harness();
    h.start(&[node("n1", "4")], &[]);
    h.feed(Change::Added(pod("d", "100m").labels(&[("deny", "yes")]).pod.clone()));
    let attempts = h.cycles();
    assert!(
        matches!(&attempts[0], Attempt::Unschedulable { message, .. } if message == "0/1 nodes are available: 1 denied by WaitForTwo."),
        "{attempts:?}"
    );
    assert_eq!(h.s.cache.node_by_name("n1").map(|n| n.pods.len()), Some(0));
}

#[test]
fn a_waiting_pod_that_is_deleted_is_dropped() {
    let mut h = permit_harness();
    h.start(&[node("n1", "4")], &[]);
    let a = grouped("a");
    h.feed(Change::Added(a.pod.clone()));
    h.cycles();
    h.feed(Change::Deleted(a.pod.clone()));
    assert!(h.s.waiting_pods().is_empty());
    assert_eq!(h.s.cache.node_by_name("n1").map(|n| n.pods.len()), Some(0));
    h.advance(Duration::from_secs(11));
    assert!(h.effects().iter().all(|e| !e.contains("FailedScheduling")));
}
