//! The kinds the scheduler mirrors from the API server, declared once.
//!
//! Every row says where the kind lives (group, version, resource, scope), how it is watched
//! (field selector), whether readiness waits for it and what happens when RBAC denies it, and
//! which plugins read it. The live scheduler's informers, readiness, the shell's permission list,
//! `simulate`'s cluster files and the tests' coverage checks all iterate this table; the kinds'
//! API types are listed once below ([`KindId`], [`KindChange`], [`Watched`] and the metadata
//! access are generated from that list). Adding a kind is a row here, its type in the list, and
//! where the scheduler keeps its objects (a `Keep` implementation in the scheduler's handlers).
//!
//! Required kinds are the ones kube-scheduler itself watches: `system:kube-scheduler` and
//! `system:volume-scheduler` grant every one of them. Optional kinds are edgesched extras that a
//! kubeadm cluster's default roles do not grant; when RBAC forbids one, the feature it serves is
//! turned off (with one warning naming the rule to add) instead of blocking readiness.

use crate::core::api::{self, Object};
pub use crate::core::custom_resources::CustomObject;
use crate::core::custom_resources::CustomResource;
use std::sync::OnceLock;

// ---------------------------------------------------------------------------------------------
// The types of the watched kinds, listed once: the kind ids, the API type of each, their
// metadata access, their changes and how code reaches a kind's type at run time.
// ---------------------------------------------------------------------------------------------

/// A change observed by a list+watch loop.
#[derive(Debug, Clone)]
pub enum Change<T> {
    /// A full relist starts; objects not seen before `ListDone` are gone afterwards.
    ListBegin,
    /// One page of the list, in server order.
    ListPage(Vec<T>),
    /// The list is complete: objects not seen since `ListBegin` are gone.
    ListDone,
    Added(T),
    Modified(T),
    Deleted(T),
    /// The kind cannot be read (RBAC forbids it): an optional kind's feature is off and its
    /// objects are forgotten until a later list succeeds.
    Unavailable,
    /// A listed object that cannot be decoded: skipped, with what could be read of it.
    Undecodable(Box<Undecodable>),
}

/// An object of a list page that does not decode as its kind's type (a wrong JSON type where Go
/// would refuse it too). client-go fails the whole list over such an object; edgesched skips it,
/// names it in a warning and, for a pending pod of its own, says why in a FailedScheduling event.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Undecodable {
    pub namespace: String,
    pub name: String,
    pub uid: String,
    pub resource_version: String,
    /// `spec.schedulerName` and `spec.nodeName`, when readable (they tell whose pod it is).
    pub scheduler_name: String,
    pub node_name: String,
    /// The decoder's complaint.
    pub error: String,
}

impl Undecodable {
    /// `namespace/name`, or `name` for cluster-scoped objects (as [`Object::key`]).
    pub fn key(&self) -> String {
        if self.namespace.is_empty() {
            self.name.clone()
        } else {
            format!("{}/{}", self.namespace, self.name)
        }
    }
}

impl<T> Change<T> {
    /// The same change with every object converted (boxing, typically).
    pub fn map<U>(self, f: impl Fn(T) -> U) -> Change<U> {
        match self {
            Change::ListBegin => Change::ListBegin,
            Change::ListPage(v) => Change::ListPage(v.into_iter().map(f).collect()),
            Change::ListDone => Change::ListDone,
            Change::Added(o) => Change::Added(f(o)),
            Change::Modified(o) => Change::Modified(f(o)),
            Change::Deleted(o) => Change::Deleted(f(o)),
            Change::Unavailable => Change::Unavailable,
            Change::Undecodable(u) => Change::Undecodable(u),
        }
    }

    /// What this change says about the kind's sync state, if anything.
    pub fn sync_state(&self) -> Option<KindSync> {
        match self {
            Change::ListDone => Some(KindSync::Synced),
            Change::Unavailable => Some(KindSync::Unavailable),
            _ => None,
        }
    }
}

/// How far a watched kind has come.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum KindSync {
    /// No complete list yet.
    Waiting,
    /// Listed at least once.
    Synced,
    /// Forbidden (only meaningful for optional kinds, which then do not hold up scheduling).
    Unavailable,
}

