//! ResourceSlices in the form the allocator reads them, prepared once per slice version (by the
//! scheduler's cache when a slice changes, not per pod or per node): attribute and capacity names
//! qualified with the driver's domain, quantities parsed, node selectors compiled; and the index
//! that finds the slices relevant for one node without walking all of them
//! ([`SliceIndex::candidates`]).

use crate::core::api::{self, DeviceAttribute, NodeSelector};
use crate::core::framework::plugins::helper::CompiledNodeSelector;
// Unseeded: keyed by node names (administrators' and kubelets') and by driver and pool names
// (DRA drivers', which an administrator installs); no tenant chooses them.
use crate::core::fxhash::FxHashMap;
use crate::core::labels::KeyResolution;
use crate::core::model::Labels;
use crate::core::quantity::{Quantity, QuantityError};
use std::fmt;
use std::sync::Arc;

/// Upstream's `DeviceID`: driver, pool and device name. Cheap to clone (shared strings).
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct DeviceId {
    pub driver: Arc<str>,
    pub pool: Arc<str>,
    pub device: Arc<str>,
}

impl DeviceId {
    pub fn new(driver: &str, pool: &str, device: &str) -> DeviceId {
        DeviceId { driver: driver.into(), pool: pool.into(), device: device.into() }
    }
}

impl fmt::Display for DeviceId {
    /// `driver/pool/device`, as `DeviceID.String` writes it.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/{}/{}", self.driver, self.pool, self.device)
    }
}

/// Where a slice (or, with per-device node selection, a device) says its devices are available:
/// the fields upstream's `NodeMatches` reads, in its order of precedence.
#[derive(Debug, Clone)]
pub enum NodeSelection {
    /// `nodeName` (non-empty): that node only.
    Node(Box<str>),
    /// `allNodes: true`.
    All,
    /// `nodeSelector`, compiled with `nodeaffinity.NewNodeSelector`'s validation; `Err` holds why
    /// it does not parse (upstream fails the whole allocation for such a slice).
    Selector(Result<CompiledNodeSelector, String>),
    /// None of them set.
    Unset,
}

impl NodeSelection {
    fn of(node_name: Option<&str>, all_nodes: Option<bool>, selector: Option<&NodeSelector>) -> NodeSelection {
        match (node_name.filter(|n| !n.is_empty()), all_nodes.unwrap_or(false), selector) {
            (Some(name), _, _) => NodeSelection::Node(name.into()),
            (None, true, _) => NodeSelection::All,
            (None, false, Some(sel)) => NodeSelection::Selector(CompiledNodeSelector::compile_strict(sel, KeyResolution::Intern)),
            (None, false, None) => NodeSelection::Unset,
        }
    }

    /// upstream `NodeMatches`: a node name must equal, all nodes match, a selector must match;
    /// nothing set matches nothing. `Err` is the selector's parse error.
    pub fn matches(&self, node: NodeRef<'_>) -> Result<bool, &str> {
        match self {
            NodeSelection::Node(name) => Ok(**name == *node.name),
            NodeSelection::All => Ok(true),
            NodeSelection::Selector(Ok(sel)) => Ok(sel.matches(node.labels, node.name)),
            NodeSelection::Selector(Err(e)) => Err(e),
            NodeSelection::Unset => Ok(false),
        }
    }

    /// Whether anything is set (upstream's `nodeName != "" || allNodes || nodeSelector != nil`).
    pub fn is_set(&self) -> bool {
        !matches!(self, NodeSelection::Unset)
    }
}

/// The node an allocation is computed for.
#[derive(Debug, Clone, Copy)]
pub struct NodeRef<'a> {
    pub name: &'a str,
    pub labels: &'a Labels,
}

/// One device of a prepared slice.
#[derive(Debug, Clone)]
pub struct PreparedDevice {
    pub id: DeviceId,
    /// Fully qualified attribute names (`domain/id`; names without a domain are the driver's)
    /// with their values, sorted by name.
    pub attributes: Vec<(Box<str>, DeviceAttribute)>,
    /// Fully qualified capacity names with their values, sorted by name.
    pub capacity: Vec<(Box<str>, Quantity)>,
    /// Per-device node selection (only read when the slice has `perDeviceNodeSelection: true`).
    pub node_selection: NodeSelection,
    /// The device's `nodeName` / `nodeSelector` as written, for the allocation's node selector.
    pub node_name: Option<Box<str>>,
    pub node_selector: Option<NodeSelector>,
    /// Consumes shared counters (partitionable devices).
    pub consumes_counters: bool,
    /// Has binding conditions (`DRADeviceBindingConditions`).
    pub has_binding_conditions: bool,
    pub taints: Vec<api::DeviceTaint>,
}

