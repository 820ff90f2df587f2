//! Synthetic cluster files, seeded and reproducible: the random clusters of the streaming tests
//! and the 5,000-node cluster of the `simulate` benchmark come from here.
//!
//! The clusters are what `kubectl get nodes,pods,priorityclasses -A -o yaml` writes: one `List`
//! with nodes in three zones (a few tainted), running pods bound to them, and pending pods with a
//! mix of what the default plugins read (requests, node selectors, tolerations, pod
//! anti-affinity, priority classes).

use crate::core::rng::Rng;
use std::fmt::Write as _;

/// How big a cluster to make.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Shape {
    pub nodes: usize,
    pub running: usize,
    pub pending: usize,
    /// The `schedulerName` of the pending pods.
    pub scheduler_name: &'static str,
    /// Pending pods with requests only (no node selectors, tolerations, anti-affinity or
    /// priority classes): the cheapest cycle, to tell the simulation's own cost from the
    /// plugins'.
    pub plain: bool,
}

/// The YAML documents of the cluster's objects (each a `- ` item of a `List`), in kubectl's
/// order: priority classes, nodes, running pods, pending pods.
pub fn items(shape: &Shape, seed: u64) -> Vec<String> {
    let mut rng = Rng::seeded(seed);
    let mut out = Vec::with_capacity(shape.nodes + shape.running + shape.pending + 1);
    out.push("- apiVersion: scheduling.k8s.io/v1\n  kind: PriorityClass\n  metadata: {name: high}\n  value: 1000\n".to_string());
    for i in 0..shape.nodes {
        let zone = i % 3;
        let cpu = [8, 16, 32][rng.below(3) as usize];
        let mut item = format!(
            "- apiVersion: v1\n  kind: Node\n  metadata:\n    name: node-{i:05}\n    labels: {{kubernetes.io/hostname: node-{i:05}, topology.kubernetes.io/zone: zone-{zone}, kubernetes.io/arch: amd64}}\n"
        );
        if rng.below(20) == 0 {
            item.push_str("  spec:\n    taints:\n    - {key: dedicated, value: batch, effect: NoSchedule}\n");
        }
        let _ = write!(
            item,
            "  status:\n    capacity: {{cpu: \"{cpu}\", memory: {mem}Gi, pods: \"110\"}}\n    allocatable: {{cpu: \"{cpu}\", memory: {mem}Gi, pods: \"110\"}}\n",
            mem = cpu * 4
        );
        out.push(item);
    }
    for i in 0..shape.running {
        let node = rng.below(shape.nodes.max(1) as u64);
        let app = rng.below(50);
        out.push(format!(
            "- apiVersion: v1\n  kind: Pod\n  metadata: {{name: run-{i:06}, namespace: ns-{ns}, labels: {{app: app-{app}}}, creationTimestamp: \"2026-01-01T00:00:00Z\"}}\n  spec:\n    nodeName: node-{node:05}\n    containers:\n    - name: c\n      image: registry.example/app-{app}:1\n      resources: {{requests: {{cpu: {cpu}m, memory: {mem}Mi}}}}\n  status: {{phase: Running}}\n",
            ns = app % 10,
            cpu = 50 + rng.below(400),
            mem = 64 + rng.below(448),
        ));
    }
    for i in 0..shape.pending {
        let app = rng.below(50);
        let mut spec = format!("  spec:\n    schedulerName: {}\n", shape.scheduler_name);
        let mix = if shape.plain { 20 } else { rng.below(20) };
        match mix {
            0..=3 => {
                let _ = writeln!(spec, "    nodeSelector: {{topology.kubernetes.io/zone: zone-{}}}", rng.below(3));
            }
            4 => spec.push_str("    tolerations:\n    - {key: dedicated, operator: Equal, value: batch, effect: NoSchedule}\n"),
            5 => {
                let _ = write!(
                    spec,
                    "    affinity:\n      podAntiAffinity:\n        requiredDuringSchedulingIgnoredDuringExecution:\n        - labelSelector: {{matchLabels: {{app: app-{app}}}}}\n          topologyKey: kubernetes.io/hostname\n"
                );
            }
            6 | 7 => spec.push_str("    priorityClassName: high\n"),
            _ => {}
        }
        let _ = write!(
            spec,
            "    containers:\n    - name: c\n      image: registry.example/app-{app}:1\n      resources: {{requests: {{cpu: {cpu}m, memory: {mem}Mi}}}}\n",
            cpu = 100 + rng.below(1900),
            mem = 128 + rng.below(1920),
        );
        out.push(format!(
            "- apiVersion: v1\n  kind: Pod\n  metadata: {{name: pend-{i:06}, namespace: ns-{ns}, labels: {{app: app-{app}}}, creationTimestamp: \"2026-01-02T00:{m:02}:{s:02}Z\"}}\n{spec}",
            ns = app % 10,
            m = (i / 60) % 60,
            s = i % 60,
        ));
    }
    out
}

/// A cluster file: the items as one `List`.
pub fn cluster_yaml(items: &[String]) -> String {
    let mut out = String::with_capacity(items.iter().map(String::len).sum::<usize>() + 32);
    out.push_str("apiVersion: v1\nkind: List\nitems:\n");
    for i in items {
        out.push_str(i);
    }
    out
}

/// The same items in a random order (objects of a file may come in any order).
pub fn shuffled(items: &[String], seed: u64) -> Vec<String> {
    let mut rng = Rng::seeded(seed);
    let mut out = items.to_vec();
    for i in (1..out.len()).rev() {
        let j = rng.below(i as u64 + 1) as usize;
        out.swap(i, j);
    }
    out
}
