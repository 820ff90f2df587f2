//! VolumeZone (pkg/scheduler/framework/plugins/volumezone/volume_zone.go): a pod whose bound PVs
//! carry zone/region labels can only run on nodes in those zones/regions. Multi-zone PVs list
//! their zones separated by `__`. Nodes without any topology label accept every pod, and unbound
//! WaitForFirstConsumer claims are left to VolumeBinding.

use crate::core::cache::storage::StorageState;
use crate::core::cache::{Cache, NodeInfo};
use crate::core::framework::{state_as, EventMask, Plugin, PluginState, Points, PreFilterOutcome, Rejection};
use crate::core::model::PodInfo;

use crate::core::texts::storage::{pv_not_found, pvc_not_found, storage_class_not_found, CLAIM_WITHOUT_NAME};
use crate::core::texts::volume_zone::{CLAIM_WITHOUT_VOLUME_OR_CLASS, ERR_REASON_CONFLICT, VOLUME_WITHOUT_NAME};

const BETA_ZONE: &str = "failure-domain.beta.kubernetes.io/zone";
const BETA_REGION: &str = "failure-domain.beta.kubernetes.io/region";
const GA_ZONE: &str = "topology.kubernetes.io/zone";
const GA_REGION: &str = "topology.kubernetes.io/region";
/// Topology labels checked, in upstream's order.
const TOPOLOGY_LABELS: [&str; 4] = [BETA_ZONE, BETA_REGION, GA_ZONE, GA_REGION];
/// `LabelMultiZoneDelimiter`.
const MULTI_ZONE_DELIMITER: &str = "__";

pub struct VolumeZone;

/// One topology constraint of a bound PV: the node's `key` label must be one of `values`.
#[derive(Debug, Clone, PartialEq)]
struct PvTopology {
    key: &'static str,
    values: Vec<String>,
}

/// `LabelZonesToSet`: `a__b` → {a, b}; an empty element makes the whole label invalid.
fn zones_of(label: &str) -> Option<Vec<String>> {
    label
        .split(MULTI_ZONE_DELIMITER)
        .map(|z| {
            let z = z.trim();
            (!z.is_empty()).then(|| z.to_string())
        })
        .collect()
}

/// `translateToGALabel`: a PV's beta label may be satisfied by the node's GA label.
fn ga_label(key: &str) -> &str {
    match key {
        BETA_ZONE => GA_ZONE,
        BETA_REGION => GA_REGION,
        other => other,
    }
}

/// `getPVbyPod`: the topology constraints of every bound PV the pod uses.
fn pod_pv_topologies(storage: &StorageState, pod: &PodInfo) -> Result<Vec<PvTopology>, Rejection> {
    let mut out = Vec::new();
    for v in &pod.volumes {
        let Some(src) = &v.persistent_volume_claim else {
            continue;
        };
        if src.claim_name.is_empty() {
            return Err(Rejection::unresolvable(CLAIM_WITHOUT_NAME));
        }
        let Some(claim) = storage.claim(&pod.namespace, &src.claim_name) else {
            return Err(Rejection::unresolvable(pvc_not_found(&src.claim_name)));
        };
        if claim.volume_name.is_empty() {
            if claim.storage_class.is_empty() {
                return Err(Rejection::unresolvable(CLAIM_WITHOUT_VOLUME_OR_CLASS));
            }
            let Some(class) = storage.class(&claim.storage_class) else {
                return Err(Rejection::unresolvable(storage_class_not_found(&claim.storage_class)));
            };
            if class.wait_for_first_consumer {
                continue;
            }
            return Err(Rejection::unresolvable(VOLUME_WITHOUT_NAME));
        }
        let Some(pv) = storage.volume(&claim.volume_name) else {
            return Err(Rejection::unresolvable(pv_not_found(&claim.volume_name)));
        };
        for key in TOPOLOGY_LABELS {
            // An unparsable label is ignored, as upstream logs and skips it.
            if let Some(values) = pv.labels.get(key).and_then(|l| zones_of(l)) {
                out.push(PvTopology { key, values });
            }
        }
    }
    Ok(out)
}

