//! Builders for plugin tests, so each upstream test-table row reads as one short expression
//! (upstream uses `st.MakePod()` / `st.MakeNode()` from pkg/scheduler/testing for the same reason).

use crate::core::api;
use crate::core::cache::{Cache, NodeInfo};
use crate::core::model::{NoPriorityClasses, NodeSpecInfo, PodInfo};
use std::collections::BTreeMap;

/// Builds an API pod step by step.
#[derive(Debug, Clone, Default)]
pub struct PodBuilder {
    pub pod: api::Pod,
}

fn list(pairs: &[(&str, &str)]) -> api::ResourceList {
    pairs.iter().map(|(k, v)| (k.to_string(), api::QuantityStr(v.to_string()))).collect()
}

fn container(name: &str, reqs: &[(&str, &str)]) -> api::Container {
    api::Container {
        name: name.into(),
        resources: api::ResourceRequirements { requests: list(reqs), ..Default::default() },
        ..Default::default()
    }
}

impl PodBuilder {
    pub fn new(name: &str) -> PodBuilder {
        let mut pod = api::Pod::default();
        pod.metadata.name = name.into();
        pod.metadata.namespace = "default".into();
        pod.metadata.uid = format!("uid-{name}");
        PodBuilder { pod }
    }

    /// A regular container with the given requests.
    pub fn container(mut self, reqs: &[(&str, &str)]) -> PodBuilder {
        let n = self.pod.spec.containers.len();
        self.pod.spec.containers.push(container(&format!("c{n}"), reqs));
        self
    }

    /// A regular container running an image.
    pub fn image(mut self, image: &str) -> PodBuilder {
        let n = self.pod.spec.containers.len();
        let mut c = container(&format!("c{n}"), &[]);
        c.image = image.into();
        self.pod.spec.containers.push(c);
        self
    }

    /// A (non-restartable) init container with the given requests.
    pub fn init_container(mut self, reqs: &[(&str, &str)]) -> PodBuilder {
        let n = self.pod.spec.init_containers.len();
        self.pod.spec.init_containers.push(container(&format!("i{n}"), reqs));
        self
    }

    /// A restartable ("sidecar") init container with the given requests.
    pub fn sidecar(mut self, reqs: &[(&str, &str)]) -> PodBuilder {
        let n = self.pod.spec.init_containers.len();
        let mut c = container(&format!("s{n}"), reqs);
        c.restart_policy = Some("Always".into());
        self.pod.spec.init_containers.push(c);
        self
    }

    /// Pod-level requests (`st.MakePod().PodLevelResourceRequests(...)`).
    pub fn pod_level(mut self, reqs: &[(&str, &str)]) -> PodBuilder {
        self.pod.spec.resources = Some(api::ResourceRequirements { requests: list(reqs), ..Default::default() });
        self
    }

    pub fn uid(mut self, uid: &str) -> PodBuilder {
        self.pod.metadata.uid = uid.into();
        self
    }

    pub fn overhead(mut self, reqs: &[(&str, &str)]) -> PodBuilder {
        self.pod.spec.overhead = list(reqs);
        self
    }

    /// A host port on a new container (`ip`/`protocol` empty = API default).
    pub fn host_port(mut self, ip: &str, protocol: &str, port: i32) -> PodBuilder {
        let n = self.pod.spec.containers.len();
        let mut c = container(&format!("c{n}"), &[]);
        c.ports.push(api::ContainerPort {
            container_port: port,
            host_port: Some(port),
            protocol: (!protocol.is_empty()).then(|| protocol.to_string()),
            host_ip: (!ip.is_empty()).then(|| ip.to_string()),
        });
        self.pod.spec.containers.push(c);
        self
    }

    pub fn node_name(mut self, node: &str) -> PodBuilder {
        self.pod.spec.node_name = node.into();
        self
    }

    pub fn node_selector(mut self, pairs: &[(&str, &str)]) -> PodBuilder {
        self.pod.spec.node_selector = pairs.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect();
        self
    }

