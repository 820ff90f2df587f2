//! Cluster events as a bit mask, for queueing hints: a pod rejected by a plugin only goes back to
//! the active queue when an event that plugin registered for could have made it schedulable
//! (upstream `EventsToRegister`).

use std::ops::{BitOr, BitOrAssign};

/// The `event` label of an unscheduled pod's arrival (`pkg/scheduler/framework/events.go`).
pub const UNSCHEDULED_POD_ADD_LABEL: &str = "UnschedulablePodAdd";

/// A set of cluster events.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct EventMask(pub u32);

impl EventMask {
    pub const NONE: EventMask = EventMask(0);
    pub const NODE_ADD: EventMask = EventMask(1 << 0);
    pub const NODE_ALLOCATABLE: EventMask = EventMask(1 << 1);
    pub const NODE_LABEL: EventMask = EventMask(1 << 2);
    pub const NODE_TAINT: EventMask = EventMask(1 << 3);
    /// `spec.unschedulable` changed.
    pub const NODE_SPEC_UNSCHEDULABLE: EventMask = EventMask(1 << 4);
    pub const NODE_IMAGES: EventMask = EventMask(1 << 5);
    pub const NODE_DELETE: EventMask = EventMask(1 << 6);
    pub const ASSIGNED_POD_ADD: EventMask = EventMask(1 << 7);
    /// Labels of an assigned pod changed.
    pub const ASSIGNED_POD_UPDATE: EventMask = EventMask(1 << 8);
    /// An assigned pod was deleted, finished, or an assumption was forgotten.
    pub const ASSIGNED_POD_DELETE: EventMask = EventMask(1 << 9);
    pub const PVC_CHANGE: EventMask = EventMask(1 << 10);
    pub const PV_CHANGE: EventMask = EventMask(1 << 11);
    pub const STORAGE_CLASS_CHANGE: EventMask = EventMask(1 << 12);
    pub const CSI_NODE_CHANGE: EventMask = EventMask(1 << 13);
    pub const NAMESPACE_CHANGE: EventMask = EventMask(1 << 14);
    /// The unscheduled pod itself was updated.
    pub const POD_UPDATE: EventMask = EventMask(1 << 15);
    /// An unscheduled pod was added (another pod of a group arrived, for a PreEnqueue waiting
    /// for siblings).
    pub const UNSCHEDULED_POD_ADD: EventMask = EventMask(1 << 16);
    /// An object of a custom resource a plugin declared was added, updated or deleted (the
    /// event's objects say which resource: [`EventObject::Custom`]).
    pub const CUSTOM_RESOURCE: EventMask = EventMask(1 << 17);
    /// A ResourceClaim was added (the event carries it: [`EventObject::ResourceClaim`]).
    pub const RESOURCE_CLAIM_ADD: EventMask = EventMask(1 << 18);
    /// A ResourceClaim changed: an informer update, or the scheduler assumed or restored its
    /// own write (upstream registers the claim event handler on the assume cache).
    pub const RESOURCE_CLAIM_UPDATE: EventMask = EventMask(1 << 19);
    pub const RESOURCE_CLAIM_DELETE: EventMask = EventMask(1 << 20);
    pub const DEVICE_CLASS_ADD: EventMask = EventMask(1 << 21);
    pub const DEVICE_CLASS_UPDATE: EventMask = EventMask(1 << 22);
    pub const DEVICE_CLASS_DELETE: EventMask = EventMask(1 << 23);
    pub const RESOURCE_SLICE_ADD: EventMask = EventMask(1 << 24);
    pub const RESOURCE_SLICE_UPDATE: EventMask = EventMask(1 << 25);
    pub const RESOURCE_SLICE_DELETE: EventMask = EventMask(1 << 26);
    /// Every event of the `resource.k8s.io` kinds.
    pub const DRA_OBJECTS: EventMask = EventMask(0b1_1111_1111 << 18);
    /// An unscheduled pod's `status.resourceClaimStatuses` changed, nothing else that matters
    /// (upstream `UpdatePodGeneratedResourceClaim`; the event carries the pod before and after).
    pub const POD_GENERATED_RESOURCE_CLAIM: EventMask = EventMask(1 << 27);
    /// An assigned pod's counted requests went down (an in-place resize down actuated, or a
    /// pending one given up): upstream's `UpdatePodScaleDown`.
    pub const ASSIGNED_POD_SCALE_DOWN: EventMask = EventMask(1 << 28);
    /// A Workload (`scheduling.k8s.io/v1alpha1`) was added (the event carries it:
    /// [`EventObject::Workload`]); upstream's `fwk.Workload` Add.
    pub const WORKLOAD_ADD: EventMask = EventMask(1 << 29);
    pub const ALL: EventMask = EventMask(u32::MAX);

    pub fn intersects(self, other: EventMask) -> bool {
        self.0 & other.0 != 0
    }

