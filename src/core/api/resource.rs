//! `resource.k8s.io/v1` as kube-scheduler v1.35 reads and writes it: `DeviceClass`, `ResourceSlice`,
//! `ResourceClaim`, `ResourceClaimTemplate` and every type nested in them that dynamic resource
//! allocation looks at.
//!
//! Transcribed from `staging/src/k8s.io/api/resource/v1/types.go` (kubernetes/kubernetes v1.35):
//! the JSON names and `omitempty` rules are Go's, so a value written back (the scheduler writes
//! `status.allocation` and `status.reservedFor`) reads as the Go type would write it. Fields that
//! only later releases define (list-typed attributes, `partitionTypeAttribute`,
//! `skipNodeOperations`, `nodeAllocatableResources`, `derivedAttributes`, compatibility groups) are
//! left out and, like every other unknown field, ignored on decode, as Go's typed decoding ignores
//! them. The alpha fields of v1.35 (shared counters, per-device node selection, device taints and
//! tolerations, binding conditions, consumable capacity, extended resource names) are kept so that
//! the allocator can refuse or ignore them exactly as upstream does while their gates are off.
//!
//! Decoding follows the rules of the other API types ([`super`]): every struct defaults its omitted
//! fields, `null` is the zero value (through [`crate::core::gojson`]), Go pointers are `Option`s,
//! enumerations stay strings, quantities stay [`QuantityStr`] until the allocator parses them with
//! [`crate::core::quantity`]. Go's `omitempty` on a struct-typed field has no effect, so such fields
//! are always written; a slice without `omitempty` is written as `[]` where Go would write `null`
//! for a nil slice (both decode to the empty list).

use super::{NodeSelector, OwnerReference, QuantityStr};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// The finalizer the scheduler puts on a claim it allocates (`resourceapi.Finalizer`).
pub const CLAIM_FINALIZER: &str = "resource.kubernetes.io/delete-protection";

/// At most this many devices in one allocation result (`AllocationResultsMaxSize`).
pub const ALLOCATION_RESULTS_MAX_SIZE: usize = 32;

/// At most this many consumers in `status.reservedFor` (`ResourceClaimReservedForMaxSize`).
pub const RESERVED_FOR_MAX_SIZE: usize = 256;

/// `source` of a configuration copied from the device class (`AllocationConfigSourceClass`).
pub const CONFIG_SOURCE_CLASS: &str = "FromClass";

/// `source` of a configuration copied from the claim (`AllocationConfigSourceClaim`).
pub const CONFIG_SOURCE_CLAIM: &str = "FromClaim";

/// `allocationMode: ExactCount` (the default when empty).
pub const ALLOCATION_MODE_EXACT_COUNT: &str = "ExactCount";

/// `allocationMode: All`.
pub const ALLOCATION_MODE_ALL: &str = "All";

/// `metav1.ObjectMeta` of the resource kinds: unlike a pod's, it keeps what writing a claim back
/// needs (finalizers, annotations, generation) and the owner references that tie a claim made from
/// a template to its pod.
#[derive(Debug, Clone, Default, Deserialize, Serialize, PartialEq)]
#[serde(default, rename_all = "camelCase")]
pub struct ResourceObjectMeta {
    #[serde(skip_serializing_if = "String::is_empty")]
    pub name: String,
    #[serde(skip_serializing_if = "String::is_empty")]
    pub generate_name: String,
    #[serde(skip_serializing_if = "String::is_empty")]
    pub namespace: String,
    #[serde(skip_serializing_if = "String::is_empty")]
    pub uid: String,
    #[serde(skip_serializing_if = "String::is_empty")]
    pub resource_version: String,
    #[serde(skip_serializing_if = "is_zero_i64")]
    pub generation: i64,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub creation_timestamp: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub deletion_timestamp: Option<String>,
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub labels: BTreeMap<String, String>,
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub annotations: BTreeMap<String, String>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub owner_references: Vec<OwnerReference>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub finalizers: Vec<String>,
}

