//! Decoding list pages one object at a time.
//!
//! Objects follow Go's decoding rules ([`crate::core::gojson`]). client-go decodes a page as one
//! `*List` value, so a single object it cannot decode fails the whole list and the reflector
//! keeps nothing from it (`tools/cache/reflector.go`, `list`: "failed to list"); against a server
//! that writes one odd object the caches never sync. Here the page's envelope is read first, each
//! item is decoded on its own, and an item that does not decode is reported as an
//! [`Undecodable`] (with whatever identity could be read from it) while the rest of the page is
//! used. Pure: the fuzz target `list_page` drives it with arbitrary bytes.

use crate::core::api::pod_wire;
use crate::core::api::scan::{Cursor, Miss};
use crate::core::api::{ListMeta, Object, Pod};
use crate::core::gojson;
use crate::core::watched::Undecodable;
use serde::de::DeserializeOwned;
use serde::Deserialize;
use serde_json::value::RawValue;
use serde_json::Value;
use std::any::Any;
use std::cell::Cell;
use std::sync::atomic::{AtomicU32, AtomicU64, Ordering::SeqCst};
use std::sync::{Condvar, Mutex, PoisonError};
use std::time::{Duration, Instant};

/// One page of a list: the objects that decoded, in server order, and those that did not.
///
/// Objects are boxed as they are decoded: the page goes to the scheduler core as it is (one
/// input per page, [`crate::core::watched::Change::ListPage`]), whose changes carry boxed
/// objects, so no object is copied again and no page-sized buffer of whole objects is built.
#[derive(Debug, Clone)]
pub struct ListPage<T> {
    pub metadata: ListMeta,
    pub items: Vec<Box<T>>,
    pub undecodable: Vec<Undecodable>,
}

impl<T> ListPage<T> {
    /// A page of `items` (tests and fakes).
    pub fn of(metadata: ListMeta, items: Vec<T>) -> ListPage<T> {
        ListPage { metadata, items: items.into_iter().map(Box::new).collect(), undecodable: Vec::new() }
    }
}

/// Decode a list response body. Fails only when the envelope itself is not a list (not JSON, or
/// `items` not an array): then nothing in it can be trusted.
pub fn decode_list<T: DeserializeOwned + Object + 'static>(body: &[u8]) -> Result<ListPage<T>, String> {
    begin_turn();
    let text = gojson::text(body);
    if let Some(page) = as_kind(|| pod_page(&text)) {
        return Ok(page);
    }
    general_page(&text)
}

/// [`decode_list`] with the serde derive for every item (and the envelope read first).
fn general_page<T: DeserializeOwned + Object + 'static>(text: &str) -> Result<ListPage<T>, String> {
    #[derive(Deserialize)]
    struct Envelope<'a> {
        #[serde(borrow, default)]
        metadata: Option<&'a RawValue>,
        #[serde(borrow, default)]
        items: Option<Vec<&'a RawValue>>,
    }
    let envelope: Envelope<'_> = serde_json::from_str(text).map_err(|e| format!("list: {e}"))?;
    let metadata = match envelope.metadata {
        Some(raw) => gojson::from_str(raw.get()).map_err(|e| format!("list metadata: {e}"))?,
        None => ListMeta::default(),
    };
    let raw_items = envelope.items.unwrap_or_default();
    let mut page = ListPage { metadata, items: Vec::with_capacity(raw_items.len()), undecodable: Vec::new() };
    for raw in raw_items {
        match decode_object::<T>(raw.get()) {
            Ok(obj) => page.items.push(Box::new(obj)),
            Err(u) => page.undecodable.push(*u),
        }
    }
    Ok(page)
}

/// `make()`'s value as a `T` when `T` is the type `make` builds, else `None` (without calling it).
fn as_kind<T: 'static, U: 'static>(make: impl FnOnce() -> Option<U>) -> Option<T> {
    let mut slot: Option<T> = None;
    if let Some(slot) = (&mut slot as &mut dyn Any).downcast_mut::<Option<U>>() {
        *slot = make();
    }
    slot
}