impl PreparedDevice {
    /// The attribute of fully qualified `name` (upstream's `lookupAttribute`: a name without a
    /// domain is the driver's, so `driver/id` finds an attribute published as `id`).
    pub fn attribute(&self, name: &str) -> Option<&DeviceAttribute> {
        self.attributes.binary_search_by(|(n, _)| (**n).cmp(name)).ok().map(|i| &self.attributes[i].1)
    }
}

/// A ResourceSlice prepared for allocation.
#[derive(Debug, Clone)]
pub struct PreparedSlice {
    pub name: Box<str>,
    pub driver: Arc<str>,
    pub pool: Arc<str>,
    pub generation: i64,
    pub resource_slice_count: i64,
    pub node_selection: NodeSelection,
    /// `perDeviceNodeSelection` as written (`Some(false)` still counts as set for the gate check).
    pub per_device_node_selection: Option<bool>,
    pub has_shared_counters: bool,
    /// The slice's `nodeName` / `nodeSelector` as written, for the allocation's node selector.
    pub node_name: Option<Box<str>>,
    pub node_selector: Option<NodeSelector>,
    pub devices: Vec<PreparedDevice>,
}

/// Why a slice cannot be prepared: a quantity the API server would never have stored.
#[derive(Debug, Clone, PartialEq)]
pub struct PrepareError {
    pub slice: String,
    pub device: String,
    pub error: QuantityError,
}

impl fmt::Display for PrepareError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "ResourceSlice {}, device {}: {}", self.slice, self.device, self.error)
    }
}

impl std::error::Error for PrepareError {}

/// `domain/id` for an attribute or capacity name of `driver`'s device.
fn qualified(driver: &str, name: &str) -> Box<str> {
    if name.contains('/') {
        name.into()
    } else {
        format!("{driver}/{name}").into()
    }
}

/// A quantity as stored; the empty string is Go's zero `resource.Quantity` (a `null` value).
fn quantity(value: &api::QuantityStr) -> Result<Quantity, QuantityError> {
    if value.0.is_empty() {
        Quantity::parse("0")
    } else {
        Quantity::parse(&value.0)
    }
}

impl PreparedSlice {
    /// Prepare a slice: the devices' names qualified, quantities parsed, selectors compiled.
    pub fn new(slice: &api::ResourceSlice) -> Result<PreparedSlice, PrepareError> {
        let spec = &slice.spec;
        let driver: Arc<str> = spec.driver.as_str().into();
        let pool: Arc<str> = spec.pool.name.as_str().into();
        let mut devices = Vec::with_capacity(spec.devices.len());
        for d in &spec.devices {
            let mut attributes: Vec<(Box<str>, DeviceAttribute)> =
                d.attributes.iter().map(|(k, v)| (qualified(&driver, k), v.clone())).collect();
            attributes.sort_by(|a, b| a.0.cmp(&b.0));
            let mut capacity = Vec::with_capacity(d.capacity.len());
            for (k, c) in &d.capacity {
                let q = quantity(&c.value).map_err(|error| PrepareError {
                    slice: slice.metadata.name.clone(),
                    device: d.name.clone(),
                    error,
                })?;
                capacity.push((qualified(&driver, k), q));
            }
            capacity.sort_by(|a, b| a.0.cmp(&b.0));
            devices.push(PreparedDevice {
                id: DeviceId { driver: driver.clone(), pool: pool.clone(), device: d.name.as_str().into() },
                attributes,
                capacity,
                node_selection: NodeSelection::of(d.node_name.as_deref(), d.all_nodes, d.node_selector.as_ref()),
                node_name: d.node_name.as_deref().map(Into::into),
                node_selector: d.node_selector.clone(),
                consumes_counters: !d.consumes_counters.is_empty(),
                has_binding_conditions: !d.binding_conditions.is_empty(),
                taints: d.taints.clone(),
            });
        }
        Ok(PreparedSlice {
            name: slice.metadata.name.as_str().into(),
            driver,
            pool,
            generation: spec.pool.generation,
            resource_slice_count: spec.pool.resource_slice_count,
            node_selection: NodeSelection::of(spec.node_name.as_deref(), spec.all_nodes, spec.node_selector.as_ref()),
            per_device_node_selection: spec.per_device_node_selection,
            has_shared_counters: !spec.shared_counters.is_empty(),
            node_name: spec.node_name.as_deref().map(Into::into),
            node_selector: spec.node_selector.clone(),
            devices,
        })
    }
}