fn is_zero_i64(v: &i64) -> bool {
    *v == 0
}

// ---------------------------------------------------------------------------------------------
// DeviceClass
// ---------------------------------------------------------------------------------------------

/// `DeviceClass` (cluster-scoped): selectors every device of a request naming it must satisfy, and
/// configuration copied into allocations.
#[derive(Debug, Clone, Default, Deserialize, Serialize, PartialEq)]
#[serde(default, rename_all = "camelCase")]
pub struct DeviceClass {
    #[serde(skip_serializing_if = "String::is_empty")]
    pub kind: String,
    #[serde(skip_serializing_if = "String::is_empty")]
    pub api_version: String,
    pub metadata: ResourceObjectMeta,
    pub spec: DeviceClassSpec,
}

/// `DeviceClassSpec`.
#[derive(Debug, Clone, Default, Deserialize, Serialize, PartialEq)]
#[serde(default, rename_all = "camelCase")]
pub struct DeviceClassSpec {
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub selectors: Vec<DeviceSelector>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub config: Vec<DeviceClassConfiguration>,
    /// `DRAExtendedResource` (alpha in v1.35).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub extended_resource_name: Option<String>,
}

/// `DeviceClassConfiguration`. Go embeds `DeviceConfiguration` (exactly one kind of
/// configuration; `opaque` in v1.35) inline; its field sits here directly, as in the other two
/// configuration types, so that Go's `null` rules reach it (serde's `flatten` would bypass them).
#[derive(Debug, Clone, Default, Deserialize, Serialize, PartialEq)]
#[serde(default)]
pub struct DeviceClassConfiguration {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub opaque: Option<OpaqueDeviceConfiguration>,
}

/// `DeviceSelector`: exactly one kind of selector; `cel` is the only one v1.35 knows, so a
/// selector without it comes from a newer API and is refused by the allocator.
#[derive(Debug, Clone, Default, Deserialize, Serialize, PartialEq)]
#[serde(default)]
pub struct DeviceSelector {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cel: Option<CelDeviceSelector>,
}

/// `CELDeviceSelector`.
#[derive(Debug, Clone, Default, Deserialize, Serialize, PartialEq)]
#[serde(default)]
pub struct CelDeviceSelector {
    pub expression: String,
}

/// `OpaqueDeviceConfiguration`: driver parameters the scheduler copies without reading them.
#[derive(Debug, Clone, Default, Deserialize, Serialize, PartialEq)]
#[serde(default)]
pub struct OpaqueDeviceConfiguration {
    pub driver: String,
    /// `runtime.RawExtension`: any JSON, kept as sent (`null` when absent, as Go writes a nil one).
    pub parameters: serde_json::Value,
}

// ---------------------------------------------------------------------------------------------
// ResourceSlice
// ---------------------------------------------------------------------------------------------

/// `ResourceSlice` (cluster-scoped): some or all devices of one pool of one driver.
#[derive(Debug, Clone, Default, Deserialize, Serialize, PartialEq)]
#[serde(default, rename_all = "camelCase")]
pub struct ResourceSlice {
    #[serde(skip_serializing_if = "String::is_empty")]
    pub kind: String,
    #[serde(skip_serializing_if = "String::is_empty")]
    pub api_version: String,
    pub metadata: ResourceObjectMeta,
    pub spec: ResourceSliceSpec,
}

/// `ResourceSliceSpec`. Exactly one of `nodeName`, `nodeSelector`, `allNodes` and
/// `perDeviceNodeSelection` says where the devices are available.
#[derive(Debug, Clone, Default, Deserialize, Serialize, PartialEq)]
#[serde(default, rename_all = "camelCase")]
pub struct ResourceSliceSpec {
    pub driver: String,
    pub pool: ResourcePool,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub node_name: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub node_selector: Option<NodeSelector>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub all_nodes: Option<bool>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub devices: Vec<Device>,
    /// `DRAPartitionableDevices` (alpha in v1.35).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub per_device_node_selection: Option<bool>,
    /// `DRAPartitionableDevices` (alpha in v1.35).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub shared_counters: Vec<CounterSet>,
}

