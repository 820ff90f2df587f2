//! A pod's resource claims in the scheduling record: `spec.resourceClaims` with the claim names
//! the resourceclaim controller recorded in `status.resourceClaimStatuses`, boxed once so that a
//! pod without claims (nearly all of them) carries a single empty pointer.

use crate::core::api;

/// The claims of one pod ([`crate::core::model::PodInfo::resource_claims`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PodClaims {
    /// `spec.resourceClaims`, in order (upstream walks them in this order).
    pub claims: Box<[PodClaim]>,
    /// `status.resourceClaimStatuses`, in order.
    pub statuses: Box<[PodClaimStatus]>,
}

/// One entry of `spec.resourceClaims`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PodClaim {
    /// The name the pod's containers use for the claim.
    pub name: Box<str>,
    pub source: PodClaimSource,
}

/// Where a pod claim comes from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PodClaimSource {
    /// `resourceClaimName`: an existing claim (it wins when both are set, as upstream reads it).
    Claim(Box<str>),
    /// `resourceClaimTemplateName`: a claim made for the pod from this template.
    Template(Box<str>),
    /// Neither is set: an API this version does not know.
    Unset,
}

/// One entry of `status.resourceClaimStatuses`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PodClaimStatus {
    pub name: Box<str>,
    /// The generated claim; `None` when the controller decided none was needed.
    pub claim_name: Option<Box<str>>,
}

/// The claim object a pod claim stands for, resolved as upstream's `resourceclaim.Name`
/// (`staging/src/k8s.io/dynamic-resource-allocation/resourceclaim/resourceclaim.go`, v1.35).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ClaimRef<'a> {
    /// The claim of this name in the pod's namespace; `must_check_owner` when it was generated
    /// from a template and must be owned by the pod (`resourceclaim.IsForPod`).
    Named { name: &'a str, must_check_owner: bool },
    /// Generated from a template, but the controller decided no claim was needed: skipped.
    NotNeeded,
    /// Generated from a template that the controller has not instantiated yet (`ErrClaimNotFound`).
    NotCreatedYet,
    /// Neither a claim nor a template name (`ErrAPIUnsupported`).
    Unsupported,
}

impl PodClaims {
    /// The compact form of an API pod's claims; `None` when it has none.
    pub fn from_api(spec: &api::PodSpec, status: &api::PodStatus) -> Option<Box<PodClaims>> {
        if spec.resource_claims.is_empty() {
            return None;
        }
        let claims = spec
            .resource_claims
            .iter()
            .map(|c| PodClaim {
                name: c.name.as_str().into(),
                source: match (&c.resource_claim_name, &c.resource_claim_template_name) {
                    (Some(claim), _) => PodClaimSource::Claim(claim.as_str().into()),
                    (None, Some(template)) => PodClaimSource::Template(template.as_str().into()),
                    (None, None) => PodClaimSource::Unset,
                },
            })
            .collect();
        let statuses = status
            .resource_claim_statuses
            .iter()
            .map(|s| PodClaimStatus {
                name: s.name.as_str().into(),
                claim_name: s.resource_claim_name.as_deref().map(Into::into),
            })
            .collect();
        Some(Box::new(PodClaims { claims, statuses }))
    }

    /// The claim `claim` stands for (`resourceclaim.Name`): a named claim directly; a template's
    /// claim from the first status entry of the same name.
    pub fn resolve<'a>(&'a self, claim: &'a PodClaim) -> ClaimRef<'a> {
        match &claim.source {
            PodClaimSource::Claim(name) => ClaimRef::Named { name, must_check_owner: false },
            PodClaimSource::Template(_) => match self.statuses.iter().find(|s| s.name == claim.name) {
                Some(PodClaimStatus { claim_name: Some(name), .. }) => ClaimRef::Named { name, must_check_owner: true },
                Some(PodClaimStatus { claim_name: None, .. }) => ClaimRef::NotNeeded,
                None => ClaimRef::NotCreatedYet,
            },
            PodClaimSource::Unset => ClaimRef::Unsupported,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::gojson;

    fn claims(pod: &str) -> Option<Box<PodClaims>> {
        let pod: api::Pod = gojson::from_str(pod).expect("pod");
        PodClaims::from_api(&pod.spec, &pod.status)
    }

    #[test]
    fn pods_without_claims_carry_nothing() {
        assert_eq!(claims(r#"{"spec":{"resourceClaims":[]},"status":{"resourceClaimStatuses":[{"name":"x"}]}}"#), None);
        assert_eq!(claims(r#"{"spec":{"resourceClaims":null}}"#), None);
    }

    #[test]
    fn claims_resolve_as_resourceclaim_name_does() {
        // Cases of resourceclaim_test.go TestResourceClaimName (v1.35): a claim name, a template
        // with a generated name, a template whose claim was not needed, a template not yet
        // instantiated, neither field set; plus both set (the claim name wins).
        let c = claims(
            r#"{"spec":{"resourceClaims":[
                {"name":"a","resourceClaimName":"claim-a"},
                {"name":"b","resourceClaimTemplateName":"tmpl"},
                {"name":"c","resourceClaimTemplateName":"tmpl"},
                {"name":"d","resourceClaimTemplateName":"tmpl"},
                {"name":"e"},
                {"name":"f","resourceClaimName":"claim-f","resourceClaimTemplateName":"tmpl"}]},
              "status":{"resourceClaimStatuses":[{"name":"b","resourceClaimName":"pod-b-xyz"},{"name":"c","resourceClaimName":null}]}}"#,
        )
        .expect("claims");
        let got: Vec<ClaimRef<'_>> = c.claims.iter().map(|k| c.resolve(k)).collect();
        assert_eq!(
            got,
            [
                ClaimRef::Named { name: "claim-a", must_check_owner: false },
                ClaimRef::Named { name: "pod-b-xyz", must_check_owner: true },
                ClaimRef::NotNeeded,
                ClaimRef::NotCreatedYet,
                ClaimRef::Unsupported,
                ClaimRef::Named { name: "claim-f", must_check_owner: false },
            ]
        );
    }
}
