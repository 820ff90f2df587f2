//! Lease-based leader election, as client-go's `tools/leaderelection` with the Lease lock.
//!
//! The decision is a pure function of (observed lease, identity, local clock): [`Elector::decide`]
//! says whether to create the lease, take it over, renew it, or wait. The shell thread performs the
//! GET/CREATE/UPDATE (optimistic concurrency: a 409 simply means "observe again") and applies the
//! timing rules: retry every `retryPeriod`, give up leadership when a renewal has not succeeded
//! within `renewDeadline`.

use crate::core::api::{Lease, LeaseMeta, LeaseSpec};

/// Annotation listing the scheduler names a lease holder serves (comma-separated).
pub const SCHEDULER_NAMES_ANNOTATION: &str = "edgesched.io/scheduler-names";
use crate::core::timefmt;
use std::time::{Duration, Instant, SystemTime};

/// Timing of the election (`leaderElection` in the config).
#[derive(Debug, Clone, Copy)]
pub struct Timing {
    pub lease_duration: Duration,
    pub renew_deadline: Duration,
    pub retry_period: Duration,
}

/// What to do after observing the lease.
#[derive(Debug, Clone, PartialEq)]
pub enum Decision {
    /// No lease exists: create it holding it ourselves.
    Create(Lease),
    /// Write this lease (take over an expired/released lease or renew ours); `resourceVersion`
    /// is set for optimistic concurrency.
    Update(Lease),
    /// Someone else holds a valid lease.
    Wait { holder: String },
}

/// Election state of one candidate.
#[derive(Debug, Clone)]
pub struct Elector {
    pub identity: String,
    pub namespace: String,
    pub name: String,
    pub timing: Timing,
    /// Scheduler names served by this candidate, recorded on the lease.
    pub scheduler_names: Vec<String>,
    /// Last lease spec we saw, and when (on our clock) it last changed.
    observed: Option<LeaseSpec>,
    observed_time: Option<Instant>,
    /// Another holder and when (on our clock) we first saw it hold the lease.
    other_holder_since: Option<(String, Instant)>,
}

impl Elector {
    pub fn new(identity: &str, namespace: &str, name: &str, timing: Timing) -> Elector {
        Elector {
            identity: identity.into(),
            namespace: namespace.into(),
            name: name.into(),
            timing,
            scheduler_names: Vec::new(),
            observed: None,
            observed_time: None,
            other_holder_since: None,
        }
    }

    /// Another candidate holds the lease: its identity and since when (our clock) we have seen
    /// it hold the lease without interruption.
    pub fn held_by_other(&self) -> Option<(&str, Instant)> {
        self.other_holder_since.as_ref().map(|(h, t)| (h.as_str(), *t))
    }

    /// Whether we hold the lease according to what we last observed.
    pub fn is_leader(&self) -> bool {
        self.observed.as_ref().and_then(|s| s.holder_identity.as_deref()) == Some(self.identity.as_str())
    }

    /// Holder of the lease as last observed.
    pub fn observed_holder(&self) -> Option<&str> {
        self.observed.as_ref().and_then(|s| s.holder_identity.as_deref()).filter(|h| !h.is_empty())
    }

    /// When the observed lease expires on our clock (observedTime + leaseDuration).
    pub fn lease_expiry(&self) -> Option<Instant> {
        let duration = self
            .observed
            .as_ref()
            .and_then(|s| s.lease_duration_seconds)
            .map(|s| Duration::from_secs(s.max(0) as u64))
            .unwrap_or(self.timing.lease_duration);
        self.observed_time.map(|t| t + duration)
    }

    /// Record a lease read from the API (or written by us).
    pub fn observe(&mut self, lease: &Lease, now: Instant) {
        if self.observed.as_ref() != Some(&lease.spec) {
            self.observed = Some(lease.spec.clone());
            self.observed_time = Some(now);
        }
        let holder = lease.spec.holder_identity.as_deref().unwrap_or("");
        if holder.is_empty() || holder == self.identity {
            self.other_holder_since = None;
        } else if self.other_holder_since.as_ref().is_none_or(|(h, _)| h != holder) {
            self.other_holder_since = Some((holder.to_string(), now));
        }
    }

