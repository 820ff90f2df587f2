//! The extension points out-of-tree plugins reach through the scheduler core: QueueSort replacing
//! PrioritySort, Unreserve on every failure after Reserve (in reverse order), queueing hints
//! deciding which events move a rejected pod, PreEnqueue waiting for other pending pods, and
//! the binding-cycle plugins handed to the binder with the bind request.

use super::tests::{harness, harness_with, node, pod, Harness};
use super::*;
use crate::core::cache::{Cache, NodeInfo};
use crate::core::framework::registry::{Factory, Registry};
use crate::core::framework::waiting::WaitingHandle;
use crate::core::framework::{
    ClusterEvent, EventMask, EventObject, PermitOutcome, Plugin, PluginState, Points, QueueingHint, Rejection,
};
use crate::core::model::PodInfo;
use crate::core::queue::{Location, QueuedPod};
use crate::core::watched::Change;
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// Orders pods by name, last name first (anything but PrioritySort's order).
struct ByNameDescending;

impl Plugin for ByNameDescending {
    fn name(&self) -> &'static str {
        "ByNameDescending"
    }
    fn points(&self) -> Points {
        Points { queue_sort: true, ..Default::default() }
    }
    fn less(&self, a: &QueuedPod, b: &QueuedPod) -> bool {
        a.pod.name > b.pod.name
    }
}

/// Records Unreserve calls; its Permit rejects pods labelled `deny` and holds pods labelled
/// `wait` for 10 s.
struct Recorder {
    name: &'static str,
    log: Arc<Mutex<Vec<String>>>,
}

impl Plugin for Recorder {
    fn name(&self) -> &'static str {
        self.name
    }
    fn points(&self) -> Points {
        Points { reserve: true, permit: self.name == "R2", ..Default::default() }
    }
    fn permit(&self, _: &Cache, pod: &PodInfo, _: &NodeInfo, _: &PluginState, _: &mut WaitingHandle<'_>) -> PermitOutcome {
        if pod.labels.get_str("deny").is_some() {
            return PermitOutcome::Reject(Rejection::unschedulable("denied"));
        }
        if pod.labels.get_str("wait").is_some() {
            return PermitOutcome::Wait(Duration::from_secs(10));
        }
        PermitOutcome::Allow
    }
    fn unreserve(&self, _: &Cache, pod: &PodInfo, node: &str, _: &mut WaitingHandle<'_>) {
        if let Ok(mut log) = self.log.lock() {
            log.push(format!("{} {} {node}", self.name, pod.key));
        }
    }
}

/// Rejects every node not labelled `ready`; only a node that is (or becomes) `ready` is worth
/// a retry, whatever else changes.
struct NeedsReady;

impl Plugin for NeedsReady {
    fn name(&self) -> &'static str {
        "NeedsReady"
    }
    fn points(&self) -> Points {
        Points { filter: true, ..Default::default() }
    }
    fn events(&self) -> EventMask {
        EventMask::NODE_ADD | EventMask::NODE_LABEL
    }
    fn queueing_hint(&self, event: &ClusterEvent<'_>, _pod: &PodInfo) -> QueueingHint {
        match event.new {
            Some(EventObject::Node(n)) if n.labels.get_str("ready").is_some() => QueueingHint::Queue,
            _ => QueueingHint::QueueSkip,
        }
    }
    fn filter(&self, _: &Cache, _: &PodInfo, node: &NodeInfo, _: &PluginState) -> Result<(), Rejection> {
        match node.node.labels.get_str("ready") {
            Some(_) => Ok(()),
            None => Err(Rejection::unschedulable("node(s) not ready")),
        }
    }
}

/// Holds pods labelled `team` until two pods of the team are pending or assigned (a PreEnqueue
/// reading the other pending pods, as Coscheduling's).
struct TeamOfTwo;

impl Plugin for TeamOfTwo {
    fn name(&self) -> &'static str {
        "TeamOfTwo"
    }
    fn points(&self) -> Points {
        Points { pre_enqueue: true, ..Default::default() }
    }
    fn events(&self) -> EventMask {
        EventMask::UNSCHEDULED_POD_ADD
    }
    fn pre_enqueue(&self, cache: &Cache, pod: &PodInfo) -> Result<(), Rejection> {
        let Some(team) = pod.labels.get_str("team") else { return Ok(()) };
        let n = cache.pending_pods().filter(|p| p.labels.get_str("team") == Some(team)).count();
        if n < 2 {
            return Err(Rejection::unresolvable(format!("team {team} has {n} of 2 pods")));
        }
        Ok(())
    }
}

