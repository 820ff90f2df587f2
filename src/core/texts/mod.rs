//! Every text users read from the scheduler — filter reasons, PreFilter/PostFilter messages,
//! preemption texts, the gating message, event types/reasons/actions/notes, condition
//! types/reasons/messages — declared once, each with the upstream v1.35 source it is transcribed
//! from (paths under `kubernetes/kubernetes`, tag `v1.35.0`) or the reason it is edgesched's own.
//!
//! Why one place: operators grep events and alert on `FailedScheduling` notes, so these strings
//! are an interface. Upstream changes them now and then (PR #129887 reworded the volume node
//! affinity reason, PR #134740 dropped taint keys from the taint reason); with every text here,
//! [`ROWS`] lists what must be compared against a new upstream release, and `texts/tests.rs`
//! produces each row through the real code path (plugin, framework cycle, scheduler core or
//! event/condition builder) and compares it with the upstream string written out literally.
//!
//! Plugins, the cycle, the scheduler core and the shell use these constants and builders; a test
//! fails when one of the texts is written inline anywhere else under `src/`.
//!
//! Go's `%q` quoting is written as Rust's `{:?}`: both give `"name"` for the names Kubernetes
//! allows (DNS labels and subdomains, label keys), the only values quoted here.

#[cfg(test)]
mod tests;

/// Where a text surfaces.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// A Filter (or Reserve) rejection reason: counted per node in the FitError histogram.
    FilterReason,
    /// A PreFilter rejection: the whole FitError reason, without counts.
    PreFilter,
    /// A PostFilter message: appended to the FitError.
    PostFilter,
    /// A framework composition or error wrapper (`running ... plugin`), or the FitError frame.
    Framework,
    /// What holds a pod outside the active queue (PreEnqueue).
    Queue,
    /// `type` of an event.
    EventType,
    /// `reason` of an event.
    EventReason,
    /// `action` of an event.
    EventAction,
    /// `note` of an event.
    EventNote,
    /// `type` of a pod condition.
    ConditionType,
    /// `reason` of a pod condition.
    ConditionReason,
    /// `message` of a pod condition.
    ConditionMessage,
    /// A log message that stands where upstream records an event.
    Log,
}

/// Where a text comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Origin {
    /// Transcribed from upstream v1.35: file under `kubernetes/kubernetes` and the constant,
    /// function or call that writes it.
    Upstream { file: &'static str, at: &'static str },
    /// edgesched's own text, with the reason upstream has none.
    Own { why: &'static str },
}

/// One text: `text` is exact, or a template whose `{name}` parts are filled in by the builder
/// function of the same module.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Row {
    /// The test in `texts/tests.rs` that produces the text through the real code path.
    pub id: &'static str,
    pub kind: Kind,
    pub text: &'static str,
    pub origin: Origin,
}

/// Go's `%q` for the names quoted in these texts (see the module documentation).
fn q(s: &str) -> String {
    format!("{s:?}")
}

/// `utilerrors.NewAggregate(errs).Error()` (k8s.io/apimachinery/pkg/util/errors/errors.go):
/// one message as is; several, de-duplicated, joined by ", " inside brackets.
pub fn aggregate(errors: &[String]) -> String {
    let mut seen: Vec<&str> = Vec::new();
    for e in errors {
        if !seen.contains(&e.as_str()) {
            seen.push(e);
        }
    }
    match seen.as_slice() {
        [] => String::new(),
        [one] => (*one).to_string(),
        many => format!("[{}]", many.join(", ")),
    }
}

/// The FitError frame and the framework's error wrappers (pkg/scheduler/framework/types.go,
/// pkg/scheduler/framework/runtime/framework.go, pkg/scheduler/schedule_one.go).
pub mod framework {
    use super::q;

    /// `ErrNoNodesAvailable` (schedule_one.go).
    pub const NO_NODES_AVAILABLE: &str = "no nodes available to schedule pods";
    /// `fwk.ErrNotFound`: what reading a missing cycle-state entry reports.
    pub const STATE_NOT_FOUND: &str = "not found";
    /// `validation.NoteLengthLimit`: events.k8s.io notes are cut to this many bytes.
    pub const NOTE_LENGTH_LIMIT: usize = 1024;
    /// `truncateMessage`'s suffix (schedule_one.go).
    pub const NOTE_TRUNCATION_SUFFIX: &str = " ...";

    /// `NoNodeAvailableMsg` (types.go): the start of every FitError.
    pub fn nodes_available(num_all_nodes: usize) -> String {
        format!("0/{num_all_nodes} nodes are available")
    }

    /// RunPreFilterPlugins: a PreFilter plugin returned an error.
    pub fn prefilter_plugin_error(plugin: &str, err: &str) -> String {
        format!("running PreFilter plugin {}: {err}", q(plugin))
    }

    /// RunPreFilterPlugins: the one plugin restricting the node set left no node.
    pub fn didnt_satisfy_plugin(plugin: &str) -> String {
        format!("node(s) didn't satisfy plugin {plugin}")
    }

    /// RunPreFilterPlugins: the node sets of several plugins do not intersect (plugins in
    /// PreFilter order, `%v` of a string slice).
    pub fn didnt_satisfy_plugins_simultaneously(plugins: &[&str]) -> String {
        format!("node(s) didn't satisfy plugin(s) [{}] simultaneously", plugins.join(" "))
    }

    /// findNodesThatFitPod (schedule_one.go): the status of nodes PreFilter left out (plugins
    /// sorted, `sets.List`).
    pub fn didnt_satisfy_plugins(plugins: &[&str]) -> String {
        format!("node(s) didn't satisfy plugin(s) [{}]", plugins.join(" "))
    }

    /// RunFilterPlugins: a Filter plugin returned an error.
    pub fn filter_plugin_error(plugin: &str, err: &str) -> String {
        format!("running {} filter plugin: {err}", q(plugin))
    }

    /// RunScorePlugins: a Score plugin returned an error.
    pub fn score_plugin_error(plugin: &str, err: &str) -> String {
        format!("running Score plugins: plugin {} failed with: {err}", q(plugin))
    }

    /// RunScorePlugins: a normalised score outside [MinNodeScore, MaxNodeScore].
    pub fn invalid_score(plugin: &str, score: i64, min: i64, max: i64) -> String {
        format!(
            "applying score defaultWeights on Score plugins: plugin {} returns an invalid score {score}, it should in the range of [{min}, {max}] after normalizing",
            q(plugin)
        )
    }

    /// RunReservePluginsReserve: a Reserve plugin returned an error.
    pub fn reserve_plugin_error(plugin: &str, err: &str) -> String {
        format!("running Reserve plugin {}: {err}", q(plugin))
    }

    /// RunPermitPlugins: a Permit plugin returned an error.
    pub fn permit_plugin_error(plugin: &str, err: &str) -> String {
        format!("running Permit plugin {}: {err}", q(plugin))
    }

    /// newWaitingPod (waiting_pods_map.go): a plugin's wait ran out; `wait` as Go prints a
    /// `time.Duration`.
    pub fn permit_timeout(wait: &str, plugin: &str) -> String {
        format!("rejected due to timeout after waiting {wait} at plugin {plugin}")
    }

    /// RunPreBindPlugins: a PreBind plugin returned an error.
    pub fn prebind_plugin_error(plugin: &str, err: &str) -> String {
        format!("running PreBind plugin {}: {err}", q(plugin))
    }

    /// RunBindPlugins: the Bind plugin returned an error.
    pub fn bind_plugin_error(plugin: &str, err: &str) -> String {
        format!("running Bind plugin {}: {err}", q(plugin))
    }

    /// RunBindPlugins: every Bind plugin returned Skip.
    pub fn all_bind_plugins_skipped() -> String {
        "all bind plugins skipped".into()
    }
}

/// pkg/scheduler/framework/plugins/nodeunschedulable/node_unschedulable.go.
pub mod node_unschedulable {
    /// `ErrReasonUnschedulable`.
    pub const ERR_REASON_UNSCHEDULABLE: &str = "node(s) were unschedulable";
}

/// pkg/scheduler/framework/plugins/nodename/node_name.go.
pub mod node_name {
    /// `ErrReason`.
    pub const ERR_REASON: &str = "node(s) didn't match the requested node name";
}

/// pkg/scheduler/framework/plugins/tainttoleration/taint_toleration.go.
pub mod taint_toleration {
    /// `ErrReasonNotMatch` (since PR #134740 the reason no longer names the taint).
    pub const ERR_REASON_NOT_MATCH: &str = "node(s) had untolerated taint(s)";
}

/// pkg/scheduler/framework/plugins/nodeaffinity/node_affinity.go.
pub mod node_affinity {
    /// `ErrReasonPod`.
    pub const ERR_REASON_POD: &str = "node(s) didn't match Pod's node affinity/selector";
    /// `errReasonEnforced`.
    pub const ERR_REASON_ENFORCED: &str = "node(s) didn't match scheduler-enforced node affinity";
    /// `errReasonConflict` (PreFilter: the `metadata.name` terms select no node at all).
    pub const ERR_REASON_CONFLICT: &str = "pod affinity terms conflict";
}

/// pkg/scheduler/framework/plugins/nodeports/node_ports.go.
pub mod node_ports {
    /// `ErrReason`.
    pub const ERR_REASON: &str = "node(s) didn't have free ports for the requested pod ports";
}

/// pkg/scheduler/framework/plugins/noderesources/fit.go.
pub mod node_resources {
    /// `fitsRequest`: the node's pod slots are used up.
    pub const REASON_TOO_MANY_PODS: &str = "Too many pods";

    /// `fitsRequest`: the node lacks cpu.
    pub const INSUFFICIENT_CPU: &str = "Insufficient cpu";
    /// `fitsRequest`: the node lacks memory.
    pub const INSUFFICIENT_MEMORY: &str = "Insufficient memory";
    /// `fitsRequest`: the node lacks ephemeral storage.
    pub const INSUFFICIENT_EPHEMERAL_STORAGE: &str = "Insufficient ephemeral-storage";

