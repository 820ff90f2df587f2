//! The object store: every object of every resource under one global resourceVersion counter
//! (like etcd's revision), plus a bounded history of change events. The history serves watches
//! that resume from an older version and reconstructs consistent list snapshots for `continue`
//! tokens; once an event falls out of the window, both answer 410 Expired like a compacted etcd.

use super::dra::DraAlphaGates;
use super::resources::ResId;
use super::wire;
use serde_json::{json, Value};
use std::cell::RefCell;
use std::collections::{BTreeMap, HashMap, VecDeque};
use std::ops::{Bound, RangeBounds};
use std::sync::Arc;

/// Where an object lives: resource, namespace ("" for cluster-scoped) and name. Ordered so a
/// resource's objects sort by namespace then name, the order lists return.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct ObjKey {
    /// Resource index.
    pub res: ResId,
    /// Namespace, "" if cluster-scoped.
    pub ns: String,
    /// Object name.
    pub name: String,
}

impl ObjKey {
    /// Build a key.
    pub fn new(res: ResId, ns: &str, name: &str) -> ObjKey {
        ObjKey { res, ns: ns.to_string(), name: name.to_string() }
    }
}

/// What happened to an object.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Change {
    /// Created.
    Added,
    /// Updated.
    Modified,
    /// Removed.
    Deleted,
}

/// One entry of the history.
#[derive(Debug, Clone)]
pub struct Event {
    /// The resourceVersion this change produced.
    pub rv: u64,
    /// Which object.
    pub key: ObjKey,
    /// What happened.
    pub change: Change,
    /// The new state (for Deleted: the last state, stamped with `rv`).
    pub object: Value,
    /// The state before (None for Added); watches use it for selector transitions.
    pub prev: Option<Value>,
}

/// One page of a list, borrowing the store's objects.
#[derive(Debug, Clone)]
pub struct Page<'a> {
    /// Matching objects, in key order.
    pub items: Vec<(&'a ObjKey, &'a Value)>,
    /// Key of the last returned item when more matching items follow.
    pub next_after: Option<ObjKey>,
    /// How many matching items follow this page.
    pub remaining: usize,
}

/// An object's list-item bytes and the resourceVersion they were encoded at.
type Encoded = (String, Arc<[u8]>);

/// Default number of events kept for watch resumption and list snapshots.
pub const DEFAULT_HISTORY_WINDOW: usize = 10_000;

/// All objects, the global version counter and the change history.
#[derive(Debug)]
pub struct Store {
    objects: BTreeMap<ObjKey, Value>,
    rv: u64,
    history: VecDeque<Event>,
    window: usize,
    compacted_rv: u64,
    /// Each object's list-item encoding with the resourceVersion it was made from, filled as
    /// lists read objects (kube-apiserver's watch cache likewise keeps objects ready to serve):
    /// a page is then a concatenation instead of a clone and an ordered serialization per item.
    /// An entry is valid while the object's resourceVersion is unchanged, so writes need not
    /// know about it.
    list_items: RefCell<HashMap<ObjKey, Encoded>>,
    /// Which alpha resource.k8s.io gates the server runs with (they decide what is stored).
    dra_gates: DraAlphaGates,
}

fn set_rv(obj: &mut Value, rv: u64) {
    if !obj["metadata"].is_object() {
        obj["metadata"] = json!({});
    }
    obj["metadata"]["resourceVersion"] = json!(rv.to_string());
}

/// The object without `metadata.resourceVersion`, to detect no-op writes.
fn without_rv(obj: &Value) -> Value {
    let mut o = obj.clone();
    if let Some(meta) = o.get_mut("metadata").and_then(Value::as_object_mut) {
        meta.remove("resourceVersion");
    }
    o
}

impl Store {
    /// An empty store keeping `window` events of history.
    pub fn new(window: usize) -> Store {
        Store {
            objects: BTreeMap::new(),
            rv: 0,
            history: VecDeque::new(),
            window,
            compacted_rv: 0,
            list_items: RefCell::default(),
            dra_gates: DraAlphaGates::default(),
        }
    }

