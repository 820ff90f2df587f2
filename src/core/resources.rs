//! Resource amounts as scheduling compares them: a `ResourceList` of quantity strings parsed once
//! into integers (millicores, bytes, counts) and a sorted vector of the scalar resources, with
//! the arithmetic node totals and pod requests need (add, subtract, per-resource maximum).

use crate::core::api;
use crate::core::intern::Name;
use crate::core::quantity::{self, QuantityError};

pub const RESOURCE_CPU: &str = "cpu";
pub const RESOURCE_MEMORY: &str = "memory";
pub const RESOURCE_EPHEMERAL_STORAGE: &str = "ephemeral-storage";
pub const RESOURCE_PODS: &str = "pods";
/// `schedutil.DefaultMilliCPURequest`: what a container without a cpu request counts as for scoring.
pub const DEFAULT_MILLI_CPU_REQUEST: i64 = 100;
/// `schedutil.DefaultMemoryRequest` (200 MiB).
pub const DEFAULT_MEMORY_REQUEST: i64 = 200 * 1024 * 1024;

/// Resource amounts in the units scheduling compares: millicores, bytes, counts.
/// `scalars` holds extended resources, `hugepages-*` and `attachable-volumes-*`, sorted by name.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Resources {
    pub milli_cpu: i64,
    pub memory: i64,
    pub ephemeral_storage: i64,
    /// Only meaningful for node allocatable (`pods`).
    pub allowed_pod_number: i64,
    pub scalars: Vec<(Name, i64)>,
}

impl Resources {
    /// Amount of a scalar resource (0 when absent).
    pub fn scalar(&self, name: Name) -> i64 {
        match self.scalars.binary_search_by(|(k, _)| k.cmp(&name)) {
            Ok(i) => self.scalars[i].1,
            Err(_) => 0,
        }
    }

    /// The amount of a scalar resource, inserted as 0 when absent.
    pub fn scalar_mut(&mut self, name: Name) -> &mut i64 {
        let i = match self.scalars.binary_search_by(|(k, _)| k.cmp(&name)) {
            Ok(i) => i,
            Err(i) => {
                self.scalars.insert(i, (name, 0));
                i
            }
        };
        &mut self.scalars[i].1
    }

    /// Amount by resource name, for the scoring strategies' configurable resource lists.
    pub fn get(&self, name: &str) -> i64 {
        match name {
            RESOURCE_CPU => self.milli_cpu,
            RESOURCE_MEMORY => self.memory,
            RESOURCE_EPHEMERAL_STORAGE => self.ephemeral_storage,
            RESOURCE_PODS => self.allowed_pod_number,
            other => Name::lookup(other).map(|n| self.scalar(n)).unwrap_or(0),
        }
    }

    /// Whether the resource is listed at all (a node that does not list a scalar has 0 of it).
    pub fn has_scalar(&self, name: Name) -> bool {
        self.scalars.binary_search_by(|(k, _)| k.cmp(&name)).is_ok()
    }

    /// Combine every amount of `other` into `self` with `f` (a scalar `self` lacks counts as 0).
    fn combine(&mut self, other: &Resources, f: impl Fn(i64, i64) -> i64) {
        self.milli_cpu = f(self.milli_cpu, other.milli_cpu);
        self.memory = f(self.memory, other.memory);
        self.ephemeral_storage = f(self.ephemeral_storage, other.ephemeral_storage);
        self.allowed_pod_number = f(self.allowed_pod_number, other.allowed_pod_number);
        for (n, v) in &other.scalars {
            let s = self.scalar_mut(*n);
            *s = f(*s, *v);
        }
    }

    /// Add `other` to `self` (saturating).
    pub fn add(&mut self, other: &Resources) {
        self.combine(other, i64::saturating_add);
    }

