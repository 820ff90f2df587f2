//! The `KubeSchedulerConfiguration` API versions we read, and which fields each of them has.

/// API group of the scheduler's component config.
pub const GROUP: &str = "kubescheduler.config.k8s.io";
/// The only kind a configuration file may hold.
pub const KIND: &str = "KubeSchedulerConfiguration";

/// A supported `apiVersion`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Version {
    V1,
    V1beta3,
    V1beta2,
    V1beta1,
}

impl Version {
    /// Every supported version, newest first.
    pub const ALL: [Version; 4] = [Version::V1, Version::V1beta3, Version::V1beta2, Version::V1beta1];

    /// `kubescheduler.config.k8s.io/<v>`.
    pub fn api_version(self) -> &'static str {
        match self {
            Version::V1 => "kubescheduler.config.k8s.io/v1",
            Version::V1beta3 => "kubescheduler.config.k8s.io/v1beta3",
            Version::V1beta2 => "kubescheduler.config.k8s.io/v1beta2",
            Version::V1beta1 => "kubescheduler.config.k8s.io/v1beta1",
        }
    }

    /// The version named by an `apiVersion` string, if supported.
    pub fn parse(api_version: &str) -> Option<Version> {
        Version::ALL.into_iter().find(|v| v.api_version() == api_version)
    }

    /// The note upstream logs when loading a deprecated or removed version (configfile.go), so the
    /// caller can log it too.
    pub fn deprecation(self) -> Option<&'static str> {
        match self {
            Version::V1 => None,
            Version::V1beta3 => Some("KubeSchedulerConfiguration v1beta3 is deprecated in v1.26, will be removed in v1.29"),
            Version::V1beta2 => Some("KubeSchedulerConfiguration v1beta2 is deprecated in v1.25, will be removed in v1.28"),
            Version::V1beta1 => Some(
                "KubeSchedulerConfiguration v1beta1 was removed in v1.23; it is converted to v1 \
                 (legacy score plugins become NodeResourcesFit scoring strategies)",
            ),
        }
    }

    /// Top-level fields this version has beyond the ones common to all versions.
    pub fn extra_top_level(self) -> &'static [&'static str] {
        match self {
            Version::V1 | Version::V1beta3 => &["delayCacheUntilActive"],
            Version::V1beta2 => &["healthzBindAddress", "metricsBindAddress"],
            Version::V1beta1 => &["healthzBindAddress", "metricsBindAddress", "disablePreemption"],
        }
    }

    /// Profile fields this version has beyond `schedulerName`, `plugins` and `pluginConfig`.
    pub fn extra_profile(self) -> &'static [&'static str] {
        match self {
            Version::V1 | Version::V1beta3 => &["percentageOfNodesToScore"],
            Version::V1beta2 | Version::V1beta1 => &[],
        }
    }

    /// Extension points this version has beyond the eleven common ones.
    pub fn extra_points(self) -> &'static [&'static str] {
        match self {
            Version::V1 | Version::V1beta3 => &["preEnqueue", "multiPoint"],
            Version::V1beta2 => &["preEnqueue"],
            Version::V1beta1 => &["unreserve"],
        }
    }
}

/// Top-level fields of every version.
pub const COMMON_TOP_LEVEL: &[&str] = &[
    "apiVersion",
    "kind",
    "parallelism",
    "leaderElection",
    "clientConnection",
    "enableProfiling",
    "enableContentionProfiling",
    "percentageOfNodesToScore",
    "podInitialBackoffSeconds",
    "podMaxBackoffSeconds",
    "profiles",
    "extenders",
];

/// Profile fields of every version.
pub const COMMON_PROFILE: &[&str] = &["schedulerName", "plugins", "pluginConfig"];

/// Extension points of every version.
pub const COMMON_POINTS: &[&str] =
    &["queueSort", "preFilter", "filter", "postFilter", "preScore", "score", "reserve", "permit", "preBind", "bind", "postBind"];

/// Every top-level field of any version (for "this belongs elsewhere" hints).
pub fn any_version_top_level(key: &str) -> bool {
    COMMON_TOP_LEVEL.contains(&key) || Version::ALL.iter().any(|v| v.extra_top_level().contains(&key))
}

/// Every profile field of any version.
pub fn any_version_profile(key: &str) -> bool {
    COMMON_PROFILE.contains(&key) || Version::ALL.iter().any(|v| v.extra_profile().contains(&key))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_every_version() {
        for v in Version::ALL {
            assert_eq!(Version::parse(v.api_version()), Some(v));
        }
        assert_eq!(Version::parse("kube-scheduler.k8s.io/v1"), None);
        assert_eq!(Version::parse("kubescheduler.config.k8s.io/v1alpha1"), None);
    }

    #[test]
    fn field_sets() {
        assert!(Version::V1.extra_points().contains(&"multiPoint"));
        assert!(!Version::V1beta2.extra_points().contains(&"multiPoint"));
        assert!(any_version_top_level("healthzBindAddress"));
        assert!(any_version_profile("pluginConfig"));
        assert!(!any_version_profile("leaderElection"));
    }
}
