//! NodePorts (pkg/scheduler/framework/plugins/nodeports/node_ports.go): a pod asking for host
//! ports fits only nodes where no running pod holds a conflicting one (same protocol and port,
//! and the same host IP or either side bound to `0.0.0.0`).
//!
//! The pod's wanted ports are already extracted once into `PodInfo::host_ports` (regular and
//! restartable init containers, defaults applied), so PreFilter only decides whether Filter runs
//! and keeps no state; Filter reads the ports straight from the pod. That also makes Filter work
//! when a profile enables it without PreFilter (upstream reports an error there instead).

use crate::core::cache::{Cache, NodeInfo};
use crate::core::framework::{EventMask, Plugin, PluginState, Points, PreFilterOutcome, Rejection};
use crate::core::model::{HostPort, PodInfo};

use crate::core::texts::node_ports::ERR_REASON;

/// The plugin (stateless).
pub struct NodePorts;

/// `Fits`: none of the wanted ports conflicts with a port in use on the node.
pub fn fits_ports(wanted: &[HostPort], node: &NodeInfo) -> bool {
    !wanted.iter().any(|w| node.used_ports.iter().any(|u| w.conflicts_with(u)))
}

impl Plugin for NodePorts {
    fn name(&self) -> &'static str {
        super::names::NODE_PORTS
    }

    fn points(&self) -> Points {
        Points { pre_filter: true, filter: true, ..Default::default() }
    }

    /// Ports are freed by deleted pods; new nodes have all ports free.
    fn events(&self) -> EventMask {
        EventMask::ASSIGNED_POD_DELETE | EventMask::NODE_ADD
    }

    fn pre_filter(&self, _cache: &Cache, pod: &PodInfo, _state: &mut PluginState) -> PreFilterOutcome {
        if pod.host_ports.is_empty() {
            PreFilterOutcome::Skip
        } else {
            PreFilterOutcome::Continue
        }
    }

    fn filter(&self, _cache: &Cache, pod: &PodInfo, node: &NodeInfo, _state: &PluginState) -> Result<(), Rejection> {
        if fits_ports(&pod.host_ports, node) {
            Ok(())
        } else {
            Err(Rejection::unschedulable(ERR_REASON))
        }
    }
}