    /// Subtract `other` from `self`; scalars that reach zero are removed so that a node's totals
    /// after add+remove equal a fresh recomputation exactly.
    pub fn sub(&mut self, other: &Resources) {
        self.combine(other, i64::saturating_sub);
        self.scalars.retain(|(_, v)| *v != 0);
    }

    /// Per-resource maximum, for the init-container rule.
    pub fn max_with(&mut self, other: &Resources) {
        self.combine(other, i64::max);
    }

    /// True when every amount is zero.
    pub fn is_zero(&self) -> bool {
        self.milli_cpu == 0
            && self.memory == 0
            && self.ephemeral_storage == 0
            && self.allowed_pod_number == 0
            && self.scalars.iter().all(|(_, v)| *v == 0)
    }

    /// Parse a `ResourceList`. Every entry is parsed; the first bad one is reported with its name.
    pub fn from_list(list: &api::ResourceList) -> Result<Resources, String> {
        let mut r = Resources::default();
        for (name, q) in list {
            set_resource(&mut r, name, &q.0).map_err(|e| format!("{name}: {e}"))?;
        }
        Ok(r)
    }

    /// Like [`Resources::from_list`] but keeps what parses, for objects we must account for anyway.
    pub fn from_list_lenient(list: &api::ResourceList) -> (Resources, Vec<String>) {
        let mut r = Resources::default();
        let mut errors = Vec::new();
        for (name, q) in list {
            if let Err(e) = set_resource(&mut r, name, &q.0) {
                errors.push(format!("{name}: {e}"));
            }
        }
        (r, errors)
    }
}

/// Set the amount of the resource `name` from the quantity `q` (resources scheduling does not
/// count, e.g. `storage`, are only validated).
pub fn set_resource(r: &mut Resources, name: &str, q: &str) -> Result<(), QuantityError> {
    match name {
        RESOURCE_CPU => r.milli_cpu = quantity::parse_milli(q)?,
        RESOURCE_MEMORY => r.memory = quantity::parse_value(q)?,
        RESOURCE_EPHEMERAL_STORAGE => r.ephemeral_storage = quantity::parse_value(q)?,
        RESOURCE_PODS => r.allowed_pod_number = quantity::parse_value(q)?,
        other if is_scalar_resource_name(other) => *r.scalar_mut(Name::new(other)) = quantity::parse_value(q)?,
        // Other native resources (e.g. `storage`) are not scheduled on; still validate the value.
        _ => {
            quantity::Quantity::parse(q)?;
        }
    }
    Ok(())
}

/// `schedutil.IsScalarResourceName`: extended resources, hugepages, prefixed native resources
/// (`kubernetes.io/...`, `IsPrefixedNativeResource`) and attachable volumes.
pub fn is_scalar_resource_name(name: &str) -> bool {
    is_extended_resource_name(name)
        || name.starts_with("hugepages-")
        || name.contains("kubernetes.io/")
        || name.starts_with("attachable-volumes-")
}

/// `v1helper.IsExtendedResourceName`: a domain-qualified name outside `kubernetes.io/` and not
/// `requests.`-prefixed.
pub fn is_extended_resource_name(name: &str) -> bool {
    if !name.contains('/') || name.starts_with("requests.") {
        return false;
    }
    let native = !name.contains('/') || name.contains("kubernetes.io/");
    !native
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn extended_resources_are_scalars() {
        assert!(is_scalar_resource_name("nvidia.com/gpu"));
        assert!(is_scalar_resource_name("hugepages-2Mi"));
        assert!(is_scalar_resource_name("attachable-volumes-aws-ebs"));
        assert!(!is_scalar_resource_name("cpu"));
        // fit_test.go "kubernetes.io resource capacity enforced": prefixed native resources are
        // scalars (though not extended resources, so ignoredResources never skips them).
        assert!(is_scalar_resource_name("kubernetes.io/something"));
        assert!(!is_extended_resource_name("kubernetes.io/something"));
        assert!(!is_scalar_resource_name("requests.nvidia.com/gpu"));
    }
}
