//! The nodes as the page shows them: each node's requested and allocatable cpu, memory and pods
//! (and its own DRA devices, in use and published) before and after the simulation, grouped by
//! zone, with each zone's spread of use (least used, median, most used node).
//!
//! Only these few numbers per node are kept (two [`Snapshot`]s of the node table), so a page for
//! 5,000 nodes needs a few hundred kilobytes beside the scheduler, not the objects.

use crate::core::cache::Cache;
use crate::core::framework::plugins::pod_topology_spread::LABEL_TOPOLOGY_ZONE;
use crate::core::simulate::report::percent;
use crate::core::texts::what_if_html as texts;
use std::collections::HashMap;

/// An amount in use of an amount there is.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Amount {
    pub used: i64,
    pub total: i64,
}

impl Amount {
    /// Percent in use (0 when there is none).
    pub fn percent(&self) -> i64 {
        percent(self.used, self.total)
    }
}

/// What a node bar shows, in bar order.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Resource {
    /// Millicores.
    Cpu,
    /// Bytes.
    Memory,
    Pods,
    /// The node's own DRA devices (see [`crate::core::cache::dra::DraState::node_devices`]).
    Devices,
}

impl Resource {
    /// Every resource, in bar order.
    pub const ALL: [Resource; 4] = [Resource::Cpu, Resource::Memory, Resource::Pods, Resource::Devices];

    /// The name shown on the page.
    pub fn label(self) -> &'static str {
        texts::RESOURCES[self as usize]
    }

    /// An amount of this resource as people read it: `2500m`, `3.5Gi`, `12`.
    pub fn format(self, v: i64) -> String {
        match self {
            Resource::Cpu => format!("{v}m"),
            Resource::Memory => bytes(v),
            Resource::Pods | Resource::Devices => v.to_string(),
        }
    }
}

/// Bytes with a binary suffix and one decimal (`512Mi`, `3.5Gi`).
fn bytes(v: i64) -> String {
    const UNITS: [(&str, i64); 4] = [("Ti", 1 << 40), ("Gi", 1 << 30), ("Mi", 1 << 20), ("Ki", 1 << 10)];
    for (suffix, unit) in UNITS {
        if v.unsigned_abs() >= unit as u64 {
            let tenths = i128::from(v) * 10 / i128::from(unit);
            return if tenths % 10 == 0 {
                format!("{}{suffix}", tenths / 10)
            } else {
                format!("{}.{}{suffix}", tenths / 10, (tenths % 10).abs())
            };
        }
    }
    v.to_string()
}

/// One node's use at one moment.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Usage {
    pub cpu: Amount,
    pub memory: Amount,
    pub pods: Amount,
    pub devices: Amount,
}

impl Usage {
    pub fn get(&self, r: Resource) -> Amount {
        match r {
            Resource::Cpu => self.cpu,
            Resource::Memory => self.memory,
            Resource::Pods => self.pods,
            Resource::Devices => self.devices,
        }
    }
}

/// A node at one moment: name, zone, use.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NodeAt {
    pub name: String,
    /// The `topology.kubernetes.io/zone` label, when set and not empty.
    pub zone: Option<String>,
    pub usage: Usage,
}

/// Every node's use at one moment, by name.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Snapshot {
    nodes: Vec<NodeAt>,
}

impl Snapshot {
    /// The node table as it is now.
    pub fn of(cache: &Cache) -> Snapshot {
        let devices = cache.dra().node_devices();
        let nodes = cache
            .nodes()
            .map(|n| {
                let name = n.name().to_string();
                let (dev_total, dev_used) = devices.get(&name).copied().unwrap_or_default();
                NodeAt {
                    zone: n.node.labels.get_str(LABEL_TOPOLOGY_ZONE).filter(|z| !z.is_empty()).map(str::to_string),
                    usage: Usage {
                        cpu: Amount { used: n.requested.milli_cpu, total: n.node.allocatable.milli_cpu },
                        memory: Amount { used: n.requested.memory, total: n.node.allocatable.memory },
                        pods: Amount {
                            used: i64::try_from(n.pod_count()).unwrap_or(i64::MAX),
                            total: n.node.allocatable.allowed_pod_number,
                        },
                        devices: Amount {
                            used: i64::try_from(dev_used).unwrap_or(i64::MAX),
                            total: i64::try_from(dev_total).unwrap_or(i64::MAX),
                        },
                    },
                    name,
                }
            })
            .collect();
        Snapshot::from_nodes(nodes)
    }

    /// Nodes given directly (tests, and callers that have no cache).
    pub fn from_nodes(mut nodes: Vec<NodeAt>) -> Snapshot {
        nodes.sort_by(|a, b| a.name.cmp(&b.name));
        Snapshot { nodes }
    }

    fn get(&self, name: &str) -> Option<&NodeAt> {
        self.nodes.binary_search_by(|n| n.name.as_str().cmp(name)).ok().map(|i| &self.nodes[i])
    }
}

/// One node on the page: its use before and after, and how many pods the simulation placed on it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NodeRow {
    pub name: String,
    pub zone: Option<String>,
    pub before: Usage,
    pub after: Usage,
    pub placed: usize,
}