impl super::FilterAll for NodePorts {
    fn filter_all(&self, cache: &Cache, pod: &PodInfo, nodes: &[&NodeInfo], state: &PluginState, out: &mut super::Rejections) {
        if !pod.host_ports.is_empty() {
            super::reject_each(nodes, out, |node| self.filter(cache, pod, node, state))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::framework::plugins::test_util::{single_node, NodeBuilder, PodBuilder};
    use crate::core::framework::Code;

    /// `newPod(host, "PROTO/IP/PORT"...)` of node_ports_test.go.
    fn pod(ports: &[&str]) -> PodBuilder {
        let mut b = PodBuilder::new("p");
        for spec in ports {
            let parts: Vec<&str> = spec.split('/').collect();
            b = b.host_port(parts[1], parts[0], parts[2].parse().unwrap());
        }
        b
    }

    /// PreFilter then Filter against a node holding `existing`; `None` = skipped.
    fn run(pod: PodBuilder, existing: &[&str]) -> Option<Result<(), Rejection>> {
        let mut other = self::pod(existing);
        other.pod.metadata.name = "existing".into();
        let cache = single_node(NodeBuilder::new("m1"), &[other]);
        let n = cache.nodes().next().unwrap();
        let info = pod.info();
        let mut state = None;
        match NodePorts.pre_filter(&cache, &info, &mut state) {
            PreFilterOutcome::Skip => None,
            _ => Some(NodePorts.filter(&cache, &info, n, &state)),
        }
    }

    #[test]
    fn upstream_table() {
        // node_ports_test.go TestNodePorts, case by case.
        let conflict = Some(Err(Rejection::unschedulable(ERR_REASON)));
        assert_eq!(run(PodBuilder::new("p"), &[]), None, "skip filter");
        assert_eq!(run(pod(&["UDP/127.0.0.1/8080"]), &["UDP/127.0.0.1/9090"]), Some(Ok(())), "other port");
        assert_eq!(run(pod(&["UDP/127.0.0.1/8080"]), &["UDP/127.0.0.1/8080"]), conflict, "same udp port");
        assert_eq!(run(pod(&["TCP/127.0.0.1/8080"]), &["TCP/127.0.0.1/8080"]), conflict, "same tcp port");
        assert_eq!(run(pod(&["TCP/127.0.0.1/8080"]), &["TCP/127.0.0.2/8080"]), Some(Ok(())), "different host ip");
        assert_eq!(run(pod(&["UDP/127.0.0.1/8080"]), &["TCP/127.0.0.1/8080"]), Some(Ok(())), "different protocol");
        assert_eq!(
            run(pod(&["UDP/127.0.0.1/8000", "UDP/127.0.0.1/8080"]), &["UDP/127.0.0.1/8080"]),
            conflict,
            "second udp port conflict"
        );
        assert_eq!(
            run(pod(&["TCP/127.0.0.1/8001", "UDP/127.0.0.1/8080"]), &["TCP/127.0.0.1/8001", "UDP/127.0.0.1/8081"]),
            conflict,
            "first tcp port conflict"
        );
        assert_eq!(
            run(pod(&["TCP/0.0.0.0/8001"]), &["TCP/127.0.0.1/8001"]),
            conflict,
            "first tcp port conflict due to 0.0.0.0 hostIP"
        );
        assert_eq!(
            run(pod(&["TCP/10.0.10.10/8001", "TCP/0.0.0.0/8001"]), &["TCP/127.0.0.1/8001"]),
            conflict,
            "TCP hostPort conflict due to 0.0.0.0 hostIP"
        );
        assert_eq!(
            run(pod(&["TCP/127.0.0.1/8001"]), &["TCP/0.0.0.0/8001"]),
            conflict,
            "second tcp port conflict to 0.0.0.0 hostIP"
        );
        assert_eq!(run(pod(&["UDP/127.0.0.1/8001"]), &["TCP/0.0.0.0/8001"]), Some(Ok(())), "second different protocol");
        assert_eq!(
            run(pod(&["UDP/127.0.0.1/8001"]), &["TCP/0.0.0.0/8001", "UDP/0.0.0.0/8001"]),
            conflict,
            "UDP hostPort conflict due to 0.0.0.0 hostIP"
        );
    }

    #[test]
    fn init_containers() {
        // node_ports_test.go: "non-sidecar initContainer using hostPort" / "TCP hostPort conflict
        // from sidecar initContainer".
        let port = crate::core::api::ContainerPort {
            container_port: 8001,
            host_port: Some(8001),
            protocol: Some("TCP".into()),
            host_ip: None,
        };
        let mut init = PodBuilder::new("p").init_container(&[]);
        init.pod.spec.init_containers[0].ports.push(port.clone());
        assert_eq!(run(init, &["TCP/0.0.0.0/8001"]), None);
        let mut sidecar = PodBuilder::new("p").sidecar(&[]);
        sidecar.pod.spec.init_containers[0].ports.push(port);
        let r = run(sidecar, &["TCP/0.0.0.0/8001"]).unwrap().unwrap_err();
        assert_eq!((r.code, r.message().as_str()), (Code::Unschedulable, ERR_REASON));
    }

    #[test]
    fn fits_table() {
        // node_ports_test.go TestFits.
        let fits = |p: &[&str], existing: &[&str]| run(pod(p), existing) == Some(Ok(()));
        assert!(fits(&["TCP/127.0.0.1/80"], &["TCP/127.0.0.1/9090"]), "non-conflicting ports");
        assert!(
            fits(
                &["TCP/127.0.0.1/80", "TCP/127.0.1.1/80", "TCP/127.0.1.1/90", "TCP/127.0.1.1/100"],
                &["TCP/127.0.0.1/9090", "TCP/127.0.0.1/9191", "TCP/127.0.1.1/8080"]
            ),
            "multiple non-conflicting ports"
        );
        assert!(fits(&["TCP/127.0.0.1/80"], &["UDP/127.0.0.1/80"]), "same ports on different protocols");
        assert!(!fits(&["TCP/127.0.0.1/80"], &["TCP/127.0.0.1/80"]), "conflicting ports");
        assert!(
            !fits(
                &["TCP/127.0.0.1/80", "TCP/127.0.1.1/80", "TCP/127.0.1.1/90", "TCP/127.0.1.1/100"],
                &["TCP/127.0.0.1/9090", "TCP/127.0.1.1/90", "TCP/127.0.1.1/8080"]
            ),
            "multiple ports, some conflicting"
        );
    }
}