/// An API type the scheduler mirrors: its row of the kind table and its [`KindChange`] variant.
pub trait Watched: Object + Sized + Clone {
    /// The row of a built-in kind. Custom resources share one type ([`CustomObject`]) whose rows
    /// are known at run time: their id comes with each change ([`Watched::wrap_as`]).
    const ID: KindId;
    /// Wrap a change of this type for the core.
    fn wrap(change: Change<Box<Self>>) -> KindChange;
    /// Wrap a change of the kind `id` (what the informers call: a custom resource's row is only
    /// known at run time).
    fn wrap_as(_id: KindId, change: Change<Box<Self>>) -> KindChange {
        Self::wrap(change)
    }
}

/// [`Object`] for API types that carry an [`api::ObjectMeta`] as `metadata`.
macro_rules! object_by_metadata {
    ($($ty:ty),*) => {
        $(impl Object for $ty {
            fn name(&self) -> &str {
                &self.metadata.name
            }
            fn namespace(&self) -> &str {
                &self.metadata.namespace
            }
            fn resource_version(&self) -> &str {
                &self.metadata.resource_version
            }
        })*
    };
}

object_by_metadata!(CustomObject);

impl CustomObject {
    /// `podgroups.scheduling.x-k8s.io`, the resource this object belongs to (its row's name).
    pub fn resource(&self) -> String {
        kind(KindId::Custom(self.custom)).qualified_resource()
    }
}

macro_rules! watched_kinds {
    ($($id:ident => $ty:ty),* $(,)?) => {
        /// Identifies a watched kind (a row of [`KINDS`]).
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub enum KindId {
            $($id,)*
            /// A custom resource a plugin declared (index among [`custom_kinds`]).
            Custom(u8),
        }

        object_by_metadata!($($ty),*);

        /// A change of one watched kind (objects boxed, so that inputs stay small in the channel).
        #[derive(Debug, Clone)]
        pub enum KindChange {
            $($id(Change<Box<$ty>>),)*
            /// A change of the custom resource with this index.
            Custom(u8, Change<Box<CustomObject>>),
        }

        impl KindChange {
            /// The kind this change belongs to.
            pub fn id(&self) -> KindId {
                match self {
                    $(KindChange::$id(_) => KindId::$id,)*
                    KindChange::Custom(i, _) => KindId::Custom(*i),
                }
            }

            /// What this change says about the kind's sync state, if anything.
            pub fn sync_state(&self) -> Option<KindSync> {
                match self {
                    $(KindChange::$id(c) => c.sync_state(),)*
                    KindChange::Custom(_, c) => c.sync_state(),
                }
            }

            /// The object an added, modified or deleted change carries.
            pub fn object(&self) -> Option<&dyn Object> {
                match self {
                    $(KindChange::$id(Change::Added(o) | Change::Modified(o) | Change::Deleted(o)) => Some(&**o),)*
                    KindChange::Custom(_, Change::Added(o) | Change::Modified(o) | Change::Deleted(o)) => Some(&**o),
                    _ => None,
                }
            }

            /// Whether this change adds an object.
            pub fn is_added(&self) -> bool {
                match self {
                    $(KindChange::$id(c) => matches!(c, Change::Added(_)),)*
                    KindChange::Custom(_, c) => matches!(c, Change::Added(_)),
                }
            }

            /// The object of an `Added` change, if it is of type `T` (cluster snapshots keep their
            /// objects as changes and read them back typed).
            pub fn added<T: Watched + 'static>(&self) -> Option<&T> {
                match self {
                    $(KindChange::$id(Change::Added(o)) => (&**o as &dyn std::any::Any).downcast_ref::<T>(),)*
                    _ => None,
                }
            }

            /// The object an added, modified or deleted change carries, as JSON (snapshots).
            pub fn object_json(&self) -> Option<serde_json::Result<serde_json::Value>> {
                match self {
                    $(KindChange::$id(Change::Added(o) | Change::Modified(o) | Change::Deleted(o)) => Some(serde_json::to_value(&**o)),)*
                    KindChange::Custom(_, Change::Added(o) | Change::Modified(o) | Change::Deleted(o)) => Some(Ok(o.object.clone())),
                    _ => None,
                }
            }

            /// An `Added` change as a one-object page of the kind's initial list (how `simulate`
            /// feeds a cluster file: every kind is "listed" while the file is read).
            pub fn into_list_page(self) -> KindChange {
                match self {
                    $(KindChange::$id(Change::Added(o)) => KindChange::$id(Change::ListPage(vec![o])),)*
                    KindChange::Custom(i, Change::Added(o)) => KindChange::Custom(i, Change::ListPage(vec![o])),
                    other => other,
                }
            }
        }

        $(impl Watched for $ty {
            const ID: KindId = KindId::$id;
            fn wrap(change: Change<Box<Self>>) -> KindChange {
                KindChange::$id(change)
            }
        })*

        /// Something done with the API type of a kind known only at run time (the shell starts a
        /// typed watcher per row of the kind table through this).
        pub trait KindVisitor {
            type Output;
            fn visit<T>(&mut self) -> Self::Output
            where
                T: Watched + serde::de::DeserializeOwned + Send + 'static;
            /// The same for the custom-resource row `id` (type [`CustomObject`]). Separate so
            /// that the visitors that only meet built-in rows (snapshots, `simulate`) answer
            /// without their generic path being compiled for it: each instantiation costs
            /// binary size.
            fn visit_custom(&mut self, id: KindId) -> Self::Output;
        }

        /// Call `v.visit::<T>()` with the API type `T` of kind `id`.
        pub fn visit<V: KindVisitor>(id: KindId, v: &mut V) -> V::Output {
            match id {
                $(KindId::$id => v.visit::<$ty>(),)*
                KindId::Custom(_) => v.visit_custom(id),
            }
        }
    };
}

