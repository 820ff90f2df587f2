//! The node table: every node with the pods on it and incrementally maintained totals.
//!
//! Owned by the scheduler thread. Watch events and the scheduling cycle's own decisions (assumed
//! pods) update it; a cycle reads it as a consistent snapshot because nothing else can change it
//! while the cycle runs. Totals (`requested`, non-zero cpu/memory, host ports, image spread) are
//! kept up to date on every add/remove, never recomputed by scanning pods.
//!
//! Node order follows upstream's node tree (pkg/scheduler/backend/cache/node_tree.go): nodes are
//! grouped by zone and listed round-robin across zones, so that sampling a percentage of nodes
//! visits every zone.

pub mod affinity_terms;
pub mod assigned;
pub mod cluster;
pub mod domains;
pub mod dra;
pub mod nominator;
pub mod pdb;
pub mod podindex;
pub mod storage;
pub mod tally;
pub mod term_groups;
pub mod workloads;

use crate::core::intern::Name;
use crate::core::model::{HostPort, Labels, NodeSpecInfo, PodInfo, PodKey, TaintEffect};
pub use assigned::AssignedPod;
use std::collections::HashMap;
use std::sync::Arc;

/// Index of a node in the table (stable while the node exists).
pub type NodeId = u32;

/// One node and its accounting.
#[derive(Debug, Clone)]
pub struct NodeInfo {
    pub id: NodeId,
    pub node: NodeSpecInfo,
    /// Sum of the pods' effective requests (upstream `Requested`).
    pub requested: crate::core::model::Resources,
    /// Sum of the pods' non-zero cpu/memory (upstream `NonZeroRequested`).
    pub non_zero_milli_cpu: i64,
    pub non_zero_memory: i64,
    pub pods: Vec<Arc<AssignedPod>>,
    /// Host ports in use (a multiset: one entry per pod port).
    pub used_ports: Vec<HostPort>,
    /// Pods on this node with pod (anti-)affinity terms (upstream `PodsWithAffinity`).
    pub pods_with_affinity: u32,
    /// Bumped on every change, for cache-consistency checks.
    pub generation: u64,
    /// The node's label value ids (see [`domains`]): what the topology plugins compare.
    pub value_ids: domains::NodeValueIds,
}

impl NodeInfo {
    fn new(id: NodeId, node: NodeSpecInfo, value_ids: domains::NodeValueIds) -> NodeInfo {
        NodeInfo {
            value_ids,
            id,
            node,
            requested: Default::default(),
            non_zero_milli_cpu: 0,
            non_zero_memory: 0,
            pods: Vec::new(),
            used_ports: Vec::new(),
            pods_with_affinity: 0,
            generation: 0,
        }
    }

    pub fn name(&self) -> &str {
        &self.node.name
    }

    /// The id of the node's value of label `key` (see [`domains`]), if it has the key.
    #[inline]
    pub fn value_id(&self, key: crate::core::intern::Name) -> Option<u32> {
        self.value_ids.get(key)
    }

    /// Account a pod on this node.
    pub fn add_pod(&mut self, pod: Arc<AssignedPod>) {
        self.requested.add(&pod.resources.requests);
        self.non_zero_milli_cpu = self.non_zero_milli_cpu.saturating_add(pod.resources.non_zero_milli_cpu);
        self.non_zero_memory = self.non_zero_memory.saturating_add(pod.resources.non_zero_memory);
        self.used_ports.extend(pod.host_ports.iter().cloned());
        if pod.has_pod_affinity_terms() {
            self.pods_with_affinity += 1;
        }
        self.pods.push(pod);
        self.generation += 1;
    }

    /// Release a pod's accounting; returns false if the pod was not on this node. The search
    /// starts from the newest pod: the pod removed is most often one just assumed (its binding
    /// confirmed while a few later ones are still in flight), which keeps a node holding
    /// thousands of pods (a daemonset-like workload on one node) from costing a scan of all of
    /// them per pod. The list keeps its order (the pods after it move up one place): taking the
    /// last pod into the hole, as upstream's `NodeInfo.RemovePod` does, would scatter the
    /// recent assumptions through the list, and the scan from the end would then cross most of
    /// it for every confirmation (a quarter of the process's CPU on such a node).
    pub fn remove_pod(&mut self, key: &str) -> bool {
        let Some(i) = self.pods.iter().rposition(|p| &*p.key == key) else {
            return false;
        };
        let pod = self.pods.remove(i);
        self.requested.sub(&pod.resources.requests);
        self.non_zero_milli_cpu = self.non_zero_milli_cpu.saturating_sub(pod.resources.non_zero_milli_cpu);
        self.non_zero_memory = self.non_zero_memory.saturating_sub(pod.resources.non_zero_memory);
        for port in &pod.host_ports {
            if let Some(j) = self.used_ports.iter().position(|p| p == port) {
                self.used_ports.swap_remove(j);
            }
        }
        if pod.has_pod_affinity_terms() {
            self.pods_with_affinity = self.pods_with_affinity.saturating_sub(1);
        }
        self.generation += 1;
        true
    }