    pub fn toleration(mut self, key: &str, operator: &str, value: &str, effect: &str) -> PodBuilder {
        self.pod.spec.tolerations.push(api::Toleration {
            key: key.into(),
            operator: operator.into(),
            value: value.into(),
            effect: effect.into(),
            toleration_seconds: None,
        });
        self
    }

    pub fn node_affinity(mut self, affinity: api::NodeAffinity) -> PodBuilder {
        self.pod.spec.affinity = Some(api::Affinity { node_affinity: Some(affinity), ..Default::default() });
        self
    }

    /// Add labels (`st.MakePod().Label(k, v)`).
    pub fn labels(mut self, pairs: &[(&str, &str)]) -> PodBuilder {
        for (k, v) in pairs {
            self.pod.metadata.labels.insert(k.to_string(), v.to_string());
        }
        self
    }

    pub fn namespace(mut self, ns: &str) -> PodBuilder {
        self.pod.metadata.namespace = ns.into();
        self
    }

    /// A deletion timestamp (`st.MakePod().Terminating()`).
    pub fn terminating(mut self) -> PodBuilder {
        self.pod.metadata.deletion_timestamp = Some("2020-01-01T00:00:00Z".into());
        self
    }

    /// A topology spread constraint (`st.MakePod().SpreadConstraint(...)`).
    pub fn spread(mut self, max_skew: i32, key: &str, when: &str, selector: Option<api::LabelSelector>) -> PodBuilder {
        self.pod.spec.topology_spread_constraints.push(api::TopologySpreadConstraint {
            max_skew,
            topology_key: key.into(),
            when_unsatisfiable: when.into(),
            label_selector: selector,
            ..Default::default()
        });
        self
    }

    /// Change the last spread constraint (minDomains, policies, matchLabelKeys).
    pub fn spread_with(mut self, f: impl FnOnce(&mut api::TopologySpreadConstraint)) -> PodBuilder {
        if let Some(c) = self.pod.spec.topology_spread_constraints.last_mut() {
            f(c);
        }
        self
    }

    /// Required pod affinity term (`st.MakePod().PodAffinity(key, selector, Required)`).
    pub fn pod_affinity_required(mut self, term: api::PodAffinityTerm) -> PodBuilder {
        self.affinity().pod_affinity.get_or_insert_with(Default::default).required.push(term);
        self
    }

    /// Required pod anti-affinity term.
    pub fn pod_anti_affinity_required(mut self, term: api::PodAffinityTerm) -> PodBuilder {
        self.affinity().pod_anti_affinity.get_or_insert_with(Default::default).required.push(term);
        self
    }

    /// Preferred pod affinity term.
    pub fn pod_affinity_preferred(mut self, weight: i32, term: api::PodAffinityTerm) -> PodBuilder {
        let w = api::WeightedPodAffinityTerm { weight, pod_affinity_term: term };
        self.affinity().pod_affinity.get_or_insert_with(Default::default).preferred.push(w);
        self
    }

    /// Preferred pod anti-affinity term.
    pub fn pod_anti_affinity_preferred(mut self, weight: i32, term: api::PodAffinityTerm) -> PodBuilder {
        let w = api::WeightedPodAffinityTerm { weight, pod_affinity_term: term };
        self.affinity().pod_anti_affinity.get_or_insert_with(Default::default).preferred.push(w);
        self
    }

    fn affinity(&mut self) -> &mut api::Affinity {
        self.pod.spec.affinity.get_or_insert_with(Default::default)
    }

    /// Set the controller owner reference.
    pub fn owner(mut self, api_version: &str, kind: &str, name: &str) -> PodBuilder {
        self.pod.metadata.owner_references.push(api::OwnerReference {
            api_version: api_version.into(),
            kind: kind.into(),
            name: name.into(),
            uid: format!("uid-{name}"),
            controller: Some(true),
        });
        self
    }

