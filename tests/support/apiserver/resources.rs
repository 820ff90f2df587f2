//! The resource table: which (group, version, plural) the server serves, with kind, scope and
//! whether a `/status` subresource splits spec from status. Paths, list kinds, error messages and
//! discovery documents are all derived from it, so adding a resource is one line.

/// One served resource.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ResourceType {
    /// API group; "" for the legacy core group served under `/api`.
    pub group: &'static str,
    /// Version, e.g. `v1`.
    pub version: &'static str,
    /// Lower-case plural used in URLs.
    pub plural: &'static str,
    /// Kind of single objects.
    pub kind: &'static str,
    /// Whether objects live in a namespace.
    pub namespaced: bool,
    /// Whether `/status` exists (then the main resource ignores status changes and vice versa).
    pub status_subresource: bool,
    /// Short names advertised in discovery.
    pub short_names: &'static [&'static str],
    /// Which field selector labels lists and watches accept.
    pub field_labels: FieldLabels,
}

/// The field selector labels a resource's lists and watches accept: the scheme's field label
/// conversion for the kind (`runtime.Scheme.ConvertFieldLabel`), whose error the list handler
/// answers as a 400 (`k8s.io/apiserver/pkg/endpoints/handlers/get.go`, `ListResource`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FieldLabels {
    /// Any dotted path, compared with the object's JSON (the kinds served before the
    /// resource.k8s.io group; their real label lists are not modelled).
    AnyPath,
    /// `metadata.name` and `metadata.namespace` only: kinds without a conversion function of
    /// their own get `runtime.DefaultMetaV1FieldSelectorConversion`.
    ObjectMeta,
    /// Exactly these labels, refused with `field label not supported for <gvk>: <label>` (a kind
    /// that registers `AddFieldLabelConversionFunc`, e.g. ResourceSlice in
    /// `pkg/apis/resource/v1/conversion.go`).
    Only(&'static [&'static str]),
}

use super::status::quote;

/// Index into [`RESOURCES`].
pub type ResId = usize;

const fn r(
    group: &'static str,
    plural: &'static str,
    kind: &'static str,
    namespaced: bool,
    status_subresource: bool,
    short_names: &'static [&'static str],
) -> ResourceType {
    ResourceType {
        group,
        version: "v1",
        plural,
        kind,
        namespaced,
        status_subresource,
        short_names,
        field_labels: FieldLabels::AnyPath,
    }
}

/// The API group of Dynamic Resource Allocation.
pub const RESOURCE_GROUP: &str = "resource.k8s.io";

/// A resource.k8s.io/v1 kind (none has short names; only ResourceClaim has a status).
const fn dra(
    plural: &'static str,
    kind: &'static str,
    namespaced: bool,
    status_subresource: bool,
    field_labels: FieldLabels,
) -> ResourceType {
    ResourceType {
        group: RESOURCE_GROUP,
        version: "v1",
        plural,
        kind,
        namespaced,
        status_subresource,
        short_names: &[],
        field_labels,
    }
}

/// The RBAC API group, whose objects the authorizer reads on every request.
pub const RBAC_GROUP: &str = "rbac.authorization.k8s.io";

/// Everything the server serves (the built-in kinds at version v1).
pub const RESOURCES: &[ResourceType] = &[
    r("", "namespaces", "Namespace", false, true, &["ns"]),
    r("", "nodes", "Node", false, true, &["no"]),
    r("", "pods", "Pod", true, true, &["po"]),
    r("", "events", "Event", true, false, &["ev"]),
    r("", "configmaps", "ConfigMap", true, false, &["cm"]),
    r("", "services", "Service", true, true, &["svc"]),
    r("", "replicationcontrollers", "ReplicationController", true, true, &["rc"]),
    r("", "persistentvolumeclaims", "PersistentVolumeClaim", true, true, &["pvc"]),
    r("", "persistentvolumes", "PersistentVolume", false, true, &["pv"]),
    r("", "serviceaccounts", "ServiceAccount", true, false, &["sa"]),
    r("apps", "replicasets", "ReplicaSet", true, true, &["rs"]),
    r("apps", "statefulsets", "StatefulSet", true, true, &["sts"]),
    r("apps", "deployments", "Deployment", true, true, &["deploy"]),
    r("apps", "daemonsets", "DaemonSet", true, true, &["ds"]),
    r("events.k8s.io", "events", "Event", true, false, &["ev"]),
    r("coordination.k8s.io", "leases", "Lease", true, false, &[]),
    r("scheduling.k8s.io", "priorityclasses", "PriorityClass", false, false, &["pc"]),
    r("storage.k8s.io", "storageclasses", "StorageClass", false, false, &["sc"]),
    r("storage.k8s.io", "csinodes", "CSINode", false, false, &[]),
    r("storage.k8s.io", "csidrivers", "CSIDriver", false, false, &[]),
    r("storage.k8s.io", "csistoragecapacities", "CSIStorageCapacity", true, false, &[]),
    r("storage.k8s.io", "volumeattachments", "VolumeAttachment", false, true, &[]),
    r("policy", "poddisruptionbudgets", "PodDisruptionBudget", true, true, &["pdb"]),
    r(RBAC_GROUP, "clusterroles", "ClusterRole", false, false, &[]),
    r(RBAC_GROUP, "clusterrolebindings", "ClusterRoleBinding", false, false, &[]),
    r(RBAC_GROUP, "roles", "Role", true, false, &[]),
    r(RBAC_GROUP, "rolebindings", "RoleBinding", true, false, &[]),
    r("authentication.k8s.io", "tokenreviews", "TokenReview", false, false, &[]),
    r("authorization.k8s.io", "subjectaccessreviews", "SubjectAccessReview", false, false, &[]),
    // Dynamic Resource Allocation, as a v1.35 server serves resource.k8s.io/v1. Only
    // ResourceSlice registers field labels of its own: `spec.nodeName` and `spec.driver` beside
    // `metadata.name` (`resourceslice/strategy.go` `toSelectableFields`, the conversion in
    // `pkg/apis/resource/v1/conversion.go`); the others select by name and namespace only.
    dra("deviceclasses", "DeviceClass", false, false, FieldLabels::ObjectMeta),
    dra("resourceslices", "ResourceSlice", false, false, FieldLabels::Only(&["metadata.name", "spec.nodeName", "spec.driver"])),
    dra("resourceclaims", "ResourceClaim", true, true, FieldLabels::ObjectMeta),
    dra("resourceclaimtemplates", "ResourceClaimTemplate", true, false, FieldLabels::ObjectMeta),
    // Gang scheduling's Workloads, as a v1.35 server with `GenericWorkload` on serves
    // scheduling.k8s.io/v1alpha1 (no status subresource, no field labels of their own).
    ResourceType {
        group: "scheduling.k8s.io",
        version: "v1alpha1",
        plural: "workloads",
        kind: "Workload",
        namespaced: true,
        status_subresource: false,
        short_names: &[],
        field_labels: FieldLabels::ObjectMeta,
    },
    // A custom resource, served as an installed CRD is (stored as given, every verb, RBAC by
    // group and plural): scheduler-plugins' PodGroup, whose CRD ships with the coscheduling
    // example (examples/coscheduling/manifests/podgroup-crd.yaml). A CRD with a status
    // subresource splits status from spec like the built-in kinds.
    ResourceType {
        group: "scheduling.x-k8s.io",
        version: "v1alpha1",
        plural: "podgroups",
        kind: "PodGroup",
        namespaced: true,
        status_subresource: true,
        short_names: &["pg", "pgs"],
        field_labels: FieldLabels::AnyPath,
    },
];

