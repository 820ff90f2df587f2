//! ResourceClaims as the scheduler sees them: the informer's version of each claim and, after
//! the scheduler itself wrote a claim (PreBind), the version that write returned until the
//! informer catches up — upstream's assume cache (`pkg/scheduler/util/assumecache/assume_cache.go`,
//! kubernetes/kubernetes v1.35, which kube-scheduler builds for claims with the description
//! `ResourceClaim`), as plain data owned by the scheduler thread.
//!
//! The rules are upstream's: an informer add or update replaces both versions, but only when its
//! resourceVersion is newer than the latest one kept (so an assumed claim is not overwritten by
//! an older informer copy); [`ClaimStore::assume`] keeps a newer-or-equal version as the latest;
//! [`ClaimStore::restore`] goes back to the informer's version; a delete forgets both.
//! resourceVersions compare as integers, as upstream's `strconv.ParseInt` comparison does.

use crate::core::api::{self, Object};
use crate::core::seeded_hash::SeededHashMap;
use crate::core::texts::dynamic_resources as texts;
use std::sync::Arc;

/// One claim: the informer's version and the latest known one (the same object unless assumed).
#[derive(Debug, Clone)]
struct Entry {
    api: Arc<api::ResourceClaim>,
    latest: Arc<api::ResourceClaim>,
}

/// How the latest version of a claim changed (`None` old: added; `None` new: deleted), for the
/// allocated-device accounting and the cluster events of the queueing hints.
#[derive(Debug, Clone)]
pub struct ClaimChange {
    pub old: Option<Arc<api::ResourceClaim>>,
    pub new: Option<Arc<api::ResourceClaim>>,
}

/// Why [`ClaimStore::assume`] refused a claim (upstream's error texts).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AssumeError(pub String);

impl std::fmt::Display for AssumeError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

/// The claims by `namespace/name`, with an index by UID. Seeded: tenants name their claims (and
/// the index shares the map type rather than trust that no client ever picks a UID).
#[derive(Debug, Clone, Default)]
pub struct ClaimStore {
    by_key: SeededHashMap<String, Entry>,
    by_uid: SeededHashMap<Box<str>, String>,
}

/// `getObjVersion`: the resourceVersion as an integer.
fn version(claim: &api::ResourceClaim) -> Option<i64> {
    claim.metadata.resource_version.parse().ok()
}

impl ClaimStore {
    /// The latest version of `namespace/name` (upstream `Get`).
    pub fn get(&self, key: &str) -> Option<&Arc<api::ResourceClaim>> {
        self.by_key.get(key).map(|e| &e.latest)
    }

    /// The informer's version (upstream `GetAPIObj`).
    pub fn get_api(&self, key: &str) -> Option<&Arc<api::ResourceClaim>> {
        self.by_key.get(key).map(|e| &e.api)
    }

    /// The latest version of the claim with this UID.
    pub fn by_uid(&self, uid: &str) -> Option<&Arc<api::ResourceClaim>> {
        self.by_uid.get(uid).and_then(|k| self.get(k))
    }

    /// Whether the latest version is one the scheduler assumed (not the informer's).
    pub fn is_assumed(&self, key: &str) -> bool {
        self.by_key.get(key).is_some_and(|e| !Arc::ptr_eq(&e.api, &e.latest))
    }

    pub fn len(&self) -> usize {
        self.by_key.len()
    }

    pub fn is_empty(&self) -> bool {
        self.by_key.is_empty()
    }

    /// Every key.
    pub fn keys(&self) -> impl Iterator<Item = &String> {
        self.by_key.keys()
    }

    /// Every claim's latest version.
    pub fn iter(&self) -> impl Iterator<Item = &Arc<api::ResourceClaim>> {
        self.by_key.values().map(|e| &e.latest)
    }