/// `ResourcePool`: only slices of a pool's highest generation count, and the pool is complete
/// once `resourceSliceCount` slices of that generation are seen.
#[derive(Debug, Clone, Default, Deserialize, Serialize, PartialEq)]
#[serde(default, rename_all = "camelCase")]
pub struct ResourcePool {
    pub name: String,
    pub generation: i64,
    pub resource_slice_count: i64,
}

/// `CounterSet` (`DRAPartitionableDevices`).
#[derive(Debug, Clone, Default, Deserialize, Serialize, PartialEq)]
#[serde(default)]
pub struct CounterSet {
    pub name: String,
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub counters: BTreeMap<String, Counter>,
}

/// `Counter`.
#[derive(Debug, Clone, Default, Deserialize, Serialize, PartialEq)]
#[serde(default)]
pub struct Counter {
    pub value: QuantityStr,
}

/// `Device`: one device with its attributes and capacities (v1 has no `basic` wrapper).
#[derive(Debug, Clone, Default, Deserialize, Serialize, PartialEq)]
#[serde(default, rename_all = "camelCase")]
pub struct Device {
    pub name: String,
    /// Qualified name (`domain/id`, or `id` in the driver's domain) → value.
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub attributes: BTreeMap<String, DeviceAttribute>,
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub capacity: BTreeMap<String, DeviceCapacity>,
    /// `DRAPartitionableDevices` (alpha in v1.35).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub consumes_counters: Vec<DeviceCounterConsumption>,
    /// Per-device node selection (`DRAPartitionableDevices`, alpha in v1.35).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub node_name: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub node_selector: Option<NodeSelector>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub all_nodes: Option<bool>,
    /// `DRADeviceTaints` (alpha in v1.35).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub taints: Vec<DeviceTaint>,
    /// `DRADeviceBindingConditions` + `DRAResourceClaimDeviceStatus` (alpha in v1.35).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub binds_to_node: Option<bool>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub binding_conditions: Vec<String>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub binding_failure_conditions: Vec<String>,
    /// `DRAConsumableCapacity` (alpha in v1.35).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub allow_multiple_allocations: Option<bool>,
}

/// `DeviceCounterConsumption` (`DRAPartitionableDevices`).
#[derive(Debug, Clone, Default, Deserialize, Serialize, PartialEq)]
#[serde(default, rename_all = "camelCase")]
pub struct DeviceCounterConsumption {
    pub counter_set: String,
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub counters: BTreeMap<String, Counter>,
}

/// `DeviceAttribute`: exactly one of the typed values is set (validation guarantees it for
/// stored objects; a device with none or several is compared as upstream compares it).
#[derive(Debug, Clone, Default, Deserialize, Serialize, PartialEq, Eq)]
#[serde(default)]
pub struct DeviceAttribute {
    #[serde(rename = "int", skip_serializing_if = "Option::is_none")]
    pub int_value: Option<i64>,
    #[serde(rename = "bool", skip_serializing_if = "Option::is_none")]
    pub bool_value: Option<bool>,
    #[serde(rename = "string", skip_serializing_if = "Option::is_none")]
    pub string_value: Option<String>,
    #[serde(rename = "version", skip_serializing_if = "Option::is_none")]
    pub version_value: Option<String>,
}

/// `DeviceCapacity`.
#[derive(Debug, Clone, Default, Deserialize, Serialize, PartialEq)]
#[serde(default, rename_all = "camelCase")]
pub struct DeviceCapacity {
    pub value: QuantityStr,
    /// `DRAConsumableCapacity` (alpha in v1.35).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub request_policy: Option<CapacityRequestPolicy>,
}