    /// `fitsRequest`: `Insufficient <resource name>` for extended and other scalar resources.
    pub fn insufficient(resource: &str) -> String {
        format!("Insufficient {resource}")
    }

    /// edgesched's own: the pod's requests could not be parsed.
    pub fn pod_resources_error(err: &str) -> String {
        format!("pod resources: {err}")
    }
}

/// Texts the volume plugins share: the API's NotFound messages as the listers return them
/// (k8s.io/apimachinery/pkg/api/errors `NewNotFound`: `<resource> "<name>" not found`) and the
/// generic ephemeral volume ownership check.
pub mod storage {
    use super::q;

    /// A claim the pod references does not exist.
    pub fn pvc_not_found(name: &str) -> String {
        format!("persistentvolumeclaim {} not found", q(name))
    }

    /// A claim's volume does not exist.
    pub fn pv_not_found(name: &str) -> String {
        format!("persistentvolume {} not found", q(name))
    }

    /// A claim's storage class does not exist.
    pub fn storage_class_not_found(name: &str) -> String {
        format!("storageclass.storage.k8s.io {} not found", q(name))
    }

    /// A `persistentVolumeClaim` volume without a claim name (volumezone/volume_zone.go,
    /// nodevolumelimits/csi.go).
    pub const CLAIM_WITHOUT_NAME: &str = "PersistentVolumeClaim had no name";

    /// `ephemeral.VolumeIsForPod` (k8s.io/component-helpers/storage/ephemeral): the claim of a
    /// generic ephemeral volume belongs to another pod.
    pub fn ephemeral_not_owned(claim_namespace: &str, claim: &str, pod_namespace: &str, pod: &str) -> String {
        format!("PVC {claim_namespace}/{claim} was not created for pod {pod_namespace}/{pod} (pod is not owner)")
    }
}

/// pkg/scheduler/framework/plugins/volumerestrictions/volume_restrictions.go.
pub mod volume_restrictions {
    /// `ErrReasonDiskConflict`.
    pub const ERR_REASON_DISK_CONFLICT: &str = "node(s) had no available disk";
    /// `ErrReasonReadWriteOncePodConflict`.
    pub const ERR_REASON_RWOP_CONFLICT: &str =
        "node has pod using PersistentVolumeClaim with the same name and ReadWriteOncePod access mode";
}

/// pkg/scheduler/framework/plugins/nodevolumelimits/csi.go.
pub mod node_volume_limits {
    /// `ErrReasonMaxVolumeCountExceeded`.
    pub const ERR_REASON_MAX_VOLUME_COUNT_EXCEEDED: &str = "node(s) exceed max volume count";

    /// `filterAttachableVolumes`: a claim of the pod being scheduled is missing.
    pub fn looking_up_pvc(namespace: &str, claim: &str, err: &str) -> String {
        format!("looking up PVC {namespace}/{claim}: {err}")
    }
}

/// pkg/scheduler/framework/plugins/volumebinding/binder.go and volume_binding.go.
pub mod volume_binding {
    use super::q;

    /// `ErrReasonBindConflict`.
    pub const ERR_REASON_BIND_CONFLICT: &str = "node(s) didn't find available persistent volumes to bind";
    /// `ErrReasonNodeConflict` (reworded by PR #129887).
    pub const ERR_REASON_NODE_CONFLICT: &str = "node(s) didn't match PersistentVolume's node affinity";
    /// `ErrReasonPVNotExist`.
    pub const ERR_REASON_PV_NOT_EXIST: &str = "node(s) unavailable due to one or more pvc(s) bound to non-existent pv(s)";
    /// PreFilter: Immediate claims still wait for the PV controller.
    pub const ERR_REASON_UNBOUND_IMMEDIATE: &str = "pod has unbound immediate PersistentVolumeClaims";

    /// `podHasPVCs`: the claim of a generic ephemeral volume is not created yet.
    pub fn waiting_for_ephemeral_claim(claim: &str) -> String {
        format!("waiting for ephemeral volume controller to create the persistentvolumeclaim {}", q(claim))
    }

    /// `podHasPVCs`: a claim in phase Lost.
    pub fn claim_lost(claim: &str, volume: &str) -> String {
        format!("persistentvolumeclaim {} bound to non-existent persistentvolume {}", q(claim), q(volume))
    }

    /// `podHasPVCs`: a claim being deleted.
    pub fn claim_being_deleted(claim: &str) -> String {
        format!("persistentvolumeclaim {} is being deleted", q(claim))
    }

    /// `checkVolumeProvisions`: a claim to provision without a class (`namespace/name`).
    pub fn no_class_for_claim(claim_key: &str) -> String {
        format!("no class for claim {}", q(claim_key))
    }

    /// `checkVolumeProvisions`: a claim to provision whose class is gone.
    pub fn storage_class_missing(class: &str) -> String {
        format!("failed to find storage class {}", q(class))
    }
}

/// pkg/scheduler/framework/plugins/volumezone/volume_zone.go.
pub mod volume_zone {
    /// `ErrReasonConflict`.
    pub const ERR_REASON_CONFLICT: &str = "node(s) had no available volume zone";
    /// `getPVbyPod`: an unbound claim without a class.
    pub const CLAIM_WITHOUT_VOLUME_OR_CLASS: &str = "PersistentVolumeClaim had no pv name and storageClass name";
    /// `getPVbyPod`: an unbound claim of an Immediate class.
    pub const VOLUME_WITHOUT_NAME: &str = "PersistentVolume had no name";
}

/// pkg/scheduler/framework/plugins/podtopologyspread/{common,filtering,scoring}.go.
pub mod pod_topology_spread {
    /// `ErrReasonConstraintsNotMatch`.
    pub const ERR_REASON_CONSTRAINTS_NOT_MATCH: &str = "node(s) didn't match pod topology spread constraints";
    /// `ErrReasonNodeLabelNotMatch` (= `ErrReasonConstraintsNotMatch + " (missing required label)"`).
    pub const ERR_REASON_NODE_LABEL_NOT_MATCH: &str =
        "node(s) didn't match pod topology spread constraints (missing required label)";
    /// filtering.go `getPreFilterState`: Filter without PreFilter state.
    pub const PRE_FILTER_STATE_MISSING: &str = "reading \"PreFilterPodTopologySpread\" from cycleState: not found";
    /// scoring.go `getPreScoreState`: Score without PreScore state.
    pub const PRE_SCORE_STATE_MISSING: &str = "error reading \"PreScorePodTopologySpread\" from cycleState: not found";

    /// filtering.go `calPreFilterState`: the pod's constraints cannot be read.
    pub fn constraints_error(err: &str) -> String {
        format!("get constraints from pod: {err}")
    }
}

/// pkg/scheduler/framework/plugins/interpodaffinity/{plugin,filtering,scoring}.go.
pub mod inter_pod_affinity {
    /// `ErrReasonExistingAntiAffinityRulesNotMatch`.
    pub const ERR_REASON_EXISTING_ANTI_AFFINITY_RULES_NOT_MATCH: &str =
        "node(s) didn't satisfy existing pods anti-affinity rules";
    /// `ErrReasonAffinityRulesNotMatch`.
    pub const ERR_REASON_AFFINITY_RULES_NOT_MATCH: &str = "node(s) didn't match pod affinity rules";
    /// `ErrReasonAntiAffinityRulesNotMatch`.
    pub const ERR_REASON_ANTI_AFFINITY_RULES_NOT_MATCH: &str = "node(s) didn't match pod anti-affinity rules";
    /// filtering.go `getPreFilterState`: Filter without PreFilter state.
    pub const PRE_FILTER_STATE_MISSING: &str = "error reading \"PreFilterInterPodAffinity\" from cycleState: not found";
    /// scoring.go `getPreScoreState`: Score without PreScore state.
    pub const PRE_SCORE_STATE_MISSING: &str = "failed to read \"PreScoreInterPodAffinity\" from cycleState: not found";

    /// filtering.go PreFilter: the pod's affinity terms do not parse (`framework.NewPodInfo`'s
    /// aggregate of `<list>: <error>` messages).
    pub fn parsing_pod(errors: &[String]) -> String {
        format!("parsing pod: {}", super::aggregate(errors))
    }
}

/// pkg/scheduler/framework/plugins/dynamicresources/dynamicresources.go, with what it quotes from
/// `k8s.io/dynamic-resource-allocation/resourceclaim` (resourceclaim.go) and the claims' assume
/// cache (`pkg/scheduler/util/assumecache`). `claim` is `klog.KObj` of a claim (`namespace/name`).
pub mod dynamic_resources {
    use super::q;

    /// PostFilter for a pod without claims (why FailedScheduling notes read
    /// `... no new claims to deallocate, preemption: ...`).
    pub const NO_NEW_CLAIMS_TO_DEALLOCATE: &str = "no new claims to deallocate";
    /// PostFilter: a claim allocated elsewhere was deallocated so the pod can try again.
    pub const DEALLOCATION_COMPLETED: &str = "deallocation of ResourceClaim completed";
    /// PostFilter: nothing could be deallocated.
    pub const STILL_NOT_SCHEDULABLE: &str = "still not schedulable";
    /// Filter: the allocator found no devices for all claims on the node.
    pub const CANNOT_ALLOCATE_ALL_CLAIMS: &str = "cannot allocate all claims";
    /// Filter: an allocated claim's node selector does not match the node.
    pub const NOT_AVAILABLE_ON_NODE: &str = "resourceclaim not available on the node";
    /// Filter: the search for devices on one node ran past `filterTimeout`.
    pub const TIMED_OUT: &str = "timed out trying to allocate devices";
    /// Reserve: Filter's allocation for the chosen node is missing.
    pub const ALLOCATION_NOT_FOUND: &str = "claim allocation not found for node";
    /// The assume cache's description of claims (`NewAssumeCache(..., "ResourceClaim", ...)`).
    pub const CLAIM_DESCRIPTION: &str = "ResourceClaim";

