//! The streaming what-if engine behind `simulate` (and `capacity`).
//!
//! Objects arrive one at a time, in file (or list) order, and go straight into the same
//! [`Scheduler`] the live binary runs, as the pages of one initial list per kind; nothing of the
//! file is kept beyond what the scheduler itself keeps (its node table and the pending pods it
//! must place). Decisions are handed out as they are made: a placed pod's at once, an unplaced
//! pod's when no later event can change it (at the end; a pod that fails first and is placed
//! after a preemption or another pod's move reports only the placement).
//!
//! The order of kinds does not change the answer: pending pods wait until every object is read
//! and are then queued in creation order, and a bound pod that arrives before its node (or before
//! the PriorityClass its priority comes from) waits too, so a file with its objects in any order
//! gives the decisions the same objects fed kind by kind would (a test checks it). The order of
//! the nodes among themselves is kept: it is the node table's order, as an API server's list
//! gives it, which the rotating node sample and equal scores follow.

use super::claim_maker::ClaimMaker;
use super::report::{AllocatedDevice, Detail, NodeUse, PodDecision};
use super::{frameworks, validate, SimError};
use crate::core::api::{self, Object};
use crate::core::config::SchedulerConfig;
use crate::core::dra::claim_writes;
use crate::core::extender::ExtenderTransport;
use crate::core::metrics::Metrics;
use crate::core::rng::Rng;
use crate::core::scheduler::{Attempt, BindOutcome, Effect, Input, Scheduler, Settings};
use crate::core::watched::{self, Change, KindChange, KindId, KindVisitor, Watched, KINDS};
use std::collections::{HashMap, HashSet};
use std::time::{Duration, Instant};

/// An object the cluster file must not contain as it is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Invalid {
    /// `Kind namespace/name`.
    pub object: String,
    /// Each problem, `field: Invalid value: …`.
    pub problems: Vec<String>,
}

impl std::fmt::Display for Invalid {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.object, self.problems.join("; "))
    }
}

/// The what-if changes to the cluster read: nodes removed (their pods are scheduled again, as
/// after a drain) and nodes cordoned (`spec.unschedulable`).
#[derive(Debug, Clone, Default)]
pub struct Edits {
    remove: HashSet<String>,
    cordon: HashSet<String>,
    /// Names of edited nodes met in the cluster.
    met: HashSet<String>,
}

impl Edits {
    pub fn new(remove: &[String], cordon: &[String]) -> Edits {
        Edits { remove: remove.iter().cloned().collect(), cordon: cordon.iter().cloned().collect(), met: HashSet::new() }
    }

    /// Apply to a node; false when the node is removed.
    fn node(&mut self, n: &mut api::Node) -> bool {
        let name = &n.metadata.name;
        if self.remove.contains(name) || self.cordon.contains(name) {
            self.met.insert(name.clone());
        }
        if self.cordon.contains(name) {
            n.spec.unschedulable = true;
        }
        !self.remove.contains(name)
    }

    /// A pod bound to a removed node is pending again.
    fn pod(&self, p: &mut api::Pod) {
        if !p.spec.node_name.is_empty() && self.remove.contains(&p.spec.node_name) {
            p.spec.node_name.clear();
            p.status.nominated_node_name.clear();
            p.status.phase = "Pending".into();
            p.status.conditions.clear();
        }
    }
}

/// A simulation being fed and run.
#[allow(clippy::vec_box)] // the pods go to the scheduler in the boxes its inputs carry: no copy
pub struct Simulation {
    sched: Scheduler,
    now: Instant,
    served: Vec<String>,
    /// Served pending pods, queued when loading ends.
    pending: Vec<Box<api::Pod>>,
    /// Bound pods that arrived before their node or PriorityClass.
    deferred: Vec<Box<api::Pod>>,
    /// Every object seen, by kind and key (duplicates are errors).
    seen: HashSet<(KindId, String)>,
    /// Scheduler names of the queued pods.
    scheduler_names: HashMap<String, String>,
    /// Unplaced decisions that a later attempt may still replace, in first-attempt order.
    held: HashMap<String, PodDecision>,
    held_order: Vec<String>,
    loaded: bool,
    edits: Edits,
    /// Whether preemption's evictions happen (capacity asks what fits without evicting).
    evict: bool,
    /// The resourceclaim controller's part: claims made from templates for pending pods.
    claims: ClaimMaker,
    /// The devices PreBind wrote into each placed pod's claims, until its decision is handed out.
    devices: HashMap<String, Vec<AllocatedDevice>>,
    /// Decisions of pods assumed on a node but held at Permit (a gang short of its quorum): not
    /// placements until their binding, which may never come (all or nothing).
    waiting: HashMap<String, PodDecision>,
    /// Pods whose binding the scheduler asked for (a waiting pod allowed at last).
    bound: HashSet<String>,
    /// The last FailedScheduling note of each pod (why a waiting pod was let go).
    failures: HashMap<String, String>,
}

