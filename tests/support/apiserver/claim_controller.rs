//! kube-controller-manager's part in Dynamic Resource Allocation, for tests that need claims to
//! appear and go away as on a cluster: the resourceclaim controller
//! (`pkg/controller/resourceclaim/controller.go`, kubernetes/kubernetes, read at commit
//! 003e86297d18a8538c9da3619871393f9703bf70; v1.35 runs the same steps against
//! resource.k8s.io/v1) and the garbage collector's deletion of claims whose owning pod is gone.
//!
//! For a pod (not being deleted) and each `spec.resourceClaims[]` entry naming a
//! `resourceClaimTemplateName` without a claim yet, a ResourceClaim is created from the template
//! (`generateName` `<pod>-<claim>-`, both cut proportionally beyond 57 characters; the pod as
//! controlling owner with `blockOwnerDeletion`; the template's labels and annotations plus
//! `resource.kubernetes.io/pod-claim-name`) and recorded in the pod's
//! `status.resourceClaimStatuses`. A claim owned by the pod and annotated for the entry is
//! adopted instead of creating a second one (looked up by its generated name's prefix rather
//! than through an owner index). A bound pod gets its allocated claims reserved for it when
//! nobody else did (also when the claim is allocated after the pod was bound). For a claim,
//! `status.reservedFor` entries of pods that are gone, replaced (another UID) or done are
//! removed; a claim left without consumers is deallocated and loses the
//! `resource.kubernetes.io/delete-protection` finalizer; a generated claim nobody uses whose pod
//! is done, replaced or gone is deleted.
//!
//! The controller runs inside the store's write lock right after the writes that concern it
//! (see `Shared::write`), so its writes follow the triggering write as separate changes with
//! their own versions and watch events, the way a controller reacting quickly would make them.
//! Every write goes through the same strategies and validation as a client's. What it cannot
//! do (a missing template, a refused write) is recorded as the text the controller would log.

use super::resources::{self, dra_resource};
use super::status::{quote, ApiError};
use super::store::{Change, ObjKey, Store};
use super::verbs::{self, Part};
use serde_json::{json, Value};
use std::collections::BTreeSet;
use std::time::SystemTime;

/// `resourceapi.Finalizer`: set by the scheduler before it allocates a claim.
pub const FINALIZER: &str = "resource.kubernetes.io/delete-protection";
/// `podResourceClaimAnnotation`: which `spec.resourceClaims[]` entry a generated claim is for.
pub const POD_CLAIM_ANNOTATION: &str = "resource.kubernetes.io/pod-claim-name";
/// `maxBaseLen`: room for the hyphen and 5 random characters in 63.
const MAX_BASE_LEN: usize = 57;
/// Reactions to reactions: the controller settles in a few rounds (a claim it deletes loses its
/// finalizer in the next one); the bound keeps a mistake from looping.
const MAX_ROUNDS: usize = 16;

/// One thing to look at.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
enum Work {
    /// A pod to sync (namespace, name).
    Pod(String, String),
    /// A claim.
    Claim(String, String),
    /// A template that appeared or changed: pods waiting for it may go ahead.
    Template(String, String),
}

fn s<'a>(v: &'a Value, key: &str) -> &'a str {
    v[key].as_str().unwrap_or("")
}

fn items(v: &Value) -> &[Value] {
    v.as_array().map(Vec::as_slice).unwrap_or(&[])
}

fn pod_key(ns: &str, name: &str) -> ObjKey {
    ObjKey::new(resources::pods(), ns, name)
}

fn claim_key(ns: &str, name: &str) -> ObjKey {
    ObjKey::new(dra_resource("resourceclaims"), ns, name)
}

/// Run the controller on everything once.
pub fn sync_all(store: &mut Store, log: &mut Vec<String>) {
    let pods: Vec<Work> =
        store.objects_of(resources::pods(), None).map(|(k, _)| Work::Pod(k.ns.clone(), k.name.clone())).collect();
    let claims: Vec<Work> =
        store.objects_of(dra_resource("resourceclaims"), None).map(|(k, _)| Work::Claim(k.ns.clone(), k.name.clone())).collect();
    for w in pods.into_iter().chain(claims) {
        run(store, &w, log);
    }
}

/// React to the changes made since version `since` (and to the controller's own changes,
/// until nothing is left to do).
pub fn react(store: &mut Store, since: u64, log: &mut Vec<String>) {
    let mut from = since;
    for _ in 0..MAX_ROUNDS {
        let to = store.rv();
        if to <= from {
            return;
        }
        let work = work_between(store, from, to);
        from = to;
        for w in &work {
            run(store, w, log);
        }
    }
}

