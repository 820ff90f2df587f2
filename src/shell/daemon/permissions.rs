//! Every API permission edgesched uses, declared once, and the record of those the API server
//! currently denies.
//!
//! The list is derived from the watched-kind table ([`crate::core::watched::KINDS`]: list and watch of
//! each) and from [`CALLS`], the requests the shell makes itself (bind, status patches, events,
//! preemption, volume binding, the leader-election Lease, delegated authentication). The
//! shipped RBAC manifests are checked against it by a test, and `edgesched status` asks the API
//! server about each entry, so a new API call is added to this table and the RBAC follows.
//!
//! At run time, callers that get a 403 record it in [`Denials`]: required permissions make
//! `/readyz` fail with the permission named (and are logged at error level by the caller),
//! optional ones only turn their feature off.

use crate::core::config::SchedulerConfig;
use crate::core::framework::Framework;
use crate::core::watched::{kinds_read_by, Need, Scope};
use std::collections::BTreeMap;
use std::fmt;
use std::sync::Mutex;
use std::time::Instant;

/// When the scheduler makes a call.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum When {
    /// Always.
    Always,
    /// With leader election on.
    LeaderElection,
    /// When the secure port delegates authentication/authorization to the API server.
    DelegatedAuth,
    /// When a profile enables this plugin.
    Plugin(&'static str),
}

/// Which objects a call addresses.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Target {
    /// Cluster-scoped, or namespaced objects in any namespace.
    Any,
    /// Objects in the leader-election namespace.
    LeaseNamespace,
    /// The leader-election Lease itself (`resourceNames` can restrict to it).
    OwnLease,
}

/// One request the shell makes, as RBAC sees it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Call {
    pub verb: &'static str,
    pub group: &'static str,
    /// Resource, with `/subresource` when there is one (`pods/binding`).
    pub resource: &'static str,
    pub target: Target,
    pub when: When,
    pub need: Need,
    /// What it is for (documentation, `status` output).
    pub why: &'static str,
}

const REQUIRED: Need = Need::Required;

/// The writes of DynamicResources are optional like the kinds it reads: without them pods with
/// claims stay pending (their PreBind fails, saying which permission is missing), everything
/// else schedules.
const DRA_WRITE: Need = Need::Optional { feature: "writing device allocations to resource claims (dynamic resource allocation)" };

