//! The device accounting checked against a straightforward recount: random clusters of devices,
//! random claim churn through every path a claim takes in the scheduler (informer add, update,
//! delete and relist; allocation in flight from Reserve; the scheduler's own write assumed and
//! later confirmed, superseded or restored; a pod's binding finishing or failing), and after
//! every step the incrementally kept counts must equal a recount from a plain model of what
//! each claim and each in-flight allocation holds. PostFilter's deallocation and Unreserve's
//! reservation patch (written, assumed, then seen by the informer) and the claims becoming
//! unreadable under RBAC are part of the churn. Last, the per-node device counts the what-if
//! page shows.

use super::*;
use crate::core::rng::Rng;
use std::collections::BTreeMap;

const DRIVER: &str = "gpu.example.com";
const POOLS: [&str; 3] = ["node-a", "node-b", "node-c"];
const DEVICES: u64 = 4;

fn allocation(rng: &mut Rng) -> api::AllocationResult {
    let n = 1 + rng.below(3);
    let results = (0..n)
        .map(|i| api::DeviceRequestAllocationResult {
            request: format!("req-{i}"),
            driver: DRIVER.into(),
            pool: POOLS[rng.below(POOLS.len() as u64) as usize].into(),
            device: format!("gpu-{}", rng.below(DEVICES)),
            // Admin access devices are never counted.
            admin_access: (rng.below(8) == 0).then_some(true),
            ..Default::default()
        })
        .collect();
    api::AllocationResult { devices: api::DeviceAllocationResult { results, config: Vec::new() }, ..Default::default() }
}

/// A `reservedFor` entry for `pod`.
fn consumer(pod: &str) -> api::ResourceClaimConsumerReference {
    api::ResourceClaimConsumerReference {
        resource: "pods".into(),
        name: pod.into(),
        uid: format!("uid-{pod}"),
        ..Default::default()
    }
}

fn claim(name: &str, uid: &str, rv: u64, alloc: Option<api::AllocationResult>) -> api::ResourceClaim {
    let mut c = api::ResourceClaim::default();
    c.metadata.namespace = "ns".into();
    c.metadata.name = name.into();
    c.metadata.uid = uid.into();
    c.metadata.resource_version = rv.to_string();
    c.status.allocation = alloc;
    c
}

/// What the store must hold, kept the plain way.
#[derive(Default)]
struct Model {
    /// key → (informer version, latest version).
    claims: BTreeMap<String, (api::ResourceClaim, api::ResourceClaim)>,
    /// uid → (pod, claim with allocation).
    in_flight: BTreeMap<String, (String, api::ResourceClaim)>,
}

impl Model {
    fn rv(c: &api::ResourceClaim) -> u64 {
        c.metadata.resource_version.parse().unwrap_or(0)
    }

    fn informer(&mut self, c: api::ResourceClaim) {
        let key = c.key();
        match self.claims.get(&key) {
            Some((_, latest)) if Self::rv(&c) <= Self::rv(latest) => {}
            _ => {
                self.claims.insert(key, (c.clone(), c));
            }
        }
    }

    fn recount(&self) -> BTreeMap<DeviceId, u32> {
        let mut out = BTreeMap::new();
        let all = self.claims.values().map(|(_, l)| l).chain(self.in_flight.values().map(|(_, c)| c));
        for c in all {
            if let Some(a) = &c.status.allocation {
                for id in allocated::exclusive_devices(a) {
                    *out.entry(id).or_default() += 1;
                }
            }
        }
        out
    }
}

fn check(state: &DraState, model: &Model, step: usize, op: &str) {
    let want = model.recount();
    let got: BTreeMap<DeviceId, u32> =
        state.allocated().devices().into_iter().map(|id| (id.clone(), state.allocated().count(id))).collect();
    assert_eq!(got, want, "step {step} ({op}): devices in use and how many allocations hold each");
    assert_eq!(state.allocated(), &state.recount(), "step {step} ({op}): incremental counts equal the store's recount");
    assert_eq!(state.claims().len(), model.claims.len(), "step {step} ({op})");
    assert_eq!(state.num_in_flight(), model.in_flight.len(), "step {step} ({op})");
    for (key, (api_v, latest)) in &model.claims {
        assert_eq!(state.claims().get(key).map(|c| &**c), Some(latest), "step {step} ({op}): {key}");
        assert_eq!(state.claims().get_api(key).map(|c| &**c), Some(api_v), "step {step} ({op}): {key}");
    }
}

