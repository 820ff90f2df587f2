//! How the `resource.k8s.io` kinds reach the scheduler's cache (the DRA half of upstream's event
//! handlers, `pkg/scheduler/eventhandlers.go` and the DRA manager's informers, v1.35), and what
//! the end of a binding does to the claims: the allocations in flight end, the claims PreBind
//! wrote are assumed until the informer catches up (`AssumeClaimAfterAPICall`), and every change
//! of a claim's latest version is a cluster event with the claim before and after, so the
//! queueing hints see it as upstream's handler on the assume cache does.

use super::handlers::Keep;
use super::state::Scheduler;
use crate::core::api::{self, Object};
use crate::core::cache::dra::{ClaimChange, DraKind};
use crate::core::framework::{ClusterEvent, EventMask, EventObject};
use crate::core::logging::{self, Line};
use std::time::Instant;

impl Scheduler {
    /// Wake the pods a change of a claim's latest version may help.
    pub(super) fn claim_changed(&mut self, change: &ClaimChange, now: Instant) {
        let mask = match (&change.old, &change.new) {
            (None, Some(_)) => EventMask::RESOURCE_CLAIM_ADD,
            (Some(_), Some(_)) => EventMask::RESOURCE_CLAIM_UPDATE,
            (_, None) => EventMask::RESOURCE_CLAIM_DELETE,
        };
        let event = ClusterEvent {
            mask,
            old: change.old.as_deref().map(EventObject::ResourceClaim),
            new: change.new.as_deref().map(EventObject::ResourceClaim),
        };
        self.move_pods_on(&event, now);
    }

    /// A binding with DRA writes finished (or failed): the pod's allocations are no longer in
    /// flight, and the claims its PreBind wrote are kept as written until the informer delivers
    /// them or something newer (`bindClaim`'s deferred bookkeeping).
    pub(super) fn dra_binding_finished(&mut self, pod: &str, written: Vec<api::ResourceClaim>, now: Instant) {
        if self.cache.dra().num_in_flight() > 0 {
            for released in self.cache.dra_mut().remove_pending_allocations_of(pod) {
                // Another pod waiting for this claim's allocation may go on ("in the process of
                // being allocated" is over), as it does when upstream's claim update arrives.
                let claim = released.claim;
                logging::v(5, || {
                    Line::new("Released resource in allocation result")
                        .s("claim", claim.key())
                        .s("uid", &claim.metadata.uid)
                        .s("resourceVersion", &claim.metadata.resource_version)
                });
            }
        }
        for claim in written {
            let key = claim.key();
            match self.cache.dra_mut().assume_claim(claim) {
                Ok(change) => self.claim_changed(&change, now),
                // Only for reasons that are fine (a concurrent update or delete).
                Err(e) => logging::v(5, || Line::new("Claim not stored in assume cache").s("claim", &key).s("err", &e.0)),
            }
        }
    }

    /// Forget the pod's in-flight allocations and restore what was assumed for its claims
    /// (Unreserve's bookkeeping: the pod will not be bound where Reserve put it).
    pub(super) fn dra_release(&mut self, pod: &str, now: Instant) {
        if self.cache.dra().num_in_flight() == 0 {
            return;
        }
        for released in self.cache.dra_mut().remove_pending_allocations_of(pod) {
            let key = released.claim.key();
            logging::v(5, || {
                Line::new("Released resource in allocation result")
                    .s("claim", &key)
                    .s("uid", &released.claim.metadata.uid)
                    .s("resourceVersion", &released.claim.metadata.resource_version)
            });
            if let Some(change) = self.cache.dra_mut().restore_claim(&key) {
                self.claim_changed(&change, now);
            }
        }
    }
}

