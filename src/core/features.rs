//! Feature gates as kube-scheduler's `--feature-gates` takes them (component-base
//! `featuregate/feature_gate.go`): `Name=bool` pairs, comma-separated; an unknown name, a value
//! that is not a Go bool, or a locked gate set away from its default is an error; `AllAlpha` and
//! `AllBeta` set every unlocked alpha or beta gate.
//!
//! [`GATES`] is kube-scheduler's registry (every Kubernetes gate, since the binary links them
//! all), each with its default and lock as v1.35 ships it, transcribed from
//! `test/compatibility_lifecycle/reference/versioned_feature_list.yaml` (the last spec of each
//! gate). [`MODELLED`] names the gates that change what edgesched does; setting any other gate
//! away from its default is accepted with one warning naming it as without effect.

/// A gate's maturity (the `stage` label of `kubernetes_feature_enabled`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stage {
    Alpha,
    Beta,
    Ga,
    Deprecated,
}

impl Stage {
    /// The label value upstream's metric uses (`""` for GA).
    pub fn label(self) -> &'static str {
        match self {
            Stage::Alpha => "ALPHA",
            Stage::Beta => "BETA",
            Stage::Ga => "",
            Stage::Deprecated => "DEPRECATED",
        }
    }
}

/// One gate of the registry.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Gate {
    pub name: &'static str,
    pub stage: Stage,
    pub default: bool,
    pub locked: bool,
}

const fn g(name: &'static str, stage: Stage, default: bool, locked: bool) -> Gate {
    Gate { name, stage, default, locked }
}

/// Gates whose setting changes edgesched's behaviour.
pub const MODELLED: &[&str] = &[
    // The queue pops the head of backoffQ when activeQ is empty (scheduling_queue.go Pop).
    "SchedulerPopFromBackoffQ",
    // --log-*-split-stream and --log-*-info-buffer-size need it (component-base logs/api/v1).
    "LoggingAlphaOptions",
    // Locked on: what edgesched always does.
    "SchedulerQueueingHints",
    "PodSchedulingReadiness",
    "NodeInclusionPolicyInPodTopologySpread",
    "MatchLabelKeysInPodAffinity",
    "SidecarContainers",
];

