//! A list page is one input ([`Change::ListPage`]): applied as a whole, it must leave exactly the
//! state that delivering each of its objects as an input of its own leaves — node table, pod
//! table, queue, pending and foreign pods, effects, relist deletions, undecodable items — and
//! the watch events that follow the list still apply in order.

use super::tests::{harness, node, pod, Harness};
use super::*;
use crate::core::api;
use crate::core::framework::instrument::Ticker;
use crate::core::framework::plugins::test_util::PodBuilder;
use crate::core::metrics::names as m;
use crate::core::watched::{Change, Undecodable};
use std::time::Instant;

/// One object of a list page as the reflector hands it over: decoded, or not.
#[derive(Clone)]
enum Item {
    Pod(Box<api::Pod>),
    Bad(Undecodable),
}

fn bound(p: PodBuilder, node: &str) -> Item {
    let mut p = p.node_name(node);
    p.pod.status.phase = "Running".into();
    Item::Pod(Box::new(p.pod))
}

fn pending(p: PodBuilder) -> Item {
    Item::Pod(Box::new(p.pod))
}

fn bad(name: &str, node: &str) -> Item {
    Item::Bad(Undecodable {
        namespace: "default".into(),
        name: name.into(),
        uid: format!("uid-{name}"),
        scheduler_name: "edgesched".into(),
        node_name: node.into(),
        error: "json: cannot unmarshal string into Go struct field PodSpec.spec.priority of type int32".into(),
        ..Default::default()
    })
}

/// A clock that stands still (the handling-time histogram counts samples either way).
struct Still(Instant);

impl Ticker for Still {
    fn now(&self) -> Instant {
        self.0
    }
}

/// Feed one page the way the reflector does (decoded objects, then each undecodable one):
/// `whole` as one input, else each object as a page of its own.
fn feed_page(h: &mut Harness, items: &[Item], whole: bool) {
    let pods: Vec<api::Pod> =
        items.iter().filter_map(|i| if let Item::Pod(p) = i { Some((**p).clone()) } else { None }).collect();
    if whole {
        if !pods.is_empty() {
            h.feed(Change::ListPage(pods));
        }
    } else {
        for p in pods {
            h.feed(Change::ListPage(vec![p]));
        }
    }
    for i in items {
        if let Item::Bad(u) = i {
            h.feed::<api::Pod>(Change::Undecodable(Box::new(u.clone())));
        }
    }
}

fn list_pods(h: &mut Harness, pages: &[Vec<Item>], whole: bool) {
    h.feed::<api::Pod>(Change::ListBegin);
    for page in pages {
        feed_page(h, page, whole);
    }
    h.feed::<api::Pod>(Change::ListDone);
}

/// Everything the pods' inputs can change, as comparable lines.
fn state(h: &mut Harness) -> Vec<String> {
    let mut out = Vec::new();
    let mut keys = h.s.cache().pod_keys();
    keys.sort();
    for k in &keys {
        out.push(format!("assigned {k} assumed={}: {:?}", h.s.cache().is_assumed(k), h.s.cache().assigned_pod(k)));
    }
    for n in ["n1", "n2"] {
        out.push(format!("node {n}: {:?}", h.s.cache().node_by_name(n)));
    }
    let mut pending: Vec<_> = h.s.pending.keys().cloned().collect();
    pending.sort();
    for k in &pending {
        out.push(format!("pending {k} at {:?}: {:?}", h.s.queue().location(k), h.s.pending.get(k)));
    }
    let mut foreign: Vec<_> =
        h.s.foreign.iter().map(|(k, f)| format!("foreign {k} {} {}", f.scheduler_name, f.reported)).collect();
    foreign.sort();
    out.extend(foreign);
    out.extend(h.effects().into_iter().map(|e| format!("effect {e}")));
    for label in ["AssignedPodAdd", "UnschedulablePodAdd", "AssignedPodUpdate", "AssignedPodDelete"] {
        out.push(format!("{label} {}", h.s.metrics.histogram_count(m::EVENT_HANDLING_DURATION, &[label])));
    }
    out
}

/// A start-up list, a relist that misses some objects and changes others, and watch events
/// after it; the state after each step.
fn run(whole: bool) -> Vec<Vec<String>> {
    let mut h = harness(&["edgesched"]);
    h.s.set_ticker(Box::new(Still(h.now)));
    h.start(&[node("n1", "8"), node("n2", "8")], &[]);
    let mut foreign = pod("d", "1");
    foreign.pod.spec.scheduler_name = "other".into();
    let mut done = pod("e", "1").node_name("n2");
    done.pod.status.phase = "Succeeded".into();
    let first = [
        vec![
            bound(pod("a", "1").labels(&[("app", "web")]), "n1"),
            bound(pod("b", "1"), "n2"),
            pending(pod("c", "1")),
            pending(foreign),
            bad("u1", ""),
            Item::Pod(Box::new(done.pod)),
            bad("u2", "n1"),
        ],
        vec![pending(pod("f", "2")), bound(pod("g", "1").labels(&[("app", "db")]), "n1")],
    ];
    list_pods(&mut h, &first, whole);
    let mut states = vec![state(&mut h)];
    h.s.handle(Input::Leading(true), h.now);
    h.cycles();
    states.push(state(&mut h));
    // A relist: a changed its labels, c is now seen bound, b and the foreign d are gone, f (ours,
    // being bound) is missing but stays, h is new, u1 still does not decode.
    let relist = [
        vec![bound(pod("a", "1").labels(&[("app", "api")]), "n1"), bound(pod("c", "1"), "n1")],
        vec![bound(pod("g", "1").labels(&[("app", "db")]), "n1"), pending(pod("h", "1")), bad("u1", "")],
    ];
    list_pods(&mut h, &relist, whole);
    states.push(state(&mut h));
    // Watch events after the list apply in order.
    h.feed(Change::Added(pod("i", "1").pod));
    h.feed(Change::Modified(pod("g", "1").labels(&[("app", "web")]).node_name("n1").pod));
    h.feed(Change::Deleted(pod("a", "1").node_name("n1").pod));
    h.cycles();
    states.push(state(&mut h));
    states
}

#[test]
fn a_page_as_one_input_leaves_the_state_of_its_objects_delivered_one_by_one() {
    let (whole, each) = (run(true), run(false));
    assert_eq!(whole.len(), each.len());
    for (step, (w, e)) in whole.iter().zip(&each).enumerate() {
        assert_eq!(w, e, "step {step}");
    }
    // The scenario does what it says: the relist removed b and the foreign d, kept the assumed f.
    let after_relist = whole[2].join("\n");
    assert!(!after_relist.contains("assigned default/b ") && !after_relist.contains("foreign default/d"), "{after_relist}");
    assert!(after_relist.contains("assigned default/f assumed=true"), "{after_relist}");
    assert!(whole[0].iter().any(|l| l == "foreign default/d other false"), "{:#?}", whole[0]);
    assert!(whole[1].iter().any(|l| l.contains("effect") && l.contains("u1")), "{:#?}", whole[1]);
    // Every listed object was timed once: a, b, g and e (bound) in the first list, a, c and g in
    // the relist; c, d and f, then h, pending.
    assert!(whole[2].iter().any(|l| l == "AssignedPodAdd 7"), "{:#?}", whole[2]);
    assert!(whole[2].iter().any(|l| l == "UnschedulablePodAdd 4"), "{:#?}", whole[2]);
    let last = whole[3].join("\n");
    assert!(!last.contains("assigned default/a ") && last.contains("assigned default/i "), "{last}");
}