/// The requests the shell makes beyond listing and watching the table's kinds.
pub const CALLS: &[Call] = &[
    Call {
        verb: "create",
        group: "",
        resource: "pods/binding",
        target: Target::Any,
        when: When::Always,
        need: REQUIRED,
        why: "bind pods to the chosen nodes",
    },
    Call {
        verb: "patch",
        group: "",
        resource: "pods/status",
        target: Target::Any,
        when: When::Always,
        need: REQUIRED,
        why: "PodScheduled condition, nominatedNodeName, DisruptionTarget on preemption victims",
    },
    Call {
        verb: "get",
        group: "",
        resource: "pods",
        target: Target::Any,
        when: When::Always,
        need: REQUIRED,
        why: "read a pod back after a binding whose response was lost",
    },
    Call {
        verb: "create",
        group: "events.k8s.io",
        resource: "events",
        target: Target::Any,
        when: When::Always,
        need: REQUIRED,
        why: "Scheduled, FailedScheduling and Preempted events",
    },
    Call {
        verb: "patch",
        group: "events.k8s.io",
        resource: "events",
        target: Target::Any,
        when: When::Always,
        need: REQUIRED,
        why: "event series (repeated FailedScheduling)",
    },
    Call {
        verb: "create",
        group: "",
        resource: "events",
        target: Target::Any,
        when: When::Always,
        need: REQUIRED,
        why: "LeaderElection event; all events on servers without events.k8s.io",
    },
    Call {
        verb: "delete",
        group: "",
        resource: "pods",
        target: Target::Any,
        when: When::Plugin("DefaultPreemption"),
        need: REQUIRED,
        why: "evict preemption victims",
    },
    Call {
        verb: "patch",
        group: "",
        resource: "persistentvolumeclaims",
        target: Target::Any,
        when: When::Plugin("VolumeBinding"),
        need: REQUIRED,
        why: "volume.kubernetes.io/selected-node on WaitForFirstConsumer claims",
    },
    Call {
        verb: "get",
        group: "",
        resource: "persistentvolumeclaims",
        target: Target::Any,
        when: When::Plugin("VolumeBinding"),
        need: REQUIRED,
        why: "wait for provisioned claims to be bound",
    },
    Call {
        verb: "get",
        group: "",
        resource: "persistentvolumes",
        target: Target::Any,
        when: When::Plugin("VolumeBinding"),
        need: REQUIRED,
        why: "bind pre-provisioned volumes to claims",
    },
    Call {
        verb: "update",
        group: "",
        resource: "persistentvolumes",
        target: Target::Any,
        when: When::Plugin("VolumeBinding"),
        need: REQUIRED,
        why: "bind pre-provisioned volumes to claims",
    },
    // DynamicResources (dynamicresources.go, v1.35), as v1.35's bootstrap policy grants
    // system:kube-scheduler: `resourceclaims` and `resourceclaims/status` get/update/patch.
    Call {
        verb: "get",
        group: "resource.k8s.io",
        resource: "resourceclaims",
        target: Target::Any,
        when: When::Plugin("DynamicResources"),
        need: DRA_WRITE,
        why: "read a claim afresh when writing its allocation met a conflict (PreBind)",
    },
    Call {
        verb: "update",
        group: "resource.k8s.io",
        resource: "resourceclaims",
        target: Target::Any,
        when: When::Plugin("DynamicResources"),
        need: DRA_WRITE,
        why: "add the delete-protection finalizer to a claim before allocating it (PreBind)",
    },
    Call {
        verb: "update",
        group: "resource.k8s.io",
        resource: "resourceclaims/status",
        target: Target::Any,
        when: When::Plugin("DynamicResources"),
        need: DRA_WRITE,
        why:
            "write a claim's allocation and reservedFor before binding (PreBind); deallocate a claim blocking a pod (PostFilter)",
    },
    Call {
        verb: "patch",
        group: "resource.k8s.io",
        resource: "resourceclaims/status",
        target: Target::Any,
        when: When::Plugin("DynamicResources"),
        need: DRA_WRITE,
        why: "remove a pod that will not be bound from a claim's reservedFor (Unreserve)",
    },
    Call {
        verb: "create",
        group: "coordination.k8s.io",
        resource: "leases",
        target: Target::LeaseNamespace,
        when: When::LeaderElection,
        need: REQUIRED,
        why: "create the leader-election Lease",
    },
    Call {
        verb: "get",
        group: "coordination.k8s.io",
        resource: "leases",
        target: Target::OwnLease,
        when: When::LeaderElection,
        need: REQUIRED,
        why: "read the leader-election Lease",
    },
    Call {
        verb: "update",
        group: "coordination.k8s.io",
        resource: "leases",
        target: Target::OwnLease,
        when: When::LeaderElection,
        need: REQUIRED,
        why: "acquire and renew the leader-election Lease",
    },
    Call {
        verb: "create",
        group: "authentication.k8s.io",
        resource: "tokenreviews",
        target: Target::Any,
        when: When::DelegatedAuth,
        need: REQUIRED,
        why: "authenticate /metrics and /configz requests (delegated authentication)",
    },
    Call {
        verb: "create",
        group: "authorization.k8s.io",
        resource: "subjectaccessreviews",
        target: Target::Any,
        when: When::DelegatedAuth,
        need: REQUIRED,
        why: "authorize /metrics and /configz requests (delegated authorization)",
    },
];

/// A permission with its concrete namespace and name, as a SubjectAccessReview asks for it.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct Access {
    pub verb: String,
    pub group: String,
    pub resource: String,
    pub subresource: String,
    /// Empty: any namespace / cluster scope.
    pub namespace: String,
    /// Empty: any object.
    pub name: String,
    pub required: bool,
    /// The feature an optional permission serves, or what a required one is for.
    pub why: String,
}

impl Access {
    fn new(verb: &str, group: &str, resource: &str, namespace: &str, name: &str, need: Need, why: &str) -> Access {
        let (resource, subresource) = resource.split_once('/').unwrap_or((resource, ""));
        let (required, why) = match need {
            Need::Required => (true, why.to_string()),
            Need::Optional { feature } => (false, feature.to_string()),
        };
        Access {
            verb: verb.into(),
            group: group.into(),
            resource: resource.into(),
            subresource: subresource.into(),
            namespace: namespace.into(),
            name: name.into(),
            required,
            why,
        }
    }