/// Begins (or ends) the initial list of a kind.
struct ListMark(bool);

impl KindVisitor for ListMark {
    type Output = KindChange;
    fn visit<T>(&mut self) -> KindChange
    where
        T: Watched + serde::de::DeserializeOwned + Send + 'static,
    {
        T::wrap(if self.0 { Change::ListBegin } else { Change::ListDone })
    }

    fn visit_custom(&mut self, id: KindId) -> KindChange {
        let change = if self.0 { Change::ListBegin } else { Change::ListDone };
        <watched::CustomObject as Watched>::wrap_as(id, change)
    }
}

fn scheduler_name(p: &api::Pod) -> &str {
    if p.spec.scheduler_name.is_empty() {
        "default-scheduler"
    } else {
        &p.spec.scheduler_name
    }
}

fn is_terminal(p: &api::Pod) -> bool {
    matches!(p.status.phase.as_str(), "Succeeded" | "Failed")
}

impl Simulation {
    /// A scheduler with `cfg`'s profiles, every kind's initial list begun. `seed` fixes
    /// tie-breaks; `now` is the simulation's start (time only advances by fixed steps after).
    pub fn new(cfg: &SchedulerConfig, seed: u64, now: Instant) -> Result<Simulation, SimError> {
        let profiles = frameworks(cfg)?;
        let settings = Settings {
            percentage_of_nodes_to_score: cfg.percentage_of_nodes_to_score,
            pod_initial_backoff: Duration::from_secs(cfg.pod_initial_backoff_seconds.max(0) as u64),
            pod_max_backoff: Duration::from_secs(cfg.pod_max_backoff_seconds.max(0) as u64),
            ..Default::default()
        };
        let served = profiles.iter().map(|p| p.scheduler_name.clone()).collect();
        let mut sched = Scheduler::new(profiles, &settings, Metrics::new(), Rng::seeded(seed), now);
        for k in KINDS {
            sched.handle(Input::Watch(watched::visit(k.id, &mut ListMark(true))), now);
        }
        Ok(Simulation {
            sched,
            now,
            served,
            pending: Vec::new(),
            deferred: Vec::new(),
            seen: HashSet::new(),
            scheduler_names: HashMap::new(),
            held: HashMap::new(),
            held_order: Vec::new(),
            loaded: false,
            edits: Edits::default(),
            evict: true,
            claims: ClaimMaker::new(seed),
            devices: HashMap::new(),
            waiting: HashMap::new(),
            bound: HashSet::new(),
            failures: HashMap::new(),
        })
    }

    /// Consult the configured extenders through `transport` (filter, prioritize and preempt are
    /// called; binds are simulated, never delegated). Without this they are left out.
    pub fn set_extenders(&mut self, cfg: &SchedulerConfig, transport: Option<std::sync::Arc<dyn ExtenderTransport>>) {
        self.sched.set_extenders(super::extender_set(cfg, transport));
    }

    /// Check an object before [`Simulation::add`]: its fields, and that no object of its kind
    /// and name came before. Records the object as seen.
    pub fn check(&mut self, change: &KindChange) -> Result<(), Invalid> {
        let kind = watched::kind(change.id()).kind;
        let key = change.object().map(|o| o.key()).unwrap_or_default();
        let mut problems = validate::problems(change);
        if !key.is_empty() && !self.seen.insert((change.id(), key.clone())) {
            problems.push(format!("metadata.name: Duplicate value: {key:?}: another {kind} has this name"));
        }
        if problems.is_empty() {
            Ok(())
        } else {
            Err(Invalid { object: format!("{kind} {key}"), problems })
        }
    }

    /// Whether preemption may evict pods (default true, as the scheduler does).
    pub fn set_evictions(&mut self, evict: bool) {
        self.evict = evict;
    }

    /// Apply these changes to the objects fed from now on.
    pub fn set_edits(&mut self, edits: Edits) {
        self.edits = edits;
    }

    /// Nodes named by the edits that the cluster does not have, sorted.
    pub fn unknown_edited_nodes(&self) -> Vec<String> {
        let mut out: Vec<String> =
            self.edits.remove.iter().chain(self.edits.cordon.iter()).filter(|n| !self.edits.met.contains(*n)).cloned().collect();
        out.sort();
        out.dedup();
        out
    }

