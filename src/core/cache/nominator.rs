//! Nominated pods: pods that preemption (or an earlier attempt) nominated to a node and that are
//! not bound yet. Filters count higher-or-equal priority nominated pods as if they already ran
//! there (upstream `RunFilterPluginsWithNominatedPods`), so lower-priority pods do not take the
//! room being freed for them. Kept in the cache so every cycle sees the same view.

use crate::core::model::{PodInfo, PodKey};
use std::collections::HashMap;
use std::sync::Arc;

/// Node → nominated pods, and pod → node.
#[derive(Debug, Default)]
pub struct Nominated {
    by_node: HashMap<Box<str>, Vec<Arc<PodInfo>>>,
    by_pod: HashMap<PodKey, Box<str>>,
}

impl Nominated {
    /// Record (or move, or with an empty node clear) a pod's nomination.
    pub fn nominate(&mut self, pod: Arc<PodInfo>, node: &str) {
        self.clear(&pod.key);
        if node.is_empty() {
            return;
        }
        self.by_pod.insert(pod.key.clone(), node.into());
        self.by_node.entry(node.into()).or_default().push(pod);
    }

    /// Forget a pod's nomination (bound, deleted, or nominated elsewhere).
    pub fn clear(&mut self, key: &str) {
        // Nothing nominated (every start-up): no hashing per listed pod.
        if self.by_pod.is_empty() {
            return;
        }
        if let Some(node) = self.by_pod.remove(key) {
            if let Some(list) = self.by_node.get_mut(&node) {
                list.retain(|p| &*p.key != key);
                if list.is_empty() {
                    self.by_node.remove(&node);
                }
            }
        }
    }

    /// Pods nominated to a node.
    pub fn pods_on(&self, node: &str) -> &[Arc<PodInfo>] {
        self.by_node.get(node).map(|v| v.as_slice()).unwrap_or(&[])
    }

    /// The node a pod is nominated to.
    pub fn node_of(&self, key: &str) -> Option<&str> {
        self.by_pod.get(key).map(|n| &**n)
    }

    /// Whether any pod is nominated anywhere (fast path for the cycle).
    pub fn any(&self) -> bool {
        !self.by_pod.is_empty()
    }
}
