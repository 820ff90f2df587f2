//! DRA CEL device selectors: any text must compile or fail with an error, and any compiled
//! selector must evaluate against a device to a bool or an error — never a panic, never
//! unbounded work (the cost limit stops loops). The first line of the input is the expression;
//! the second, when present, is the value of a string attribute and, if it is a quantity, of a
//! capacity too, so the fuzzer also reaches odd device data (semver parsing included).
#![no_main]

use edgesched::core::dra::cel::{compile, AttributeValue, CelDevice, CelFeatures};
use edgesched::core::quantity::Quantity;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|input: &str| {
    let (expression, data) = input.split_once('\n').unwrap_or((input, "1.2.3"));
    let Ok(selector) = compile(expression, CelFeatures::default()) else {
        return;
    };
    let mut capacity = vec![("gpu.example.com/memory", Quantity::parse("40Gi").expect("valid quantity"))];
    if let Ok(q) = Quantity::parse(data) {
        capacity.push(("gpu.example.com/data", q));
    }
    let attributes = [
        ("gpu.example.com/model", AttributeValue::String("a100")),
        ("gpu.example.com/index", AttributeValue::Int(3)),
        ("gpu.example.com/shared", AttributeValue::Bool(false)),
        ("gpu.example.com/driverVersion", AttributeValue::Version("1.2.3-rc.1+build")),
        ("other.example.com/data", AttributeValue::String(data)),
        ("other.example.com/version", AttributeValue::Version(data)),
    ];
    let device = CelDevice {
        driver: "gpu.example.com",
        attributes: &attributes,
        capacity: &capacity,
        allow_multiple_allocations: Some(true),
    };
    let _ = selector.matches(&device);
});