impl Plugin for VolumeZone {
    fn name(&self) -> &'static str {
        super::names::VOLUME_ZONE
    }

    fn points(&self) -> Points {
        Points { pre_filter: true, filter: true, ..Default::default() }
    }

    fn events(&self) -> EventMask {
        EventMask::STORAGE_CLASS_CHANGE
            | EventMask::PVC_CHANGE
            | EventMask::PV_CHANGE
            | EventMask::NODE_ADD
            | EventMask::NODE_LABEL
    }

    fn pre_filter(&self, cache: &Cache, pod: &PodInfo, state: &mut PluginState) -> PreFilterOutcome {
        match pod_pv_topologies(cache.storage(), pod) {
            Err(r) => PreFilterOutcome::Reject(r),
            Ok(t) if t.is_empty() => PreFilterOutcome::Skip,
            Ok(t) => {
                *state = Some(Box::new(t));
                PreFilterOutcome::Continue
            }
        }
    }

    fn clone_state(&self, state: &PluginState) -> PluginState {
        state_as::<Vec<PvTopology>>(state).map(|s| Box::new(s.clone()) as Box<dyn std::any::Any + Send>)
    }

    fn filter(&self, cache: &Cache, pod: &PodInfo, node: &NodeInfo, state: &PluginState) -> Result<(), Rejection> {
        if pod.volumes.is_empty() {
            return Ok(());
        }
        // Without PreFilter (a profile that does not enable it) compute here, as upstream does.
        let computed;
        let topologies = match state_as::<Vec<PvTopology>>(state) {
            Some(t) => t,
            None => {
                computed = pod_pv_topologies(cache.storage(), pod)?;
                &computed
            }
        };
        let labels = &node.node.labels;
        if !TOPOLOGY_LABELS.iter().any(|k| labels.get_str(k).is_some()) {
            return Ok(());
        }
        for t in topologies {
            let value = labels.get_str(t.key).or_else(|| labels.get_str(ga_label(t.key)));
            if !value.is_some_and(|v| t.values.iter().any(|z| z == v)) {
                return Err(Rejection::unresolvable(ERR_REASON_CONFLICT));
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::api;
    use crate::core::cache::storage::testutil::*;
    use crate::core::framework::Code;
    use crate::core::model::NodeSpecInfo;

    fn node(name: &str, labels: &[(&str, &str)]) -> NodeSpecInfo {
        let mut n = api::Node::default();
        n.metadata.name = name.into();
        for (k, v) in labels {
            n.metadata.labels.insert((*k).into(), (*v).into());
        }
        NodeSpecInfo::from_api(&n)
    }

    fn labelled_pv(name: &str, labels: &[(&str, &str)]) -> api::PersistentVolume {
        let mut v = pv(name, "");
        for (k, val) in labels {
            v.metadata.labels.insert((*k).into(), (*val).into());
        }
        v
    }

    /// The fixtures of volume_zone_test.go: claims `PVC_1` (→ Vol_1 with the beta zone label
    /// `us-west1-a`), `PVC_2` (→ Vol_2 with beta region `us-west1`), `PVC_3` (→ Vol_3 with GA
    /// labels), `PVC_MZ` (→ multi-zone `us-west1-b__us-west1-c`), plus unbound claims.
    fn cache(node_spec: NodeSpecInfo) -> Cache {
        let mut c = Cache::new();
        c.upsert_node(node_spec);
        let s = c.storage_mut();
        s.upsert_pv(&labelled_pv("Vol_1", &[(BETA_ZONE, "us-west1-a")]));
        s.upsert_pv(&labelled_pv("Vol_2", &[(BETA_REGION, "us-west1"), ("uselessLabel", "none")]));
        s.upsert_pv(&labelled_pv("Vol_3", &[(GA_ZONE, "us-west1-a"), (GA_REGION, "us-west1")]));
        s.upsert_pv(&labelled_pv("Vol_MZ", &[(BETA_ZONE, "us-west1-b__us-west1-c")]));
        for (claim, vol) in [("PVC_1", "Vol_1"), ("PVC_2", "Vol_2"), ("PVC_3", "Vol_3"), ("PVC_MZ", "Vol_MZ")] {
            s.upsert_pvc(&bound(pvc("default", claim, ""), vol));
        }
        s.upsert_pvc(&pvc("default", "PVC_EmptySC", ""));
        s.upsert_pvc(&pvc("default", "PVC_NoSC", "Class_0"));
        s.upsert_pvc(&pvc("default", "PVC_WaitSC", "Class_Wait"));
        s.upsert_pvc(&pvc("default", "PVC_ImmediateSC", "Class_Immediate"));
        s.upsert_storage_class(&class("Class_Wait", true, ""));
        s.upsert_storage_class(&class("Class_Immediate", false, ""));
        c
    }

    fn check(node_labels: &[(&str, &str)], claim: &str) -> Result<(), Rejection> {
        let c = cache(node("host1", node_labels));
        let p = pod_with_volumes("default", "pod", vec![pvc_volume("v", claim)]);
        let mut state = None;
        match VolumeZone.pre_filter(&c, &p, &mut state) {
            PreFilterOutcome::Reject(r) => Err(r),
            PreFilterOutcome::Skip => Ok(()),
            _ => VolumeZone.filter(&c, &p, c.node_by_name("host1").unwrap(), &state),
        }
    }

    fn conflict() -> Result<(), Rejection> {
        Err(Rejection::unresolvable(ERR_REASON_CONFLICT))
    }

    #[test]
    fn single_zone() {
        // TestSingleZone.
        assert_eq!(check(&[], "PVC_1"), Ok(()), "node without labels");
        assert_eq!(check(&[(BETA_ZONE, "us-west1-a"), ("uselessLabel", "none")], "PVC_1"), Ok(()), "beta zone label matched");
        assert_eq!(check(&[(BETA_REGION, "us-west1")], "PVC_2"), Ok(()), "beta region label matched");
        assert_eq!(check(&[(BETA_REGION, "no_us-west1")], "PVC_2"), conflict(), "beta region label mismatched");
        assert_eq!(check(&[(BETA_ZONE, "no_us-west1-a")], "PVC_1"), conflict(), "beta zone label mismatched");
        assert_eq!(check(&[(GA_ZONE, "us-west1-a")], "PVC_1"), Ok(()), "beta PV label matched by GA node label");
        assert_eq!(check(&[(GA_ZONE, "us-west1-a"), (GA_REGION, "us-west1")], "PVC_3"), Ok(()), "GA labels matched");
        assert_eq!(check(&[(GA_ZONE, "us-west1-b"), (GA_REGION, "us-west1")], "PVC_3"), conflict(), "GA zone mismatched");
    }

    #[test]
    fn filter_without_prefilter_computes_the_topologies() {
        let c = cache(node("host1", &[(BETA_ZONE, "no_us-west1-a")]));
        let p = pod_with_volumes("default", "pod", vec![pvc_volume("v", "PVC_1")]);
        assert_eq!(VolumeZone.filter(&c, &p, c.node_by_name("host1").unwrap(), &None), conflict());
    }

    #[test]
    fn multi_zone() {
        // TestMultiZone.
        assert_eq!(check(&[(BETA_ZONE, "us-west1-c")], "PVC_MZ"), Ok(()), "multi-zone PV matched");
        assert_eq!(check(&[(BETA_ZONE, "us-west1-a")], "PVC_MZ"), conflict(), "multi-zone PV mismatched");
        assert_eq!(zones_of("a__"), None, "empty element invalidates the label");
    }

    #[test]
    fn with_binding() {
        // TestWithBinding.
        let zone = [(BETA_ZONE, "us-west1-a")];
        assert_eq!(check(&zone, "PVC_1"), Ok(()), "label zone failure domain matched");
        assert_eq!(
            check(&zone, "PVC_EmptySC").map_err(|r| (r.code, r.message())),
            Err((Code::UnschedulableAndUnresolvable, "PersistentVolumeClaim had no pv name and storageClass name".into())),
            "unbound volume empty storage class"
        );
        // The real lister's NotFound names the resource in the singular (the upstream test's fake
        // lister says "storageclasses").
        assert_eq!(
            check(&zone, "PVC_NoSC").map_err(|r| r.message()),
            Err(r#"storageclass.storage.k8s.io "Class_0" not found"#.into()),
            "unbound volume no storage class"
        );
        // Upstream's fixture leaves the binding mode unset ("VolumeBindingMode not set"); the API
        // server always defaults it, so an explicit Immediate class is what clusters have.
        assert_eq!(
            check(&zone, "PVC_ImmediateSC").map_err(|r| r.message()),
            Err("PersistentVolume had no name".into()),
            "unbound volume immediate binding mode"
        );
        assert_eq!(check(&zone, "PVC_WaitSC"), Ok(()), "unbound volume wait binding mode");
        assert_eq!(
            check(&zone, "PVC_missing").map_err(|r| r.message()),
            Err(r#"persistentvolumeclaim "PVC_missing" not found"#.into())
        );
    }
}
