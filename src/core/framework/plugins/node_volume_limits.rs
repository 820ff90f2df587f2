//! NodeVolumeLimits (pkg/scheduler/framework/plugins/nodevolumelimits/csi.go): a node can attach
//! at most `CSINode.spec.drivers[].allocatable.count` volumes of each CSI driver. Volumes are
//! identified by `driver/volumeHandle` (a volume shared by several pods counts once); claims not
//! bound yet count against their class's provisioner under a per-claim placeholder handle.
//!
//! Not modelled: in-tree → CSI migration (in-tree PVs and inline volumes are not counted, as on
//! clusters without migrated plugins) and legacy `attachable-volumes-csi-*` node allocatable
//! limits; only CSINode limits apply.

use crate::core::api;
use crate::core::cache::storage::{volume_claim, ClaimInfo, StorageState};
use crate::core::cache::{Cache, NodeInfo};
use crate::core::framework::{EventMask, Plugin, PluginState, Points, PreFilterOutcome, Rejection};
use crate::core::model::PodInfo;
use std::collections::HashMap;

use crate::core::texts::node_volume_limits::{looking_up_pvc, ERR_REASON_MAX_VOLUME_COUNT_EXCEEDED};
use crate::core::texts::storage::{ephemeral_not_owned, pvc_not_found, CLAIM_WITHOUT_NAME};

/// Prefix of placeholder handles for claims without a PV (upstream uses a random prefix so they
/// never equal a real handle; a NUL byte achieves the same deterministically).
const UNBOUND_HANDLE_PREFIX: &str = "\u{0}unbound";

pub struct NodeVolumeLimits;

/// The pod whose volumes are being counted.
struct VolumeOwner<'a> {
    namespace: &'a str,
    name: &'a str,
    uid: &'a str,
    volumes: &'a [api::Volume],
    /// The pod being scheduled (its claims must exist) rather than one already on the node.
    is_new: bool,
}

/// `getCSIDriverInfoFromSC`: an unbound claim counts against its class's provisioner.
fn driver_from_class(storage: &StorageState, claim: &ClaimInfo) -> Option<(String, String)> {
    let class = storage.class(&claim.storage_class)?;
    let handle = format!("{UNBOUND_HANDLE_PREFIX}-{}/{}", claim.namespace, claim.name);
    Some((class.provisioner.clone(), handle))
}

/// `getCSIDriverInfo`: `(driver, volume handle)` of a claim, if it is a CSI volume.
fn csi_driver_info(storage: &StorageState, claim: &ClaimInfo) -> Option<(String, String)> {
    if claim.volume_name.is_empty() {
        return driver_from_class(storage, claim);
    }
    match storage.volume(&claim.volume_name) {
        None => driver_from_class(storage, claim),
        Some(pv) => pv.csi.clone(),
    }
}

/// `filterAttachableVolumes`: add the pod's CSI volumes to `out` (unique name → driver).
fn attachable_volumes(storage: &StorageState, owner: &VolumeOwner, out: &mut HashMap<String, String>) -> Result<(), Rejection> {
    for v in owner.volumes {
        let Some((claim_name, ephemeral)) = volume_claim(owner.name, v) else {
            continue;
        };
        if claim_name.is_empty() {
            return Err(Rejection::error(CLAIM_WITHOUT_NAME));
        }
        let Some(claim) = storage.claim(owner.namespace, &claim_name) else {
            if owner.is_new {
                return Err(Rejection::unresolvable(looking_up_pvc(owner.namespace, &claim_name, &pvc_not_found(&claim_name))));
            }
            continue;
        };
        if ephemeral && claim.controller_uid.as_deref() != Some(owner.uid) {
            return Err(Rejection::error(ephemeral_not_owned(&claim.namespace, &claim.name, owner.namespace, owner.name)));
        }
        match csi_driver_info(storage, claim) {
            Some((driver, handle)) if !driver.is_empty() && !handle.is_empty() => {
                out.insert(format!("{driver}/{handle}"), driver);
            }
            _ => {}
        }
    }
    Ok(())
}