    pub fn info(&self) -> PodInfo {
        PodInfo::from_api(&self.pod, &NoPriorityClasses)
    }
}

/// A label selector requirement.
pub fn sel_req(key: &str, op: &str, values: &[&str]) -> api::LabelSelectorRequirement {
    api::LabelSelectorRequirement { key: key.into(), operator: op.into(), values: values.iter().map(|s| s.to_string()).collect() }
}

/// A selector of match expressions.
pub fn selector(exprs: Vec<api::LabelSelectorRequirement>) -> api::LabelSelector {
    api::LabelSelector { match_labels: Default::default(), match_expressions: exprs }
}

/// `MakeLabelSelector().Exists(key)`.
pub fn exists(key: &str) -> Option<api::LabelSelector> {
    Some(selector(vec![sel_req(key, "Exists", &[])]))
}

/// A pod affinity term over `topology_key` with a selector.
pub fn pod_term(selector: Option<api::LabelSelector>, topology_key: &str) -> api::PodAffinityTerm {
    api::PodAffinityTerm { label_selector: selector, topology_key: topology_key.into(), ..Default::default() }
}

/// A node selector requirement.
pub fn req(key: &str, operator: &str, values: &[&str]) -> api::NodeSelectorRequirement {
    api::NodeSelectorRequirement {
        key: key.into(),
        operator: operator.into(),
        values: values.iter().map(|s| s.to_string()).collect(),
    }
}

/// A term of match expressions only.
pub fn term(exprs: Vec<api::NodeSelectorRequirement>) -> api::NodeSelectorTerm {
    api::NodeSelectorTerm { match_expressions: exprs, match_fields: Vec::new() }
}

/// A term of match fields only.
pub fn field_term(fields: Vec<api::NodeSelectorRequirement>) -> api::NodeSelectorTerm {
    api::NodeSelectorTerm { match_expressions: Vec::new(), match_fields: fields }
}

/// Required node affinity with the given terms.
pub fn required(terms: Vec<api::NodeSelectorTerm>) -> api::NodeAffinity {
    api::NodeAffinity { required: Some(api::NodeSelector { node_selector_terms: terms }), preferred: Vec::new() }
}

/// Preferred node affinity with `(weight, term)` pairs.
pub fn preferred(terms: Vec<(i32, api::NodeSelectorTerm)>) -> api::NodeAffinity {
    api::NodeAffinity {
        required: None,
        preferred: terms.into_iter().map(|(weight, preference)| api::PreferredSchedulingTerm { weight, preference }).collect(),
    }
}

/// Builds an API node step by step.
#[derive(Debug, Clone, Default)]
pub struct NodeBuilder {
    pub node: api::Node,
}

impl NodeBuilder {
    pub fn new(name: &str) -> NodeBuilder {
        let mut node = api::Node::default();
        node.metadata.name = name.into();
        node.metadata.uid = format!("uid-{name}");
        NodeBuilder { node }
    }

    pub fn allocatable(mut self, pairs: &[(&str, &str)]) -> NodeBuilder {
        self.node.status.allocatable = list(pairs);
        self
    }

    pub fn labels(mut self, pairs: &[(&str, &str)]) -> NodeBuilder {
        self.node.metadata.labels = pairs.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect::<BTreeMap<_, _>>();
        self
    }

    pub fn taint(mut self, key: &str, value: &str, effect: &str) -> NodeBuilder {
        self.node.spec.taints.push(api::Taint { key: key.into(), value: value.into(), effect: effect.into() });
        self
    }

    pub fn unschedulable(mut self) -> NodeBuilder {
        self.node.spec.unschedulable = true;
        self
    }

    pub fn image(mut self, names: &[&str], size_bytes: i64) -> NodeBuilder {
        self.node.status.images.push(api::ContainerImage { names: names.iter().map(|s| s.to_string()).collect(), size_bytes });
        self
    }

    pub fn spec(&self) -> NodeSpecInfo {
        NodeSpecInfo::from_api(&self.node)
    }
}