/// Resources that are create-only reviews, answered without storing anything.
pub fn is_review(res: &ResourceType) -> bool {
    matches!(res.plural, "tokenreviews" | "subjectaccessreviews")
}

impl ResourceType {
    /// `v1` or `group/v1`, as in an object's `apiVersion`.
    pub fn api_version(&self) -> String {
        if self.group.is_empty() {
            self.version.to_string()
        } else {
            format!("{}/{}", self.group, self.version)
        }
    }

    /// `pods` or `leases.coordination.k8s.io`, as in error messages.
    pub fn qualified(&self) -> String {
        if self.group.is_empty() {
            self.plural.to_string()
        } else {
            format!("{}.{}", self.plural, self.group)
        }
    }

    /// URL prefix of the group version: `/api/v1` or `/apis/<group>/v1`.
    pub fn prefix(&self) -> String {
        if self.group.is_empty() {
            format!("/api/{}", self.version)
        } else {
            format!("/apis/{}/{}", self.group, self.version)
        }
    }

    /// `resource.k8s.io/v1, Kind=ResourceSlice`, as `schema.GroupVersionKind` prints itself.
    pub fn gvk_string(&self) -> String {
        format!("{}/{}, Kind={}", self.group, self.version, self.kind)
    }

    /// Refuse a field selector label this kind does not accept, with the conversion's error
    /// text (the caller answers it as a 400 BadRequest).
    pub fn check_field_label(&self, label: &str) -> Result<(), String> {
        match self.field_labels {
            FieldLabels::AnyPath => Ok(()),
            FieldLabels::ObjectMeta if matches!(label, "metadata.name" | "metadata.namespace") => Ok(()),
            FieldLabels::ObjectMeta => {
                Err(format!("{} is not a known field selector: only \"metadata.name\", \"metadata.namespace\"", quote(label)))
            }
            FieldLabels::Only(labels) if labels.contains(&label) => Ok(()),
            FieldLabels::Only(_) => Err(format!("field label not supported for {}: {label}", self.gvk_string())),
        }
    }

    /// Collection path in a namespace ("" for cluster-scoped or all namespaces).
    pub fn collection_path(&self, ns: &str) -> String {
        if self.namespaced && !ns.is_empty() {
            format!("{}/namespaces/{ns}/{}", self.prefix(), self.plural)
        } else {
            format!("{}/{}", self.prefix(), self.plural)
        }
    }
}

/// The resource served at `group`/`version`/`plural`.
pub fn find(group: &str, version: &str, plural: &str) -> Option<ResId> {
    RESOURCES.iter().position(|r| r.group == group && r.version == version && r.plural == plural)
}

/// The resource by its core-group plural or `plural.group` name (`pods`, `leases.coordination.k8s.io`).
pub fn find_qualified(name: &str) -> Option<ResId> {
    RESOURCES.iter().position(|r| r.qualified() == name)
}

/// The resource whose objects have this `apiVersion` and `kind` (as in a manifest).
pub fn find_kind(api_version: &str, kind: &str) -> Option<ResId> {
    RESOURCES.iter().position(|r| r.api_version() == api_version && r.kind == kind && !is_review(r))
}

/// The resource with this group and plural (RBAC rules name resources without a version).
pub fn find_plural(group: &str, plural: &str) -> Option<ResId> {
    RESOURCES.iter().position(|r| r.group == group && r.plural == plural)
}

/// Shorthand for the core pods resource.
pub fn pods() -> ResId {
    find("", "v1", "pods").unwrap_or(0)
}

/// Shorthand for a resource.k8s.io/v1 resource by plural.
pub fn dra_resource(plural: &str) -> ResId {
    find(RESOURCE_GROUP, "v1", plural).unwrap_or(0)
}

/// Shorthand for the core namespaces resource.
pub fn namespaces() -> ResId {
    find("", "v1", "namespaces").unwrap_or(0)
}