/// `CapacityRequestPolicy` (`DRAConsumableCapacity`). `default` has no `omitempty` in Go, so an
/// unset one is written as `null`.
#[derive(Debug, Clone, Default, Deserialize, Serialize, PartialEq)]
#[serde(default, rename_all = "camelCase")]
pub struct CapacityRequestPolicy {
    pub default: Option<QuantityStr>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub valid_values: Vec<QuantityStr>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub valid_range: Option<CapacityRequestPolicyRange>,
}

/// `CapacityRequestPolicyRange`.
#[derive(Debug, Clone, Default, Deserialize, Serialize, PartialEq)]
#[serde(default)]
pub struct CapacityRequestPolicyRange {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub min: Option<QuantityStr>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max: Option<QuantityStr>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub step: Option<QuantityStr>,
}

/// `DeviceTaint` (`DRADeviceTaints`).
#[derive(Debug, Clone, Default, Deserialize, Serialize, PartialEq)]
#[serde(default, rename_all = "camelCase")]
pub struct DeviceTaint {
    pub key: String,
    #[serde(skip_serializing_if = "String::is_empty")]
    pub value: String,
    pub effect: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub time_added: Option<String>,
}

// ---------------------------------------------------------------------------------------------
// ResourceClaim and ResourceClaimTemplate
// ---------------------------------------------------------------------------------------------

/// `ResourceClaim` (namespaced): what a pod asks for, and once allocated what it got.
#[derive(Debug, Clone, Default, Deserialize, Serialize, PartialEq)]
#[serde(default, rename_all = "camelCase")]
pub struct ResourceClaim {
    #[serde(skip_serializing_if = "String::is_empty")]
    pub kind: String,
    #[serde(skip_serializing_if = "String::is_empty")]
    pub api_version: String,
    pub metadata: ResourceObjectMeta,
    pub spec: ResourceClaimSpec,
    pub status: ResourceClaimStatus,
}

/// `ResourceClaimSpec`.
#[derive(Debug, Clone, Default, Deserialize, Serialize, PartialEq)]
#[serde(default)]
pub struct ResourceClaimSpec {
    pub devices: DeviceClaim,
}

/// `DeviceClaim`: requests (all must be satisfied), constraints across them, configuration.
#[derive(Debug, Clone, Default, Deserialize, Serialize, PartialEq)]
#[serde(default)]
pub struct DeviceClaim {
    pub requests: Vec<DeviceRequest>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub constraints: Vec<DeviceConstraint>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub config: Vec<DeviceClaimConfiguration>,
}

/// `DeviceRequest`: exactly one of `exactly` and `firstAvailable` is set.
#[derive(Debug, Clone, Default, Deserialize, Serialize, PartialEq)]
#[serde(default, rename_all = "camelCase")]
pub struct DeviceRequest {
    pub name: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub exactly: Option<ExactDeviceRequest>,
    /// Prioritized alternatives (`DRAPrioritizedList`, beta and on in v1.35).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub first_available: Vec<DeviceSubRequest>,
}

/// `ExactDeviceRequest`: one or more identical devices of one class.
#[derive(Debug, Clone, Default, Deserialize, Serialize, PartialEq)]
#[serde(default, rename_all = "camelCase")]
pub struct ExactDeviceRequest {
    pub device_class_name: String,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub selectors: Vec<DeviceSelector>,
    /// `ExactCount` (the default when empty) or `All`.
    #[serde(skip_serializing_if = "String::is_empty")]
    pub allocation_mode: String,
    #[serde(skip_serializing_if = "is_zero_i64")]
    pub count: i64,
    /// `DRAAdminAccess` (beta and on in v1.35).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub admin_access: Option<bool>,
    /// `DRADeviceTaints` (alpha in v1.35).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub tolerations: Vec<DeviceToleration>,
    /// `DRAConsumableCapacity` (alpha in v1.35).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub capacity: Option<CapacityRequirements>,
}

