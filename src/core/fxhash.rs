//! A small, fast, non-cryptographic hasher (word-at-a-time multiply-xorshift absorb, as the Fx
//! hash of rustc but with the high bits folded down so keys differing only in a few bytes do not
//! collide, and a murmur3 finaliser) for the hot maps of a scheduling cycle: node name → id and topology value → count are looked up thousands of
//! times per pod, and SipHash plus the key compare dominated the topology plugins' profile.
//!
//! Keys come from the API server (node names, label values written by cluster administrators),
//! not from arbitrary clients, so hash flooding is not a concern here; maps fed with anything
//! else keep std's randomised SipHash.

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

const K: u64 = 0x9e37_79b9_7f4a_7c15;

/// The hasher.
#[derive(Debug, Default, Clone, Copy)]
pub struct FxHasher {
    hash: u64,
}

impl FxHasher {
    #[inline]
    fn add(&mut self, word: u64) {
        // Each step is a bijection of (state ^ word): distinct words never collide for the same
        // prefix, and the fold spreads high-bit differences into the low bits.
        let h = (self.hash ^ word).wrapping_mul(K);
        self.hash = h ^ (h >> 29);
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
            // Byte by byte (at most seven): a copy of a variable length into a word was a call
            // to the C library's `memcpy` per hashed key in the size-optimised build.
            let w = rest.iter().enumerate().fold(0u64, |w, (i, &b)| w | u64::from(b) << (8 * i));
            self.add(w ^ ((rest.len() as u64) << 56));
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
        // murmur3 fmix64.
        let mut h = self.hash;
        h ^= h >> 33;
        h = h.wrapping_mul(0xff51_afd7_ed55_8ccd);
        h ^= h >> 33;
        h = h.wrapping_mul(0xc4ce_b9fe_1a85_ec53);
        h ^ (h >> 33)
    }
}

/// A `HashMap` using [`FxHasher`] (construct with `default()`).
pub type FxHashMap<K, V> = HashMap<K, V, BuildHasherDefault<FxHasher>>;
/// A `HashSet` with [`FxHasher`] (ids and other keys no outsider chooses).
pub type FxHashSet<K> = std::collections::HashSet<K, BuildHasherDefault<FxHasher>>;

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
        // The low bits pick the bucket: they must spread too.
        let low: std::collections::HashSet<u64> = names.iter().map(|n| hash(n) & 0xffff).collect();
        assert!(low.len() > 15_000, "{}", low.len());
        assert_ne!(hash("a"), hash("a\0"));
        assert_ne!(hash(""), hash("\0"));
    }

    /// The tail of a key is absorbed as the little-endian word of its bytes, as a copy into a
    /// zeroed word would give.
    #[test]
    fn tails_are_little_endian_words() {
        let text = b"abcdefghijklmnopqrstuvw";
        for len in 0..text.len() {
            let key = &text[..len];
            let mut expected = FxHasher::default();
            let mut chunks = key.chunks_exact(8);
            for c in &mut chunks {
                expected.add(u64::from_le_bytes(c.try_into().expect("eight bytes")));
            }
            let rest = chunks.remainder();
            if !rest.is_empty() {
                let mut w = [0u8; 8];
                w[..rest.len()].copy_from_slice(rest);
                expected.add(u64::from_le_bytes(w) ^ ((rest.len() as u64) << 56));
            }
            let mut h = FxHasher::default();
            h.write(key);
            assert_eq!(h.finish(), expected.finish(), "{len}");
        }
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