    /// Number of pods counted against `allocatable.pods`.
    pub fn pod_count(&self) -> usize {
        self.pods.len()
    }
}

/// What changed when a node was updated; the queue uses it to wake only the pods it could help.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct NodeChange {
    pub added: bool,
    pub allocatable: bool,
    pub labels: bool,
    pub taints: bool,
    pub unschedulable: bool,
    pub images: bool,
}

impl NodeChange {
    pub fn any(&self) -> bool {
        self.added || self.allocatable || self.labels || self.taints || self.unschedulable || self.images
    }
}

#[derive(Debug)]
struct PodRecord {
    pod: Arc<AssignedPod>,
    /// Chosen by us and not yet confirmed by the watch.
    assumed: bool,
}

/// The node table.
#[derive(Debug, Default)]
pub struct Cache {
    /// Pods nominated to nodes by preemption, not yet bound (see [`nominator`]).
    nominated: nominator::Nominated,
    /// PodDisruptionBudgets, consulted by preemption (see `crate::core::cache::pdb`).
    budgets: pdb::Budgets,
    slots: Vec<Option<NodeInfo>>,
    free: Vec<NodeId>,
    /// Node name → id. Unseeded: only Node objects insert here, and node names are chosen by
    /// administrators and the kubelets they run (a tenant's string is only ever looked up).
    by_name: crate::core::fxhash::FxHashMap<Box<str>, NodeId>,
    /// Zones in first-seen order with their nodes, for the node-tree order.
    zones: Vec<(String, Vec<NodeId>)>,
    order: Vec<NodeId>,
    order_dirty: bool,
    /// Node id → position of its name in name order (rebuilt with `order`): lets a cycle sort
    /// thousands of rejected nodes by integer, not by name.
    name_rank: Vec<u32>,
    /// Keyed by `namespace/name`, which whoever creates the pod chooses: seeded.
    pods: crate::core::seeded_hash::SeededHashMap<PodKey, PodRecord>,
    /// Pods bound to nodes we have not seen (or no longer see); they join the node when it appears.
    /// Keyed by the pod's `spec.nodeName`, which whoever creates a pod may set: seeded.
    orphans: crate::core::seeded_hash::SeededHashMap<Box<str>, Vec<Arc<AssignedPod>>>,
    /// Image name → number of nodes that have it (ImageLocality's spread factor).
    image_nodes: HashMap<Name, u32>,
    /// Claims, volumes, classes and CSI nodes for the volume plugins.
    pub storage: crate::core::cache::storage::StorageState,
    /// Device classes, resource slices and resource claims for DynamicResources.
    dra: dra::DraState,
    /// Pods with pod (anti-)affinity terms, parsed (InterPodAffinity).
    pod_index: crate::core::cache::podindex::PodIndex,
    /// Namespaces and controller selectors (InterPodAffinity, PodTopologySpread).
    pub cluster: crate::core::cache::cluster::ClusterObjects,
    /// Node label values (topology domains).
    domains: domains::Domains,
    /// Registered counts of pods matching selectors, per topology value.
    tallies: tally::Tallies,
    /// Placed pods' affinity terms, grouped.
    term_groups: term_groups::TermGroups,
    /// Pods not yet bound (queued, gated, in flight), kept only when some out-of-tree plugin may
    /// read them ([`Cache::pending_pods`]); `None` costs nothing.
    pending: Option<HashMap<PodKey, Arc<crate::core::model::PodInfo>>>,
    /// Objects of the custom resources out-of-tree plugins declared ([`Cache::custom_object`]).
    pub custom: crate::core::custom_resources::CustomStore,
    /// Workloads (`scheduling.k8s.io/v1alpha1`), read by GangScheduling.
    pub workloads: workloads::Workloads,
}

/// Account a pod placed on (`delta` 1) or leaving (−1) node `id` with label `values` in the
/// counts kept per topology value (a free function so the caller can borrow the node table
/// meanwhile).
fn account(
    tallies: &mut tally::Tallies,
    groups: &mut term_groups::TermGroups,
    index: &podindex::PodIndex,
    pod: &AssignedPod,
    id: NodeId,
    values: &domains::NodeValueIds,
    delta: i64,
) {
    tallies.pod_placed(pod, id, values, delta);
    if let Some(terms) = index.terms_of(pod) {
        groups.pod_placed(terms, id, values, delta);
    }
}

/// `utilnode.GetZoneKey`: region and zone labels (current or legacy beta names).
fn zone_key(labels: &Labels) -> String {
    let region = labels
        .get_str("topology.kubernetes.io/region")
        .or_else(|| labels.get_str("failure-domain.beta.kubernetes.io/region"))
        .unwrap_or("");
    let zone = labels
        .get_str("topology.kubernetes.io/zone")
        .or_else(|| labels.get_str("failure-domain.beta.kubernetes.io/zone"))
        .unwrap_or("");
    if region.is_empty() && zone.is_empty() {
        String::new()
    } else {
        format!("{region}:\x00:{zone}")
    }
}

impl Cache {
    pub fn new() -> Cache {
        Cache::default()
    }