/// The work the changes in `(from, to]` call for.
fn work_between(store: &Store, from: u64, to: u64) -> BTreeSet<Work> {
    let (pods, claims, templates) = (resources::pods(), dra_resource("resourceclaims"), dra_resource("resourceclaimtemplates"));
    let mut work = BTreeSet::new();
    for ev in store.events_after(from).take_while(|e| e.rv <= to) {
        let (ns, name) = (ev.key.ns.clone(), ev.key.name.clone());
        if ev.key.res == pods {
            // The claims the pod used: reservations to drop, generated claims to delete.
            for claim in referenced_claims(store, &ev.object) {
                work.insert(Work::Claim(ns.clone(), claim));
            }
            if ev.change != Change::Deleted {
                work.insert(Work::Pod(ns, name));
            }
        } else if ev.key.res == claims && ev.change != Change::Deleted {
            // An allocated claim may be for a bound pod that waits for its reservation.
            if !ev.object["status"]["allocation"].is_null() {
                for pod in pods_using(store, &ns, &ev.object) {
                    work.insert(Work::Pod(ns.clone(), pod));
                }
            }
            work.insert(Work::Claim(ns, name));
        } else if ev.key.res == templates && ev.change != Change::Deleted {
            work.insert(Work::Template(ns, name));
        }
    }
    work
}

fn run(store: &mut Store, work: &Work, log: &mut Vec<String>) {
    match work {
        Work::Pod(ns, name) => sync_pod(store, ns, name, log),
        Work::Claim(ns, name) => sync_claim(store, ns, name, log),
        Work::Template(ns, name) => {
            let waiting: Vec<String> = store
                .objects_of(resources::pods(), Some(ns))
                .filter(|(_, p)| items(&p["spec"]["resourceClaims"]).iter().any(|c| s(c, "resourceClaimTemplateName") == name))
                .map(|(k, _)| k.name.clone())
                .collect();
            for pod in waiting {
                sync_pod(store, ns, &pod, log);
            }
        }
    }
}

/// The pods that use a claim (the controller's pod index by claim): a generated claim's owner,
/// else the pods of the namespace naming it.
fn pods_using(store: &Store, ns: &str, claim: &Value) -> Vec<String> {
    if let Some((owner, _)) = owner_pod(claim) {
        return vec![owner];
    }
    let name = s(&claim["metadata"], "name");
    store
        .objects_of(resources::pods(), Some(ns))
        .filter(|(_, p)| items(&p["spec"]["resourceClaims"]).iter().any(|c| s(c, "resourceClaimName") == name))
        .map(|(k, _)| k.name.clone())
        .collect()
}

/// Claims a pod names, directly or in its status, and the generated claims it owns.
fn referenced_claims(store: &Store, pod: &Value) -> Vec<String> {
    let ns = s(&pod["metadata"], "namespace");
    let uid = s(&pod["metadata"], "uid");
    let mut names: Vec<String> = Vec::new();
    for pc in items(&pod["spec"]["resourceClaims"]) {
        if !s(pc, "resourceClaimName").is_empty() {
            names.push(s(pc, "resourceClaimName").to_string());
        }
        let base = generate_name(s(&pod["metadata"], "name"), s(pc, "name"));
        for (k, claim) in store.objects_named_like(dra_resource("resourceclaims"), ns, &base) {
            if owner_pod(claim).is_some_and(|(_, owner_uid)| owner_uid == uid) {
                names.push(k.name.clone());
            }
        }
    }
    for st in items(&pod["status"]["resourceClaimStatuses"]) {
        if let Some(n) = st["resourceClaimName"].as_str() {
            names.push(n.to_string());
        }
    }
    names.sort();
    names.dedup();
    names
}

/// `generateName` of a claim for pod claim `claim` of pod `pod`: `<pod>-<claim>-`, or both
/// names cut in proportion to their length (and no trailing hyphen) beyond 57 characters.
pub fn generate_name(pod: &str, claim: &str) -> String {
    let full = format!("{pod}-{claim}-");
    if full.len() <= MAX_BASE_LEN {
        return full;
    }
    // Pod and claim names are DNS names, so bytes are characters.
    let cut = |name: &str| name.chars().take(name.len() * MAX_BASE_LEN / full.len()).collect::<String>();
    format!("{}-{}", cut(pod), cut(claim))
}