    /// PreFilter: another pod's allocation of the claim is between Reserve and PreBind.
    pub fn being_allocated(claim: &str) -> String {
        format!("resource claim {claim} is in the process of being allocated")
    }
    /// PreFilter (`validateDeviceClass`): the request names a class that does not exist.
    pub fn class_missing(request: &str, class: &str) -> String {
        format!("request {request}: device class {class} does not exist")
    }
    /// PreFilter (`validateDeviceClass`): a request without a class name.
    pub fn unsupported_request_type(request: &str) -> String {
        format!("request {request}: unsupported request type")
    }
    /// PreFilter: `firstAvailable` while DRAPrioritizedList is off.
    pub fn subrequests_disabled(claim: &str, request: &str) -> String {
        format!("resource claim {claim}, request {request}: has subrequests, but the DRAPrioritizedList feature is disabled")
    }
    /// PreFilter: neither `exactly` nor `firstAvailable`.
    pub fn unknown_request_type(claim: &str, request: &str) -> String {
        format!("resource claim {claim}, request {request}: unknown request type")
    }
    /// Score (`computeScore`): fewer allocations than claims (a pod with allocated and
    /// unallocated claims).
    pub fn fewer_allocations_than_claims(allocations: usize) -> String {
        format!("number of allocations {allocations} is smaller than number of claims")
    }
    /// Reserve: Filter's allocations do not match the claims to allocate.
    pub fn allocation_count_mismatch(have: usize, to_allocate: usize, want: usize) -> String {
        format!("internal error, have {have} allocations, {to_allocate} claims to allocate, want {want} claims")
    }
    /// PreEnqueue (`foreachPodResourceClaim`): the claim is being deleted.
    pub fn being_deleted(name: &str) -> String {
        format!("resourceclaim {} is being deleted", q(name))
    }
    /// PreEnqueue (`resourceclaim.Name`, `ErrClaimNotFound`): the controller has not made the
    /// pod's claim from its template yet.
    pub fn claim_not_created(pod_namespace: &str, pod_name: &str) -> String {
        format!("pod \"{pod_namespace}/{pod_name}\": ResourceClaim not created yet")
    }
    /// PreEnqueue (`resourceclaim.Name`, `ErrAPIUnsupported`): a pod claim without a source.
    pub fn api_unsupported(pod_namespace: &str, pod_name: &str, pod_claim: &str) -> String {
        format!("pod \"{pod_namespace}/{pod_name}\", spec.resourceClaim {}: none of the supported fields are set", q(pod_claim))
    }
    /// PreEnqueue (`resourceclaim.IsForPod`): a generated claim another pod owns.
    pub fn not_owner(claim_namespace: &str, claim_name: &str, pod_namespace: &str, pod_name: &str) -> String {
        format!(
            "ResourceClaim {claim_namespace}/{claim_name} was not created for pod {pod_namespace}/{pod_name} (pod is not owner)"
        )
    }
    /// PreEnqueue: the claim does not exist (the assume cache's `NotFoundError`).
    pub fn claim_not_found(key: &str) -> String {
        format!("could not find {CLAIM_DESCRIPTION} {}", q(key))
    }
    /// The assume cache refuses to keep a version older than its latest.
    pub fn claim_out_of_sync(key: &str, stored: i64, assumed: i64) -> String {
        format!("{CLAIM_DESCRIPTION} {} is out of sync (stored: {stored}, assume: {assumed})", q(key))
    }
    /// The assume cache cannot compare a resourceVersion that is not an integer.
    pub fn claim_version_unreadable(key: &str, version: &str) -> String {
        format!(
            "error parsing ResourceVersion {} for {CLAIM_DESCRIPTION} {}: strconv.ParseInt: parsing {}: invalid syntax",
            q(version),
            q(key),
            q(version)
        )
    }
    /// PreBind (`bindClaim`): the claim got a deletion timestamp.
    pub fn claim_deleted_meanwhile(claim: &str) -> String {
        format!("claim {claim} got deleted in the meantime")
    }
    /// PreBind (`bindClaim`): someone else allocated the claim first.
    pub fn claim_allocated_elsewhere(claim: &str) -> String {
        format!("claim {claim} got allocated elsewhere in the meantime")
    }
    /// PreBind (`bindClaim`): the finalizer update failed.
    pub fn add_finalizer_failed(claim: &str, err: &str) -> String {
        format!("add finalizer to claim {claim}: {err}")
    }
    /// PreBind (`bindClaim`): the status update with an allocation failed.
    pub fn add_allocation_failed(claim: &str, err: &str) -> String {
        format!("add allocation and reservation to claim {claim}: {err}")
    }
    /// PreBind (`bindClaim`): the status update of an allocated claim failed.
    pub fn add_reservation_failed(claim: &str, err: &str) -> String {
        format!("add reservation to claim {claim}: {err}")
    }
    /// PreBind (`bindClaim`): reading the claim again after a conflict failed.
    pub fn refresh_after_conflict_failed(claim: &str, err: &str) -> String {
        format!("get updated claim {claim} after conflict: {err}")
    }
    /// edgesched's own: the `resource.k8s.io` kinds cannot be read (RBAC forbids them, or the
    /// API server does not serve them), so claims cannot be looked at.
    pub fn unreadable(resources: &[&str]) -> String {
        format!(
            "the resource.k8s.io/v1 kinds {} cannot be read (forbidden by RBAC or not served by the API server); pods with resource claims wait until the scheduler may list and watch them",
            resources.join(", ")
        )
    }
}

/// staging/src/k8s.io/dynamic-resource-allocation/structured (allocator.go and the stable
/// implementation v1.35 selects, internal/stable/allocator_stable.go and pools_stable.go): the
/// structured allocator's errors. `claim` is `klog.KObj` of the claim (`namespace/name`).
pub mod dra_allocator {
    /// `ErrFailedAllocationOnNode` with its reason: only this node fails.
    pub const INVALID_POOLS: &str = "invalid resource pools were encountered";
    /// The context's cause when the Filter time limit ran out (`context.DeadlineExceeded`).
    pub const ABORTED: &str = "filter operation aborted: context deadline exceeded";

    /// Where a CEL selector comes from.
    #[derive(Debug, Clone, Copy, PartialEq, Eq)]
    pub enum SelectorOwner<'a> {
        Class(&'a str),
        Claim(&'a str),
    }

    impl std::fmt::Display for SelectorOwner<'_> {
        fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            match self {
                SelectorOwner::Class(name) => write!(f, "class {name}"),
                SelectorOwner::Claim(name) => write!(f, "claim {name}"),
            }
        }
    }

    pub fn subrequests_disabled(claim: &str, request: &str) -> String {
        format!("claim {claim}, request {request}: has subrequests, but the DRAPrioritizedList feature is disabled")
    }
    pub fn too_many_devices(claim: &str, devices: i64, max: usize) -> String {
        format!("claim {claim}: number of requested devices {devices} exceeds the claim limit of {max}")
    }
    pub fn empty_constraint(claim: &str, index: usize) -> String {
        format!("claim {claim}, constraint #{index}: empty constraint (unsupported constraint type?)")
    }
    pub fn empty_selector(claim: &str, request: &str, index: usize) -> String {
        format!("claim {claim}, request {request}, selector #{index}: CEL expression empty (unsupported selector type?)")
    }
    pub fn admin_access_disabled(claim: &str, request: &str) -> String {
        format!("claim {claim}, request {request}: admin access is requested, but the feature is disabled")
    }
    pub fn missing_class_name(claim: &str, request: &str) -> String {
        format!("claim {claim}, request {request}: missing device class name (unsupported request type?)")
    }
    /// The lister's NotFound (`errors.NewNotFound(resource.Resource("deviceclass"), name)`).
    pub fn class_not_found(claim: &str, request: &str, class: &str) -> String {
        format!("claim {claim}, request {request}: could not retrieve device class {class}: deviceclass.resource.k8s.io {class:?} not found")
    }
    pub fn all_devices_pool_incomplete(claim: &str, request: &str, pool: &str) -> String {
        format!("claim {claim}, request {request}: asks for all devices, but resource pool {pool} is currently being updated")
    }
    pub fn all_devices_pool_invalid(claim: &str, request: &str, pool: &str) -> String {
        format!("claim {claim}, request {request}: asks for all devices, but resource pool {pool} is currently invalid")
    }
    pub fn unsupported_count_mode(claim: &str, request: &str, mode: &str) -> String {
        format!("claim {claim}, request {request}: unsupported count mode {mode}")
    }
    pub fn cel_compile_error(owner: SelectorOwner<'_>, index: usize, error: &str) -> String {
        format!("{owner}: selector #{index}: CEL compile error: {error}")
    }
    pub fn cel_runtime_error(owner: SelectorOwner<'_>, index: usize, error: &str) -> String {
        format!("{owner}: selector #{index}: CEL runtime error: {error}")
    }
    /// edgesched's own: a class selector without `cel` (upstream dereferences it and panics).
    pub fn class_selector_without_cel(class: &str, index: usize) -> String {
        format!("class {class}: selector #{index}: CEL expression empty (unsupported selector type?)")
    }
    pub fn constraint_not_satisfied(claim: &str, request: &str, device: &str) -> String {
        format!("claim {claim}, request {request}: cannot add device {device} because a claim constraint would not be satisfied")
    }
    /// `claim` is the claim's name only here (`claim.Name`).
    pub fn node_selector_terms(claim: &str, terms: usize) -> String {
        format!("create NodeSelector for claim {claim}: unsupported ResourceSlice.NodeSelector with {terms} terms")
    }
    /// A slice's node selector does not parse (upstream prints the selector's Go form where the
    /// parse error's field path stands here).
    pub fn gather_slice(slice: &str, error: &str) -> String {
        format!(
            "gather pool information: failed to perform node selection for slice {slice}: failed to parse node selector: {error}"
        )
    }
    pub fn gather_device(slice: &str, device: &str, error: &str) -> String {
        format!(
            "gather pool information: failed to perform node selection for device {device} in slice {slice}: failed to parse node selector: {error}"
        )
    }
    /// `DeviceMatches` (dynamic-resource-allocation/cel/compile.go): an attribute with no value
    /// (`getAttributeValue`); `name` is the attribute's name.
    pub fn unsupported_attribute_value(name: &str) -> String {
        format!("attribute {name}: unsupported attribute value")
    }
    /// A device's node selector does not parse while checking a request against it.
    pub fn device_node_selector(error: &str) -> String {
        format!("failed to parse node selector: {error}")
    }
    /// edgesched's own: features whose allocator implementation edgesched does not have.
    pub fn unsupported_features(features: &[&str]) -> String {
        format!(
            "the structured allocator of edgesched does not implement the alpha features {} (enabled by feature gates); disable them to schedule pods with resource claims",
            features.join(", ")
        )
    }
}