    /// An informer add or update (upstream `add`): `None` when the version is not newer than
    /// the latest kept. A version that is not an integer (no real API server sends one) replaces
    /// an informer version but never an assumed one.
    pub fn informer_upsert(&mut self, claim: api::ResourceClaim) -> Option<ClaimChange> {
        let key = claim.key();
        let old = match self.by_key.get(&key) {
            Some(e) => {
                let newer = match (version(&claim), version(&e.latest)) {
                    (Some(new), Some(stored)) => new > stored,
                    _ => Arc::ptr_eq(&e.api, &e.latest),
                };
                if !newer {
                    crate::core::logging::v(10, || {
                        crate::core::logging::Line::new(
                            "Skip adding object to assume cache because version is not newer than storedVersion",
                        )
                        .s("description", texts::CLAIM_DESCRIPTION)
                        .s("cacheKey", &key)
                    });
                    return None;
                }
                Some(e.latest.clone())
            }
            None => None,
        };
        if let Some(o) = &old {
            if o.metadata.uid != claim.metadata.uid {
                self.by_uid.remove(o.metadata.uid.as_str());
            }
        }
        let new = Arc::new(claim);
        if !new.metadata.uid.is_empty() {
            self.by_uid.insert(new.metadata.uid.as_str().into(), key.clone());
        }
        self.by_key.insert(key, Entry { api: new.clone(), latest: new.clone() });
        Some(ClaimChange { old, new: Some(new) })
    }

    /// An informer delete (upstream `delete`): both versions are forgotten.
    pub fn remove(&mut self, key: &str) -> Option<ClaimChange> {
        let e = self.by_key.remove(key)?;
        if self.by_uid.get(e.latest.metadata.uid.as_str()).is_some_and(|k| k == key) {
            self.by_uid.remove(e.latest.metadata.uid.as_str());
        }
        Some(ClaimChange { old: Some(e.latest), new: None })
    }

    /// Keep a version the API server returned for a write of ours as the latest
    /// (`AssumeClaimAfterAPICall` → `Assume`): refused for an unknown claim and for a version
    /// older than the latest kept.
    pub fn assume(&mut self, claim: api::ResourceClaim) -> Result<ClaimChange, AssumeError> {
        let key = claim.key();
        let Some(e) = self.by_key.get_mut(&key) else {
            return Err(AssumeError(texts::claim_not_found(&key)));
        };
        let new = version(&claim)
            .ok_or_else(|| AssumeError(texts::claim_version_unreadable(&key, &claim.metadata.resource_version)))?;
        let stored = version(&e.latest)
            .ok_or_else(|| AssumeError(texts::claim_version_unreadable(&key, &e.latest.metadata.resource_version)))?;
        if new < stored {
            return Err(AssumeError(texts::claim_out_of_sync(&key, stored, new)));
        }
        let old = std::mem::replace(&mut e.latest, Arc::new(claim));
        crate::core::logging::v(4, || {
            crate::core::logging::Line::new("Assumed object")
                .s("description", texts::CLAIM_DESCRIPTION)
                .s("cacheKey", &key)
                .n("version", new)
        });
        Ok(ClaimChange { old: Some(old), new: Some(e.latest.clone()) })
    }

    /// Go back to the informer's version (upstream `Restore`); `None` when there was nothing to
    /// undo.
    pub fn restore(&mut self, key: &str) -> Option<ClaimChange> {
        let e = self.by_key.get_mut(key)?;
        if Arc::ptr_eq(&e.api, &e.latest) {
            return None;
        }
        let old = std::mem::replace(&mut e.latest, e.api.clone());
        crate::core::logging::v(4, || {
            crate::core::logging::Line::new("Restored object").s("description", texts::CLAIM_DESCRIPTION).s("cacheKey", key)
        });
        Some(ClaimChange { old: Some(old), new: Some(e.latest.clone()) })
    }

    /// Forget everything (the kind became unreadable); the removed latest versions, in key order
    /// (the map's order differs from process to process).
    pub fn clear(&mut self) -> Vec<Arc<api::ResourceClaim>> {
        self.by_uid.clear();
        let mut removed: Vec<(String, Entry)> = self.by_key.drain().collect();
        removed.sort_unstable_by(|a, b| a.0.cmp(&b.0));
        removed.into_iter().map(|(_, e)| e.latest).collect()
    }
}