    /// Start keeping the pending pods (an out-of-tree plugin is enabled; upstream plugins read
    /// them through the pod informer's lister, e.g. Coscheduling counting a group's pods).
    pub fn track_pending_pods(&mut self) {
        self.pending.get_or_insert_with(HashMap::new);
    }

    /// Record the latest version of a pending pod (no-op unless tracking).
    pub fn set_pending_pod(&mut self, pod: &Arc<crate::core::model::PodInfo>) {
        if let Some(p) = &mut self.pending {
            p.insert(pod.key.clone(), pod.clone());
        }
    }

    /// A pending pod was bound, deleted or left our profiles.
    pub fn remove_pending_pod(&mut self, key: &str) {
        if let Some(p) = &mut self.pending {
            p.remove(key);
        }
    }

    /// The pods of our profiles not yet bound, in no particular order — empty unless the
    /// scheduler runs an out-of-tree plugin. A pod being bound is both here and assigned.
    pub fn pending_pods(&self) -> impl Iterator<Item = &Arc<crate::core::model::PodInfo>> {
        self.pending.iter().flat_map(|p| p.values())
    }

    /// The object `namespace/name` of a custom resource a plugin declared
    /// ([`crate::plugin::Builder::with_custom_resource`]), named as `resource.group` (e.g.
    /// `podgroups.scheduling.x-k8s.io`); `namespace` is empty for cluster-scoped resources.
    pub fn custom_object(
        &self,
        resource: &str,
        namespace: &str,
        name: &str,
    ) -> Option<&Arc<crate::core::custom_resources::CustomObject>> {
        self.custom.get(resource, namespace, name)
    }

    /// Storage objects and bindings the volume plugins read.
    pub fn storage(&self) -> &crate::core::cache::storage::StorageState {
        &self.storage
    }

    /// Storage state, for watch events and Reserve's assumptions.
    pub fn storage_mut(&mut self) -> &mut crate::core::cache::storage::StorageState {
        &mut self.storage
    }

    /// What DynamicResources reads: classes, slices, claims and the devices in use.
    pub fn dra(&self) -> &dra::DraState {
        &self.dra
    }

    /// The DRA objects, for watch events and Reserve's in-flight allocations.
    pub fn dra_mut(&mut self) -> &mut dra::DraState {
        &mut self.dra
    }

    /// Upper bound of node ids (for per-node scratch vectors indexed by [`NodeId`]).
    pub fn node_id_bound(&self) -> usize {
        self.slots.len()
    }

    /// Pods by label and pods with pod (anti-)affinity terms.
    pub fn pod_index(&self) -> &crate::core::cache::podindex::PodIndex {
        &self.pod_index
    }

    /// Node label values per key, with their ids (see [`domains`]).
    pub fn domains(&self) -> &domains::Domains {
        &self.domains
    }

    /// The counts registered for `key`, if any (see [`tally`]).
    pub fn tally(&self, key: &tally::TallyKey) -> Option<&tally::Counts> {
        self.tallies.get(key)
    }

    /// Placed pods' affinity terms grouped, or `None` when switched off (see [`term_groups`]).
    pub fn term_groups(&self) -> Option<impl Iterator<Item = &term_groups::Group>> {
        self.term_groups.groups()
    }

    /// Register (or mark as used) the tallies a cycle is about to read.
    pub fn ensure_tallies(&mut self, keys: Vec<tally::TallyKey>) {
        for key in keys {
            if self.tallies.touch(&key) {
                continue;
            }
            // Count a new tally from the label index's candidates when the selector narrows
            // them (the same cost as one straightforward count), else from every pod.
            let probe = key.clone();
            let mut candidates: Option<Vec<&Arc<AssignedPod>>> = Some(Vec::new());
            for ns in probe.namespaces() {
                match (self.pod_index.candidates(ns, probe.selector()), candidates.as_mut()) {
                    (Some(c), Some(all)) => all.extend(c),
                    _ => candidates = None,
                }
            }
            let (slots, by_name) = (&self.slots, &self.by_name);
            match candidates {
                Some(c) => {
                    let placed = c.into_iter().filter_map(|p| {
                        let id = *by_name.get(&p.node_name)?;
                        let n = slots[id as usize].as_ref()?;
                        Some((&**p, id, &n.value_ids))
                    });
                    self.tallies.insert(key, placed);
                }
                None => {
                    let placed = slots.iter().flatten().flat_map(|n| n.pods.iter().map(move |p| (&**p, n.id, &n.value_ids)));
                    self.tallies.insert(key, placed);
                }
            }
        }
    }

    /// Use (`true`, the default) or ignore the incrementally kept topology counts; both give
    /// the same results (the differential tests switch them off to compare).
    pub fn set_incremental_counts(&mut self, on: bool) {
        self.tallies.set_enabled(on);
        self.term_groups.set_enabled(on);
    }

