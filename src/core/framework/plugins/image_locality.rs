//! ImageLocality (pkg/scheduler/framework/plugins/imagelocality/image_locality.go): prefer nodes
//! that already hold the pod's container images, weighted by image size and damped by how few
//! nodes have the image (the "spread" factor that keeps pods from piling onto one warm node).
//!
//! Upstream computes everything in Score; here the per-pod part (interned image names and their
//! spread over the cluster) is computed once in PreScore, so Score only looks up sizes on the
//! node. The result is identical.

use crate::core::cache::{Cache, NodeInfo};
use crate::core::framework::{state_as, EventMask, Plugin, PluginState, Points, PreScoreOutcome, Rejection, MAX_NODE_SCORE};
use crate::core::intern::Name;
use crate::core::model::PodInfo;

const MB: i64 = 1024 * 1024;
/// `minThreshold`: images smaller than this (after spread scaling) earn nothing.
pub const MIN_THRESHOLD: i64 = 23 * MB;
/// `maxContainerThreshold`: the sum saturates at this much per container.
pub const MAX_CONTAINER_THRESHOLD: i64 = 1000 * MB;

/// The plugin (stateless; per-pod data lives in the PreScore state).
pub struct ImageLocality;

/// PreScore state: each pod image present on some node, with its spread
/// (`nodes having it / all nodes`), and the number of containers.
struct ScoreState {
    images: Vec<(Name, f64)>,
    containers: usize,
}

/// `calculatePriority`: clamp the summed scores to `[min, max * containers]` and scale to 0..=100.
pub fn calculate_priority(sum_scores: i64, num_containers: usize) -> i64 {
    let max_threshold = MAX_CONTAINER_THRESHOLD.saturating_mul(num_containers as i64);
    let sum = if sum_scores < MIN_THRESHOLD { MIN_THRESHOLD } else { sum_scores.min(max_threshold) };
    MAX_NODE_SCORE * (sum - MIN_THRESHOLD) / (max_threshold - MIN_THRESHOLD)
}

/// `scaledImageScore`: the image size scaled by its spread (Go float64 → int64 truncation).
#[inline(always)]
pub fn scaled_image_score(size: i64, spread: f64) -> i64 {
    (size as f64 * spread) as i64
}

fn score_state(cache: &Cache, pod: &PodInfo) -> ScoreState {
    let total = cache.num_nodes();
    let images = pod
        .images
        .iter()
        .filter_map(|img| Name::lookup(img))
        .filter_map(|n| {
            let have = cache.image_node_count(n);
            (have > 0 && total > 0).then(|| (n, f64::from(have) / total as f64))
        })
        .collect();
    // Every container (init and regular) counts toward the ceiling; PodInfo keeps one image per
    // container (the API requires an image on every container of a pod).
    ScoreState { images, containers: pod.images.len() }
}

#[inline(always)]
fn score_with(state: &ScoreState, node: &NodeInfo) -> i64 {
    let mut sum = 0i64;
    for &(n, spread) in &state.images {
        if let Some(size) = image_size(&node.node.images, n) {
            sum = sum.saturating_add(scaled_image_score(size, spread));
        }
    }
    calculate_priority(sum, state.containers)
}

/// `NodeSpecInfo::image_size` (a binary search over the node's images, sorted by [`Name`]'s
/// order, the interned text's address), written out with plain integer compares so it compiles
/// into the per-node loop (opt-level "z" leaves `Ord::cmp` a call).
#[inline(always)]
fn image_size(images: &[(Name, i64)], image: Name) -> Option<i64> {
    let want = image.as_str().as_ptr() as usize;
    let (mut lo, mut hi) = (0, images.len());
    while lo < hi {
        let mid = lo + (hi - lo) / 2;
        let (k, size) = images[mid];
        let key = k.as_str().as_ptr() as usize;
        if key < want {
            lo = mid + 1;
        } else if key > want {
            hi = mid;
        } else {
            return Some(size);
        }
    }
    None
}

impl Plugin for ImageLocality {
    fn name(&self) -> &'static str {
        super::names::IMAGE_LOCALITY
    }

    fn points(&self) -> Points {
        Points { pre_score: true, score: true, ..Default::default() }
    }

    /// Upstream registers no events (a score plugin never rejects); node image changes are what
    /// move its scores.
    fn events(&self) -> EventMask {
        EventMask::NODE_ADD | EventMask::NODE_IMAGES
    }

    fn pre_score(&self, cache: &Cache, pod: &PodInfo, _nodes: &[&NodeInfo], state: &mut PluginState) -> PreScoreOutcome {
        *state = Some(Box::new(score_state(cache, pod)));
        PreScoreOutcome::Run
    }

    fn score(&self, cache: &Cache, pod: &PodInfo, node: &NodeInfo, state: &PluginState) -> Result<i64, Rejection> {
        super::score_one(self, cache, pod, node, state)
    }
}

