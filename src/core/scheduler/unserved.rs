//! Pods whose `schedulerName` no running scheduler serves stay Pending without a single event —
//! the most common complaint about second schedulers. The core notices them (through the
//! leader-election Leases of other schedulers) and reports them: a log line, a gauge and,
//! when enabled, a Warning event. It never binds or patches them.

use super::effects::Effect;
use super::state::{Scheduler, UNSERVED_CHECK_EVERY, UNSERVED_GRACE};
use crate::core::api;
use crate::core::events::{self, pod_reference};
use crate::core::logging::Line;
use crate::core::metrics::names as m;
use crate::core::texts;
use crate::core::watched::KindId;
use crate::core::watched::KindSync;
use std::time::{Instant, SystemTime};

impl Scheduler {
    /// Which scheduler names are served, as far as this process can see.
    pub fn schedulers(&self, wall: SystemTime) -> crate::core::served_names::Schedulers {
        let leases: Vec<api::Lease> = self.leases.values().cloned().collect();
        crate::core::served_names::Schedulers {
            ours: self.profiles.iter().map(|p| p.scheduler_name.clone()).collect(),
            seen: crate::core::served_names::schedulers_from_leases(&leases, wall),
            known: self.known_scheduler_names.clone(),
            assume_default_served: true,
        }
    }

    /// Report pending pods whose `schedulerName` nobody serves: a log line once per pod, the
    /// `edgesched_pending_pods_unserved_scheduler_name` gauge, and — only when enabled, since
    /// it writes to pods we do not own — one Warning event per pod. Never binds or patches them.
    pub(super) fn check_unserved(&mut self, now: Instant, wall: SystemTime) {
        // Without other schedulers' leases every foreign name would look unserved.
        if self.kinds.get(&KindId::Lease) != Some(&KindSync::Synced) {
            return;
        }
        if self.last_unserved_check.is_some_and(|t| now.saturating_duration_since(t) < UNSERVED_CHECK_EVERY) {
            return;
        }
        self.last_unserved_check = Some(now);
        let scheds = self.schedulers(wall);
        let running = scheds.running_names();
        let mut counts: std::collections::BTreeMap<String, usize> = std::collections::BTreeMap::new();
        let reporter = self.profiles.first().map(|p| p.scheduler_name.clone()).unwrap_or_else(|| "edgesched".into());
        for f in self.foreign.values_mut() {
            if now.saturating_duration_since(f.first_seen) < UNSERVED_GRACE {
                continue;
            }
            if scheds.serving(&f.scheduler_name) != crate::core::served_names::Served::Nobody {
                f.reported = false;
                continue;
            }
            *counts.entry(f.scheduler_name.clone()).or_default() += 1;
            if f.reported {
                continue;
            }
            f.reported = true;
            Line::new("Pending pod names a scheduler that is not running")
                .s("pod", format!("{}/{}", f.namespace, f.name))
                .s("schedulerName", &f.scheduler_name)
                .s("running", running.join(","))
                .warning();
            if self.warn_unserved {
                let note = texts::events::no_scheduler_for_name(
                    &f.scheduler_name,
                    scheds.suggestion(&f.scheduler_name).as_deref(),
                    &running,
                );
                let regarding = pod_reference(&f.namespace, &f.name, &f.uid, &f.resource_version);
                self.effects.push(Effect::Event(events::no_scheduler_for_name(regarding, &reporter, note)));
            }
        }
        let series: Vec<(Vec<String>, f64)> = counts.into_iter().map(|(k, v)| (vec![k], v as f64)).collect();
        self.metrics.replace_gauge(m::UNSERVED, &series);
    }
}