    /// Feed one object. Returns the decision of a pending pod no profile serves (it is only
    /// reported).
    pub fn add(&mut self, change: KindChange) -> Option<PodDecision> {
        match change {
            KindChange::Pod(Change::Added(mut p)) => {
                self.edits.pod(&mut p);
                return self.add_pod(p);
            }
            KindChange::Node(Change::Added(mut n)) => {
                if self.edits.node(&mut n) {
                    self.seen.insert((KindId::Node, n.metadata.name.clone()));
                    self.feed(KindChange::Node(Change::ListPage(vec![n])));
                }
            }
            // Only the what-if commands read templates: the claims are made here, not by the
            // scheduler.
            KindChange::ResourceClaimTemplate(Change::Added(mut t)) => {
                crate::core::dra::defaults::default_claim_spec(&mut t.spec.spec);
                self.claims.add_template(*t);
            }
            KindChange::ResourceClaim(Change::Added(mut c)) => {
                crate::core::dra::defaults::default_claim_spec(&mut c.spec);
                self.claims.claim_exists(&c.metadata.namespace, &c.metadata.name);
                self.feed(KindChange::ResourceClaim(Change::ListPage(vec![c])));
            }
            other => self.feed(other.into_list_page()),
        }
        None
    }

    /// Queue a pending pod, its claims made from templates first (as the controller makes them
    /// before the scheduler sees the pod).
    /// A pod whose template does not exist never reaches a cycle: its decision says why.
    fn queue(&mut self, mut p: Box<api::Pod>) {
        let (claims, missing) = self.claims.make_for(&mut p);
        for claim in claims {
            self.sched.handle(Input::watch_boxed::<api::ResourceClaim>(Change::Added(Box::new(claim))), self.now);
        }
        let key = p.key();
        if let Some(template) = missing.first() {
            let mut d = PodDecision::empty(&key, scheduler_name(&p));
            let waiting = crate::core::texts::dynamic_resources::claim_not_created(&p.metadata.namespace, &p.metadata.name);
            d.message = crate::core::texts::what_if_devices::template_missing(&waiting, template);
            self.held_order.push(key.clone());
            self.held.insert(key, d);
        }
        self.scheduler_names.insert(p.key(), scheduler_name(&p).to_string());
        self.sched.handle(Input::watch_boxed::<api::Pod>(Change::Added(p)), self.now);
    }

    fn feed(&mut self, change: KindChange) {
        self.sched.handle(Input::Watch(change), self.now);
    }

    fn add_pod(&mut self, p: Box<api::Pod>) -> Option<PodDecision> {
        if is_terminal(&p) {
            return None;
        }
        if !p.spec.node_name.is_empty() {
            let node_known = self.seen.contains(&(KindId::Node, p.spec.node_name.clone()));
            let class_pending = p.spec.priority.is_none() && !p.spec.priority_class_name.is_empty();
            if node_known && !class_pending {
                self.feed(KindChange::Pod(Change::ListPage(vec![p])));
            } else {
                self.deferred.push(p);
            }
            return None;
        }
        let name = scheduler_name(&p);
        if self.served.iter().any(|s| s == name) {
            self.pending.push(p);
            return None;
        }
        let mut d = PodDecision::empty(&p.key(), name);
        d.skipped = Some(format!("schedulerName {name:?} is not served by this configuration"));
        Some(d)
    }

    /// Every object is in: end the initial lists and queue the pending pods in creation order.
    pub fn finish_loading(&mut self) {
        if self.loaded {
            return;
        }
        self.loaded = true;
        let deferred = std::mem::take(&mut self.deferred);
        if !deferred.is_empty() {
            self.feed(KindChange::Pod(Change::ListPage(deferred)));
        }
        for k in KINDS {
            self.sched.handle(Input::Watch(watched::visit(k.id, &mut ListMark(false))), self.now);
        }
        let mut pending = std::mem::take(&mut self.pending);
        pending.sort_by_key(|p| {
            p.metadata.creation_timestamp.as_deref().and_then(crate::core::timefmt::parse_rfc3339).unwrap_or((0, 0))
        });
        for p in pending {
            self.now += Duration::from_micros(1);
            self.queue(p);
        }
        self.sched.handle(Input::Leading(true), self.now);
    }

    /// How many pods are waiting to be scheduled.
    pub fn queued(&self) -> usize {
        self.scheduler_names.len()
    }

