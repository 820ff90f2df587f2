//! NodeVolumeLimits (pkg/scheduler/framework/plugins/nodevolumelimits/csi.go): a node can attach
//! at most `CSINode.spec.drivers[].allocatable.count` volumes of each CSI driver. Volumes are
//! identified by `driver/volumeHandle` (a volume shared by several pods counts once); claims not
//! bound yet count against their class's provisioner under a per-claim placeholder handle.
//!
//! In-tree → CSI migration (csi.go `getCSIDriverInfo`, `getCSIDriverInfoFromSC`,
//! `checkAttachableInlineVolume`; utils.go `isCSIMigrationOn`, commit
//! 025f2834a128798cef30018a5e6a6ae82b5ad885): on a node with a CSINode, AWS EBS volumes (PVs and
//! inline) count as `ebs.csi.aws.com` volumes under the handle csi-translation-lib gives them, and
//! unbound claims of a class provisioned by an in-tree plugin whose migration is always on count
//! against its CSI driver (without a CSINode, neither counts); claims of a Portworx class count
//! against `pxd.portworx.com` on nodes whose CSINode lists the plugin as migrated
//! (CSIMigrationPortworx, GA in v1.35).
//!
//! Not modelled: in-tree PV and inline sources other than AWS EBS (not decoded), and legacy
//! `attachable-volumes-csi-*` node allocatable limits; only CSINode limits apply.

use crate::core::api;
use crate::core::cache::storage::{volume_claim, ClaimInfo, CsiNodeInfo, StorageState};
use crate::core::cache::{Cache, NodeInfo};
use crate::core::framework::{state_as, EventMask, Plugin, PluginState, Points, PreFilterOutcome, Rejection};
use crate::core::model::PodInfo;
use std::borrow::Cow;
use std::collections::HashSet;

use crate::core::texts::node_volume_limits::{looking_up_pvc, ERR_REASON_MAX_VOLUME_COUNT_EXCEEDED};
use crate::core::texts::storage::{ephemeral_not_owned, pvc_not_found, CLAIM_WITHOUT_NAME};

/// Prefix of placeholder handles for claims without a PV (upstream uses a random prefix so they
/// never equal a real handle; a NUL byte achieves the same deterministically).
const UNBOUND_HANDLE_PREFIX: &str = "\u{0}unbound";

pub struct NodeVolumeLimits;

/// csi-translation-lib's `AWSEBSDriverName`.
const EBS_DRIVER: &str = "ebs.csi.aws.com";

/// The in-tree plugins `isCSIMigrationOn` reports migrated whenever the node has a CSINode, with
/// the CSI driver each translates to.
const MIGRATED: [(&str, &str); 4] = [
    ("kubernetes.io/aws-ebs", EBS_DRIVER),
    ("kubernetes.io/gce-pd", "pd.csi.storage.gke.io"),
    ("kubernetes.io/azure-disk", "disk.csi.azure.com"),
    ("kubernetes.io/cinder", "cinder.csi.openstack.org"),
];

/// `KubernetesVolumeIDToEBSVolumeID` (staging/src/k8s.io/csi-translation-lib/plugins/aws_ebs.go):
/// a bare ID is the handle; `aws://<zone>/<id>` gives `<id>`, which must be `vol-…` without a
/// slash (otherwise the volume is not translated, so not counted).
fn ebs_handle(id: &str) -> Option<&str> {
    let Some(url) = id.strip_prefix("aws://") else { return Some(id) };
    let path = url.find('/').map_or("", |i| url[i..].trim_matches('/'));
    (path.starts_with("vol-") && !path.contains('/')).then_some(path)
}

/// The pod whose volumes are being counted.
struct VolumeOwner<'a> {
    namespace: &'a str,
    name: &'a str,
    uid: &'a str,
    volumes: &'a [api::Volume],
    /// The pod being scheduled (its claims must exist) rather than one already on the node.
    is_new: bool,
}

