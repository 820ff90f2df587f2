//! Upstream's selector test table, transcribed.
//!
//! `TestCEL`'s `testcases` from `staging/src/k8s.io/dynamic-resource-allocation/cel/
//! compile_test.go` (kubernetes/kubernetes v1.35): every case whose device type exists in v1.35
//! (the list-type attribute cases arrived with DRAListTypeAttributes in v1.36 and are left out),
//! with its expression, device, and expected result or error. Upstream runs each case in the
//! stored and the new-expressions environments; the scheduler compiles stored expressions, so
//! these run there (the one case that needs `NewExpressions`, `allow_multiple_allocations_disabled`,
//! is the API server's concern). Upstream's cost figures are its *estimates*; here every case
//! checks that the evaluation stays within the limit except `expensive`, which upstream aborts.

use super::*;
use crate::core::quantity::Quantity;

/// A device for a case: driver, attributes (name, value), capacities (name, quantity text).
struct Dev {
    driver: &'static str,
    attributes: Vec<(String, AttributeValue<'static>)>,
    capacity: Vec<(&'static str, Quantity)>,
    allow_multiple_allocations: Option<bool>,
}

impl Dev {
    fn new(driver: &'static str) -> Dev {
        Dev { driver, attributes: Vec::new(), capacity: Vec::new(), allow_multiple_allocations: None }
    }

    fn attr(mut self, name: &str, v: AttributeValue<'static>) -> Dev {
        self.attributes.push((name.to_string(), v));
        self
    }

    fn cap(mut self, name: &'static str, q: &str) -> Dev {
        self.capacity.push((name, Quantity::parse(q).unwrap()));
        self
    }

    fn multi(mut self, v: Option<bool>) -> Dev {
        self.allow_multiple_allocations = v;
        self
    }

    fn eval(&self, expression: &str) -> Result<bool, CelError> {
        let attributes: Vec<(&str, AttributeValue<'_>)> = self.attributes.iter().map(|(n, v)| (n.as_str(), *v)).collect();
        let device = CelDevice {
            driver: self.driver,
            attributes: &attributes,
            capacity: &self.capacity,
            allow_multiple_allocations: self.allow_multiple_allocations,
        };
        compile(expression, CelFeatures::default())?.matches(&device)
    }
}

use AttributeValue::{Bool, Int, Version};

fn s(v: &'static str) -> AttributeValue<'static> {
    AttributeValue::String(v)
}

const DRA: &str = "dra.example.com";

fn ok(dev: &Dev, expression: &str, want: bool) {
    match dev.eval(expression) {
        Ok(got) => assert_eq!(got, want, "{expression}"),
        Err(e) => panic!("{expression}: unexpected error {e}"),
    }
}

fn compile_err(expression: &str, want: &str) {
    match compile(expression, CelFeatures::default()) {
        Ok(_) => panic!("{expression}: compiled, want error containing {want:?}"),
        Err(e) => {
            assert!(e.is_compile_error(), "{expression}: {e:?}");
            assert!(e.message.contains(want), "{expression}: {:?} does not contain {want:?}", e.message);
        }
    }
}

fn eval_err(dev: &Dev, expression: &str, want: &str) {
    match dev.eval(expression) {
        Ok(v) => panic!("{expression}: evaluated to {v}, want error containing {want:?}"),
        Err(e) => {
            assert!(!e.is_compile_error(), "{expression}: compile error {e}");
            assert!(e.message.contains(want), "{expression}: {:?} does not contain {want:?}", e.message);
        }
    }
}

#[test]
fn upstream_true_false_and_errors() {
    let none = Dev::new("");
    ok(&none, "true", true); // "true"
    ok(&none, "false", false); // "false"
    compile_err("?!", "Syntax error"); // "syntax-error"
    compile_err("1", "must evaluate to bool or the unknown type, not int"); // "type-error"
                                                                            // "runtime-error-lookup-identifier", "runtime-error-lookup-map"
    eval_err(&none, r#"device.attributes["no-such-domain"].noSuchAttr.isGreaterThan(quantity("0"))"#, "no such key: noSuchAttr");
    eval_err(
        &none,
        r#"device.attributes["no-such-domain"]["noSuchAttr"].isGreaterThan(quantity("0"))"#,
        "no such key: noSuchAttr",
    );
}

#[test]
fn upstream_domains_and_driver() {
    let none = Dev::new("");
    ok(&none, r#""no-such-domain" in device.attributes"#, false); // "domain-check-negative"
    let something = Dev::new("").attr("dra.example.com/something", Bool(true));
    ok(&something, r#""dra.example.com" in device.attributes"#, true); // "domain-check-positive"
    ok(&none, r#"device.driver == """#, true); // "empty-driver-name"
    ok(&Dev::new(DRA), r#"device.driver == "dra.example.com""#, true); // "real-driver-name"
    let name = Dev::new(DRA).attr("name", Bool(true));
    ok(&name, r#"device.attributes["dra.example.com"].name"#, true); // "driver-name-qualifier"
    ok(&name, r#"device.attributes["dra.example.com"]["name"]"#, true); // "driver-name-qualifier-map-lookup"
    ok(&name, r#"cel.bind(dra, device.attributes["dra.example.com"], dra.name)"#, true); // "bind"
    let other = Dev::new(DRA).attr("other.example.com/name", Bool(true));
    ok(&other, r#"device.attributes["other.example.com"].name"#, true); // "qualified-attribute-name"
}

#[test]
fn upstream_attribute_types() {
    ok(&Dev::new(DRA).attr("name", Bool(true)), r#"device.attributes["dra.example.com"].name"#, true); // "bool"
    ok(&Dev::new(DRA).attr("name", Int(1)), r#"device.attributes["dra.example.com"].name > 0"#, true); // "int"
    ok(&Dev::new(DRA).attr("name", s("fish")), r#"device.attributes["dra.example.com"].name == "fish""#, true); // "string"
    let v = Dev::new(DRA).attr("name", Version("1.0.0"));
    ok(&v, r#"device.attributes["dra.example.com"].name.isGreaterThan(semver("0.0.1"))"#, true); // "version"
                                                                                                 // "version_v": relaxed parsing with a v prefix.
    ok(
        &v,
        r#"device.attributes["dra.example.com"].name.isGreaterThan(semver("v0.0.1", true)) && isSemver("v1.0.0", true)"#,
        true,
    );
    let q = Dev::new(DRA).cap("name", "1Mi");
    ok(&q, r#"device.capacity["dra.example.com"].name.isGreaterThan(quantity("1Ki"))"#, true); // "quantity"
                                                                                               // "check-positive", "check-negative"
    ok(
        &q,
        r#""name" in device.capacity["dra.example.com"] && device.capacity["dra.example.com"].name.isGreaterThan(quantity("1Ki"))"#,
        true,
    );
    ok(
        &Dev::new(""),
        r#"!("name" in device.capacity["dra.example.com"]) || device.capacity["dra.example.com"].name.isGreaterThan(quantity("1Ki"))"#,
        true,
    );
}

#[test]
fn upstream_all_and_many() {
    let dev = Dev::new(DRA)
        .attr("bool", Bool(true))
        .attr("int", Int(1))
        .attr("string", s("fish"))
        .attr("version", Version("1.0.0"))
        .cap("quantity", "1Mi");
    // "all"
    ok(
        &dev,
        r#"
device.capacity["dra.example.com"].quantity.isGreaterThan(quantity("1Ki")) &&
device.attributes["dra.example.com"].bool &&
device.attributes["dra.example.com"].int > 0 &&
device.attributes["dra.example.com"].string == "fish" &&
device.attributes["dra.example.com"].version.isGreaterThan(semver("0.0.1")) &&
device.capacity["dra.example.com"]["quantity"].isGreaterThan(quantity("1Ki")) &&
device.attributes["dra.example.com"]["bool"] &&
device.attributes["dra.example.com"]["int"] > 0 &&
device.attributes["dra.example.com"]["string"] == "fish" &&
device.attributes["dra.example.com"]["version"].isGreaterThan(semver("0.0.1"))
"#,
        true,
    );
    let many = Dev::new(DRA).attr("a", Bool(true)).attr("b", Bool(true)).attr("c", Bool(true));
    // "many"
    ok(
        &many,
        r#"device.attributes["dra.example.com"].a && device.attributes["dra.example.com"].b && device.attributes["dra.example.com"].c"#,
        true,
    );
}

#[test]
fn upstream_comprehensions_and_strings() {
    let services = Dev::new(DRA).attr("services", s("some_example_value"));
    ok(&services, r#"device.attributes.exists_one(x, x == "dra.example.com")"#, true); // "check_attribute_domains"
    ok(&services, r#"device.attributes["dra.example.com"].exists_one(x, x == "services")"#, true); // "check_attribute_ids"
    ok(&services, r#"device.attributes["dra.example.com"].services.split("example").size() >= 2"#, true); // "split_attribute"
    let asym = Dev::new(DRA).attr("services", s("asymetric"));
    ok(&asym, r#"device.attributes["dra.example.com"].services.matches("[^a]?sym")"#, true); // "regexp_attribute"
    let mem = Dev::new(DRA).cap("memory", "1Mi");
    ok(&mem, r#"device.capacity.exists_one(x, x == "dra.example.com")"#, true); // "check_capacity_domains"
    ok(&mem, r#"device.capacity["dra.example.com"].exists_one(x, x == "memory")"#, true);
    // "check_capacity_ids"
}

#[test]
fn upstream_expensive_is_aborted() {
    // "expensive": the device has the maximum number of attributes with the longest names.
    let names: Vec<String> = (0..32)
        .map(|i| {
            let suffix = format!("-{i}");
            format!("dra.example.com/{}{suffix}", "x".repeat(32 - suffix.len()))
        })
        .collect();
    let mut dev = Dev::new(DRA);
    for n in &names {
        dev = dev.attr(n, s("abc"));
    }
    let expression = "[1, 2, 3, 4, 5, 6, 7, 8, 9, 10].all(x, [1, 2, 3, 4, 5, 6, 7, 8, 9, 10].all(y, [1, 2, 3, 4, 5, 6, 7, 8, 9, 10].all(z, [1, 2, 3, 4, 5, 6, 7, 8, 9, 10].all(z2, [1, 2, 3, 4, 5, 6, 7, 8, 9, 10].all(z3, [1, 2, 3, 4, 5, 6, 7, 8, 9, 10].all(z4, [1, 2, 3, 4, 5, 6, 7, 8, 9, 10].all(z5, int('1'.find('[0-9]*')) < 100)))))))";
    let err = dev.eval(expression).unwrap_err();
    assert_eq!(err.kind, CelErrorKind::CostLimit, "{err}");
    assert!(err.message.contains("actual cost limit exceeded"), "{err}");
}

#[test]
fn upstream_allow_multiple_allocations() {
    let dev = Dev::new(DRA);
    ok(&dev.multi(Some(true)), "device.allowMultipleAllocations == true", true); // "allow_multiple_allocations"
    ok(&Dev::new(DRA), "device.allowMultipleAllocations == false", true); // "allow_multiple_allocations_default"
    ok(&Dev::new(DRA).multi(Some(false)), "device.allowMultipleAllocations == false", true);
    // "..._false"
}