/// kube-scheduler v1.35's gates.
pub const GATES: &[Gate] = &[
    g("AggregatedDiscoveryRemoveBetaType", Stage::Deprecated, true, false),
    g("AllowDNSOnlyNodeCSR", Stage::Deprecated, false, false),
    g("AllowInsecureKubeletCertificateSigningRequests", Stage::Deprecated, false, false),
    g("AllowOverwriteTerminationGracePeriodSeconds", Stage::Deprecated, false, false),
    g("AllowParsingUserUIDFromCertAuth", Stage::Beta, true, false),
    g("AllowServiceLBStatusOnNonLB", Stage::Deprecated, false, true),
    g("AllowUnsafeMalformedObjectDeletion", Stage::Alpha, false, false),
    g("AnonymousAuthConfigurableEndpoints", Stage::Ga, true, true),
    g("AnyVolumeDataSource", Stage::Ga, true, true),
    g("APIResponseCompression", Stage::Beta, true, false),
    g("APIServerIdentity", Stage::Beta, true, false),
    g("APIServerTracing", Stage::Beta, true, false),
    g("APIServingWithRoutine", Stage::Alpha, false, false),
    g("AuthorizeNodeWithSelectors", Stage::Ga, true, true),
    g("AuthorizeWithSelectors", Stage::Ga, true, true),
    g("BtreeWatchCache", Stage::Ga, true, true),
    g("CBORServingAndStorage", Stage::Alpha, false, false),
    g("ClearingNominatedNodeNameAfterBinding", Stage::Beta, true, false),
    g("CloudControllerManagerWebhook", Stage::Alpha, false, false),
    g("ClusterTrustBundle", Stage::Beta, false, false),
    g("ClusterTrustBundleProjection", Stage::Beta, false, false),
    g("ComponentFlagz", Stage::Alpha, false, false),
    g("ComponentSLIs", Stage::Ga, true, true),
    g("ComponentStatusz", Stage::Alpha, false, false),
    g("ConcurrentWatchObjectDecode", Stage::Beta, false, false),
    g("ConsistentListFromCache", Stage::Ga, true, true),
    g("ContainerCheckpoint", Stage::Beta, true, false),
    g("ContainerStopSignals", Stage::Alpha, false, false),
    g("ContextualLogging", Stage::Beta, true, false),
    g("CoordinatedLeaderElection", Stage::Beta, false, false),
    g("CPUCFSQuotaPeriod", Stage::Alpha, false, false),
    g("CPUManagerPolicyAlphaOptions", Stage::Alpha, false, false),
    g("CPUManagerPolicyBetaOptions", Stage::Beta, true, false),
    g("CPUManagerPolicyOptions", Stage::Ga, true, true),
    g("CRDValidationRatcheting", Stage::Ga, true, true),
    g("CronJobsScheduledAnnotation", Stage::Ga, true, true),
    g("CrossNamespaceVolumeDataSource", Stage::Alpha, false, false),
    g("CSIMigrationPortworx", Stage::Ga, true, true),
    g("CSIVolumeHealth", Stage::Alpha, false, false),
    g("CustomResourceFieldSelectors", Stage::Ga, true, true),
    g("DeclarativeValidation", Stage::Beta, true, false),
    g("DeclarativeValidationTakeover", Stage::Beta, false, false),
    g("DeploymentReplicaSetTerminatingReplicas", Stage::Alpha, false, false),
    g("DetectCacheInconsistency", Stage::Beta, true, false),
    g("DevicePluginCDIDevices", Stage::Ga, true, true),
    g("DisableAllocatorDualWrite", Stage::Ga, true, false),
    g("DisableCPUQuotaWithExclusiveCPUs", Stage::Beta, true, false),
    g("DisableNodeKubeProxyVersion", Stage::Deprecated, true, false),
    g("DRAAdminAccess", Stage::Alpha, false, false),
    g("DRAConsumableCapacity", Stage::Alpha, false, false),
    g("DRADeviceBindingConditions", Stage::Alpha, false, false),
    g("DRADeviceTaints", Stage::Alpha, false, false),
    g("DRAExtendedResource", Stage::Alpha, false, false),
    g("DRAPartitionableDevices", Stage::Alpha, false, false),
    g("DRAPrioritizedList", Stage::Alpha, false, false),
    g("DRAResourceClaimDeviceStatus", Stage::Beta, true, false),
    g("DRASchedulerFilterTimeout", Stage::Beta, true, false),
    g("DynamicResourceAllocation", Stage::Ga, true, false),
    g("EventedPLEG", Stage::Alpha, false, false),
    g("ExecProbeTimeout", Stage::Ga, true, false),
    g("ExternalServiceAccountTokenSigner", Stage::Beta, true, false),
    g("GangScheduling", Stage::Alpha, false, false),
    g("GenericWorkload", Stage::Alpha, false, false),
    g("GitRepoVolumeDriver", Stage::Deprecated, false, false),
    g("GracefulNodeShutdown", Stage::Beta, true, false),
    g("GracefulNodeShutdownBasedOnPodPriority", Stage::Beta, true, false),
    g("HonorPVReclaimPolicy", Stage::Ga, true, true),
    g("HPAConfigurableTolerance", Stage::Alpha, false, false),
    g("HPAScaleToZero", Stage::Alpha, false, false),
    g("ImageMaximumGCAge", Stage::Beta, true, false),
    g("ImageVolume", Stage::Beta, false, false),
    g("InPlacePodVerticalScaling", Stage::Beta, true, false),
    g("InPlacePodVerticalScalingAllocatedStatus", Stage::Deprecated, false, false),
    g("InPlacePodVerticalScalingExclusiveCPUs", Stage::Alpha, false, false),
    g("InTreePluginPortworxUnregister", Stage::Alpha, false, false),
    g("JobBackoffLimitPerIndex", Stage::Ga, true, true),
    g("JobManagedBy", Stage::Beta, true, false),
    g("JobPodReplacementPolicy", Stage::Ga, true, true),
    g("JobSuccessPolicy", Stage::Ga, true, true),
    g("KMSv1", Stage::Deprecated, false, false),
    g("KubeletCgroupDriverFromCRI", Stage::Beta, true, false),
    g("KubeletCrashLoopBackOffMax", Stage::Alpha, false, false),
    g("KubeletEnsureSecretPulledImages", Stage::Alpha, false, false),
    g("KubeletFineGrainedAuthz", Stage::Beta, true, false),
    g("KubeletInUserNamespace", Stage::Alpha, false, false),
    g("KubeletPodResourcesDynamicResources", Stage::Alpha, false, false),
    g("KubeletPodResourcesGet", Stage::Alpha, false, false),
    g("KubeletPodResourcesListUseActivePods", Stage::Deprecated, true, false),
    g("KubeletPSI", Stage::Alpha, false, false),
    g("KubeletRegistrationGetOnExistsOnly", Stage::Deprecated, false, false),
    g("KubeletSeparateDiskGC", Stage::Beta, true, false),
    g("KubeletServiceAccountTokenForCredentialProviders", Stage::Alpha, false, false),
    g("KubeletTracing", Stage::Ga, true, true),
    g("LegacySidecarContainers", Stage::Deprecated, false, false),
    g("ListFromCacheSnapshot", Stage::Beta, true, false),
    g("LoadBalancerIPMode", Stage::Ga, true, true),
    g("LocalStorageCapacityIsolationFSQuotaMonitoring", Stage::Beta, false, false),
    g("LogarithmicScaleDown", Stage::Ga, true, true),
    g("LoggingAlphaOptions", Stage::Alpha, false, false),
    g("LoggingBetaOptions", Stage::Beta, true, false),
    g("MatchLabelKeysInPodAffinity", Stage::Ga, true, true),
    g("MatchLabelKeysInPodTopologySpread", Stage::Beta, true, false),
    g("MatchLabelKeysInPodTopologySpreadSelectorMerge", Stage::Beta, true, false),
    g("MaxUnavailableStatefulSet", Stage::Alpha, false, false),
    g("MemoryManager", Stage::Ga, true, true),
    g("MemoryQoS", Stage::Alpha, false, false),
    g("MultiCIDRServiceAllocator", Stage::Ga, true, true),
    g("MutableCSINodeAllocatableCount", Stage::Alpha, false, false),
    g("MutatingAdmissionPolicy", Stage::Beta, false, false),
    g("NFTablesProxyMode", Stage::Ga, true, true),
    g("NodeDeclaredFeatures", Stage::Alpha, false, false),
    g("NodeInclusionPolicyInPodTopologySpread", Stage::Ga, true, true),
    g("NodeLogQuery", Stage::Beta, false, false),
    g("NodeSwap", Stage::Ga, true, true),
    g("NominatedNodeNameForExpectation", Stage::Beta, true, false),
    g("OpenAPIEnums", Stage::Beta, true, false),
    g("OpportunisticBatching", Stage::Alpha, false, false),
    g("OrderedNamespaceDeletion", Stage::Ga, true, true),
    g("PodAndContainerStatsFromCRI", Stage::Alpha, false, false),
    g("PodDeletionCost", Stage::Beta, true, false),
    g("PodIndexLabel", Stage::Ga, true, true),
    g("PodLevelResources", Stage::Beta, true, false),
    g("PodLifecycleSleepAction", Stage::Beta, true, false),
    g("PodLifecycleSleepActionAllowZero", Stage::Beta, true, false),
    g("PodLogsQuerySplitStreams", Stage::Alpha, false, false),
    g("PodObservedGenerationTracking", Stage::Beta, true, false),
    g("PodReadyToStartContainersCondition", Stage::Beta, true, false),
    g("PodSchedulingReadiness", Stage::Ga, true, true),
    g("PodTopologyLabelsAdmission", Stage::Alpha, false, false),
    g("PortForwardWebsockets", Stage::Beta, true, false),
    g("PreferSameTrafficDistribution", Stage::Beta, true, false),
    g("PreventStaticPodAPIReferences", Stage::Beta, true, false),
    g("ProcMountType", Stage::Beta, true, false),
    g("QOSReserved", Stage::Alpha, false, false),
    g("RecoverVolumeExpansionFailure", Stage::Ga, true, true),
    g("RecursiveReadOnlyMounts", Stage::Ga, true, true),
    g("ReduceDefaultCrashLoopBackOffDecay", Stage::Alpha, false, false),
    g("RelaxedDNSSearchValidation", Stage::Ga, true, true),
    g("RelaxedEnvironmentVariableValidation", Stage::Ga, true, true),
    g("RelaxedServiceNameValidation", Stage::Alpha, false, false),
    g("ReloadKubeletServerCertificateFile", Stage::Beta, true, false),
    g("RemoteRequestHeaderUID", Stage::Beta, true, false),
    g("ResilientWatchCacheInitialization", Stage::Ga, true, true),
    g("ResourceHealthStatus", Stage::Alpha, false, false),
    g("RetryGenerateName", Stage::Ga, true, true),
    g("RotateKubeletServerCertificate", Stage::Beta, true, false),
    g("RuntimeClassInImageCriAPI", Stage::Alpha, false, false),
    g("SchedulerAsyncAPICalls", Stage::Beta, true, false),
    g("SchedulerAsyncPreemption", Stage::Beta, true, false),
    g("SchedulerPopFromBackoffQ", Stage::Beta, true, false),
    g("SchedulerQueueingHints", Stage::Ga, true, true),
    g("SELinuxChangePolicy", Stage::Beta, true, false),
    g("SELinuxMount", Stage::Beta, false, false),
    g("SELinuxMountReadWriteOncePod", Stage::Beta, true, false),
    g("SeparateCacheWatchRPC", Stage::Deprecated, false, false),
    g("SeparateTaintEvictionController", Stage::Ga, true, true),
    g("ServiceAccountNodeAudienceRestriction", Stage::Beta, true, false),
    g("ServiceAccountTokenJTI", Stage::Ga, true, true),
    g("ServiceAccountTokenNodeBinding", Stage::Ga, true, true),
    g("ServiceAccountTokenNodeBindingValidation", Stage::Ga, true, true),
    g("ServiceAccountTokenPodNodeInfo", Stage::Ga, true, true),
    g("ServiceTrafficDistribution", Stage::Ga, true, true),
    g("SidecarContainers", Stage::Ga, true, true),
    g("SizeBasedListCostEstimate", Stage::Beta, true, false),
    g("SizeMemoryBackedVolumes", Stage::Ga, true, true),
    g("StatefulSetAutoDeletePVC", Stage::Ga, true, true),
    g("StorageCapacityScoring", Stage::Alpha, false, false),
    g("StorageNamespaceIndex", Stage::Deprecated, true, false),
    g("StorageVersionAPI", Stage::Alpha, false, false),
    g("StorageVersionHash", Stage::Beta, true, false),
    g("StorageVersionMigrator", Stage::Alpha, false, false),
    g("StreamingCollectionEncodingToJSON", Stage::Ga, true, true),
    g("StreamingCollectionEncodingToProtobuf", Stage::Ga, true, true),
    g("StrictCostEnforcementForVAP", Stage::Ga, true, true),
    g("StrictCostEnforcementForWebhooks", Stage::Ga, true, true),
    g("StrictIPCIDRValidation", Stage::Alpha, false, false),
    g("StructuredAuthenticationConfiguration", Stage::Ga, true, true),
    g("StructuredAuthenticationConfigurationEgressSelector", Stage::Beta, true, false),
    g("StructuredAuthorizationConfiguration", Stage::Ga, true, true),
    g("SupplementalGroupsPolicy", Stage::Beta, true, false),
    g("SystemdWatchdog", Stage::Beta, true, false),
    g("TokenRequestServiceAccountUIDValidation", Stage::Beta, true, false),
    g("TopologyAwareHints", Stage::Ga, true, true),
    g("TopologyManagerPolicyAlphaOptions", Stage::Alpha, false, false),
    g("TopologyManagerPolicyBetaOptions", Stage::Beta, true, false),
    g("TopologyManagerPolicyOptions", Stage::Ga, true, false),
    g("TranslateStreamCloseWebsocketRequests", Stage::Beta, true, false),
    g("UnauthenticatedHTTP2DOSMitigation", Stage::Beta, true, false),
    g("UnknownVersionInteroperabilityProxy", Stage::Alpha, false, false),
    g("UserNamespacesPodSecurityStandards", Stage::Alpha, false, false),
    g("UserNamespacesSupport", Stage::Beta, true, false),
    g("VolumeAttributesClass", Stage::Ga, true, false),
    g("WatchCacheInitializationPostStartHook", Stage::Beta, false, false),
    g("WatchFromStorageWithoutResourceVersion", Stage::Deprecated, false, true),
    g("WatchList", Stage::Beta, false, false),
    g("WindowsCPUAndMemoryAffinity", Stage::Alpha, false, false),
    g("WindowsGracefulNodeShutdown", Stage::Alpha, false, false),
    g("WindowsHostNetwork", Stage::Deprecated, false, false),
    g("WinDSR", Stage::Beta, true, false),
    g("WinOverlay", Stage::Beta, true, false),
];