/// pkg/scheduler/framework/plugins/gangscheduling/gangscheduling.go (v1.35: the Workload and
/// `pod.spec.workloadRef` version).
pub mod gang_scheduling {
    use super::q;

    /// PreEnqueue: the pod's Workload does not exist (upstream's "pods's", as written).
    pub fn waiting_for_workload(workload: &str) -> String {
        format!("waiting for pods's workload {} to appear in scheduling queue", q(workload))
    }

    /// PreEnqueue and Permit: the Workload declares no such pod group.
    pub fn no_pod_group(pod_group: &str, workload: &str) -> String {
        format!("pod group {} doesn't exist for a workload {}", q(pod_group), q(workload))
    }

    /// PreEnqueue: fewer than `minCount` pods of the gang exist.
    pub const WAITING_FOR_MIN_COUNT: &str = "waiting for minCount pods from a gang to appear in scheduling queue";

    /// Permit: the Workload went away after the pod was queued (the lister's NotFound, wrapped).
    pub fn workload_gone(namespace: &str, name: &str) -> String {
        format!("failed to get workload {namespace}/{name}: workload.scheduling.k8s.io {} not found", q(name))
    }
}

/// pkg/scheduler/framework/plugins/schedulinggates/scheduling_gates.go.
pub mod scheduling_gates {
    /// PreEnqueue: the gates still on the pod (`%v` of a string slice).
    pub fn waiting_for_gates(gates: &[&str]) -> String {
        format!("waiting for scheduling gates: [{}]", gates.join(" "))
    }
}

/// pkg/scheduler/framework/plugins/defaultpreemption/default_preemption.go and
/// pkg/scheduler/framework/preemption/preemption.go.
pub mod preemption {
    use super::q;

    /// PostFilter: every message of DefaultPreemption starts so.
    pub fn prefixed(message: &str) -> String {
        format!("preemption: {message}")
    }

    /// `PodEligibleToPreemptOthers`: `preemptionPolicy: Never`.
    pub const NOT_ELIGIBLE_POLICY_NEVER: &str = "not eligible due to preemptionPolicy=Never.";
    /// `PodEligibleToPreemptOthers`: a victim of an earlier preemption is still terminating.
    pub const NOT_ELIGIBLE_TERMINATING: &str = "not eligible due to a terminating pod on the nominated node.";
    /// `Preempt`: the status of nodes no eviction can help.
    pub const NOT_HELPFUL: &str = "Preemption is not helpful for scheduling";
    /// `SelectVictimsOnNode`: no pod of lower priority on the node.
    pub const NO_VICTIMS: &str = "No preemption victims found for incoming pod";
    /// `Preempt`: the extenders left no candidate node.
    pub const NO_CANDIDATE: &str = "no candidate node for preemption";

    /// `dryRunPreemption`: the pod fits without evicting anyone (should not happen).
    pub fn no_victim_on_node(node: &str) -> String {
        format!("expected at least one victim pod on node {}", q(node))
    }
}

/// Errors about HTTP extenders (pkg/scheduler/extender.go; the node lookup of
/// pkg/scheduler/backend/cache/snapshot.go). They surface as `SchedulerError` messages.
pub mod extender {
    use super::q;

    /// `HTTPExtender.send`: the extender answered with another status than 200.
    pub fn http_status(verb: &str, url: &str, code: u16) -> String {
        format!("failed {verb} with extender at URL {url}, code {code}")
    }

    /// `HTTPExtender.Filter`: the extender kept a node it was not offered.
    pub fn unknown_filtered_node(extender: &str, node: &str) -> String {
        format!("extender {} claims a filtered node {} which is not found in the input node list", q(extender), q(node))
    }

    /// `Snapshot.Get` (via `convertToVictims`): the extender named a node the scheduler does not know.
    pub fn node_info_not_found(node: &str) -> String {
        format!("nodeinfo not found for node name {}", q(node))
    }

    /// `convertPodUIDToPod`: the extender named a victim that is not on that node (Go prints the
    /// `*MetaPod` as `&{UID}`).
    pub fn victim_not_on_node(extender: &str, uid: &str, node: &str) -> String {
        format!(
            "extender: {extender} claims to preempt pod (UID: &{{{uid}}}) on node: {node}, but the pod is not found on that node"
        )
    }
}

/// Events (k8s.io/api/core/v1 event types; reasons, actions and notes as schedule_one.go and
/// preemption.go record them).
pub mod events {
    use super::q;

    /// `v1.EventTypeNormal`.
    pub const TYPE_NORMAL: &str = "Normal";
    /// `v1.EventTypeWarning`.
    pub const TYPE_WARNING: &str = "Warning";
    /// handleSchedulingFailure / skipPodSchedule.
    pub const REASON_FAILED_SCHEDULING: &str = "FailedScheduling";
    /// handleSchedulingFailure / skipPodSchedule.
    pub const ACTION_SCHEDULING: &str = "Scheduling";
    /// bindingCycle.
    pub const REASON_SCHEDULED: &str = "Scheduled";
    /// bindingCycle.
    pub const ACTION_BINDING: &str = "Binding";
    /// preemption.go, on each victim.
    pub const REASON_PREEMPTED: &str = "Preempted";
    /// preemption.go, on each victim.
    pub const ACTION_PREEMPTING: &str = "Preempting";
    /// edgesched's own: a pending pod names a scheduler nobody runs.
    pub const REASON_NO_SCHEDULER_FOR_NAME: &str = "NoSchedulerForName";
    /// client-go leaderelection/resourcelock `RecordEvent`, on the Lease.
    pub const REASON_LEADER_ELECTION: &str = "LeaderElection";

    /// client-go leaderelection: `<identity> became leader` (`RecordEvent("became leader")`).
    pub fn became_leader(identity: &str) -> String {
        format!("{identity} became leader")
    }

    /// bindingCycle: the `Scheduled` note.
    pub fn scheduled(namespace: &str, name: &str, node: &str) -> String {
        format!("Successfully assigned {namespace}/{name} to {node}")
    }

    /// preemption.go: the `Preempted` note on a victim.
    pub fn preempted(preemptor_uid: &str, node: &str) -> String {
        format!("Preempted by pod {preemptor_uid} on node {node}")
    }

    /// skipPodSchedule: a pod popped while being deleted.
    pub fn skip_deleting_pod(namespace: &str, name: &str) -> String {
        format!("skip schedule deleting pod: {namespace}/{name}")
    }

    /// edgesched's own: the `NoSchedulerForName` note, with a suggestion when a running
    /// scheduler's name is close.
    pub fn no_scheduler_for_name(scheduler_name: &str, suggestion: Option<&str>, running: &[String]) -> String {
        let hint = suggestion.map(|s| format!(" (did you mean {}?)", q(s))).unwrap_or_default();
        let running = if running.is_empty() { "none seen".to_string() } else { running.join(", ") };
        format!("no running scheduler serves schedulerName {}{hint}; running schedulers: {running}", q(scheduler_name))
    }
}

/// Pod conditions (k8s.io/api/core/v1 types.go; schedule_one.go, preemption.go).
pub mod conditions {
    /// `v1.PodScheduled`.
    pub const POD_SCHEDULED: &str = "PodScheduled";
    /// `v1.PodReasonUnschedulable`.
    pub const REASON_UNSCHEDULABLE: &str = "Unschedulable";
    /// `v1.PodReasonSchedulerError`.
    pub const REASON_SCHEDULER_ERROR: &str = "SchedulerError";
    /// `v1.DisruptionTarget`, set on preemption victims.
    pub const DISRUPTION_TARGET: &str = "DisruptionTarget";
    /// `v1.PodReasonPreemptionByScheduler`.
    pub const REASON_PREEMPTION_BY_SCHEDULER: &str = "PreemptionByScheduler";
    /// `v1.PodResizePending`: the kubelet has not admitted a resize yet (reason below).
    pub const POD_RESIZE_PENDING: &str = "PodResizePending";
    /// `v1.PodResizeInProgress`: a resize is admitted and being actuated.
    pub const POD_RESIZE_IN_PROGRESS: &str = "PodResizeInProgress";
    /// `v1.PodReasonInfeasible`: the node can never fit the resize.
    pub const REASON_INFEASIBLE: &str = "Infeasible";
    /// `v1.PodReasonDeferred`: the node cannot fit the resize now.
    pub const REASON_DEFERRED: &str = "Deferred";

    /// preemption.go: the DisruptionTarget message (the preemptor's scheduler name).
    pub fn preempting(scheduler_name: &str) -> String {
        format!("{scheduler_name}: preempting to accommodate a higher priority pod")
    }
}

/// Pods whose spec the scheduler cannot work with.
pub mod pod_spec {
    /// edgesched's own: the FailedScheduling note (and condition message) of such a pod.
    pub fn cannot_be_scheduled(reason: &str) -> String {
        format!("pod spec cannot be scheduled: {reason}")
    }

    /// edgesched's own: why a listed pod was skipped (inside [`cannot_be_scheduled`]).
    pub fn undecodable(error: &str) -> String {
        format!("cannot decode the pod: {error}")
    }

    /// plugin/pkg/admission/priority/admission.go: a `priorityClassName` without a class.
    pub fn no_priority_class(name: &str) -> String {
        format!("no PriorityClass with name {name} was found")
    }
}

