//! The allocator's CEL evaluation through the DRA selector environment
//! ([`crate::core::dra::cel`]): a device as upstream's stable allocator hands it to
//! `DeviceMatches` (driver, attributes, capacity; `allowMultipleAllocations` only exists for the
//! consumable-capacity implementation, so it reads as unset), each expression compiled once by
//! the [`SelectorCache`].

use super::{PreparedDevice, SelectorEvaluator, SelectorFailure};
use crate::core::dra::cel::{AttributeValue, CelDevice, CelError, SelectorCache};
use crate::core::quantity::Quantity;
use crate::core::texts::dra_allocator as texts;

impl SelectorEvaluator for SelectorCache {
    fn matches(&mut self, expression: &str, device: &PreparedDevice) -> Result<bool, SelectorFailure> {
        let compiled = self.get_or_compile(expression).map_err(failure)?;
        let mut attributes = Vec::with_capacity(device.attributes.len());
        for (name, a) in &device.attributes {
            // `getAttributeValue` (compile.go): the first value set, in this order.
            let value = if let Some(i) = a.int_value {
                AttributeValue::Int(i)
            } else if let Some(b) = a.bool_value {
                AttributeValue::Bool(b)
            } else if let Some(s) = &a.string_value {
                AttributeValue::String(s)
            } else if let Some(v) = &a.version_value {
                AttributeValue::Version(v)
            } else {
                return Err(SelectorFailure::Runtime(texts::unsupported_attribute_value(name)));
            };
            attributes.push((&**name, value));
        }
        let capacity: Vec<(&str, Quantity)> = device.capacity.iter().map(|(n, q)| (&**n, *q)).collect();
        let cel_device = CelDevice {
            driver: &device.id.driver,
            attributes: &attributes,
            capacity: &capacity,
            allow_multiple_allocations: None,
        };
        compiled.matches(&cel_device).map_err(failure)
    }
}

fn failure(e: CelError) -> SelectorFailure {
    if e.is_compile_error() {
        SelectorFailure::Compile(e.message)
    } else {
        SelectorFailure::Runtime(e.message)
    }
}