/// All prepared slices, indexed so that one node's candidates are found without walking the
/// others: slices published for a node name (`nodeName`) by that name, every other slice
/// (node selectors, all nodes, per-device selection, shared counters, unknown) in one list, and
/// every slice by pool (the incomplete-pool check looks at a pool's slices for other nodes).
///
/// Slices are kept in one fixed order, by name: upstream walks them in its informer's order,
/// which is a map's; the order here is one of the orders upstream may see, and the same on every
/// run.
#[derive(Debug, Clone, Default)]
pub struct SliceIndex {
    slices: Vec<Arc<PreparedSlice>>,
    by_node: FxHashMap<Box<str>, Vec<u32>>,
    node_independent: Vec<u32>,
    by_pool: FxHashMap<(Arc<str>, Arc<str>), Vec<u32>>,
}

impl SliceIndex {
    /// Index `slices` (any order; they are sorted by name, ties keep their given order).
    pub fn new(slices: impl IntoIterator<Item = Arc<PreparedSlice>>) -> SliceIndex {
        let mut slices: Vec<Arc<PreparedSlice>> = slices.into_iter().collect();
        slices.sort_by(|a, b| a.name.cmp(&b.name));
        SliceIndex::in_given_order(slices)
    }

    /// Index the slices in the order given (what upstream's allocator sees when its caller passes
    /// them in that order).
    pub fn in_given_order(slices: impl IntoIterator<Item = Arc<PreparedSlice>>) -> SliceIndex {
        let mut index = SliceIndex { slices: slices.into_iter().collect(), ..Default::default() };
        for (i, s) in index.slices.iter().enumerate() {
            let i = i as u32;
            match &s.node_selection {
                NodeSelection::Node(name) if !s.has_shared_counters => index.by_node.entry(name.clone()).or_default().push(i),
                _ => index.node_independent.push(i),
            }
            index.by_pool.entry((s.driver.clone(), s.pool.clone())).or_default().push(i);
        }
        index
    }

    pub fn is_empty(&self) -> bool {
        self.slices.is_empty()
    }

    pub fn slice(&self, i: u32) -> &PreparedSlice {
        &self.slices[i as usize]
    }

    /// The slices that may be relevant for `node`, in index order: those published for its
    /// name and every node-independent one.
    pub fn candidates(&self, node: &str) -> impl Iterator<Item = u32> + '_ {
        let local = self.by_node.get(node).map(Vec::as_slice).unwrap_or(&[]);
        Merge { a: local, b: &self.node_independent }
    }

    /// Every slice of one pool, in index order.
    pub fn pool_slices(&self, driver: &Arc<str>, pool: &Arc<str>) -> &[u32] {
        self.by_pool.get(&(driver.clone(), pool.clone())).map(Vec::as_slice).unwrap_or(&[])
    }
}

/// Two ascending index lists merged into one ascending sequence.
struct Merge<'a> {
    a: &'a [u32],
    b: &'a [u32],
}

impl Iterator for Merge<'_> {
    type Item = u32;
    fn next(&mut self) -> Option<u32> {
        let next = match (self.a.first(), self.b.first()) {
            (Some(&x), Some(&y)) if x <= y => {
                self.a = &self.a[1..];
                x
            }
            (_, Some(&y)) => {
                self.b = &self.b[1..];
                y
            }
            (Some(&x), None) => {
                self.a = &self.a[1..];
                x
            }
            (None, None) => return None,
        };
        Some(next)
    }
}
