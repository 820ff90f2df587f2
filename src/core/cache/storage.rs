//! What the volume plugins know about storage: claims, volumes, classes, CSI nodes, which placed
//! pods use which volumes, and the bindings the scheduler itself has decided but the API has not
//! confirmed yet.
//!
//! Upstream keeps informer listers plus two "assume caches" (pkg/scheduler/framework/plugins/
//! volumebinding/assume_cache.go) so that a static PV given to one pod at Reserve is not offered to
//! the next pod before the watch delivers the updated PV. This module is the same idea as plain
//! data owned by the scheduler thread: watch events upsert/remove objects, Reserve's planned
//! writes are recorded as assumptions ([`StorageState::assume_actions`]) that the next version of
//! the object from the API replaces, and a failed binding forgets them
//! ([`StorageState::forget_assumed_for_pod`]). Everything is pure; no I/O.

/// An API write the binding cycle must perform before the pod is bound (upstream's Reserve +
/// PreBind of VolumeBinding). The core plans them; the binder threads execute them in order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PreBindAction {
    /// Set an annotation on a PVC (`volume.kubernetes.io/selected-node` for WaitForFirstConsumer
    /// claims that a provisioner will satisfy).
    AnnotatePvc { namespace: String, name: String, key: String, value: String },
    /// Pre-bind a static PV to a claim by setting `spec.claimRef` (the PV controller completes it).
    BindPv { pv: String, claim_namespace: String, claim_name: String, claim_uid: String },
    /// Wait until these claims are Bound (provisioning / PV controller), up to `timeout_seconds`.
    WaitForClaims { claims: Vec<(String, String)>, timeout_seconds: u64 },
}

use crate::core::model::{Labels, PodInfo};
use crate::core::{api, quantity};
use std::collections::{BTreeMap, HashMap};

/// Annotation telling a provisioner on which node to create a WaitForFirstConsumer volume.
pub const ANN_SELECTED_NODE: &str = "volume.kubernetes.io/selected-node";
/// Annotation the PV controller sets once a claim's binding is complete.
pub const ANN_BIND_COMPLETED: &str = "pv.kubernetes.io/bind-completed";
/// Legacy class annotation that still takes precedence over `spec.storageClassName`.
pub const ANN_BETA_STORAGE_CLASS: &str = "volume.beta.kubernetes.io/storage-class";
/// Provisioner name of classes that only hold pre-created (static) volumes.
pub const NOT_SUPPORTED_PROVISIONER: &str = "kubernetes.io/no-provisioner";
/// Access mode that allows a single pod cluster-wide.
pub const READ_WRITE_ONCE_POD: &str = "ReadWriteOncePod";
/// `volumeBindingMode` that defers binding to the scheduler.
pub const WAIT_FOR_FIRST_CONSUMER: &str = "WaitForFirstConsumer";

/// `namespace/name` of a claim (the key upstream's listers and ref counts use).
pub fn claim_key(namespace: &str, name: &str) -> String {
    format!("{namespace}/{name}")
}

/// Name of the claim behind a generic ephemeral volume (`ephemeral.VolumeClaimName`).
pub fn ephemeral_claim_name(pod_name: &str, volume_name: &str) -> String {
    format!("{pod_name}-{volume_name}")
}

/// Which claim a pod volume uses, if any: `(claim name, is generic ephemeral)`.
pub fn volume_claim(pod_name: &str, volume: &api::Volume) -> Option<(String, bool)> {
    if let Some(src) = &volume.persistent_volume_claim {
        return Some((src.claim_name.clone(), false));
    }
    volume.ephemeral.as_ref().map(|_| (ephemeral_claim_name(pod_name, &volume.name), true))
}

/// Whether a volume is an inline disk that VolumeRestrictions checks for conflicts.
pub fn is_inline_disk(volume: &api::Volume) -> bool {
    volume.gce_persistent_disk.is_some()
        || volume.aws_elastic_block_store.is_some()
        || volume.rbd.is_some()
        || volume.iscsi.is_some()
}

/// `volumeMode` of claims and volumes (absent means Filesystem).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum VolumeMode {
    Filesystem,
    Block,
}

impl VolumeMode {
    fn parse(mode: Option<&str>) -> VolumeMode {
        match mode {
            Some("Block") => VolumeMode::Block,
            _ => VolumeMode::Filesystem,
        }
    }
}

/// A storage quantity in bytes; unparsable values count as 0 (the API server validated them).
fn storage_bytes(list: &api::ResourceList) -> i64 {
    list.get("storage").and_then(|q| quantity::parse_value(&q.0).ok()).unwrap_or(0)
}

/// The class of an object: the beta annotation wins over the field (`GetPersistentVolumeClaimClass`).
fn class_of(annotations: &BTreeMap<String, String>, field: Option<&str>) -> String {
    annotations.get(ANN_BETA_STORAGE_CLASS).map(String::as_str).or(field).unwrap_or("").to_string()
}

/// A PersistentVolumeClaim, reduced to what scheduling reads.
#[derive(Debug, Clone, PartialEq)]
pub struct ClaimInfo {
    pub namespace: String,
    pub name: String,
    pub uid: String,
    pub resource_version: String,
    /// Storage class ("" = none).
    pub storage_class: String,
    /// `spec.volumeName` ("" = not bound or pre-bound).
    pub volume_name: String,
    pub phase: String,
    pub access_modes: Vec<String>,
    /// `spec.resources.requests.storage` in bytes (0 if absent).
    pub requested_bytes: i64,
    pub selector: Option<api::LabelSelector>,
    pub volume_mode: VolumeMode,
    /// `volume.kubernetes.io/selected-node`, possibly assumed by us.
    pub selected_node: Option<String>,
    /// `pv.kubernetes.io/bind-completed` is present.
    pub bind_completed: bool,
    pub deleting: bool,
    /// UID of the controlling owner (generic ephemeral claims are owned by their pod).
    pub controller_uid: Option<String>,
}

