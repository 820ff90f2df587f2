//! NodeResourcesBalancedAllocation (pkg/scheduler/framework/plugins/noderesources/balanced_allocation.go):
//! prefer nodes whose utilisation fractions of the configured resources stay close to each other
//! after placing the pod, scoring `(1 - std) * 100`.
//!
//! Unlike NodeResourcesFit's scoring it uses actual requests (no 100m/200Mi defaults), and it
//! skips best-effort pods altogether (upstream issue 129138: otherwise they pile onto one node).

#[cfg(test)]
use super::node_resources_fit::ResourceSample;
use super::node_resources_fit::{validate_resources, ResourceAllocation};
use crate::core::cache::{Cache, NodeInfo};
use crate::core::config::{NodeResourcesBalancedAllocationArgs, PluginArgs};
use crate::core::framework::{state_as, EventMask, Plugin, PluginState, Points, PreScoreOutcome, Rejection, MAX_NODE_SCORE};
use crate::core::model::PodInfo;

/// The plugin with its resolved resource list.
#[derive(Debug)]
pub struct BalancedAllocation {
    allocation: ResourceAllocation,
}

/// PreScore state: the pod's actual request per configured resource.
struct ScoreState(Vec<i64>);

/// `balancedResourceScorer` over the lazy samples (the per-node formula as upstream writes it:
/// the reference the whole-list scorer is tested against).
#[cfg(test)]
pub fn balanced_resource_score(samples: impl Iterator<Item = ResourceSample> + Clone) -> i64 {
    let fractions = samples.filter(|&(_, alloc, _)| alloc != 0).map(|(req, alloc, _)| (req as f64 / alloc as f64).min(1.0));
    let (count, total) = fractions.clone().fold((0usize, 0.0f64), |(n, sum), f| (n + 1, sum + f));
    let std = match count {
        0 | 1 => 0.0,
        2 => {
            let mut it = fractions;
            let (a, b) = (it.next().unwrap_or(0.0), it.next().unwrap_or(0.0));
            ((a - b) / 2.0).abs()
        }
        n => {
            let mean = total / n as f64;
            let sum: f64 = fractions.map(|f| (f - mean) * (f - mean)).sum();
            (sum / n as f64).sqrt()
        }
    };
    ((1.0 - std) * MAX_NODE_SCORE as f64) as i64
}

/// `balancedResourceScorer`: fractions (capped at 1, over the resources the node has) whose std
/// is 0 for one fraction, half the difference for two, the population standard deviation
/// otherwise; the same float operations in the same order as upstream, so the same bits.
fn score_fractions(f: &[f64]) -> i64 {
    let total = f.iter().fold(0.0f64, |sum, x| sum + x);
    let std = match f.len() {
        0 | 1 => 0.0,
        2 => ((f[0] - f[1]) / 2.0).abs(),
        n => {
            let mean = total / n as f64;
            let sum: f64 = f.iter().map(|x| (x - mean) * (x - mean)).sum();
            (sum / n as f64).sqrt()
        }
    };
    score_of_std(std)
}

/// The score of a standard deviation: `(1 - std) * 100`, truncated as Go's int64 conversion.
#[inline(always)]
fn score_of_std(std: f64) -> i64 {
    ((1.0 - std) * MAX_NODE_SCORE as f64) as i64
}

/// Resources scored without a heap buffer (the default configuration has two).
const INLINE_RESOURCES: usize = 4;

impl BalancedAllocation {
    /// One node's score from the pod's requests. One or two fractions (the default
    /// configuration scores two resources) need no buffer; more go through one.
    #[inline(always)]
    fn score_node(&self, node: &NodeInfo, requests: &[i64]) -> i64 {
        let (mut n, mut first, mut second) = (0usize, 0.0f64, 0.0f64);
        for (&(kind, _), &req) in self.allocation.resources.iter().zip(requests) {
            let (alloc, requested) = self.allocation.allocatable_and_requested(node, kind, req);
            if alloc != 0 {
                let f = (requested as f64 / alloc as f64).min(1.0);
                if n == 0 {
                    first = f;
                } else if n == 1 {
                    second = f;
                }
                n += 1;
            }
        }
        match n {
            0 | 1 => score_of_std(0.0),
            2 => score_of_std(((first - second) / 2.0).abs()),
            _ => self.score_node_buffered(node, requests),
        }
    }

    /// [`BalancedAllocation::score_node`] for three fractions or more: each computed once, on the
    /// stack when they fit.
    #[inline(never)]
    fn score_node_buffered(&self, node: &NodeInfo, requests: &[i64]) -> i64 {
        let (mut inline, mut heap) = ([0f64; INLINE_RESOURCES], Vec::new());
        let buf: &mut [f64] = if requests.len() > INLINE_RESOURCES {
            heap.resize(requests.len(), 0.0);
            &mut heap
        } else {
            &mut inline
        };
        let mut n = 0;
        for (&(kind, _), &req) in self.allocation.resources.iter().zip(requests) {
            let (alloc, requested) = self.allocation.allocatable_and_requested(node, kind, req);
            if alloc != 0 {
                buf[n] = (requested as f64 / alloc as f64).min(1.0);
                n += 1;
            }
        }
        score_fractions(&buf[..n])
    }