/// A page of pods in one pass with the hand-written decoder ([`pod_wire`]), items it leaves to
/// the general decoder decoded by it one by one. `None` when the envelope is anything but the
/// plain shape (then [`general_page`] reads the body and decides, errors included).
fn pod_page(text: &str) -> Option<ListPage<Pod>> {
    let mut c = Cursor::new(text);
    let mut metadata = None;
    let mut items: Option<Vec<Box<Pod>>> = None;
    let mut undecodable = Vec::new();
    c.object(|c, key| match key {
        "metadata" if metadata.is_none() => {
            let raw = c.raw_value()?;
            metadata = Some(if raw == "null" { ListMeta::default() } else { gojson::from_str(raw).map_err(|_| Miss)? });
            Ok(())
        }
        "items" if items.is_none() => {
            // Sized as the previous page was (no regrowth while a page is read).
            let mut list = Vec::with_capacity(PAGE_HINT.get());
            if !c.null()? {
                c.array(|c| {
                    let start = c.mark();
                    match pod_wire::pod_at(c, POD_NEED.get()) {
                        Ok(mut pod) if !pod.metadata.name.is_empty() => {
                            pod.keep_source(c.since(start.pos));
                            list.push(pod);
                        }
                        _ => {
                            c.rewind(start);
                            let raw = c.raw_value()?;
                            match decode_object::<Pod>(raw) {
                                Ok(pod) => list.push(Box::new(pod)),
                                Err(u) => undecodable.push(*u),
                            }
                        }
                    }
                    Ok(())
                })?;
            }
            PAGE_HINT.set(list.len());
            items = Some(list);
            Ok(())
        }
        "metadata" | "items" => Err(Miss),
        _ => c.skip_value(),
    })
    .ok()?;
    if !c.at_end() {
        return None;
    }
    Some(ListPage { metadata: metadata.unwrap_or_default(), items: items.unwrap_or_default(), undecodable })
}

/// Decode one object; an object without a name is as useless as one that does not decode (Go
/// would store it under an empty key). Pods go through the hand-written decoder first.
pub fn decode_object<T: DeserializeOwned + Object + 'static>(raw: &str) -> Result<T, Box<Undecodable>> {
    let fast = as_kind(|| pod_wire::decode_pod_for(raw, POD_NEED.get()).filter(|p| !p.metadata.name.is_empty()));
    let decoded = match fast {
        Some(obj) => Ok(obj),
        None => gojson::from_str::<T>(raw),
    };
    match decoded {
        Ok(mut obj) if !obj.name().is_empty() => {
            // Pods keep their JSON for the extenders (when some are configured).
            if let Some(pod) = (&mut obj as &mut dyn Any).downcast_mut::<Pod>() {
                pod.keep_source(raw);
            }
            Ok(obj)
        }
        Ok(_) => Err(Box::new(undecodable(raw, "object has no metadata.name".to_string()))),
        Err(e) => Err(Box::new(undecodable(raw, e.to_string()))),
    }
}

/// What can be read of an object's identity from its raw JSON, whatever else is wrong with it.
pub fn undecodable(raw: &str, error: String) -> Undecodable {
    let value: Value = serde_json::from_str(raw).unwrap_or(Value::Null);
    let text = |pointer: &str| value.pointer(pointer).and_then(Value::as_str).unwrap_or_default().to_string();
    Undecodable {
        namespace: text("/metadata/namespace"),
        name: text("/metadata/name"),
        uid: text("/metadata/uid"),
        resource_version: text("/metadata/resourceVersion"),
        scheduler_name: text("/spec/schedulerName"),
        node_name: text("/spec/nodeName"),
        error,
    }
}

/// Turn-taking between the informer threads that decode list pages and the scheduler thread that
/// consumes what they send. A page of pods is tens of thousands of small allocations made by the
/// decoding thread and freed by the scheduler thread after it has built its own records; musl's
/// allocator serialises both behind one lock, and a start-up that decoded the next page while the
/// previous one was being consumed spent about a third of its CPU contending for it. With turns,
/// an informer fetches its next page (network, few allocations) while the scheduler works, then
/// decodes only once every change sent before has been handled and no other informer is decoding.
/// The wait is bounded ([`DecodeTurn::MAX_WAIT`]), so a stalled consumer costs speed, never progress.
///
/// One per process ([`TURN`]): informer threads opt in ([`take_turns`]), and [`decode_list`] waits
/// for a turn only on those, so the one-off readers (`diagnose`, cluster files) never wait.
#[derive(Debug)]
pub struct DecodeTurn {
    /// Changes sent to the consumer, and how many of them it has handled.
    sent: AtomicU64,
    handled: AtomicU64,
    /// Informers waiting for a turn (the consumer wakes them only when some wait).
    waiting: AtomicU32,
    /// An informer is decoding a page.
    decoding: Mutex<bool>,
    changed: Condvar,
}

/// The process's decoding turns.
pub static TURN: DecodeTurn = DecodeTurn::new();

thread_local! {
    /// What this thread's reader keeps of the pods it decodes ([`node_side_bound_pods`]).
    static POD_NEED: Cell<pod_wire::Need> = const { Cell::new(pod_wire::Need::Whole) };
    /// How many pods the previous page of this thread held.
    static PAGE_HINT: Cell<usize> = const { Cell::new(0) };
    /// On an informer thread: whether it takes turns, and whether it holds the turn now.
    static TURNS: Cell<(bool, bool)> = const { Cell::new((false, false)) };
}