    /// Queue one more pending pod after loading (capacity's next copy).
    pub fn enqueue(&mut self, pod: Box<api::Pod>) {
        self.finish_loading();
        self.now += Duration::from_micros(1);
        self.queue(pod);
    }

    /// Schedule every queued pod, handing each final decision to `emit` as soon as it is final.
    /// Each pod may be retried when a placement or eviction wakes it (bounded, as the queue's
    /// backoff does not advance in a simulation).
    pub fn run<E>(&mut self, detail: &Detail, emit: &mut dyn FnMut(PodDecision) -> Result<(), E>) -> Result<(), E> {
        self.finish_loading();
        let budget = self.scheduler_names.len().saturating_mul(4).saturating_add(16);
        for _ in 0..budget {
            self.now += Duration::from_millis(1);
            let Some((attempt, outcome)) = self.sched.schedule_one(self.now, detail.explain()) else {
                // Nothing left to try while pods wait at Permit: let the clock reach their
                // deadline, as it would live (a gang that cannot complete gives its room back).
                if self.waiting.is_empty() {
                    break;
                }
                let Some(at) = self.sched.next_wakeup(self.now) else { break };
                self.now = self.now.max(at);
                self.sched.expire_waiting(self.now);
                self.apply_effects();
                self.settle_waiting(emit)?;
                continue;
            };
            let key = match &attempt {
                Attempt::Scheduled { pod, .. }
                | Attempt::Unschedulable { pod, .. }
                | Attempt::Error { pod, .. }
                | Attempt::Skipped { pod } => pod.to_string(),
            };
            let name = self.scheduler_names.get(&key).cloned().unwrap_or_default();
            let decision = match (&attempt, &outcome) {
                (_, Some(o)) => Some(PodDecision::from_outcome(&key, &name, o, detail)),
                (Attempt::Unschedulable { message, .. } | Attempt::Error { message, .. }, None) => {
                    let mut d = PodDecision::empty(&key, &name);
                    d.message = message.clone();
                    Some(d)
                }
                _ => None,
            };
            self.apply_effects();
            let Some(mut decision) = decision else {
                self.settle_waiting(emit)?;
                continue;
            };
            if decision.node.is_some() && self.sched.waiting_pods().get(&key).is_some() {
                self.held.remove(&key);
                self.waiting.insert(key, decision);
                continue;
            }
            // Keep preemption victims recorded by an earlier attempt of the same pod.
            let was_held = match self.held.remove(&key) {
                Some(prev) => {
                    if decision.victims.is_empty() {
                        decision.victims = prev.victims;
                    }
                    true
                }
                None => false,
            };
            if decision.node.is_some() {
                decision.devices = self.devices.remove(&key).unwrap_or_default();
                // A placed pod is never unplaced again: its entry in held_order is skipped at the end.
                self.scheduler_names.remove(&key);
                emit(decision)?;
            } else {
                if !was_held {
                    self.held_order.push(key.clone());
                }
                self.held.insert(key, decision);
            }
            self.settle_waiting(emit)?;
        }
        // Pods still waiting when the budget ran out are not placed.
        let mut left: Vec<String> = self.waiting.keys().cloned().collect();
        left.sort();
        for key in left {
            if let Some(mut d) = self.waiting.remove(&key) {
                d.node = None;
                d.message = self.failures.remove(&key).unwrap_or_default();
                self.hold(key, d);
            }
        }
        for key in std::mem::take(&mut self.held_order) {
            if let Some(d) = self.held.remove(&key) {
                self.scheduler_names.remove(&key);
                emit(d)?;
            }
        }
        Ok(())
    }

    /// Hand out the decisions of waiting pods whose wait ended: placed when they were bound,
    /// unplaced (with the rejection's note) when they were let go.
    fn settle_waiting<E>(&mut self, emit: &mut dyn FnMut(PodDecision) -> Result<(), E>) -> Result<(), E> {
        let mut done: Vec<String> =
            self.waiting.keys().filter(|k| self.sched.waiting_pods().get(k.as_str()).is_none()).cloned().collect();
        done.sort();
        for key in done {
            let Some(mut d) = self.waiting.remove(&key) else { continue };
            if self.bound.remove(&key) {
                d.devices = self.devices.remove(&key).unwrap_or_default();
                self.scheduler_names.remove(&key);
                emit(d)?;
            } else {
                d.node = None;
                d.message = self.failures.remove(&key).unwrap_or_default();
                self.hold(key, d);
            }
        }
        Ok(())
    }

    /// Keep an unplaced decision until the end (a later attempt may still place the pod).
    fn hold(&mut self, key: String, d: PodDecision) {
        if !self.held.contains_key(&key) && !self.held_order.contains(&key) {
            self.held_order.push(key.clone());
        }
        self.held.insert(key, d);
    }

