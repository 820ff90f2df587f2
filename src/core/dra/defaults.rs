//! The API server's defaulting of claim requests (kubernetes/kubernetes v1.35
//! `pkg/apis/resource/v1/defaults.go`: `SetDefaults_ExactDeviceRequest`,
//! `SetDefaults_DeviceSubRequest`), for claims and templates that come from hand-written cluster
//! files: the allocator reads only defaulted requests, as upstream's does. Objects read from an
//! API server are defaulted already; applying the defaults again changes nothing.

use crate::core::api;

/// An empty `allocationMode` is `ExactCount`, and `ExactCount` with no `count` is one device.
fn default_mode_and_count(mode: &mut String, count: &mut i64) {
    if mode.is_empty() {
        *mode = api::ALLOCATION_MODE_EXACT_COUNT.to_string();
    }
    if mode == api::ALLOCATION_MODE_EXACT_COUNT && *count == 0 {
        *count = 1;
    }
}

/// Default every request of a claim spec (its `exactly` and each `firstAvailable` entry).
pub fn default_claim_spec(spec: &mut api::ResourceClaimSpec) {
    for request in &mut spec.devices.requests {
        if let Some(exact) = &mut request.exactly {
            default_mode_and_count(&mut exact.allocation_mode, &mut exact.count);
        }
        for sub in &mut request.first_available {
            default_mode_and_count(&mut sub.allocation_mode, &mut sub.count);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn exact(mode: &str, count: i64) -> api::DeviceRequest {
        api::DeviceRequest {
            name: "r".into(),
            exactly: Some(api::ExactDeviceRequest {
                device_class_name: "c".into(),
                allocation_mode: mode.into(),
                count,
                ..Default::default()
            }),
            first_available: Vec::new(),
        }
    }

    fn defaulted(request: api::DeviceRequest) -> api::DeviceRequest {
        let mut spec = api::ResourceClaimSpec::default();
        spec.devices.requests.push(request);
        default_claim_spec(&mut spec);
        spec.devices.requests.remove(0)
    }

    fn mode_count(r: &api::DeviceRequest) -> (String, i64) {
        let e = r.exactly.as_ref().expect("exactly");
        (e.allocation_mode.clone(), e.count)
    }

    #[test]
    fn exact_requests_default_as_the_api_server_does() {
        // defaults_test.go (v1.35) TestSetDefaultAllocationMode: empty mode -> ExactCount with
        // count 1; an explicit count is kept; All keeps count 0.
        assert_eq!(mode_count(&defaulted(exact("", 0))), ("ExactCount".into(), 1));
        assert_eq!(mode_count(&defaulted(exact("", 3))), ("ExactCount".into(), 3));
        assert_eq!(mode_count(&defaulted(exact("ExactCount", 0))), ("ExactCount".into(), 1));
        assert_eq!(mode_count(&defaulted(exact("All", 0))), ("All".into(), 0));
    }

    #[test]
    fn subrequests_default_too() {
        let mut r = api::DeviceRequest { name: "r".into(), ..Default::default() };
        r.first_available = vec![
            api::DeviceSubRequest { name: "a".into(), device_class_name: "c".into(), ..Default::default() },
            api::DeviceSubRequest {
                name: "b".into(),
                device_class_name: "c".into(),
                allocation_mode: "All".into(),
                ..Default::default()
            },
        ];
        let r = defaulted(r);
        assert_eq!((r.first_available[0].allocation_mode.as_str(), r.first_available[0].count), ("ExactCount", 1));
        assert_eq!((r.first_available[1].allocation_mode.as_str(), r.first_available[1].count), ("All", 0));
        // Idempotent: what an API server returns is left as it is.
        let again = defaulted(r.clone());
        assert_eq!(again, r);
    }
}