impl Plugin for NodeVolumeLimits {
    fn name(&self) -> &'static str {
        super::names::NODE_VOLUME_LIMITS
    }

    fn points(&self) -> Points {
        Points { pre_filter: true, filter: true, ..Default::default() }
    }

    fn events(&self) -> EventMask {
        EventMask::CSI_NODE_CHANGE | EventMask::ASSIGNED_POD_DELETE | EventMask::PVC_CHANGE
    }

    fn pre_filter(&self, _cache: &Cache, pod: &PodInfo, _state: &mut PluginState) -> PreFilterOutcome {
        if pod.volumes.iter().any(|v| v.persistent_volume_claim.is_some() || v.ephemeral.is_some()) {
            PreFilterOutcome::Continue
        } else {
            PreFilterOutcome::Skip
        }
    }

    fn filter(&self, cache: &Cache, pod: &PodInfo, node: &NodeInfo, _state: &PluginState) -> Result<(), Rejection> {
        if pod.volumes.is_empty() {
            return Ok(());
        }
        let storage = cache.storage();
        let mut new_volumes = HashMap::new();
        let owner =
            VolumeOwner { namespace: &pod.namespace, name: &pod.name, uid: &pod.uid, volumes: &pod.volumes, is_new: true };
        attachable_volumes(storage, &owner, &mut new_volumes)?;
        if new_volumes.is_empty() {
            return Ok(());
        }
        let limits = storage.csi_node(node.name()).map(|c| c.limits()).unwrap_or_default();
        if limits.is_empty() {
            return Ok(());
        }
        let mut attached = HashMap::new();
        for p in &node.pods {
            if let Some(pv) = storage.pod_volumes(&p.key) {
                let owner =
                    VolumeOwner { namespace: &pv.namespace, name: &pv.name, uid: &pv.uid, volumes: &pv.volumes, is_new: false };
                attachable_volumes(storage, &owner, &mut attached)?;
            }
        }
        let mut attached_count: HashMap<&str, i64> = HashMap::new();
        for (unique, driver) in &attached {
            new_volumes.remove(unique);
            *attached_count.entry(driver).or_default() += 1;
        }
        let mut new_count: HashMap<&str, i64> = HashMap::new();
        for driver in new_volumes.values() {
            *new_count.entry(driver).or_default() += 1;
        }
        for (driver, count) in new_count {
            if let Some(max) = limits.get(driver) {
                if attached_count.get(driver).copied().unwrap_or(0) + count > *max {
                    return Err(Rejection::unschedulable(ERR_REASON_MAX_VOLUME_COUNT_EXCEEDED));
                }
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::cache::storage::testutil::*;
    use crate::core::framework::Code;
    use crate::core::model::NodeSpecInfo;

    const EBS: &str = "ebs.csi.aws.com";
    const GCE: &str = "pd.csi.storage.gke.io";

    fn csi_pv(name: &str, driver: &str) -> api::PersistentVolume {
        let mut v = pv(name, "");
        v.spec.csi = Some(api::CsiPersistentVolumeSource { driver: driver.into(), volume_handle: format!("{name}-handle") });
        v
    }

    fn csi_node(name: &str, limits: &[(&str, Option<i64>)]) -> api::CsiNode {
        let mut n = api::CsiNode::default();
        n.metadata.name = name.into();
        n.spec.drivers = limits
            .iter()
            .map(|(d, c)| api::CsiNodeDriver {
                name: (*d).into(),
                node_id: "id".into(),
                allocatable: c.map(|count| api::VolumeNodeResources { count: Some(count) }),
            })
            .collect();
        n
    }

    /// Cluster of csi_test.go: claims `csi-ebs.csi.aws.com-N` bound to CSI PVs of the EBS driver,
    /// `csi-gce-N` of the GCE driver, and unbound claims of an EBS class.
    fn cache(limits: &[(&str, Option<i64>)]) -> Cache {
        let mut c = Cache::new();
        let mut n = api::Node::default();
        n.metadata.name = "node-for-max-pd-test-1".into();
        n.status.allocatable.insert("pods".into(), api::QuantityStr("110".into()));
        c.upsert_node(NodeSpecInfo::from_api(&n));
        let s = c.storage_mut();
        s.upsert_csi_node(&csi_node("node-for-max-pd-test-1", limits));
        for i in 0..4 {
            s.upsert_pv(&csi_pv(&format!("csi-ebs-{i}"), EBS));
            s.upsert_pvc(&bound(pvc("test", &format!("csi-ebs-{i}"), ""), &format!("csi-ebs-{i}")));
            s.upsert_pv(&csi_pv(&format!("csi-gce-{i}"), GCE));
            s.upsert_pvc(&bound(pvc("test", &format!("csi-gce-{i}"), ""), &format!("csi-gce-{i}")));
        }
        s.upsert_storage_class(&class("csi-sc", true, EBS));
        s.upsert_pvc(&pvc("test", "pending-1", "csi-sc"));
        s.upsert_pvc(&pvc("test", "pending-2", "csi-sc"));
        let mut dangling = pvc("test", "dangling", "csi-sc");
        dangling.spec.volume_name = "missing-pv".into();
        s.upsert_pvc(&dangling);
        c
    }

    fn pod(name: &str, claims: &[&str]) -> PodInfo {
        pod_with_volumes("test", name, claims.iter().enumerate().map(|(i, c)| pvc_volume(&format!("v{i}"), c)).collect())
    }

    fn existing(c: &mut Cache, name: &str, claims: &[&str]) {
        let p = pod(name, claims);
        c.assume_pod(&p, "node-for-max-pd-test-1");
        c.storage_mut().pod_added(&p, "node-for-max-pd-test-1");
    }

    fn filter(c: &Cache, p: &PodInfo) -> Result<(), Rejection> {
        NodeVolumeLimits.filter(c, p, c.node_by_name("node-for-max-pd-test-1").unwrap(), &None)
    }

    fn exceeded() -> Result<(), Rejection> {
        Err(Rejection::unschedulable(ERR_REASON_MAX_VOLUME_COUNT_EXCEEDED))
    }

    #[test]
    fn limits_per_driver() {
        // TestCSILimits: "fits when node volume limit >= new pods CSI volume".
        let mut c = cache(&[(EBS, Some(4))]);
        existing(&mut c, "a", &["csi-ebs-0", "csi-ebs-1"]);
        assert_eq!(filter(&c, &pod("new", &["csi-ebs-2", "csi-ebs-3"])), Ok(()));
        // "doesn't when node volume limit <= pods CSI volume".
        let mut c = cache(&[(EBS, Some(2))]);
        existing(&mut c, "a", &["csi-ebs-0", "csi-ebs-1"]);
        assert_eq!(filter(&c, &pod("new", &["csi-ebs-2", "csi-ebs-3"])), exceeded());
        // "should when driver does not support volume limits".
        let mut c = cache(&[(EBS, None)]);
        existing(&mut c, "a", &["csi-ebs-0", "csi-ebs-1"]);
        assert_eq!(filter(&c, &pod("new", &["csi-ebs-2", "csi-ebs-3"])), Ok(()));
        // A volume already attached for another pod is not counted twice.
        let mut c = cache(&[(EBS, Some(2))]);
        existing(&mut c, "a", &["csi-ebs-0", "csi-ebs-1"]);
        assert_eq!(filter(&c, &pod("new", &["csi-ebs-0"])), Ok(()));
        // "doesn't count in-tree volume limits of the other driver": separate drivers.
        let mut c = cache(&[(EBS, Some(2)), (GCE, Some(2))]);
        existing(&mut c, "a", &["csi-ebs-0", "csi-ebs-1"]);
        assert_eq!(filter(&c, &pod("new", &["csi-gce-0", "csi-gce-1"])), Ok(()));
        // No CSINode → no limits.
        let mut c = cache(&[]);
        existing(&mut c, "a", &["csi-ebs-0", "csi-ebs-1"]);
        assert_eq!(filter(&c, &pod("new", &["csi-ebs-2", "csi-ebs-3"])), Ok(()));
    }

    #[test]
    fn pending_claims_count_against_the_provisioner() {
        // "count pending PVCs towards volume limit <= pods CSI volume" and "should count PVCs
        // with invalid PV name but valid SC".
        let mut c = cache(&[(EBS, Some(2))]);
        existing(&mut c, "a", &["pending-1"]);
        assert_eq!(filter(&c, &pod("new", &["csi-ebs-0", "dangling"])), exceeded());
        // The same pending claim used by two pods counts once.
        assert_eq!(filter(&c, &pod("new", &["pending-1", "csi-ebs-0"])), Ok(()));
    }

    #[test]
    fn missing_and_foreign_claims() {
        let c = cache(&[(EBS, Some(2))]);
        let r = filter(&c, &pod("new", &["nope"])).unwrap_err();
        assert_eq!(
            (r.code, r.message()),
            (Code::UnschedulableAndUnresolvable, r#"looking up PVC test/nope: persistentvolumeclaim "nope" not found"#.into())
        );
        // Ephemeral volume whose claim is not owned by the pod ("ephemeral volume not owned").
        let mut p = api::Pod::default();
        p.metadata.namespace = "test".into();
        p.metadata.name = "abc".into();
        p.metadata.uid = "12345".into();
        p.spec.volumes = vec![api::Volume { name: "xyz".into(), ephemeral: Some(serde_json::json!({})), ..Default::default() }];
        let eph = PodInfo::from_api(&p, &crate::core::model::NoPriorityClasses);
        // "ephemeral volume missing" (the upstream test's fake lister says "persistentvolumeclaims").
        let r = filter(&c, &eph).unwrap_err();
        assert_eq!(r.message(), r#"looking up PVC test/abc-xyz: persistentvolumeclaim "abc-xyz" not found"#);
        let mut c = cache(&[(EBS, Some(2))]);
        c.storage_mut().upsert_pvc(&pvc("test", "abc-xyz", "csi-sc"));
        let r = filter(&c, &eph).unwrap_err();
        assert_eq!(
            (r.code, r.message()),
            (Code::Error, "PVC test/abc-xyz was not created for pod test/abc (pod is not owner)".into())
        );
        // Claims of existing pods that no longer exist are simply not counted.
        existing(&mut c, "a", &["gone-1", "gone-2"]);
        assert_eq!(filter(&c, &pod("new", &["csi-ebs-0", "csi-ebs-1"])), Ok(()));
        assert!(matches!(NodeVolumeLimits.pre_filter(&c, &pod("x", &[]), &mut None), PreFilterOutcome::Skip));
    }
}