watched_kinds!(
    Node => api::Node,
    Pod => api::Pod,
    PriorityClass => api::PriorityClass,
    PodDisruptionBudget => api::PodDisruptionBudget,
    PersistentVolumeClaim => api::PersistentVolumeClaim,
    PersistentVolume => api::PersistentVolume,
    StorageClass => api::StorageClass,
    CsiNode => api::CsiNode,
    Namespace => api::Namespace,
    Service => api::Service,
    ReplicationController => api::ReplicationController,
    ReplicaSet => api::ReplicaSet,
    StatefulSet => api::StatefulSet,
    Lease => api::Lease,
    DeviceClass => api::DeviceClass,
    ResourceSlice => api::ResourceSlice,
    ResourceClaim => api::ResourceClaim,
    ResourceClaimTemplate => api::ResourceClaimTemplate,
    Workload => api::Workload,
);

impl Watched for CustomObject {
    /// Not a row of its own: every change comes through [`Watched::wrap_as`] with its row's id.
    const ID: KindId = KindId::Custom(0);
    fn wrap(change: Change<Box<Self>>) -> KindChange {
        Self::wrap_as(Self::ID, change)
    }
    fn wrap_as(id: KindId, change: Change<Box<Self>>) -> KindChange {
        let index = match id {
            KindId::Custom(i) => i,
            _ => 0,
        };
        KindChange::Custom(
            index,
            change.map(|mut o| {
                o.custom = index;
                o
            }),
        )
    }
}

/// Where the objects of a kind are listed from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scope {
    /// A cluster-scoped resource.
    Cluster,
    /// A namespaced resource, watched across all namespaces.
    AllNamespaces,
    /// A namespaced resource, watched in the leader-election namespace only.
    LeaseNamespace,
}

/// What the scheduler needs a kind for, and so how it reacts when it cannot read it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Need {
    /// Scheduling waits until it is listed; a denial is an error shown in `/readyz`.
    Required,
    /// A convenience: readiness waits only for the first answer (a list or a denial); when
    /// forbidden, `feature` is turned off until a later retry succeeds.
    Optional {
        /// What stops working without it (for the warning).
        feature: &'static str,
    },
}

/// Which profiles need a kind.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ReadBy {
    /// The scheduler itself (queue, cache, node table): always watched.
    Scheduler,
    /// These plugins read it.
    Plugins(&'static [&'static str]),
    /// Only the what-if commands (cluster files, snapshots of a live cluster): what a controller
    /// would make of its objects is simulated there, while the live scheduler leaves that to the
    /// controller and never watches the kind.
    WhatIf,
}

