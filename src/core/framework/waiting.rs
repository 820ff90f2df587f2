//! Pods held at Permit: they passed the scheduling cycle and are assumed on their node, but one or
//! more Permit plugins asked them to wait; each such plugin must allow them (or its timeout
//! rejects them) before they are bound. Upstream keeps a goroutine blocked per pod
//! (pkg/scheduler/framework/runtime/waiting_pods_map.go, `WaitOnPermit` in framework.go); here the
//! scheduler core keeps the map and resolves it when plugins allow or reject, or when the clock it
//! is given passes a deadline — no thread waits.

use crate::core::model::{PodInfo, PodKey};
use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::{Duration, Instant};

/// `maxTimeout` (framework.go): no plugin may make a pod wait longer than 15 minutes.
pub const MAX_PERMIT_WAIT: Duration = Duration::from_secs(15 * 60);

/// One waiting pod.
#[derive(Debug, Clone)]
pub struct WaitingPod {
    pub pod: Arc<PodInfo>,
    /// The node the pod is assumed on.
    pub node: Box<str>,
    /// When the pod started waiting (`scheduler_permit_wait_duration_seconds`).
    pub since: Instant,
    /// Plugins that have not allowed the pod yet, with how long they let it wait and until when.
    pending: Vec<(&'static str, Duration, Instant)>,
}

impl WaitingPod {
    /// Plugins that still have to allow the pod (`GetPendingPlugins`).
    pub fn pending_plugins(&self) -> Vec<&'static str> {
        self.pending.iter().map(|p| p.0).collect()
    }

    /// Until when `plugin` holds the pod (`None` once it allowed it).
    pub fn deadline_for(&self, plugin: &str) -> Option<Instant> {
        self.pending.iter().find(|p| p.0 == plugin).map(|p| p.2)
    }
}

