//! NodePreference: a Score plugin that prefers nodes by the value of one node label, with weights
//! from its args — "run near the sensors first": prefer `site-a` (100), then `site-b` (40), any
//! other node last. A pod may ask for its own order with the `edgesched.io/prefer` label
//! (`site-b.site-a`: values in decreasing preference, `.`-separated as label values allow).
//!
//! ```yaml
//! pluginConfig:
//! - name: NodePreference
//!   args:
//!     labelKey: topology.kubernetes.io/zone
//!     preferred:
//!     - {value: site-a, weight: 100}
//!     - {value: site-b, weight: 40}
//! ```
//!
//! Scores are normalised to 0–100 (the best node gets 100) and then multiplied by the plugin's
//! weight in the profile, like every score plugin.

use edgesched::plugin::{Cache, EventMask, NodeInfo, Plugin, PluginState, PodInfo, Points, Rejection, MAX_NODE_SCORE};
use serde::Deserialize;

pub const NAME: &str = "NodePreference";
/// A pod's own preference order (label values, best first, separated by dots).
pub const PREFER_LABEL: &str = "edgesched.io/prefer";

/// One preferred label value and its weight (0–100).
#[derive(Debug, Clone, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Preferred {
    pub value: String,
    pub weight: i64,
}

/// `NodePreferenceArgs`.
#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields, default)]
pub struct NodePreferenceArgs {
    pub label_key: String,
    pub preferred: Vec<Preferred>,
}

pub struct NodePreference {
    args: NodePreferenceArgs,
}

impl NodePreference {
    /// Validate the args: a label key, and weights within 0–100.
    pub fn new(args: NodePreferenceArgs) -> Result<NodePreference, String> {
        if args.label_key.is_empty() {
            return Err("labelKey: Required value".into());
        }
        for (i, p) in args.preferred.iter().enumerate() {
            if !(0..=MAX_NODE_SCORE).contains(&p.weight) {
                return Err(format!("preferred[{i}].weight: Invalid value: {}: must be in the range [0, 100]", p.weight));
            }
        }
        Ok(NodePreference { args })
    }

    /// The raw score of a node label value for this pod.
    fn weight(&self, pod: &PodInfo, value: Option<&str>) -> i64 {
        let Some(value) = value else { return 0 };
        if let Some(order) = pod.labels.get_str(PREFER_LABEL) {
            let order: Vec<&str> = order.split('.').filter(|s| !s.is_empty()).collect();
            return match order.iter().position(|v| *v == value) {
                Some(i) => (order.len() - i) as i64,
                None => 0,
            };
        }
        self.args.preferred.iter().find(|p| p.value == value).map(|p| p.weight).unwrap_or(0)
    }
}

impl Plugin for NodePreference {
    fn name(&self) -> &'static str {
        NAME
    }

    fn points(&self) -> Points {
        Points { score: true, normalize: true, ..Default::default() }
    }

    /// A node's labels changing can change the best node; nothing here rejects pods.
    fn events(&self) -> EventMask {
        EventMask::NODE_LABEL
    }

    fn score(&self, _cache: &Cache, pod: &PodInfo, node: &NodeInfo, _state: &PluginState) -> Result<i64, Rejection> {
        Ok(self.weight(pod, node.node.labels.get_str(&self.args.label_key)))
    }

    /// `DefaultNormalizeScore`: the best node gets 100, the others in proportion.
    fn normalize(&self, _pod: &PodInfo, scores: &mut [i64], _state: &PluginState) {
        let max = scores.iter().copied().max().unwrap_or(0);
        if max <= 0 {
            return;
        }
        for s in scores.iter_mut() {
            *s = *s * MAX_NODE_SCORE / max;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use edgesched::core::api;
    use edgesched::core::model::{NoPriorityClasses, NodeSpecInfo};

    fn plugin() -> NodePreference {
        let args: NodePreferenceArgs = edgesched::plugin::decode_args(Some(&serde_json::json!({
            "labelKey": "zone",
            "preferred": [{"value": "site-a", "weight": 100}, {"value": "site-b", "weight": 40}],
        })))
        .expect("args");
        NodePreference::new(args).expect("plugin")
    }

    fn scores(p: &NodePreference, pod: &PodInfo) -> Vec<i64> {
        let mut cache = Cache::new();
        for (name, zone) in [("a", Some("site-a")), ("b", Some("site-b")), ("c", Some("site-c")), ("d", None)] {
            let mut n = api::Node::default();
            n.metadata.name = name.into();
            if let Some(z) = zone {
                n.metadata.labels.insert("zone".into(), z.into());
            }
            cache.upsert_node(NodeSpecInfo::from_api(&n));
        }
        let mut raw: Vec<i64> = ["a", "b", "c", "d"]
            .iter()
            .filter_map(|n| cache.node_by_name(n))
            .map(|n| p.score(&cache, pod, n, &None).unwrap_or(-1))
            .collect();
        p.normalize(pod, &mut raw, &None);
        raw
    }

    fn pod(labels: &[(&str, &str)]) -> PodInfo {
        let mut p = api::Pod::default();
        p.metadata.name = "p".into();
        for (k, v) in labels {
            p.metadata.labels.insert(k.to_string(), v.to_string());
        }
        PodInfo::from_api(&p, &NoPriorityClasses)
    }

    #[test]
    fn nodes_score_by_their_label_weight() {
        assert_eq!(scores(&plugin(), &pod(&[])), vec![100, 40, 0, 0]);
    }

    #[test]
    fn a_pod_can_bring_its_own_order() {
        assert_eq!(scores(&plugin(), &pod(&[(PREFER_LABEL, "site-c.site-b")])), vec![0, 50, 100, 0]);
    }

    #[test]
    fn args_are_validated() {
        assert_eq!(NodePreference::new(NodePreferenceArgs::default()).err().as_deref(), Some("labelKey: Required value"));
        let bad = NodePreferenceArgs { label_key: "zone".into(), preferred: vec![Preferred { value: "x".into(), weight: 101 }] };
        assert!(NodePreference::new(bad).err().is_some_and(|e| e.contains("must be in the range [0, 100]")));
    }
}