    /// `pods/binding` or `leases.coordination.k8s.io`: the resource as the API server names it.
    pub fn qualified_resource(&self) -> String {
        let mut r = self.resource.clone();
        if !self.subresource.is_empty() {
            r = format!("{r}/{}", self.subresource);
        }
        if !self.group.is_empty() {
            r = format!("{r}.{}", self.group);
        }
        r
    }

    /// The RBAC rule that grants this access, in manifest form (for hints in logs).
    pub fn rule(&self) -> String {
        let resource =
            if self.subresource.is_empty() { self.resource.clone() } else { format!("{}/{}", self.resource, self.subresource) };
        self.rule_for(&[resource])
    }

    /// [`Access::rule`] for several resources of this access's group at once.
    fn rule_for(&self, resources: &[String]) -> String {
        let resources: Vec<String> = resources.iter().map(|r| format!("{r:?}")).collect();
        let names = if self.name.is_empty() { String::new() } else { format!(", resourceNames: [\"{}\"]", self.name) };
        let scope = if self.namespace.is_empty() {
            "in a ClusterRole".to_string()
        } else {
            format!("in a Role in namespace {:?}", self.namespace)
        };
        format!(
            "{{apiGroups: [\"{}\"], resources: [{}]{names}, verbs: [\"{}\"]}} {scope}",
            self.group,
            resources.join(", "),
            self.verb
        )
    }
}

impl fmt::Display for Access {
    /// `get leases.coordination.k8s.io "edgesched" in kube-system`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} {}", self.verb, self.resource)?;
        if !self.subresource.is_empty() {
            write!(f, "/{}", self.subresource)?;
        }
        if !self.group.is_empty() {
            write!(f, ".{}", self.group)?;
        }
        if !self.name.is_empty() {
            write!(f, " {:?}", self.name)?;
        }
        if !self.namespace.is_empty() {
            write!(f, " in {}", self.namespace)?;
        }
        Ok(())
    }
}

/// Which optional parts of the scheduler a configuration turns on.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Usage {
    /// The secure port delegates authentication to the API server.
    pub delegated_auth: bool,
    /// Plugins enabled by any profile.
    pub plugins: Vec<&'static str>,
}

impl Usage {
    /// What the profiles of `cfg` use (their plugins, as the framework instantiates them).
    pub fn of(cfg: &SchedulerConfig, delegated_auth: bool) -> Result<Usage, crate::core::framework::profile::ProfileError> {
        let ctx = crate::core::framework::plugins::PluginContext::default();
        let profiles = cfg.profiles.iter().map(|p| Framework::new(p, &ctx)).collect::<Result<Vec<Framework>, _>>()?;
        Ok(Usage::of_profiles(&profiles, delegated_auth))
    }

    /// What already built profiles use.
    pub fn of_profiles(profiles: &[Framework], delegated_auth: bool) -> Usage {
        let mut plugins: Vec<&'static str> = Vec::new();
        for name in profiles.iter().flat_map(Framework::plugin_names) {
            if !plugins.contains(&name) {
                plugins.push(name);
            }
        }
        Usage { delegated_auth, plugins }
    }
}

fn enabled(when: When, cfg: &SchedulerConfig, usage: &Usage) -> bool {
    match when {
        When::Always => true,
        When::LeaderElection => cfg.leader_election.leader_elect,
        When::DelegatedAuth => usage.delegated_auth,
        When::Plugin(name) => usage.plugins.contains(&name),
    }
}

/// Every access a scheduler with this configuration makes: list and watch of each kind its
/// profiles read, then the calls of [`CALLS`] that the configuration enables, with the lease's
/// namespace and name filled in.
pub fn accesses(cfg: &SchedulerConfig, usage: &Usage) -> Vec<Access> {
    let le = &cfg.leader_election;
    let mut out = Vec::new();
    for k in kinds_read_by(&usage.plugins) {
        let ns = if k.scope == Scope::LeaseNamespace { le.resource_namespace.as_str() } else { "" };
        for verb in ["list", "watch"] {
            out.push(Access::new(verb, k.group, k.resource, ns, "", k.need, "mirror the objects scheduling reads"));
        }
    }
    for c in CALLS.iter().filter(|c| enabled(c.when, cfg, usage)) {
        let (ns, name) = match c.target {
            Target::Any => ("", ""),
            Target::LeaseNamespace => (le.resource_namespace.as_str(), ""),
            Target::OwnLease => (le.resource_namespace.as_str(), le.resource_name.as_str()),
        };
        out.push(Access::new(c.verb, c.group, c.resource, ns, name, c.need, c.why));
    }
    out
}

