//! A small, fast, non-cryptographic hasher (word-at-a-time multiply-xorshift absorb, as the Fx
//! hash of rustc but with the high bits folded down so keys differing only in a few bytes do not
//! collide, and a murmur3 finaliser) for the hot maps of a scheduling cycle: topology value →
//! count and value id → count are looked up thousands of times per pod.
//!
//! It is unseeded and every step can be inverted, so anyone can compute offline a list of keys
//! with one hash value. It is therefore only for keys no tenant chooses: ids the scheduler hands
//! out (node ids, the cache's value ids), interned names (hashed by address), node names and
//! nodes' label values (set by administrators and the kubelets they run). Each use says why in
//! a comment. Keys a tenant chooses (pod, namespace and object names, label values of pods,
//! selectors, affinity terms) go to [`crate::core::seeded_hash`].

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

/// Test support: `2^stages` distinct valid pod keys (`tenant1/` and a name of `16 * stages`
/// lowercase letters and digits) that all have one hash — the flood an unseeded hash invites.
///
/// A multicollision built stage by stage: from the state so far, draw names' next words `A`
/// until two, `A` and `A'`, leave states `x` and `x'` that agree in the high four bits of every
/// byte (a birthday search over 32 bits: about 80,000 draws). Their difference `d = x ^ x'` then
/// fits in the low four bits of each byte, so a following word `B` of letters `a`–`o` has a
/// partner `B' = B ^ d` of such letters too, and `x ^ B = x' ^ B'`: both pairs `A B` and
/// `A' B'` leave the same state. Every combination of the stages' pairs collides.
#[cfg(test)]
pub(crate) fn colliding_pod_keys(stages: u32) -> Vec<String> {
    const ALNUM: &[u8; 36] = b"abcdefghijklmnopqrstuvwxyz0123456789";
    let word_of = |mut n: u64| {
        let mut w = [0u8; 8];
        for b in &mut w {
            *b = ALNUM[(n % 36) as usize];
            n /= 36;
        }
        w
    };
    let mut state = FxHasher::default();
    state.write(b"tenant1/");
    let mut pairs: Vec<[String; 2]> = Vec::new();
    for _ in 0..stages {
        let mut seen: HashMap<u64, ([u8; 8], u64)> = HashMap::new();
        let (a, x, a2, x2) = (0u64..)
            .find_map(|n| {
                let word = word_of(n);
                let mut t = state;
                t.add(u64::from_le_bytes(word));
                let tag = t.hash & 0xf0f0_f0f0_f0f0_f0f0;
                let (prev, px) = seen.insert(tag, (word, t.hash))?;
                Some((prev, px, word, t.hash))
            })
            .expect("the draws are endless");
        let d = x ^ x2;
        let b: [u8; 8] = std::array::from_fn(|i| {
            let di = (d >> (8 * i)) as u8;
            0x60 | if di == 1 { 2 } else { 1 }
        });
        let b = u64::from_le_bytes(b);
        let b2 = b ^ d;
        state.hash = x;
        state.add(b);
        pairs.push([
            String::from_utf8_lossy(&[a, b.to_le_bytes()].concat()).into_owned(),
            String::from_utf8_lossy(&[a2, b2.to_le_bytes()].concat()).into_owned(),
        ]);
    }
    let mut keys = vec![String::from("tenant1/")];
    for pair in &pairs {
        keys = keys.iter().flat_map(|k| pair.iter().map(move |p| format!("{k}{p}"))).collect();
    }
    keys
}

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
    fn colliding_pod_keys_are_valid_distinct_and_share_one_hash() {
        let keys = colliding_pod_keys(6);
        assert_eq!(keys.iter().collect::<std::collections::HashSet<_>>().len(), 64);
        for k in &keys {
            let name = k.strip_prefix("tenant1/").expect("namespace");
            assert_eq!(name.len(), 96);
            assert!(name.bytes().all(|b| b.is_ascii_lowercase() || b.is_ascii_digit()), "{name}");
            assert_eq!(hash(k), hash(&keys[0]), "{k}");
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