    /// What the API server and the kubelet would do with the scheduler's effects.
    fn apply_effects(&mut self) {
        let now = self.now;
        for effect in self.sched.take_effects() {
            match effect {
                Effect::Bind(b) => {
                    self.bound.insert(b.pod.key.to_string());
                    // PreBind's claim writes land first, as the API server would record them.
                    for a in &b.pre_bind {
                        if let crate::core::framework::PreBindAction::ReserveClaim(r) = a {
                            let base = claim_writes::with_finalizer(&r.claim).unwrap_or_else(|| (*r.claim).clone());
                            let written = claim_writes::reserved(&base, r.allocation.as_ref(), &r.pod_name, &r.pod_uid);
                            self.devices.entry(b.pod.key.to_string()).or_default().extend(AllocatedDevice::of_claim(&written));
                            self.write_claim(written, now);
                        }
                    }
                    if let Some(p) = self.sched.pending_pod(&b.pod.key) {
                        let mut p = p.clone();
                        p.spec.node_name = b.node.to_string();
                        // v1.35's API server clears the nominated node on binding
                        // (ClearingNominatedNodeNameAfterBinding, on by default there).
                        p.status.nominated_node_name.clear();
                        self.sched.handle(Input::watch_boxed::<api::Pod>(Change::Modified(Box::new(p))), now);
                    }
                    self.sched.handle(Input::BindDone(BindOutcome::new(b.pod.key.clone(), b.node, Ok(()))), now);
                }
                Effect::Evict(_) if !self.evict => {}
                Effect::Evict(e) => {
                    let mut gone = api::Pod::default();
                    gone.metadata.namespace = e.namespace;
                    gone.metadata.name = e.name;
                    self.sched.handle(Input::watch_boxed::<api::Pod>(Change::Deleted(Box::new(gone))), now);
                }
                Effect::PatchStatus(patch) => {
                    let key = format!("{}/{}", patch.namespace, patch.name);
                    if let (Some(p), Some(n)) = (self.sched.pending_pod(&key), patch.nominated_node_name) {
                        let mut p = p.clone();
                        p.status.nominated_node_name = n;
                        self.sched.handle(Input::watch_boxed::<api::Pod>(Change::Modified(Box::new(p))), now);
                    }
                }
                Effect::Event(e) => {
                    if e.reason == crate::core::texts::events::REASON_FAILED_SCHEDULING {
                        self.failures.insert(format!("{}/{}", e.regarding.namespace, e.regarding.name), e.note);
                    }
                }
                Effect::ApiWrite(crate::core::framework::ApiWrite::DeallocateClaim(c)) => self.write_claim((*c).clone(), now),
                Effect::ApiWrite(crate::core::framework::ApiWrite::UnreserveClaim { namespace, name, pod_uid, .. }) => {
                    if let Some(c) = self.sched.cache().dra().resource_claim(&namespace, &name) {
                        let c = claim_writes::unreserved(c, &pod_uid);
                        self.write_claim(c, now);
                    }
                }
            }
        }
    }

    /// A claim write as the API server records it: the next resourceVersion, delivered back
    /// through the claims' watch.
    fn write_claim(&mut self, mut claim: api::ResourceClaim, now: Instant) {
        let current = self.sched.cache().dra().resource_claim(&claim.metadata.namespace, &claim.metadata.name);
        let version = current.and_then(|c| c.metadata.resource_version.parse::<u64>().ok()).unwrap_or(0);
        claim.metadata.resource_version = (version + 1).to_string();
        self.sched.handle(Input::watch_boxed::<api::ResourceClaim>(Change::Modified(Box::new(claim))), now);
    }

    /// Every node's use now (after the placements so far).
    pub fn node_use(&self) -> Vec<NodeUse> {
        NodeUse::of(self.sched.cache())
    }

    /// Which of a pending pod's device requests find no device on `node` (empty when its claims
    /// fit there or it has none): the detail behind `cannot allocate all claims`.
    pub fn devices_missing(&self, pod_key: &str, node: &str) -> Vec<String> {
        let Some(pod) = self.sched.pending_pod(pod_key) else { return Vec::new() };
        let features = crate::core::framework::plugins::dynamic_resources::DraFeatures::defaults().allocator;
        super::device_diagnosis::unallocatable(self.sched.cache(), features, pod, node)
    }

    /// The scheduler (for callers that look at the node table).
    pub fn scheduler(&self) -> &Scheduler {
        &self.sched
    }
}