/// The nodes of `after` (by name), each with its use in `before` (none for a node that was not
/// there) and its count in `placed`.
pub fn rows(before: &Snapshot, after: Snapshot, placed: &HashMap<String, usize>) -> Vec<NodeRow> {
    after
        .nodes
        .into_iter()
        .map(|n| NodeRow {
            before: before.get(&n.name).map(|b| b.usage).unwrap_or_default(),
            placed: placed.get(&n.name).copied().unwrap_or(0),
            after: n.usage,
            zone: n.zone,
            name: n.name,
        })
        .collect()
}

/// Whether any node has devices of its own (the devices bars are drawn only then).
pub fn has_devices(rows: &[NodeRow]) -> bool {
    rows.iter().any(|r| r.before.devices.total > 0 || r.after.devices.total > 0)
}

/// The nodes of one zone (`None`: the nodes without a zone label), by name.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Zone<'a> {
    pub name: Option<&'a str>,
    pub nodes: Vec<&'a NodeRow>,
}

impl Zone<'_> {
    /// The zone's name as the page shows it.
    pub fn label(&self) -> &str {
        self.name.unwrap_or(texts::NO_ZONE)
    }

    /// The spread of the nodes' use of `r`, before or after.
    pub fn spread(&self, r: Resource, after: bool) -> Spread {
        Spread::of(self.nodes.iter().map(|n| if after { n.after.get(r) } else { n.before.get(r) }.percent()).collect())
    }

    /// The zone's total use of `r`, before or after.
    pub fn total(&self, r: Resource, after: bool) -> Amount {
        self.nodes.iter().map(|n| if after { n.after.get(r) } else { n.before.get(r) }).fold(Amount::default(), |a, b| Amount {
            used: a.used.saturating_add(b.used),
            total: a.total.saturating_add(b.total),
        })
    }

    /// Pods placed in the zone.
    pub fn placed(&self) -> usize {
        self.nodes.iter().map(|n| n.placed).sum()
    }
}

/// The rows grouped by zone: zones by name, the nodes without a zone last.
pub fn zones(rows: &[NodeRow]) -> Vec<Zone<'_>> {
    let mut by_zone: std::collections::BTreeMap<(bool, Option<&str>), Vec<&NodeRow>> = Default::default();
    for r in rows {
        by_zone.entry((r.zone.is_none(), r.zone.as_deref())).or_default().push(r);
    }
    by_zone.into_iter().map(|((_, name), nodes)| Zone { name, nodes }).collect()
}

/// Least, median and most of a set of percentages.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Spread {
    pub min: i64,
    pub median: i64,
    pub max: i64,
}

impl Spread {
    /// The spread of `values` (the lower median of an even count; all 0 when empty).
    pub fn of(mut values: Vec<i64>) -> Spread {
        if values.is_empty() {
            return Spread::default();
        }
        values.sort_unstable();
        Spread { min: values[0], median: values[(values.len() - 1) / 2], max: values[values.len() - 1] }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn node(name: &str, zone: Option<&str>, cpu_used: i64) -> NodeAt {
        NodeAt {
            name: name.into(),
            zone: zone.map(str::to_string),
            usage: Usage { cpu: Amount { used: cpu_used, total: 1000 }, ..Default::default() },
        }
    }

    #[test]
    fn zones_by_name_with_unlabelled_nodes_last_and_their_spread() {
        let before = Snapshot::from_nodes(vec![node("b", Some("z2"), 100), node("a", Some("z1"), 0), node("c", None, 0)]);
        let after = Snapshot::from_nodes(vec![
            node("c", None, 500),
            node("b", Some("z2"), 300),
            node("a", Some("z1"), 900),
            node("d", Some("z1"), 200),
        ]);
        let placed = HashMap::from([("a".to_string(), 2)]);
        let rows = rows(&before, after, &placed);
        let zones = zones(&rows);
        let names: Vec<&str> = zones.iter().map(Zone::label).collect();
        assert_eq!(names, ["z1", "z2", texts::NO_ZONE]);
        assert_eq!(zones[0].nodes.iter().map(|n| n.name.as_str()).collect::<Vec<_>>(), ["a", "d"]);
        assert_eq!(zones[0].spread(Resource::Cpu, true), Spread { min: 20, median: 20, max: 90 });
        assert_eq!(zones[0].spread(Resource::Cpu, false), Spread { min: 0, median: 0, max: 0 }, "d was not there before");
        assert_eq!(zones[0].total(Resource::Cpu, true), Amount { used: 1100, total: 2000 });
        assert_eq!(zones[0].placed(), 2);
        assert_eq!(Spread::of(vec![5, 1, 9, 3, 7]), Spread { min: 1, median: 5, max: 9 });
        assert!(!has_devices(&rows));
    }

    #[test]
    fn amounts_read_as_people_write_them() {
        assert_eq!(Resource::Memory.format(512 << 20), "512Mi");
        assert_eq!(Resource::Memory.format(7 << 29), "3.5Gi");
        assert_eq!(Resource::Memory.format(1000), "1000");
        assert_eq!(Resource::Cpu.format(2500), "2500m");
        assert_eq!(Amount { used: 3, total: 0 }.percent(), 0);
    }
}
