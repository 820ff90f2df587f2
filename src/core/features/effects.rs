//! What each scheduler-relevant gate does in kube-scheduler v1.35 and what edgesched does about
//! it: the one table docs/feature-gates.md is rendered from (a test checks they
//! agree) and that decides which gates' settings take effect here.
//!
//! "Scheduler-relevant" means read by the scheduler binary's own code paths in v1.35:
//! `pkg/scheduler/framework/plugins/feature/feature.go` (`NewSchedulerFeaturesFromGates`, the
//! struct every in-tree plugin receives), the `feature.DefaultFeatureGate.Enabled` calls under
//! `pkg/scheduler/` (queue, cache, `schedule_one.go`, `apis/config/v1` defaults and
//! `default_plugins.go`), `cmd/kube-scheduler/app`, and client-go's informer gates. Gates
//! that only the API server, kubelet or controllers read are in [`super::GATES`] (they are
//! accepted and reported) but not here — except `ClearingNominatedNodeNameAfterBinding`, which
//! kube-apiserver reads and which is listed because it completes what the scheduler's
//! `NominatedNodeNameForExpectation` writes (its row says so).

use super::gate;
use std::fmt::Write as _;

/// What edgesched does for a gate's v1.35 behaviour.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Status {
    /// The behaviour is there; where.
    Implemented(&'static str),
    /// Part of it is there; what is and what is missing.
    Partial(&'static str),
    /// Not there; what is missing and where it is being done or documented.
    Missing(&'static str),
    /// Off by default and not implemented: setting it gets the "without effect" warning.
    NotImplemented,
}

/// One scheduler-relevant gate.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct GateEffect {
    pub gate: &'static str,
    /// Where upstream's scheduler reads it (paths under `kubernetes/kubernetes`, v1.35).
    pub upstream: &'static str,
    pub status: Status,
    /// Setting it away from its default changes what edgesched does.
    pub settable: bool,
}

const fn row(gate: &'static str, upstream: &'static str, status: Status, settable: bool) -> GateEffect {
    GateEffect { gate, upstream, status, settable }
}

use Status::{Implemented, Missing, NotImplemented, Partial};

/// Every scheduler-relevant gate of v1.35, on by default first, then off by default.
pub const SCHEDULER_GATES: &[GateEffect] = &[
    // On by default in v1.35.
    row(
        "DynamicResourceAllocation",
        "`default_plugins.go` `applyFeatureGates` (DynamicResources before DefaultPreemption); `dynamicresources.New`; `scheduler.go` DRA manager",
        Implemented("DynamicResources in the default profile (`src/core/config/v1.rs`) at every extension point (`src/core/framework/plugins/dynamic_resources/`), the structured-parameters allocator (`src/core/dra/allocator/`), CEL selectors (`src/core/dra/cel/`), the claim store (`src/core/cache/dra/`); see [Dynamic Resource Allocation](dra.md)"),
        false,
    ),
    row(
        "DRAAdminAccess",
        "`dynamicresources.New` → structured allocator",
        Implemented("`adminAccess` requests allocated without taking the device from others; refused with upstream's text when off (`src/core/dra/allocator/`)"),
        true,
    ),
    row(
        "DRAPrioritizedList",
        "`dynamicresources.New` → structured allocator (`firstAvailable`)",
        Implemented("`firstAvailable` subrequests tried in order, scored as upstream; refused with upstream's text when off (`src/core/dra/allocator/`, `dynamic_resources/score.rs`)"),
        true,
    ),
    row(
        "DRAResourceClaimDeviceStatus",
        "`apis/config/validation` `ValidateDynamicResourcesArgs` (with DRADeviceBindingConditions: `bindingTimeout`); `dynamicresources.New`",
        Implemented("`bindingTimeout` refused with upstream's text while DRADeviceBindingConditions is off (`src/core/config/args.rs`); with binding conditions off (alpha) the scheduler writes no device status, as upstream"),
        false,
    ),
    row(
        "DRASchedulerFilterTimeout",
        "`apis/config/v1/defaults.go` (`filterTimeout` 10s), `ValidateDynamicResourcesArgs`, `dynamicresources` Filter",
        Implemented("`filterTimeout` defaulted to 10s and validated (`src/core/config/args.rs`, `validate.rs`); Filter stops a node's allocation search after it (`dynamic_resources/filter.rs`); off: no limit"),
        true,
    ),
    row(
        "InPlacePodVerticalScaling",
        "`framework/types.go` NodeInfo requests (`resource.PodRequests` with `UseStatusResources`); `noderesources` fit queueing hints for pod resizes",
        Implemented("a bound pod counts `max(spec, actual, allocated)` per container, its actual size when the resize is infeasible (`src/core/pod_requests.rs`); a pod update re-counts its node (`src/core/cache/`); NodeResourcesFit requeues the pods it rejected when a bound pod's requests go down (`src/core/framework/plugins/node_resources_fit_hints.rs`)"),
        false,
    ),
    row(
        "SidecarContainers",
        "`noderesources` fit (restartable init containers in the request sum)",
        Implemented("`src/core/pod_requests.rs`; `node_resources_fit.rs`"),
        false,
    ),
    row(
        "PodLevelResources",
        "`noderesources` fit and balanced allocation, NodeInfo (`pod.spec.resources`)",
        Implemented("`src/core/pod_requests.rs` (pod-level requests replace the container sum for the resources they name; `--feature-gates=PodLevelResources=false` leaves them unread, as upstream's `SkipPodLevelResources`)"),
        true,
    ),
    row(
        "SchedulerQueueingHints",
        "`backend/queue/scheduling_queue.go` (`isPodWorthRequeuing`)",
        Implemented("`src/core/queue.rs` and each plugin's hints"),
        false,
    ),
    row(
        "SchedulerPopFromBackoffQ",
        "`backend/queue/scheduling_queue.go` `Pop`",
        Implemented("`src/core/queue.rs` (`--feature-gates=SchedulerPopFromBackoffQ=false` makes pods wait out their backoff)"),
        true,
    ),
    row(
        "SchedulerAsyncPreemption",
        "`framework/preemption` (victims deleted in a goroutine); DefaultPreemption PreEnqueue",
        Partial("victims are evicted by API workers off the scheduling loop (`src/shell/daemon/api_workers.rs`); the preemptor is not held back with \"waiting for the preemption for this pod to be finished\" while they are"),
        false,
    ),
    row(
        "NodeInclusionPolicyInPodTopologySpread",
        "`podtopologyspread` (nodeAffinityPolicy / nodeTaintsPolicy)",
        Implemented("`src/core/framework/plugins/pod_topology_spread/`"),
        false,
    ),
    row(
        "MatchLabelKeysInPodTopologySpread",
        "`podtopologyspread` (matchLabelKeys merged into the selector)",
        Implemented("`src/core/framework/plugins/pod_topology_spread/mod.rs`"),
        false,
    ),
    row(
        "PodSchedulingReadiness",
        "`default_plugins.go` (SchedulingGates first); `schedulinggates`",
        Implemented("`src/core/framework/plugins/scheduling_gates.rs`"),
        false,
    ),
    row(
        "VolumeAttributesClass",
        "`volumebinding` (PV/PVC `volumeAttributesClassName` matching)",
        Implemented("`src/core/framework/plugins/volume_binding.rs`"),
        false,
    ),
    row(
        "CSIMigrationPortworx",
        "`nodevolumelimits` `isCSIMigrationOn` (portworx needs the CSINode's migrated-plugins annotation)",
        Implemented("`src/core/framework/plugins/node_volume_limits.rs` (claims of a portworx class)"),
        false,
    ),
    row(
        "PodObservedGenerationTracking",
        "`CalculatePodConditionObservedGeneration` for the conditions the scheduler writes (PodScheduled, DisruptionTarget)",
        Missing("conditions are written without `observedGeneration`"),
        false,
    ),
    row(
        "NominatedNodeNameForExpectation",
        "`schedule_one.go` `bindingCycle` (`RunPreBindPreFlights`, `WillWaitOnPermit`, `updatePod` with the chosen node)",
        Implemented("`.status.nominatedNodeName` set to the chosen node before a pod waits at Permit or runs a PreBind plugin with work (VolumeBinding writes, DynamicResources claims, out-of-tree `pre_bind_pre_flight`), through the status writer preemption uses, before the binding (`src/core/scheduler/expectation.rs`, `src/core/framework/cycle/pre_flight.rs`); off: never written there"),
        true,
    ),
    row(
        "ClearingNominatedNodeNameAfterBinding",
        "not by kube-scheduler: kube-apiserver's `pods/binding` (`pkg/registry/core/pod/storage/storage.go`) clears `.status.nominatedNodeName` when it binds (KEP-5278)",
        Implemented("nothing for a scheduler to do: edgesched sends the same binding, and the v1.35 API server clears the field; setting the gate on the scheduler changes nothing, as on kube-scheduler"),
        false,
    ),
    row(
        "OpportunisticBatching",
        "`schedule_one.go` (`GetNodeHint` / `StoreScheduleResults`: the next pod with the same signature tries the previous pod's runner-up node first), `framework/runtime/batch.go`",
        Partial("not adopted: every pod is filtered and scored in full, which can differ from upstream's hinted placement and `evaluatedNodes`/`feasibleNodes`; see [Differences from kube-scheduler](differences.md)"),
        false,
    ),
    row(
        "WatchListClient",
        "client-go reflector (streaming lists: a watch with `sendInitialEvents=true`)",
        Missing("informers LIST with pagination, then WATCH (`src/shell/daemon/informers.rs`)"),
        false,
    ),
    // Off by default in v1.35.
    row("LoggingAlphaOptions", "component-base `logs/api/v1` options validation", Implemented("`--log-*-split-stream` and `--log-*-info-buffer-size` are refused without it, as upstream (`src/shell/cli/run.rs`)"), true),
    row("SchedulerAsyncAPICalls", "`scheduler.go` API dispatcher", NotImplemented, false),
    row(
        "GenericWorkload",
        "`scheduler.go` Workload informer; `pod.spec.workloadRef`",
        Implemented("with `GangScheduling` on, Workloads (`scheduling.k8s.io/v1alpha1`) are watched (an optional row of `src/core/watched.rs`) and `pod.spec.workloadRef` is read (`src/core/gang/`); on its own, upstream starts a Workload informer that nothing reads, edgesched watches nothing; see [Gang scheduling](gang-scheduling.md)"),
        true,
    ),
    row(
        "GangScheduling",
        "`default_plugins.go` (GangScheduling plugin); `eventhandlers.go`",
        Implemented("GangScheduling in the default profile (`src/core/config/v1.rs`): PreEnqueue holds a gang until its Workload and `minCount` pods exist, Permit holds its pods until `minCount` are assumed (5 minutes at most), pod and Workload additions requeue (`src/core/framework/plugins/gang_scheduling.rs`); see [Gang scheduling](gang-scheduling.md)"),
        true,
    ),
    row("NodeDeclaredFeatures", "`default_plugins.go`; `nodedeclaredfeatures` plugin", NotImplemented, false),
    row("TaintTolerationComparisonOperators", "`tainttoleration`, `podtopologyspread` (Lt/Gt tolerations)", NotImplemented, false),
    row(
        "InPlacePodLevelResourcesVerticalScaling",
        "`framework/types.go` NodeInfo requests of pod-level resizes (`InPlacePodLevelResourcesVerticalScalingEnabled`); `noderesources` fit scale-down hint",
        Implemented("a bound pod's pod-level requests count `status.resources` and `status.allocatedResources` too (`src/core/pod_requests.rs`)"),
        true,
    ),
    row("DRAConsumableCapacity", "`dynamicresources` allocator", NotImplemented, false),
    row("DRADeviceBindingConditions", "`dynamicresources` PreBind; `ValidateDynamicResourcesArgs` (`bindingTimeout`)", NotImplemented, false),
    row(
        "DRADeviceTaints",
        "`dynamicresources` allocator (`AllocatorFeatures`)",
        Implemented("a device whose `NoSchedule`/`NoExecute` taint in its ResourceSlice the request does not tolerate is not allocated (`src/core/dra/allocator/search.rs`); DeviceTaintRule objects need `DRADeviceTaintRules`, which is refused"),
        true,
    ),
    row("DRAExtendedResource", "`noderesources` fit, `dynamicresources`", NotImplemented, false),
    row("DRAPartitionableDevices", "`dynamicresources` allocator", NotImplemented, false),
    row("StorageCapacityScoring", "`apis/config/v1/defaults.go` (VolumeBinding `shape`); `volumebinding` Score", NotImplemented, false),
    row("VolumeLimitScaling", "`nodevolumelimits`", NotImplemented, false),
    row("CoordinatedLeaderElection", "`cmd/kube-scheduler/app/server.go` (LeaseCandidate)", NotImplemented, false),
    row("ComponentFlagz", "`cmd/kube-scheduler/app/server.go` (`/flagz`)", NotImplemented, false),
    row("ComponentStatusz", "`cmd/kube-scheduler/app/server.go` (`/statusz`)", NotImplemented, false),
];

/// Whether setting `name` away from its default changes what edgesched does.
pub fn takes_effect(name: &str) -> bool {
    SCHEDULER_GATES.iter().any(|e| e.gate == name && e.settable)
}

/// The v1.35 state of a gate as `docs/feature-gates.md` shows it: `GA (locked on)`, `beta, on`, `alpha, off`.
fn default_text(name: &str) -> String {
    let Some(spec) = gate(name).and_then(super::Gate::current) else { return "—".into() };
    let stage = match spec.stage {
        super::Stage::Alpha => "alpha",
        super::Stage::Beta => "beta",
        super::Stage::Ga => "GA",
        super::Stage::Deprecated => "deprecated",
    };
    let on = if spec.default { "on" } else { "off" };
    if spec.locked {
        format!("{stage}, locked {on}")
    } else {
        format!("{stage}, {on}")
    }
}

/// The table of scheduler-relevant gates in docs/feature-gates.md (Markdown, one row per [`SCHEDULER_GATES`]).
pub fn readme_table() -> String {
    let mut out = String::from("| gate | v1.35 | read by kube-scheduler in | edgesched |\n|---|---|---|---|\n");
    for e in SCHEDULER_GATES {
        let status = match e.status {
            Implemented(w) => format!("implemented: {w}"),
            Partial(w) => format!("partly: {w}"),
            Missing(w) => format!("missing: {w}"),
            NotImplemented => "not implemented (setting it warns)".into(),
        };
        let _ = writeln!(out, "| `{}` | {} | {} | {} |", e.gate, default_text(e.gate), e.upstream, status);
    }
    out
}