    /// The alpha resource.k8s.io gates in force.
    pub fn dra_gates(&self) -> DraAlphaGates {
        self.dra_gates
    }

    /// Switch the alpha resource.k8s.io gates.
    pub fn set_dra_gates(&mut self, gates: DraAlphaGates) {
        self.dra_gates = gates;
    }

    /// The latest resourceVersion.
    pub fn rv(&self) -> u64 {
        self.rv
    }

    /// Versions at or below this one are no longer reconstructible.
    pub fn compacted_rv(&self) -> u64 {
        self.compacted_rv
    }

    /// Change the history window (drops the oldest events if needed).
    pub fn set_window(&mut self, window: usize) {
        self.window = window;
        self.trim();
    }

    /// Forget all history, as an etcd compaction at the current revision does.
    pub fn compact(&mut self) {
        self.history.clear();
        self.compacted_rv = self.rv;
    }

    fn trim(&mut self) {
        while self.history.len() > self.window {
            if let Some(ev) = self.history.pop_front() {
                self.compacted_rv = ev.rv;
            }
        }
    }

    fn record(&mut self, key: ObjKey, change: Change, object: Value, prev: Option<Value>) {
        self.history.push_back(Event { rv: self.rv, key, change, object, prev });
        self.trim();
    }

    /// The current object, if any.
    pub fn get(&self, key: &ObjKey) -> Option<&Value> {
        self.objects.get(key)
    }

    /// Store a new object (the caller checked it does not exist), stamping a new version.
    pub fn insert(&mut self, key: ObjKey, mut obj: Value) -> Value {
        self.rv += 1;
        set_rv(&mut obj, self.rv);
        self.objects.insert(key.clone(), obj.clone());
        self.record(key, Change::Added, obj.clone(), None);
        obj
    }

    /// Replace an existing object. A write that changes nothing keeps the old version and emits
    /// no event, as the real server's no-op update detection does.
    pub fn replace(&mut self, key: &ObjKey, mut obj: Value) -> Value {
        let Some(old) = self.objects.get(key) else {
            return self.insert(key.clone(), obj);
        };
        if without_rv(old) == without_rv(&obj) {
            return old.clone();
        }
        let prev = old.clone();
        self.rv += 1;
        set_rv(&mut obj, self.rv);
        self.objects.insert(key.clone(), obj.clone());
        self.record(key.clone(), Change::Modified, obj.clone(), Some(prev));
        obj
    }

    /// Remove an object; returns its last state stamped with the deletion's version.
    pub fn remove(&mut self, key: &ObjKey) -> Option<Value> {
        let prev = self.objects.remove(key)?;
        self.rv += 1;
        let mut last = prev.clone();
        set_rv(&mut last, self.rv);
        self.record(key.clone(), Change::Deleted, last.clone(), Some(prev));
        Some(last)
    }

    /// Events with a version greater than `rv`, oldest first. The caller checks `rv` against
    /// [`Store::compacted_rv`] first.
    pub fn events_after(&self, rv: u64) -> impl Iterator<Item = &Event> {
        let start = self.history.partition_point(|e| e.rv <= rv);
        self.history.range(start..)
    }

    /// Current objects of `res` (in `ns` if given), in key order.
    pub fn objects_of<'a>(&'a self, res: ResId, ns: Option<&'a str>) -> impl Iterator<Item = (&'a ObjKey, &'a Value)> + 'a {
        let lo = ObjKey::new(res, "", "");
        let hi = ObjKey::new(res + 1, "", "");
        self.objects.range(lo..hi).filter(move |(k, _)| ns.is_none_or(|n| k.ns == n))
    }