impl super::ScoreAll for ImageLocality {
    fn score_all(
        &self,
        cache: &Cache,
        pod: &PodInfo,
        nodes: &[&NodeInfo],
        state: &PluginState,
        out: &mut [i64],
    ) -> Result<(), Rejection> {
        let computed;
        let s = match state_as::<ScoreState>(state) {
            Some(s) => s,
            None => {
                computed = score_state(cache, pod);
                &computed
            }
        };
        if s.images.is_empty() {
            // No image of the pod on any node: every node scores the empty sum.
            out.fill(calculate_priority(0, s.containers));
            return Ok(());
        }
        super::fill_each(out, nodes, |node| score_with(s, node))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::framework::plugins::test_util::{cache_with, node, NodeBuilder, PodBuilder};

    fn node_403002000(name: &str) -> NodeBuilder {
        NodeBuilder::new(name)
            .image(&["gcr.io/40:latest", "gcr.io/40:v1", "gcr.io/40:v1"], 40 * MB)
            .image(&["gcr.io/300:latest", "gcr.io/300:v1"], 300 * MB)
            .image(&["gcr.io/2000:latest"], 2000 * MB)
    }

    fn node_25010(name: &str) -> NodeBuilder {
        NodeBuilder::new(name).image(&["gcr.io/250:latest"], 250 * MB).image(&["gcr.io/10:latest", "gcr.io/10:v1"], 10 * MB)
    }

    fn pod(images: &[&str]) -> PodBuilder {
        images.iter().fold(PodBuilder::new("p"), |b, i| b.image(i))
    }

    fn scores(pod: PodBuilder, nodes: &[NodeBuilder]) -> Vec<i64> {
        let cache = cache_with(nodes, &[]);
        let info = pod.info();
        let infos: Vec<&NodeInfo> = nodes.iter().map(|n| node(&cache, &n.node.metadata.name)).collect();
        let mut state = None;
        ImageLocality.pre_score(&cache, &info, &infos, &mut state);
        infos.iter().map(|n| ImageLocality.score(&cache, &info, n, &state).unwrap()).collect()
    }

    #[test]
    fn upstream_table() {
        // image_locality_test.go TestImageLocalityPriority (current thresholds: 1000 MiB per
        // container, init containers included).
        let two = || [node_403002000("machine1"), node_25010("machine2")];
        // Node2: 100 * (250M/2 - 23M) / (2000M - 23M) = 5.
        assert_eq!(
            scores(pod(&["gcr.io/40", "gcr.io/250"]), &two()),
            vec![0, 5],
            "two images spread on two nodes, prefer the larger image one"
        );
        // Node1: 100 * ((40M + 300M)/2 - 23M) / (2000M - 23M) = 7.
        assert_eq!(scores(pod(&["gcr.io/40", "gcr.io/300"]), &two()), vec![7, 0], "two images on one node, prefer this node");
        // Node1: 100 * (2000M/2 - 23M) / (2000M - 23M) = 49.
        assert_eq!(scores(pod(&["gcr.io/10", "gcr.io/2000"]), &two()), vec![49, 0], "if exceed limit, use limit");
        // Node1: 100 * (2000M/3 - 23M) / (2000M - 23M) = 32.
        assert_eq!(
            scores(
                pod(&["gcr.io/10", "gcr.io/2000"]),
                &[node_403002000("machine1"), node_25010("machine2"), NodeBuilder::new("machine3")]
            ),
            vec![32, 0, 0],
            "if exceed limit, use limit (with node which has no images present)"
        );
    }

    #[test]
    fn init_containers_count() {
        // Init container images count, and raise the ceiling like any container.
        let mut p = PodBuilder::new("p").image("gcr.io/2000");
        p.pod.spec.init_containers.push(crate::core::api::Container {
            name: "init".into(),
            image: "gcr.io/300:v1".into(),
            ..Default::default()
        });
        // machine1 alone: 2000M + 300M = 2300M clamped to 2000M → 100.
        assert_eq!(scores(p, &[node_403002000("machine1")]), vec![100]);
    }

    #[test]
    fn priority_bounds() {
        assert_eq!(calculate_priority(0, 1), 0);
        assert_eq!(calculate_priority(MIN_THRESHOLD, 1), 0);
        assert_eq!(calculate_priority(MAX_CONTAINER_THRESHOLD, 1), 100);
        assert_eq!(calculate_priority(5 * MAX_CONTAINER_THRESHOLD, 2), 100);
        assert_eq!(calculate_priority(0, 0), 0, "no containers: no score, no division by zero");
        assert_eq!(scaled_image_score(2000 * MB, 1.0 / 3.0), 699_050_666);
    }
}
