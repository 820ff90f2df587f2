//! Topology domains: for every node label key, the values the nodes carry, how many nodes
//! carry each, and a small integer id per value.
//!
//! PodTopologySpread's PreFilter registers one domain per value of a constraint's key among the
//! eligible nodes (upstream `calPreFilterState` walks every node to find them). When every node
//! is eligible, those domains are exactly this table's values for the key, kept up to date on
//! node add/remove/label change, so a cycle needs no walk over the nodes.
//!
//! Value ids: the topology plugins look a node's value of a key up on every node they filter or
//! score. Comparing and hashing label value strings there touches each node's separately
//! allocated strings; instead every (key, value) a node carries gets a dense id, kept per key in
//! a column indexed by node id ([`Domains::node_value`], what Filter and Score read: a few
//! cache lines for thousands of nodes) and beside each node's labels ([`NodeValueIds`], for the
//! bookkeeping that has the node at hand), so per-cycle counts are keyed by `u32`.
//! Ids are never reused within a key: a value that disappears from every node and comes back
//! gets a new id, so counts anyone still holds under an old id can never be mistaken for the
//! new value's.

use crate::core::cache::NodeId;
// Unseeded: keys are interned label keys (hashed by address, which the allocator chooses) and
// values are node label values, which administrators and their kubelets set, not tenants.
use crate::core::fxhash::FxHashMap as HashMap;
use crate::core::intern::Name;
use crate::core::model::Labels;

/// One key's values.
#[derive(Debug, Default, Clone)]
struct KeyValues {
    /// Value → (id, nodes carrying it); no zero counts.
    values: HashMap<Box<str>, (u32, u32)>,
    /// The next id to hand out.
    next_id: u32,
    /// Nodes carrying the key.
    nodes: u32,
    /// Node id → its value's id ([`NO_VALUE`] without the key): one dense column per key, so
    /// the per-node lookups of a Filter or Score pass stay in a few cache lines.
    column: Vec<u32>,
}

impl KeyValues {
    /// Each value on one node (and some node with the key).
    #[inline]
    fn unique(&self) -> bool {
        self.nodes > 0 && self.values.len() == self.nodes as usize
    }
}

/// A node without the key in a key's column.
const NO_VALUE: u32 = u32::MAX;

/// Node counts per label key and per (key, value), and value ids.
#[derive(Debug, Default, Clone)]
pub struct Domains {
    keys: HashMap<Name, KeyValues>,
}

/// A node's value id for each of its label keys, in the order of its [`Labels`] (by key).
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct NodeValueIds(Box<[(Name, u32)]>);

impl NodeValueIds {
    /// The id of the node's value of `key`, if the node has the key.
    #[inline]
    pub fn get(&self, key: Name) -> Option<u32> {
        self.0.binary_search_by(|(k, _)| k.cmp(&key)).ok().map(|i| self.0[i].1)
    }

    /// Iterate `(key, value id)`.
    pub fn iter(&self) -> impl Iterator<Item = (Name, u32)> + '_ {
        self.0.iter().copied()
    }
}

/// One key's node id → value id column (see [`Domains::column`]).
#[derive(Debug, Clone, Copy)]
pub struct Column<'a> {
    ids: &'a [u32],
    unique: bool,
}

impl Column<'_> {
    /// The id of node `node`'s value, if the node has the key.
    #[inline]
    pub fn get(self, node: NodeId) -> Option<u32> {
        let id = *self.ids.get(node as usize)?;
        (id != NO_VALUE).then_some(id)
    }

    /// Every value of the key is on one node ([`Domains::is_unique`]).
    #[inline]
    pub fn unique(self) -> bool {
        self.unique
    }
}

impl Domains {
    /// Account node `node`'s labels arriving: returns the node's value ids.
    pub fn add_node(&mut self, node: NodeId, labels: &Labels) -> NodeValueIds {
        let mut ids = Vec::with_capacity(labels.len());
        for (k, v) in labels.iter() {
            let kv = self.keys.entry(k).or_default();
            kv.nodes += 1;
            let id = match kv.values.get_mut(v) {
                Some((id, n)) => {
                    *n += 1;
                    *id
                }
                None => {
                    let id = kv.next_id;
                    kv.next_id = kv.next_id.saturating_add(1);
                    kv.values.insert(v.into(), (id, 1));
                    id
                }
            };
            let slot = node as usize;
            if kv.column.len() <= slot {
                kv.column.resize(slot + 1, NO_VALUE);
            }
            kv.column[slot] = id;
            ids.push((k, id));
        }
        // `Labels` iterate in key order, which `NodeValueIds::get` searches by.
        NodeValueIds(ids.into_boxed_slice())
    }

    /// Account node `node`'s labels leaving.
    pub fn remove_node(&mut self, node: NodeId, labels: &Labels) {
        for (k, v) in labels.iter() {
            let Some(kv) = self.keys.get_mut(&k) else { continue };
            if let Some(slot) = kv.column.get_mut(node as usize) {
                *slot = NO_VALUE;
            }
            kv.nodes = kv.nodes.saturating_sub(1);
            if let Some((_, n)) = kv.values.get_mut(v) {
                *n = n.saturating_sub(1);
                if *n == 0 {
                    kv.values.remove(v);
                }
            }
            if kv.nodes == 0 {
                // Keep the key's id counter: ids are never reused.
                kv.values.clear();
            }
        }
    }