    /// `NewBalancedAllocation`: validate the resource list.
    pub fn new(args: &NodeResourcesBalancedAllocationArgs) -> Result<BalancedAllocation, String> {
        validate_resources("resources", &args.resources)?;
        Ok(BalancedAllocation { allocation: ResourceAllocation::new(&args.resources, true) })
    }

    /// Build from the profile's plugin args (upstream defaults when absent).
    pub fn from_args(args: Option<&PluginArgs>) -> Result<BalancedAllocation, String> {
        match args {
            None => BalancedAllocation::new(&NodeResourcesBalancedAllocationArgs::default()),
            Some(PluginArgs::NodeResourcesBalancedAllocation(a)) => BalancedAllocation::new(a),
            Some(other) => {
                Err(format!("want args to be of type NodeResourcesBalancedAllocationArgs, got {}", super::args_kind(other)))
            }
        }
    }

    fn pod_requests(&self, pod: &PodInfo) -> Result<Vec<i64>, Rejection> {
        pod.resources
            .as_ref()
            .map(|r| self.allocation.pod_requests(r))
            .map_err(|e| Rejection::error(crate::core::texts::node_resources::pod_resources_error(&e.to_string())))
    }
}

/// `isBestEffortPod`: no configured resource is requested.
fn is_best_effort(requests: &[i64]) -> bool {
    requests.iter().all(|r| *r == 0)
}

impl Plugin for BalancedAllocation {
    fn name(&self) -> &'static str {
        super::names::NODE_RESOURCES_BALANCED_ALLOCATION
    }

    fn points(&self) -> Points {
        Points { pre_score: true, score: true, ..Default::default() }
    }

    /// Same cluster events as NodeResourcesFit (a score plugin never rejects, so this only
    /// documents what changes its scores).
    fn events(&self) -> EventMask {
        EventMask::ASSIGNED_POD_DELETE | EventMask::NODE_ADD | EventMask::NODE_ALLOCATABLE
    }

    fn pre_score(&self, _cache: &Cache, pod: &PodInfo, _nodes: &[&NodeInfo], state: &mut PluginState) -> PreScoreOutcome {
        match self.pod_requests(pod) {
            Ok(r) if is_best_effort(&r) => PreScoreOutcome::Skip,
            Ok(r) => {
                *state = Some(Box::new(ScoreState(r)));
                PreScoreOutcome::Run
            }
            // Score reports the error.
            Err(_) => PreScoreOutcome::Run,
        }
    }

    fn score(&self, cache: &Cache, pod: &PodInfo, node: &NodeInfo, state: &PluginState) -> Result<i64, Rejection> {
        super::score_one(self, cache, pod, node, state)
    }
}