/// What the read-only what-if commands (`simulate --kubeconfig`, `capacity --kubeconfig`,
/// `snapshot`) need: `list` of every kind a snapshot holds, nothing else.
pub fn what_if_accesses() -> Vec<Access> {
    crate::core::watched::snapshot_kinds().map(|k| kind_access(k, "list", "")).collect()
}

/// The access a list or watch of a watched kind needs.
pub fn kind_access(kind: &crate::core::watched::WatchedKind, verb: &str, lease_namespace: &str) -> Access {
    let ns = if kind.scope == Scope::LeaseNamespace { lease_namespace } else { "" };
    Access::new(verb, kind.group, kind.resource, ns, "", kind.need, "mirror the objects scheduling reads")
}

/// The one rule that grants `verb` on every watched kind of `kind`'s group that serves the same
/// optional feature (Dynamic Resource Allocation's classes, slices and claims are one rule, as in
/// v1.35's `system:kube-scheduler` ClusterRole), for the one warning a missing feature gets.
pub fn feature_rule(kind: &crate::core::watched::WatchedKind, verb: &str, lease_namespace: &str) -> String {
    let resources: Vec<String> = crate::core::watched::all_kinds()
        .filter(|k| k.group == kind.group && k.need == kind.need)
        .filter(|k| (k.scope == Scope::LeaseNamespace) == (kind.scope == Scope::LeaseNamespace))
        .map(|k| k.resource.to_string())
        .collect();
    kind_access(kind, verb, lease_namespace).rule_for(&resources)
}

/// The access of a [`Call`] for the configured lease.
pub fn call_access(call: &Call, lease_namespace: &str, lease_name: &str) -> Access {
    let (ns, name) = match call.target {
        Target::Any => ("", ""),
        Target::LeaseNamespace => (lease_namespace, ""),
        Target::OwnLease => (lease_namespace, lease_name),
    };
    Access::new(call.verb, call.group, call.resource, ns, name, call.need, call.why)
}

/// The declared call with this verb, group and resource (a programming error if missing, so it
/// falls back to the first entry rather than panicking in the shell; a test checks every use).
pub fn call(verb: &str, group: &str, resource: &str) -> &'static Call {
    CALLS.iter().find(|c| c.verb == verb && c.group == group && c.resource == resource).unwrap_or(&CALLS[0])
}

/// The access of a declared call that addresses no particular namespace or name (everything but
/// the Lease), for recording outcomes.
pub fn plain(verb: &str, group: &str, resource: &str) -> Access {
    call_access(call(verb, group, resource), "", "")
}

/// A denial currently in force.
#[derive(Debug, Clone)]
pub struct Denial {
    pub access: Access,
    /// The API server's message (names the user and the missing permission).
    pub message: String,
    pub since: Instant,
    pub count: u64,
}

/// Permissions the API server currently refuses, shared by the shell's threads.
#[derive(Debug, Default)]
pub struct Denials {
    inner: Mutex<BTreeMap<String, Denial>>,
}

impl Denials {
    /// Record a 403 for `access`. Returns `true` the first time (callers log the first denial
    /// loudly and repeats quietly).
    pub fn denied(&self, access: &Access, message: &str, now: Instant) -> bool {
        let mut map = self.inner.lock().unwrap_or_else(|e| e.into_inner());
        let key = access.to_string();
        match map.get_mut(&key) {
            Some(d) => {
                d.count += 1;
                d.message = message.to_string();
                false
            }
            None => {
                map.insert(key, Denial { access: access.clone(), message: message.to_string(), since: now, count: 1 });
                true
            }
        }
    }

    /// Record a 403 for an optional `access`. Returns `true` only for the first denial of its
    /// feature: no other access serving the same feature is denied already (callers warn once
    /// per feature, naming the rule that restores it, however many kinds it covers).
    pub fn denied_feature(&self, access: &Access, message: &str, now: Instant) -> bool {
        let mut map = self.inner.lock().unwrap_or_else(|e| e.into_inner());
        let key = access.to_string();
        let feature_denied = map.values().any(|d| !d.access.required && d.access.why == access.why);
        match map.get_mut(&key) {
            Some(d) => {
                d.count += 1;
                d.message = message.to_string();
            }
            None => {
                map.insert(key, Denial { access: access.clone(), message: message.to_string(), since: now, count: 1 });
            }
        }
        !feature_denied
    }