impl ClaimInfo {
    /// Convert an API claim.
    pub fn from_api(pvc: &api::PersistentVolumeClaim) -> ClaimInfo {
        let m = &pvc.metadata;
        ClaimInfo {
            namespace: m.namespace.clone(),
            name: m.name.clone(),
            uid: m.uid.clone(),
            resource_version: m.resource_version.clone(),
            storage_class: class_of(&m.annotations, pvc.spec.storage_class_name.as_deref()),
            volume_name: pvc.spec.volume_name.clone(),
            phase: pvc.status.phase.clone(),
            access_modes: pvc.spec.access_modes.clone(),
            requested_bytes: storage_bytes(&pvc.spec.resources.requests),
            selector: pvc.spec.selector.clone(),
            volume_mode: VolumeMode::parse(pvc.spec.volume_mode.as_deref()),
            selected_node: m.annotations.get(ANN_SELECTED_NODE).cloned(),
            bind_completed: m.annotations.contains_key(ANN_BIND_COMPLETED),
            deleting: m.deletion_timestamp.is_some(),
            controller_uid: m.owner_references.iter().find(|o| o.controller == Some(true)).map(|o| o.uid.clone()),
        }
    }

    pub fn key(&self) -> String {
        claim_key(&self.namespace, &self.name)
    }

    /// Bound by the PV controller (`isPVCFullyBound`): named volume and bind-completed annotation.
    pub fn is_fully_bound(&self) -> bool {
        !self.volume_name.is_empty() && self.bind_completed
    }

    /// The claim lost its volume (`ClaimLost`).
    pub fn is_lost(&self) -> bool {
        self.phase == "Lost"
    }

    pub fn has_access_mode(&self, mode: &str) -> bool {
        self.access_modes.iter().any(|m| m == mode)
    }
}

/// Which claim a PV is (pre-)bound to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ClaimRef {
    pub namespace: String,
    pub name: String,
    /// Empty for a user pre-binding by name only.
    pub uid: String,
}

/// A PersistentVolume, reduced to what scheduling reads.
#[derive(Debug, Clone, PartialEq)]
pub struct VolumeInfo {
    pub name: String,
    pub resource_version: String,
    pub capacity_bytes: i64,
    pub access_modes: Vec<String>,
    pub storage_class: String,
    /// `spec.claimRef`, possibly assumed by us.
    pub claim_ref: Option<ClaimRef>,
    pub node_affinity: Option<api::NodeSelector>,
    pub phase: String,
    /// `(driver, volumeHandle)` of a CSI volume.
    pub csi: Option<(String, String)>,
    /// `awsElasticBlockStore.volumeID` of an in-tree AWS EBS volume.
    pub ebs_volume_id: Option<String>,
    pub labels: BTreeMap<String, String>,
    pub volume_mode: VolumeMode,
    pub deleting: bool,
}

impl VolumeInfo {
    /// Convert an API volume.
    pub fn from_api(pv: &api::PersistentVolume) -> VolumeInfo {
        let m = &pv.metadata;
        let spec = &pv.spec;
        let field_class = (!spec.storage_class_name.is_empty()).then_some(spec.storage_class_name.as_str());
        VolumeInfo {
            name: m.name.clone(),
            resource_version: m.resource_version.clone(),
            capacity_bytes: storage_bytes(&spec.capacity),
            access_modes: spec.access_modes.clone(),
            storage_class: class_of(&m.annotations, field_class),
            claim_ref: spec.claim_ref.as_ref().map(|r| ClaimRef {
                namespace: r.namespace.clone(),
                name: r.name.clone(),
                uid: r.uid.clone(),
            }),
            node_affinity: spec.node_affinity.as_ref().and_then(|a| a.required.clone()),
            phase: pv.status.phase.clone(),
            csi: spec.csi.as_ref().map(|c| (c.driver.clone(), c.volume_handle.clone())),
            ebs_volume_id: spec.aws_elastic_block_store.as_ref().map(|s| s.volume_id.clone()),
            labels: m.labels.clone(),
            volume_mode: VolumeMode::parse(spec.volume_mode.as_deref()),
            deleting: m.deletion_timestamp.is_some(),
        }
    }

    /// `IsVolumeBoundToClaim`: same namespace/name, and same UID when the reference has one.
    pub fn is_bound_to(&self, claim: &ClaimInfo) -> bool {
        self.claim_ref
            .as_ref()
            .is_some_and(|r| r.name == claim.name && r.namespace == claim.namespace && (r.uid.is_empty() || r.uid == claim.uid))
    }

    /// `CheckNodeAffinity`: the volume's required node affinity against a node's labels. As
    /// upstream, only labels are visible (a `metadata.name` field selector sees an empty name).
    pub fn node_affinity_matches(&self, labels: &Labels) -> bool {
        self.node_affinity.as_ref().is_none_or(|sel| node_selector_matches(sel, "", labels))
    }