impl super::ScoreAll for BalancedAllocation {
    fn score_all(
        &self,
        _cache: &Cache,
        pod: &PodInfo,
        nodes: &[&NodeInfo],
        state: &PluginState,
        out: &mut [i64],
    ) -> Result<(), Rejection> {
        let computed;
        let requests = match state_as::<ScoreState>(state) {
            Some(s) => &s.0,
            None if nodes.is_empty() => return Ok(()),
            None => {
                computed = self.pod_requests(pod)?;
                if is_best_effort(&computed) {
                    out.fill(0);
                    return Ok(());
                }
                &computed
            }
        };
        super::fill_each(out, nodes, |node| self.score_node(node, requests))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::config::ResourceSpec;
    use crate::core::framework::plugins::test_util::{cache_with, node, NodeBuilder, PodBuilder};

    const GPU: &str = "nvidia.com/gpu";

    fn plugin(resources: &[&str]) -> BalancedAllocation {
        let resources = resources.iter().map(|n| ResourceSpec { name: n.to_string(), weight: 1 }).collect();
        BalancedAllocation::new(&NodeResourcesBalancedAllocationArgs { resources, ..Default::default() }).unwrap()
    }

    /// balanced_allocation_test.go `makeNode(name, milliCPU, memory, extended)`.
    fn make_node(name: &str, milli_cpu: i64, memory: i64, gpus: Option<&str>) -> NodeBuilder {
        let (cpu, mem) = (format!("{milli_cpu}m"), memory.to_string());
        let mut alloc = vec![("cpu", cpu.as_str()), ("memory", mem.as_str())];
        if let Some(g) = gpus {
            alloc.push((GPU, g));
        }
        NodeBuilder::new(name).allocatable(&alloc)
    }

    /// `cpuOnly`: 1000m + 2000m cpu, explicit zero memory.
    fn cpu_only(name: &str) -> PodBuilder {
        PodBuilder::new(name).container(&[("cpu", "1000m"), ("memory", "0")]).container(&[("cpu", "2000m"), ("memory", "0")])
    }

    /// `cpuAndMemory`: 3000m cpu, 5000 bytes memory over two containers.
    fn cpu_and_memory(name: &str) -> PodBuilder {
        PodBuilder::new(name)
            .container(&[("cpu", "1000m"), ("memory", "2000")])
            .container(&[("cpu", "2000m"), ("memory", "3000")])
    }

    /// `cpuAndMemoryAndGPU`: as cpuAndMemory plus 3 GPUs.
    fn cpu_memory_gpu(name: &str) -> PodBuilder {
        PodBuilder::new(name).container(&[("cpu", "1000m"), ("memory", "2000")]).container(&[
            ("cpu", "2000m"),
            ("memory", "3000"),
            (GPU, "3"),
        ])
    }

    fn scores(
        pl: &BalancedAllocation,
        pod: PodBuilder,
        nodes: &[NodeBuilder],
        pods: &[PodBuilder],
        pre_score: bool,
    ) -> Option<Vec<i64>> {
        let cache = cache_with(nodes, pods);
        let info = pod.info();
        let infos: Vec<&NodeInfo> = nodes.iter().map(|n| node(&cache, &n.node.metadata.name)).collect();
        let mut state = None;
        if pre_score && pl.pre_score(&cache, &info, &infos, &mut state) == PreScoreOutcome::Skip {
            return None;
        }
        Some(infos.iter().map(|n| pl.score(&cache, &info, n, &state).unwrap()).collect())
    }

    #[test]
    fn upstream_table() {
        // balanced_allocation_test.go TestNodeResourcesBalancedAllocation.
        let pl = plugin(&["cpu", "memory"]);
        assert_eq!(
            scores(
                &pl,
                PodBuilder::new("p"),
                &[make_node("node1", 4000, 10000, None), make_node("node2", 4000, 10000, None)],
                &[],
                true
            ),
            None,
            "nothing scheduled, nothing requested, skip in PreScore"
        );
        assert_eq!(
            scores(
                &pl,
                cpu_and_memory("p"),
                &[make_node("node1", 4000, 10000, None), make_node("node2", 6000, 10000, None)],
                &[],
                true
            ),
            Some(vec![87, 100]),
            "nothing scheduled, resources requested, differently sized nodes"
        );
        let existing = || [cpu_only("e1").node_name("node1"), cpu_and_memory("e2").node_name("node2")];
        let n10 = || [make_node("node1", 10000, 20000, None), make_node("node2", 10000, 20000, None)];
        assert_eq!(
            scores(&pl, cpu_and_memory("p"), &n10(), &existing(), true),
            Some(vec![82, 95]),
            "resources requested, pods scheduled with resources"
        );
        assert_eq!(
            scores(
                &pl,
                cpu_and_memory("p"),
                &[make_node("node1", 10000, 20000, None), make_node("node2", 10000, 50000, None)],
                &existing(),
                true
            ),
            Some(vec![82, 80]),
            "resources requested, pods scheduled with resources, differently sized nodes"
        );
        assert_eq!(
            scores(
                &pl,
                cpu_only("p"),
                &[make_node("node1", 6000, 10000, None), make_node("node2", 6000, 10000, None)],
                &existing(),
                true
            ),
            Some(vec![50, 75]),
            "requested resources at node capacity"
        );
        let with_gpu = plugin(&["cpu", "memory", GPU]);
        assert_eq!(
            scores(
                &with_gpu,
                PodBuilder::new("p").container(&[("memory", "0"), (GPU, "1")]),
                &[make_node("node1", 3500, 40000, Some("8")), make_node("node2", 3500, 40000, Some("8"))],
                &[cpu_and_memory("e1").node_name("node2"), cpu_memory_gpu("e2").node_name("node1")],
                true
            ),
            Some(vec![70, 65]),
            "include scalar resource on a node for balanced resource allocation"
        );
        assert_eq!(
            scores(
                &with_gpu,
                cpu_and_memory("p"),
                &[make_node("node1", 3500, 40000, Some("8")), make_node("node2", 3500, 40000, None)],
                &[],
                true
            ),
            Some(vec![63, 63]),
            "node without the scalar resource should skip the scalar resource"
        );
        assert_eq!(
            scores(&pl, cpu_and_memory("p"), &n10(), &existing(), false),
            Some(vec![82, 95]),
            "resources requested, pods scheduled with resources if PreScore not called"
        );
    }

    #[test]
    fn std_formula() {
        // One fraction: std 0; two: |a-b|/2; three: population standard deviation.
        assert_eq!(balanced_resource_score([(1, 2, 1)].into_iter()), 100);
        assert_eq!(balanced_resource_score([(3, 4, 1), (1, 2, 1)].into_iter()), 87);
        assert_eq!(balanced_resource_score([(1, 1, 1), (0, 1, 1), (1, 2, 1)].into_iter()), 59);
        // Skipped resources (allocatable 0) do not count; fractions are capped at 1.
        assert_eq!(balanced_resource_score([(5, 4, 1), (0, 0, 1), (1, 2, 1)].into_iter()), 75);
        assert!(BalancedAllocation::new(&NodeResourcesBalancedAllocationArgs {
            resources: vec![ResourceSpec { name: "cpu".into(), weight: 0 }],
            ..Default::default()
        })
        .is_err());
    }
}