/// A cache holding `nodes`, with `pods` (each with `spec.nodeName` set) accounted on them.
pub fn cache_with(nodes: &[NodeBuilder], pods: &[PodBuilder]) -> Cache {
    let mut cache = Cache::new();
    for n in nodes {
        cache.upsert_node(n.spec());
    }
    for p in pods {
        cache.upsert_assigned_pod(&p.info());
    }
    cache.prepare();
    cache
}

/// The cache entry of a node by name (tests only: panics when absent).
pub fn node<'a>(cache: &'a Cache, name: &str) -> &'a NodeInfo {
    cache.node_by_name(name).unwrap()
}

/// A one-node cache with `pods` on it (their `nodeName` is set to the node).
pub fn single_node(node: NodeBuilder, pods: &[PodBuilder]) -> Cache {
    let name = node.node.metadata.name.clone();
    let placed: Vec<PodBuilder> = pods.iter().cloned().map(|p| p.node_name(&name)).collect();
    cache_with(&[node], &placed)
}

/// A real [`crate::core::framework::Framework`] for a `default-scheduler` profile whose multiPoint set is
/// `enabled` (plugin name, weight), in that order, so profile tests read like upstream's configs.
pub fn framework_with(enabled: &[(&str, i32)]) -> crate::core::framework::Framework {
    use crate::core::config::{PluginRef, PluginSet, Plugins, Profile};
    let enabled = enabled.iter().map(|(n, w)| PluginRef::new(n, *w)).collect();
    let profile = Profile {
        scheduler_name: "default-scheduler".into(),
        percentage_of_nodes_to_score: None,
        plugins: Plugins { multi_point: PluginSet { enabled, disabled: Vec::new() }, ..Default::default() },
        plugin_config: Vec::new(),
    };
    crate::core::framework::Framework::new(&profile, &super::PluginContext::default()).unwrap()
}

/// One scheduling cycle of `pod` over a fresh cache of `nodes` and `existing` pods, with a fixed
/// seed and every node scored, as the profile tests need for reproducible choices.
pub fn schedule_with(
    fw: &crate::core::framework::Framework,
    nodes: &[NodeBuilder],
    existing: &[PodBuilder],
    pod: PodBuilder,
) -> crate::core::framework::ScheduleOutcome {
    let mut cache = cache_with(nodes, existing);
    let pod = pod.info();
    // As the scheduler does before each cycle: register the counts the plugins will read.
    cache.ensure_tallies(fw.tallies(&cache, &pod));
    let (mut start, mut rng) = (0usize, crate::core::rng::Rng::seeded(7));
    fw.schedule(&cache, &pod, &mut explained_params(&mut start, &mut rng))
}

/// Cycle parameters of a test cycle: every node scored, decisions explained, no extenders and no
/// waiting pods.
pub fn explained_params<'a>(
    start: &'a mut usize,
    rng: &'a mut crate::core::rng::Rng,
) -> crate::core::framework::cycle::CycleParams<'a> {
    crate::core::framework::cycle::CycleParams {
        next_start_node_index: start,
        percentage_of_nodes_to_score: 0,
        rng,
        explain: crate::core::framework::cycle::Explain::All,
        extenders: None,
        waiting: None,
        clock: None,
        now: None,
    }
}

/// The FitError message of an outcome that must be unschedulable.
pub fn message(outcome: crate::core::framework::ScheduleOutcome) -> String {
    match outcome {
        crate::core::framework::ScheduleOutcome::Unschedulable { message, .. } => message,
        other => panic!("expected a FitError, got {other:?}"),
    }
}

/// The chosen node of an outcome that must be a placement.
pub fn chosen(outcome: crate::core::framework::ScheduleOutcome) -> String {
    match outcome {
        crate::core::framework::ScheduleOutcome::Scheduled { result, .. } => result.node.to_string(),
        other => panic!("expected a placement, got {other:?}"),
    }
}