/// The gates as set by `--feature-gates`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct FeatureGates {
    set: Vec<(&'static str, bool)>,
}

impl FeatureGates {
    /// Parse `--feature-gates` (may be given several times: later values add to earlier ones).
    pub fn set_from(&mut self, spec: &str) -> Result<(), String> {
        for pair in spec.split(',').map(str::trim).filter(|s| !s.is_empty()) {
            let Some((name, value)) = pair.split_once('=') else {
                return Err(format!("missing bool value for {pair}"));
            };
            let (name, value) = (name.trim(), value.trim());
            let on = parse_go_bool(value).ok_or_else(|| {
                format!("invalid value of {name}={value}, err: strconv.ParseBool: parsing {value:?}: invalid syntax")
            })?;
            if name == "AllAlpha" || name == "AllBeta" {
                let stage = if name == "AllAlpha" { Stage::Alpha } else { Stage::Beta };
                for gate in GATES.iter().filter(|g| g.stage == stage && !g.locked) {
                    self.put(gate.name, on);
                }
                continue;
            }
            let gate = GATES.iter().find(|g| g.name == name).ok_or_else(|| format!("unrecognized feature gate: {name}"))?;
            if gate.locked && on != gate.default {
                return Err(format!("cannot set feature gate {name} to {on}, feature is locked to {}", gate.default));
            }
            self.put(gate.name, on);
        }
        Ok(())
    }