    /// Decide the next write (`tryAcquireOrRenew`). `lease` is the current object, if any.
    pub fn decide(&mut self, lease: Option<&Lease>, now: Instant, wall: SystemTime) -> Decision {
        let now_str = timefmt::format_micro(wall);
        let Some(lease) = lease else {
            let spec = LeaseSpec {
                holder_identity: Some(self.identity.clone()),
                lease_duration_seconds: Some(self.timing.lease_duration.as_secs() as i32),
                acquire_time: Some(now_str.clone()),
                renew_time: Some(now_str),
                lease_transitions: Some(0),
            };
            return Decision::Create(self.lease(spec, None));
        };
        self.observe(lease, now);
        let holder = lease.spec.holder_identity.clone().unwrap_or_default();
        let valid = self.lease_expiry().is_some_and(|exp| exp > now);
        if !holder.is_empty() && holder != self.identity && valid {
            return Decision::Wait { holder };
        }
        let old = &lease.spec;
        let transitions = old.lease_transitions.unwrap_or(0);
        let spec = if holder == self.identity {
            LeaseSpec {
                holder_identity: Some(self.identity.clone()),
                lease_duration_seconds: Some(self.timing.lease_duration.as_secs() as i32),
                acquire_time: old.acquire_time.clone().or_else(|| Some(now_str.clone())),
                renew_time: Some(now_str),
                lease_transitions: Some(transitions),
            }
        } else {
            LeaseSpec {
                holder_identity: Some(self.identity.clone()),
                lease_duration_seconds: Some(self.timing.lease_duration.as_secs() as i32),
                acquire_time: Some(now_str.clone()),
                renew_time: Some(now_str),
                lease_transitions: Some(transitions + 1),
            }
        };
        Decision::Update(self.lease(spec, Some(&lease.metadata)))
    }

    /// The write that gives the lease up on shutdown (ReleaseOnCancel), as client-go's
    /// `release()`: holderIdentity `""` (client-go always sends the field), 1 s duration,
    /// acquireTime = renewTime = now, transitions kept.
    pub fn release(&self, lease: &Lease, wall: SystemTime) -> Option<Lease> {
        if lease.spec.holder_identity.as_deref() != Some(self.identity.as_str()) {
            return None;
        }
        let now_str = timefmt::format_micro(wall);
        let spec = LeaseSpec {
            holder_identity: Some(String::new()),
            lease_duration_seconds: Some(1),
            acquire_time: Some(now_str.clone()),
            renew_time: Some(now_str),
            lease_transitions: lease.spec.lease_transitions,
        };
        Some(self.lease(spec, Some(&lease.metadata)))
    }

    /// The lease to write: `current`'s metadata (resourceVersion for optimistic concurrency, and
    /// whatever labels or annotations others put there) with our spec and names annotation.
    fn lease(&self, spec: LeaseSpec, current: Option<&LeaseMeta>) -> Lease {
        let mut metadata = current.cloned().unwrap_or_default();
        metadata.name = self.name.clone();
        metadata.namespace = self.namespace.clone();
        // Kept on release too: client-go leaves the lease's metadata alone when releasing.
        if !self.scheduler_names.is_empty() {
            metadata.annotations.insert(SCHEDULER_NAMES_ANNOTATION.to_string(), self.scheduler_names.join(","));
        }
        Lease { kind: "Lease".into(), api_version: "coordination.k8s.io/v1".into(), metadata, spec }
    }
}

/// The healthz watchdog (`HealthzAdaptor.Check`): a leader whose lease expired more than
/// `tolerance` ago (on its own clock) is unhealthy; a standby always is healthy.
pub fn watchdog(leading: bool, lease_expiry: Option<Instant>, now: Instant, tolerance: Duration) -> Result<(), String> {
    match (leading, lease_expiry) {
        (true, Some(exp)) if now > exp + tolerance => Err("lease not renewed in time".into()),
        _ => Ok(()),
    }
}

/// How many lease durations another holder may keep the lease before a standby says so: a
/// failover takes about one, so three mean the other scheduler is alive and not giving way.
pub const STANDBY_REPORT_AFTER_LEASES: u32 = 3;
/// How often a standby repeats that report while nothing changes.
pub const STANDBY_REPORT_EVERY: Duration = Duration::from_secs(600);

/// Decides when a standby candidate reports who keeps the lease (once after
/// [`STANDBY_REPORT_AFTER_LEASES`] lease durations, then every [`STANDBY_REPORT_EVERY`]).
#[derive(Debug, Clone, Default)]
pub struct StandbyReporter {
    last: Option<(String, Instant)>,
}

