//! How the scheduler consults its extenders, after upstream (kubernetes/kubernetes, v1.35):
//! `findNodesThatPassExtenders` and the extender half of `prioritizeNodes`
//! (pkg/scheduler/schedule_one.go), `HTTPExtender.Filter/Prioritize/ProcessPreemption/Bind`
//! (pkg/scheduler/extender.go), `Evaluator.callExtenders`
//! (pkg/scheduler/framework/preemption/preemption.go) and `extendersBinding` (schedule_one.go).

use super::wire::{self, VictimsDoc};
use super::{ExtenderEntry, ExtenderNote, ExtenderSet, ExtenderTransport, EXTENDER_NAME, MAX_EXTENDER_PRIORITY};
use crate::core::api;
use crate::core::cache::{AssignedPod, Cache, NodeInfo};
use crate::core::framework::plugins::default_preemption::Candidate;
use crate::core::framework::{Rejection, MAX_NODE_SCORE};
use crate::core::model::{NodeSpecInfo, PodInfo};
use crate::core::texts::extender as texts;
use serde_json::{json, Value};
use std::collections::BTreeMap;
use std::sync::Arc;

/// What the filtering extenders left of the feasible nodes.
#[derive(Debug, Default)]
pub struct FilterVerdict {
    /// Positions (in the input) of the nodes every interested extender kept, in the order the
    /// last one returned them.
    pub kept: Vec<usize>,
    /// Node → why an extender rejected it (`FailedAndUnresolvableNodes` take precedence over
    /// `FailedNodes`, later extenders over earlier ones).
    pub statuses: Vec<(Box<str>, Rejection)>,
}

/// The extender that binds a pod instead of the DefaultBinder.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BindTarget {
    pub index: usize,
    pub name: String,
    pub verb: String,
    pub ignorable: bool,
}

/// What came of delegating a bind to an extender.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum BindDecision {
    /// The extender bound the pod.
    Bound,
    /// An ignorable extender failed: bind with the Bind plugins instead (the error is logged).
    FallBack(String),
    /// A non-ignorable extender failed: the binding cycle fails with this error.
    Failed(String),
}

/// The document sent for a node to extenders that do not cache nodes. Built from the node table:
/// name, UID, labels, taints, `unschedulable`, allocatable resources and images — what the
/// scheduler keeps of a node.
pub fn node_document(n: &NodeSpecInfo) -> Value {
    // The map keeps its keys sorted.
    let labels: serde_json::Map<String, Value> = n.labels.iter().map(|(k, v)| (k.as_str().to_string(), json!(v))).collect();
    let taints: Vec<Value> =
        n.taints.iter().map(|t| json!({ "key": &*t.key, "value": &*t.value, "effect": &*t.effect_raw })).collect();
    let a = &n.allocatable;
    let mut allocatable = serde_json::Map::new();
    allocatable.insert("cpu".into(), json!(format!("{}m", a.milli_cpu)));
    allocatable.insert("memory".into(), json!(a.memory.to_string()));
    allocatable.insert("ephemeral-storage".into(), json!(a.ephemeral_storage.to_string()));
    allocatable.insert("pods".into(), json!(a.allowed_pod_number.to_string()));
    for (name, v) in &a.scalars {
        allocatable.insert(name.as_str().to_string(), json!(v.to_string()));
    }
    // One entry per image name (the table keeps names, not which names share an image).
    let images: Vec<Value> = n.images.iter().map(|(name, size)| json!({ "names": [name.as_str()], "sizeBytes": size })).collect();
    let mut spec = serde_json::Map::new();
    if n.unschedulable {
        spec.insert("unschedulable".into(), json!(true));
    }
    if !taints.is_empty() {
        spec.insert("taints".into(), Value::Array(taints));
    }
    json!({
        "metadata": { "name": &*n.name, "uid": &*n.uid, "labels": labels },
        "spec": spec,
        "status": { "allocatable": allocatable, "capacity": allocatable.clone(), "images": images },
    })
}

/// The document sent for a preemption victim to extenders that do not cache nodes: its identity,
/// labels, node and priority (what the node table keeps of an assigned pod).
fn victim_document(p: &AssignedPod) -> Value {
    let name = p.key.split_once('/').map(|(_, n)| n).unwrap_or(&p.key);
    let labels: serde_json::Map<String, Value> = p.labels.iter().map(|(k, v)| (k.as_str().to_string(), json!(v))).collect();
    json!({
        "metadata": { "name": name, "namespace": &*p.namespace, "uid": &*p.uid, "labels": labels },
        "spec": { "nodeName": &*p.node_name, "priority": p.priority },
    })
}