    /// Compare the incrementally kept topology counts with a recount (tests).
    pub fn verify_topology_counts(&self) -> Result<(), String> {
        let placed = self.slots.iter().flatten().flat_map(|n| n.pods.iter().map(move |p| (&**p, n.id, &n.value_ids)));
        self.tallies.verify(placed.clone())?;
        self.term_groups.verify(placed.filter_map(|(p, id, l)| self.pod_index.terms_of(p).map(|t| (&**t, id, l))))?;
        let mut fresh = domains::Domains::default();
        for n in self.nodes() {
            fresh.add_node(n.id, &n.node.labels);
            let ids_match = n.node.labels.len() == n.value_ids.iter().count()
                && n.value_ids.iter().all(|(k, id)| {
                    self.domains.value(k, id).is_some()
                        && self.domains.value(k, id) == n.node.labels.get(k)
                        && self.domains.node_value(k, n.id) == Some(id)
                });
            if !ids_match {
                return Err(format!("node {}: label value ids differ from its labels", n.name()));
            }
        }
        if !fresh.same_counts(&self.domains) {
            return Err("topology domains differ from a recount".into());
        }
        Ok(())
    }

    pub fn cluster(&self) -> &crate::core::cache::cluster::ClusterObjects {
        &self.cluster
    }

    /// Compare the pod index with a recomputation from every accounted pod.
    pub fn verify_pod_index(&self) -> Result<(), String> {
        self.pod_index.verify(self.pods.values().map(|r| &r.pod))
    }

    /// Number of nodes that can be scheduled on (ghost entries excluded).
    /// Nominated pods (read).
    pub fn nominations(&self) -> &nominator::Nominated {
        &self.nominated
    }

    /// Nominated pods (write).
    pub fn nominations_mut(&mut self) -> &mut nominator::Nominated {
        &mut self.nominated
    }

    /// PodDisruptionBudgets (read).
    pub fn budgets(&self) -> &pdb::Budgets {
        &self.budgets
    }

    /// PodDisruptionBudgets (write).
    pub fn budgets_mut(&mut self) -> &mut pdb::Budgets {
        &mut self.budgets
    }

    pub fn num_nodes(&self) -> usize {
        self.by_name.len()
    }

    pub fn node(&self, id: NodeId) -> &NodeInfo {
        // Ids handed out by this cache always point at a live slot while the scheduler thread
        // holds `&self`; a stale id is a programming error caught in tests.
        self.slots[id as usize].as_ref().expect("live node id")
    }

    pub fn node_by_name(&self, name: &str) -> Option<&NodeInfo> {
        self.by_name.get(name).map(|id| self.node(*id))
    }

    pub fn node_id(&self, name: &str) -> Option<NodeId> {
        self.by_name.get(name).copied()
    }

    /// Nodes in node-tree order (zones interleaved).
    pub fn node_order(&mut self) -> &[NodeId] {
        if self.order_dirty {
            self.rebuild_order();
        }
        &self.order
    }

    /// Node order without rebuilding (callers that hold `&self` after `prepare`).
    pub fn node_order_snapshot(&self) -> &[NodeId] {
        debug_assert!(!self.order_dirty, "prepare() must run before a cycle");
        &self.order
    }

    /// Bring derived structures up to date before a scheduling cycle.
    pub fn prepare(&mut self) {
        if self.order_dirty {
            self.rebuild_order();
        }
        self.dra.prepare();
    }

    fn rebuild_order(&mut self) {
        self.order.clear();
        let mut idx = 0;
        loop {
            let mut any = false;
            for (_, ids) in &self.zones {
                if let Some(id) = ids.get(idx) {
                    self.order.push(*id);
                    any = true;
                }
            }
            if !any {
                break;
            }
            idx += 1;
        }
        // Names alone are sorted (the sort the binary already has), then looked up for their ids.
        let mut names: Vec<&str> = self.by_name.keys().map(|n| &**n).collect();
        names.sort_unstable();
        self.name_rank.clear();
        self.name_rank.resize(self.slots.len(), u32::MAX);
        for (rank, name) in names.into_iter().enumerate() {
            if let Some(&id) = self.by_name.get(name) {
                self.name_rank[id as usize] = u32::try_from(rank).unwrap_or(u32::MAX);
            }
        }
        self.order_dirty = false;
    }

    /// Position of node `id`'s name in name order, as of the last [`Cache::prepare`] (equal
    /// names cannot happen; an unknown id sorts last).
    pub fn name_rank(&self, id: NodeId) -> u32 {
        self.name_rank.get(id as usize).copied().unwrap_or(u32::MAX)
    }

    /// Iterate all nodes (in slot order).
    pub fn nodes(&self) -> impl Iterator<Item = &NodeInfo> {
        self.slots.iter().filter_map(|s| s.as_ref())
    }

    /// How many nodes have an image (by normalised name).
    pub fn image_node_count(&self, image: Name) -> u32 {
        self.image_nodes.get(&image).copied().unwrap_or(0)
    }

    fn add_images(&mut self, node: &NodeSpecInfo) {
        for (img, _) in &node.images {
            *self.image_nodes.entry(*img).or_default() += 1;
        }
    }

    fn remove_images(&mut self, node: &NodeSpecInfo) {
        for (img, _) in &node.images {
            if let Some(c) = self.image_nodes.get_mut(img) {
                *c -= 1;
                if *c == 0 {
                    self.image_nodes.remove(img);
                }
            }
        }
    }