/// The controlling owner of a claim if it is a pod: (name, uid) (`owningPod`).
fn owner_pod(claim: &Value) -> Option<(String, String)> {
    items(&claim["metadata"]["ownerReferences"])
        .iter()
        .find(|o| o["controller"] == json!(true) && o["apiVersion"] == "v1" && o["kind"] == "Pod")
        .map(|o| (s(o, "name").to_string(), s(o, "uid").to_string()))
}

/// `resourceclaim.IsForPod`: the claim's controlling owner is this pod.
fn is_for_pod(pod: &Value, claim: &Value) -> bool {
    owner_pod(claim).is_some_and(|(_, uid)| uid == s(&pod["metadata"], "uid"))
}

/// `isPodDone`: terminal, or deleted before it was scheduled.
fn is_pod_done(pod: &Value) -> bool {
    matches!(s(&pod["status"], "phase"), "Succeeded" | "Failed")
        || (!pod["metadata"]["deletionTimestamp"].is_null() && s(&pod["spec"], "nodeName").is_empty())
}

/// What `resourceclaim.Name` says about a pod claim.
enum ClaimName {
    /// This claim (and whether it must be owned by the pod).
    Named(String, bool),
    /// Generated from a template, but not yet.
    NotCreated,
    /// The controller decided no claim is needed.
    NotNeeded,
}

fn claim_name(pod: &Value, pc: &Value) -> Result<ClaimName, String> {
    let name = s(pc, "name");
    if !s(pc, "resourceClaimName").is_empty() {
        return Ok(ClaimName::Named(s(pc, "resourceClaimName").to_string(), false));
    }
    if s(pc, "resourceClaimTemplateName").is_empty() {
        return Err(format!("PodResourceClaim {name}: unsupported"));
    }
    match items(&pod["status"]["resourceClaimStatuses"]).iter().find(|st| s(st, "name") == name) {
        Some(st) => match st["resourceClaimName"].as_str() {
            Some(n) => Ok(ClaimName::Named(n.to_string(), true)),
            None => Ok(ClaimName::NotNeeded),
        },
        None => Ok(ClaimName::NotCreated),
    }
}

fn error_text(e: &ApiError) -> String {
    e.body["message"].as_str().unwrap_or("").to_string()
}

/// `syncPod`.
fn sync_pod(store: &mut Store, ns: &str, name: &str, log: &mut Vec<String>) {
    let Some(pod) = store.get(&pod_key(ns, name)).cloned() else { return };
    if !pod["metadata"]["deletionTimestamp"].is_null() {
        return;
    }
    let mut created: Vec<(String, String)> = Vec::new();
    for pc in items(&pod["spec"]["resourceClaims"]) {
        match handle_claim(store, &pod, pc) {
            Ok(Some(claim)) => created.push((s(pc, "name").to_string(), claim)),
            Ok(None) => {}
            Err(e) => {
                log.push(format!("pod {ns}/{name}, PodResourceClaim {}: {e}", s(pc, "name")));
                return;
            }
        }
    }
    if !created.is_empty() {
        if let Err(e) = record_claim_statuses(store, &pod, &created) {
            log.push(format!("update pod {ns}/{name} ResourceClaimStatuses: {}", error_text(&e)));
            return;
        }
    }
    if s(&pod["spec"], "nodeName").is_empty() {
        return; // The scheduler reserves claims of pods it schedules.
    }
    let Some(pod) = store.get(&pod_key(ns, name)).cloned() else { return };
    for pc in items(&pod["spec"]["resourceClaims"]) {
        let Ok(ClaimName::Named(claim, check_owner)) = claim_name(&pod, pc) else { continue };
        let Some(claim) = store.get(&claim_key(ns, &claim)).cloned() else { continue };
        if check_owner && !is_for_pod(&pod, &claim) {
            log.push(format!(
                "ResourceClaim {ns}/{} was not created for pod {ns}/{name} (pod is not owner)",
                s(&claim["metadata"], "name")
            ));
            return;
        }
        let reserved = items(&claim["status"]["reservedFor"]);
        let uid = s(&pod["metadata"], "uid");
        let can_reserve = reserved.len() < super::dra::claim_status::RESERVED_FOR_MAX;
        if !claim["status"]["allocation"].is_null() && !reserved.iter().any(|r| s(r, "uid") == uid) && can_reserve {
            let mut next = claim.clone();
            let mut list = reserved.to_vec();
            list.push(json!({"resource": "pods", "name": name, "uid": uid}));
            next["status"]["reservedFor"] = Value::Array(list);
            let key = claim_key(ns, s(&claim["metadata"], "name"));
            if let Err(e) = verbs::update(store, &key, Part::Status, next) {
                log.push(format!("reserve claim {ns}/{} for pod: {}", s(&claim["metadata"], "name"), error_text(&e)));
                return;
            }
        }
    }
}