impl StandbyReporter {
    /// The holder to report now, with the time since it has held the lease, if a report is due.
    pub fn due(&mut self, elector: &Elector, now: Instant) -> Option<(String, Duration)> {
        let (holder, since) = elector.held_by_other()?;
        let held = now.saturating_duration_since(since);
        if held < elector.timing.lease_duration * STANDBY_REPORT_AFTER_LEASES {
            return None;
        }
        let due = match &self.last {
            Some((h, at)) if h == holder => now.saturating_duration_since(*at) >= STANDBY_REPORT_EVERY,
            _ => true,
        };
        if !due {
            return None;
        }
        self.last = Some((holder.to_string(), now));
        Some((holder.to_string(), held))
    }
}

/// The commonest multi-scheduler mistake: leader election on kube-scheduler's own Lease
/// (`kube-system/kube-scheduler`, the default when `leaderElection` is not configured) by a
/// process that does not serve `default-scheduler`. It then stands by beside kube-scheduler for
/// ever and schedules nothing. Returns the warning to print, with the fix.
pub fn default_lease_conflict(le: &crate::core::config::LeaderElection, scheduler_names: &[String]) -> Option<String> {
    if !le.leader_elect
        || le.resource_namespace != DEFAULT_LEASE_NAMESPACE
        || le.resource_name != DEFAULT_LEASE_NAME
        || scheduler_names.iter().any(|n| n == "default-scheduler")
    {
        return None;
    }
    let suggestion = scheduler_names.first().map(String::as_str).unwrap_or("my-scheduler");
    Some(format!(
        "leader election uses the Lease {DEFAULT_LEASE_NAMESPACE}/{DEFAULT_LEASE_NAME}, which the default scheduler holds, \
         but no profile serves \"default-scheduler\" ({}): this process will stand by while kube-scheduler runs and \
         schedule nothing. Set leaderElection.resourceName (for example to {suggestion:?}) or --leader-elect=false",
        scheduler_names.join(", ")
    ))
}

/// kube-scheduler's Lease namespace and name (the defaults of `leaderElection`).
pub const DEFAULT_LEASE_NAMESPACE: &str = "kube-system";
pub const DEFAULT_LEASE_NAME: &str = "kube-scheduler";

#[cfg(test)]
mod tests {
    use super::*;

    fn timing() -> Timing {
        Timing {
            lease_duration: Duration::from_secs(15),
            renew_deadline: Duration::from_secs(10),
            retry_period: Duration::from_secs(2),
        }
    }

    fn stored(d: &Decision, rv: &str) -> Lease {
        let mut l = match d {
            Decision::Create(l) | Decision::Update(l) => l.clone(),
            Decision::Wait { .. } => panic!("no write"),
        };
        l.metadata.resource_version = rv.into();
        l
    }

    #[test]
    fn create_renew_takeover_and_release() {
        let t0 = Instant::now();
        let wall = SystemTime::UNIX_EPOCH + Duration::from_secs(1_700_000_000);
        let mut a = Elector::new("host-a_1", "kube-system", "edgesched", timing());
        let mut b = Elector::new("host-b_2", "kube-system", "edgesched", timing());

        // a creates the lease
        let d = a.decide(None, t0, wall);
        assert!(
            matches!(&d, Decision::Create(l) if l.spec.lease_transitions == Some(0) && l.spec.holder_identity.as_deref() == Some("host-a_1"))
        );
        let lease = stored(&d, "1");
        a.observe(&lease, t0);
        assert!(a.is_leader());

        // b sees a valid lease held by a and waits
        assert_eq!(b.decide(Some(&lease), t0, wall), Decision::Wait { holder: "host-a_1".into() });

        // a renews: acquireTime and transitions kept, renewTime moves
        let later = wall + Duration::from_secs(2);
        let d = a.decide(Some(&lease), t0 + Duration::from_secs(2), later);
        let renewed = stored(&d, "2");
        assert_eq!(renewed.spec.acquire_time, lease.spec.acquire_time);
        assert_eq!(renewed.spec.lease_transitions, Some(0));
        assert_ne!(renewed.spec.renew_time, lease.spec.renew_time);
        assert_eq!(renewed.metadata.resource_version, "2");

        // b observes the renewal at t0+3; a then dies. b may take over only after 15 s of b's clock
        // without change.
        assert!(matches!(b.decide(Some(&renewed), t0 + Duration::from_secs(3), later), Decision::Wait { .. }));
        assert!(matches!(b.decide(Some(&renewed), t0 + Duration::from_secs(17), later), Decision::Wait { .. }));
        let d = b.decide(Some(&renewed), t0 + Duration::from_secs(19), later);
        let taken = stored(&d, "3");
        assert_eq!(taken.spec.holder_identity.as_deref(), Some("host-b_2"));
        assert_eq!(taken.spec.lease_transitions, Some(1));

        // b releases on shutdown; a candidate may take a released lease at once
        let released = stored(&Decision::Update(b.release(&taken, later).expect("holder")), "4");
        assert_eq!(released.spec.holder_identity.as_deref(), Some(""));
        assert_eq!(released.spec.lease_duration_seconds, Some(1));
        let mut c = Elector::new("host-c_3", "kube-system", "edgesched", timing());
        assert!(matches!(c.decide(Some(&released), t0 + Duration::from_secs(20), later), Decision::Update(_)));
        assert!(a.release(&taken, later).is_none(), "only the holder releases");
    }

