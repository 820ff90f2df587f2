//! PreScore, Score, NormalizeScore and the weighted sum over the feasible nodes
//! (framework/runtime/framework.go `RunPreScorePlugins`, `RunScorePlugins`; schedule_one.go
//! `prioritizeNodes`), and the random choice among the best (`selectHost`).

use super::{CycleState, Explain, NodeScores};
use crate::core::cache::{Cache, NodeInfo};
use crate::core::framework::instrument::{point, status_label, Rec, SKIP};
use crate::core::framework::status::Code;
use crate::core::framework::{Framework, PreScoreOutcome, MAX_NODE_SCORE, MIN_NODE_SCORE};
use crate::core::model::PodInfo;
use crate::core::rng::Rng;
use crate::core::texts::framework as texts;

impl Framework {
    #[allow(clippy::too_many_arguments)]
    pub(super) fn prioritize(
        &self,
        cache: &Cache,
        pod: &PodInfo,
        nodes: &[&NodeInfo],
        cs: &mut CycleState,
        explain: bool,
        has_extenders: bool,
        rec: Rec<'_>,
    ) -> Result<Scores, String> {
        // Without score plugins and extenders every node scores 1 (prioritizeNodes).
        if self.score.is_empty() && !has_extenders {
            return Ok(Scores { totals: vec![1; nodes.len()], plugins: Vec::new(), table: None });
        }
        let start = rec.start();
        for &i in &self.pre_score {
            let pl = &self.plugins[i];
            let state = &mut cs.states[i];
            let outcome = rec.plugin(
                i,
                pl.name(),
                point::PRE_SCORE,
                || pl.pre_score(cache, pod, nodes, state),
                |o| {
                    if *o == PreScoreOutcome::Skip {
                        SKIP
                    } else {
                        status_label(None)
                    }
                },
            );
            if outcome == PreScoreOutcome::Skip {
                cs.skip_score[i] = true;
            }
        }
        rec.point(point::PRE_SCORE, status_label(None), start);
        let start = rec.start();
        let scored = self.score_plugins(cache, pod, nodes, cs, explain, rec);
        rec.point(point::SCORE, status_label(scored.as_ref().err().map(|_| Code::Error)), start);
        scored
    }

    /// RunScorePlugins: score, normalise and weigh every feasible node.
    fn score_plugins(
        &self,
        cache: &Cache,
        pod: &PodInfo,
        nodes: &[&NodeInfo],
        cs: &CycleState,
        explain: bool,
        rec: Rec<'_>,
    ) -> Result<Scores, String> {
        let (mut totals, mut raw) = {
            let mut s = self.scratch.borrow_mut();
            (std::mem::take(&mut s.totals), std::mem::take(&mut s.raw))
        };
        totals.clear();
        totals.resize(nodes.len(), 0);
        raw.clear();
        raw.resize(nodes.len(), 0);
        let (mut plugins, mut table) = (Vec::new(), explain.then(Vec::new));
        for &(i, weight) in &self.score {
            if cs.skip_score[i] {
                continue;
            }
            let pl = &self.plugins[i];
            let name = pl.name();
            let state = &cs.states[i];
            match self.score_all.get(i).and_then(Option::as_ref).filter(|_| !rec.times_plugins()) {
                // The whole list in one call (counted as one evaluation per node).
                Some(all) => {
                    let scored = all.score_all(cache, pod, nodes, state, &mut raw);
                    // Their errors are the pod's (its state, its requests): node by node, the
                    // first node's score would have failed.
                    rec.count(i, name, point::SCORE, if scored.is_ok() { nodes.len() } else { 1 });
                    scored.map_err(|r| texts::score_plugin_error(name, &r.message()))?;
                }
                None => {
                    let mut scores = || {
                        for (k, node) in nodes.iter().enumerate() {
                            raw[k] = rec
                                .plugin(
                                    i,
                                    name,
                                    point::SCORE,
                                    || pl.score(cache, pod, node, state),
                                    |r| status_label(r.as_ref().err().map(|r| r.code)),
                                )
                                .map_err(|r| texts::score_plugin_error(name, &r.message()))?;
                        }
                        Ok::<(), String>(())
                    };
                    rec.chain(true);
                    let scored = scores();
                    rec.chain(false);
                    scored?;
                }
            }
            if pl.points().normalize {
                let raw = &mut raw;
                rec.plugin(i, pl.name(), point::NORMALIZE, || pl.normalize(pod, raw, &cs.states[i]), |_| status_label(None));
            }
            // Zipped, not indexed: opt-level "z" leaves `Vec`'s indexing a call per node.
            for (total, &s) in totals.iter_mut().zip(raw.iter()) {
                if !(MIN_NODE_SCORE..=MAX_NODE_SCORE).contains(&s) {
                    return Err(texts::invalid_score(pl.name(), s, MIN_NODE_SCORE, MAX_NODE_SCORE));
                }
                *total += s * weight;
            }
            if let Some(table) = &mut table {
                plugins.push(pl.name());
                table.extend_from_slice(&raw);
            }
        }
        self.scratch.borrow_mut().raw = raw;
        Ok(Scores { totals, plugins, table })
    }
}

