//! Which scheduler serves a `spec.schedulerName`? Pods naming a scheduler that does not run stay
//! Pending forever without a single event — the most common complaint about second schedulers.
//! A name counts as served when one of our profiles has it, when a leader-election Lease shows a
//! live scheduler for it, when the operator lists it (`--known-scheduler-names`), or — unless
//! told otherwise — when it is `default-scheduler`.

use crate::core::api::Lease;
use crate::core::lease::SCHEDULER_NAMES_ANNOTATION;
use crate::core::timefmt;
use std::time::{Duration, SystemTime};

/// A scheduler seen through its Lease.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SeenScheduler {
    /// Scheduler names the lease stands for.
    pub names: Vec<String>,
    /// `namespace/name` of the lease.
    pub lease: String,
    pub holder: String,
    /// Time since the last renewal (wall clock), if known.
    pub renewed_ago: Option<Duration>,
    /// Held and renewed within its lease duration.
    pub live: bool,
}

/// Interpret leader-election leases. Names come from edgesched's annotation when present;
/// otherwise the lease name is taken as the scheduler name (`kube-scheduler` stands for
/// `default-scheduler`, and `lock-object-<name>`-style names for `<name>`).
pub fn schedulers_from_leases(leases: &[Lease], now: SystemTime) -> Vec<SeenScheduler> {
    let mut out = Vec::new();
    for l in leases {
        let holder = l.spec.holder_identity.clone().unwrap_or_default();
        let renew = l.spec.renew_time.as_deref().and_then(timefmt::parse_system_time);
        let renewed_ago = renew.and_then(|t| now.duration_since(t).ok());
        let duration = Duration::from_secs(l.spec.lease_duration_seconds.unwrap_or(15).max(0) as u64);
        let live = !holder.is_empty() && renewed_ago.is_some_and(|a| a <= duration);
        let names: Vec<String> = match l.metadata.annotations.get(SCHEDULER_NAMES_ANNOTATION) {
            Some(list) => list.split(',').map(str::trim).filter(|s| !s.is_empty()).map(str::to_string).collect(),
            None if l.metadata.name == "kube-scheduler" => vec!["default-scheduler".into()],
            None => vec![l.metadata.name.clone()],
        };
        out.push(SeenScheduler {
            names,
            lease: format!("{}/{}", l.metadata.namespace, l.metadata.name),
            holder,
            renewed_ago,
            live,
        });
    }
    out
}

/// Who serves a scheduler name.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Served {
    /// One of this process's profiles.
    Ours,
    /// A live scheduler seen through its lease.
    Seen(SeenScheduler),
    /// Listed by the operator.
    Known,
    /// `default-scheduler`, assumed to be kube-scheduler.
    AssumedDefault,
    /// Nobody we know of: pods with this name will not be scheduled.
    Nobody,
}

/// Everything known about running schedulers.
#[derive(Debug, Clone, Default)]
pub struct Schedulers {
    pub ours: Vec<String>,
    pub seen: Vec<SeenScheduler>,
    pub known: Vec<String>,
    pub assume_default_served: bool,
}

impl Schedulers {
    /// Who serves `name`.
    pub fn serving(&self, name: &str) -> Served {
        if self.ours.iter().any(|n| n == name) {
            return Served::Ours;
        }
        if let Some(s) = self.seen.iter().find(|s| s.live && s.names.iter().any(|n| n == name)) {
            return Served::Seen(s.clone());
        }
        if self.known.iter().any(|n| n == name) {
            return Served::Known;
        }
        if self.assume_default_served && name == "default-scheduler" {
            return Served::AssumedDefault;
        }
        Served::Nobody
    }

    /// Every name we believe is served (for messages).
    pub fn running_names(&self) -> Vec<String> {
        let mut v: Vec<String> = self.ours.clone();
        for s in self.seen.iter().filter(|s| s.live) {
            v.extend(s.names.iter().cloned());
        }
        v.extend(self.known.iter().cloned());
        if self.assume_default_served {
            v.push("default-scheduler".into());
        }
        v.sort();
        v.dedup();
        v
    }

    /// The running name closest to a typo, if it is close enough to be a likely mistake.
    pub fn suggestion(&self, name: &str) -> Option<String> {
        let best = self.running_names().into_iter().map(|n| (edit_distance(name, &n), n)).min_by_key(|(d, _)| *d)?;
        (best.0 > 0 && best.0 <= (name.len() / 3).max(2)).then_some(best.1)
    }
}

/// Levenshtein distance (small strings only).
pub fn edit_distance(a: &str, b: &str) -> usize {
    let a: Vec<char> = a.chars().collect();
    let b: Vec<char> = b.chars().collect();
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    for i in 1..=a.len() {
        let mut cur = vec![i; b.len() + 1];
        for j in 1..=b.len() {
            let cost = usize::from(a[i - 1] != b[j - 1]);
            cur[j] = (prev[j] + 1).min(cur[j - 1] + 1).min(prev[j - 1] + cost);
        }
        prev = cur;
    }
    prev[b.len()]
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::api::{LeaseMeta, LeaseSpec};

    fn lease(name: &str, holder: &str, renewed: &str, annotation: Option<&str>) -> Lease {
        let mut l = Lease {
            metadata: LeaseMeta { name: name.into(), namespace: "kube-system".into(), ..Default::default() },
            spec: LeaseSpec {
                holder_identity: Some(holder.into()),
                lease_duration_seconds: Some(15),
                renew_time: Some(renewed.into()),
                ..Default::default()
            },
            ..Default::default()
        };
        if let Some(a) = annotation {
            l.metadata.annotations.insert(SCHEDULER_NAMES_ANNOTATION.into(), a.into());
        }
        l
    }

    #[test]
    fn leases_tell_which_names_are_served() {
        let now = timefmt::parse_system_time("2026-01-01T00:00:30Z").expect("time");
        let seen = schedulers_from_leases(
            &[
                lease("kube-scheduler", "cp-1_x", "2026-01-01T00:00:25.000000Z", None),
                lease("edge", "e_1", "2026-01-01T00:00:29.000000Z", Some("edge-a, edge-b")),
                lease("stale", "s_1", "2026-01-01T00:00:00.000000Z", None),
            ],
            now,
        );
        let s = Schedulers { ours: vec!["mine".into()], seen, known: vec!["batch".into()], assume_default_served: false };
        assert_eq!(s.serving("mine"), Served::Ours);
        assert!(matches!(s.serving("default-scheduler"), Served::Seen(_)));
        assert!(matches!(s.serving("edge-b"), Served::Seen(_)));
        assert_eq!(s.serving("stale"), Served::Nobody, "a lease not renewed in time is not a running scheduler");
        assert_eq!(s.serving("batch"), Served::Known);
        assert_eq!(s.suggestion("edge-c"), Some("edge-a".into()));
        assert_eq!(s.suggestion("completely-different"), None);
        let assumed = Schedulers { assume_default_served: true, ..Default::default() };
        assert_eq!(assumed.serving("default-scheduler"), Served::AssumedDefault);
    }
}
