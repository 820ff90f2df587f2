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

/// Expressions over the library functions that must all hold (the examples of the libraries'
/// documentation, `staging/src/k8s.io/apiserver/pkg/cel/library/*.go` and cel-go's `ext`
/// package docs, v1.35).
#[test]
fn library_examples_hold() {
    let dev = Dev::new(DRA);
    for expression in [
        // quantity.go
        r#"quantity("50000000G").isInteger()"#,
        r#"quantity("50k").asInteger() == 50000"#,
        r#"!quantity("9999999999999999999999999999999999999G").isInteger()"#,
        r#"quantity("50k").sub(20000).asApproximateFloat() == 30000.0"#,
        r#"quantity("50k").add(quantity("20k")) == quantity("70k")"#,
        r#"quantity("50k").add(20) == quantity("50020")"#,
        r#"quantity("50k").add(20).sub(quantity("100k")).sub(-50000) == quantity("20")"#,
        r#"quantity("200M").compareTo(quantity("0.2G")) == 0"#,
        r#"quantity("50M").compareTo(quantity("50Mi")) == -1"#,
        r#"quantity("150Mi").isGreaterThan(quantity("100Mi"))"#,
        r#"quantity("50M").isLessThan(quantity("100M"))"#,
        r#"isQuantity("1.3G") && isQuantity("1.3Gi") && !isQuantity("1,3G") && isQuantity("10000k") && !isQuantity("200K") && !isQuantity("Three")"#,
        // The library documents isQuantity('Mi') as false, but ParseQuantity reads a missing
        // number as 0 (parseQuantityString), so it is a valid quantity, here as upstream.
        r#"isQuantity("Mi") && quantity("Mi") == quantity("0")"#,
        r#"sign(quantity("-1")) == -1 && sign(quantity("0")) == 0"#,
        r#"!quantity("1.0").isInteger()"#,
        // semverlib.go
        r#"semver("1.2.3").major() == 1 && semver("1.2.3").minor() == 2 && semver("1.2.3").patch() == 3"#,
        r#"semver("1.2.3").compareTo(semver("1.2.3")) == 0 && semver("1.2.3").compareTo(semver("2.0.0")) == -1 && semver("1.2.3").compareTo(semver("0.1.2")) == 1"#,
        r#"isSemver("1.0.0") && !isSemver("hello") && !isSemver("v1.0") && isSemver("v1.0", true)"#,
        r#"semver("01.01.01", true) == semver("1.1.1")"#,
        // lists.go
        r#"[1, 2, 3].isSorted() && !["b", "a"].isSorted() && [].isSorted()"#,
        r#"[1, 2, 3].sum() == 6 && [0.5, 1.5].sum() == 2.0 && [].sum() == 0"#,
        r#"[1, 3, 2].max() == 3 && [1, 3, 2].min() == 1"#,
        r#"[1, 2, 2, 3].indexOf(2) == 1 && [1, 2, 2, 3].lastIndexOf(2) == 2 && [1].indexOf(5) == -1"#,
        // regex.go
        r#""abc 123".find("[0-9]+") == "123" && "abc".find("[0-9]+") == """#,
        r#""123 abc 456".findAll("[0-9]+") == ["123", "456"] && "123 abc 456".findAll("[0-9]+", 1) == ["123"]"#,
        r#""asymetric".matches("[^a]?sym")"#,
        // ext.Sets
        r#"sets.contains([1, 2, 3], [2, 3]) && !sets.contains([1], [2]) && sets.equivalent([1, 2], [2, 1, 1]) && sets.intersects([1, 2], [2, 5])"#,
        // ext.Lists
        r#"[1, 2, 3].first() == optional.of(1) && [].last() == optional.none() && lists.range(3) == [0, 1, 2]"#,
        r#"[3, 1, 2].sort() == [1, 2, 3] && [1, 1, 2].distinct() == [1, 2] && [[1], [2, 3]].flatten() == [1, 2, 3] && [1, 2, 3, 4].slice(1, 3) == [2, 3]"#,
        // ext.Strings v2
        r#""TacoCat".lowerAscii() == "tacocat" && "TacoCat".upperAscii() == "TACOCAT" && " trim ".trim() == "trim""#,
        r#""hello mellow".indexOf("ello") == 1 && "hello mellow".lastIndexOf("ello") == 7 && "tacocat".substring(4) == "cat""#,
        r#""a,b,c".split(",") == ["a", "b", "c"] && ["a", "b"].join("-") == "a-b" && "aaa".replace("a", "b", 2) == "bba""#,
        r#""%s is %d".format(["x", 3]) == "x is 3" && "abc".charAt(1) == "b" && strings.quote("a") == "\"a\"""#,
        // ip.go, cidr.go
        r#"isIP("10.0.0.1") && !isIP("10.0.0.256") && ip("10.0.0.1").family() == 4 && ip("::1").family() == 6"#,
        r#"ip("127.0.0.1").isLoopback() && ip("0.0.0.0").isUnspecified() && ip("169.254.1.1").isLinkLocalUnicast() && ip("224.0.0.1").isLinkLocalMulticast() && ip("10.0.0.1").isGlobalUnicast()"#,
        r#"ip.isCanonical("2001:db8::1") && !ip.isCanonical("2001:DB8::1") && string(ip("10.0.0.1")) == "10.0.0.1" && !isIP("::ffff:1.2.3.4")"#,
        r#"cidr("10.0.0.0/8").containsIP(ip("10.1.2.3")) && cidr("10.0.0.0/8").containsIP("10.1.2.3") && !cidr("10.0.0.0/8").containsIP("11.0.0.1")"#,
        r#"cidr("10.0.0.0/8").containsCIDR("10.1.0.0/16") && !cidr("10.1.0.0/16").containsCIDR(cidr("10.0.0.0/8"))"#,
        r#"cidr("192.168.1.5/24").masked() == cidr("192.168.1.0/24") && cidr("192.168.1.5/24").ip() == ip("192.168.1.5") && cidr("10.0.0.0/8").prefixLength() == 8 && isCIDR("10.0.0.0/8") && !isCIDR("10.0.0.0/33")"#,
        // bindings, optional types, comprehensions
        r#"cel.bind(x, 2, x * x) == 4 && [1, 2, 3].exists(x, x == 2) && [1, 2, 3].map(x, x * 2) == [2, 4, 6] && [1, 2, 3].filter(x, x > 1).size() == 2"#,
        r#"{"a": 1}.?a.orValue(0) == 1 && {"a": 1}.?b.orValue(0) == 0 && optional.of(2).hasValue()"#,
    ] {
        ok(&dev, expression, true);
    }
}

