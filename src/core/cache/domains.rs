//! Topology domains: for every node label key, the values the nodes carry and how many nodes
//! carry each.
//!
//! PodTopologySpread's PreFilter registers one domain per value of a constraint's key among the
//! eligible nodes (upstream `calPreFilterState` walks every node to find them). When every node
//! is eligible, those domains are exactly this table's values for the key, kept up to date on
//! node add/remove/label change, so a cycle needs no walk over the nodes.

use crate::core::fxhash::FxHashMap as HashMap;
use crate::core::intern::Name;
use crate::core::model::Labels;

/// Node counts per label key and per (key, value).
#[derive(Debug, Default, Clone, PartialEq)]
pub struct Domains {
    values: HashMap<Name, HashMap<Box<str>, u32>>,
    nodes_with_key: HashMap<Name, u32>,
}

impl Domains {
    /// Account a node's labels (`delta` +1 when it appears, −1 when it leaves).
    pub fn node_labels(&mut self, labels: &Labels, delta: i32) {
        for (k, v) in labels.iter() {
            let by_value = self.values.entry(k).or_default();
            let n = match by_value.get_mut(v) {
                Some(n) => n,
                None => by_value.entry(v.into()).or_insert(0),
            };
            *n = n.saturating_add_signed(delta);
            if *n == 0 {
                by_value.remove(v);
                if by_value.is_empty() {
                    self.values.remove(&k);
                }
            }
            let m = self.nodes_with_key.entry(k).or_insert(0);
            *m = m.saturating_add_signed(delta);
            if *m == 0 {
                self.nodes_with_key.remove(&k);
            }
        }
    }

    /// How many nodes carry the key.
    pub fn nodes_with_key(&self, key: Name) -> usize {
        self.nodes_with_key.get(&key).map_or(0, |n| *n as usize)
    }

    /// The distinct values of the key among the nodes (any order).
    pub fn values(&self, key: Name) -> impl Iterator<Item = &str> {
        self.values.get(&key).into_iter().flat_map(|m| m.keys().map(|v| &**v))
    }

    /// Number of distinct values of the key.
    pub fn num_values(&self, key: Name) -> usize {
        self.values.get(&key).map_or(0, |m| m.len())
    }
}