/// The custom resource [`NeedsTicket`] reads (a run-time row of the kind table).
const TICKETS: &str = "tickets.example.com";

/// Holds pods labelled `ticket` until the `Ticket` object of that name exists in the pod's
/// namespace with `spec.open: true` (a PreEnqueue reading a custom resource, as Coscheduling
/// reads PodGroups); only changes of tickets are worth asking again.
struct NeedsTicket;

impl Plugin for NeedsTicket {
    fn name(&self) -> &'static str {
        "NeedsTicket"
    }
    fn points(&self) -> Points {
        Points { pre_enqueue: true, ..Default::default() }
    }
    fn events(&self) -> EventMask {
        EventMask::CUSTOM_RESOURCE
    }
    fn queueing_hint(&self, event: &ClusterEvent<'_>, pod: &PodInfo) -> QueueingHint {
        match event.new.or(event.old) {
            Some(EventObject::Custom(t))
                if t.resource() == TICKETS && Some(t.metadata.name.as_str()) == pod.labels.get_str("ticket") =>
            {
                QueueingHint::Queue
            }
            _ => QueueingHint::QueueSkip,
        }
    }
    fn pre_enqueue(&self, cache: &Cache, pod: &PodInfo) -> Result<(), Rejection> {
        let Some(name) = pod.labels.get_str("ticket") else { return Ok(()) };
        match cache.custom_object(TICKETS, &pod.namespace, name) {
            Some(t) if t.object["spec"]["open"] == true => Ok(()),
            Some(_) => Err(Rejection::unresolvable("ticket closed")),
            None => Err(Rejection::unresolvable("ticket not found")),
        }
    }
}

/// The custom-resource row of the tickets (installed once per test process).
fn ticket_row() -> crate::core::watched::KindId {
    use crate::core::custom_resources::CustomResource;
    let declared = [("NeedsTicket".to_string(), CustomResource::namespaced("example.com", "v1", "tickets", "Ticket"))];
    crate::core::watched::install_custom(&declared);
    let row = crate::core::watched::custom_kinds().find(|k| k.resource == "tickets").expect("tickets row");
    assert_eq!((row.path(""), row.is_read_by(&["NeedsTicket"])), ("/apis/example.com/v1/tickets".to_string(), true));
    row.id
}

fn ticket(name: &str, open: bool, rv: &str) -> crate::core::custom_resources::CustomObject {
    crate::core::custom_resources::CustomObject::from_value(serde_json::json!({
        "apiVersion": "example.com/v1", "kind": "Ticket",
        "metadata": {"name": name, "namespace": "default", "resourceVersion": rv},
        "spec": {"open": open}
    }))
}

/// A Bind plugin (it never runs here: binding plugins run on the shell's binder threads).
struct OwnBinder;

impl Plugin for OwnBinder {
    fn name(&self) -> &'static str {
        "OwnBinder"
    }
    fn points(&self) -> Points {
        Points { bind: true, post_bind: true, ..Default::default() }
    }
}

/// A scheduler whose `edgesched` profile adds `plugins` (YAML under `plugins:`) from a registry
/// holding the test plugins.
fn custom(plugins: &str, log: &Arc<Mutex<Vec<String>>>) -> Harness {
    let mut registry = Registry::default();
    let mut add = |name: &str, f: Factory| registry.register(name, f).expect("register");
    add("ByNameDescending", Arc::new(|_| Ok(Arc::new(ByNameDescending) as Arc<dyn Plugin>)));
    let l = log.clone();
    add("R1", Arc::new(move |_| Ok(Arc::new(Recorder { name: "R1", log: l.clone() }) as Arc<dyn Plugin>)));
    let l = log.clone();
    add("R2", Arc::new(move |_| Ok(Arc::new(Recorder { name: "R2", log: l.clone() }) as Arc<dyn Plugin>)));
    add("NeedsReady", Arc::new(|_| Ok(Arc::new(NeedsReady) as Arc<dyn Plugin>)));
    add("TeamOfTwo", Arc::new(|_| Ok(Arc::new(TeamOfTwo) as Arc<dyn Plugin>)));
    add("OwnBinder", Arc::new(|_| Ok(Arc::new(OwnBinder) as Arc<dyn Plugin>)));
    add("NeedsTicket", Arc::new(|_| Ok(Arc::new(NeedsTicket) as Arc<dyn Plugin>)));
    harness_with(registry, &format!("  plugins:\n{plugins}"))
}

fn binds(h: &mut Harness) -> Vec<String> {
    h.effects().into_iter().filter(|e| e.starts_with("bind")).collect()
}

