//! Compatibility modes: wire variants that other API server implementations produce and
//! kube-apiserver does not, each a flag of [`Compat`] (all off by default), so a test can check
//! that a client copes with each alone and with all at once. The quirks are the ones a client-go
//! program survives: `null` where Go's encoder would write an empty struct or slice, quantities
//! as JSON numbers, list items without `metadata.resourceVersion`, watch streams that stop in the
//! middle of an event, and a plain LIST answered to a watch request.

use serde_json::{json, Value};
use std::sync::atomic::{AtomicUsize, Ordering};

/// Which quirks the server shows.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Compat {
    /// Served objects write an empty `spec`/`status` as `null` (a Go struct encoded by a non-Go
    /// server, e.g. a Node's `"spec": null`), and empty arrays as `null` (Go's nil slices).
    pub null_empty_structs: bool,
    /// Quantities in resource lists (`requests`, `limits`, `capacity`, `allocatable`,
    /// `overhead`) are written as JSON numbers (`"100m"` → `0.1`, `"4Gi"` → `4294967296`).
    pub numeric_quantities: bool,
    /// List responses leave `metadata.resourceVersion` out of their items.
    pub list_items_without_resource_version: bool,
    /// Every watch stream ends, cleanly at the HTTP level, halfway through its fifth object
    /// event (after four complete ones).
    pub watch_closes_mid_event: bool,
    /// A watch request is answered with a LIST (200, the collection's `*List`) the first time for
    /// each collection, and always when its `watch` parameter is not exactly `true`.
    pub list_for_watch: bool,
}

impl Compat {
    /// Every quirk at once.
    pub fn all() -> Compat {
        Compat {
            null_empty_structs: true,
            numeric_quantities: true,
            list_items_without_resource_version: true,
            watch_closes_mid_event: true,
            list_for_watch: true,
        }
    }

    /// Each quirk alone, with its name.
    pub fn each() -> Vec<(&'static str, Compat)> {
        let none = Compat::default();
        vec![
            ("null-empty-structs", Compat { null_empty_structs: true, ..none }),
            ("numeric-quantities", Compat { numeric_quantities: true, ..none }),
            ("list-items-without-resource-version", Compat { list_items_without_resource_version: true, ..none }),
            ("watch-closes-mid-event", Compat { watch_closes_mid_event: true, ..none }),
            ("list-for-watch", Compat { list_for_watch: true, ..none }),
        ]
    }

    /// An object as this server writes it (GET, list items, watch events).
    pub fn object(&self, mut obj: Value) -> Value {
        if self.numeric_quantities {
            numeric_quantities(&mut obj, "");
        }
        if self.null_empty_structs {
            if let Some(m) = obj.as_object_mut() {
                for key in ["spec", "status"] {
                    if let Some(v) = m.get_mut(key).filter(|v| v.as_object().is_some_and(|o| o.is_empty())) {
                        *v = Value::Null;
                    }
                }
            }
            null_empty_arrays(&mut obj);
        }
        obj
    }

    /// A list item as this server writes it.
    pub fn list_item(&self, obj: Value) -> Value {
        let mut obj = self.object(obj);
        if self.list_items_without_resource_version {
            if let Some(meta) = obj.get_mut("metadata").and_then(Value::as_object_mut) {
                meta.remove("resourceVersion");
            }
        }
        obj
    }
}

fn null_empty_arrays(v: &mut Value) {
    match v {
        Value::Object(m) => {
            for child in m.values_mut() {
                if child.as_array().is_some_and(|a| a.is_empty()) {
                    *child = Value::Null;
                } else {
                    null_empty_arrays(child);
                }
            }
        }
        Value::Array(items) => items.iter_mut().for_each(null_empty_arrays),
        _ => {}
    }
}

const QUANTITY_LISTS: &[&str] = &["requests", "limits", "capacity", "allocatable", "overhead"];

fn numeric_quantities(v: &mut Value, key: &str) {
    match v {
        Value::Object(m) if QUANTITY_LISTS.contains(&key) => {
            for q in m.values_mut() {
                if let Some(n) = q.as_str().and_then(quantity_number) {
                    *q = n;
                }
            }
        }
        Value::Object(m) => m.iter_mut().for_each(|(k, child)| numeric_quantities(child, k)),
        Value::Array(items) => items.iter_mut().for_each(|i| numeric_quantities(i, key)),
        _ => {}
    }
}

/// The JSON number a quantity string denotes, for plain and suffixed integers and decimals.
fn quantity_number(q: &str) -> Option<Value> {
    const SUFFIXES: [(&str, u64, u64); 9] = [
        ("Ki", 1 << 10, 1),
        ("Mi", 1 << 20, 1),
        ("Gi", 1 << 30, 1),
        ("Ti", 1 << 40, 1),
        ("k", 1_000, 1),
        ("M", 1_000_000, 1),
        ("G", 1_000_000_000, 1),
        ("m", 1, 1000),
        ("", 1, 1),
    ];
    SUFFIXES.iter().find_map(|(suffix, mul, div)| {
        let digits = q.strip_suffix(suffix)?;
        if let Ok(n) = digits.parse::<u64>() {
            let scaled = n.checked_mul(*mul)?;
            return Some(if scaled % div == 0 { json!(scaled / div) } else { json!(scaled as f64 / *div as f64) });
        }
        let f: f64 = digits.parse().ok().filter(|f: &f64| f.is_finite() && *f >= 0.0)?;
        Some(json!(f * *mul as f64 / *div as f64))
    })
}

/// How often each quirk changed a response (so a test can tell a quirk actually fired).
#[derive(Debug, Default)]
pub struct CompatHits {
    lists_for_watch: AtomicUsize,
    watches_cut: AtomicUsize,
}

/// A snapshot of [`CompatHits`].
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct CompatCounts {
    /// Watch requests answered with a LIST.
    pub lists_for_watch: usize,
    /// Watch streams ended in the middle of an event.
    pub watches_cut: usize,
}

impl CompatHits {
    pub fn list_for_watch(&self) {
        self.lists_for_watch.fetch_add(1, Ordering::SeqCst);
    }
    pub fn watch_cut(&self) {
        self.watches_cut.fetch_add(1, Ordering::SeqCst);
    }
    pub fn counts(&self) -> CompatCounts {
        CompatCounts {
            lists_for_watch: self.lists_for_watch.load(Ordering::SeqCst),
            watches_cut: self.watches_cut.load(Ordering::SeqCst),
        }
    }
}

/// The first half of a watch line, as a stream that stops mid-event sends it.
pub fn half(line: &[u8]) -> &[u8] {
    &line[..line.len() / 2]
}

/// The object events a watch stream sends in full before it is cut.
pub const EVENTS_BEFORE_CUT: usize = 4;

/// Whether a watch line carries an object event (bookmarks and errors are never cut).
pub fn is_object_event(line: &[u8]) -> bool {
    [&b"{\"type\":\"ADDED\""[..], b"{\"type\":\"MODIFIED\"", b"{\"type\":\"DELETED\""].iter().any(|p| line.starts_with(p))
}
