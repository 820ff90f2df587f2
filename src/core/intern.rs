//! Process-wide interning of label keys and resource names.
//!
//! Label keys and resource names repeat across every pod and node (`app.kubernetes.io/name`,
//! `nvidia.com/gpu`), their set is small and stable, and the scheduling cycle compares them on every
//! node. Interning turns those comparisons into pointer comparisons and stores each key once.
//! Values (which can be unique per pod, like a controller uid) are *not* interned, so the pool only
//! grows with the number of distinct keys ever seen.

use std::collections::HashSet;
use std::fmt;
use std::hash::{Hash, Hasher};
use std::sync::{Mutex, OnceLock};

/// An interned string: equality and hashing by address, ordering by address (stable within a run).
#[derive(Clone, Copy)]
pub struct Name(&'static str);

type Pool = HashSet<&'static str>;

fn pool() -> &'static Mutex<Pool> {
    static POOL: OnceLock<Mutex<Pool>> = OnceLock::new();
    POOL.get_or_init(|| Mutex::new(Pool::default()))
}

impl Name {
    /// Intern `s`, allocating it once for the life of the process.
    pub fn new(s: &str) -> Name {
        let mut set = match pool().lock() {
            Ok(g) => g,
            Err(poisoned) => poisoned.into_inner(),
        };
        if let Some(existing) = set.get(s) {
            return Name(existing);
        }
        let leaked: &'static str = Box::leak(s.to_owned().into_boxed_str());
        set.insert(leaked);
        Name(leaked)
    }

    /// The interned name if `s` was ever interned. A key nobody interned cannot be on any node or
    /// pod, which lets selectors short-circuit without growing the pool.
    pub fn lookup(s: &str) -> Option<Name> {
        let set = match pool().lock() {
            Ok(g) => g,
            Err(poisoned) => poisoned.into_inner(),
        };
        set.get(s).map(|x| Name(x))
    }

    /// The string this name stands for.
    pub fn as_str(&self) -> &'static str {
        self.0
    }
}

impl PartialEq for Name {
    fn eq(&self, other: &Self) -> bool {
        std::ptr::eq(self.0.as_ptr(), other.0.as_ptr())
    }
}
impl Eq for Name {}
impl Hash for Name {
    fn hash<H: Hasher>(&self, state: &mut H) {
        (self.0.as_ptr() as usize).hash(state)
    }
}
impl PartialOrd for Name {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}
impl Ord for Name {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        (self.0.as_ptr() as usize).cmp(&(other.0.as_ptr() as usize))
    }
}
impl fmt::Debug for Name {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(self.0, f)
    }
}
impl fmt::Display for Name {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn same_string_same_name() {
        let a = Name::new("topology.kubernetes.io/zone");
        let b = Name::new(&String::from("topology.kubernetes.io/zone"));
        assert_eq!(a, b);
        assert_eq!(a.as_str(), "topology.kubernetes.io/zone");
        assert_eq!(Name::lookup("topology.kubernetes.io/zone"), Some(a));
        assert_eq!(Name::lookup("never-interned-key-xyz"), None);
        assert_ne!(Name::new("a-key"), Name::new("b-key"));
    }
}