/// `DeviceSubRequest`: one alternative of `firstAvailable` (no admin access).
#[derive(Debug, Clone, Default, Deserialize, Serialize, PartialEq)]
#[serde(default, rename_all = "camelCase")]
pub struct DeviceSubRequest {
    pub name: String,
    pub device_class_name: String,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub selectors: Vec<DeviceSelector>,
    #[serde(skip_serializing_if = "String::is_empty")]
    pub allocation_mode: String,
    #[serde(skip_serializing_if = "is_zero_i64")]
    pub count: i64,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub tolerations: Vec<DeviceToleration>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub capacity: Option<CapacityRequirements>,
}

/// `CapacityRequirements` (`DRAConsumableCapacity`).
#[derive(Debug, Clone, Default, Deserialize, Serialize, PartialEq)]
#[serde(default)]
pub struct CapacityRequirements {
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub requests: BTreeMap<String, QuantityStr>,
}

/// `DeviceToleration` (`DRADeviceTaints`); an empty operator means `Equal`.
#[derive(Debug, Clone, Default, Deserialize, Serialize, PartialEq)]
#[serde(default, rename_all = "camelCase")]
pub struct DeviceToleration {
    #[serde(skip_serializing_if = "String::is_empty")]
    pub key: String,
    #[serde(skip_serializing_if = "String::is_empty")]
    pub operator: String,
    #[serde(skip_serializing_if = "String::is_empty")]
    pub value: String,
    #[serde(skip_serializing_if = "String::is_empty")]
    pub effect: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub toleration_seconds: Option<i64>,
}

/// `DeviceConstraint`: besides `requests`, exactly one kind of constraint. `matchAttribute` is the
/// one v1.35 implements for its default gates; `distinctAttribute` belongs to
/// `DRAConsumableCapacity` (alpha).
#[derive(Debug, Clone, Default, Deserialize, Serialize, PartialEq)]
#[serde(default, rename_all = "camelCase")]
pub struct DeviceConstraint {
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub requests: Vec<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub match_attribute: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub distinct_attribute: Option<String>,
}

/// `DeviceClaimConfiguration`: a configuration (`DeviceConfiguration` inline, see
/// [`DeviceClassConfiguration`]) for some requests, or for all when `requests` is empty.
#[derive(Debug, Clone, Default, Deserialize, Serialize, PartialEq)]
#[serde(default)]
pub struct DeviceClaimConfiguration {
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub requests: Vec<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub opaque: Option<OpaqueDeviceConfiguration>,
}

/// `ResourceClaimStatus`.
#[derive(Debug, Clone, Default, Deserialize, Serialize, PartialEq)]
#[serde(default, rename_all = "camelCase")]
pub struct ResourceClaimStatus {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub allocation: Option<AllocationResult>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub reserved_for: Vec<ResourceClaimConsumerReference>,
    /// Written by drivers (`DRAResourceClaimDeviceStatus`); the scheduler reads the conditions
    /// only for binding conditions.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub devices: Vec<AllocatedDeviceStatus>,
}

/// `ResourceClaimConsumerReference`: a pod (in practice) the claim is reserved for.
#[derive(Debug, Clone, Default, Deserialize, Serialize, PartialEq, Eq)]
#[serde(default, rename_all = "camelCase")]
pub struct ResourceClaimConsumerReference {
    #[serde(skip_serializing_if = "String::is_empty")]
    pub api_group: String,
    pub resource: String,
    pub name: String,
    pub uid: String,
}

/// `AllocationResult`.
#[derive(Debug, Clone, Default, Deserialize, Serialize, PartialEq)]
#[serde(default, rename_all = "camelCase")]
pub struct AllocationResult {
    pub devices: DeviceAllocationResult,
    /// Where the allocated devices are available; `None` means on every node.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub node_selector: Option<NodeSelector>,
    /// `DRADeviceBindingConditions` + `DRAResourceClaimDeviceStatus` (alpha in v1.35).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub allocation_timestamp: Option<String>,
}