/// The pod as extenders receive it: as the API server sent it when that was kept
/// ([`api::keep_pod_sources`]), otherwise what the scheduler decoded of it (a pod from a
/// cluster file, or a stand-in for a pod whose object is not at hand).
pub fn pod_document(pod: &api::Pod) -> Value {
    if let Some(v) = pod.source.as_deref().and_then(|raw| serde_json::from_str::<Value>(raw).ok()) {
        return v;
    }
    serde_json::to_value(pod).unwrap_or(Value::Null)
}

fn post(transport: &dyn ExtenderTransport, e: &ExtenderEntry, verb: &str, body: &Value) -> Result<Vec<u8>, String> {
    let bytes = serde_json::to_vec(body).map_err(|err| err.to_string())?;
    transport.post(e.index, verb, &bytes)
}

/// Record a failed call in `notes`; `true` when the extender is ignorable and is to be skipped
/// (logged with upstream's `skipping` message), `false` when its error stops the caller.
fn failed(e: &ExtenderEntry, mut n: ExtenderNote, err: &str, notes: &mut Vec<ExtenderNote>, skipping: &str) -> bool {
    n.error = Some(err.to_string());
    n.ignored = e.config.ignorable;
    notes.push(n);
    if e.config.ignorable {
        log::info!("\"{skipping}\" extender=\"{}\" err=\"{}\"", e.name(), err);
    }
    e.config.ignorable
}

fn note(e: &ExtenderEntry, call: &'static str) -> ExtenderNote {
    ExtenderNote { extender: e.name().to_string(), call, ..Default::default() }
}

impl ExtenderSet {
    /// `findNodesThatPassExtenders`: each interested filtering extender, in order, narrows the
    /// feasible nodes. An error stops scheduling with that error unless the extender is
    /// ignorable, in which case it is skipped.
    pub fn filter(
        &self,
        pod: &api::Pod,
        pod_doc: &Value,
        nodes: &[&NodeInfo],
        notes: &mut Vec<ExtenderNote>,
    ) -> Result<FilterVerdict, String> {
        let mut verdict = FilterVerdict { kept: (0..nodes.len()).collect(), statuses: Vec::new() };
        for e in &self.entries {
            if verdict.kept.is_empty() {
                break;
            }
            if !e.is_interested(pod) || e.config.filter_verb.is_empty() {
                continue;
            }
            let current: Vec<&NodeInfo> = verdict.kept.iter().map(|&i| nodes[i]).collect();
            let mut n = note(e, "filter");
            match self.filter_one(e, pod_doc, &current) {
                Err(err) => {
                    if failed(e, n, &err, notes, "Skipping extender as it returned error and has ignorable flag set") {
                        continue;
                    }
                    return Err(err);
                }
                Ok((kept, failed, unresolvable)) => {
                    for (node, msg) in &unresolvable {
                        verdict
                            .statuses
                            .push((node.as_str().into(), Rejection::unresolvable(msg.clone()).with_plugin(EXTENDER_NAME)));
                    }
                    for (node, msg) in &failed {
                        if !unresolvable.contains_key(node) {
                            verdict
                                .statuses
                                .push((node.as_str().into(), Rejection::unschedulable(msg.clone()).with_plugin(EXTENDER_NAME)));
                        }
                    }
                    n.kept = kept.iter().map(|&p| current[p].node.name.to_string()).collect();
                    n.failed = failed;
                    n.failed.extend(unresolvable);
                    notes.push(n);
                    verdict.kept = kept.into_iter().map(|p| verdict.kept[p]).collect();
                }
            }
        }
        Ok(verdict)
    }

    /// `HTTPExtender.Filter` for one extender: positions (in `nodes`) of the nodes it kept, and
    /// its failed / failed-and-unresolvable maps.
    #[allow(clippy::type_complexity)]
    fn filter_one(
        &self,
        e: &ExtenderEntry,
        pod_doc: &Value,
        nodes: &[&NodeInfo],
    ) -> Result<(Vec<usize>, BTreeMap<String, String>, BTreeMap<String, String>), String> {
        let body = self.args(e, pod_doc, nodes);
        let reply = wire::decode_filter(&post(&*self.transport, e, &e.config.filter_verb, &body)?)?;
        if !reply.error.is_empty() {
            return Err(reply.error);
        }
        let names = if e.config.node_cache_capable && reply.node_names.is_some() {
            reply.node_names.unwrap_or_default()
        } else {
            reply.nodes.unwrap_or_default()
        };
        let mut kept = Vec::with_capacity(names.len());
        for name in names {
            match nodes.iter().position(|n| *n.node.name == *name) {
                Some(p) => kept.push(p),
                None => return Err(texts::unknown_filtered_node(e.name(), &name)),
            }
        }
        Ok((kept, reply.failed, reply.failed_and_unresolvable))
    }