    /// Add a node or update it in place, keeping its pods; returns what changed.
    pub fn upsert_node(&mut self, spec: NodeSpecInfo) -> NodeChange {
        if let Some(&id) = self.by_name.get(&*spec.name) {
            let mut change = NodeChange::default();
            let old = self.slots[id as usize].as_ref().map(|n| n.node.clone());
            if let Some(old) = old {
                change.allocatable = old.allocatable != spec.allocatable;
                change.labels = old.labels != spec.labels;
                change.taints = old.taints != spec.taints;
                change.unschedulable = old.unschedulable != spec.unschedulable;
                change.images = old.images != spec.images;
                if change.images {
                    self.remove_images(&old);
                    self.add_images(&spec);
                }
                if change.labels && zone_key(&old.labels) != zone_key(&spec.labels) {
                    self.remove_from_zone(id, &zone_key(&old.labels));
                    self.add_to_zone(id, zone_key(&spec.labels));
                }
                if change.labels {
                    self.domains.remove_node(id, &old.labels);
                    let ids = self.domains.add_node(id, &spec.labels);
                    if let Some(n) = self.slots[id as usize].as_mut() {
                        let old_ids = std::mem::replace(&mut n.value_ids, ids);
                        for p in &n.pods {
                            account(&mut self.tallies, &mut self.term_groups, &self.pod_index, p, id, &old_ids, -1);
                            account(&mut self.tallies, &mut self.term_groups, &self.pod_index, p, id, &n.value_ids, 1);
                        }
                    }
                }
            }
            if let Some(n) = self.slots[id as usize].as_mut() {
                n.node = spec;
                n.generation += 1;
            }
            return change;
        }
        let id = match self.free.pop() {
            Some(id) => id,
            None => {
                self.slots.push(None);
                (self.slots.len() - 1) as NodeId
            }
        };
        self.add_images(&spec);
        let zone = zone_key(&spec.labels);
        let name: Box<str> = (*spec.name).into();
        let ids = self.domains.add_node(id, &spec.labels);
        let mut info = NodeInfo::new(id, spec, ids);
        if let Some(orphans) = self.orphans.remove(&name) {
            for p in orphans {
                account(&mut self.tallies, &mut self.term_groups, &self.pod_index, &p, id, &info.value_ids, 1);
                info.add_pod(p);
            }
        }
        self.slots[id as usize] = Some(info);
        self.by_name.insert(name, id);
        self.add_to_zone(id, zone);
        NodeChange { added: true, ..Default::default() }
    }

    fn add_to_zone(&mut self, id: NodeId, zone: String) {
        match self.zones.iter_mut().find(|(z, _)| *z == zone) {
            Some((_, ids)) => ids.push(id),
            None => self.zones.push((zone, vec![id])),
        }
        self.order_dirty = true;
    }

    fn remove_from_zone(&mut self, id: NodeId, zone: &str) {
        if let Some(i) = self.zones.iter().position(|(z, _)| z == zone) {
            self.zones[i].1.retain(|x| *x != id);
            if self.zones[i].1.is_empty() {
                self.zones.remove(i);
            }
        }
        self.order_dirty = true;
    }

    /// Remove a node. Its pods stay accounted as orphans until they are deleted or the node returns.
    pub fn remove_node(&mut self, name: &str) -> bool {
        let Some(id) = self.by_name.remove(name) else {
            return false;
        };
        let Some(info) = self.slots[id as usize].take() else {
            return false;
        };
        self.free.push(id);
        self.remove_images(&info.node);
        self.remove_from_zone(id, &zone_key(&info.node.labels));
        self.domains.remove_node(id, &info.node.labels);
        for p in &info.pods {
            account(&mut self.tallies, &mut self.term_groups, &self.pod_index, p, id, &info.value_ids, -1);
        }
        if !info.pods.is_empty() {
            self.orphans.insert((*info.node.name).into(), info.pods);
        }
        true
    }

    /// Names of all known nodes.
    pub fn node_names(&self) -> Vec<Box<str>> {
        self.by_name.keys().cloned().collect()
    }

    fn attach(&mut self, pod: Arc<AssignedPod>) {
        self.pod_index.add(&pod);
        match self.by_name.get(&pod.node_name) {
            Some(&id) => {
                if let Some(n) = self.slots[id as usize].as_mut() {
                    account(&mut self.tallies, &mut self.term_groups, &self.pod_index, &pod, id, &n.value_ids, 1);
                    n.add_pod(pod);
                }
            }
            // Looked up before inserting: a start-up may list pods before their nodes, and an
            // entry() key would be a new copy of the node name per pod.
            None => match self.orphans.get_mut(&pod.node_name) {
                Some(list) => list.push(pod),
                None => {
                    self.orphans.insert(pod.node_name.clone(), vec![pod]);
                }
            },
        }
    }