#[test]
fn device_accounting_equals_a_recount_under_random_churn() {
    for seed in 0..150u64 {
        let mut rng = Rng::seeded(seed);
        let mut state = DraState::default();
        let mut model = Model::default();
        let mut rv = 1u64;
        let names: Vec<String> = (0..6).map(|i| format!("claim-{i}")).collect();
        let pods = ["pod-1", "pod-2", "pod-3"];
        for step in 0..400 {
            let name = &names[rng.below(names.len() as u64) as usize];
            let key = format!("ns/{name}");
            let uid = format!("uid-{name}");
            rv += 1;
            let op = match rng.below(13) {
                // Informer add or update: with or without an allocation.
                0 | 1 => {
                    let alloc = (rng.below(2) == 0).then(|| allocation(&mut rng));
                    let mut c = claim(name, &uid, rv, alloc);
                    if c.status.allocation.is_some() {
                        c.status.reserved_for = pods.iter().filter(|_| rng.below(2) == 0).map(|p| consumer(p)).collect();
                    }
                    state.upsert_claim(c.clone());
                    model.informer(c);
                    "informer upsert"
                }
                // An informer copy older than what is kept (a relist racing a write).
                2 => {
                    let old = rv.saturating_sub(1 + rng.below(5));
                    let c = claim(name, &uid, old, Some(allocation(&mut rng)));
                    state.upsert_claim(c.clone());
                    model.informer(c);
                    "stale informer upsert"
                }
                // Informer delete (also what a relist that misses the claim does).
                3 => {
                    state.remove_claim(&key);
                    model.claims.remove(&key);
                    "informer delete"
                }
                // Reserve: an allocation in flight for a pod.
                4 | 5 => {
                    let pod: PodKey = pods[rng.below(pods.len() as u64) as usize].into();
                    let c = claim(name, &uid, rv, Some(allocation(&mut rng)));
                    state.signal_pending_allocation(&pod, Arc::new(c.clone()));
                    model.in_flight.insert(uid.clone(), (pod.to_string(), c));
                    "in flight"
                }
                // PreBind's write returned: in flight ends, the written claim is assumed.
                6 => {
                    if let Some(f) = state.remove_pending_allocation(&uid) {
                        model.in_flight.remove(&uid);
                        let mut written = (*f.claim).clone();
                        written.metadata.resource_version = rv.to_string();
                        let ok = state.assume_claim(written.clone()).is_ok();
                        let model_ok = match model.claims.get_mut(&key) {
                            Some((_, latest)) if Model::rv(&written) >= Model::rv(latest) => {
                                *latest = written;
                                true
                            }
                            _ => false,
                        };
                        assert_eq!(ok, model_ok, "seed {seed} step {step}: assume accepted");
                    }
                    "assume after write"
                }
                // The informer delivers exactly the version assumed (confirmation).
                7 => {
                    if let Some(latest) = state.claims().get(&key).map(|c| (**c).clone()) {
                        state.upsert_claim(latest.clone());
                        model.informer(latest);
                    }
                    "confirm"
                }
                // Unreserve after a failed binding: in flight released, assumption restored.
                8 => {
                    let pod = pods[rng.below(pods.len() as u64) as usize];
                    for f in state.remove_pending_allocations_of(pod) {
                        model.in_flight.remove(f.claim.metadata.uid.as_str());
                        state.restore_claim(&f.claim.key());
                        if let Some((api_v, latest)) = model.claims.get_mut(&f.claim.key()) {
                            *latest = api_v.clone();
                        }
                    }
                    "pod released"
                }
                // PostFilter's or Unreserve's write of the latest claim returned and is assumed:
                // the allocation cleared (deallocation) or only a reservation dropped (the
                // allocation stays), at the version the server gave it.
                9 | 10 => {
                    if let Some(latest) = state.claims().get(&key).map(|c| (**c).clone()) {
                        let mut written = latest;
                        let pod = pods[rng.below(pods.len() as u64) as usize];
                        if rng.below(2) == 0 {
                            written.status.allocation = None;
                            written.status.reserved_for.clear();
                        } else {
                            written.status.reserved_for.retain(|c| c.name != pod);
                        }
                        written.metadata.resource_version = rv.to_string();
                        assert!(state.assume_claim(written.clone()).is_ok(), "seed {seed} step {step}: newer write assumed");
                        if let Some((_, l)) = model.claims.get_mut(&key) {
                            *l = written;
                        }
                    }
                    "deallocate or unreserve written"
                }
                // RBAC takes the claims away (everything kept of them is forgotten, in-flight
                // allocations still count), then gives them back with a relist.
                11 => {
                    let relisted: Vec<api::ResourceClaim> = model.claims.values().map(|(a, _)| a.clone()).collect();
                    state.set_unreadable(DraKind::ResourceClaims);
                    model.claims.clear();
                    check(&state, &model, step, "claims unreadable");
                    state.set_readable(DraKind::ResourceClaims);
                    for c in relisted.into_iter().filter(|_| rng.below(4) != 0) {
                        state.upsert_claim(c.clone());
                        model.informer(c);
                    }
                    "claims readable again"
                }
                // Relist: the store forgets everything it did not see, then sees the rest again.
                _ => {
                    let keep: Vec<String> = model.claims.keys().filter(|_| rng.below(3) != 0).cloned().collect();
                    for k in model.claims.keys().cloned().collect::<Vec<_>>() {
                        if !keep.contains(&k) {
                            state.remove_claim(&k);
                            model.claims.remove(&k);
                        }
                    }
                    for k in keep {
                        let (api_v, _) = model.claims[&k].clone();
                        state.upsert_claim(api_v.clone());
                        model.informer(api_v);
                    }
                    "relist"
                }
            };
            check(&state, &model, step, op);
        }
    }
}