/// A counted volume, `(driver, volume handle)`: upstream's unique name `driver/handle`, kept as
/// its two parts borrowed from the cache where it can be (Filter runs for every node).
type Attachable<'a> = (Cow<'a, str>, Cow<'a, str>);

/// The in-tree Portworx plugin and its CSI driver. Its migration is gated
/// (CSIMigrationPortworx, GA and locked on in v1.35): `isCSIMigrationOn` (utils.go, v1.35) also
/// needs the node's CSINode to list the plugin in its migrated-plugins annotation, so a claim of
/// a Portworx class counts against `pxd.portworx.com` on such nodes and not at all on others.
const PORTWORX: (&str, &str) = ("kubernetes.io/portworx-volume", "pxd.portworx.com");

/// Whether a counted volume counts on a node with this CSINode: everything except a claim of a
/// Portworx class on a node that has not migrated Portworx (those are found by driver and the
/// placeholder handle only unbound claims have).
fn counts_on(csi: &CsiNodeInfo, driver: &str, handle: &str) -> bool {
    !(driver == PORTWORX.1 && handle.starts_with(UNBOUND_HANDLE_PREFIX) && !csi.has_migrated(PORTWORX.0))
}

/// `getCSIDriverInfoFromSC`: an unbound claim counts against its class's provisioner (its CSI
/// driver when it is a migrated in-tree plugin, nothing when the node has no CSINode; a
/// Portworx class's claim is kept here and dropped per node by [`counts_on`]).
fn driver_from_class<'a>(storage: &'a StorageState, claim: &ClaimInfo, migrated: bool) -> Option<Attachable<'a>> {
    let class = storage.class(&claim.storage_class)?;
    let driver = match MIGRATED.iter().chain([&PORTWORX]).find(|(plugin, _)| *plugin == class.provisioner) {
        Some((_, driver)) => migrated.then_some(*driver)?,
        None => &class.provisioner,
    };
    Some((driver.into(), format!("{UNBOUND_HANDLE_PREFIX}-{}/{}", claim.namespace, claim.name).into()))
}

/// `getCSIDriverInfo`: `(driver, volume handle)` of a claim, if it is a CSI volume or a migrated
/// AWS EBS one.
fn csi_driver_info<'a>(storage: &'a StorageState, claim: &ClaimInfo, migrated: bool) -> Option<Attachable<'a>> {
    if claim.volume_name.is_empty() {
        return driver_from_class(storage, claim, migrated);
    }
    let Some(pv) = storage.volume(&claim.volume_name) else {
        return driver_from_class(storage, claim, migrated);
    };
    match &pv.csi {
        Some((driver, handle)) => Some((driver.into(), handle.into())),
        None => Some((EBS_DRIVER.into(), ebs_handle(pv.ebs_volume_id.as_deref().filter(|_| migrated)?)?.into())),
    }
}

/// `filterAttachableVolumes`: add the pod's CSI volumes (and migrated in-tree ones, `migrated`
/// when the node has a CSINode) to `out`.
fn attachable_volumes<'a>(
    storage: &'a StorageState,
    owner: &VolumeOwner<'a>,
    migrated: bool,
    out: &mut HashSet<Attachable<'a>>,
) -> Result<(), Rejection> {
    for v in owner.volumes {
        // `checkAttachableInlineVolume`.
        if let Some(handle) = v.aws_elastic_block_store.as_ref().and_then(|s| ebs_handle(&s.volume_id)) {
            if migrated {
                out.insert((EBS_DRIVER.into(), handle.into()));
            }
            continue;
        }
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
        match csi_driver_info(storage, claim, migrated) {
            Some(volume) if !volume.0.is_empty() && !volume.1.is_empty() => {
                out.insert(volume);
            }
            _ => {}
        }
    }
    Ok(())
}

/// The new pod's attachable volumes as if its node had a CSINode (PreFilter state): they do not
/// depend on the node, and without a CSINode there is no limit, so only the error matters there.
type NewVolumes = Result<Vec<(String, String)>, Rejection>;