#[test]
fn an_out_of_tree_queue_sort_orders_the_queue() {
    // Without it, PrioritySort pops a, b, c (same priority, arrival order).
    let log = Arc::new(Mutex::new(Vec::new()));
    let mut h =
        custom("    queueSort:\n      enabled:\n      - name: ByNameDescending\n      disabled:\n      - name: '*'\n", &log);
    h.start(&[node("n1", "4")], &[pod("a", "100m"), pod("b", "100m"), pod("c", "100m")]);
    h.cycles();
    assert_eq!(binds(&mut h), vec!["bind default/c -> n1", "bind default/b -> n1", "bind default/a -> n1"]);
}

#[test]
fn unreserve_runs_in_reverse_order_after_a_permit_rejection() {
    // schedule_one.go schedulingCycle: a Permit rejection runs RunReservePluginsUnreserve.
    let log = Arc::new(Mutex::new(Vec::new()));
    let mut h = custom("    multiPoint:\n      enabled:\n      - name: R1\n      - name: R2\n", &log);
    h.start(&[node("n1", "4")], &[pod("d", "100m").labels(&[("deny", "y")]), pod("ok", "100m")]);
    h.cycles();
    assert_eq!(binds(&mut h), vec!["bind default/ok -> n1"]);
    assert_eq!(*log.lock().expect("log"), vec!["R2 default/d n1", "R1 default/d n1"]);
}

#[test]
fn unreserve_runs_when_binding_fails_and_when_a_waiting_pod_is_rejected() {
    let log = Arc::new(Mutex::new(Vec::new()));
    let mut h = custom("    multiPoint:\n      enabled:\n      - name: R1\n      - name: R2\n", &log);
    h.start(&[node("n1", "4")], &[pod("a", "100m")]);
    h.cycles();
    assert_eq!(binds(&mut h), vec!["bind default/a -> n1"]);
    let failed = BindOutcome::new("default/a".into(), "n1".into(), Err(BindFailure::Other("boom".into())));
    h.s.handle(Input::BindDone(failed), h.now);
    assert_eq!(*log.lock().expect("log"), vec!["R2 default/a n1", "R1 default/a n1"]);
    assert_eq!(h.s.cache.node_by_name("n1").map(|n| n.pods.len()), Some(0), "forgotten after Unreserve");

    log.lock().expect("log").clear();
    h.feed(Change::Added(pod("w", "100m").labels(&[("wait", "y")]).pod));
    h.cycles();
    assert!(log.lock().expect("log").is_empty(), "a waiting pod is still reserved");
    h.advance(Duration::from_secs(11));
    assert_eq!(*log.lock().expect("log"), vec!["R2 default/w n1", "R1 default/w n1"]);
}

#[test]
fn queueing_hints_decide_which_events_move_a_rejected_pod() {
    // scheduling_queue.go isPodWorthRequeuing: the rejector registered for NodeAdd, but its
    // hint only queues the pod for a ready node.
    let log = Arc::new(Mutex::new(Vec::new()));
    let mut h = custom("    multiPoint:\n      enabled:\n      - name: NeedsReady\n", &log);
    h.start(&[node("n1", "4")], &[pod("p", "100m")]);
    h.cycles();
    assert_eq!(h.s.queue.location("default/p"), Some(Location::Unschedulable));
    h.feed(Change::Added(node("n2", "4").node));
    assert_eq!(h.s.queue.location("default/p"), Some(Location::Unschedulable), "QueueSkip for a node that is not ready");
    h.feed(Change::Added(node("n3", "4").labels(&[("ready", "yes")]).node));
    assert_ne!(h.s.queue.location("default/p"), Some(Location::Unschedulable), "Queue for a ready node");
    h.advance(Duration::from_secs(2));
    h.cycles();
    assert_eq!(binds(&mut h), vec!["bind default/p -> n3"]);
}

#[test]
fn a_pre_enqueue_plugin_sees_the_pending_pods_and_is_asked_again_when_one_arrives() {
    let log = Arc::new(Mutex::new(Vec::new()));
    let mut h = custom("    multiPoint:\n      enabled:\n      - name: TeamOfTwo\n", &log);
    h.start(&[node("n1", "4")], &[]);
    h.feed(Change::Added(pod("a", "100m").labels(&[("team", "t")]).pod));
    assert_eq!(h.s.queue.location("default/a"), Some(Location::Gated));
    h.feed(Change::Added(pod("b", "100m").labels(&[("team", "t")]).pod));
    assert_eq!(h.s.queue.location("default/a"), Some(Location::Active), "the sibling's arrival ungated it");
    h.cycles();
    assert_eq!(binds(&mut h).len(), 2);
}