    /// `CheckAccessModes`: the volume offers every mode the claim asks for.
    pub fn offers_access_modes(&self, claim: &ClaimInfo) -> bool {
        claim.access_modes.iter().all(|m| self.access_modes.contains(m))
    }
}

/// A StorageClass, reduced to what scheduling reads.
#[derive(Debug, Clone, PartialEq)]
pub struct ClassInfo {
    pub name: String,
    pub provisioner: String,
    /// `volumeBindingMode: WaitForFirstConsumer` (the API server defaults the mode to Immediate).
    pub wait_for_first_consumer: bool,
    pub allowed_topologies: Vec<api::TopologySelectorTerm>,
}

impl ClassInfo {
    /// Convert an API class.
    pub fn from_api(sc: &api::StorageClass) -> ClassInfo {
        ClassInfo {
            name: sc.metadata.name.clone(),
            provisioner: sc.provisioner.clone(),
            wait_for_first_consumer: sc.volume_binding_mode.as_deref() == Some(WAIT_FOR_FIRST_CONSUMER),
            allowed_topologies: sc.allowed_topologies.clone(),
        }
    }

    /// Whether claims of this class can be provisioned dynamically at all.
    pub fn supports_provisioning(&self) -> bool {
        !self.provisioner.is_empty() && self.provisioner != NOT_SUPPORTED_PROVISIONER
    }

    /// `MatchTopologySelectorTerms` of `allowedTopologies` against a node's labels.
    pub fn allows_node(&self, labels: &Labels) -> bool {
        topology_terms_match(&self.allowed_topologies, labels)
    }
}

/// Attach limit of one CSI driver on a node (`None` = unlimited).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CsiDriverLimit {
    pub driver: String,
    pub count: Option<i64>,
}

/// A CSINode: the drivers installed on a node and their attach limits.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct CsiNodeInfo {
    pub drivers: Vec<CsiDriverLimit>,
    /// The in-tree plugins the node's kubelet migrated to CSI (the
    /// `storage.alpha.kubernetes.io/migrated-plugins` annotation, comma-separated): upstream's
    /// `isCSIMigrationOn` requires it for plugins whose migration is gated (Portworx).
    pub migrated_plugins: Vec<String>,
}

/// `v1.MigratedPluginsAnnotationKey`.
pub const MIGRATED_PLUGINS_ANNOTATION: &str = "storage.alpha.kubernetes.io/migrated-plugins";

impl CsiNodeInfo {
    pub fn from_api(node: &api::CsiNode) -> CsiNodeInfo {
        CsiNodeInfo {
            drivers: node
                .spec
                .drivers
                .iter()
                .map(|d| CsiDriverLimit { driver: d.name.clone(), count: d.allocatable.as_ref().and_then(|a| a.count) })
                .collect(),
            migrated_plugins: node
                .metadata
                .annotations
                .get(MIGRATED_PLUGINS_ANNOTATION)
                .map(|v| v.split(',').filter(|p| !p.is_empty()).map(str::to_string).collect())
                .unwrap_or_default(),
        }
    }

    /// Whether the annotation lists `plugin`.
    pub fn has_migrated(&self, plugin: &str) -> bool {
        self.migrated_plugins.iter().any(|p| p == plugin)
    }

    /// Drivers with a limit, as `driver → max volumes` (`getVolumeLimits`).
    pub fn limits(&self) -> HashMap<&str, i64> {
        self.drivers.iter().filter_map(|d| d.count.map(|c| (d.driver.as_str(), c))).collect()
    }
}

/// The storage-relevant volumes of a pod placed on a node (upstream reads `pod.Spec.Volumes` of
/// every pod in `NodeInfo`; our node table keeps no volumes, so they live here by pod key).
#[derive(Debug, Clone, PartialEq)]
pub struct PodVolumes {
    pub namespace: String,
    pub name: String,
    pub uid: String,
    pub node: String,
    /// Only claim, generic ephemeral and inline-disk volumes.
    pub volumes: Vec<api::Volume>,
}

impl PodVolumes {
    /// Keys (`ns/name`) of the PVCs referenced through `persistentVolumeClaim` volumes (what
    /// upstream counts in `PVCRefCounts`).
    fn pvc_keys(&self) -> impl Iterator<Item = String> + '_ {
        self.volumes.iter().filter_map(|v| v.persistent_volume_claim.as_ref()).map(|s| claim_key(&self.namespace, &s.claim_name))
    }
}

#[derive(Debug, Clone)]
struct AssumedClaim {
    pod: String,
    /// Resource version the assumption was made on; a different version from the API replaces it.
    base_rv: String,
    node: String,
    /// The API value to restore when the assumption is forgotten.
    api_selected_node: Option<String>,
}

#[derive(Debug, Clone)]
struct AssumedVolume {
    pod: String,
    base_rv: String,
    claim_ref: ClaimRef,
    api_claim_ref: Option<ClaimRef>,
}

/// Everything the volume plugins read, owned by the scheduler's cache.
#[derive(Debug, Default)]
pub struct StorageState {
    claims: HashMap<String, ClaimInfo>,
    volumes: HashMap<String, VolumeInfo>,
    classes: HashMap<String, ClassInfo>,
    csi_nodes: HashMap<String, CsiNodeInfo>,
    pods: HashMap<String, PodVolumes>,
    /// `ns/claim` → number of placed pods referencing it (upstream's usedPVCSet).
    claim_users: HashMap<String, u32>,
    assumed_claims: HashMap<String, AssumedClaim>,
    assumed_volumes: HashMap<String, AssumedVolume>,
}

