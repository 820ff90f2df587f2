//! Claims made from `ResourceClaimTemplate`s as the resourceclaim controller makes them
//! (kubernetes/kubernetes v1.35 `pkg/controller/resourceclaim/controller.go`, `handleClaim`), for
//! the what-if commands: a live cluster's controller creates a pod's claims before the scheduler
//! sees the pod, a simulation must do it itself.
//!
//! The claim gets the template's labels, annotations and spec, the annotation naming the pod's
//! claim entry, the pod as its controlling owner and a name generated from `<pod>-<claim>-` (the
//! API server appends five random characters, `k8s.io/apiserver/pkg/storage/names`); the pod gets
//! the claim's name in `status.resourceClaimStatuses`. The random part comes from the caller's
//! seeded [`Rng`], so a simulation names its claims the same way every time.

use crate::core::api;
use crate::core::rng::Rng;

/// The annotation the controller puts on a generated claim: the pod's claim entry it is for
/// (`podResourceClaimAnnotation`).
pub const POD_CLAIM_NAME_ANNOTATION: &str = "resource.kubernetes.io/pod-claim-name";

/// The characters of a generated name's random part (`k8s.io/apimachinery/pkg/util/rand`'s
/// alphabet: no vowels, no confusable digits).
const ALPHANUMS: &[u8] = b"bcdfghjklmnpqrstvwxz2456789";

/// How many random characters the API server appends to `generateName`.
const RANDOM_LENGTH: usize = 5;

/// `handleClaim`'s longest base: room for the random part in a 63-character name.
const MAX_BASE_LEN: usize = 57;

/// The `generateName` the controller uses: `<pod>-<claim>-`, or when longer than 57 bytes both
/// names cut in proportion to their lengths and joined by `-` (upstream leaves the trailing `-`
/// off in that case, and so does this).
pub fn generate_name(pod_name: &str, pod_claim_name: &str) -> String {
    let base = format!("{pod_name}-{pod_claim_name}-");
    if base.len() <= MAX_BASE_LEN {
        return base;
    }
    let cut = |s: &str| -> String {
        // Kubernetes names are ASCII; `get` keeps a non-ASCII name from panicking.
        let keep = s.len() * MAX_BASE_LEN / base.len();
        s.get(..keep).unwrap_or(s).to_string()
    };
    format!("{}-{}", cut(pod_name), cut(pod_claim_name))
}

/// The API server's name for `generate_name`: the base (cut to leave room) and five random
/// characters.
pub fn generated_name(generate_name: &str, rng: &mut Rng) -> String {
    let max_base = 63 - RANDOM_LENGTH;
    let mut name: String = generate_name.chars().take(max_base).collect();
    for _ in 0..RANDOM_LENGTH {
        let i = rng.below(ALPHANUMS.len() as u64) as usize;
        name.push(char::from(ALPHANUMS[i]));
    }
    name
}

/// The claim the controller creates for `pod`'s entry `pod_claim_name` from `template`, named
/// `name` (see [`generated_name`]) with `uid`.
pub fn instantiate(
    pod: &api::Pod,
    pod_claim_name: &str,
    template: &api::ResourceClaimTemplate,
    name: &str,
    uid: &str,
) -> api::ResourceClaim {
    let mut annotations = template.spec.metadata.annotations.clone();
    annotations.insert(POD_CLAIM_NAME_ANNOTATION.to_string(), pod_claim_name.to_string());
    let mut spec = template.spec.spec.clone();
    super::defaults::default_claim_spec(&mut spec);
    api::ResourceClaim {
        kind: "ResourceClaim".into(),
        api_version: "resource.k8s.io/v1".into(),
        metadata: api::ResourceObjectMeta {
            name: name.to_string(),
            generate_name: generate_name(&pod.metadata.name, pod_claim_name),
            namespace: pod.metadata.namespace.clone(),
            uid: uid.to_string(),
            resource_version: "1".into(),
            labels: template.spec.metadata.labels.clone(),
            annotations,
            owner_references: vec![api::OwnerReference {
                api_version: "v1".into(),
                kind: "Pod".into(),
                name: pod.metadata.name.clone(),
                uid: pod.metadata.uid.clone(),
                controller: Some(true),
            }],
            ..Default::default()
        },
        spec,
        status: Default::default(),
    }
}