/// `handleClaim`: the name of a claim created (or adopted) for the pod claim, to record.
fn handle_claim(store: &mut Store, pod: &Value, pc: &Value) -> Result<Option<String>, String> {
    let ns = s(&pod["metadata"], "namespace");
    match claim_name(pod, pc)? {
        ClaimName::NotNeeded => return Ok(None),
        ClaimName::Named(name, check_owner) => {
            if let Some(claim) = store.get(&claim_key(ns, &name)) {
                if !check_owner || is_for_pod(pod, claim) {
                    return Ok(None);
                }
            }
        }
        ClaimName::NotCreated => {}
    }
    let template_name = s(pc, "resourceClaimTemplateName");
    if template_name.is_empty() {
        return Ok(None);
    }
    let base = generate_name(s(&pod["metadata"], "name"), s(pc, "name"));
    let orphan = store
        .objects_named_like(dra_resource("resourceclaims"), ns, &base)
        .find(|(_, c)| is_for_pod(pod, c) && c["metadata"]["annotations"][POD_CLAIM_ANNOTATION] == s(pc, "name"))
        .map(|(k, _)| k.name.clone());
    if let Some(name) = orphan {
        return Ok(Some(name));
    }
    let template_key = ObjKey::new(dra_resource("resourceclaimtemplates"), ns, template_name);
    let Some(template) = store.get(&template_key).cloned() else {
        return Err(format!(
            "resource claim template {}: resourceclaimtemplate.resource.k8s.io {} not found",
            quote(template_name),
            quote(template_name)
        ));
    };
    let mut annotations = template["spec"]["metadata"]["annotations"].as_object().cloned().unwrap_or_default();
    annotations.insert(POD_CLAIM_ANNOTATION.into(), json!(s(pc, "name")));
    let mut metadata = json!({
        "generateName": base,
        "ownerReferences": [{"apiVersion": "v1", "kind": "Pod", "name": s(&pod["metadata"], "name"),
            "uid": s(&pod["metadata"], "uid"), "controller": true, "blockOwnerDeletion": true}],
        "annotations": annotations,
    });
    if let Some(labels) = template["spec"]["metadata"]["labels"].as_object().filter(|l| !l.is_empty()) {
        metadata["labels"] = Value::Object(labels.clone());
    }
    let claim = json!({"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaim", "metadata": metadata,
        "spec": template["spec"]["spec"].clone()});
    let created = verbs::create(store, dra_resource("resourceclaims"), ns, claim, SystemTime::now())
        .map_err(|e| format!("create ResourceClaim : {}", error_text(&e)))?;
    Ok(Some(s(&created["metadata"], "name").to_string()))
}

/// Add `(pod claim, claim)` pairs to the pod's `status.resourceClaimStatuses` (a list map
/// keyed by name).
fn record_claim_statuses(store: &mut Store, pod: &Value, created: &[(String, String)]) -> Result<(), ApiError> {
    let mut next = pod.clone();
    let mut statuses: Vec<Value> = items(&pod["status"]["resourceClaimStatuses"]).to_vec();
    for (pc, claim) in created {
        let entry = json!({"name": pc, "resourceClaimName": claim});
        match statuses.iter_mut().find(|st| s(st, "name") == pc) {
            Some(st) => *st = entry,
            None => statuses.push(entry),
        }
    }
    next["status"]["resourceClaimStatuses"] = Value::Array(statuses);
    let key = pod_key(s(&pod["metadata"], "namespace"), s(&pod["metadata"], "name"));
    verbs::update(store, &key, Part::Status, next).map(|_| ())
}

/// Whether a `reservedFor` entry still stands for a pod that may run.
fn still_reserved(store: &Store, ns: &str, r: &Value) -> bool {
    match store.get(&pod_key(ns, s(r, "name"))) {
        None => false,
        Some(pod) => s(&pod["metadata"], "uid") == s(r, "uid") && !is_pod_done(pod),
    }
}

