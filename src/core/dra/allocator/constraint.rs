//! `matchAttribute` constraints (upstream `matchAttributeConstraint`, allocator_stable.go v1.35):
//! every device allocated for the requests a constraint names (all requests of the claim when it
//! names none; a request name also covers its subrequests) must have the attribute, with the same
//! type and value as the first such device. Constraints are monotonic, so the search may stop
//! adding devices as soon as one fails.

use super::prepared::PreparedDevice;
use crate::core::api::DeviceAttribute;

/// One constraint's state during a search: the first device's value and how many devices share
/// it (which devices is not needed).
#[derive(Debug, Clone)]
pub struct MatchAttribute {
    requests: Vec<String>,
    attribute: String,
    value: Option<DeviceAttribute>,
    devices: usize,
}

impl MatchAttribute {
    pub fn new(requests: &[String], attribute: &str) -> MatchAttribute {
        MatchAttribute { requests: requests.to_vec(), attribute: attribute.to_string(), value: None, devices: 0 }
    }

    /// Whether the constraint applies to a device of `request` (its subrequest `subrequest`).
    fn applies(&self, request: &str, subrequest: Option<&str>) -> bool {
        if self.requests.is_empty() {
            return true;
        }
        self.requests.iter().any(|r| match subrequest {
            None => r == request,
            Some(sub) => r == request || r.strip_prefix(request).and_then(|rest| rest.strip_prefix('/')) == Some(sub),
        })
    }

    /// `add`: whether the device may join; if it may, it is counted.
    pub fn add(&mut self, request: &str, subrequest: Option<&str>, device: &PreparedDevice) -> bool {
        if !self.applies(request, subrequest) {
            return true;
        }
        let Some(attribute) = device.attribute(&self.attribute) else {
            return false;
        };
        let Some(first) = self.value.as_ref().filter(|_| self.devices > 0) else {
            self.value = Some(attribute.clone());
            self.devices = 1;
            return true;
        };
        // The type of the new device's value decides, as upstream's switch does.
        let same = if let Some(s) = &attribute.string_value {
            first.string_value.as_ref() == Some(s)
        } else if let Some(i) = attribute.int_value {
            first.int_value == Some(i)
        } else if let Some(b) = attribute.bool_value {
            first.bool_value == Some(b)
        } else if let Some(v) = &attribute.version_value {
            // semver 2.0.0 versions are in minimal form: equal versions are equal strings.
            first.version_value.as_ref() == Some(v)
        } else {
            false
        };
        if same {
            self.devices += 1;
        }
        same
    }

    /// `remove`: the undo of a successful [`MatchAttribute::add`] with the same arguments.
    pub fn remove(&mut self, request: &str, subrequest: Option<&str>) {
        if self.applies(request, subrequest) {
            self.devices = self.devices.saturating_sub(1);
        }
    }
}