impl StorageState {
    pub fn new() -> StorageState {
        StorageState::default()
    }

    // ---- claims -------------------------------------------------------------------------

    /// A claim was added or updated by the watch. A newer version replaces our assumption.
    pub fn upsert_pvc(&mut self, pvc: &api::PersistentVolumeClaim) {
        let mut info = ClaimInfo::from_api(pvc);
        let key = info.key();
        if let Some(a) = self.assumed_claims.get(&key) {
            if a.base_rv == info.resource_version {
                info.selected_node = Some(a.node.clone());
            } else {
                self.assumed_claims.remove(&key);
            }
        }
        self.claims.insert(key, info);
    }

    /// A claim was deleted.
    pub fn remove_pvc(&mut self, namespace: &str, name: &str) -> bool {
        let key = claim_key(namespace, name);
        self.assumed_claims.remove(&key);
        self.claims.remove(&key).is_some()
    }

    pub fn claim(&self, namespace: &str, name: &str) -> Option<&ClaimInfo> {
        self.claims.get(&claim_key(namespace, name))
    }

    /// Keys of every known claim (for relist reconciliation).
    pub fn claim_keys(&self) -> Vec<String> {
        self.claims.keys().cloned().collect()
    }

    // ---- volumes ------------------------------------------------------------------------

    /// A PV was added or updated by the watch. A newer version replaces our assumption.
    pub fn upsert_pv(&mut self, pv: &api::PersistentVolume) {
        let mut info = VolumeInfo::from_api(pv);
        if let Some(a) = self.assumed_volumes.get(&info.name) {
            if a.base_rv == info.resource_version {
                info.claim_ref = Some(a.claim_ref.clone());
            } else {
                self.assumed_volumes.remove(&info.name);
            }
        }
        self.volumes.insert(info.name.clone(), info);
    }

    /// A PV was deleted.
    pub fn remove_pv(&mut self, name: &str) -> bool {
        self.assumed_volumes.remove(name);
        self.volumes.remove(name).is_some()
    }

    pub fn volume(&self, name: &str) -> Option<&VolumeInfo> {
        self.volumes.get(name)
    }

    /// PVs of a storage class, sorted by name so choices are deterministic.
    pub fn volumes_of_class(&self, class: &str) -> Vec<&VolumeInfo> {
        let mut v: Vec<&VolumeInfo> = self.volumes.values().filter(|pv| pv.storage_class == class).collect();
        v.sort_by(|a, b| a.name.cmp(&b.name));
        v
    }

    /// Names of every known PV (for relist reconciliation).
    pub fn volume_names(&self) -> Vec<String> {
        self.volumes.keys().cloned().collect()
    }

    // ---- classes and CSI nodes ------------------------------------------------------------

    pub fn upsert_storage_class(&mut self, sc: &api::StorageClass) {
        let info = ClassInfo::from_api(sc);
        self.classes.insert(info.name.clone(), info);
    }

    pub fn remove_storage_class(&mut self, name: &str) -> bool {
        self.classes.remove(name).is_some()
    }

    pub fn class(&self, name: &str) -> Option<&ClassInfo> {
        self.classes.get(name)
    }

    pub fn class_names(&self) -> Vec<String> {
        self.classes.keys().cloned().collect()
    }

    /// A CSINode (named after its node) was added or updated.
    pub fn upsert_csi_node(&mut self, node: &api::CsiNode) {
        self.csi_nodes.insert(node.metadata.name.clone(), CsiNodeInfo::from_api(node));
    }

    pub fn remove_csi_node(&mut self, name: &str) -> bool {
        self.csi_nodes.remove(name).is_some()
    }

    pub fn csi_node(&self, node: &str) -> Option<&CsiNodeInfo> {
        self.csi_nodes.get(node)
    }

    pub fn csi_node_names(&self) -> Vec<String> {
        self.csi_nodes.keys().cloned().collect()
    }

    // ---- pods on nodes ------------------------------------------------------------------

    /// A pod was placed on `node` (bound from the watch, or assumed by us). Idempotent: a later
    /// call for the same pod replaces the earlier one.
    pub fn pod_added(&mut self, pod: &PodInfo, node: &str) {
        self.pod_removed(&pod.key);
        if pod.volumes.is_empty() {
            return;
        }
        let volumes: Vec<api::Volume> = pod
            .volumes
            .iter()
            .filter(|v| v.persistent_volume_claim.is_some() || v.ephemeral.is_some() || is_inline_disk(v))
            .cloned()
            .collect();
        if volumes.is_empty() {
            return;
        }
        let entry = PodVolumes {
            namespace: pod.namespace.to_string(),
            name: pod.name.to_string(),
            uid: pod.uid.to_string(),
            node: node.to_string(),
            volumes,
        };
        for key in entry.pvc_keys() {
            *self.claim_users.entry(key).or_default() += 1;
        }
        self.pods.insert(pod.key.to_string(), entry);
    }

    /// A pod left its node (deleted, finished, or its assumption was forgotten).
    pub fn pod_removed(&mut self, key: &str) {
        if self.pods.is_empty() {
            return;
        }
        let Some(old) = self.pods.remove(key) else {
            return;
        };
        for k in old.pvc_keys() {
            if let Some(c) = self.claim_users.get_mut(&k) {
                *c = c.saturating_sub(1);
                if *c == 0 {
                    self.claim_users.remove(&k);
                }
            }
        }
    }

    /// Storage-relevant volumes of a placed pod (None when it has none).
    pub fn pod_volumes(&self, key: &str) -> Option<&PodVolumes> {
        self.pods.get(key)
    }