/// Decode the bound pods of the current (informer) thread for their node-side record only
/// ([`pod_wire::Need::NodeSideWhenBound`]): the scheduler keeps nothing else of them. The other
/// readers (`diagnose`, cluster files) keep whole pods.
pub fn node_side_bound_pods() {
    POD_NEED.set(pod_wire::Need::NodeSideWhenBound);
}

/// Make the current (informer) thread take turns before decoding list pages.
pub fn take_turns() {
    TURNS.set((true, false));
}

/// On a thread that takes turns, wait for the turn and hold it until [`end_turn`].
#[inline(never)]
fn begin_turn() {
    if TURNS.get() == (true, false) {
        TURN.acquire();
        TURNS.set((true, true));
    }
}

/// Give the turn back (the page decoded under it has been sent, or decoding failed).
#[inline(never)]
pub fn end_turn() {
    if TURNS.get() == (true, true) {
        TURN.release();
        TURNS.set((true, false));
    }
}

impl DecodeTurn {
    /// Longest wait for a turn before decoding anyway.
    pub const MAX_WAIT: Duration = Duration::from_millis(250);

    const fn new() -> DecodeTurn {
        DecodeTurn {
            sent: AtomicU64::new(0),
            handled: AtomicU64::new(0),
            waiting: AtomicU32::new(0),
            decoding: Mutex::new(false),
            changed: Condvar::new(),
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, bool> {
        self.decoding.lock().unwrap_or_else(PoisonError::into_inner)
    }

    fn caught_up(&self) -> bool {
        self.handled.load(SeqCst) >= self.sent.load(SeqCst)
    }

    /// Wait until the consumer has handled every change sent so far and no one else decodes.
    fn acquire(&self) {
        let deadline = Instant::now() + Self::MAX_WAIT;
        let mut decoding = self.lock();
        // `waiting` is raised before the condition is read again, and the consumer reads it after
        // counting: one of the two sees the other, so no wake-up is lost.
        self.waiting.fetch_add(1, SeqCst);
        while *decoding || !self.caught_up() {
            let Some(left) = deadline.checked_duration_since(Instant::now()) else { break };
            decoding = self.changed.wait_timeout(decoding, left).unwrap_or_else(PoisonError::into_inner).0;
        }
        self.waiting.fetch_sub(1, SeqCst);
        *decoding = true;
    }

    fn release(&self) {
        *self.lock() = false;
        self.wake();
    }

    /// A change is about to be sent to the consumer.
    pub fn sending(&self) {
        self.sent.fetch_add(1, SeqCst);
    }

    /// The consumer has handled one change.
    pub fn handled(&self) {
        self.handled.fetch_add(1, SeqCst);
        self.wake();
    }

    fn wake(&self) {
        if self.waiting.load(SeqCst) > 0 {
            let _decoding = self.lock();
            self.changed.notify_all();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::api::{Node, Pod};

    #[test]
    fn one_bad_item_does_not_fail_the_page() {
        let body = br#"{"kind":"PodList","metadata":{"resourceVersion":"7","continue":null},"items":[
            {"metadata":{"name":"a","namespace":"ns","resourceVersion":"5"},"spec":null},
            {"metadata":{"name":"b","namespace":"ns","uid":"u-b"},"spec":{"schedulerName":"edgesched","priority":"high"}},
            null,
            {"metadata":{"name":"c","namespace":"ns"},"spec":{"containers":[{"name":"x","resources":{"requests":{"cpu":2}}}]}}
        ]}"#;
        let page: ListPage<Pod> = decode_list(body).expect("page");
        assert_eq!(page.metadata.resource_version, "7");
        assert_eq!(page.metadata.continue_token, "");
        let names: Vec<&str> = page.items.iter().map(|p| p.metadata.name.as_str()).collect();
        assert_eq!(names, ["a", "c"]);
        assert_eq!(page.undecodable.len(), 2);
        let b = &page.undecodable[0];
        assert_eq!((b.key().as_str(), b.uid.as_str(), b.scheduler_name.as_str()), ("ns/b", "u-b", "edgesched"));
        assert!(b.error.contains("invalid type"), "{}", b.error);
        assert_eq!(page.undecodable[1].error, "object has no metadata.name");
    }

    /// Pod objects of the recorded watch events (`tests/fixtures/watch/`).
    fn fixture_pods() -> Vec<String> {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/watch");
        let mut files: Vec<_> = std::fs::read_dir(dir).expect("fixtures").map(|e| e.expect("entry").path()).collect();
        files.sort();
        let mut out = Vec::new();
        for f in files {
            for line in std::fs::read_to_string(&f).expect("fixture").lines().filter(|l| !l.trim().is_empty()) {
                let event: Value = serde_json::from_str(line).expect("event");
                if event["object"]["kind"] == "Pod" {
                    out.push(event["object"].to_string());
                }
            }
        }
        out
    }

    #[test]
    fn pod_pages_decode_as_the_general_path_does() {
        let pods = fixture_pods();
        let bad = [
            "null",
            "7",
            r#"{"metadata":{"namespace":"ns"}}"#,
            r#"{"metadata":{"name":"p","namespace":"ns"},"spec":{"priority":"high"}}"#,
            r#"{"metadata":{"name":"q","name":"q"}}"#,
            r#"{"metadata":{"n\u0061me":"esc","namespace":"ns"},"spec":{"nodeName":"n1"}}"#,
        ];
        let all: Vec<&str> = pods.iter().map(String::as_str).chain(bad).collect();
        let items = all.join(",\n ");
        let bodies = [
            format!(r#"{{"kind":"PodList","metadata":{{"resourceVersion":"9","continue":"c"}},"items":[{items}]}}"#),
            format!(r#"{{"items":[{items}],"metadata":null,"apiVersion":"v1"}}"#),
            format!(r#"{{"items":[{items}]}} x"#),
            format!(r#"{{"items":[{items}],"items":[]}}"#),
            r#"{"metadata":{},"metadata":{},"items":[]}"#.to_string(),
            format!(r#"{{"\u0069tems":[{items}]}}"#),
            format!(r#"{{"metadata":[],"items":[{items}]}}"#),
            format!(r#"{{"items":[{items},]}}"#),
            r#"{"items":null}"#.to_string(),
            r#"{"items":{}}"#.to_string(),
            r#"{"metadata":{"resourceVersion":5}}"#.to_string(),
            r#"[]"#.to_string(),
            String::new(),
        ];
        for body in &bodies {
            let fast = format!("{:?}", decode_list::<Pod>(body.as_bytes()));
            let general = format!("{:?}", general_page::<Pod>(body));
            assert_eq!(fast, general, "{body}");
        }
        // The plain page is read by the hand-written decoder, not the general one.
        let plain = pod_page(&bodies[0]).expect("read in one pass");
        assert_eq!(plain.items.len() + plain.undecodable.len(), all.len());
        // Items left to the general decoder do not leave the scanner deeper than it is.
        let many: Vec<&str> = (0..200).map(|i| if i % 2 == 0 { bad[3] } else { r#"{"metadata":{"name":"ok"}}"# }).collect();
        let page = pod_page(&format!(r#"{{"items":[{}]}}"#, many.join(","))).expect("read in one pass");
        assert_eq!((page.items.len(), page.undecodable.len()), (100, 100));
        assert!(plain.items.len() > pods.len() / 2, "{}", plain.items.len());
    }

    #[test]
    fn envelopes_that_are_not_lists_fail() {
        for body in [&b"nonsense"[..], br#"{"items":{}}"#, br#"{"metadata":[]}"#, b""] {
            assert!(decode_list::<Node>(body).is_err(), "{}", String::from_utf8_lossy(body));
        }
        let empty: ListPage<Node> = decode_list(br#"{"metadata":null,"items":null}"#).expect("page");
        assert!(empty.items.is_empty() && empty.undecodable.is_empty());
    }

    #[test]
    fn a_turn_waits_for_the_consumer_and_for_other_decoders() {
        let turn = std::sync::Arc::new(DecodeTurn::new());
        turn.acquire();
        turn.sending();
        let waiter = {
            let turn = turn.clone();
            std::thread::spawn(move || {
                turn.acquire();
                turn.release();
            })
        };
        // Released and handled: the waiter gets its turn (bounded either way, so no hang).
        turn.release();
        turn.handled();
        waiter.join().expect("waiter");
        assert!(!*turn.lock() && turn.caught_up());
        assert_eq!(turn.waiting.load(SeqCst), 0);
    }

    #[test]
    fn only_threads_that_take_turns_hold_one() {
        let page: ListPage<Node> = decode_list(br#"{"metadata":{},"items":[]}"#).expect("page");
        assert!(page.items.is_empty());
        assert_eq!(TURNS.get(), (false, false));
        std::thread::spawn(|| {
            take_turns();
            let _ = decode_list::<Node>(b"{}");
            assert_eq!(TURNS.get(), (true, true));
            end_turn();
            assert_eq!(TURNS.get(), (true, false));
        })
        .join()
        .expect("informer-like thread");
    }
}