/// One watched kind.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct WatchedKind {
    pub id: KindId,
    /// `kind` of the objects (and of cluster files' documents).
    pub kind: &'static str,
    /// API group ("" for the core group).
    pub group: &'static str,
    pub version: &'static str,
    /// Plural resource name, as in URLs and RBAC rules.
    pub resource: &'static str,
    pub scope: Scope,
    /// Server-side field selector of the list and watch.
    pub field_selector: Option<&'static str>,
    pub need: Need,
    pub read_by: ReadBy,
}

impl WatchedKind {
    /// `v1` or `group/v1`, as in objects' `apiVersion`.
    pub fn api_version(&self) -> String {
        if self.group.is_empty() {
            self.version.to_string()
        } else {
            format!("{}/{}", self.group, self.version)
        }
    }

    /// The collection path to list and watch (`namespace` is used for [`Scope::LeaseNamespace`]).
    pub fn path(&self, lease_namespace: &str) -> String {
        let prefix = if self.group.is_empty() {
            format!("/api/{}", self.version)
        } else {
            format!("/apis/{}/{}", self.group, self.version)
        };
        match self.scope {
            Scope::Cluster | Scope::AllNamespaces => format!("{prefix}/{}", self.resource),
            Scope::LeaseNamespace => format!("{prefix}/namespaces/{lease_namespace}/{}", self.resource),
        }
    }

    /// `pods` or `leases.coordination.k8s.io`, as the API server names resources in messages.
    pub fn qualified_resource(&self) -> String {
        if self.group.is_empty() {
            self.resource.to_string()
        } else {
            format!("{}.{}", self.resource, self.group)
        }
    }

    /// Whether readiness waits for a successful list.
    pub fn is_required(&self) -> bool {
        self.need == Need::Required
    }

    /// Whether a scheduler whose profiles enable `plugins` reads this kind (and so watches it).
    pub fn is_read_by(&self, plugins: &[&str]) -> bool {
        match self.read_by {
            ReadBy::Scheduler => true,
            ReadBy::Plugins(readers) => readers.iter().any(|r| plugins.contains(r)),
            ReadBy::WhatIf => false,
        }
    }
}

/// The kinds a scheduler whose profiles enable `plugins` watches, in start order: a profile
/// without volume plugins opens no storage watches, one without topology spread no controller
/// watches.
pub fn kinds_read_by<'a>(plugins: &'a [&str]) -> impl Iterator<Item = &'static WatchedKind> + 'a {
    all_kinds().filter(move |k| k.is_read_by(plugins))
}

/// The built-in rows ([`KINDS`]) followed by the custom resources plugins declared.
pub fn all_kinds() -> impl Iterator<Item = &'static WatchedKind> {
    KINDS.iter().chain(custom_kinds())
}

static CUSTOM: OnceLock<Vec<WatchedKind>> = OnceLock::new();

/// Most custom resources one process can declare (their index is a `u8`).
pub const MAX_CUSTOM: usize = u8::MAX as usize;

/// Add the custom resources out-of-tree plugins declared as rows of the table, each read by
/// its plugin (once, at start-up, when the plugin registry is installed; the rows live for the
/// process). Returns `false` when rows were already installed or there are too many.
pub fn install_custom(declared: &[(String, CustomResource)]) -> bool {
    if declared.len() > MAX_CUSTOM {
        return false;
    }
    let leak = |s: &str| -> &'static str { Box::leak(s.to_string().into_boxed_str()) };
    let rows = declared
        .iter()
        .enumerate()
        .map(|(i, (plugin, r))| WatchedKind {
            id: KindId::Custom(i as u8),
            kind: leak(&r.kind),
            group: leak(&r.group),
            version: leak(&r.version),
            resource: leak(&r.resource),
            scope: if r.namespaced { Scope::AllNamespaces } else { Scope::Cluster },
            field_selector: None,
            need: Need::Required,
            read_by: ReadBy::Plugins(Box::leak(vec![leak(plugin)].into_boxed_slice())),
        })
        .collect();
    CUSTOM.set(rows).is_ok()
}

/// The custom resources' rows (empty in the shipped binary).
pub fn custom_kinds() -> impl Iterator<Item = &'static WatchedKind> {
    CUSTOM.get().into_iter().flatten()
}

