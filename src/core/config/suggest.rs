//! "Did you mean ...?" suggestions for misspelt field names and flags.

/// The candidate closest to `word`, if it is close enough to be a likely typo: same letters in a
/// different case, or an edit distance of at most a third of the word's length (at least 1, at most 3).
pub fn closest<'a>(word: &str, candidates: impl IntoIterator<Item = &'a str>) -> Option<&'a str> {
    let limit = (word.chars().count() / 3).clamp(1, 3);
    let lower = word.to_ascii_lowercase();
    let mut best: Option<(usize, &'a str)> = None;
    for c in candidates {
        if c == word {
            continue;
        }
        let d = if c.to_ascii_lowercase() == lower { 0 } else { edit_distance(&lower, &c.to_ascii_lowercase()) };
        if d <= limit && best.is_none_or(|(bd, _)| d < bd) {
            best = Some((d, c));
        }
    }
    best.map(|(_, c)| c)
}

/// Levenshtein distance over chars.
fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut cur = vec![i + 1; b.len() + 1];
        for (j, cb) in b.iter().enumerate() {
            let cost = usize::from(ca != *cb);
            cur[j + 1] = (prev[j] + cost).min(prev[j + 1] + 1).min(cur[j] + 1);
        }
        prev = cur;
    }
    prev[b.len()]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn suggests_near_misses_only() {
        let c = ["kubeconfig", "config", "master", "leader-elect"];
        assert_eq!(closest("kube-config", c), Some("kubeconfig"));
        assert_eq!(closest("confg", c), Some("config"));
        assert_eq!(closest("Master", c), Some("master"));
        assert_eq!(closest("zzz", c), None);
        assert_eq!(closest("config", c), None);
    }

    #[test]
    fn distance() {
        assert_eq!(edit_distance("kitten", "sitting"), 3);
        assert_eq!(edit_distance("", "abc"), 3);
    }
}