/// Library errors carry upstream's texts.
#[test]
fn library_errors() {
    let dev = Dev::new(DRA);
    eval_err(&dev, r#"sign(quantity("200K")) == 1"#, "unable to parse quantity's suffix");
    eval_err(&dev, r#"quantity("9999999999999999999999999999999999999G").asInteger() == 1"#, "cannot convert value to integer");
    eval_err(&dev, r#"quantity("Three").isInteger()"#, "quantities must match the regular expression");
    eval_err(&dev, r#"semver("v1.0.0").major() == 1"#, "Invalid character(s) found in major number \"v1\"");
    eval_err(&dev, r#"[].max() == 1"#, "max called on empty list");
    eval_err(&dev, r#"ip("::ffff:1.2.3.4").family() == 6"#, "IPv4-mapped IPv6 address \"::ffff:1.2.3.4\" is not allowed");
    // A device whose version attribute does not parse fails every evaluation (compile.go).
    let bad = Dev::new(DRA).attr("v", Version("1.0"));
    eval_err(&bad, "true", "attribute v: parse semantic version: No Major.Minor.Patch elements found");
}

/// What cel-go's checker rejects at compile time, rejected at compile time here too.
#[test]
fn compile_time_checks() {
    compile_err("foo == 1", "undeclared reference to 'foo' (in container '')");
    compile_err("device.foo == 1", "undefined field 'foo'");
    compile_err("nosuch(1)", "undeclared reference to 'nosuch'");
    compile_err(r#""abc".reverse() == "cba" || max(1, 2) == 2"#, "undeclared reference to 'max'");
    compile_err(r#"device.driver"#, "must evaluate to bool or the unknown type, not string");
    compile_err(r#"quantity("1")"#, "must evaluate to bool or the unknown type, not kubernetes.Quantity");
    let long = format!("{}true", " ".repeat(SELECTOR_MAX_LENGTH));
    let err = compile(&long, CelFeatures::default()).unwrap_err();
    assert_eq!(err.kind, CelErrorKind::TooLong);
    // cel-go's rendering: position, source line, caret.
    let err = compile("device.driver == nope", CelFeatures::default()).unwrap_err();
    assert_eq!(
        err.message,
        "compilation failed: ERROR: <input>:1:18: undeclared reference to 'nope' (in container '')\n | device.driver == nope\n | .................^"
    );
}

/// A result that is not a bool fails the evaluation with upstream's text.
#[test]
fn non_bool_results() {
    let dev = Dev::new(DRA).attr("n", Int(3)).attr("s", s("x"));
    eval_err(&dev, r#"device.attributes["dra.example.com"].n"#, "CEL result of type int could not be converted to bool");
    eval_err(&dev, r#"device.attributes["dra.example.com"].s"#, "CEL result of type string could not be converted to bool");
}

/// The selector cache compiles an expression once.
#[test]
fn cache_compiles_once() {
    let mut cache = SelectorCache::new(CelFeatures::default());
    let a = cache.get_or_compile("device.driver == 'x'").unwrap();
    let b = cache.get_or_compile("device.driver == 'x'").unwrap();
    assert!(Arc::ptr_eq(&a, &b));
    assert!(cache.get_or_compile("?!").is_err());
    assert_eq!(cache.len(), 1);
    cache.retain(|_| false);
    assert!(cache.is_empty());
}

/// A missing attribute is an error unless the expression guards it, as upstream.
#[test]
fn missing_attributes_guarded() {
    let dev = Dev::new(DRA).attr("model", s("a100")).cap("memory", "40Gi");
    ok(&dev, r#"has(device.attributes["dra.example.com"].model)"#, true);
    ok(&dev, r#"has(device.attributes["dra.example.com"].other)"#, false);
    ok(&dev, r#"has(device.attributes["other.example.com"].model)"#, false);
    ok(&dev, r#""other" in device.attributes["dra.example.com"]"#, false);
    ok(&dev, r#"device.attributes["dra.example.com"].?other.orValue("x") == "x""#, true);
    ok(&dev, r#"device.attributes["dra.example.com"].?model.orValue("x") == "a100""#, true);
    ok(&dev, r#"device.attributes["other.example.com"].size() == 0 && device.attributes.size() == 1"#, true);
    ok(&dev, r#"device.capacity["dra.example.com"].memory == quantity("40Gi")"#, true);
    eval_err(&dev, r#"device.attributes["dra.example.com"].other == "x""#, "no such key: other");
    // `||` absorbs the error when the other side is true, as in CEL.
    ok(&dev, r#"device.attributes["dra.example.com"].other == "x" || true"#, true);
}

/// Expressions whose cost bound passes the limit run metered; a cheap one stays within it
/// and one that loops long enough is cancelled with upstream's text.
#[test]
fn metered_evaluation() {
    let dev = Dev::new(DRA);
    let cheap = compile("lists.range(10).all(x, x >= 0)", CelFeatures::default()).unwrap();
    assert!(cheap.max_cost() > SELECTOR_MAX_COST, "lists.range has no compile-time size bound");
    let device = CelDevice { driver: DRA, attributes: &[], capacity: &[], allow_multiple_allocations: None };
    assert_eq!(cheap.matches(&device), Ok(true));
    let err = dev.eval("lists.range(2000).all(x, lists.range(2000).all(y, true))").unwrap_err();
    assert_eq!(err.message, "operation cancelled: actual cost limit exceeded");
    // The error is not absorbed by `||`.
    let err = dev.eval("lists.range(2000).all(x, lists.range(2000).all(y, true)) || true").unwrap_err();
    assert_eq!(err.kind, CelErrorKind::CostLimit);
    // A typical selector has a small bound and runs unmetered.
    let typical = compile(
        r#"device.driver == "gpu.example.com" && device.attributes["gpu.example.com"].model == "a100" && device.capacity["gpu.example.com"].memory.compareTo(quantity("40Gi")) >= 0"#,
        CelFeatures::default(),
    )
    .unwrap();
    assert!(typical.max_cost() < 100, "{}", typical.max_cost());
}

/// ext.TwoVarComprehensions (cel-go `ext/comprehensions.go` documentation examples).
#[test]
fn two_variable_comprehensions() {
    let dev = Dev::new(DRA).attr("a", Int(1)).attr("b", Int(2));
    for expression in [
        r#"[1, 2, 3].all(i, v, i < v)"#,
        r#"[1, 2, 3].exists(i, v, i == 1 && v == 2)"#,
        r#"{"a": 1, "b": 2}.existsOne(k, v, v == 2)"#,
        r#"[1, 2, 3].transformList(i, v, i * v) == [0, 2, 6]"#,
        r#"[1, 2, 3].transformList(i, v, i > 0, v) == [2, 3]"#,
        r#"{"a": 1}.transformMap(k, v, v + 1) == {"a": 2}"#,
        r#"{"a": 1, "b": 2}.transformMap(k, v, v > 1, v) == {"b": 2}"#,
        r#"{"a": 1}.transformMapEntry(k, v, {v: k}) == {1: "a"}"#,
        r#"device.attributes["dra.example.com"].all(id, value, value > 0)"#,
    ] {
        ok(&dev, expression, true);
    }
    compile_err("[1].all(x, x, true)", "duplicate variable name");
}