    fn detach(&mut self, pod: &AssignedPod) {
        match self.by_name.get(&pod.node_name) {
            Some(&id) => {
                if let Some(n) = self.slots[id as usize].as_mut() {
                    if n.remove_pod(&pod.key) {
                        account(&mut self.tallies, &mut self.term_groups, &self.pod_index, pod, id, &n.value_ids, -1);
                    }
                }
            }
            None => {
                if let Some(list) = self.orphans.get_mut(&pod.node_name) {
                    list.retain(|p| p.key != pod.key);
                    if list.is_empty() {
                        self.orphans.remove(&pod.node_name);
                    }
                }
            }
        }
        self.pod_index.remove_pod(pod);
    }

    /// Account a pod that is bound to a node (from the watch). Replaces any previous version or
    /// assumption of the same pod; terminal pods are removed instead.
    pub fn upsert_assigned_pod(&mut self, pod: &PodInfo) {
        if pod.phase.is_terminal() || pod.node_name.is_empty() {
            self.remove_pod(&pod.key);
            return;
        }
        let new = Arc::new(AssignedPod::from_pod(pod, &pod.node_name));
        if let Some(old) = self.pods.remove(&pod.key) {
            self.detach(&old.pod);
        }
        self.storage.pod_added(pod, &pod.node_name);
        self.attach(new.clone());
        self.pods.insert(pod.key.clone(), PodRecord { pod: new, assumed: false });
    }

    /// [`Cache::upsert_assigned_pod`] for a bound pod's record that is not needed afterwards: it
    /// moves into the node-side view. Returns the version it replaced, if any, and whether that
    /// one was our assumption.
    pub fn upsert_assigned_pod_owned(&mut self, pod: PodInfo) -> Option<(Arc<AssignedPod>, bool)> {
        if pod.phase.is_terminal() || pod.node_name.is_empty() {
            self.remove_pod(&pod.key);
            return None;
        }
        let old = self.pods.remove(&pod.key);
        if let Some(old) = &old {
            self.detach(&old.pod);
        }
        self.storage.pod_added(&pod, &pod.node_name);
        let key = pod.key.clone();
        let new = Arc::new(AssignedPod::from_owned(pod));
        self.attach(new.clone());
        self.pods.insert(key, PodRecord { pod: new, assumed: false });
        old.map(|r| (r.pod, r.assumed))
    }

    /// Remove a pod (deleted, finished, or no longer assigned). Returns the pod that was removed.
    pub fn remove_pod(&mut self, key: &str) -> Option<Arc<AssignedPod>> {
        self.storage.pod_removed(key);
        let rec = self.pods.remove(key)?;
        self.detach(&rec.pod);
        Some(rec.pod)
    }

    /// Count a pod on the node we chose for it, before the API confirms the binding.
    pub fn assume_pod(&mut self, pod: &PodInfo, node_name: &str) {
        let assumed = Arc::new(AssignedPod::from_pod(pod, node_name));
        if let Some(old) = self.pods.remove(&pod.key) {
            self.detach(&old.pod);
        }
        self.storage.pod_added(pod, node_name);
        self.attach(assumed.clone());
        self.pods.insert(pod.key.clone(), PodRecord { pod: assumed, assumed: true });
    }

    /// Drop an assumption whose binding failed. A pod already confirmed by the watch is kept.
    pub fn forget_pod(&mut self, key: &str) -> bool {
        match self.pods.get(key) {
            Some(rec) if rec.assumed => {
                self.remove_pod(key);
                true
            }
            _ => false,
        }
    }

    /// Whether the pod is assumed (chosen by us, not yet seen bound).
    pub fn is_assumed(&self, key: &str) -> bool {
        self.pods.get(key).is_some_and(|r| r.assumed)
    }

    /// The node a pod is accounted on, if any.
    pub fn pod_node(&self, key: &str) -> Option<&str> {
        self.pods.get(key).map(|r| &*r.pod.node_name)
    }

    /// The accounted version of a pod.
    pub fn assigned_pod(&self, key: &str) -> Option<&Arc<AssignedPod>> {
        self.pods.get(key).map(|r| &r.pod)
    }

    /// Number of accounted pods (bound and assumed).
    pub fn num_pods(&self) -> usize {
        self.pods.len()
    }

    /// Number of assumed pods.
    pub fn num_assumed(&self) -> usize {
        self.pods.values().filter(|r| r.assumed).count()
    }

    /// Whether any pod is accounted (a first list has nothing to reconcile).
    pub fn has_pods(&self) -> bool {
        !self.pods.is_empty()
    }

    /// Keys of every accounted pod (for relist reconciliation).
    pub fn pod_keys(&self) -> Vec<PodKey> {
        self.pods.keys().cloned().collect()
    }

    /// Recompute every node's totals from its pods and compare with the incremental ones; used by
    /// tests and the property test to prove the bookkeeping exact.
    pub fn verify_totals(&self) -> Result<(), String> {
        for n in self.nodes() {
            let mut fresh = NodeInfo::new(n.id, n.node.clone(), n.value_ids.clone());
            for p in &n.pods {
                fresh.add_pod(p.clone());
            }
            if fresh.requested != n.requested
                || fresh.non_zero_milli_cpu != n.non_zero_milli_cpu
                || fresh.non_zero_memory != n.non_zero_memory
                || fresh.pods_with_affinity != n.pods_with_affinity
            {
                return Err(format!("node {}: incremental totals differ from recomputation", n.name()));
            }
            let mut a = fresh.used_ports.clone();
            let mut b = n.used_ports.clone();
            a.sort();
            b.sort();
            if a != b {
                return Err(format!("node {}: used ports differ", n.name()));
            }
        }
        let on_nodes: usize =
            self.nodes().map(|n| n.pods.len()).sum::<usize>() + self.orphans.values().map(Vec::len).sum::<usize>();
        if on_nodes != self.pods.len() {
            return Err(format!("{} pods indexed but {} on nodes", self.pods.len(), on_nodes));
        }
        Ok(())
    }
}