const VOLUME_PLUGINS: &[&str] = &["VolumeBinding", "VolumeRestrictions", "VolumeZone", "NodeVolumeLimits"];

/// What stops working when the `resource.k8s.io` kinds cannot be read: pods with claims then
/// stay pending, saying so; every other pod schedules as before.
const DRA_FEATURE: &str = "device allocation for pods with resource claims (dynamic resource allocation)";

/// What stops working when Workloads cannot be read: pods with `spec.workloadRef` then wait
/// at PreEnqueue for their Workload; pods without one schedule as before.
const GANG_FEATURE: &str = "gang scheduling of pods with spec.workloadRef (GangScheduling)";

/// Every watched kind, in the order the watchers start (nodes and pods first: they are the
/// bulk of a cluster and everything else is small).
///
/// RBAC: each row is listed and watched; `system:kube-scheduler` grants every `Required` row and
/// `system:volume-scheduler` adds write access to PersistentVolumes and claims (see
/// [`crate::shell::daemon::permissions`] for the calls beyond list/watch).
pub const KINDS: &[WatchedKind] = &[
    WatchedKind {
        id: KindId::Node,
        kind: "Node",
        group: "",
        version: "v1",
        resource: "nodes",
        scope: Scope::Cluster,
        field_selector: None,
        need: Need::Required,
        read_by: ReadBy::Scheduler,
    },
    WatchedKind {
        id: KindId::Pod,
        kind: "Pod",
        group: "",
        version: "v1",
        resource: "pods",
        scope: Scope::AllNamespaces,
        // Finished pods hold no resources (upstream's informer uses the same selector).
        field_selector: Some("status.phase!=Succeeded,status.phase!=Failed"),
        need: Need::Required,
        read_by: ReadBy::Scheduler,
    },
    WatchedKind {
        id: KindId::PriorityClass,
        kind: "PriorityClass",
        group: "scheduling.k8s.io",
        version: "v1",
        resource: "priorityclasses",
        scope: Scope::Cluster,
        field_selector: None,
        // The Priority admission plugin writes `spec.priority` into every pod; classes are only
        // read for pods that lack it, and kube-scheduler's roles do not grant them.
        need: Need::Optional { feature: "priorityClassName resolution for pods without spec.priority" },
        read_by: ReadBy::Scheduler,
    },
    WatchedKind {
        id: KindId::PodDisruptionBudget,
        kind: "PodDisruptionBudget",
        group: "policy",
        version: "v1",
        resource: "poddisruptionbudgets",
        scope: Scope::AllNamespaces,
        field_selector: None,
        need: Need::Required,
        read_by: ReadBy::Plugins(&["DefaultPreemption"]),
    },
    WatchedKind {
        id: KindId::PersistentVolumeClaim,
        kind: "PersistentVolumeClaim",
        group: "",
        version: "v1",
        resource: "persistentvolumeclaims",
        scope: Scope::AllNamespaces,
        field_selector: None,
        need: Need::Required,
        read_by: ReadBy::Plugins(VOLUME_PLUGINS),
    },
    WatchedKind {
        id: KindId::PersistentVolume,
        kind: "PersistentVolume",
        group: "",
        version: "v1",
        resource: "persistentvolumes",
        scope: Scope::Cluster,
        field_selector: None,
        need: Need::Required,
        read_by: ReadBy::Plugins(VOLUME_PLUGINS),
    },
    WatchedKind {
        id: KindId::StorageClass,
        kind: "StorageClass",
        group: "storage.k8s.io",
        version: "v1",
        resource: "storageclasses",
        scope: Scope::Cluster,
        field_selector: None,
        need: Need::Required,
        read_by: ReadBy::Plugins(&["VolumeBinding", "VolumeZone", "NodeVolumeLimits"]),
    },
    WatchedKind {
        id: KindId::CsiNode,
        kind: "CSINode",
        group: "storage.k8s.io",
        version: "v1",
        resource: "csinodes",
        scope: Scope::Cluster,
        field_selector: None,
        need: Need::Required,
        read_by: ReadBy::Plugins(&["NodeVolumeLimits"]),
    },
    WatchedKind {
        id: KindId::Namespace,
        kind: "Namespace",
        group: "",
        version: "v1",
        resource: "namespaces",
        scope: Scope::Cluster,
        field_selector: None,
        need: Need::Required,
        // namespaceSelector of pod (anti-)affinity terms.
        read_by: ReadBy::Plugins(&["InterPodAffinity"]),
    },
    WatchedKind {
        id: KindId::Service,
        kind: "Service",
        group: "",
        version: "v1",
        resource: "services",
        scope: Scope::AllNamespaces,
        field_selector: None,
        need: Need::Required,
        read_by: ReadBy::Plugins(&["PodTopologySpread"]),
    },
    WatchedKind {
        id: KindId::ReplicationController,
        kind: "ReplicationController",
        group: "",
        version: "v1",
        resource: "replicationcontrollers",
        scope: Scope::AllNamespaces,
        field_selector: None,
        need: Need::Required,
        read_by: ReadBy::Plugins(&["PodTopologySpread"]),
    },
    WatchedKind {
        id: KindId::ReplicaSet,
        kind: "ReplicaSet",
        group: "apps",
        version: "v1",
        resource: "replicasets",
        scope: Scope::AllNamespaces,
        field_selector: None,
        need: Need::Required,
        read_by: ReadBy::Plugins(&["PodTopologySpread"]),
    },
    WatchedKind {
        id: KindId::StatefulSet,
        kind: "StatefulSet",
        group: "apps",
        version: "v1",
        resource: "statefulsets",
        scope: Scope::AllNamespaces,
        field_selector: None,
        need: Need::Required,
        read_by: ReadBy::Plugins(&["PodTopologySpread"]),
    },
    WatchedKind {
        id: KindId::Lease,
        kind: "Lease",
        group: "coordination.k8s.io",
        version: "v1",
        resource: "leases",
        scope: Scope::LeaseNamespace,
        field_selector: None,
        // Other schedulers' leases tell which schedulerNames are served; kubeadm grants this
        // since v1.31 (Role system::leader-locking-kube-scheduler), older clusters do not.
        need: Need::Optional { feature: "detection of pods whose schedulerName no running scheduler serves" },
        read_by: ReadBy::Scheduler,
    },
    // Dynamic Resource Allocation: what kube-scheduler's DynamicResources plugin reads
    // (`dynamicresources.go`, v1.35). `system:kube-scheduler` grants them since v1.34; the kinds
    // are optional so that a cluster without them (or an RBAC without the rules) still schedules
    // every pod that has no claim.
    WatchedKind {
        id: KindId::DeviceClass,
        kind: "DeviceClass",
        group: "resource.k8s.io",
        version: "v1",
        resource: "deviceclasses",
        scope: Scope::Cluster,
        field_selector: None,
        need: Need::Optional { feature: DRA_FEATURE },
        read_by: ReadBy::Plugins(&["DynamicResources"]),
    },
    WatchedKind {
        id: KindId::ResourceSlice,
        kind: "ResourceSlice",
        group: "resource.k8s.io",
        version: "v1",
        resource: "resourceslices",
        scope: Scope::Cluster,
        field_selector: None,
        need: Need::Optional { feature: DRA_FEATURE },
        read_by: ReadBy::Plugins(&["DynamicResources"]),
    },
    WatchedKind {
        id: KindId::ResourceClaim,
        kind: "ResourceClaim",
        group: "resource.k8s.io",
        version: "v1",
        resource: "resourceclaims",
        scope: Scope::AllNamespaces,
        field_selector: None,
        need: Need::Optional { feature: DRA_FEATURE },
        read_by: ReadBy::Plugins(&["DynamicResources"]),
    },
    // The resourceclaim controller makes a pod's claims from these; the scheduler waits for the
    // claims (PreEnqueue). Only the what-if commands instantiate them themselves.
    WatchedKind {
        id: KindId::ResourceClaimTemplate,
        kind: "ResourceClaimTemplate",
        group: "resource.k8s.io",
        version: "v1",
        resource: "resourceclaimtemplates",
        scope: Scope::AllNamespaces,
        field_selector: None,
        need: Need::Optional { feature: "instantiating resource claim templates in what-if simulations" },
        read_by: ReadBy::WhatIf,
    },
    // Gang scheduling (v1.35, alpha): the pod groups of `pod.spec.workloadRef`, read by the
    // GangScheduling plugin, which profiles have only with the `GenericWorkload` and
    // `GangScheduling` gates on (so nothing watches this row otherwise). The API is alpha and
    // served only by API servers that enable it; kube-scheduler's default role as built with
    // v1.35's default gates does not grant it.
    WatchedKind {
        id: KindId::Workload,
        kind: "Workload",
        group: "scheduling.k8s.io",
        version: "v1alpha1",
        resource: "workloads",
        scope: Scope::AllNamespaces,
        field_selector: None,
        need: Need::Optional { feature: GANG_FEATURE },
        read_by: ReadBy::Plugins(&["GangScheduling"]),
    },
];