    /// Whether any placed pod references the claim (`IsPVCUsedByPods`).
    pub fn is_claim_used(&self, namespace: &str, name: &str) -> bool {
        self.claim_users.contains_key(&claim_key(namespace, name))
    }

    /// Placed pods referencing any of `claims` (keys `ns/name`), with how many of those
    /// references each has.
    pub fn claim_users(&self, claims: &[String]) -> Vec<(String, i64)> {
        let mut out: Vec<(String, i64)> = self
            .pods
            .iter()
            .filter_map(|(key, p)| {
                let n = p.pvc_keys().filter(|k| claims.contains(k)).count() as i64;
                (n > 0).then(|| (key.clone(), n))
            })
            .collect();
        out.sort();
        out
    }

    // ---- assumptions --------------------------------------------------------------------

    /// Record that `pod`'s Reserve pre-bound `pv` to the claim: the PV is no longer available to
    /// other claims until the API says otherwise. False if the PV is unknown.
    pub fn assume_pv_bound(&mut self, pv: &str, claim: ClaimRef, pod: &str) -> bool {
        let Some(info) = self.volumes.get_mut(pv) else {
            return false;
        };
        let api_claim_ref = match self.assumed_volumes.remove(pv) {
            Some(prev) => prev.api_claim_ref,
            None => info.claim_ref.clone(),
        };
        info.claim_ref = Some(claim.clone());
        self.assumed_volumes.insert(
            pv.to_string(),
            AssumedVolume { pod: pod.to_string(), base_rv: info.resource_version.clone(), claim_ref: claim, api_claim_ref },
        );
        true
    }

    /// Record that `pod`'s Reserve selected `node` for a claim to be provisioned. False if the
    /// claim is unknown.
    pub fn assume_pvc_selected_node(&mut self, namespace: &str, name: &str, node: &str, pod: &str) -> bool {
        let key = claim_key(namespace, name);
        let Some(info) = self.claims.get_mut(&key) else {
            return false;
        };
        let api_selected_node = match self.assumed_claims.remove(&key) {
            Some(prev) => prev.api_selected_node,
            None => info.selected_node.clone(),
        };
        info.selected_node = Some(node.to_string());
        self.assumed_claims.insert(
            key,
            AssumedClaim {
                pod: pod.to_string(),
                base_rv: info.resource_version.clone(),
                node: node.to_string(),
                api_selected_node,
            },
        );
        true
    }

    /// Apply the PreBind writes a cycle planned for `pod` as assumptions (what upstream's
    /// `AssumePodVolumes` does at Reserve). Call right after the pod is assumed on its node.
    pub fn assume_actions(&mut self, pod: &str, actions: &[PreBindAction]) {
        for a in actions {
            match a {
                PreBindAction::BindPv { pv, claim_namespace, claim_name, claim_uid } => {
                    let claim = ClaimRef { namespace: claim_namespace.clone(), name: claim_name.clone(), uid: claim_uid.clone() };
                    self.assume_pv_bound(pv, claim, pod);
                }
                PreBindAction::AnnotatePvc { namespace, name, key, value } if key == ANN_SELECTED_NODE => {
                    self.assume_pvc_selected_node(namespace, name, value, pod);
                }
                PreBindAction::AnnotatePvc { .. } | PreBindAction::WaitForClaims { .. } => {}
            }
        }
    }

    /// Undo every assumption made for `pod` (its binding failed); objects the API has updated
    /// since keep the API's version. Returns how many assumptions were dropped.
    pub fn forget_assumed_for_pod(&mut self, pod: &str) -> usize {
        let claims: Vec<String> = self.assumed_claims.iter().filter(|(_, a)| a.pod == pod).map(|(k, _)| k.clone()).collect();
        let volumes: Vec<String> = self.assumed_volumes.iter().filter(|(_, a)| a.pod == pod).map(|(k, _)| k.clone()).collect();
        for key in &claims {
            if let Some(a) = self.assumed_claims.remove(key) {
                if let Some(info) = self.claims.get_mut(key) {
                    info.selected_node = a.api_selected_node;
                }
            }
        }
        for name in &volumes {
            if let Some(a) = self.assumed_volumes.remove(name) {
                if let Some(info) = self.volumes.get_mut(name) {
                    info.claim_ref = a.api_claim_ref;
                }
            }
        }
        claims.len() + volumes.len()
    }

    /// Number of assumptions not yet replaced by the API (for tests and debugging).
    pub fn num_assumed(&self) -> usize {
        self.assumed_claims.len() + self.assumed_volumes.len()
    }
}

// ---------------------------------------------------------------------------------------------
// Selectors (PV node affinity, class allowed topologies, claim label selectors)
// ---------------------------------------------------------------------------------------------

/// One `In/NotIn/Exists/DoesNotExist/Gt/Lt` requirement against a value; `None` when the
/// requirement itself is invalid (upstream's parse error: the term then matches nothing).
fn requirement_matches(operator: &str, values: &[String], value: Option<&str>) -> Option<bool> {
    match operator {
        "In" if !values.is_empty() => Some(value.is_some_and(|v| values.iter().any(|x| x == v))),
        "NotIn" if !values.is_empty() => Some(value.is_none_or(|v| values.iter().all(|x| x != v))),
        "Exists" if values.is_empty() => Some(value.is_some()),
        "DoesNotExist" if values.is_empty() => Some(value.is_none()),
        "Gt" | "Lt" if values.len() == 1 => {
            let bound: i64 = values[0].parse().ok()?;
            let Some(v) = value.and_then(|v| v.parse::<i64>().ok()) else {
                return Some(false);
            };
            Some(if operator == "Gt" { v > bound } else { v < bound })
        }
        _ => None,
    }
}