#[test]
fn assume_cache_follows_upstream_rules() {
    // assume_cache_test.go (v1.35) in words: an older assumed version is refused, an equal or
    // newer one kept; an informer update that is not newer leaves the assumed version; a newer
    // one replaces it; restore goes back to the informer's version.
    let mut s = DraState::default();
    let alloc = api::AllocationResult {
        devices: api::DeviceAllocationResult {
            results: vec![api::DeviceRequestAllocationResult {
                request: "r".into(),
                driver: DRIVER.into(),
                pool: "p".into(),
                device: "d".into(),
                ..Default::default()
            }],
            config: Vec::new(),
        },
        ..Default::default()
    };
    assert!(s.assume_claim(claim("a", "u", 5, None)).is_err(), "unknown claims are not assumed");
    s.upsert_claim(claim("a", "u", 5, None));
    assert_eq!(
        s.assume_claim(claim("a", "u", 4, None)).map(|_| ()),
        Err(AssumeError("ResourceClaim \"ns/a\" is out of sync (stored: 5, assume: 4)".into()))
    );
    assert!(s.assume_claim(claim("a", "u", 6, Some(alloc.clone()))).is_ok());
    assert!(s.claims().is_assumed("ns/a"));
    assert_eq!(s.allocated().len(), 1);
    assert!(s.upsert_claim(claim("a", "u", 6, None)).is_none(), "same version: skipped");
    assert!(s.claims().is_assumed("ns/a"));
    let restored = s.restore_claim("ns/a").expect("restored");
    assert_eq!(restored.new.as_deref().map(|c| c.metadata.resource_version.as_str()), Some("5"));
    assert!(s.allocated().is_empty());
    assert!(s.assume_claim(claim("a", "u", 6, Some(alloc))).is_ok());
    assert!(s.upsert_claim(claim("a", "u", 7, None)).is_some(), "newer informer version replaces it");
    assert!(!s.claims().is_assumed("ns/a"));
    assert!(s.allocated().is_empty());
    assert!(s.claims().by_uid("u").is_some());
    assert!(s.remove_claim("ns/a").is_some());
    assert!(s.claims().by_uid("u").is_none());
}

/// A slice of `pool` (generation `generation`) with devices `gpu-0..n`: for `node`, or for every
/// node when `None`; with `per_device`, each device names `node` itself instead.
fn slice(name: &str, pool: &str, generation: i64, node: Option<&str>, n: usize, per_device: bool) -> api::ResourceSlice {
    let mut s = api::ResourceSlice::default();
    s.metadata.name = name.into();
    s.spec.driver = DRIVER.into();
    s.spec.pool = api::ResourcePool { name: pool.into(), generation, resource_slice_count: 1 };
    let device_node = if per_device { node.map(str::to_string) } else { None };
    match (node, per_device) {
        (_, true) => s.spec.per_device_node_selection = Some(true),
        (Some(node), false) => s.spec.node_name = Some(node.into()),
        (None, false) => s.spec.all_nodes = Some(true),
    }
    s.spec.devices =
        (0..n).map(|i| api::Device { name: format!("gpu-{i}"), node_name: device_node.clone(), ..Default::default() }).collect();
    s
}

/// `node_devices`: each node's own devices of the latest generation of their pool, and how many
/// are in use; devices for all nodes belong to none.
#[test]
fn node_devices_counts_each_nodes_own_devices_of_the_latest_pool_generation() {
    let mut state = DraState::default();
    for s in [
        slice("a-old", "node-a", 1, Some("node-a"), 2, false),
        slice("a-new", "node-a", 2, Some("node-a"), 3, false),
        slice("b", "node-b", 1, Some("node-b"), 2, false),
        slice("c", "node-c", 1, Some("node-c"), 1, true),
        slice("shared", "shared", 1, None, 4, false),
    ] {
        state.upsert_slice(&s).expect("prepares");
    }
    let used = api::DeviceRequestAllocationResult {
        request: "r".into(),
        driver: DRIVER.into(),
        pool: "node-b".into(),
        device: "gpu-1".into(),
        ..Default::default()
    };
    let alloc = api::AllocationResult {
        devices: api::DeviceAllocationResult { results: vec![used], config: Vec::new() },
        ..Default::default()
    };
    state.upsert_claim(claim("c1", "uid-1", 1, Some(alloc)));
    let want: BTreeMap<String, (u64, u64)> =
        [("node-a", (3, 0)), ("node-b", (2, 1)), ("node-c", (1, 0))].into_iter().map(|(n, c)| (n.to_string(), c)).collect();
    assert_eq!(state.node_devices(), want);
}