/// Record in the pod's status that its entry `pod_claim_name` is the claim `claim_name`, as the
/// controller's status update does (an existing entry of that name is replaced).
pub fn record_in_pod(pod: &mut api::Pod, pod_claim_name: &str, claim_name: &str) {
    let statuses = &mut pod.status.resource_claim_statuses;
    statuses.retain(|s| s.name != pod_claim_name);
    statuses.push(api::PodResourceClaimStatus {
        name: pod_claim_name.to_string(),
        resource_claim_name: Some(claim_name.to_string()),
    });
}

/// The pod's entries made from a template that have no claim yet (no status entry): what the
/// controller would still create, as `(entry name, template name)`.
pub fn missing_claims(pod: &api::Pod) -> Vec<(String, String)> {
    pod.spec
        .resource_claims
        .iter()
        .filter(|c| c.resource_claim_name.is_none())
        .filter_map(|c| c.resource_claim_template_name.as_ref().map(|t| (c.name.clone(), t.clone())))
        .filter(|(entry, _)| !pod.status.resource_claim_statuses.iter().any(|s| s.name == *entry))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_based_on_pod_and_claim() {
        assert_eq!(generate_name("web-0", "gpu"), "web-0-gpu-");
        // controller.go: longer bases cut both names in proportion, no trailing '-'.
        let pod = "p".repeat(50);
        let claim = "c".repeat(20);
        let base = generate_name(&pod, &claim);
        assert_eq!(base, format!("{}-{}", "p".repeat(50 * 57 / 72), "c".repeat(20 * 57 / 72)));
        assert!(base.len() <= 57);
        let mut rng = Rng::seeded(1);
        let name = generated_name("web-0-gpu-", &mut rng);
        assert_eq!(name.len(), "web-0-gpu-".len() + 5);
        assert!(name[10..].bytes().all(|b| ALPHANUMS.contains(&b)), "{name}");
        assert_eq!(name, generated_name("web-0-gpu-", &mut Rng::seeded(1)), "the same seed names the same");
    }

    #[test]
    fn the_claim_belongs_to_the_pod() {
        let mut pod = api::Pod::default();
        pod.metadata.name = "web-0".into();
        pod.metadata.namespace = "ml".into();
        pod.metadata.uid = "uid-web-0".into();
        pod.spec.resource_claims = vec![
            api::PodResourceClaim {
                name: "gpu".into(),
                resource_claim_template_name: Some("one-gpu".into()),
                ..Default::default()
            },
            api::PodResourceClaim { name: "nic".into(), resource_claim_name: Some("shared-nic".into()), ..Default::default() },
        ];
        assert_eq!(missing_claims(&pod), vec![("gpu".to_string(), "one-gpu".to_string())]);
        let mut template = api::ResourceClaimTemplate::default();
        template.spec.metadata.labels.insert("team".into(), "ml".into());
        template.spec.spec.devices.requests.push(api::DeviceRequest {
            name: "gpu".into(),
            exactly: Some(api::ExactDeviceRequest { device_class_name: "gpu.example.com".into(), ..Default::default() }),
            first_available: Vec::new(),
        });
        let claim = instantiate(&pod, "gpu", &template, "web-0-gpu-abcde", "claim-uid");
        assert_eq!(claim.metadata.namespace, "ml");
        assert_eq!(claim.metadata.generate_name, "web-0-gpu-");
        assert_eq!(claim.metadata.annotations.get(POD_CLAIM_NAME_ANNOTATION).map(String::as_str), Some("gpu"));
        assert_eq!(claim.metadata.labels.get("team").map(String::as_str), Some("ml"));
        let owner = &claim.metadata.owner_references[0];
        assert_eq!((owner.kind.as_str(), owner.uid.as_str(), owner.controller), ("Pod", "uid-web-0", Some(true)));
        let exact = claim.spec.devices.requests[0].exactly.as_ref().expect("exactly");
        assert_eq!((exact.allocation_mode.as_str(), exact.count), ("ExactCount", 1), "defaulted");
        record_in_pod(&mut pod, "gpu", &claim.metadata.name);
        assert!(missing_claims(&pod).is_empty());
        assert_eq!(pod.status.resource_claim_statuses[0].resource_claim_name.as_deref(), Some("web-0-gpu-abcde"));
    }
}