fn new_volumes(storage: &StorageState, pod: &PodInfo) -> NewVolumes {
    let owner = VolumeOwner { namespace: &pod.namespace, name: &pod.name, uid: &pod.uid, volumes: &pod.volumes, is_new: true };
    let mut out = HashSet::new();
    attachable_volumes(storage, &owner, true, &mut out)?;
    Ok(out.into_iter().map(|(d, h)| (d.into_owned(), h.into_owned())).collect())
}

/// An upper bound of the volumes attached to `node` (each counted volume of its pods' counts at
/// most once), or None when one of them could make the scan fail (generic ephemeral volumes, claims
/// without a name). When it is low enough no driver can exceed its limit, so Filter is O(pods'
/// volumes) on most nodes instead of resolving every claim of every pod of every node per cycle.
fn attached_bound(storage: &StorageState, node: &NodeInfo) -> Option<usize> {
    let mut bound = 0;
    for p in &node.pods {
        for v in storage.pod_volumes(&p.key).map_or(&[][..], |pv| &pv.volumes) {
            if v.ephemeral.is_some() || v.persistent_volume_claim.as_ref().is_some_and(|c| c.claim_name.is_empty()) {
                return None;
            }
            bound += 1;
        }
    }
    Some(bound)
}

/// `getVolumeLimits`: the drivers with a limit.
fn limits(csi: &CsiNodeInfo) -> impl Iterator<Item = (&str, i64)> {
    csi.drivers.iter().filter_map(|d| Some((d.driver.as_str(), d.count?)))
}