    /// How many nodes carry the key.
    pub fn nodes_with_key(&self, key: Name) -> usize {
        self.keys.get(&key).map_or(0, |kv| kv.nodes as usize)
    }

    /// The distinct values of the key among the nodes with their ids (any order).
    pub fn values(&self, key: Name) -> impl Iterator<Item = (&str, u32)> {
        self.keys.get(&key).into_iter().flat_map(|kv| kv.values.iter().map(|(v, (id, _))| (&**v, *id)))
    }

    /// Whether every value of the key is on exactly one node (`kubernetes.io/hostname` as the
    /// kubelet sets it, or any key whose values the nodes do not share): then a node's domain is
    /// the node itself, and counts per domain can be kept and read per node id, in dense
    /// vectors, instead of per value id in maps. Node relabelling can make a key stop (or start)
    /// being unique at any event, so callers ask at the start of each cycle.
    #[inline]
    pub fn is_unique(&self, key: Name) -> bool {
        self.keys.get(&key).is_some_and(KeyValues::unique)
    }

    /// Number of distinct values of the key.
    pub fn num_values(&self, key: Name) -> usize {
        self.keys.get(&key).map_or(0, |kv| kv.values.len())
    }

    /// The id of a value some node carries for `key`.
    #[inline]
    pub fn id(&self, key: Name, value: &str) -> Option<u32> {
        self.keys.get(&key).and_then(|kv| kv.values.get(value)).map(|(id, _)| *id)
    }

    /// The id of node `node`'s value of `key` (the per-node lookup of Filter and Score).
    #[inline]
    pub fn node_value(&self, key: Name, node: NodeId) -> Option<u32> {
        self.column(key)?.get(node)
    }

    /// Key `key`'s column, for a pass over many nodes: one map lookup for the pass instead of
    /// one per node.
    #[inline]
    pub fn column(&self, key: Name) -> Option<Column<'_>> {
        self.keys.get(&key).map(|kv| Column { ids: &kv.column, unique: kv.unique() })
    }

    /// The value behind an id, while some node carries it (a search: for checks, not cycles).
    pub fn value(&self, key: Name, id: u32) -> Option<&str> {
        self.values(key).find(|(_, i)| *i == id).map(|(v, _)| v)
    }

    /// Whether both tables count the same nodes per (key, value) (ids aside: a recount hands
    /// them out in another order).
    pub fn same_counts(&self, other: &Domains) -> bool {
        let live = |d: &Domains| d.keys.iter().filter(|(_, kv)| kv.nodes > 0).count();
        live(self) == live(other)
            && self.keys.iter().filter(|(_, kv)| kv.nodes > 0).all(|(k, kv)| {
                other.keys.get(k).is_some_and(|o| {
                    o.nodes == kv.nodes
                        && o.values.len() == kv.values.len()
                        && kv.values.iter().all(|(v, (_, n))| o.values.get(v).is_some_and(|(_, m)| m == n))
                })
            })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeMap;

    fn labels(pairs: &[(&str, &str)]) -> Labels {
        let m: BTreeMap<String, String> = pairs.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect();
        Labels::from_map(&m)
    }

    #[test]
    fn ids_follow_values_and_are_not_reused() {
        let zone = Name::new("topology.kubernetes.io/zone");
        let mut d = Domains::default();
        let a = d.add_node(0, &labels(&[("topology.kubernetes.io/zone", "z1")]));
        let b = d.add_node(1, &labels(&[("topology.kubernetes.io/zone", "z1")]));
        let c = d.add_node(2, &labels(&[("topology.kubernetes.io/zone", "z2")]));
        assert_eq!(d.node_value(zone, 2), c.get(zone));
        assert_eq!(d.node_value(zone, 3), None);
        assert_eq!(a.get(zone), b.get(zone));
        assert_ne!(a.get(zone), c.get(zone));
        assert_eq!(d.id(zone, "z2"), c.get(zone));
        assert_eq!(d.value(zone, c.get(zone).unwrap()), Some("z2"));
        assert_eq!((d.nodes_with_key(zone), d.num_values(zone)), (3, 2));
        d.remove_node(2, &labels(&[("topology.kubernetes.io/zone", "z2")]));
        assert_eq!(d.id(zone, "z2"), None);
        assert_eq!(d.node_value(zone, 2), None);
        let again = d.add_node(2, &labels(&[("topology.kubernetes.io/zone", "z2")]));
        assert_ne!(again.get(zone), c.get(zone), "a returning value gets a fresh id");
        assert_eq!(a.get(Name::new("kubernetes.io/hostname")), None);
    }

    #[test]
    fn a_key_is_unique_while_no_two_nodes_share_a_value() {
        let host = Name::new("kubernetes.io/hostname");
        let mut d = Domains::default();
        assert!(!d.is_unique(host), "a key on no node");
        d.add_node(0, &labels(&[("kubernetes.io/hostname", "a")]));
        d.add_node(1, &labels(&[("kubernetes.io/hostname", "b")]));
        assert!(d.is_unique(host));
        assert!(d.column(host).is_some_and(|c| c.unique()));
        // Relabelled to share a value: no longer unique; and back.
        d.remove_node(1, &labels(&[("kubernetes.io/hostname", "b")]));
        d.add_node(1, &labels(&[("kubernetes.io/hostname", "a")]));
        assert!(!d.is_unique(host));
        assert!(d.column(host).is_some_and(|c| !c.unique()));
        d.remove_node(1, &labels(&[("kubernetes.io/hostname", "a")]));
        assert!(d.is_unique(host));
    }
}