    /// `ExtenderArgs` for `nodes`: names only for extenders that cache nodes.
    fn args(&self, e: &ExtenderEntry, pod_doc: &Value, nodes: &[&NodeInfo]) -> Value {
        if e.config.node_cache_capable {
            wire::extender_args(pod_doc, None, Some(nodes.iter().map(|n| &*n.node.name).collect()))
        } else {
            wire::extender_args(pod_doc, Some(nodes.iter().map(|n| node_document(&n.node)).collect()), None)
        }
    }

    /// The extender half of `prioritizeNodes`: every interested prioritizer's scores, scaled to
    /// the scheduler's range (`score * weight * (MaxNodeScore / MaxExtenderPriority)`), summed
    /// per node. A failing prioritizer is skipped whatever its `ignorable` setting, as upstream.
    pub fn prioritize(&self, pod: &api::Pod, pod_doc: &Value, nodes: &[&NodeInfo], notes: &mut Vec<ExtenderNote>) -> Vec<i64> {
        let mut totals = vec![0i64; nodes.len()];
        let prioritizers: Vec<&ExtenderEntry> =
            self.entries.iter().filter(|e| e.is_interested(pod) && !e.config.prioritize_verb.is_empty()).collect();
        // All requests at once (upstream: one goroutine per prioritizer), then the replies in
        // configuration order.
        let calls: Vec<(usize, &str, Vec<u8>)> = prioritizers
            .iter()
            .map(|e| {
                (
                    e.index,
                    e.config.prioritize_verb.as_str(),
                    serde_json::to_vec(&self.args(e, pod_doc, nodes)).unwrap_or_default(),
                )
            })
            .collect();
        let replies = self.transport.post_many(&calls);
        for (e, reply) in prioritizers.into_iter().zip(replies) {
            let mut n = note(e, "prioritize");
            let reply = reply.and_then(|b| wire::decode_priorities(&b));
            match reply {
                Err(err) => {
                    log::debug!(
                        "\"Failed to run extender's priority function. No score given by this extender.\" error=\"{}\" extender=\"{}\"",
                        err,
                        e.name()
                    );
                    n.error = Some(err);
                    n.ignored = true;
                }
                Ok(list) => {
                    for (host, score) in list {
                        let scaled = score.saturating_mul(e.config.weight).saturating_mul(MAX_NODE_SCORE / MAX_EXTENDER_PRIORITY);
                        if let Some(k) = nodes.iter().position(|nd| *nd.node.name == *host) {
                            totals[k] = totals[k].saturating_add(scaled);
                        }
                        n.scores.insert(host, score);
                    }
                }
            }
            notes.push(n);
        }
        totals
    }

    /// `callExtenders` (preemption.go): every interested extender that supports preemption may
    /// narrow the candidates and their victims; each sees what the previous one left.
    pub fn preempt(
        &self,
        cache: &Cache,
        pod: &api::Pod,
        pod_doc: &Value,
        candidates: Vec<Candidate>,
        notes: &mut Vec<ExtenderNote>,
    ) -> Result<Vec<Candidate>, String> {
        if candidates.is_empty() {
            return Ok(candidates);
        }
        let mut victims: BTreeMap<Box<str>, (Vec<Arc<AssignedPod>>, usize)> = BTreeMap::new();
        for c in candidates {
            victims.insert(c.node, (c.victims, c.pdb_violations));
        }
        for e in &self.entries {
            if e.config.preempt_verb.is_empty() || !e.is_interested(pod) {
                continue;
            }
            let mut n = note(e, "preempt");
            let result = self.preempt_one(cache, e, pod_doc, &victims);
            let mut result = match result {
                Err(err) => {
                    if failed(e, n, &err, notes, "Skipped extender as it returned error and has ignorable flag set") {
                        continue;
                    }
                    return Err(err);
                }
                Ok(r) => r,
            };
            let empty: Vec<Box<str>> = result.iter().filter(|(_, v)| v.0.is_empty()).map(|(k, _)| k.clone()).collect();
            for node in empty {
                if e.config.ignorable {
                    result.remove(&node);
                    log::info!(
                        "\"Ignored node for which the extender didn't report victims\" node=\"{}\" extender=\"{}\"",
                        node,
                        e.name()
                    );
                    continue;
                }
                let err = crate::core::texts::preemption::no_victim_on_node(&node);
                n.error = Some(err.clone());
                notes.push(n);
                return Err(err);
            }
            n.kept = result.keys().map(|k| k.to_string()).collect();
            notes.push(n);
            victims = result;
            if victims.is_empty() {
                break;
            }
        }
        Ok(victims.into_iter().map(|(node, (victims, pdb))| Candidate { node, victims, pdb_violations: pdb }).collect())
    }

