//! A small, fast, non-cryptographic hasher (the Fx hash used inside rustc) for the hot maps of
//! a scheduling cycle: node name → id and topology value → count are looked up thousands of
//! times per pod, and SipHash plus the key compare dominated the topology plugins' profile.
//!
//! Keys come from the API server (node names, label values written by cluster administrators),
//! not from arbitrary clients, so hash flooding is not a concern here; maps fed with anything
//! else keep std's randomised SipHash.

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

const SEED: u64 = 0x51_7c_c1_b7_27_22_0a_95;

/// The Fx hasher.
#[derive(Debug, Default, Clone, Copy)]
pub struct FxHasher {
    hash: u64,
}

impl FxHasher {
    #[inline]
    fn add(&mut self, word: u64) {
        self.hash = (self.hash.rotate_left(5) ^ word).wrapping_mul(SEED);
    }
}

impl Hasher for FxHasher {
    #[inline]
    fn write(&mut self, bytes: &[u8]) {
        let mut chunks = bytes.chunks_exact(8);
        for c in &mut chunks {
            let mut w = [0u8; 8];
            w.copy_from_slice(c);
            self.add(u64::from_le_bytes(w));
        }
        let rest = chunks.remainder();
        if !rest.is_empty() {
            let mut w = [0u8; 8];
            w[..rest.len()].copy_from_slice(rest);
            self.add(u64::from_le_bytes(w) ^ ((rest.len() as u64) << 56));
        }
    }

    #[inline]
    fn write_u8(&mut self, i: u8) {
        self.add(u64::from(i));
    }

    #[inline]
    fn write_u32(&mut self, i: u32) {
        self.add(u64::from(i));
    }

    #[inline]
    fn write_u64(&mut self, i: u64) {
        self.add(i);
    }

    #[inline]
    fn write_usize(&mut self, i: usize) {
        self.add(i as u64);
    }

    #[inline]
    fn finish(&self) -> u64 {
        self.hash
    }
}

/// A `HashMap` using [`FxHasher`] (construct with `default()`).
pub type FxHashMap<K, V> = HashMap<K, V, BuildHasherDefault<FxHasher>>;

#[cfg(test)]
mod tests {
    use super::*;
    use std::hash::Hash;

    fn hash(s: &str) -> u64 {
        let mut h = FxHasher::default();
        s.hash(&mut h);
        h.finish()
    }

    #[test]
    fn distinguishes_similar_keys() {
        let names: Vec<String> = (0..20_000).map(|i| format!("node-{i:05}")).collect();
        let distinct: std::collections::HashSet<u64> = names.iter().map(|n| hash(n)).collect();
        assert_eq!(distinct.len(), names.len());
        assert_ne!(hash("a"), hash("a\0"));
        assert_ne!(hash(""), hash("\0"));
    }

    #[test]
    fn works_as_a_map() {
        let mut m: FxHashMap<Box<str>, i64> = FxHashMap::default();
        for i in 0..1000 {
            *m.entry(format!("zone-{}", i % 7).into()).or_default() += 1;
        }
        assert_eq!(m.len(), 7);
        assert_eq!(m.get("zone-0"), Some(&143));
    }
}