fn term_matches(term: &api::NodeSelectorTerm, node_name: &str, labels: &Labels) -> bool {
    if term.match_expressions.is_empty() && term.match_fields.is_empty() {
        return false;
    }
    let exprs =
        term.match_expressions.iter().all(|r| requirement_matches(&r.operator, &r.values, labels.get_str(&r.key)) == Some(true));
    let fields = term.match_fields.iter().all(|r| {
        r.key == "metadata.name"
            && matches!(r.operator.as_str(), "In" | "NotIn")
            && requirement_matches(&r.operator, &r.values, Some(node_name)) == Some(true)
    });
    exprs && fields
}

/// `v1.NodeSelector` matching (terms ORed; an empty term matches nothing).
pub fn node_selector_matches(sel: &api::NodeSelector, node_name: &str, labels: &Labels) -> bool {
    sel.node_selector_terms.iter().any(|t| term_matches(t, node_name, labels))
}

/// `MatchTopologySelectorTerms`: no terms match every node; an empty term matches nothing.
pub fn topology_terms_match(terms: &[api::TopologySelectorTerm], labels: &Labels) -> bool {
    terms.is_empty()
        || terms.iter().any(|t| {
            !t.match_label_expressions.is_empty()
                && t.match_label_expressions
                    .iter()
                    .all(|r| labels.get_str(&r.key).is_some_and(|v| r.values.iter().any(|x| x == v)))
        })
}

/// `metav1.LabelSelector` against a label map (an empty selector matches everything; an invalid
/// requirement matches nothing).
pub fn label_selector_matches(sel: &api::LabelSelector, labels: &BTreeMap<String, String>) -> bool {
    sel.match_labels.iter().all(|(k, v)| labels.get(k) == Some(v))
        && sel.match_expressions.iter().all(|r| {
            matches!(r.operator.as_str(), "In" | "NotIn" | "Exists" | "DoesNotExist")
                && requirement_matches(&r.operator, &r.values, labels.get(&r.key).map(String::as_str)) == Some(true)
        })
}

#[cfg(test)]
pub(crate) mod testutil {
    //! Builders for storage objects shared by the volume plugin tests (mirroring the helpers of
    //! upstream's volumebinding/test_utils.go: makePVC, makePV, withBoundPV, withNodeAffinity...).
    use super::*;
    use crate::core::api;

    pub fn pvc(ns: &str, name: &str, class: &str) -> api::PersistentVolumeClaim {
        let mut p = api::PersistentVolumeClaim::default();
        p.metadata.namespace = ns.into();
        p.metadata.name = name.into();
        p.metadata.uid = format!("uid-{name}");
        p.metadata.resource_version = "1".into();
        if !class.is_empty() {
            p.spec.storage_class_name = Some(class.into());
        }
        p.status.phase = "Pending".into();
        p
    }

    /// `withBoundPV`: volume name, bind-completed annotation, phase Bound.
    pub fn bound(mut p: api::PersistentVolumeClaim, pv: &str) -> api::PersistentVolumeClaim {
        p.spec.volume_name = pv.into();
        p.metadata.annotations.insert(ANN_BIND_COMPLETED.into(), "yes".into());
        p.status.phase = "Bound".into();
        p
    }

    pub fn request(mut p: api::PersistentVolumeClaim, storage: &str) -> api::PersistentVolumeClaim {
        p.spec.resources.requests.insert("storage".into(), api::QuantityStr(storage.into()));
        p
    }

    pub fn pv(name: &str, class: &str) -> api::PersistentVolume {
        let mut v = api::PersistentVolume::default();
        v.metadata.name = name.into();
        v.metadata.resource_version = "1".into();
        v.spec.storage_class_name = class.into();
        v.status.phase = "Available".into();
        v
    }

    pub fn capacity(mut v: api::PersistentVolume, storage: &str) -> api::PersistentVolume {
        v.spec.capacity.insert("storage".into(), api::QuantityStr(storage.into()));
        v
    }

    /// `withNodeAffinity(map[key][]values)`: one term with an `In` expression per key.
    pub fn node_affinity(mut v: api::PersistentVolume, reqs: &[(&str, &[&str])]) -> api::PersistentVolume {
        let term = api::NodeSelectorTerm {
            match_expressions: reqs
                .iter()
                .map(|(k, vals)| api::NodeSelectorRequirement {
                    key: (*k).into(),
                    operator: "In".into(),
                    values: vals.iter().map(|s| s.to_string()).collect(),
                })
                .collect(),
            match_fields: Vec::new(),
        };
        v.spec.node_affinity =
            Some(api::VolumeNodeAffinity { required: Some(api::NodeSelector { node_selector_terms: vec![term] }) });
        v
    }

    pub fn claimed(mut v: api::PersistentVolume, ns: &str, claim: &str) -> api::PersistentVolume {
        v.spec.claim_ref = Some(api::ClaimReference { namespace: ns.into(), name: claim.into(), uid: format!("uid-{claim}") });
        v.status.phase = "Bound".into();
        v
    }