/// The default filter and score plugins wired into a real [`crate::core::framework::Framework`], checked
/// against the FitError texts and choices upstream produces for the same cluster.
mod default_profile {
    use super::*;
    use crate::core::framework::plugins::names;
    use crate::core::framework::{Framework, ScheduleOutcome};

    /// Upstream's v1 default multiPoint order and weights, restricted to the plugins of this
    /// module plus PrioritySort and DefaultBinder.
    fn framework() -> Framework {
        framework_with(&[
            (names::PRIORITY_SORT, 0),
            (names::NODE_UNSCHEDULABLE, 0),
            (names::NODE_NAME, 0),
            (names::TAINT_TOLERATION, 3),
            (names::NODE_AFFINITY, 2),
            (names::NODE_PORTS, 0),
            (names::NODE_RESOURCES_FIT, 1),
            (names::NODE_RESOURCES_BALANCED_ALLOCATION, 1),
            (names::IMAGE_LOCALITY, 1),
            (names::DEFAULT_BINDER, 0),
        ])
    }

    fn worker(name: &str, cpu: &str, memory: &str) -> NodeBuilder {
        NodeBuilder::new(name).allocatable(&[("cpu", cpu), ("memory", memory), ("pods", "110")])
    }

    fn schedule(nodes: &[NodeBuilder], existing: &[PodBuilder], pod: PodBuilder) -> ScheduleOutcome {
        schedule_with(&framework(), nodes, existing, pod)
    }

    #[test]
    fn profile_wires_every_point_with_upstream_weights() {
        let fw = framework();
        let points = fw.extension_points();
        let get = |k: &str| points.iter().find(|(n, _)| *n == k).map(|(_, v)| v.join(",")).unwrap();
        assert_eq!(get("preFilter"), "NodeAffinity,NodePorts,NodeResourcesFit");
        assert_eq!(get("filter"), "NodeUnschedulable,NodeName,TaintToleration,NodeAffinity,NodePorts,NodeResourcesFit");
        assert_eq!(
            get("preScore"),
            "TaintToleration,NodeAffinity,NodeResourcesFit,NodeResourcesBalancedAllocation,ImageLocality"
        );
        assert_eq!(
            get("score"),
            "TaintToleration(3),NodeAffinity(2),NodeResourcesFit(1),NodeResourcesBalancedAllocation(1),ImageLocality(1)"
        );
    }

    #[test]
    fn insufficient_cpu_and_taints() {
        let nodes = [
            worker("n1", "1", "4Gi"),
            worker("n2", "8", "4Gi").taint("node-role.kubernetes.io/control-plane", "", "NoSchedule"),
            worker("n3", "8", "4Gi").taint("dedicated", "gpu", "NoExecute"),
        ];
        let pod = PodBuilder::new("p").container(&[("cpu", "2")]);
        assert_eq!(
            message(schedule(&nodes, &[], pod)),
            "0/3 nodes are available: 1 Insufficient cpu, 2 node(s) had untolerated taint(s)."
        );
    }

    #[test]
    fn one_reason_per_node_from_the_first_failing_filter() {
        let nodes = [
            worker("n1", "4", "4Gi").unschedulable().labels(&[("disk", "hdd")]),
            worker("n2", "4", "4Gi").labels(&[("disk", "hdd")]),
            NodeBuilder::new("n3").allocatable(&[("cpu", "4"), ("memory", "4Gi"), ("pods", "1")]).labels(&[("disk", "ssd")]),
        ];
        let existing = [PodBuilder::new("e").node_name("n3")];
        let pod = PodBuilder::new("p").node_selector(&[("disk", "ssd")]);
        assert_eq!(
            message(schedule(&nodes, &existing, pod)),
            "0/3 nodes are available: 1 Too many pods, 1 node(s) didn't match Pod's node affinity/selector, 1 node(s) were unschedulable."
        );
    }