/// Log messages that stand where upstream records an event.
pub mod logs {
    /// edgesched's own: a binding answered 409 because the pod is bound already.
    pub const BOUND_ELSEWHERE: &str = "Pod was bound elsewhere; forgetting it";
}

const TYPES_GO: &str = "pkg/scheduler/framework/types.go";
const FRAMEWORK_GO: &str = "pkg/scheduler/framework/runtime/framework.go";
const SCHEDULE_ONE_GO: &str = "pkg/scheduler/schedule_one.go";
const GANG_GO: &str = "pkg/scheduler/framework/plugins/gangscheduling/gangscheduling.go";
const FIT_GO: &str = "pkg/scheduler/framework/plugins/noderesources/fit.go";
const BINDER_GO: &str = "pkg/scheduler/framework/plugins/volumebinding/binder.go";
const VOLUME_BINDING_GO: &str = "pkg/scheduler/framework/plugins/volumebinding/volume_binding.go";
const VOLUME_ZONE_GO: &str = "pkg/scheduler/framework/plugins/volumezone/volume_zone.go";
const CSI_GO: &str = "pkg/scheduler/framework/plugins/nodevolumelimits/csi.go";
const RESTRICTIONS_GO: &str = "pkg/scheduler/framework/plugins/volumerestrictions/volume_restrictions.go";
const PTS_COMMON_GO: &str = "pkg/scheduler/framework/plugins/podtopologyspread/common.go";
const PTS_FILTERING_GO: &str = "pkg/scheduler/framework/plugins/podtopologyspread/filtering.go";
const PTS_SCORING_GO: &str = "pkg/scheduler/framework/plugins/podtopologyspread/scoring.go";
const IPA_PLUGIN_GO: &str = "pkg/scheduler/framework/plugins/interpodaffinity/plugin.go";
const IPA_FILTERING_GO: &str = "pkg/scheduler/framework/plugins/interpodaffinity/filtering.go";
const IPA_SCORING_GO: &str = "pkg/scheduler/framework/plugins/interpodaffinity/scoring.go";
const NODE_AFFINITY_GO: &str = "pkg/scheduler/framework/plugins/nodeaffinity/node_affinity.go";
const DRA_GO: &str = "pkg/scheduler/framework/plugins/dynamicresources/dynamicresources.go";
const RESOURCECLAIM_GO: &str = "staging/src/k8s.io/dynamic-resource-allocation/resourceclaim/resourceclaim.go";
const ASSUME_CACHE_GO: &str = "pkg/scheduler/util/assumecache/assume_cache.go";
const DRA_STABLE_GO: &str = "staging/src/k8s.io/dynamic-resource-allocation/structured/internal/stable/allocator_stable.go";
const DRA_POOLS_GO: &str = "staging/src/k8s.io/dynamic-resource-allocation/structured/internal/stable/pools_stable.go";
const DEFAULT_PREEMPTION_GO: &str = "pkg/scheduler/framework/plugins/defaultpreemption/default_preemption.go";
const PREEMPTION_GO: &str = "pkg/scheduler/framework/preemption/preemption.go";
const WAITING_PODS_GO: &str = "pkg/scheduler/framework/runtime/waiting_pods_map.go";
const EXTENDER_GO: &str = "pkg/scheduler/extender.go";
const SNAPSHOT_GO: &str = "pkg/scheduler/backend/cache/snapshot.go";
const CORE_V1_TYPES_GO: &str = "staging/src/k8s.io/api/core/v1/types.go";
const API_ERRORS_GO: &str = "staging/src/k8s.io/apimachinery/pkg/api/errors/errors.go";
const LEASELOCK_GO: &str = "staging/src/k8s.io/client-go/tools/leaderelection/resourcelock/leaselock.go";
const LEADERELECTION_GO: &str = "staging/src/k8s.io/client-go/tools/leaderelection/leaderelection.go";
const EPHEMERAL_GO: &str = "staging/src/k8s.io/component-helpers/storage/ephemeral/ephemeral.go";

const fn up(id: &'static str, kind: Kind, text: &'static str, file: &'static str, at: &'static str) -> Row {
    Row { id, kind, text, origin: Origin::Upstream { file, at } }
}

const fn own(id: &'static str, kind: Kind, text: &'static str, why: &'static str) -> Row {
    Row { id, kind, text, origin: Origin::Own { why } }
}

use Kind::*;