/// `DeviceAllocationResult`.
#[derive(Debug, Clone, Default, Deserialize, Serialize, PartialEq)]
#[serde(default)]
pub struct DeviceAllocationResult {
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub results: Vec<DeviceRequestAllocationResult>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub config: Vec<DeviceAllocationConfiguration>,
}

/// `DeviceRequestAllocationResult`: one allocated device and the request (`request` or
/// `request/subrequest`) it was allocated for.
#[derive(Debug, Clone, Default, Deserialize, Serialize, PartialEq)]
#[serde(default, rename_all = "camelCase")]
pub struct DeviceRequestAllocationResult {
    pub request: String,
    pub driver: String,
    pub pool: String,
    pub device: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub admin_access: Option<bool>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub tolerations: Vec<DeviceToleration>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub binding_conditions: Vec<String>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub binding_failure_conditions: Vec<String>,
    /// `DRAConsumableCapacity` (alpha in v1.35).
    #[serde(rename = "shareID", skip_serializing_if = "Option::is_none")]
    pub share_id: Option<String>,
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub consumed_capacity: BTreeMap<String, QuantityStr>,
}

/// `DeviceAllocationConfiguration`: a configuration copied from the class or the claim.
#[derive(Debug, Clone, Default, Deserialize, Serialize, PartialEq)]
#[serde(default)]
pub struct DeviceAllocationConfiguration {
    /// [`CONFIG_SOURCE_CLASS`] or [`CONFIG_SOURCE_CLAIM`].
    pub source: String,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub requests: Vec<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub opaque: Option<OpaqueDeviceConfiguration>,
}

/// `AllocatedDeviceStatus`, as a driver reports it.
#[derive(Debug, Clone, Default, Deserialize, Serialize, PartialEq)]
#[serde(default, rename_all = "camelCase")]
pub struct AllocatedDeviceStatus {
    pub driver: String,
    pub pool: String,
    pub device: String,
    #[serde(rename = "shareID", skip_serializing_if = "Option::is_none")]
    pub share_id: Option<String>,
    pub conditions: Vec<Condition>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub data: Option<serde_json::Value>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub network_data: Option<NetworkDeviceData>,
}

/// `NetworkDeviceData`.
#[derive(Debug, Clone, Default, Deserialize, Serialize, PartialEq)]
#[serde(default, rename_all = "camelCase")]
pub struct NetworkDeviceData {
    #[serde(skip_serializing_if = "String::is_empty")]
    pub interface_name: String,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub ips: Vec<String>,
    #[serde(skip_serializing_if = "String::is_empty")]
    pub hardware_address: String,
}

/// `metav1.Condition`.
#[derive(Debug, Clone, Default, Deserialize, Serialize, PartialEq)]
#[serde(default, rename_all = "camelCase")]
pub struct Condition {
    #[serde(rename = "type")]
    pub type_: String,
    pub status: String,
    #[serde(skip_serializing_if = "is_zero_i64")]
    pub observed_generation: i64,
    /// `metav1.Time`; Go writes a zero time as `null`.
    pub last_transition_time: Option<String>,
    pub reason: String,
    pub message: String,
}

/// `ResourceClaimTemplate` (namespaced): the claim the resourceclaim controller creates per pod.
#[derive(Debug, Clone, Default, Deserialize, Serialize, PartialEq)]
#[serde(default, rename_all = "camelCase")]
pub struct ResourceClaimTemplate {
    #[serde(skip_serializing_if = "String::is_empty")]
    pub kind: String,
    #[serde(skip_serializing_if = "String::is_empty")]
    pub api_version: String,
    pub metadata: ResourceObjectMeta,
    pub spec: ResourceClaimTemplateSpec,
}

/// `ResourceClaimTemplateSpec`: labels and annotations for the claim, and its spec.
#[derive(Debug, Clone, Default, Deserialize, Serialize, PartialEq)]
#[serde(default)]
pub struct ResourceClaimTemplateSpec {
    pub metadata: ResourceObjectMeta,
    pub spec: ResourceClaimSpec,
}

#[cfg(test)]
mod tests;
