//! The resourceclaim controller's part in a simulation: a pending pod whose claims come from
//! `ResourceClaimTemplate`s gets them made ([`crate::core::dra::claim_templates`]) before it is
//! queued, as a live cluster's controller makes them before the scheduler sees the pod. Each copy
//! `capacity` places gets its own claims the same way.
//!
//! Generated names take their random part from a generator seeded with the simulation's seed, so
//! the same file and seed give the same claim names (and so the same decisions).

use crate::core::api;
use crate::core::dra::claim_templates;
use crate::core::rng::Rng;
use std::collections::{HashMap, HashSet};

/// Mixed into the simulation's seed so that naming claims does not share the tie-break stream.
const NAMES_STREAM: u64 = 0x636c_6169_6d73; // "claims"

/// Templates seen and claim names taken, and the generator of the names' random part.
#[derive(Debug, Clone)]
pub struct ClaimMaker {
    templates: HashMap<(String, String), api::ResourceClaimTemplate>,
    taken: HashSet<(String, String)>,
    rng: Rng,
    made: u64,
}

impl ClaimMaker {
    pub fn new(seed: u64) -> ClaimMaker {
        ClaimMaker { templates: HashMap::new(), taken: HashSet::new(), rng: Rng::seeded(seed ^ NAMES_STREAM), made: 0 }
    }

    /// Remember a template (by namespace and name).
    pub fn add_template(&mut self, template: api::ResourceClaimTemplate) {
        let key = (template.metadata.namespace.clone(), template.metadata.name.clone());
        self.templates.insert(key, template);
    }

    /// A claim name in use (a claim of the cluster): generated names avoid it, as the API server
    /// refuses a duplicate.
    pub fn claim_exists(&mut self, namespace: &str, name: &str) {
        self.taken.insert((namespace.to_string(), name.to_string()));
    }

    /// Make the claims `pod` still lacks, record them in its status and return them (to be
    /// created before the pod is queued), with the names of templates that do not exist: their
    /// entries get no claim, as the controller gives none, and the scheduler keeps the pod waiting.
    pub fn make_for(&mut self, pod: &mut api::Pod) -> (Vec<api::ResourceClaim>, Vec<String>) {
        let mut out = Vec::new();
        let mut missing = Vec::new();
        for (entry, template_name) in claim_templates::missing_claims(pod) {
            let key = (pod.metadata.namespace.clone(), template_name);
            let Some(template) = self.templates.get(&key) else {
                missing.push(key.1);
                continue;
            };
            let base = claim_templates::generate_name(&pod.metadata.name, &entry);
            let name = loop {
                let candidate = claim_templates::generated_name(&base, &mut self.rng);
                if self.taken.insert((pod.metadata.namespace.clone(), candidate.clone())) {
                    break candidate;
                }
            };
            self.made += 1;
            let uid = format!("simulated-claim-{}", self.made);
            out.push(claim_templates::instantiate(pod, &entry, template, &name, &uid));
            claim_templates::record_in_pod(pod, &entry, &name);
        }
        (out, missing)
    }
}