    pub fn class(name: &str, wait: bool, provisioner: &str) -> api::StorageClass {
        let mut sc = api::StorageClass::default();
        sc.metadata.name = name.into();
        sc.provisioner = provisioner.into();
        sc.volume_binding_mode = Some(if wait { WAIT_FOR_FIRST_CONSUMER } else { "Immediate" }.into());
        sc
    }

    pub fn pvc_volume(name: &str, claim: &str) -> api::Volume {
        api::Volume {
            name: name.into(),
            persistent_volume_claim: Some(api::PvcSource { claim_name: claim.into(), read_only: false }),
            ..Default::default()
        }
    }

    pub fn pod_with_volumes(ns: &str, name: &str, volumes: Vec<api::Volume>) -> crate::core::model::PodInfo {
        let mut p = api::Pod::default();
        p.metadata.namespace = ns.into();
        p.metadata.name = name.into();
        p.metadata.uid = format!("uid-{name}");
        p.spec.volumes = volumes;
        crate::core::model::PodInfo::from_api(&p, &crate::core::model::NoPriorityClasses)
    }

    pub fn labels(pairs: &[(&str, &str)]) -> Labels {
        Labels::from_map(&pairs.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect())
    }
}

#[cfg(test)]
mod tests {
    use super::testutil::*;
    use super::*;

    #[test]
    fn claims_read_class_binding_and_selected_node() {
        let mut p = bound(request(pvc("default", "data", "fast"), "1Gi"), "pv-1");
        p.metadata.annotations.insert(ANN_SELECTED_NODE.into(), "n1".into());
        let c = ClaimInfo::from_api(&p);
        assert_eq!(c.storage_class, "fast");
        assert_eq!(c.requested_bytes, 1 << 30);
        assert!(c.is_fully_bound());
        assert_eq!(c.selected_node.as_deref(), Some("n1"));
        // The beta annotation wins over the field (GetPersistentVolumeClaimClass).
        p.metadata.annotations.insert(ANN_BETA_STORAGE_CLASS.into(), "old".into());
        assert_eq!(ClaimInfo::from_api(&p).storage_class, "old");
        // Volume name without bind-completed is only pre-bound.
        let mut q = pvc("default", "x", "fast");
        q.spec.volume_name = "pv-2".into();
        assert!(!ClaimInfo::from_api(&q).is_fully_bound());
    }