/// The table: every text, its kind and origin. Templates use `{name}` for what is filled in;
/// `{plugin:?}` and the like mark Go's `%q`.
pub const ROWS: &[Row] = &[
    // The FitError and the framework.
    up("fit_error_frame", Framework, "0/{nodes} nodes are available: {prefilter}. {histogram}. {postfilter}", TYPES_GO, "NoNodeAvailableMsg, FitError.Error"),
    up("no_nodes_available", Framework, framework::NO_NODES_AVAILABLE, SCHEDULE_ONE_GO, "ErrNoNodesAvailable"),
    up("prefilter_plugin_error", Framework, "running PreFilter plugin {plugin:?}: {err}", FRAMEWORK_GO, "RunPreFilterPlugins"),
    up("prefilter_didnt_satisfy_plugin", PreFilter, "node(s) didn't satisfy plugin {plugin}", FRAMEWORK_GO, "RunPreFilterPlugins"),
    up("prefilter_didnt_satisfy_plugins_simultaneously", PreFilter, "node(s) didn't satisfy plugin(s) [{plugins}] simultaneously", FRAMEWORK_GO, "RunPreFilterPlugins"),
    up("absent_nodes_didnt_satisfy_plugins", FilterReason, "node(s) didn't satisfy plugin(s) [{plugins}]", SCHEDULE_ONE_GO, "findNodesThatFitPod"),
    up("filter_plugin_error", Framework, "running {plugin:?} filter plugin: {err}", FRAMEWORK_GO, "RunFilterPlugins"),
    up("score_plugin_error", Framework, "running Score plugins: plugin {plugin:?} failed with: {err}", FRAMEWORK_GO, "RunScorePlugins"),
    up("invalid_score", Framework, "applying score defaultWeights on Score plugins: plugin {plugin:?} returns an invalid score {score}, it should in the range of [0, 100] after normalizing", FRAMEWORK_GO, "RunScorePlugins"),
    up("reserve_plugin_error", Framework, "running Reserve plugin {plugin:?}: {err}", FRAMEWORK_GO, "RunReservePluginsReserve"),
    up("permit_plugin_error", Framework, "running Permit plugin {plugin:?}: {err}", FRAMEWORK_GO, "RunPermitPlugins"),
    up("permit_timeout", FilterReason, "rejected due to timeout after waiting {wait} at plugin {plugin}", WAITING_PODS_GO, "newWaitingPod"),
    up("prebind_plugin_error", Framework, "running PreBind plugin {plugin:?}: {err}", FRAMEWORK_GO, "RunPreBindPlugins"),
    up("bind_plugin_error", Framework, "running Bind plugin {plugin:?}: {err}", FRAMEWORK_GO, "RunBindPlugins"),
    up("note_truncation", EventNote, "{first 1020 bytes of the message} ...", SCHEDULE_ONE_GO, "truncateMessage"),
    // Filter plugins.
    up("node_unschedulable", FilterReason, node_unschedulable::ERR_REASON_UNSCHEDULABLE, "pkg/scheduler/framework/plugins/nodeunschedulable/node_unschedulable.go", "ErrReasonUnschedulable"),
    up("node_name", FilterReason, node_name::ERR_REASON, "pkg/scheduler/framework/plugins/nodename/node_name.go", "ErrReason"),
    up("taint_toleration", FilterReason, taint_toleration::ERR_REASON_NOT_MATCH, "pkg/scheduler/framework/plugins/tainttoleration/taint_toleration.go", "ErrReasonNotMatch"),
    up("node_affinity_pod", FilterReason, node_affinity::ERR_REASON_POD, NODE_AFFINITY_GO, "ErrReasonPod"),
    up("node_affinity_enforced", FilterReason, node_affinity::ERR_REASON_ENFORCED, NODE_AFFINITY_GO, "errReasonEnforced"),
    up("node_affinity_conflict", PreFilter, node_affinity::ERR_REASON_CONFLICT, NODE_AFFINITY_GO, "errReasonConflict"),
    up("node_ports", FilterReason, node_ports::ERR_REASON, "pkg/scheduler/framework/plugins/nodeports/node_ports.go", "ErrReason"),
    up("too_many_pods", FilterReason, node_resources::REASON_TOO_MANY_PODS, FIT_GO, "fitsRequest"),
    up("insufficient_resource", FilterReason, "Insufficient {resource}", FIT_GO, "fitsRequest"),
    own("pod_resources_error", Framework, "pod resources: {err}", "upstream's API server rejects unparsable quantities; edgesched reads raw JSON and reports them"),
    up("disk_conflict", FilterReason, volume_restrictions::ERR_REASON_DISK_CONFLICT, RESTRICTIONS_GO, "ErrReasonDiskConflict"),
    up("read_write_once_pod_conflict", FilterReason, volume_restrictions::ERR_REASON_RWOP_CONFLICT, RESTRICTIONS_GO, "ErrReasonReadWriteOncePodConflict"),
    up("pvc_not_found", PreFilter, "persistentvolumeclaim {name:?} not found", API_ERRORS_GO, "NewNotFound, as the PVC lister returns it"),
    up("pv_not_found", FilterReason, "persistentvolume {name:?} not found", API_ERRORS_GO, "NewNotFound, as volume_zone.go's PV lister returns it"),
    up("storage_class_not_found", FilterReason, "storageclass.storage.k8s.io {name:?} not found", API_ERRORS_GO, "NewNotFound, as volume_zone.go's class lister returns it"),
    up("claim_without_name", FilterReason, storage::CLAIM_WITHOUT_NAME, VOLUME_ZONE_GO, "getPVbyPod; csi.go filterAttachableVolumes"),
    up("ephemeral_not_owned", PreFilter, "PVC {claim_namespace}/{claim} was not created for pod {pod_namespace}/{pod} (pod is not owner)", EPHEMERAL_GO, "VolumeIsForPod"),
    up("max_volume_count", FilterReason, node_volume_limits::ERR_REASON_MAX_VOLUME_COUNT_EXCEEDED, CSI_GO, "ErrReasonMaxVolumeCountExceeded"),
    up("looking_up_pvc", FilterReason, "looking up PVC {namespace}/{claim}: {err}", CSI_GO, "filterAttachableVolumes"),
    up("volume_bind_conflict", FilterReason, volume_binding::ERR_REASON_BIND_CONFLICT, BINDER_GO, "ErrReasonBindConflict"),
    up("volume_node_conflict", FilterReason, volume_binding::ERR_REASON_NODE_CONFLICT, BINDER_GO, "ErrReasonNodeConflict"),
    up("volume_pv_not_exist", FilterReason, volume_binding::ERR_REASON_PV_NOT_EXIST, BINDER_GO, "ErrReasonPVNotExist"),
    up("unbound_immediate_claims", PreFilter, volume_binding::ERR_REASON_UNBOUND_IMMEDIATE, VOLUME_BINDING_GO, "PreFilter"),
    up("waiting_for_ephemeral_claim", PreFilter, "waiting for ephemeral volume controller to create the persistentvolumeclaim {claim:?}", VOLUME_BINDING_GO, "podHasPVCs"),
    up("claim_lost", PreFilter, "persistentvolumeclaim {claim:?} bound to non-existent persistentvolume {volume:?}", VOLUME_BINDING_GO, "podHasPVCs"),
    up("claim_being_deleted", PreFilter, "persistentvolumeclaim {claim:?} is being deleted", VOLUME_BINDING_GO, "podHasPVCs"),
    up("no_class_for_claim", Framework, "no class for claim {namespace/name:?}", BINDER_GO, "checkVolumeProvisions"),
    up("storage_class_missing", Framework, "failed to find storage class {class:?}", BINDER_GO, "checkVolumeProvisions"),
    up("volume_zone_conflict", FilterReason, volume_zone::ERR_REASON_CONFLICT, VOLUME_ZONE_GO, "ErrReasonConflict"),
    up("claim_without_volume_or_class", FilterReason, volume_zone::CLAIM_WITHOUT_VOLUME_OR_CLASS, VOLUME_ZONE_GO, "getPVbyPod"),
    up("volume_without_name", FilterReason, volume_zone::VOLUME_WITHOUT_NAME, VOLUME_ZONE_GO, "getPVbyPod"),
    up("spread_constraints", FilterReason, pod_topology_spread::ERR_REASON_CONSTRAINTS_NOT_MATCH, PTS_COMMON_GO, "ErrReasonConstraintsNotMatch"),
    up("spread_missing_label", FilterReason, pod_topology_spread::ERR_REASON_NODE_LABEL_NOT_MATCH, PTS_COMMON_GO, "ErrReasonNodeLabelNotMatch"),
    up("spread_constraints_error", Framework, "get constraints from pod: {err}", PTS_FILTERING_GO, "calPreFilterState"),
    up("spread_prefilter_state_missing", Framework, pod_topology_spread::PRE_FILTER_STATE_MISSING, PTS_FILTERING_GO, "getPreFilterState"),
    up("spread_prescore_state_missing", Framework, pod_topology_spread::PRE_SCORE_STATE_MISSING, PTS_SCORING_GO, "getPreScoreState"),
    up("existing_anti_affinity", FilterReason, inter_pod_affinity::ERR_REASON_EXISTING_ANTI_AFFINITY_RULES_NOT_MATCH, IPA_PLUGIN_GO, "ErrReasonExistingAntiAffinityRulesNotMatch"),
    up("pod_affinity", FilterReason, inter_pod_affinity::ERR_REASON_AFFINITY_RULES_NOT_MATCH, IPA_PLUGIN_GO, "ErrReasonAffinityRulesNotMatch"),
    up("pod_anti_affinity", FilterReason, inter_pod_affinity::ERR_REASON_ANTI_AFFINITY_RULES_NOT_MATCH, IPA_PLUGIN_GO, "ErrReasonAntiAffinityRulesNotMatch"),
    up("affinity_parsing_pod", PreFilter, "parsing pod: {aggregate of <terms list>: <error>}", IPA_FILTERING_GO, "PreFilter"),
    up("affinity_prefilter_state_missing", Framework, inter_pod_affinity::PRE_FILTER_STATE_MISSING, IPA_FILTERING_GO, "getPreFilterState"),
    up("affinity_prescore_state_missing", Framework, inter_pod_affinity::PRE_SCORE_STATE_MISSING, IPA_SCORING_GO, "getPreScoreState"),
    up("no_new_claims_to_deallocate", PostFilter, dynamic_resources::NO_NEW_CLAIMS_TO_DEALLOCATE, DRA_GO, "PostFilter"),
    up("dra_deallocation_completed", PostFilter, dynamic_resources::DEALLOCATION_COMPLETED, DRA_GO, "PostFilter"),
    up("dra_still_not_schedulable", PostFilter, dynamic_resources::STILL_NOT_SCHEDULABLE, DRA_GO, "PostFilter"),
    up("cannot_allocate_all_claims", FilterReason, dynamic_resources::CANNOT_ALLOCATE_ALL_CLAIMS, DRA_GO, "Filter"),
    up("dra_not_available_on_node", FilterReason, dynamic_resources::NOT_AVAILABLE_ON_NODE, DRA_GO, "Filter"),
    up("dra_timed_out", FilterReason, dynamic_resources::TIMED_OUT, DRA_GO, "Filter"),
    up("dra_fewer_allocations_than_claims", Framework, "number of allocations {n} is smaller than number of claims", DRA_GO, "computeScore"),
    up("dra_allocation_not_found", Framework, dynamic_resources::ALLOCATION_NOT_FOUND, DRA_GO, "Reserve"),
    up("dra_allocation_count_mismatch", Framework, "internal error, have {n} allocations, {m} claims to allocate, want {k} claims", DRA_GO, "Reserve"),
    up("dra_being_allocated", PreFilter, "resource claim {claim} is in the process of being allocated", DRA_GO, "PreFilter"),
    up("dra_class_missing", PreFilter, "request {request}: device class {class} does not exist", DRA_GO, "validateDeviceClass"),
    up("dra_unsupported_request_type", Framework, "request {request}: unsupported request type", DRA_GO, "validateDeviceClass"),
    up("dra_prefilter_subrequests_disabled", PreFilter, "resource claim {claim}, request {request}: has subrequests, but the DRAPrioritizedList feature is disabled", DRA_GO, "PreFilter"),
    up("dra_unknown_request_type", PreFilter, "resource claim {claim}, request {request}: unknown request type", DRA_GO, "PreFilter"),
    up("dra_claim_being_deleted", Queue, "resourceclaim {name:?} is being deleted", DRA_GO, "foreachPodResourceClaim"),
    up("dra_claim_not_created", Queue, "pod \"{namespace}/{name}\": ResourceClaim not created yet", RESOURCECLAIM_GO, "Name (ErrClaimNotFound)"),
    up("dra_claim_api_unsupported", Queue, "pod \"{namespace}/{name}\", spec.resourceClaim {claim:?}: none of the supported fields are set", RESOURCECLAIM_GO, "Name (ErrAPIUnsupported)"),
    up("dra_claim_not_owner", Queue, "ResourceClaim {namespace}/{claim} was not created for pod {namespace}/{pod} (pod is not owner)", RESOURCECLAIM_GO, "IsForPod"),
    up("dra_claim_not_found", Queue, "could not find ResourceClaim {namespace/name:?}", ASSUME_CACHE_GO, "NotFoundError"),
    up("dra_claim_out_of_sync", Log, "ResourceClaim {namespace/name:?} is out of sync (stored: {stored}, assume: {assumed})", ASSUME_CACHE_GO, "Assume"),
    up("dra_claim_version_unreadable", Log, "error parsing ResourceVersion {rv:?} for ResourceClaim {namespace/name:?}: strconv.ParseInt: parsing {rv:?}: invalid syntax", ASSUME_CACHE_GO, "getObjVersion"),
    up("dra_claim_deleted_meanwhile", Framework, "claim {claim} got deleted in the meantime", DRA_GO, "bindClaim"),
    up("dra_claim_allocated_elsewhere", Framework, "claim {claim} got allocated elsewhere in the meantime", DRA_GO, "bindClaim"),
    up("dra_add_finalizer_failed", Framework, "add finalizer to claim {claim}: {err}", DRA_GO, "bindClaim"),
    up("dra_add_allocation_failed", Framework, "add allocation and reservation to claim {claim}: {err}", DRA_GO, "bindClaim"),
    up("dra_add_reservation_failed", Framework, "add reservation to claim {claim}: {err}", DRA_GO, "bindClaim"),
    up("dra_refresh_after_conflict_failed", Framework, "get updated claim {claim} after conflict: {err}", DRA_GO, "bindClaim"),
    own("dra_unreadable", PreFilter, "the resource.k8s.io/v1 kinds {resources} cannot be read (forbidden by RBAC or not served by the API server); pods with resource claims wait until the scheduler may list and watch them", "upstream's informers wait for the kinds forever; edgesched schedules everything else and says why pods with claims wait"),
    // The structured allocator (errors abort scheduling the pod, except the invalid pools).
    up("dra_invalid_pools", FilterReason, dra_allocator::INVALID_POOLS, DRA_STABLE_GO, "Allocate"),
    up("dra_filter_aborted", Framework, dra_allocator::ABORTED, DRA_STABLE_GO, "allocateOne"),
    up("dra_subrequests_disabled", Framework, "claim {claim}, request {request}: has subrequests, but the DRAPrioritizedList feature is disabled", DRA_STABLE_GO, "Allocate"),
    up("dra_too_many_devices", Framework, "claim {claim}: number of requested devices {n} exceeds the claim limit of {max}", DRA_STABLE_GO, "Allocate"),
    up("dra_empty_constraint", Framework, "claim {claim}, constraint #{i}: empty constraint (unsupported constraint type?)", DRA_STABLE_GO, "Allocate"),
    up("dra_empty_selector", Framework, "claim {claim}, request {request}, selector #{i}: CEL expression empty (unsupported selector type?)", DRA_STABLE_GO, "validateDeviceRequest"),
    up("dra_admin_access_disabled", Framework, "claim {claim}, request {request}: admin access is requested, but the feature is disabled", DRA_STABLE_GO, "validateDeviceRequest"),
    up("dra_missing_class_name", Framework, "claim {claim}, request {request}: missing device class name (unsupported request type?)", DRA_STABLE_GO, "validateDeviceRequest"),
    up("dra_class_not_found", Framework, "claim {claim}, request {request}: could not retrieve device class {class}: deviceclass.resource.k8s.io {class:?} not found", DRA_STABLE_GO, "validateDeviceRequest"),
    up("dra_all_devices_pool_incomplete", Framework, "claim {claim}, request {request}: asks for all devices, but resource pool {driver}/{pool} is currently being updated", DRA_STABLE_GO, "validateDeviceRequest"),
    up("dra_all_devices_pool_invalid", Framework, "claim {claim}, request {request}: asks for all devices, but resource pool {driver}/{pool} is currently invalid", DRA_STABLE_GO, "validateDeviceRequest"),
    up("dra_unsupported_count_mode", Framework, "claim {claim}, request {request}: unsupported count mode {mode}", DRA_STABLE_GO, "validateDeviceRequest"),
    up("dra_cel_compile_error", Framework, "{class <name> or claim <name>}: selector #{i}: CEL compile error: {error}", DRA_STABLE_GO, "selectorsMatch"),
    up("dra_cel_runtime_error", Framework, "{class <name> or claim <name>}: selector #{i}: CEL runtime error: {error}", DRA_STABLE_GO, "selectorsMatch"),
    own("dra_class_selector_without_cel", Framework, "class {class}: selector #{i}: CEL expression empty (unsupported selector type?)", "upstream dereferences a class selector without CEL and panics; edgesched words it as it words a request's"),
    up("dra_constraint_not_satisfied", Framework, "claim {claim}, request {request}: cannot add device {driver}/{pool}/{device} because a claim constraint would not be satisfied", DRA_STABLE_GO, "allocateDevice"),
    up("dra_node_selector_terms", Framework, "create NodeSelector for claim {name}: unsupported ResourceSlice.NodeSelector with {n} terms", DRA_STABLE_GO, "Allocate, createNodeSelector"),
    up("dra_gather_slice", Framework, "gather pool information: failed to perform node selection for slice {slice}: failed to parse node selector: {error}", DRA_POOLS_GO, "GatherPools, nodeMatches"),
    up("dra_gather_device", Framework, "gather pool information: failed to perform node selection for device {device} in slice {slice}: failed to parse node selector: {error}", DRA_POOLS_GO, "GatherPools, nodeMatches"),
    up("dra_unsupported_attribute_value", Framework, "attribute {name}: unsupported attribute value", "staging/src/k8s.io/dynamic-resource-allocation/cel/compile.go", "DeviceMatches"),
    up("dra_device_node_selector", Framework, "failed to parse node selector: {error}", DRA_POOLS_GO, "NodeMatches (from isSelectable)"),
    own("dra_unsupported_features", Framework, "the structured allocator of edgesched does not implement the alpha features {gates} (enabled by feature gates); disable them to schedule pods with resource claims", "upstream has an implementation for every feature set; edgesched implements the stable one"),
    up("gang_waiting_for_workload", Queue, "waiting for pods's workload {workload:?} to appear in scheduling queue", GANG_GO, "PreEnqueue"),
    up("gang_no_pod_group", Queue, "pod group {pod_group:?} doesn't exist for a workload {workload:?}", GANG_GO, "PreEnqueue, Permit"),
    up("gang_waiting_for_min_count", Queue, gang_scheduling::WAITING_FOR_MIN_COUNT, GANG_GO, "PreEnqueue"),
    up("gang_workload_gone", Framework, "failed to get workload {namespace}/{name}: workload.scheduling.k8s.io {name:?} not found", GANG_GO, "Permit"),
    up("waiting_for_scheduling_gates", Queue, "waiting for scheduling gates: [{gates}]", "pkg/scheduler/framework/plugins/schedulinggates/scheduling_gates.go", "PreEnqueue"),
    // Preemption.
    up("preemption_prefix", PostFilter, "preemption: {message}", DEFAULT_PREEMPTION_GO, "PostFilter"),
    up("preemption_policy_never", PostFilter, preemption::NOT_ELIGIBLE_POLICY_NEVER, DEFAULT_PREEMPTION_GO, "PodEligibleToPreemptOthers"),
    up("preemption_terminating_victim", PostFilter, preemption::NOT_ELIGIBLE_TERMINATING, DEFAULT_PREEMPTION_GO, "PodEligibleToPreemptOthers"),
    up("preemption_not_helpful", PostFilter, preemption::NOT_HELPFUL, PREEMPTION_GO, "Preempt"),
    up("preemption_no_victims", PostFilter, preemption::NO_VICTIMS, DEFAULT_PREEMPTION_GO, "SelectVictimsOnNode"),
    up("preemption_no_victim_on_node", PostFilter, "expected at least one victim pod on node {node:?}", PREEMPTION_GO, "dryRunPreemption, callExtenders"),
    // Extenders.
    up("preemption_no_candidate", PostFilter, preemption::NO_CANDIDATE, PREEMPTION_GO, "Evaluator.Preempt"),
    up("extender_http_status", Framework, "failed {verb} with extender at URL {url}, code {code}", EXTENDER_GO, "HTTPExtender.send"),
    up("extender_unknown_filtered_node", Framework, "extender {extender:?} claims a filtered node {node:?} which is not found in the input node list", EXTENDER_GO, "HTTPExtender.Filter"),
    up("extender_node_info_not_found", Framework, "nodeinfo not found for node name {node:?}", SNAPSHOT_GO, "Snapshot.Get"),
    up("extender_victim_not_on_node", Framework, "extender: {url} claims to preempt pod (UID: &{{uid}}) on node: {node}, but the pod is not found on that node", EXTENDER_GO, "convertPodUIDToPod"),
    // Events.
    up("event_type_normal", EventType, events::TYPE_NORMAL, CORE_V1_TYPES_GO, "EventTypeNormal"),
    up("event_type_warning", EventType, events::TYPE_WARNING, CORE_V1_TYPES_GO, "EventTypeWarning"),
    up("failed_scheduling_event", EventReason, events::REASON_FAILED_SCHEDULING, SCHEDULE_ONE_GO, "handleSchedulingFailure"),
    up("scheduling_action", EventAction, events::ACTION_SCHEDULING, SCHEDULE_ONE_GO, "handleSchedulingFailure"),
    up("scheduled_event", EventReason, events::REASON_SCHEDULED, SCHEDULE_ONE_GO, "bindingCycle"),
    up("binding_action", EventAction, events::ACTION_BINDING, SCHEDULE_ONE_GO, "bindingCycle"),
    up("scheduled_note", EventNote, "Successfully assigned {namespace}/{name} to {node}", SCHEDULE_ONE_GO, "bindingCycle"),
    up("preempted_event", EventReason, events::REASON_PREEMPTED, PREEMPTION_GO, "NewEvaluator: PreemptPod"),
    up("preempting_action", EventAction, events::ACTION_PREEMPTING, PREEMPTION_GO, "NewEvaluator: PreemptPod"),
    up("preempted_note", EventNote, "Preempted by pod {preemptor uid} on node {node}", PREEMPTION_GO, "NewEvaluator: PreemptPod"),
    up("skip_deleting_pod", EventNote, "skip schedule deleting pod: {namespace}/{name}", SCHEDULE_ONE_GO, "skipPodSchedule"),
    up("leader_election_event", EventReason, events::REASON_LEADER_ELECTION, LEASELOCK_GO, "LeaseLock.RecordEvent"),
    up("became_leader_note", EventNote, "{identity} became leader", LEADERELECTION_GO, "LeaderElector.acquire: RecordEvent(\"became leader\"), formatted by LeaseLock.RecordEvent"),
    own("no_scheduler_for_name_event", EventReason, events::REASON_NO_SCHEDULER_FOR_NAME, "upstream leaves pods of an absent scheduler pending silently"),
    own("no_scheduler_for_name_note", EventNote, "no running scheduler serves schedulerName {name:?}[ (did you mean {suggestion:?}?)]; running schedulers: {names, or none seen}", "upstream leaves pods of an absent scheduler pending silently"),
    // Conditions.
    up("pod_scheduled_condition", ConditionType, conditions::POD_SCHEDULED, CORE_V1_TYPES_GO, "PodScheduled"),
    up("unschedulable_reason", ConditionReason, conditions::REASON_UNSCHEDULABLE, CORE_V1_TYPES_GO, "PodReasonUnschedulable"),
    up("scheduler_error_reason", ConditionReason, conditions::REASON_SCHEDULER_ERROR, CORE_V1_TYPES_GO, "PodReasonSchedulerError"),
    up("disruption_target_condition", ConditionType, conditions::DISRUPTION_TARGET, CORE_V1_TYPES_GO, "DisruptionTarget"),
    up("preemption_by_scheduler_reason", ConditionReason, conditions::REASON_PREEMPTION_BY_SCHEDULER, CORE_V1_TYPES_GO, "PodReasonPreemptionByScheduler"),
    up("preempting_message", ConditionMessage, "{scheduler name}: preempting to accommodate a higher priority pod", PREEMPTION_GO, "NewEvaluator: PreemptPod"),
    own("pod_spec_cannot_be_scheduled", EventNote, "pod spec cannot be scheduled: {reason}", "upstream never sees such pods: the API server rejects them at admission"),
    own("pod_undecodable", EventNote, "cannot decode the pod: {error}", "client-go fails the whole list over an object it cannot decode; edgesched skips that object and says why on the pod, inside pod_spec_cannot_be_scheduled"),
    up("no_priority_class", EventNote, "no PriorityClass with name {name} was found", "plugin/pkg/admission/priority/admission.go", "admitPod (Forbidden), used inside pod_spec_cannot_be_scheduled"),
    own("bound_elsewhere_log", Log, logs::BOUND_ELSEWHERE, "upstream records FailedScheduling with the 409 error; edgesched knows the pod is bound and logs instead"),
];

