//! A fast hasher with a per-process random seed, for maps keyed by text a tenant chooses: pod
//! names and `namespace/name` keys, namespaces, label values, selectors and affinity terms,
//! custom objects' keys, a pod's `spec.nodeName` (set by whoever creates the pod).
//!
//! Why: the unseeded [`crate::core::fxhash`] is a fixed function whose every step can be
//! inverted, so a list of valid pod names with one hash value can be computed offline once and
//! used against every deployment — each insert and lookup then walks all of them. Upstream's Go
//! maps are seeded per process; so are these.
//!
//! The hash is foldhash's fast variant (a well-kept crate, hashbrown's default hasher), keyed with
//! a seed drawn once per process and a seed per map. Both come from std's
//! [`RandomState`](std::collections::hash_map::RandomState), which is how std seeds its own maps:
//! the operating system's random source, read by std once per thread. The core already builds std
//! maps, so this adds no new effect and does no I/O of its own; foldhash's own global seed would
//! instead read the clock and rely on address randomisation alone. The seed per map keeps two maps
//! from iterating in the same order, so copying one into another never clusters.
//!
//! Iteration order therefore differs from process to process (and map to map): code whose
//! decisions or output could depend on it sorts first.

use foldhash::fast::{FoldHasher, SeedableRandomState};
use foldhash::SharedSeed;
use std::collections::hash_map::RandomState;
use std::collections::{HashMap, HashSet};
use std::hash::BuildHasher;
use std::sync::OnceLock;

/// The seed every map of this process shares (foldhash spreads it into its six secret words).
fn process_seed() -> &'static SharedSeed {
    static SEED: OnceLock<SharedSeed> = OnceLock::new();
    SEED.get_or_init(|| SharedSeed::from_u64(RandomState::new().hash_one(0x5eed_u64)))
}

/// Builds the hashers of one map: the process seed and a seed of the map's own.
#[derive(Clone, Debug)]
pub struct SeededState(SeedableRandomState);

impl Default for SeededState {
    fn default() -> SeededState {
        // Each `RandomState::new()` on a thread has different keys (std bumps them per call).
        let per_map = RandomState::new().hash_one(0x6d61_7073_u64);
        SeededState(SeedableRandomState::with_seed(per_map, process_seed()))
    }
}

impl BuildHasher for SeededState {
    type Hasher = FoldHasher<'static>;

    #[inline]
    fn build_hasher(&self) -> FoldHasher<'static> {
        self.0.build_hasher()
    }
}

/// A `HashMap` for tenant-chosen keys (construct with `default()`).
pub type SeededHashMap<K, V> = HashMap<K, V, SeededState>;
/// A `HashSet` for tenant-chosen keys (construct with `default()`).
pub type SeededHashSet<K> = HashSet<K, SeededState>;

#[cfg(test)]
mod tests {
    use super::*;
    // Unseeded: the hash the collision list is computed against, for comparison.
    use crate::core::fxhash::{colliding_pod_keys, FxHasher};
    use std::cell::Cell;
    use std::hash::{BuildHasherDefault, Hash, Hasher};

    thread_local! {
        /// Equality tests of [`Counted`] keys on this thread.
        static COMPARES: Cell<u64> = const { Cell::new(0) };
    }

    /// A key whose every equality test is counted: the work a map does beyond hashing.
    struct Counted<'a> {
        key: &'a str,
    }

    impl Hash for Counted<'_> {
        fn hash<H: Hasher>(&self, h: &mut H) {
            self.key.hash(h)
        }
    }

    impl PartialEq for Counted<'_> {
        fn eq(&self, other: &Self) -> bool {
            COMPARES.with(|c| c.set(c.get() + 1));
            self.key == other.key
        }
    }

    impl Eq for Counted<'_> {}

    /// Key comparisons made inserting every key and then looking each up once.
    fn compares_for<S: BuildHasher + Default>(keys: &[String]) -> u64 {
        COMPARES.with(|c| c.set(0));
        let mut map: HashMap<Counted<'_>, usize, S> = HashMap::default();
        for (i, key) in keys.iter().enumerate() {
            map.insert(Counted { key }, i);
        }
        for (i, key) in keys.iter().enumerate() {
            assert_eq!(map.get(&Counted { key }), Some(&i));
        }
        COMPARES.with(Cell::get)
    }

    /// 4,096 valid pod keys forced into one bucket of the unseeded hash: the unseeded map
    /// compares each key with all earlier ones (quadratic), the seeded one about once per
    /// operation.
    #[test]
    fn a_precomputed_flood_of_pod_names_costs_the_seeded_map_nothing() {
        let keys = colliding_pod_keys(12);
        let n = keys.len() as u64;
        assert_eq!(n, 4096);
        let unseeded = compares_for::<BuildHasherDefault<FxHasher>>(&keys);
        let seeded = compares_for::<SeededState>(&keys);
        assert!(unseeded > n * n / 4, "the flood works on the unseeded hash: {unseeded} comparisons");
        assert!(seeded <= 3 * n, "the seeded map's cost stays flat: {seeded} comparisons for {n} keys");
    }

    #[test]
    fn maps_of_one_process_hash_alike_only_within_a_map() {
        let a = SeededState::default();
        let b = SeededState::default();
        let key = "default/web-0";
        assert_eq!(a.hash_one(key), a.clone().hash_one(key), "a map's clone hashes as the map");
        assert_ne!(a.hash_one(key), b.hash_one(key), "two maps have different seeds");
        let mut m: SeededHashMap<Box<str>, u32> = SeededHashMap::default();
        for i in 0..1000 {
            *m.entry(format!("ns-{}/pod", i % 7).into()).or_default() += 1;
        }
        assert_eq!(m.len(), 7);
        assert_eq!(m.get("ns-0/pod"), Some(&143));
    }
}