    #[test]
    fn fit_reports_every_missing_resource_and_ports() {
        let nodes = [worker("n1", "1", "1Gi"), worker("n2", "8", "8Gi")];
        let existing = [PodBuilder::new("e").host_port("", "TCP", 8080).node_name("n2")];
        let pod = PodBuilder::new("p").container(&[("cpu", "2"), ("memory", "2Gi")]).host_port("", "", 8080);
        assert_eq!(
            message(schedule(&nodes, &existing, pod)),
            "0/2 nodes are available: 1 Insufficient cpu, 1 Insufficient memory, 1 node(s) didn't have free ports for the requested pod ports."
        );
    }

    #[test]
    fn node_name_pinning_through_match_fields() {
        let nodes = [worker("n1", "4", "4Gi"), worker("n2", "4", "4Gi"), worker("n3", "4", "4Gi")];
        let pin =
            |n: &str| PodBuilder::new("p").node_affinity(required(vec![field_term(vec![req("metadata.name", "In", &[n])])]));
        assert_eq!(
            message(schedule(&nodes, &[], pin("n4"))),
            "0/3 nodes are available: 3 node(s) didn't satisfy plugin(s) [NodeAffinity]."
        );
        assert_eq!(chosen(schedule(&nodes, &[], pin("n2"))), "n2");
        let conflict = PodBuilder::new("p").node_affinity(required(vec![field_term(vec![
            req("metadata.name", "In", &["n1"]),
            req("metadata.name", "In", &["n2"]),
        ])]));
        assert_eq!(message(schedule(&nodes, &[], conflict)), "0/3 nodes are available: pod affinity terms conflict.");
        let wrong_name = PodBuilder::new("p").node_name("n9");
        assert_eq!(
            message(schedule(&nodes, &[], wrong_name)),
            "0/3 nodes are available: 3 node(s) didn't match the requested node name."
        );
    }

    #[test]
    fn scores_pick_the_upstream_winner() {
        // Same size nodes: the PreferNoSchedule taint costs TaintToleration's 3 × 100.
        let nodes = [worker("n1", "4", "4Gi").taint("spot", "true", "PreferNoSchedule"), worker("n2", "4", "4Gi")];
        assert_eq!(chosen(schedule(&nodes, &[], PodBuilder::new("p").container(&[("cpu", "1")]))), "n2");
        // Preferred affinity (weight 2 × 100) beats the less-loaded node's LeastAllocated edge.
        let nodes = [worker("n1", "4", "4Gi").labels(&[("zone", "a")]), worker("n2", "4", "4Gi").labels(&[("zone", "b")])];
        let busy = [PodBuilder::new("e").container(&[("cpu", "2"), ("memory", "2Gi")]).node_name("n1")];
        let pod = PodBuilder::new("p")
            .container(&[("cpu", "1")])
            .node_affinity(preferred(vec![(10, term(vec![req("zone", "In", &["a"])]))]));
        match schedule(&nodes, &busy, pod) {
            ScheduleOutcome::Scheduled { result, scores, .. } => {
                assert_eq!(&*result.node, "n1");
                let n1 = scores.iter().find(|s| &*s.node == "n1").unwrap();
                assert!(n1.plugins.contains(&("NodeAffinity", 100)), "{n1:?}");
                assert!(n1.plugins.contains(&("TaintToleration", 100)), "{n1:?}");
                // Best-effort for BalancedAllocation? No: the pod requests cpu, so it scores.
                assert!(n1.plugins.iter().any(|(p, _)| *p == "NodeResourcesBalancedAllocation"), "{n1:?}");
            }
            other => panic!("{other:?}"),
        }
        // A cached large image tips the balance between otherwise equal nodes.
        let nodes = [worker("n1", "4", "4Gi"), worker("n2", "4", "4Gi").image(&["registry.example/big:v1"], 900 * 1024 * 1024)];
        assert_eq!(chosen(schedule(&nodes, &[], PodBuilder::new("p").image("registry.example/big:v1"))), "n2");
    }
}