/// The kinds that hold cluster state (every row but the leader-election Leases), in table
/// order: what a what-if snapshot of a live cluster lists.
pub fn snapshot_kinds() -> impl Iterator<Item = &'static WatchedKind> {
    KINDS.iter().filter(|k| k.scope != Scope::LeaseNamespace)
}

/// The row of `id`.
pub fn kind(id: KindId) -> &'static WatchedKind {
    // KINDS lists every built-in KindId exactly once (checked by a test), in declaration order;
    // custom ids index the rows of `install_custom`.
    match id {
        KindId::Custom(i) => CUSTOM.get().and_then(|rows| rows.get(usize::from(i))).unwrap_or(&KINDS[0]),
        _ => KINDS.iter().find(|k| k.id == id).unwrap_or(&KINDS[0]),
    }
}

/// The row whose objects have this `kind` (cluster files).
pub fn by_kind(kind: &str) -> Option<&'static WatchedKind> {
    all_kinds().find(|k| k.kind == kind)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_kind_once() {
        let mut ids: Vec<KindId> = KINDS.iter().map(|k| k.id).collect();
        ids.sort();
        ids.dedup();
        assert_eq!(ids.len(), KINDS.len());
        for k in KINDS {
            assert_eq!(kind(k.id).kind, k.kind);
            assert_eq!(by_kind(k.kind).map(|r| r.id), Some(k.id));
        }
    }

    #[test]
    fn paths_and_names() {
        let pvc = kind(KindId::PersistentVolumeClaim);
        assert_eq!(pvc.path("kube-system"), "/api/v1/persistentvolumeclaims");
        assert_eq!(pvc.qualified_resource(), "persistentvolumeclaims");
        let lease = kind(KindId::Lease);
        assert_eq!(lease.path("kube-system"), "/apis/coordination.k8s.io/v1/namespaces/kube-system/leases");
        assert_eq!(lease.qualified_resource(), "leases.coordination.k8s.io");
        assert_eq!(lease.api_version(), "coordination.k8s.io/v1");
        assert_eq!(kind(KindId::Node).api_version(), "v1");
    }

    struct Named;
    impl KindVisitor for Named {
        type Output = KindId;
        fn visit<T>(&mut self) -> KindId
        where
            T: Watched + serde::de::DeserializeOwned + Send + 'static,
        {
            T::ID
        }
        fn visit_custom(&mut self, id: KindId) -> KindId {
            id
        }
    }

    #[test]
    fn every_row_of_the_kind_table_has_a_type() {
        for k in KINDS {
            assert_eq!(visit(k.id, &mut Named), k.id);
        }
        let done = KindChange::Lease(Change::ListDone);
        assert_eq!((done.id(), done.sync_state()), (KindId::Lease, Some(KindSync::Synced)));
        let node = api::Node { metadata: api::ObjectMeta { name: "n".into(), ..Default::default() }, ..Default::default() };
        assert_eq!(node.key(), "n");
        let pod = api::Pod {
            metadata: api::ObjectMeta { name: "p".into(), namespace: "ns".into(), ..Default::default() },
            ..Default::default()
        };
        assert_eq!(pod.key(), "ns/p");
    }

    #[test]
    fn plugins_named_by_rows_exist() {
        for k in KINDS {
            if let ReadBy::Plugins(names) = k.read_by {
                for n in names {
                    assert!(crate::core::framework::plugins::is_known(n), "{} names unknown plugin {n}", k.kind);
                }
            }
        }
    }

    #[test]
    fn profiles_watch_only_what_their_plugins_read() {
        let all: Vec<&str> = KINDS
            .iter()
            .flat_map(|k| match k.read_by {
                ReadBy::Scheduler | ReadBy::WhatIf => Vec::new(),
                ReadBy::Plugins(p) => p.to_vec(),
            })
            .collect();
        let live = KINDS.iter().filter(|k| k.read_by != ReadBy::WhatIf).count();
        assert_eq!(kinds_read_by(&all).count(), live);
        // What-if rows are never watched, but snapshots list them.
        assert!(!kinds_read_by(&all).any(|k| k.id == KindId::ResourceClaimTemplate));
        assert!(snapshot_kinds().any(|k| k.id == KindId::ResourceClaimTemplate));
        let dra: Vec<KindId> = kinds_read_by(&["DynamicResources"]).map(|k| k.id).collect();
        for id in [KindId::DeviceClass, KindId::ResourceSlice, KindId::ResourceClaim] {
            assert!(dra.contains(&id), "{id:?}");
        }
        let bare: Vec<KindId> = kinds_read_by(&["NodeResourcesFit", "TaintToleration"]).map(|k| k.id).collect();
        assert_eq!(bare, [KindId::Node, KindId::Pod, KindId::PriorityClass, KindId::Lease]);
        let limits: Vec<KindId> = kinds_read_by(&["NodeVolumeLimits"]).map(|k| k.id).collect();
        for id in [KindId::PersistentVolumeClaim, KindId::PersistentVolume, KindId::StorageClass, KindId::CsiNode] {
            assert!(limits.contains(&id), "{id:?}");
        }
    }

    /// The cache accessors through which plugins read each kind's objects.
    const READS: &[(&str, KindId)] = &[
        (".claim(", KindId::PersistentVolumeClaim),
        (".volume(", KindId::PersistentVolume),
        (".volumes_of_class(", KindId::PersistentVolume),
        (".class(", KindId::StorageClass),
        (".csi_node(", KindId::CsiNode),
        ("namespace_labels", KindId::Namespace),
        ("namespaces_matching", KindId::Namespace),
        ("default_selector", KindId::Service),
        ("default_selector", KindId::ReplicationController),
        ("default_selector", KindId::ReplicaSet),
        ("default_selector", KindId::StatefulSet),
        (".budgets()", KindId::PodDisruptionBudget),
        (".resource_claim(", KindId::ResourceClaim),
        (".device_class(", KindId::DeviceClass),
        (".slice_index(", KindId::ResourceSlice),
    ];

    #[test]
    fn read_by_names_every_plugin_that_reads_the_kind() {
        // A plugin reading a kind its row does not name would find nothing in a profile that
        // enables it alone (the kind would not be watched). Scan each plugin's source for the
        // cache accessors of each kind.
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src/core/framework/plugins");
        let mut files = Vec::new();
        for e in std::fs::read_dir(&dir).expect("plugins dir").flatten() {
            let p = e.path();
            if p.is_dir() {
                for f in std::fs::read_dir(&p).expect("plugin dir").flatten() {
                    files.push((p.clone(), f.path()));
                }
            } else {
                files.push((p.clone(), p));
            }
        }
        let camel = |stem: &str| -> String { stem.split('_').map(|w| w[..1].to_uppercase() + &w[1..]).collect() };
        let mut checked = 0;
        for (owner, file) in files {
            let stem = owner.file_stem().map(|s| s.to_string_lossy().to_string()).unwrap_or_default();
            let name = file.file_name().map(|s| s.to_string_lossy().to_string()).unwrap_or_default();
            if name.contains("test") || !name.ends_with(".rs") {
                continue;
            }
            let plugin = camel(&stem);
            let text = std::fs::read_to_string(&file).expect("read plugin");
            let code = text.split("#[cfg(test)]").next().unwrap_or("");
            for (needle, id) in READS {
                if !code.contains(needle) {
                    continue;
                }
                assert!(crate::core::framework::plugins::is_known(&plugin), "{}: reads {id:?} but is no plugin", file.display());
                assert!(
                    kind(*id).is_read_by(&[plugin.as_str()]),
                    "{plugin} reads {id:?} ({needle}) but its row does not name it"
                );
                checked += 1;
            }
        }
        assert!(checked >= 8, "the scan found the plugins' reads ({checked})");
    }
}