    /// `access` succeeded: forget a denial. Returns whether there was one (so the caller can log
    /// that the permission was granted meanwhile).
    /// Whether any denial is in force.
    fn any(&self) -> bool {
        !self.inner.lock().unwrap_or_else(|e| e.into_inner()).is_empty()
    }

    pub fn allowed(&self, access: &Access) -> bool {
        let mut map = self.inner.lock().unwrap_or_else(|e| e.into_inner());
        map.remove(&access.to_string()).is_some()
    }

    /// Denials in force, required ones first.
    pub fn current(&self) -> Vec<Denial> {
        let map = self.inner.lock().unwrap_or_else(|e| e.into_inner());
        let mut v: Vec<Denial> = map.values().cloned().collect();
        v.sort_by_key(|d| (!d.access.required, d.access.to_string()));
        v
    }

    /// The readiness verdict: `Err` naming every required permission that is denied.
    pub fn check_required(&self) -> Result<(), String> {
        let denied: Vec<String> =
            self.current().into_iter().filter(|d| d.access.required).map(|d| format!("{} forbidden", d.access)).collect();
        if denied.is_empty() {
            Ok(())
        } else {
            Err(denied.join("; "))
        }
    }

    /// Record the outcome of a request that needed `access` (on `object`, for the log): a 403 is
    /// recorded and logged at error level with the verb, resource, object and the rule that
    /// would grant it; a success clears an earlier denial (and says so).
    ///
    /// `access` is only built when there is something to record: a success with no denial in
    /// force (every binding and event in steady state) costs one look at the table.
    pub fn outcome<T>(
        &self,
        access: impl FnOnce() -> Access,
        object: &str,
        result: &Result<T, crate::shell::kube::api_error::ApiError>,
    ) {
        match result {
            Err(e) if e.is_forbidden() => {
                let access = &access();
                self.denied(access, &e.server_message(), Instant::now());
                crate::core::logging::Line::new("Permission denied")
                    .s("verb", &access.verb)
                    .s("resource", access.qualified_resource())
                    .s("object", object)
                    .s("rule", access.rule())
                    .s("err", e.server_message())
                    .error();
            }
            Ok(_) => {
                let access = if self.any() { access() } else { return };
                if self.allowed(&access) {
                    crate::core::logging::Line::new("Permission granted").s("access", &access).info();
                }
            }
            Err(_) => {}
        }
    }