    #[test]
    fn watchdog_fails_when_lease_not_renewed() {
        let t0 = Instant::now();
        let mut a = Elector::new("a", "ns", "l", timing());
        let lease = stored(&a.decide(None, t0, SystemTime::now()), "1");
        a.observe(&lease, t0);
        let tolerance = Duration::from_secs(20);
        assert!(watchdog(a.is_leader(), a.lease_expiry(), t0 + Duration::from_secs(30), tolerance).is_ok());
        assert!(watchdog(a.is_leader(), a.lease_expiry(), t0 + Duration::from_secs(36), tolerance).is_err());
        assert!(watchdog(false, a.lease_expiry(), t0 + Duration::from_secs(36), tolerance).is_ok(), "standby");
    }
}

#[cfg(test)]
mod standby_tests {
    use super::*;

    fn lease(holder: &str, renew: &str) -> Lease {
        Lease {
            spec: LeaseSpec {
                holder_identity: Some(holder.into()),
                lease_duration_seconds: Some(15),
                renew_time: Some(renew.into()),
                ..Default::default()
            },
            ..Default::default()
        }
    }

    #[test]
    fn standby_reports_a_holder_that_keeps_the_lease_once_then_rarely() {
        let t = Timing {
            lease_duration: Duration::from_secs(15),
            renew_deadline: Duration::from_secs(10),
            retry_period: Duration::from_secs(2),
        };
        let t0 = Instant::now();
        let mut e = Elector::new("me", "kube-system", "kube-scheduler", t);
        let mut r = StandbyReporter::default();
        e.observe(&lease("kube-scheduler-a", "1"), t0);
        // Renewals by the same holder do not restart the clock.
        e.observe(&lease("kube-scheduler-a", "2"), t0 + Duration::from_secs(10));
        assert_eq!(r.due(&e, t0 + Duration::from_secs(44)), None);
        assert_eq!(r.due(&e, t0 + Duration::from_secs(45)), Some(("kube-scheduler-a".into(), Duration::from_secs(45))));
        assert_eq!(r.due(&e, t0 + Duration::from_secs(46)), None, "once");
        assert_eq!(r.due(&e, t0 + Duration::from_secs(644)), None);
        assert!(r.due(&e, t0 + Duration::from_secs(645)).is_some(), "then every 10 minutes");
        // A new holder starts over; so does our own leadership.
        e.observe(&lease("kube-scheduler-b", "3"), t0 + Duration::from_secs(700));
        assert_eq!(r.due(&e, t0 + Duration::from_secs(720)), None);
        assert_eq!(e.held_by_other().map(|(h, _)| h), Some("kube-scheduler-b"));
        e.observe(&lease("me", "4"), t0 + Duration::from_secs(800));
        assert_eq!(e.held_by_other(), None);
        assert_eq!(r.due(&e, t0 + Duration::from_secs(2000)), None);
    }

    #[test]
    fn contending_for_kube_schedulers_lease_is_detected() {
        let mut le = crate::core::config::LeaderElection::default();
        assert_eq!((le.resource_namespace.as_str(), le.resource_name.as_str()), ("kube-system", "kube-scheduler"));
        let w = default_lease_conflict(&le, &["custom-scheduler".to_string()]).expect("conflict");
        assert!(
            w.contains("kube-system/kube-scheduler") && w.contains("resourceName") && w.contains("\"custom-scheduler\""),
            "{w}"
        );
        assert_eq!(default_lease_conflict(&le, &["default-scheduler".to_string(), "x".to_string()]), None);
        le.resource_name = "custom-scheduler".into();
        assert_eq!(default_lease_conflict(&le, &["custom-scheduler".to_string()]), None);
        le.resource_name = "kube-scheduler".into();
        le.leader_elect = false;
        assert_eq!(default_lease_conflict(&le, &["custom-scheduler".to_string()]), None);
    }
}
