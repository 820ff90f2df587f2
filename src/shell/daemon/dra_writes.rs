//! DynamicResources' API writes, on the API workers: PreBind's `bindClaim` (the claim's
//! delete-protection finalizer with an update, then the allocation and the pod's `reservedFor`
//! entry with a status update, retried on conflicts with a fresh read exactly as upstream's
//! `retry.RetryOnConflict(retry.DefaultRetry, …)`: five attempts, 10 ms apart with 10% jitter),
//! and the writes PostFilter and Unreserve ask for (`dynamicresources.go`, kubernetes/kubernetes
//! v1.35). The request bodies come from [`crate::core::dra::claim_writes`]; every request is
//! recorded against its declared permission ([`crate::shell::permissions`]).

use crate::core::api::{self, Object};
use crate::core::dra::claim_writes;
use crate::core::framework::{ApiWrite, ClaimReservation};
use crate::core::logging::{self, Line};
use crate::core::rng::Rng;
use crate::core::texts::dynamic_resources as texts;
use crate::shell::daemon::permissions::{plain, Denials};
use crate::shell::kube::api_error::ApiError;
use crate::shell::kube::client::{Client, PatchType};
use crate::shell::process::clock::{self, Clock};
use std::sync::atomic::AtomicBool;
use std::time::Duration;

/// `retry.DefaultRetry`: attempts, the pause between them and its jitter.
const RETRY_STEPS: u32 = 5;
const RETRY_PAUSE: Duration = Duration::from_millis(10);
const RETRY_JITTER: f64 = 0.1;

const GROUP: &str = "resource.k8s.io";

/// The claim's path (`subresource`: "" or "/status").
fn claim_path(namespace: &str, name: &str, subresource: &str) -> String {
    format!("/apis/{GROUP}/v1/namespaces/{namespace}/resourceclaims/{name}{subresource}")
}

/// A request's result, recorded against the declared permission.
fn recorded<T>(denials: &Denials, verb: &str, resource: &str, object: &str, result: Result<T, ApiError>) -> Result<T, ApiError> {
    denials.outcome(|| plain(verb, GROUP, resource), object, &result);
    result
}

/// Why one attempt of `bindClaim` failed: a conflict (the next attempt reads the claim again) or
/// anything else (the error upstream returns).
enum Attempt {
    Conflict(String),
    Failed(String),
}

/// `bindClaim`: write the allocation (if Reserve chose one) and the pod's reservation into the
/// claim; the claim as the API server returned it, or the error text of PreBind.
pub fn bind_claim(
    client: &Client,
    r: &ClaimReservation,
    denials: &Denials,
    clock: &dyn Clock,
    stop: &AtomicBool,
) -> Result<api::ResourceClaim, String> {
    let kobj = r.claim.key();
    logging::v(5, || Line::new("preparing claim status update").s("claim", &kobj));
    let mut rng = Rng::from_os();
    let mut claim = (*r.claim).clone();
    let mut last = String::new();
    for step in 0..RETRY_STEPS {
        if step > 0 {
            let pause = RETRY_PAUSE.mul_f64(1.0 + RETRY_JITTER * rng.unit());
            if !clock::sleep_for(clock, stop, pause) {
                return Err(last);
            }
            // All retries start from the claim as it is now.
            let path = claim_path(&claim.metadata.namespace, &claim.metadata.name, "");
            claim = recorded(denials, "get", "resourceclaims", &kobj, client.get::<api::ResourceClaim>(&path))
                .map_err(|e| texts::refresh_after_conflict_failed(&kobj, &e.to_string()))?;
            logging::v(5, || Line::new("retrying update after conflict").s("claim", &kobj));
        }
        match attempt(client, r, &kobj, &claim, denials) {
            Ok(written) => {
                logging::v(5, || Line::new("reserved").s("pod", &r.pod_name).s("resourceclaim", &kobj));
                return Ok(written);
            }
            Err(Attempt::Conflict(e)) => last = e,
            Err(Attempt::Failed(e)) => return Err(e),
        }
    }
    Err(last)
}

/// One attempt of `bindClaim`'s update function.
fn attempt(
    client: &Client,
    r: &ClaimReservation,
    kobj: &str,
    current: &api::ResourceClaim,
    denials: &Denials,
) -> Result<api::ResourceClaim, Attempt> {
    let classify = |e: ApiError, text: String| if e.is_conflict() { Attempt::Conflict(text) } else { Attempt::Failed(text) };
    if current.metadata.deletion_timestamp.is_some() {
        return Err(Attempt::Failed(texts::claim_deleted_meanwhile(kobj)));
    }
    let mut base = current.clone();
    if r.allocation.is_some() {
        if current.status.allocation.is_some() {
            return Err(Attempt::Failed(texts::claim_allocated_elsewhere(kobj)));
        }
        // The finalizer goes in with a normal update; after an interruption it may be there.
        if let Some(with) = claim_writes::with_finalizer(current) {
            let path = claim_path(&current.metadata.namespace, &current.metadata.name, "");
            base = recorded(denials, "update", "resourceclaims", kobj, client.replace::<_, api::ResourceClaim>(&path, &with))
                .map_err(|e| {
                    let text = texts::add_finalizer_failed(kobj, &e.to_string());
                    classify(e, text)
                })?;
        }
    }
    let update = claim_writes::reserved(&base, r.allocation.as_ref(), &r.pod_name, &r.pod_uid);
    let path = claim_path(&base.metadata.namespace, &base.metadata.name, "/status");
    recorded(denials, "update", "resourceclaims/status", kobj, client.replace::<_, api::ResourceClaim>(&path, &update)).map_err(
        |e| {
            let text = match r.allocation {
                Some(_) => texts::add_allocation_failed(kobj, &e.to_string()),
                None => texts::add_reservation_failed(kobj, &e.to_string()),
            };
            classify(e, text)
        },
    )
}

/// Perform a write PostFilter or Unreserve asked for; a failure is logged (upstream's Unreserve
/// logs it too; the pod's next attempt gets there again).
pub fn execute(client: &Client, write: &ApiWrite, denials: &Denials) {
    match write {
        ApiWrite::DeallocateClaim(claim) => {
            let kobj = claim.key();
            let path = claim_path(&claim.metadata.namespace, &claim.metadata.name, "/status");
            let result = recorded(
                denials,
                "update",
                "resourceclaims/status",
                &kobj,
                client.replace::<_, serde_json::Value>(&path, &**claim),
            );
            if let Err(e) = result {
                Line::new("dynamic resource plugin failed").s("resourceclaim", &kobj).s("err", e.to_string()).error();
            }
        }
        ApiWrite::UnreserveClaim { namespace, name, claim_uid, pod_uid } => {
            let kobj = format!("{namespace}/{name}");
            let path = claim_path(namespace, name, "/status");
            let patch = claim_writes::unreserve_patch(claim_uid, pod_uid);
            let result = recorded(
                denials,
                "patch",
                "resourceclaims/status",
                &kobj,
                client.patch::<serde_json::Value>(&path, PatchType::StrategicMerge, &patch),
            );
            if let Err(e) = result {
                Line::new("unreserve").s("resourceclaim", &kobj).s("err", e.to_string()).error();
            }
        }
    }
}
