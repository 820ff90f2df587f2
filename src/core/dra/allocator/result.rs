//! The allocation results of a successful search (the end of upstream's `Allocate` and
//! `createNodeSelector`, allocator_stable.go v1.35): the devices with the request (or
//! `request/subrequest`) each was picked for, the configuration of the classes (once per class,
//! naming the requests that use it) and of the claim (those that apply to the picked
//! subrequests), and where the devices are available: one node when any device is local to a
//! node, the union of the slices' node selector requirements for network-attached devices, or
//! no selector for devices available everywhere.

use super::search::{DeviceRef, RequestData, Search};
use super::AllocError;
use crate::core::api::{
    self, AllocationResult, DeviceAllocationConfiguration, DeviceAllocationResult, DeviceRequestAllocationResult, NodeSelector,
    NodeSelectorRequirement, NodeSelectorTerm,
};
use crate::core::framework::plugins::helper::OBJECT_NAME_FIELD;
use crate::core::texts::dra_allocator as texts;
use std::collections::BTreeSet;

pub(super) fn build(search: &Search<'_, '_>) -> Result<Vec<AllocationResult>, AllocError> {
    let mut out = Vec::with_capacity(search.claims.len());
    for (ci, claim) in search.claims.iter().enumerate() {
        let entries = &search.requests[ci];
        let picked = |ri: usize| -> &RequestData<'_> {
            let entry = &entries[ri];
            &entry.subs[if entry.has_subrequests { entry.selected } else { 0 }]
        };
        let devices = &search.results[ci];
        let results = devices
            .iter()
            .map(|d| {
                let data = &entries[d.request].subs[d.sub];
                let id = &search.device(d.device).id;
                DeviceRequestAllocationResult {
                    request: data.request_name(),
                    driver: id.driver.to_string(),
                    pool: id.pool.to_string(),
                    device: id.device.to_string(),
                    admin_access: d.admin_access.then_some(true),
                    tolerations: data.request.tolerations().to_vec(),
                    ..Default::default()
                }
            })
            .collect();

        // Each class's configuration once, naming every request that uses the class.
        let mut config: Vec<DeviceAllocationConfiguration> = Vec::new();
        let mut class_ranges: Vec<(&str, usize, usize)> = Vec::new();
        for ri in 0..entries.len() {
            let data = picked(ri);
            let class = data.class;
            if let Some(&(_, start, end)) = class_ranges.iter().find(|(name, _, _)| *name == class.metadata.name) {
                for c in &mut config[start..end] {
                    c.requests.push(data.request_name());
                }
                continue;
            }
            let start = config.len();
            config.extend(class.spec.config.iter().map(|c| DeviceAllocationConfiguration {
                source: api::CONFIG_SOURCE_CLASS.to_string(),
                requests: vec![data.request_name()],
                opaque: c.opaque.clone(),
            }));
            class_ranges.push((&class.metadata.name, start, config.len()));
        }
        // The claim's configuration: all of it without request names, else once per request
        // (or picked subrequest) it names.
        let requests = &claim.spec.devices.requests;
        for c in &claim.spec.devices.config {
            let copy = || DeviceAllocationConfiguration {
                source: api::CONFIG_SOURCE_CLAIM.to_string(),
                requests: c.requests.clone(),
                opaque: c.opaque.clone(),
            };
            if c.requests.is_empty() {
                config.push(copy());
                continue;
            }
            for (ri, request) in requests.iter().enumerate() {
                if c.requests.contains(&request.name) {
                    config.push(copy());
                    continue;
                }
                let data = picked(ri);
                if data.parent.is_some() && c.requests.contains(&data.request_name()) {
                    config.push(copy());
                }
            }
        }

        let node_selector = node_selector(search, devices.iter().map(|d| d.device))
            .map_err(|terms| AllocError::input(texts::node_selector_terms(&claim.metadata.name, terms)))?;
        out.push(AllocationResult {
            devices: DeviceAllocationResult { results, config },
            node_selector,
            allocation_timestamp: None,
        });
    }
    Ok(out)
}

/// `createNodeSelector`: `Err(n)` for a slice selector with `n` terms (validation allows one).
fn node_selector(search: &Search<'_, '_>, devices: impl Iterator<Item = DeviceRef>) -> Result<Option<NodeSelector>, usize> {
    let mut fields: Vec<NodeSelectorRequirement> = Vec::new();
    let mut expressions: Vec<NodeSelectorRequirement> = Vec::new();
    for d in devices {
        let slice = search.alloc.slices.slice(d.slice);
        let device = search.device(d);
        let (node_name, selector) = if slice.per_device_node_selection == Some(true) {
            (device.node_name.as_deref(), device.node_selector.as_ref())
        } else {
            (slice.node_name.as_deref(), slice.node_selector.as_ref())
        };
        if let Some(name) = node_name {
            // A device local to one node restricts the allocation to that node.
            return Ok(Some(local_node_selector(name)));
        }
        if let Some(selector) = selector {
            match selector.node_selector_terms.as_slice() {
                [] => {}
                [term] => {
                    add_new(&term.match_fields, &mut fields);
                    add_new(&term.match_expressions, &mut expressions);
                }
                terms => return Err(terms.len()),
            }
        }
    }
    if fields.is_empty() && expressions.is_empty() {
        // Available everywhere.
        return Ok(None);
    }
    Ok(Some(NodeSelector {
        node_selector_terms: vec![NodeSelectorTerm { match_expressions: expressions, match_fields: fields }],
    }))
}

/// `metadata.name In [node]`.
fn local_node_selector(node: &str) -> NodeSelector {
    NodeSelector {
        node_selector_terms: vec![NodeSelectorTerm {
            match_fields: vec![NodeSelectorRequirement {
                key: OBJECT_NAME_FIELD.to_string(),
                operator: "In".to_string(),
                values: vec![node.to_string()],
            }],
            ..Default::default()
        }],
    }
}

/// `addNewNodeSelectorRequirements`: append what is not there yet (same key, operator and set
/// of values).
fn add_new(from: &[NodeSelectorRequirement], to: &mut Vec<NodeSelectorRequirement>) {
    for r in from {
        let values: BTreeSet<&str> = r.values.iter().map(String::as_str).collect();
        let present = to.iter().any(|e| {
            e.key == r.key && e.operator == r.operator && e.values.iter().map(String::as_str).collect::<BTreeSet<_>>() == values
        });
        if !present {
            to.push(r.clone());
        }
    }
}