    /// `HTTPExtender.ProcessPreemption` with `convertToVictims`: the extender answers with pod
    /// UIDs, which must name pods of the nodes it names.
    #[allow(clippy::type_complexity)]
    fn preempt_one(
        &self,
        cache: &Cache,
        e: &ExtenderEntry,
        pod_doc: &Value,
        victims: &BTreeMap<Box<str>, (Vec<Arc<AssignedPod>>, usize)>,
    ) -> Result<BTreeMap<Box<str>, (Vec<Arc<AssignedPod>>, usize)>, String> {
        let docs: Vec<(String, VictimsDoc)> = victims
            .iter()
            .map(|(node, (pods, pdb))| {
                let pdb_violations = *pdb as i64;
                let doc = if e.config.node_cache_capable {
                    VictimsDoc::Meta { uids: pods.iter().map(|p| p.uid.to_string()).collect(), pdb_violations }
                } else {
                    VictimsDoc::Full { pods: pods.iter().map(|p| victim_document(p)).collect(), pdb_violations }
                };
                (node.to_string(), doc)
            })
            .collect();
        let body = wire::preemption_args(pod_doc, docs, e.config.node_cache_capable);
        let reply = wire::decode_preemption(&post(&*self.transport, e, &e.config.preempt_verb, &body)?)?;
        let mut out = BTreeMap::new();
        for (node, meta) in reply {
            let info = cache.node_by_name(&node).ok_or_else(|| texts::node_info_not_found(&node))?;
            let Some(meta) = meta else {
                out.insert(node.as_str().into(), (Vec::new(), 0));
                continue;
            };
            let mut pods = Vec::with_capacity(meta.uids.len());
            for uid in &meta.uids {
                let p =
                    info.pods.iter().find(|p| *p.uid == **uid).ok_or_else(|| texts::victim_not_on_node(e.name(), uid, &node))?;
                pods.push(p.clone());
            }
            let pdb = usize::try_from(meta.pdb_violations).unwrap_or(0);
            out.insert(node.as_str().into(), (pods, pdb));
        }
        Ok(out)
    }

    /// `extendersBinding`: the binding extender interested in this pod, if any (at most one
    /// extender binds; validation refuses more).
    pub fn bind_target(&self, pod: &api::Pod) -> Option<BindTarget> {
        self.entries.iter().find(|e| !e.config.bind_verb.is_empty() && e.is_interested(pod)).map(|e| BindTarget {
            index: e.index,
            name: e.name().to_string(),
            verb: e.config.bind_verb.clone(),
            ignorable: e.config.ignorable,
        })
    }
}

/// `HTTPExtender.Bind` and `extendersBinding`'s error handling: called on the binding path (an
/// API worker), through the same transport.
pub fn bind(transport: &dyn ExtenderTransport, target: &BindTarget, pod: &PodInfo, node: &str) -> BindDecision {
    let body = wire::binding_args(&pod.name, &pod.namespace, &pod.uid, node);
    let result = serde_json::to_vec(&body)
        .map_err(|e| e.to_string())
        .and_then(|b| transport.post(target.index, &target.verb, &b))
        .and_then(|reply| wire::decode_binding(&reply))
        .and_then(|error| if error.is_empty() { Ok(()) } else { Err(error) });
    match result {
        Ok(()) => BindDecision::Bound,
        Err(err) if target.ignorable => {
            log::info!(
                "\"Skipping extender in bind as it returned error and has ignorable flag set\" extender=\"{}\" err=\"{}\"",
                target.name,
                err
            );
            BindDecision::FallBack(err)
        }
        Err(err) => BindDecision::Failed(err),
    }
}