/// A decision a plugin takes about a waiting pod (`WaitingPod.Allow` / `Reject`), applied by the
/// scheduler core after the plugin returns.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum WaitingAction {
    Allow { pod: PodKey, plugin: &'static str },
    Reject { pod: PodKey, plugin: &'static str, message: String },
}

/// The waiting pods, by pod key.
#[derive(Debug, Default)]
pub struct WaitingPods {
    pods: BTreeMap<PodKey, WaitingPod>,
}

impl WaitingPods {
    /// Every waiting pod (`IterateOverWaitingPods`).
    pub fn iter(&self) -> impl Iterator<Item = &WaitingPod> {
        self.pods.values()
    }

    /// A waiting pod (`GetWaitingPod`).
    pub fn get(&self, key: &str) -> Option<&WaitingPod> {
        self.pods.get(key)
    }

    pub fn len(&self) -> usize {
        self.pods.len()
    }

    pub fn is_empty(&self) -> bool {
        self.pods.is_empty()
    }

    /// `newWaitingPod`: `waits` are the plugins that asked to wait and for how long (already
    /// capped at [`MAX_PERMIT_WAIT`]).
    pub fn add(&mut self, pod: Arc<PodInfo>, node: Box<str>, waits: &[(&'static str, Duration)], now: Instant) {
        let pending = waits.iter().map(|(p, d)| (*p, *d, now + *d)).collect();
        self.pods.insert(pod.key.clone(), WaitingPod { pod, node, since: now, pending });
    }

    /// `WaitingPod.Allow`: the plugin no longer holds the pod. Returns the pod, removed, once no
    /// plugin holds it any more (it may be bound).
    pub fn allow(&mut self, key: &str, plugin: &str) -> Option<WaitingPod> {
        let wp = self.pods.get_mut(key)?;
        wp.pending.retain(|p| p.0 != plugin);
        if wp.pending.is_empty() {
            self.pods.remove(key)
        } else {
            None
        }
    }

    /// Remove a pod (rejected, or deleted while waiting).
    pub fn remove(&mut self, key: &str) -> Option<WaitingPod> {
        self.pods.remove(key)
    }

    /// Pods whose wait at some plugin has run out, removed, with that plugin and its wait.
    pub fn expired(&mut self, now: Instant) -> Vec<(WaitingPod, &'static str, Duration)> {
        let due: Vec<PodKey> =
            self.pods.iter().filter(|(_, w)| w.pending.iter().any(|p| p.2 <= now)).map(|(k, _)| k.clone()).collect();
        let mut out = Vec::new();
        for key in due {
            if let Some(wp) = self.pods.remove(&key) {
                let (plugin, wait) = wp
                    .pending
                    .iter()
                    .filter(|p| p.2 <= now)
                    .min_by_key(|p| p.2)
                    .map(|p| (p.0, p.1))
                    .unwrap_or(("", Duration::ZERO));
                out.push((wp, plugin, wait));
            }
        }
        out
    }

    /// The earliest deadline of any waiting pod (when the scheduler must look again).
    pub fn next_deadline(&self) -> Option<Instant> {
        self.pods.values().flat_map(|w| w.pending.iter().map(|p| p.2)).min()
    }
}

/// What Permit and PostFilter plugins see of the waiting pods (read-only) and how they allow or
/// reject them: their decisions are recorded and applied by the scheduler core afterwards.
pub struct WaitingHandle<'a> {
    pods: Option<&'a WaitingPods>,
    actions: Vec<WaitingAction>,
    now: Option<Instant>,
}

impl<'a> WaitingHandle<'a> {
    pub fn new(pods: Option<&'a WaitingPods>) -> WaitingHandle<'a> {
        WaitingHandle { pods, actions: Vec::new(), now: None }
    }

    /// The same handle telling plugins the cycle's time (a plugin whose pods share one deadline
    /// turns it into the wait it asks for).
    pub fn at(mut self, now: Option<Instant>) -> WaitingHandle<'a> {
        self.now = now;
        self
    }

    /// The cycle's time, when the caller gave it.
    pub fn now(&self) -> Option<Instant> {
        self.now
    }

    /// Every waiting pod.
    pub fn iter(&self) -> impl Iterator<Item = &WaitingPod> {
        self.pods.into_iter().flat_map(|p| p.iter())
    }

    /// A waiting pod by key.
    pub fn get(&self, key: &str) -> Option<&WaitingPod> {
        self.pods.and_then(|p| p.get(key))
    }

    /// Let `plugin` stop holding the pod.
    pub fn allow(&mut self, pod: &PodKey, plugin: &'static str) {
        self.actions.push(WaitingAction::Allow { pod: pod.clone(), plugin });
    }

    /// Reject the waiting pod: it is forgotten on its node and goes back to the queue.
    pub fn reject(&mut self, pod: &PodKey, plugin: &'static str, message: impl Into<String>) {
        self.actions.push(WaitingAction::Reject { pod: pod.clone(), plugin, message: message.into() });
    }

    /// The recorded decisions, in order.
    pub fn into_actions(self) -> Vec<WaitingAction> {
        self.actions
    }

    pub(crate) fn take_actions(&mut self) -> Vec<WaitingAction> {
        std::mem::take(&mut self.actions)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pod(name: &str) -> Arc<PodInfo> {
        let mut p = crate::core::api::Pod::default();
        p.metadata.namespace = "ns".into();
        p.metadata.name = name.into();
        Arc::new(PodInfo::from_api(&p, &crate::core::model::NoPriorityClasses))
    }

    #[test]
    fn a_pod_is_released_when_every_waiting_plugin_allowed_it() {
        // waiting_pods_map.go: Allow only signals success once no plugin is pending.
        let t0 = Instant::now();
        let mut w = WaitingPods::default();
        w.add(pod("a"), "n1".into(), &[("P1", Duration::from_secs(10)), ("P2", Duration::from_secs(5))], t0);
        assert_eq!(w.get("ns/a").map(|p| p.pending_plugins()), Some(vec!["P1", "P2"]));
        assert!(w.allow("ns/a", "P1").is_none());
        assert_eq!(w.next_deadline(), Some(t0 + Duration::from_secs(5)));
        assert!(w.allow("ns/a", "P2").is_some_and(|p| &*p.node == "n1"));
        assert!(w.is_empty());
    }

    #[test]
    fn the_first_expired_plugin_rejects() {
        let t0 = Instant::now();
        let mut w = WaitingPods::default();
        w.add(pod("a"), "n1".into(), &[("P1", Duration::from_secs(10)), ("P2", Duration::from_secs(5))], t0);
        w.add(pod("b"), "n1".into(), &[("P1", Duration::from_secs(60))], t0);
        assert!(w.expired(t0 + Duration::from_secs(4)).is_empty());
        let gone = w.expired(t0 + Duration::from_secs(11));
        assert_eq!(gone.len(), 1);
        assert_eq!((gone[0].1, gone[0].2), ("P2", Duration::from_secs(5)));
        assert_eq!(w.len(), 1);
    }
}