#[test]
fn binding_plugins_travel_with_the_bind_request_only_when_out_of_tree() {
    let log = Arc::new(Mutex::new(Vec::new()));
    let mut h = custom(
        "    bind:\n      enabled:\n      - name: OwnBinder\n      disabled:\n      - name: DefaultBinder\n    postBind:\n      enabled:\n      - name: OwnBinder\n",
        &log,
    );
    h.start(&[node("n1", "4")], &[pod("a", "100m")]);
    h.cycles();
    let plan = h.s.take_effects().into_iter().find_map(|e| match e {
        Effect::Bind(b) => Some(format!("{:?}", b.binding)),
        _ => None,
    });
    // VolumeBinding's planned writes keep their place among the PreBind plugins.
    assert_eq!(
        plan.as_deref(),
        Some(
            r#"Some(BindingPlugins { pre_bind: ["VolumeBinding", "DynamicResources"], bind: ["OwnBinder"], post_bind: ["OwnBinder"] })"#
        )
    );

    let mut plain = harness(&["edgesched"]);
    plain.start(&[node("n1", "4")], &[pod("a", "100m")]);
    plain.cycles();
    assert!(plain.s.take_effects().iter().any(|e| matches!(e, Effect::Bind(b) if b.binding.is_none())));
}

#[test]
fn custom_resource_changes_reach_the_store_and_re_ask_gated_pods() {
    use crate::core::watched::{Change as C, KindChange, KindSync, Watched};
    let id = ticket_row();
    enable_custom_resources();
    let crate::core::watched::KindId::Custom(index) = id else { panic!("{id:?}") };
    let log = Arc::new(Mutex::new(Vec::new()));
    let mut h = custom("    multiPoint:\n      enabled:\n      - name: NeedsTicket\n", &log);
    h.s.watch_kinds(&[crate::core::watched::KindId::Node, crate::core::watched::KindId::Pod, id]);
    h.start(&[node("n1", "4")], &[]);
    let feed = |h: &mut Harness, c: C<Box<crate::core::custom_resources::CustomObject>>| {
        h.s.handle(Input::Watch(crate::core::custom_resources::CustomObject::wrap_as(id, c)), h.now)
    };
    // Readiness waits for the custom resource's first list like any required kind.
    assert_eq!(h.s.kinds.get(&id), Some(&KindSync::Waiting));
    feed(&mut h, C::ListBegin);
    feed(&mut h, C::ListPage(vec![Box::new(ticket("old", true, "1"))]));
    feed(&mut h, C::ListDone);
    assert_eq!(h.s.kinds.get(&id), Some(&KindSync::Synced));
    assert!(h.s.cache.custom_object(TICKETS, "default", "old").is_some());
    assert!(matches!(KindChange::Custom(index, C::ListDone).id(), crate::core::watched::KindId::Custom(i) if i == index));

    // A pod whose ticket does not exist stays gated; another ticket's arrival does not re-ask it.
    h.feed(Change::Added(pod("a", "100m").labels(&[("ticket", "t")]).pod));
    assert_eq!(h.s.queue.location("default/a"), Some(Location::Gated));
    feed(&mut h, C::Added(Box::new(ticket("other", true, "2"))));
    assert_eq!(h.s.queue.location("default/a"), Some(Location::Gated));
    // Its ticket appears closed: asked again, still gated; opened by an update: enqueued.
    feed(&mut h, C::Added(Box::new(ticket("t", false, "3"))));
    assert_eq!(h.s.queue.location("default/a"), Some(Location::Gated));
    feed(&mut h, C::Modified(Box::new(ticket("t", true, "4"))));
    assert_eq!(h.s.queue.location("default/a"), Some(Location::Active));
    h.cycles();
    assert_eq!(binds(&mut h), vec!["bind default/a -> n1"]);

    // Deleted by a watch event, and gone from a relist.
    feed(&mut h, C::Deleted(Box::new(ticket("t", true, "5"))));
    assert!(h.s.cache.custom_object(TICKETS, "default", "t").is_none());
    feed(&mut h, C::ListBegin);
    feed(&mut h, C::ListPage(vec![Box::new(ticket("other", true, "2"))]));
    feed(&mut h, C::ListDone);
    assert!(h.s.cache.custom_object(TICKETS, "default", "old").is_none(), "not seen by the relist");
    assert!(h.s.cache.custom_object(TICKETS, "default", "other").is_some());
    // RBAC took it away: forgotten.
    feed(&mut h, C::Unavailable);
    assert!(h.s.cache.custom_object(TICKETS, "default", "other").is_none());
}