    /// Optional features currently off, for `/readyz?verbose` notes.
    pub fn optional_off(&self) -> Vec<String> {
        self.current().into_iter().filter(|d| !d.access.required).map(|d| format!("{} forbidden", d.access)).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cfg(yaml: &str) -> SchedulerConfig {
        crate::core::config::load_str(yaml, "test").map(|l| l.config).unwrap_or_else(|e| panic!("{e}"))
    }

    #[test]
    fn accesses_follow_the_configuration() {
        let c = cfg("apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\nleaderElection:\n  resourceName: edgesched\nprofiles:\n- schedulerName: edgesched\n");
        let all = accesses(&c, &Usage::of(&c, true).unwrap());
        let text: Vec<String> = all.iter().map(|a| a.to_string()).collect();
        for want in [
            "list nodes",
            "watch pods",
            "list priorityclasses.scheduling.k8s.io",
            "watch leases.coordination.k8s.io in kube-system",
            "create pods/binding",
            "patch pods/status",
            "delete pods",
            "update persistentvolumes",
            "get leases.coordination.k8s.io \"edgesched\" in kube-system",
            "update leases.coordination.k8s.io \"edgesched\" in kube-system",
            "create leases.coordination.k8s.io in kube-system",
            "create tokenreviews.authentication.k8s.io",
        ] {
            assert!(text.iter().any(|t| t == want), "missing {want}: {text:#?}");
        }
        let pcs = all.iter().find(|a| a.resource == "priorityclasses").map(|a| a.required);
        assert_eq!(pcs, Some(false), "PriorityClasses are optional");

        // No leader election, no secure-port delegation, no preemption or volume plugins.
        let c = cfg("apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\nleaderElection:\n  leaderElect: false\nprofiles:\n- schedulerName: s\n  plugins:\n    multiPoint:\n      disabled:\n      - name: DefaultPreemption\n      - name: VolumeBinding\n");
        let text: Vec<String> = accesses(&c, &Usage::of(&c, false).unwrap()).iter().map(|a| a.to_string()).collect();
        for absent in ["delete pods", "update persistentvolumes", "create tokenreviews.authentication.k8s.io"] {
            assert!(!text.iter().any(|t| t == absent), "unexpected {absent}");
        }
        assert!(!text.iter().any(|t| t.starts_with("get leases")));
    }

    #[test]
    fn rules_and_names_read_like_manifests() {
        let a = call_access(call("update", "coordination.k8s.io", "leases"), "kube-system", "edgesched");
        assert_eq!(a.to_string(), "update leases.coordination.k8s.io \"edgesched\" in kube-system");
        assert_eq!(
            a.rule(),
            "{apiGroups: [\"coordination.k8s.io\"], resources: [\"leases\"], resourceNames: [\"edgesched\"], verbs: [\"update\"]} in a Role in namespace \"kube-system\""
        );
        let b = call_access(call("create", "", "pods/binding"), "kube-system", "x");
        assert_eq!(b.to_string(), "create pods/binding");
        assert_eq!((b.resource.as_str(), b.subresource.as_str()), ("pods", "binding"));
    }

    #[test]
    fn a_feature_served_by_several_kinds_is_warned_about_once_with_one_rule_naming_them_all() {
        use crate::core::watched::{kind, KindId};
        let d = Denials::default();
        let now = Instant::now();
        let kinds = [KindId::DeviceClass, KindId::ResourceSlice, KindId::ResourceClaim];
        let first: Vec<bool> =
            kinds.iter().map(|&k| d.denied_feature(&kind_access(kind(k), "list", "kube-system"), "forbidden", now)).collect();
        assert_eq!(first, [true, false, false]);
        // A repeat is no first either; another feature is.
        assert!(!d.denied_feature(&kind_access(kind(KindId::DeviceClass), "list", ""), "forbidden", now));
        assert!(d.denied_feature(&kind_access(kind(KindId::PriorityClass), "list", ""), "forbidden", now));
        assert_eq!(d.current().len(), 4);
        // v1.35's system:kube-scheduler grants the three in one rule; the warning names it.
        assert_eq!(
            feature_rule(kind(KindId::ResourceClaim), "list", "kube-system"),
            "{apiGroups: [\"resource.k8s.io\"], resources: [\"deviceclasses\", \"resourceslices\", \"resourceclaims\"], verbs: [\"list\"]} in a ClusterRole"
        );
        assert_eq!(
            feature_rule(kind(KindId::PriorityClass), "watch", ""),
            "{apiGroups: [\"scheduling.k8s.io\"], resources: [\"priorityclasses\"], verbs: [\"watch\"]} in a ClusterRole"
        );
        // Once every kind of the feature is readable again, its next denial warns again.
        for k in kinds {
            d.allowed(&kind_access(kind(k), "list", ""));
        }
        assert!(d.denied_feature(&kind_access(kind(KindId::ResourceSlice), "list", ""), "forbidden", now));
    }

    #[test]
    fn denials_are_recorded_once_and_cleared() {
        let d = Denials::default();
        let now = Instant::now();
        let lease = call_access(call("get", "coordination.k8s.io", "leases"), "kube-system", "edgesched");
        let pcs = kind_access(crate::core::watched::kind(crate::core::watched::KindId::PriorityClass), "list", "kube-system");
        assert!(d.check_required().is_ok());
        assert!(d.denied(&lease, "forbidden", now));
        assert!(!d.denied(&lease, "forbidden", now));
        assert!(d.denied(&pcs, "forbidden", now));
        assert_eq!(d.check_required(), Err("get leases.coordination.k8s.io \"edgesched\" in kube-system forbidden".into()));
        assert_eq!(d.optional_off(), vec!["list priorityclasses.scheduling.k8s.io forbidden".to_string()]);
        assert_eq!(d.current()[0].count, 2);
        assert!(d.allowed(&lease));
        assert!(!d.allowed(&lease));
        assert!(d.check_required().is_ok());
    }
}