    /// Current objects of `res` in namespace `ns` whose name starts with `prefix`, in key order.
    pub fn objects_named_like<'a>(
        &'a self,
        res: ResId,
        ns: &'a str,
        prefix: &'a str,
    ) -> impl Iterator<Item = (&'a ObjKey, &'a Value)> + 'a {
        self.objects
            .range(ObjKey::new(res, ns, prefix)..)
            .take_while(move |(k, _)| k.res == res && k.ns == ns && k.name.starts_with(prefix))
    }

    /// One page of `res` objects as they were at version `at` (which must be reconstructible),
    /// after `after` (exclusive), keeping those `matches` accepts, at most `limit` of them.
    /// `remaining` is exact with `count_remaining`, else 1 when more items follow.
    #[allow(clippy::too_many_arguments)]
    pub fn page_at<'a>(
        &'a self,
        res: ResId,
        ns: Option<&str>,
        at: u64,
        after: Option<&ObjKey>,
        matches: &dyn Fn(&Value) -> bool,
        limit: Option<usize>,
        count_remaining: bool,
    ) -> Result<Page<'a>, u64> {
        if at < self.compacted_rv {
            return Err(self.compacted_rv + 1);
        }
        let lower = match after {
            Some(k) => Bound::Excluded(k.clone()),
            None => Bound::Included(ObjKey::new(res, "", "")),
        };
        let upper = Bound::Excluded(ObjKey::new(res + 1, "", ""));
        let in_scope = |k: &ObjKey| ns.is_none_or(|n| k.ns == n);
        // Undo later changes: the first event after `at` for a key holds the key's state at `at`.
        // Only those keys differ from the current objects, so the page is a lazy merge of the
        // current objects with these overrides (no copy of the whole range per page).
        let mut undo: BTreeMap<&ObjKey, Option<&Value>> = BTreeMap::new();
        for ev in self.events_after(at) {
            let in_range = ev.key.res == res && in_scope(&ev.key) && (lower.clone(), upper.clone()).contains(&ev.key);
            if in_range {
                undo.entry(&ev.key).or_insert(ev.prev.as_ref());
            }
        }
        let mut current = self.objects.range((lower, upper)).filter(|(k, _)| in_scope(k)).peekable();
        let mut overrides = undo.into_iter().peekable();
        let merged = std::iter::from_fn(move || loop {
            let take_override = match (current.peek(), overrides.peek()) {
                (None, None) => return None,
                (Some(_), None) => false,
                (None, Some(_)) => true,
                (Some((ck, _)), Some((ok, _))) => *ok <= *ck,
            };
            if take_override {
                let (k, v) = overrides.next()?;
                if current.peek().is_some_and(|(ck, _)| *ck == k) {
                    current.next();
                }
                match v {
                    Some(v) => return Some((k, v)),
                    None => continue,
                }
            }
            return current.next();
        });
        let mut matching = merged.filter(|(_, v)| matches(v));
        let mut items = Vec::new();
        let mut last = None;
        for (k, v) in matching.by_ref() {
            if limit.is_some_and(|l| items.len() >= l) {
                // Counting walks (and filters) the rest of the range; only done when reported.
                let remaining = 1 + if count_remaining { matching.count() } else { 0 };
                return Ok(Page { items, next_after: last, remaining });
            }
            items.push((k, v));
            last = Some(k.clone());
        }
        Ok(Page { items, next_after: None, remaining: 0 })
    }

    /// `obj` (the object of `key`, current or from history) as a list writes it: compact JSON
    /// without `kind` and `apiVersion`, no trailing newline. Cached per object and version.
    pub fn list_item_bytes(&self, key: &ObjKey, obj: &Value) -> Arc<[u8]> {
        let rv = obj["metadata"]["resourceVersion"].as_str().unwrap_or("");
        if let Some((cached_rv, bytes)) = self.list_items.borrow().get(key) {
            if cached_rv == rv {
                return bytes.clone();
            }
        }
        let mut item = obj.clone();
        if let Some(m) = item.as_object_mut() {
            m.remove("kind");
            m.remove("apiVersion");
        }
        let mut bytes = wire::encode(&item, false);
        bytes.pop(); // the newline that ends a body
        let bytes: Arc<[u8]> = bytes.into();
        let mut cache = self.list_items.borrow_mut();
        if cache.len() > 2 * self.objects.len() + 1024 {
            // Deleted objects' entries: drop what no current object uses.
            cache.retain(|k, _| self.objects.contains_key(k));
        }
        cache.insert(key.clone(), (rv.to_string(), bytes.clone()));
        bytes
    }
}