/// The scores of a cycle's feasible nodes.
pub(super) struct Scores {
    /// Weighted total per node (extenders' scores added by the caller).
    pub(super) totals: Vec<i64>,
    /// Plugins that scored, in order, when explaining.
    plugins: Vec<&'static str>,
    /// Their normalised scores, plugin by plugin: `table[p * nodes + k]` (`None`: not kept).
    table: Option<Vec<i64>>,
}

impl Scores {
    /// The [`NodeScores`] of the nodes `explain` keeps (all in `nodes` order, or the best first).
    pub(super) fn kept(&self, nodes: &[&NodeInfo], explain: Explain) -> Vec<NodeScores> {
        let n = nodes.len();
        let Some(table) = self.table.as_ref().filter(|t| t.len() == self.plugins.len() * n) else {
            return Vec::new();
        };
        let keep: Vec<usize> = match explain {
            Explain::Off => return Vec::new(),
            Explain::All => (0..n).collect(),
            Explain::Top(top) => {
                // The best `top`, best first, by insertion (`top` is small: no sort code is
                // instantiated for this in the binary).
                let better = |a: usize, b: usize| {
                    (self.totals[a], std::cmp::Reverse(&nodes[a].node.name))
                        > (self.totals[b], std::cmp::Reverse(&nodes[b].node.name))
                };
                let mut best: Vec<usize> = Vec::with_capacity(top.min(n) + 1);
                for k in 0..n {
                    let at = best.iter().position(|&b| better(k, b)).unwrap_or(best.len());
                    if at < top {
                        best.insert(at, k);
                        best.truncate(top);
                    }
                }
                best
            }
        };
        keep.into_iter()
            .map(|k| NodeScores {
                node: (*nodes[k].node.name).into(),
                total: self.totals[k],
                plugins: self.plugins.iter().enumerate().map(|(p, name)| (*name, table[p * n + k])).collect(),
            })
            .collect()
    }
}

/// Highest total wins; ties are broken uniformly at random (reservoir sampling, as `selectHost`).
pub fn select_host(totals: &[i64], rng: &mut Rng) -> usize {
    let mut best = 0usize;
    let mut count = 0u64;
    let mut max = i64::MIN;
    for (i, &t) in totals.iter().enumerate() {
        if t > max {
            max = t;
            best = i;
            count = 1;
        } else if t == max {
            count += 1;
            if rng.below(count) == 0 {
                best = i;
            }
        }
    }
    best
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ties_are_spread_uniformly() {
        let mut rng = Rng::seeded(1);
        let mut counts = [0u32; 3];
        for _ in 0..3000 {
            counts[select_host(&[5, 9, 9, 9][..], &mut rng).saturating_sub(1)] += 1;
        }
        assert!(counts.iter().all(|c| (850..1150).contains(c)), "{counts:?}");
        assert_eq!(select_host(&[1, 7, 3], &mut rng), 1);
    }
}