/// DRA CEL device selectors: the compile and evaluation texts of
/// `staging/src/k8s.io/dynamic-resource-allocation/cel/compile.go` (and the cel-go runtime
/// errors it passes through). The allocator wraps them in its own `CEL compile error` /
/// `CEL runtime error` frames.
pub mod dra_cel {
    /// CompileCELExpression: parse and type-check failures (`"compilation failed: " +
    /// issues.String()`).
    pub fn compilation_failed(issues: &str) -> String {
        format!("compilation failed: {issues}")
    }

    /// CompileCELExpression: the expression's type is neither bool nor the attribute type.
    pub fn must_evaluate_to_bool(actual: &str) -> String {
        format!("must evaluate to bool or the unknown type, not {actual}")
    }

    /// API validation (`validateCELSelector`, pkg/apis/resource/validation/validation.go):
    /// `field.TooLong` for an expression over `CELSelectorExpressionMaxLength` bytes.
    pub fn too_long(max: usize) -> String {
        format!("Too long: may not be more than {max} bytes")
    }

    /// cel-go's cost tracker (interpreter/runtimecost.go): the runtime cost limit was reached.
    pub const COST_LIMIT_EXCEEDED: &str = "operation cancelled: actual cost limit exceeded";

    /// cel-go's missing map key or field (`no such key: %v`).
    pub fn no_such_key(key: &str) -> String {
        format!("no such key: {key}")
    }