/// Whether a node carries a NoSchedule/NoExecute taint (used by spread policies).
pub fn has_effect(node: &NodeSpecInfo, effect: TaintEffect) -> bool {
    node.taints.iter().any(|t| t.effect == effect)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::api;
    use crate::core::model::{pod_key, NoPriorityClasses};

    fn node(name: &str, zone: &str) -> NodeSpecInfo {
        let mut n = api::Node::default();
        n.metadata.name = name.into();
        if !zone.is_empty() {
            n.metadata.labels.insert("topology.kubernetes.io/zone".into(), zone.into());
        }
        n.status.allocatable.insert("cpu".into(), api::QuantityStr("4".into()));
        n.status.allocatable.insert("pods".into(), api::QuantityStr("110".into()));
        NodeSpecInfo::from_api(&n)
    }

    fn pod(name: &str, node: &str, cpu: &str) -> PodInfo {
        let mut p = api::Pod::default();
        p.metadata.namespace = "default".into();
        p.metadata.name = name.into();
        p.spec.node_name = node.into();
        let mut c = api::Container::default();
        c.resources.requests.insert("cpu".into(), api::QuantityStr(cpu.into()));
        p.spec.containers.push(c);
        PodInfo::from_api(&p, &NoPriorityClasses)
    }

    #[test]
    fn node_tree_interleaves_zones() {
        let mut c = Cache::new();
        for (n, z) in [("a1", "a"), ("a2", "a"), ("a3", "a"), ("b1", "b"), ("c1", "c"), ("c2", "c")] {
            c.upsert_node(node(n, z));
        }
        let names: Vec<&str> = c.node_order().to_vec().iter().map(|id| c.node(*id).name()).collect();
        assert_eq!(names, ["a1", "b1", "c1", "a2", "c2", "a3"]);
        c.remove_node("b1");
        let names: Vec<&str> = c.node_order().to_vec().iter().map(|id| c.node(*id).name()).collect();
        assert_eq!(names, ["a1", "c1", "a2", "c2", "a3"]);
    }

    #[test]
    fn name_rank_follows_name_order_across_changes() {
        let mut c = Cache::new();
        for (n, z) in [("c1", "a"), ("a1", "b"), ("b1", "a"), ("a2", "b")] {
            c.upsert_node(node(n, z));
        }
        c.prepare();
        let rank = |c: &Cache, n: &str| c.name_rank(c.node_id(n).expect("known node"));
        assert_eq!(["a1", "a2", "b1", "c1"].map(|n| rank(&c, n)), [0, 1, 2, 3]);
        c.remove_node("a2");
        c.upsert_node(node("b0", "c"));
        c.prepare();
        assert_eq!(["a1", "b0", "b1", "c1"].map(|n| rank(&c, n)), [0, 1, 2, 3]);
    }

    #[test]
    fn assume_confirm_forget_and_orphans() {
        let mut c = Cache::new();
        c.upsert_node(node("n1", ""));
        let p = pod("p", "", "500m");
        c.assume_pod(&p, "n1");
        assert!(c.is_assumed(&pod_key("default", "p")));
        assert_eq!(c.node_by_name("n1").map(|n| n.requested.milli_cpu), Some(500));
        // watch confirms the bind
        c.upsert_assigned_pod(&pod("p", "n1", "500m"));
        assert!(!c.is_assumed("default/p"));
        assert!(!c.forget_pod("default/p"), "confirmed pods are not forgotten");
        assert_eq!(c.node_by_name("n1").map(|n| n.requested.milli_cpu), Some(500));
        // a pod on an unknown node waits as an orphan and joins the node when it appears
        c.upsert_assigned_pod(&pod("q", "n2", "1"));
        c.upsert_node(node("n2", ""));
        assert_eq!(c.node_by_name("n2").map(|n| n.requested.milli_cpu), Some(1000));
        c.remove_node("n2");
        c.remove_pod("default/q");
        c.upsert_node(node("n2", ""));
        assert_eq!(c.node_by_name("n2").map(|n| n.requested.milli_cpu), Some(0));
        c.verify_totals().expect("consistent");
        let p2 = pod("r", "", "1");
        c.assume_pod(&p2, "n1");
        assert!(c.forget_pod("default/r"));
        assert_eq!(c.node_by_name("n1").map(|n| n.requested.milli_cpu), Some(500));
        c.verify_totals().expect("consistent");
    }

    /// Property: after any sequence of pod adds, binds (assume + confirm), failed binds (forget),
    /// deletes, finishes and node churn, every node's incremental totals equal a recomputation
    /// from an independent model of which pod is where.
    #[test]
    fn incremental_totals_equal_recomputation_after_random_sequences() {
        use std::collections::BTreeMap;
        #[derive(Clone)]
        struct Placed {
            node: String,
            cpu: i64,
            memory: i64,
            port: Option<i32>,
        }
        fn pod_with(name: &str, node: &str, cpu: i64, memory: i64, port: Option<i32>, phase: &str) -> PodInfo {
            let mut p = api::Pod::default();
            p.metadata.namespace = "default".into();
            p.metadata.name = name.into();
            p.spec.node_name = node.into();
            p.status.phase = phase.into();
            let mut c = api::Container::default();
            c.resources.requests.insert("cpu".into(), api::QuantityStr(format!("{cpu}m")));
            c.resources.requests.insert("memory".into(), api::QuantityStr(memory.to_string()));
            if let Some(port) = port {
                c.ports.push(api::ContainerPort { container_port: 80, host_port: Some(port), ..Default::default() });
            }
            p.spec.containers.push(c);
            PodInfo::from_api(&p, &NoPriorityClasses)
        }
        let node_names = ["n0", "n1", "n2", "n3"];
        for seed in 0..40u64 {
            let mut rng = crate::core::rng::Rng::seeded(seed);
            let mut c = Cache::new();
            let mut live_nodes: Vec<&str> = Vec::new();
            // Pods accounted on a node (bound or assumed) and which of them are only assumed.
            let mut model: BTreeMap<String, Placed> = BTreeMap::new();
            let mut assumed: BTreeMap<String, Placed> = BTreeMap::new();
            for step in 0..300 {
                let name = format!("p{}", rng.below(25));
                let key = format!("default/{name}");
                let node = node_names[rng.below(node_names.len() as u64) as usize];
                let cpu = 100 * (1 + rng.below(8) as i64);
                let memory = (1 + rng.below(4) as i64) << 20;
                let port = (rng.below(3) == 0).then(|| 8000 + rng.below(3) as i32);
                let placed = Placed { node: node.to_string(), cpu, memory, port };
                match rng.below(8) {
                    // a node appears or changes (its pods keep counting)
                    0 => {
                        c.upsert_node(super::tests::node(node, ""));
                        if !live_nodes.contains(&node) {
                            live_nodes.push(node);
                        }
                    }
                    // the watch shows a pod bound (by us or anyone)
                    1 | 2 => {
                        c.upsert_assigned_pod(&pod_with(&name, node, cpu, memory, port, "Running"));
                        assumed.remove(&key);
                        model.insert(key, placed);
                    }
                    // we choose a node for a pending pod
                    3 if !model.contains_key(&key) => {
                        c.assume_pod(&pod_with(&name, "", cpu, memory, port, "Pending"), node);
                        assumed.insert(key.clone(), placed.clone());
                        model.insert(key, placed);
                    }
                    // its binding failed
                    4 => {
                        let forgotten = c.forget_pod(&key);
                        assert_eq!(forgotten, assumed.remove(&key).is_some(), "seed {seed} step {step}");
                        if forgotten {
                            model.remove(&key);
                        }
                    }
                    // the pod finished: resources are released
                    5 => {
                        if let Some(p) = model.get(&key).cloned() {
                            c.upsert_assigned_pod(&pod_with(&name, &p.node, p.cpu, p.memory, p.port, "Succeeded"));
                            model.remove(&key);
                            assumed.remove(&key);
                        }
                    }
                    // the pod was deleted
                    6 => {
                        c.remove_pod(&key);
                        model.remove(&key);
                        assumed.remove(&key);
                    }
                    // a node goes away (its pods wait as orphans) — rarely
                    _ if rng.below(4) == 0 => {
                        c.remove_node(node);
                        live_nodes.retain(|n| *n != node);
                    }
                    _ => {}
                }
                c.verify_totals().unwrap_or_else(|e| panic!("seed {seed} step {step}: {e}"));
                assert_eq!(c.num_pods(), model.len(), "seed {seed} step {step}");
                assert_eq!(c.num_assumed(), assumed.len(), "seed {seed} step {step}");
                for n in &live_nodes {
                    let info = c.node_by_name(n).expect("live node");
                    let on: Vec<&Placed> = model.values().filter(|p| p.node == *n).collect();
                    let cpu: i64 = on.iter().map(|p| p.cpu).sum();
                    let memory: i64 = on.iter().map(|p| p.memory).sum();
                    let mut ports: Vec<i32> = on.iter().filter_map(|p| p.port).collect();
                    let mut used: Vec<i32> = info.used_ports.iter().map(|hp| hp.port).collect();
                    ports.sort();
                    used.sort();
                    assert_eq!(info.requested.milli_cpu, cpu, "seed {seed} step {step} node {n} cpu");
                    assert_eq!(info.requested.memory, memory, "seed {seed} step {step} node {n} memory");
                    assert_eq!(info.pod_count(), on.len(), "seed {seed} step {step} node {n} pods");
                    assert_eq!(used, ports, "seed {seed} step {step} node {n} ports");
                }
            }
        }
    }
}