    #[test]
    fn decodes_wire_objects() {
        let sc: api::StorageClass = serde_json::from_str(
            r#"{"apiVersion":"storage.k8s.io/v1","kind":"StorageClass","metadata":{"name":"local-path",
            "annotations":{"storageclass.kubernetes.io/is-default-class":"true"}},"provisioner":"rancher.io/local-path",
            "reclaimPolicy":"Delete","volumeBindingMode":"WaitForFirstConsumer"}"#,
        )
        .unwrap();
        let c = ClassInfo::from_api(&sc);
        assert!(c.wait_for_first_consumer && c.supports_provisioning());
        assert!(!ClassInfo::from_api(&class("static", true, NOT_SUPPORTED_PROVISIONER)).supports_provisioning());
        let pv: api::PersistentVolume = serde_json::from_str(
            r#"{"metadata":{"name":"pvc-1","resourceVersion":"9"},"spec":{"capacity":{"storage":"2Gi"},
            "accessModes":["ReadWriteOnce"],"claimRef":{"kind":"PersistentVolumeClaim","namespace":"default","name":"data","uid":"u1"},
            "hostPath":{"path":"/var/lib/x","type":"DirectoryOrCreate"},"storageClassName":"local-path",
            "nodeAffinity":{"required":{"nodeSelectorTerms":[{"matchExpressions":[{"key":"kubernetes.io/hostname","operator":"In","values":["n2"]}]}]}}},
            "status":{"phase":"Bound"}}"#,
        )
        .unwrap();
        let v = VolumeInfo::from_api(&pv);
        assert_eq!(v.capacity_bytes, 2 << 30);
        assert_eq!(v.claim_ref.as_ref().map(|r| r.uid.as_str()), Some("u1"));
        assert!(v.node_affinity_matches(&labels(&[("kubernetes.io/hostname", "n2")])));
        assert!(!v.node_affinity_matches(&labels(&[("kubernetes.io/hostname", "n1")])));
        let csi: api::CsiNode = serde_json::from_str(
            r#"{"metadata":{"name":"n1"},"spec":{"drivers":[{"name":"ebs.csi.aws.com","nodeID":"i-1","allocatable":{"count":25}},
            {"name":"other","nodeID":"x","topologyKeys":null}]}}"#,
        )
        .unwrap();
        let info = CsiNodeInfo::from_api(&csi);
        assert_eq!(info.limits().get("ebs.csi.aws.com"), Some(&25));
        assert_eq!(info.limits().len(), 1);
    }

    #[test]
    fn selector_operators() {
        let l = labels(&[("zone", "a"), ("gen", "5")]);
        let req = |k: &str, op: &str, vals: &[&str]| api::NodeSelector {
            node_selector_terms: vec![api::NodeSelectorTerm {
                match_expressions: vec![api::NodeSelectorRequirement {
                    key: k.into(),
                    operator: op.into(),
                    values: vals.iter().map(|s| s.to_string()).collect(),
                }],
                match_fields: vec![],
            }],
        };
        assert!(node_selector_matches(&req("zone", "In", &["a", "b"]), "", &l));
        assert!(!node_selector_matches(&req("zone", "NotIn", &["a"]), "", &l));
        assert!(node_selector_matches(&req("missing", "NotIn", &["a"]), "", &l));
        assert!(node_selector_matches(&req("zone", "Exists", &[]), "", &l));
        assert!(node_selector_matches(&req("zone2", "DoesNotExist", &[]), "", &l));
        assert!(node_selector_matches(&req("gen", "Gt", &["4"]), "", &l));
        assert!(!node_selector_matches(&req("gen", "Lt", &["4"]), "", &l));
        assert!(!node_selector_matches(&req("zone", "In", &[]), "", &l), "invalid requirement");
        assert!(!node_selector_matches(&api::NodeSelector { node_selector_terms: vec![Default::default()] }, "", &l));
        let terms = vec![api::TopologySelectorTerm {
            match_label_expressions: vec![api::TopologySelectorLabelRequirement { key: "zone".into(), values: vec!["a".into()] }],
        }];
        assert!(topology_terms_match(&terms, &l));
        assert!(!topology_terms_match(&terms, &labels(&[("zone", "b")])));
        assert!(topology_terms_match(&[], &l));
        let mut sel = api::LabelSelector::default();
        sel.match_labels.insert("tier".into(), "gold".into());
        let pv_labels: BTreeMap<String, String> = [("tier".to_string(), "gold".to_string())].into();
        assert!(label_selector_matches(&sel, &pv_labels));
        assert!(!label_selector_matches(&sel, &BTreeMap::new()));
    }

    #[test]
    fn assumptions_hide_volumes_until_the_api_catches_up_or_are_forgotten() {
        let mut s = StorageState::new();
        s.upsert_pv(&pv("pv-1", "local"));
        s.upsert_pvc(&pvc("default", "data", "local"));
        let claim = ClaimRef { namespace: "default".into(), name: "data".into(), uid: "uid-data".into() };
        assert!(s.assume_pv_bound("pv-1", claim.clone(), "default/p"));
        assert!(s.assume_pvc_selected_node("default", "data", "n1", "default/p"));
        assert!(!s.assume_pv_bound("missing", claim.clone(), "default/p"));
        assert_eq!(s.num_assumed(), 2);
        // A resync of the same version keeps the assumption.
        s.upsert_pv(&pv("pv-1", "local"));
        assert_eq!(s.volume("pv-1").and_then(|v| v.claim_ref.clone()), Some(claim.clone()));
        // Forgetting restores the API view.
        assert_eq!(s.forget_assumed_for_pod("default/p"), 2);
        assert_eq!(s.volume("pv-1").and_then(|v| v.claim_ref.clone()), None);
        assert_eq!(s.claim("default", "data").and_then(|c| c.selected_node.clone()), None);
        // A newer version from the API replaces the assumption.
        s.assume_pvc_selected_node("default", "data", "n1", "default/p");
        let mut newer = pvc("default", "data", "local");
        newer.metadata.resource_version = "2".into();
        newer.metadata.annotations.insert(ANN_SELECTED_NODE.into(), "n1".into());
        s.upsert_pvc(&newer);
        assert_eq!(s.num_assumed(), 0);
        assert_eq!(s.forget_assumed_for_pod("default/p"), 0);
        assert_eq!(s.claim("default", "data").and_then(|c| c.selected_node.clone()).as_deref(), Some("n1"));
    }

    #[test]
    fn assume_actions_applies_reserve_plan() {
        let mut s = StorageState::new();
        s.upsert_pv(&pv("pv-1", "local"));
        s.upsert_pvc(&pvc("default", "a", "local"));
        s.upsert_pvc(&pvc("default", "b", "local"));
        s.assume_actions(
            "default/p",
            &[
                PreBindAction::BindPv {
                    pv: "pv-1".into(),
                    claim_namespace: "default".into(),
                    claim_name: "a".into(),
                    claim_uid: "uid-a".into(),
                },
                PreBindAction::AnnotatePvc {
                    namespace: "default".into(),
                    name: "b".into(),
                    key: ANN_SELECTED_NODE.into(),
                    value: "n2".into(),
                },
                PreBindAction::WaitForClaims { claims: vec![], timeout_seconds: 1 },
            ],
        );
        assert_eq!(s.volume("pv-1").and_then(|v| v.claim_ref.as_ref().map(|r| r.name.clone())).as_deref(), Some("a"));
        assert_eq!(s.claim("default", "b").and_then(|c| c.selected_node.clone()).as_deref(), Some("n2"));
    }

    #[test]
    fn pod_usage_is_counted_per_claim() {
        let mut s = StorageState::new();
        let p1 = pod_with_volumes("ns", "p1", vec![pvc_volume("v", "data")]);
        let p2 = pod_with_volumes("ns", "p2", vec![pvc_volume("v", "data"), pvc_volume("w", "other")]);
        let plain = pod_with_volumes("ns", "p3", vec![]);
        s.pod_added(&p1, "n1");
        s.pod_added(&p2, "n2");
        s.pod_added(&p2, "n2");
        s.pod_added(&plain, "n1");
        assert!(s.pod_volumes("ns/p3").is_none());
        assert!(s.is_claim_used("ns", "data"));
        assert_eq!(s.claim_users(&["ns/data".into()]), vec![("ns/p1".into(), 1), ("ns/p2".into(), 1)]);
        s.pod_removed("ns/p1");
        assert!(s.is_claim_used("ns", "data"));
        s.pod_removed("ns/p2");
        assert!(!s.is_claim_used("ns", "data"));
        assert!(!s.is_claim_used("ns", "other"));
        s.pod_removed("ns/unknown");
    }
}