    fn put(&mut self, name: &'static str, on: bool) {
        self.set.retain(|(n, _)| *n != name);
        self.set.push((name, on));
    }

    /// Whether a gate is on (its default unless set). Unknown names are off.
    pub fn enabled(&self, name: &str) -> bool {
        match self.set.iter().find(|(n, _)| *n == name) {
            Some((_, on)) => *on,
            None => GATES.iter().find(|g| g.name == name).is_some_and(|g| g.default),
        }
    }

    /// Gates set away from their default that edgesched does not model, for the one warning.
    pub fn without_effect(&self) -> Vec<&'static str> {
        let mut out: Vec<&'static str> = self
            .set
            .iter()
            .filter(|(n, on)| !MODELLED.contains(n) && GATES.iter().any(|g| g.name == *n && g.default != *on))
            .map(|(n, _)| *n)
            .collect();
        out.sort_unstable();
        out
    }
}

/// `strconv.ParseBool`.
fn parse_go_bool(v: &str) -> Option<bool> {
    match v {
        "1" | "t" | "T" | "true" | "TRUE" | "True" => Some(true),
        "0" | "f" | "F" | "false" | "FALSE" | "False" => Some(false),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `feature_gate_test.go` `TestFeatureGateFlag` cases, on this registry.
    #[test]
    fn flag_values_parse_as_upstream() {
        let mut f = FeatureGates::default();
        assert!(f.enabled("SchedulerPopFromBackoffQ"));
        f.set_from("SchedulerPopFromBackoffQ=false, LoggingAlphaOptions=true").expect("set");
        assert!(!f.enabled("SchedulerPopFromBackoffQ"));
        assert!(f.enabled("LoggingAlphaOptions"));
        assert_eq!(FeatureGates::default().set_from("Foo=true"), Err("unrecognized feature gate: Foo".into()));
        assert_eq!(
            FeatureGates::default().set_from("SchedulerQueueingHints=false"),
            Err("cannot set feature gate SchedulerQueueingHints to false, feature is locked to true".into())
        );
        assert_eq!(FeatureGates::default().set_from("WatchList"), Err("missing bool value for WatchList".into()));
        assert!(FeatureGates::default().set_from("WatchList=maybe").unwrap_err().starts_with("invalid value of WatchList=maybe"));
        let mut f = FeatureGates::default();
        f.set_from("AllAlpha=true").expect("all alpha");
        assert!(f.enabled("LoggingAlphaOptions") && f.enabled("DRADeviceTaints"));
        assert!(f.without_effect().contains(&"DRADeviceTaints"));
        assert!(!f.without_effect().contains(&"LoggingAlphaOptions"));
    }

    #[test]
    fn registry_is_sorted_and_unique() {
        let names: Vec<String> = GATES.iter().map(|g| g.name.to_lowercase()).collect();
        assert!(names.windows(2).all(|w| w[0] < w[1]), "sorted case-insensitively, no duplicates");
        assert!(MODELLED.iter().all(|m| GATES.iter().any(|g| g.name == *m)));
    }
}