/// The exact count: every volume attached to the node for its pods, then per limited driver the
/// new volumes not attached already.
fn check_attached(storage: &StorageState, node: &NodeInfo, new: &[(String, String)], csi: &CsiNodeInfo) -> Result<(), Rejection> {
    let mut attached = HashSet::new();
    for p in &node.pods {
        if let Some(pv) = storage.pod_volumes(&p.key) {
            let owner =
                VolumeOwner { namespace: &pv.namespace, name: &pv.name, uid: &pv.uid, volumes: &pv.volumes, is_new: false };
            attachable_volumes(storage, &owner, true, &mut attached)?;
        }
    }
    attached.retain(|(d, h)| counts_on(csi, d, h));
    for (driver, max) in limits(csi) {
        let new = new
            .iter()
            .filter(|v| v.0 == driver && counts_on(csi, &v.0, &v.1))
            .filter(|v| !attached.contains(&(v.0.as_str().into(), v.1.as_str().into())))
            .count();
        let old = attached.iter().filter(|v| v.0 == driver).count();
        if new > 0 && (old + new) as i64 > max {
            return Err(Rejection::unschedulable(ERR_REASON_MAX_VOLUME_COUNT_EXCEEDED));
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

    fn pre_filter(&self, cache: &Cache, pod: &PodInfo, state: &mut PluginState) -> PreFilterOutcome {
        // Inline volumes count when migratable (`IsInlineMigratable`: AWS EBS and GCE PD here).
        if pod.volumes.iter().any(|v| {
            v.persistent_volume_claim.is_some()
                || v.ephemeral.is_some()
                || v.aws_elastic_block_store.is_some()
                || v.gce_persistent_disk.is_some()
        }) {
            *state = Some(Box::new(new_volumes(cache.storage(), pod)));
            PreFilterOutcome::Continue
        } else {
            PreFilterOutcome::Skip
        }
    }

    fn filter(&self, cache: &Cache, pod: &PodInfo, node: &NodeInfo, state: &PluginState) -> Result<(), Rejection> {
        if pod.volumes.is_empty() {
            return Ok(());
        }
        let storage = cache.storage();
        let computed;
        let new = match state_as::<NewVolumes>(state) {
            Some(n) => n,
            None => {
                computed = new_volumes(storage, pod);
                &computed
            }
        };
        let new = new.as_ref().map_err(Rejection::clone)?;
        // No CSINode: no limit.
        let Some(csi) = storage.csi_node(node.name()) else { return Ok(()) };
        let bound = attached_bound(storage, node);
        let within = |(driver, max): (&str, i64)| {
            let new = new.iter().filter(|v| v.0 == driver && counts_on(csi, &v.0, &v.1)).count();
            bound.is_some_and(|b| (b + new) as i64 <= max)
        };
        if new.is_empty() || limits(csi).all(within) {
            return Ok(());
        }
        check_attached(storage, node, new, csi)
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

    /// A cache holding the test node `node-for-max-pd-test-1` alone.
    fn one_node() -> Cache {
        let mut c = Cache::new();
        let mut n = api::Node::default();
        n.metadata.name = "node-for-max-pd-test-1".into();
        n.status.allocatable.insert("pods".into(), api::QuantityStr("110".into()));
        c.upsert_node(NodeSpecInfo::from_api(&n));
        c
    }

    /// Cluster of csi_test.go: claims `csi-ebs.csi.aws.com-N` bound to CSI PVs of the EBS driver,
    /// `csi-gce-N` of the GCE driver, and unbound claims of an EBS class.
    fn cache(limits: &[(&str, Option<i64>)]) -> Cache {
        let mut c = one_node();
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

    /// Filter as the framework runs it (after PreFilter), checked against Filter without a
    /// PreFilter state and against the exact count without the bound shortcut.
    fn filter(c: &Cache, p: &PodInfo) -> Result<(), Rejection> {
        let node = c.node_by_name("node-for-max-pd-test-1").unwrap();
        let mut state = None;
        let r = match NodeVolumeLimits.pre_filter(c, p, &mut state) {
            PreFilterOutcome::Skip => Ok(()),
            _ => NodeVolumeLimits.filter(c, p, node, &state),
        };
        assert_eq!(r, NodeVolumeLimits.filter(c, p, node, &None));
        assert_eq!(r, exact(c, p), "{}", p.name);
        r
    }

    /// The count without the shortcut: every attached volume resolved.
    fn exact(c: &Cache, p: &PodInfo) -> Result<(), Rejection> {
        let s = c.storage();
        let Some(csi) = s.csi_node("node-for-max-pd-test-1") else { return new_volumes(s, p).map(drop) };
        let new = new_volumes(s, p)?;
        if new.is_empty() || limits(csi).next().is_none() {
            return Ok(());
        }
        check_attached(s, c.node_by_name("node-for-max-pd-test-1").unwrap(), &new, csi)
    }

    #[test]
    fn bound_shortcut_agrees_with_the_exact_count() {
        // Every limit around the boundary, existing pods sharing volumes with each other and the
        // new pod, pending claims and missing ones: the shortcut never changes the verdict.
        let mut verdicts = Vec::new();
        let claims = ["csi-ebs-0", "csi-ebs-1", "csi-ebs-2", "csi-gce-0", "pending-1", "dangling", "gone"];
        for limit in 0..6 {
            for existing_sets in [&[][..], &[&[0, 1][..]], &[&[0, 1], &[1, 3]], &[&[4, 6], &[0, 0, 2]]] {
                let mut c = cache(&[(EBS, Some(limit)), (GCE, Some(1))]);
                for (i, set) in existing_sets.iter().enumerate() {
                    let names: Vec<&str> = set.iter().map(|&j| claims[j]).collect();
                    existing(&mut c, &format!("e{i}"), &names);
                }
                for new in [&[0][..], &[2], &[3], &[0, 2], &[4, 5], &[1, 2, 3]] {
                    let names: Vec<&str> = new.iter().map(|&j| claims[j]).collect();
                    verdicts.push(filter(&c, &pod("new", &names)));
                }
            }
        }
        assert!(verdicts.contains(&Ok(())) && verdicts.contains(&exceeded()));
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

    const IN_TREE: &str = "kubernetes.io/aws-ebs";

    /// Cluster of csi_test.go's migration cases (commit 00d375050338df847285c0a12bbd90c328d0e707):
    /// for the in-tree plugin, claims `csi-kubernetes.io/aws-ebs-N` bound to AWS EBS PVs of volume
    /// ID `csi-kubernetes.io/aws-ebs-N`; for the CSI driver, claims `csi-ebs.csi.aws.com-N` bound
    /// to CSI PVs of that handle; `csi-hostpath-0` bound to a PV of no modelled source; the unbound
    /// claim `csi-4` of class `csi-sc`, provisioned by the in-tree plugin. `limit`: `None` = no
    /// CSINode, `Some(count)` = a CSINode listing both names as drivers with that limit (the
    /// migrated-plugins annotation, which AWS EBS does not need, left out).
    fn migration_cache(limit: Option<Option<i64>>) -> Cache {
        let mut c = one_node();
        let s = c.storage_mut();
        if let Some(count) = limit {
            s.upsert_csi_node(&csi_node("node-for-max-pd-test-1", &[(IN_TREE, count), (EBS, count)]));
        }
        for j in 0..4 {
            let name = format!("csi-{IN_TREE}-{j}");
            let mut v = pv(&name, "");
            v.spec.aws_elastic_block_store = Some(api::AwsElasticBlockStoreSource { volume_id: name.clone() });
            s.upsert_pv(&v);
            s.upsert_pvc(&bound(pvc("test", &name, ""), &name));
            let name = format!("csi-{EBS}-{j}");
            let mut v = pv(&name, "");
            v.spec.csi = Some(api::CsiPersistentVolumeSource { driver: EBS.into(), volume_handle: name.clone() });
            s.upsert_pv(&v);
            s.upsert_pvc(&bound(pvc("test", &name, ""), &name));
        }
        s.upsert_pv(&pv("csi-hostpath-0", ""));
        s.upsert_pvc(&bound(pvc("test", "csi-hostpath-0", ""), "csi-hostpath-0"));
        s.upsert_storage_class(&class("csi-sc", true, IN_TREE));
        s.upsert_pvc(&pvc("test", "csi-4", "csi-sc"));
        c
    }

    fn inline_ebs(name: &str, volume_id: &str) -> PodInfo {
        let source = api::AwsElasticBlockStoreSource { volume_id: volume_id.into() };
        let v = api::Volume { name: "v".into(), aws_elastic_block_store: Some(source), ..Default::default() };
        pod_with_volumes("test", name, vec![v])
    }

    fn place(c: &mut Cache, p: &PodInfo) {
        c.assume_pod(p, "node-for-max-pd-test-1");
        c.storage_mut().pod_added(p, "node-for-max-pd-test-1");
    }

    #[test]
    fn in_tree_volumes_count_once_migrated() {
        let in_tree = |j: usize| format!("csi-{IN_TREE}-{j}");
        let csi = |j: usize| format!("csi-{EBS}-{j}");
        let claims = |name: &str, c: &[String]| pod(name, &c.iter().map(String::as_str).collect::<Vec<_>>());
        // "should count in-tree volumes if migration is enabled".
        let mut c = migration_cache(Some(Some(2)));
        place(&mut c, &claims("a", &[in_tree(1), in_tree(2)]));
        assert_eq!(filter(&c, &claims("new", &[in_tree(0)])), exceeded());
        // "should count unbound in-tree volumes if migration is enabled".
        assert_eq!(filter(&c, &pod("new", &["csi-4"])), exceeded());
        // "should count in-tree inline volumes if migration is enabled".
        assert_eq!(filter(&c, &inline_ebs("new", "aws-inline1")), exceeded());
        // "nil csi node": neither counts without a CSINode (and there is no limit).
        let mut c = migration_cache(None);
        place(&mut c, &claims("a", &[in_tree(1), in_tree(2)]));
        assert_eq!(filter(&c, &inline_ebs("new", "aws-inline1")), Ok(()));
        // "should not limit pod if volume used does not report limits".
        let mut c = migration_cache(Some(None));
        place(&mut c, &claims("a", &[in_tree(1), in_tree(2)]));
        assert_eq!(filter(&c, &claims("new", &[in_tree(0)])), Ok(()));
        // "should not count non-migratable in-tree volumes".
        let mut c = migration_cache(Some(Some(2)));
        place(&mut c, &claims("a", &[csi(1), csi(2)]));
        assert_eq!(filter(&c, &pod("new", &["csi-hostpath-0"])), Ok(()));
        // "should count in-tree and csi volumes if migration is enabled (when scheduling in-tree
        // volumes)".
        assert_eq!(filter(&c, &claims("new", &[in_tree(0)])), exceeded());
        // "… (when scheduling csi volumes)".
        let mut c = migration_cache(Some(Some(2)));
        place(&mut c, &claims("a", &[in_tree(1), in_tree(2)]));
        assert_eq!(filter(&c, &claims("new", &[csi(0)])), exceeded());
        // "should count in-tree, inline and csi volumes if migration is enabled".
        let mut c = migration_cache(Some(Some(3)));
        place(&mut c, &claims("a", &[csi(1), csi(2)]));
        place(&mut c, &claims("b", &[in_tree(0)]));
        assert_eq!(filter(&c, &inline_ebs("new", "aws-inline1")), exceeded());
        // "should not count in-tree, inline and csi volumes if migration is enabled": the inline
        // volume is the CSI volume already attached.
        assert_eq!(filter(&c, &inline_ebs("new", &csi(1))), Ok(()));
        // "don't skip Filter when the pod has inline migratable volumes".
        assert!(matches!(NodeVolumeLimits.pre_filter(&c, &inline_ebs("x", "v"), &mut None), PreFilterOutcome::Continue));
    }

    #[test]
    fn ebs_volume_ids_translate_as_csi_translation_lib() {
        // csi-translation-lib plugins/aws_ebs_test.go (TestKubernetesVolumeIDToEBSVolumeID): the three
        // accepted forms and an invalid ID.
        assert_eq!(ebs_handle("vol-02399794d890f9375"), Some("vol-02399794d890f9375"));
        assert_eq!(ebs_handle("aws:///vol-02399794d890f9375"), Some("vol-02399794d890f9375"));
        assert_eq!(ebs_handle("aws://us-west-2a/vol-02399794d890f9375"), Some("vol-02399794d890f9375"));
        assert_eq!(ebs_handle("aws://us-west-2a/02399794d890f9375"), None);
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

    /// Claims of a Portworx class count against `pxd.portworx.com` only on nodes whose CSINode
    /// lists the plugin as migrated (utils.go `isCSIMigrationOn` with CSIMigrationPortworx on).
    #[test]
    fn portworx_claims_count_where_the_node_migrated_portworx() {
        let build = |annotated: bool| {
            let mut c = one_node();
            let mut node = csi_node("node-for-max-pd-test-1", &[(PORTWORX.1, Some(1))]);
            if annotated {
                node.metadata.annotations.insert(
                    crate::core::cache::storage::MIGRATED_PLUGINS_ANNOTATION.into(),
                    "kubernetes.io/aws-ebs,kubernetes.io/portworx-volume".into(),
                );
            }
            let s = c.storage_mut();
            s.upsert_csi_node(&node);
            s.upsert_storage_class(&class("px", true, PORTWORX.0));
            s.upsert_pvc(&pvc("test", "px-0", "px"));
            s.upsert_pvc(&pvc("test", "px-1", "px"));
            existing(&mut c, "a", &["px-0"]);
            c
        };
        assert_eq!(filter(&build(true), &pod("new", &["px-1"])), exceeded());
        assert_eq!(filter(&build(false), &pod("new", &["px-1"])), Ok(()));
    }
}