/// The labels of a kind's add, update and delete events (`scheduler_event_handling_duration_seconds`).
fn label(labels: [&'static str; 3], action: usize) -> Option<&'static str> {
    labels.get(action).copied()
}

impl Keep for api::DeviceClass {
    fn upsert(s: &mut Scheduler, class: Box<Self>, listing: bool, now: Instant) {
        let old = s.cache.dra_mut().upsert_class(*class);
        if !listing {
            s.move_pods(if old.is_some() { EventMask::DEVICE_CLASS_UPDATE } else { EventMask::DEVICE_CLASS_ADD }, now);
        }
    }
    fn remove(s: &mut Scheduler, name: &str, listing: bool, now: Instant) {
        if s.cache.dra_mut().remove_class(name).is_some() && !listing {
            s.move_pods(EventMask::DEVICE_CLASS_DELETE, now);
        }
    }
    fn keys(s: &Scheduler) -> Vec<String> {
        s.cache.dra().class_names()
    }
    fn listed(s: &mut Scheduler, now: Instant) {
        s.cache.dra_mut().set_readable(DraKind::DeviceClasses);
        s.move_pods(EventMask::DEVICE_CLASS_ADD, now);
    }
    fn unavailable(s: &mut Scheduler, _now: Instant) {
        s.cache.dra_mut().set_unreadable(DraKind::DeviceClasses);
    }
    fn event_label(_s: &Scheduler, _o: Option<&Self>, _key: &str, action: usize) -> Option<&'static str> {
        label(["DeviceClassAdd", "DeviceClassUpdate", "DeviceClassDelete"], action)
    }
}

impl Keep for api::ResourceSlice {
    fn upsert(s: &mut Scheduler, slice: Box<Self>, listing: bool, now: Instant) {
        let existed = s.cache.dra().slice_names().contains(&slice.metadata.name);
        if let Err(e) = s.cache.dra_mut().upsert_slice(&slice) {
            Line::new("Ignoring a ResourceSlice that cannot be read; its devices are not allocated")
                .s("resourceSlice", &slice.metadata.name)
                .s("err", e.to_string())
                .warning();
        }
        if !listing {
            s.move_pods(if existed { EventMask::RESOURCE_SLICE_UPDATE } else { EventMask::RESOURCE_SLICE_ADD }, now);
        }
    }
    fn remove(s: &mut Scheduler, name: &str, listing: bool, now: Instant) {
        if s.cache.dra_mut().remove_slice(name) && !listing {
            s.move_pods(EventMask::RESOURCE_SLICE_DELETE, now);
        }
    }
    fn keys(s: &Scheduler) -> Vec<String> {
        s.cache.dra().slice_names()
    }
    fn listed(s: &mut Scheduler, now: Instant) {
        s.cache.dra_mut().set_readable(DraKind::ResourceSlices);
        s.move_pods(EventMask::RESOURCE_SLICE_ADD, now);
    }
    fn unavailable(s: &mut Scheduler, _now: Instant) {
        s.cache.dra_mut().set_unreadable(DraKind::ResourceSlices);
    }
    fn event_label(_s: &Scheduler, _o: Option<&Self>, _key: &str, action: usize) -> Option<&'static str> {
        label(["ResourceSliceAdd", "ResourceSliceUpdate", "ResourceSliceDelete"], action)
    }
}

impl Keep for api::ResourceClaim {
    fn upsert(s: &mut Scheduler, claim: Box<Self>, listing: bool, now: Instant) {
        if let Some(change) = s.cache.dra_mut().upsert_claim(*claim) {
            if !listing {
                s.claim_changed(&change, now);
            }
        }
    }
    fn remove(s: &mut Scheduler, key: &str, listing: bool, now: Instant) {
        if let Some(change) = s.cache.dra_mut().remove_claim(key) {
            if !listing {
                s.claim_changed(&change, now);
            }
        }
    }
    fn keys(s: &Scheduler) -> Vec<String> {
        s.cache.dra().claims().keys().cloned().collect()
    }
    fn holds_any(s: &Scheduler) -> bool {
        !s.cache.dra().claims().is_empty()
    }
    fn listed(s: &mut Scheduler, now: Instant) {
        s.cache.dra_mut().set_readable(DraKind::ResourceClaims);
        // One event for the whole list: the hints see no object and queue (upstream errs on
        // the side of an attempt, too).
        s.move_pods(EventMask::RESOURCE_CLAIM_ADD | EventMask::RESOURCE_CLAIM_UPDATE, now);
    }
    fn unavailable(s: &mut Scheduler, _now: Instant) {
        s.cache.dra_mut().set_unreadable(DraKind::ResourceClaims);
    }
    fn event_label(_s: &Scheduler, _o: Option<&Self>, _key: &str, action: usize) -> Option<&'static str> {
        label(["ResourceClaimAdd", "ResourceClaimUpdate", "ResourceClaimDelete"], action)
    }
}

/// Templates are kept for the what-if commands only (the live scheduler never watches them).
impl Keep for api::ResourceClaimTemplate {
    fn upsert(s: &mut Scheduler, template: Box<Self>, _listing: bool, _now: Instant) {
        s.cache.dra_mut().upsert_template(*template);
    }
    fn remove(s: &mut Scheduler, key: &str, _listing: bool, _now: Instant) {
        s.cache.dra_mut().remove_template(key);
    }
    fn keys(s: &Scheduler) -> Vec<String> {
        s.cache.dra().template_keys()
    }
}