    /// Upstream's `ClusterEvent.Label()` (`<Resource><ActionType>`) for the event this mask
    /// stands for: the `event` label of `scheduler_queue_incoming_pods_total` and
    /// `scheduler_event_handling_duration_seconds`. A mask of several node changes is labelled
    /// by the first in upstream's `NodeSchedulingPropertiesChange` order.
    pub fn label(self) -> &'static str {
        const ORDER: &[(EventMask, &str)] = &[
            (EventMask::NODE_ADD, "NodeAdd"),
            (EventMask::NODE_SPEC_UNSCHEDULABLE, "NodeUpdateNodeTaint"),
            (EventMask::NODE_ALLOCATABLE, "NodeUpdateNodeAllocatable"),
            (EventMask::NODE_LABEL, "NodeUpdateNodeLabel"),
            (EventMask::NODE_TAINT, "NodeUpdateNodeTaint"),
            (EventMask::NODE_IMAGES, "NodeUpdate"),
            (EventMask::NODE_DELETE, "NodeDelete"),
            (EventMask::ASSIGNED_POD_ADD, "AssignedPodAdd"),
            (EventMask::ASSIGNED_POD_UPDATE, "AssignedPodUpdatePodLabel"),
            (EventMask::ASSIGNED_POD_SCALE_DOWN, "AssignedPodUpdatePodScaleDown"),
            (EventMask::ASSIGNED_POD_DELETE, "AssignedPodDelete"),
            (EventMask::PVC_CHANGE, "PersistentVolumeClaimUpdate"),
            (EventMask::PV_CHANGE, "PersistentVolumeUpdate"),
            (EventMask::STORAGE_CLASS_CHANGE, "StorageClassUpdate"),
            (EventMask::CSI_NODE_CHANGE, "CSINodeUpdate"),
            (EventMask::NAMESPACE_CHANGE, "NamespaceUpdate"),
            (EventMask::POD_UPDATE, "UnschedulablePodUpdate"),
            (EventMask::UNSCHEDULED_POD_ADD, UNSCHEDULED_POD_ADD_LABEL),
            (EventMask::RESOURCE_CLAIM_ADD, "ResourceClaimAdd"),
            (EventMask::RESOURCE_CLAIM_UPDATE, "ResourceClaimUpdate"),
            (EventMask::RESOURCE_CLAIM_DELETE, "ResourceClaimDelete"),
            (EventMask::DEVICE_CLASS_ADD, "DeviceClassAdd"),
            (EventMask::DEVICE_CLASS_UPDATE, "DeviceClassUpdate"),
            (EventMask::DEVICE_CLASS_DELETE, "DeviceClassDelete"),
            (EventMask::RESOURCE_SLICE_ADD, "ResourceSliceAdd"),
            (EventMask::RESOURCE_SLICE_UPDATE, "ResourceSliceUpdate"),
            (EventMask::RESOURCE_SLICE_DELETE, "ResourceSliceDelete"),
            (EventMask::POD_GENERATED_RESOURCE_CLAIM, "UnschedulablePodUpdatePodGeneratedResourceClaim"),
            (EventMask::WORKLOAD_ADD, "WorkloadAdd"),
        ];
        ORDER.iter().find(|(m, _)| self.intersects(*m)).map_or("WildCardAll", |(_, l)| l)
    }
}

impl BitOr for EventMask {
    type Output = EventMask;
    fn bitor(self, rhs: EventMask) -> EventMask {
        EventMask(self.0 | rhs.0)
    }
}

impl BitOrAssign for EventMask {
    fn bitor_assign(&mut self, rhs: EventMask) {
        self.0 |= rhs.0;
    }
}

/// The object a cluster event is about, as the scheduler keeps it.
#[derive(Debug, Clone, Copy)]
pub enum EventObject<'a> {
    Node(&'a crate::core::model::NodeSpecInfo),
    /// A pod bound (or assumed) to a node.
    AssignedPod(&'a crate::core::cache::AssignedPod),
    /// A pod not yet bound.
    Pod(&'a crate::core::model::PodInfo),
    /// An object of a declared custom resource ([`crate::core::custom_resources::CustomObject::resource`]
    /// names it).
    Custom(&'a crate::core::custom_resources::CustomObject),
    /// A ResourceClaim (its latest known version: what the informer delivered, or what the
    /// scheduler's own write returned).
    ResourceClaim(&'a crate::core::api::ResourceClaim),
    /// A Workload (gang scheduling's pod groups).
    Workload(&'a crate::core::api::Workload),
}

/// A cluster event with the objects before and after (upstream `QueueingHintFn`'s `oldObj`,
/// `newObj`): `old` is `None` for an addition, `new` is `None` for a deletion; both are `None`
/// for the kinds the scheduler does not keep as objects (storage, namespaces).
#[derive(Debug, Clone, Copy)]
pub struct ClusterEvent<'a> {
    pub mask: EventMask,
    pub old: Option<EventObject<'a>>,
    pub new: Option<EventObject<'a>>,
}

impl ClusterEvent<'_> {
    /// An event without objects.
    pub fn of(mask: EventMask) -> ClusterEvent<'static> {
        ClusterEvent { mask, old: None, new: None }
    }
}

/// A queueing hint's verdict (upstream `fwk.QueueingHint`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum QueueingHint {
    /// The event may make the pod schedulable: move it out of the unschedulable pool.
    Queue,
    /// The event cannot help this pod: leave it where it is.
    QueueSkip,
}