/// `syncClaim`, and the garbage collector for a claim whose owning pod is gone.
fn sync_claim(store: &mut Store, ns: &str, name: &str, log: &mut Vec<String>) {
    let key = claim_key(ns, name);
    let Some(claim) = store.get(&key).cloned() else { return };
    let reserved = items(&claim["status"]["reservedFor"]);
    let mut valid = Vec::new();
    for r in reserved {
        if !s(r, "apiGroup").is_empty() || s(r, "resource") != "pods" {
            log.push(format!("unsupported ReservedFor entry: {r}"));
            return;
        }
        if still_reserved(store, ns, r) {
            valid.push(r.clone());
        }
    }
    let has_finalizer = |c: &Value| items(&c["metadata"]["finalizers"]).iter().any(|f| f == FINALIZER);
    let result = if valid.len() < reserved.len() {
        release(store, &key, &claim, valid.clone(), has_finalizer(&claim))
    } else if has_finalizer(&claim) && !claim["metadata"]["deletionTimestamp"].is_null() && valid.is_empty() {
        release(store, &key, &claim, Vec::new(), true)
    } else {
        Ok(())
    };
    if let Err(e) = result {
        log.push(format!("claim {ns}/{name}: {}", error_text(&e)));
        return;
    }
    if valid.is_empty() {
        delete_if_unused(store, &key, log);
    }
}

/// Write the remaining consumers; without any, drop the allocation (when this scheduler-era
/// finalizer says the claim was allocated with structured parameters) and then the finalizer.
fn release(store: &mut Store, key: &ObjKey, claim: &Value, valid: Vec<Value>, deallocate: bool) -> Result<(), ApiError> {
    let mut next = claim.clone();
    let empty = valid.is_empty();
    if let Some(status) = super::dra::at_mut(&mut next, &["status"]).and_then(Value::as_object_mut) {
        if empty {
            status.remove("reservedFor");
        } else {
            status.insert("reservedFor".into(), Value::Array(valid));
        }
        if empty && deallocate {
            status.remove("allocation");
        }
    }
    let updated = verbs::update(store, key, Part::Status, next)?;
    let keeps_finalizer = items(&updated["metadata"]["finalizers"]).iter().any(|f| f == FINALIZER);
    if keeps_finalizer && updated["status"]["allocation"].is_null() {
        let mut unfinalized = updated.clone();
        if let Some(f) = super::dra::at_mut(&mut unfinalized, &["metadata", "finalizers"]).and_then(Value::as_array_mut) {
            f.retain(|x| x != FINALIZER);
            if f.is_empty() {
                // An empty list is no list (`omitempty`).
                if let Some(m) = super::dra::at_mut(&mut unfinalized, &["metadata"]).and_then(Value::as_object_mut) {
                    m.remove("finalizers");
                }
            }
        }
        verbs::update(store, key, Part::Main, unfinalized)?;
    }
    Ok(())
}

/// Delete a generated claim nobody uses whose pod will not run: done or replaced (the
/// controller) or gone (the garbage collector).
fn delete_if_unused(store: &mut Store, key: &ObjKey, log: &mut Vec<String>) {
    let Some(claim) = store.get(key) else { return };
    if !claim["metadata"]["deletionTimestamp"].is_null() {
        return;
    }
    let Some((pod_name, pod_uid)) = owner_pod(claim) else { return };
    let unused = match store.get(&pod_key(&key.ns, &pod_name)) {
        None => true,
        Some(pod) => s(&pod["metadata"], "uid") != pod_uid || is_pod_done(pod),
    };
    if unused {
        if let Err(e) = verbs::delete(store, key, &json!({}), false, SystemTime::now()) {
            log.push(format!("delete claim {}/{}: {}", key.ns, key.name, error_text(&e)));
        }
    }
}

#[cfg(test)]
#[allow(unused_imports)] // a bench includes this file with cfg(test) but without the #[test] functions
mod tests {
    use super::generate_name;

    #[test]
    fn generated_names_keep_both_parts_when_cut() {
        assert_eq!(generate_name("web-0", "gpu"), "web-0-gpu-");
        let pod = "p".repeat(50);
        let claim = "c".repeat(20);
        let base = generate_name(&pod, &claim);
        // 72 characters in `<pod>-<claim>-`: 50*57/72 = 39 and 20*57/72 = 15.
        assert_eq!(base, format!("{}-{}", "p".repeat(39), "c".repeat(15)));
    }
}