    /// DeviceMatches: the result is not a bool.
    pub fn not_bool(type_name: &str, detail: &str) -> String {
        format!("CEL result of type {type_name} could not be converted to bool: {detail}")
    }
}

/// What `explain` says about a gang pod's group (edgesched's own: kube-scheduler says only
/// [`gang_scheduling::WAITING_FOR_MIN_COUNT`] or nothing while a gang pod waits at Permit).
pub mod what_if_gang {
    /// `namespace/workload/group: N of minCount M pods exist, P assumed or bound`, and whether the
    /// explained pod would wait at Permit for the rest.
    pub fn state(group: &str, all: usize, min_count: usize, placed: usize, waits: bool) -> String {
        let mut s = format!("{group}: {all} of minCount {min_count} pods exist, {placed} assumed or bound");
        if waits {
            s += &format!("; this pod would wait at Permit for {} more", min_count.saturating_sub(placed + 1));
        }
        s
    }
}

/// What the what-if commands say about devices (edgesched's own: kube-scheduler only says
/// [`dynamic_resources::CANNOT_ALLOCATE_ALL_CLAIMS`] for a node, and `explain` and `capacity`
/// name the request behind it).
pub mod what_if_devices {
    /// A request that finds no device on a node even alone (`exactly`, one class).
    pub fn request_found_no_device(claim: &str, request: &str, class: &str) -> String {
        format!("claim {claim} request {request}: no available device of class {class} matches")
    }

    /// A `firstAvailable` request none of whose alternatives finds devices on a node.
    pub fn alternatives_found_no_device(claim: &str, request: &str, classes: &[&str]) -> String {
        format!("claim {claim} request {request}: no available device for any alternative (classes {})", classes.join(", "))
    }

    /// A request whose allocation fails for a reason other than a lack of devices.
    pub fn request_failed(claim: &str, request: &str, error: &str) -> String {
        format!("claim {claim} request {request}: {error}")
    }

    /// Every request finds devices alone, but not all of the pod's requests together.
    pub const NOT_ALL_TOGETHER: &str =
        "each request finds a device alone, but not all of them together (constraints, or too few devices for every request)";

    /// The resourceclaim controller's error for a template that does not exist (`handleClaim`,
    /// `pkg/controller/resourceclaim/controller.go` v1.35: `resource claim template %q: %v` around
    /// the lister's NotFound), after the scheduler's PreEnqueue text that keeps the pod waiting.
    pub fn template_missing(waiting: &str, template: &str) -> String {
        format!("{waiting} (resource claim template {template:?}: resourceclaimtemplate.resource.k8s.io {template:?} not found)")
    }

    /// `capacity`: the next copy was stopped by devices on the nodes named.
    pub fn capacity_devices(stopped_by: &str, misses: &str) -> String {
        format!("{stopped_by} Devices: {misses}")
    }
}

/// The fixed texts of the what-if commands' HTML page (`simulate --output html`, `capacity
/// --output html`; edgesched's own: kube-scheduler has no such report). Names, reasons and
/// messages shown on the page come from the cluster and the scheduler; these are the frame.
pub mod what_if_html {
    /// The page title of `simulate`.
    pub const SIMULATE_TITLE: &str = "edgesched simulate";
    /// The page title of `capacity`.
    pub const CAPACITY_TITLE: &str = "edgesched capacity";
    /// The pending pods' section.
    pub const PODS_HEADING: &str = "Pending pods, in the order they were decided";
    /// The section with pods placed and not placed.
    pub const SUMMARY_HEADING: &str = "Summary";
    /// The nodes' section.
    pub const NODES_HEADING: &str = "Nodes by zone";
    /// What the node bars show.
    pub const NODES_LEGEND: &str =
        "Requested of allocatable, before the simulation (upper, light bar) and after it (lower, dark bar). Open a zone for its nodes; hover a bar for the figures.";
    /// What the zone bars show.
    pub const ZONES_LEGEND: &str =
        "Per zone, before (light) and after (dark): a bar to the median node's use, a whisker from the least to the most used node; the figure is the zone's total use after.";
    /// The group of nodes without a `topology.kubernetes.io/zone` label.
    pub const NO_ZONE: &str = "(no zone label)";
    /// The decision of a pod that fits nowhere.
    pub const UNSCHEDULABLE: &str = "unschedulable";
    /// The decision of a pod no profile serves.
    pub const SKIPPED: &str = "skipped";
    /// The heading of a pod's scores table.
    pub const SCORES_CAPTION: &str =
        "Scores of the best nodes (each plugin's normalised score before its weight; total is the weighted sum)";
    /// The scores table's columns before the plugins'.
    pub const NODE_COLUMN: &str = "node";
    pub const TOTAL_COLUMN: &str = "total";
    /// The reasons section of the summary.
    pub const NOT_PLACED_BY_REASON: &str = "Not placed, by reason";
    /// The reasons the last copy gave (`capacity`).
    pub const NEXT_COPY_REASONS: &str = "Why the next copy does not fit, by reason";
    /// The copies per node (`capacity`).
    pub const COPIES_HEADING: &str = "Copies per node";
    pub const COPIES_COLUMN: &str = "copies";
    /// The resources a node bar shows, in bar order.
    pub const RESOURCES: [&str; 4] = ["cpu", "memory", "pods", "devices"];
    /// `before` and `after`, in tooltips.
    pub const BEFORE: &str = "before";
    pub const AFTER: &str = "after";

    /// Where the cluster was read from.
    pub fn source(cluster: Option<&str>) -> String {
        match cluster {
            Some(file) => format!("cluster file {file}"),
            None => "live cluster (read once)".to_string(),
        }
    }

    /// `simulate`'s counts.
    pub fn placed(placed: usize, not_placed: usize) -> String {
        format!("placed: {placed}, not placed: {not_placed}")
    }

    /// A pod's cycle in numbers.
    pub fn evaluated(evaluated: usize, feasible: usize) -> String {
        format!("evaluated {evaluated}, feasible {feasible}")
    }

    /// Scored nodes left out of a pod's table (`--top`).
    pub fn more_scored(n: usize) -> String {
        format!("… {n} more scored node(s)")
    }

    /// Nodes a filter rejected for one reason: how many, the reason, the first names.
    pub fn filtered(count: usize, reason: &str, nodes: &[String], more: usize) -> String {
        let more = if more > 0 { format!(", … {more} more") } else { String::new() };
        format!("{count} node(s): {reason}: {}{more}", nodes.join(", "))
    }

    /// Pods not placed for one reason.
    pub fn pods_with_reason(n: usize) -> String {
        format!("{n} pod(s)")
    }

    /// A zone's headline.
    pub fn zone(name: &str, nodes: usize) -> String {
        format!("{name}: {nodes} node(s)")
    }

    /// Pods placed on a node by the simulation (or copies, for `capacity`).
    pub fn placed_here(n: usize) -> String {
        format!("+{n}")
    }

    /// One resource of a node in a tooltip, as (used, allocatable, percent) before and after:
    /// `cpu 2000m/4000m (50%) → 3000m/4000m (75%)`.
    pub fn use_change(resource: &str, before: (&str, &str, i64), after: (&str, &str, i64)) -> String {
        let (b, a) = (before, after);
        format!("{resource} {}/{} ({}%) → {}/{} ({}%)", b.0, b.1, b.2, a.0, a.1, a.2)
    }

    /// One resource of a zone in a tooltip.
    pub fn zone_use(resource: &str, phase: &str, min: i64, median: i64, max: i64) -> String {
        format!("{resource} {phase}: min {min}%, median {median}%, max {max}%")
    }

    /// The node preemption nominated for a pod.
    pub fn nominated(node: &str) -> String {
        format!("nominated node: {node}")
    }

    /// A pod preemption would evict.
    pub fn would_preempt(pod: &str) -> String {
        format!("would preempt: {pod}")
    }

    /// `capacity`'s answer: how many more copies fit.
    pub fn copies_fit(count: usize, pod: &str) -> String {
        format!("{count} more cop{} of {pod} fit{}", if count == 1 { "y" } else { "ies" }, if count == 1 { "s" } else { "" })
    }

    /// What stopped `capacity`.
    pub fn stopped_by(why: &str) -> String {
        format!("Stopped by: {why}")
    }
}
