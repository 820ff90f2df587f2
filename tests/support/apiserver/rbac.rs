//! The RBAC authorizer, evaluated against the store on every call (no cache to go stale), as
//! kube-apiserver's (`plugin/pkg/auth/authorizer/rbac/rbac.go`, kubernetes commit
//! 01aa0f3f6052c9866dcb69054d8924fa8c96e3cb; rule matching from
//! `pkg/apis/rbac/v1/evaluation_helpers.go`, commit 03bf11a309fd1369f5c2dc7f3b31d63a97a14d66;
//! binding resolution from `pkg/registry/rbac/validation/rule.go`, commit
//! 2821f1617e3ce4f4ee17f6d0c770e2abbb5147a5): ClusterRoleBindings grant everywhere, RoleBindings
//! in their namespace; the first rule that allows wins and names its binding in the reason; a
//! binding whose role is missing contributes a `not found` error to a denial's reason.

use super::attributes::RequestInfo;
use super::resources::{find_plural, ResId, RBAC_GROUP};
use super::status::quote;
use super::store::{ObjKey, Store};
use serde_json::Value;

/// The user a decision is about (`user.Info`: name and groups).
#[derive(Debug, Clone, Copy)]
pub struct User<'a> {
    /// User name.
    pub name: &'a str,
    /// Group names.
    pub groups: &'a [String],
}

/// What RBAC says about a request.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Decision {
    /// A rule allows it; the reason names the binding, role and subject that did.
    Allow(String),
    /// No rule allows it; the reason ("" or `RBAC: ...`) lists bindings that could not be resolved.
    NoOpinion(String),
}

/// One `PolicyRule`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PolicyRule {
    /// `verbs` (`*` = all).
    pub verbs: Vec<String>,
    /// `apiGroups` (`*` = all).
    pub api_groups: Vec<String>,
    /// `resources` (`*`, `plural`, `plural/sub`, `*/sub`).
    pub resources: Vec<String>,
    /// `resourceNames` (empty = any name).
    pub resource_names: Vec<String>,
    /// `nonResourceURLs` (`*`, exact, or a prefix ending in `*`).
    pub non_resource_urls: Vec<String>,
}

fn strings(v: &Value) -> Vec<String> {
    v.as_array().map(|a| a.iter().filter_map(|s| s.as_str().map(String::from)).collect()).unwrap_or_default()
}

impl PolicyRule {
    /// The rule as stored in a Role or ClusterRole.
    pub fn from_json(v: &Value) -> PolicyRule {
        PolicyRule {
            verbs: strings(&v["verbs"]),
            api_groups: strings(&v["apiGroups"]),
            resources: strings(&v["resources"]),
            resource_names: strings(&v["resourceNames"]),
            non_resource_urls: strings(&v["nonResourceURLs"]),
        }
    }
}

/// `VerbMatches`.
fn verb_matches(rule: &PolicyRule, verb: &str) -> bool {
    rule.verbs.iter().any(|v| v == "*" || v == verb)
}

/// `APIGroupMatches`.
fn api_group_matches(rule: &PolicyRule, group: &str) -> bool {
    rule.api_groups.iter().any(|g| g == "*" || g == group)
}

/// `ResourceMatches`: `*`, the exact `resource[/subresource]`, or `*/subresource`.
fn resource_matches(rule: &PolicyRule, combined: &str, subresource: &str) -> bool {
    rule.resources.iter().any(|r| {
        r == "*"
            || r == combined
            || (!subresource.is_empty() && r.len() == subresource.len() + 2 && r.starts_with("*/") && r.ends_with(subresource))
    })
}

/// `ResourceNameMatches`: no names means any; otherwise the request must carry one of them (a
/// list or watch without a `metadata.name` field selector carries none).
fn resource_name_matches(rule: &PolicyRule, name: &str) -> bool {
    rule.resource_names.is_empty() || rule.resource_names.iter().any(|n| n == name)
}

/// `NonResourceURLMatches`: `*`, exact, or a prefix ending in `*`.
fn non_resource_url_matches(rule: &PolicyRule, path: &str) -> bool {
    rule.non_resource_urls
        .iter()
        .any(|u| u == "*" || u == path || u.strip_suffix('*').is_some_and(|_| path.starts_with(u.trim_end_matches('*'))))
}

/// `RuleAllows`: whether one rule covers the request.
pub fn rule_allows(attrs: &RequestInfo, rule: &PolicyRule) -> bool {
    if !attrs.is_resource_request {
        return verb_matches(rule, &attrs.verb) && non_resource_url_matches(rule, &attrs.path);
    }
    let combined =
        if attrs.subresource.is_empty() { attrs.resource.clone() } else { format!("{}/{}", attrs.resource, attrs.subresource) };
    verb_matches(rule, &attrs.verb)
        && api_group_matches(rule, &attrs.api_group)
        && resource_matches(rule, &combined, &attrs.subresource)
        && resource_name_matches(rule, &attrs.name)
}

/// `appliesToUser`: a ServiceAccount subject without a namespace takes the binding's.
fn subject_applies(user: User<'_>, subject: &Value, namespace: &str) -> bool {
    let name = subject["name"].as_str().unwrap_or("");
    match subject["kind"].as_str().unwrap_or("") {
        "User" => user.name == name,
        "Group" => user.groups.iter().any(|g| g == name),
        "ServiceAccount" => {
            let ns = subject["namespace"].as_str().filter(|n| !n.is_empty()).unwrap_or(namespace);
            !ns.is_empty() && user.name == format!("system:serviceaccount:{ns}:{name}")
        }
        _ => false,
    }
}

/// `appliesTo`: the index of the first subject that is this user.
fn applies_to(user: User<'_>, subjects: &Value, namespace: &str) -> Option<usize> {
    subjects.as_array()?.iter().position(|s| subject_applies(user, s, namespace))
}

/// `describeSubject`: `User "x"`, `Group "x"`, `ServiceAccount "name/namespace"`.
fn describe_subject(subject: &Value, binding_namespace: &str) -> String {
    let kind = subject["kind"].as_str().unwrap_or("");
    let name = subject["name"].as_str().unwrap_or("");
    if kind == "ServiceAccount" {
        let ns = subject["namespace"].as_str().filter(|n| !n.is_empty()).unwrap_or(binding_namespace);
        return format!("{kind} {}", quote(&format!("{name}/{ns}")));
    }
    format!("{kind} {}", quote(name))
}

/// The RBAC resources the authorizer reads.
struct Tables {
    cluster_roles: ResId,
    cluster_role_bindings: ResId,
    roles: ResId,
    role_bindings: ResId,
}

fn tables() -> Tables {
    let id = |plural| find_plural(RBAC_GROUP, plural).expect("RBAC resources are in the resource table");
    Tables {
        cluster_roles: id("clusterroles"),
        cluster_role_bindings: id("clusterrolebindings"),
        roles: id("roles"),
        role_bindings: id("rolebindings"),
    }
}

/// `GetRoleReferenceRules`: the rules of the role a binding refers to, or the lister's
/// NotFound text when it does not exist.
fn role_rules(store: &Store, t: &Tables, role_ref: &Value, binding_namespace: &str) -> Result<Vec<PolicyRule>, String> {
    let name = role_ref["name"].as_str().unwrap_or("");
    let (key, what) = match role_ref["kind"].as_str().unwrap_or("") {
        "Role" => (ObjKey::new(t.roles, binding_namespace, name), "role"),
        "ClusterRole" => (ObjKey::new(t.cluster_roles, "", name), "clusterrole"),
        other => return Err(format!("unsupported role reference kind: {}", quote(other))),
    };
    let role = store.get(&key).ok_or_else(|| format!("{what}.{RBAC_GROUP} {} not found", quote(name)))?;
    Ok(role["rules"].as_array().map(|rules| rules.iter().map(PolicyRule::from_json).collect()).unwrap_or_default())
}

/// `utilerrors.NewAggregate(errs).Error()`: one message as is, several deduplicated in brackets
/// ("" for none).
fn aggregate(errors: &[String]) -> String {
    let mut seen: Vec<&str> = Vec::new();
    for e in errors {
        if !seen.contains(&e.as_str()) {
            seen.push(e);
        }
    }
    if seen.len() <= 1 {
        return seen.concat();
    }
    format!("[{}]", seen.join(", "))
}

/// Every binding that applies to `user` for a request in `namespace` ("" = cluster scope): the
/// cluster role bindings, then that namespace's role bindings (`VisitRulesFor`), each with its
/// `RBAC: allowed by ...` description and its role's rules or the error resolving them.
fn applicable_bindings(store: &Store, user: User<'_>, namespace: &str) -> Vec<(String, Result<Vec<PolicyRule>, String>)> {
    let t = tables();
    let mut out = Vec::new();
    for (_, binding) in store.objects_of(t.cluster_role_bindings, None) {
        let Some(i) = applies_to(user, &binding["subjects"], "") else { continue };
        let source = format!(
            "ClusterRoleBinding {} of {} {} to {}",
            quote(binding["metadata"]["name"].as_str().unwrap_or("")),
            binding["roleRef"]["kind"].as_str().unwrap_or(""),
            quote(binding["roleRef"]["name"].as_str().unwrap_or("")),
            describe_subject(&binding["subjects"][i], "")
        );
        out.push((source, role_rules(store, &t, &binding["roleRef"], "")));
    }
    if !namespace.is_empty() {
        for (_, binding) in store.objects_of(t.role_bindings, Some(namespace)) {
            let Some(i) = applies_to(user, &binding["subjects"], namespace) else { continue };
            let source = format!(
                "RoleBinding {} of {} {} to {}",
                quote(&format!("{}/{namespace}", binding["metadata"]["name"].as_str().unwrap_or(""))),
                binding["roleRef"]["kind"].as_str().unwrap_or(""),
                quote(binding["roleRef"]["name"].as_str().unwrap_or("")),
                describe_subject(&binding["subjects"][i], namespace)
            );
            out.push((source, role_rules(store, &t, &binding["roleRef"], namespace)));
        }
    }
    out
}

/// Authorize `attrs` for `user`: the first rule of an applicable binding that allows wins.
pub fn authorize(store: &Store, user: User<'_>, attrs: &RequestInfo) -> Decision {
    let mut errors = Vec::new();
    for (source, rules) in applicable_bindings(store, user, &attrs.namespace) {
        match rules {
            Ok(rules) if rules.iter().any(|r| rule_allows(attrs, r)) => {
                return Decision::Allow(format!("RBAC: allowed by {source}"))
            }
            Ok(_) => {}
            Err(e) => errors.push(e),
        }
    }
    Decision::NoOpinion(if errors.is_empty() { String::new() } else { format!("RBAC: {}", aggregate(&errors)) })
}

/// `RulesFor`: every rule `user` holds in `namespace`, and the errors resolving them (as one
/// aggregated message, "" if none).
pub fn rules_for(store: &Store, user: User<'_>, namespace: &str) -> (Vec<PolicyRule>, String) {
    let mut rules = Vec::new();
    let mut errors = Vec::new();
    for (_, r) in applicable_bindings(store, user, namespace) {
        match r {
            Ok(r) => rules.extend(r),
            Err(e) => errors.push(e),
        }
    }
    (rules, aggregate(&errors))
}

/// The rules of the role `role_ref` names, for a binding in `binding_namespace`
/// (`GetRoleReferenceRules`); `Err` is the lister's NotFound text.
pub fn role_reference_rules(store: &Store, role_ref: &Value, binding_namespace: &str) -> Result<Vec<PolicyRule>, String> {
    role_rules(store, &tables(), role_ref, binding_namespace)
}

#[cfg(test)]
mod tests {
    //! Cases transcribed from upstream: `TestAuthorizer` and `TestRuleMatches` of
    //! `plugin/pkg/auth/authorizer/rbac/rbac_test.go` (kubernetes commit
    //! 90d6cfcf171c057ad95e62eff091e3d13d3bfed5) and `TestAppliesTo` of
    //! `pkg/registry/rbac/validation/rule_test.go` (commit
    //! fde22c3f9aacfd260225a9741de123a41157b7c0). Upstream has no `evaluation_helpers_test.go`;
    //! resourceNames and the reason texts are pinned by the cases after those.

    use super::*;
    use serde_json::json;

    fn rbac(plural: &str) -> ResId {
        find_plural(RBAC_GROUP, plural).unwrap()
    }

    /// `newRule(verbs, apiGroups, resources, nonResourceURLs)`: comma lists, as upstream splits them.
    fn new_rule(verbs: &str, groups: &str, resources: &str, urls: &str) -> Value {
        fn split(s: &str) -> Vec<&str> {
            s.split(',').collect()
        }
        json!({"verbs": split(verbs), "apiGroups": split(groups), "resources": split(resources), "nonResourceURLs": split(urls)})
    }

    /// `Kind:name` subjects, as upstream's helpers parse them.
    fn subjects(list: &[&str]) -> Value {
        let subjects: Vec<Value> = list
            .iter()
            .map(|s| {
                let (kind, name) = s.split_once(':').unwrap();
                json!({"kind": kind, "name": name})
            })
            .collect();
        json!(subjects)
    }

    #[derive(Default)]
    struct Fixture {
        store: Option<Store>,
        n: usize,
    }

    impl Fixture {
        fn store(&mut self) -> &mut Store {
            self.store.get_or_insert_with(|| Store::new(1000))
        }

        fn cluster_role(&mut self, name: &str, rules: Vec<Value>) -> &mut Self {
            let obj = json!({"metadata": {"name": name}, "rules": rules});
            self.store().insert(ObjKey::new(rbac("clusterroles"), "", name), obj);
            self
        }

        fn role(&mut self, ns: &str, name: &str, rules: Vec<Value>) -> &mut Self {
            let obj = json!({"metadata": {"name": name, "namespace": ns}, "rules": rules});
            self.store().insert(ObjKey::new(rbac("roles"), ns, name), obj);
            self
        }

        /// Upstream's bindings are unnamed; a store needs distinct names.
        fn next_name(&mut self) -> String {
            self.n += 1;
            format!("binding-{}", self.n)
        }

        fn cluster_role_binding(&mut self, role: &str, who: &[&str]) -> &mut Self {
            let name = self.next_name();
            let obj = json!({"metadata": {"name": name}, "roleRef": {"apiGroup": RBAC_GROUP, "kind": "ClusterRole", "name": role}, "subjects": subjects(who)});
            self.store().insert(ObjKey::new(rbac("clusterrolebindings"), "", &name), obj);
            self
        }

        fn role_binding(&mut self, ns: &str, role_kind: &str, role: &str, who: &[&str]) -> &mut Self {
            let name = self.next_name();
            let obj = json!({"metadata": {"name": name, "namespace": ns}, "roleRef": {"apiGroup": RBAC_GROUP, "kind": role_kind, "name": role}, "subjects": subjects(who)});
            self.store().insert(ObjKey::new(rbac("rolebindings"), ns, &name), obj);
            self
        }

        fn allowed(&mut self, user: &str, groups: &[&str], attrs: &RequestInfo) -> bool {
            let groups: Vec<String> = groups.iter().map(|g| g.to_string()).collect();
            matches!(authorize(self.store(), User { name: user, groups: &groups }, attrs), Decision::Allow(_))
        }
    }

    /// upstream's `defaultAttributes{user, groups, verb, resource, subresource, namespace, apiGroup}`.
    fn resource_attrs(verb: &str, resource: &str, sub: &str, ns: &str, group: &str) -> RequestInfo {
        RequestInfo {
            is_resource_request: true,
            verb: verb.into(),
            resource: resource.into(),
            subresource: sub.into(),
            namespace: ns.into(),
            api_group: group.into(),
            ..RequestInfo::default()
        }
    }

    fn path_attrs(verb: &str, path: &str) -> RequestInfo {
        RequestInfo { verb: verb.into(), path: path.into(), ..RequestInfo::default() }
    }

    /// `strings.Split(groups, ",")`, which yields `[""]` for "".
    fn groups(s: &str) -> Vec<&str> {
        s.split(',').collect()
    }

    #[test]
    fn authorizer_role_binding_to_a_cluster_role_grants_in_its_namespace_only() {
        let mut f = Fixture::default();
        f.cluster_role("admin", vec![new_rule("*", "*", "*", "*")]);
        f.role_binding("ns1", "ClusterRole", "admin", &["User:admin", "Group:admins"]);
        for (user, g, verb, res) in [
            ("admin", "", "get", "Pods"),
            ("admin", "", "watch", "Pods"),
            ("admin", "group1", "watch", "Foobar"),
            ("joe", "admins", "watch", "Foobar"),
            ("joe", "group1,admins", "watch", "Foobar"),
        ] {
            assert!(f.allowed(user, &groups(g), &resource_attrs(verb, res, "", "ns1", "")), "{user} {verb} {res}");
        }
        for (user, g, verb, res, ns) in [
            ("admin", "", "GET", "Pods", "ns2"),
            ("admin", "", "GET", "Nodes", ""),
            ("admin", "admins", "GET", "Pods", "ns2"),
            ("admin", "admins", "GET", "Nodes", ""),
        ] {
            assert!(!f.allowed(user, &groups(g), &resource_attrs(verb, res, "", ns, "")), "{user} {verb} {res} {ns}");
        }
    }

    #[test]
    fn authorizer_non_resource_urls() {
        let mut f = Fixture::default();
        f.cluster_role("non-resource-url-getter", vec![new_rule("get", "", "", "/apis")])
            .cluster_role("non-resource-url", vec![new_rule("*", "", "", "/apis")])
            .cluster_role("non-resource-url-prefix", vec![new_rule("get", "", "", "/apis/*")])
            .cluster_role_binding("non-resource-url-getter", &["User:foo", "Group:bar"])
            .cluster_role_binding("non-resource-url", &["User:admin", "Group:admin"])
            .cluster_role_binding("non-resource-url-prefix", &["User:prefixed", "Group:prefixed"]);
        // (user, group, verb, path)
        let pass = [
            ("foo", "", "get", "/apis"),
            ("", "bar", "get", "/apis"),
            ("admin", "", "get", "/apis"),
            ("", "admin", "get", "/apis"),
            ("admin", "", "watch", "/apis"),
            ("", "admin", "watch", "/apis"),
            ("prefixed", "", "get", "/apis/v1"),
            ("", "prefixed", "get", "/apis/v1"),
            ("prefixed", "", "get", "/apis/v1/foobar"),
            ("", "prefixed", "get", "/apis/v1/foorbar"),
        ];
        let fail = [
            // wrong verb
            ("foo", "", "watch", "/apis"),
            ("", "bar", "watch", "/apis"),
            // wrong path
            ("foo", "", "get", "/api/v1"),
            ("", "bar", "get", "/api/v1"),
            ("admin", "", "get", "/api/v1"),
            ("", "admin", "get", "/api/v1"),
            // not covered by prefix
            ("prefixed", "", "get", "/api/v1"),
            ("", "prefixed", "get", "/api/v1"),
        ];
        let user_groups = |g: &'static str| if g.is_empty() { vec![] } else { vec![g] };
        for (user, g, verb, path) in pass {
            assert!(f.allowed(user, &user_groups(g), &path_attrs(verb, path)), "{user}/{g} {verb} {path}");
        }
        for (user, g, verb, path) in fail {
            assert!(!f.allowed(user, &user_groups(g), &path_attrs(verb, path)), "{user}/{g} {verb} {path}");
        }
    }

    #[test]
    fn authorizer_subresources_need_their_own_rule() {
        let mut f = Fixture::default();
        f.cluster_role("admin", vec![new_rule("*", "*", "pods", "*")]);
        f.role_binding("ns1", "ClusterRole", "admin", &["User:admin", "Group:admins"]);
        assert!(f.allowed("admin", &[""], &resource_attrs("get", "pods", "", "ns1", "")));
        assert!(!f.allowed("admin", &[""], &resource_attrs("get", "pods", "status", "ns1", "")));

        let mut f = Fixture::default();
        f.cluster_role("admin", vec![new_rule("*", "*", "pods/status", "*"), new_rule("*", "*", "*/scale", "*")]);
        f.role_binding("ns1", "ClusterRole", "admin", &["User:admin", "Group:admins"]);
        for (res, sub) in [("pods", "status"), ("pods", "scale"), ("deployments", "scale"), ("anything", "scale")] {
            assert!(f.allowed("admin", &[""], &resource_attrs("get", res, sub, "ns1", "")), "{res}/{sub}");
        }
        assert!(!f.allowed("admin", &[""], &resource_attrs("get", "pods", "", "ns1", "")));
    }

    fn rule(verbs: &[&str], groups: &[&str], resources: &[&str], urls: &[&str]) -> PolicyRule {
        let v = |l: &[&str]| l.iter().map(|s| s.to_string()).collect();
        PolicyRule {
            verbs: v(verbs),
            api_groups: v(groups),
            resources: v(resources),
            resource_names: vec![],
            non_resource_urls: v(urls),
        }
    }

    fn res_req(verb: &str, group: &str, resource: &str, sub: &str) -> RequestInfo {
        RequestInfo { api_group: group.into(), ..resource_attrs(verb, resource, sub, "", group) }
    }

    /// Upstream's 8-request grid over verb1/2 × group1/2 × resource1/2, in its order.
    fn grid() -> Vec<RequestInfo> {
        let mut out = Vec::new();
        for verb in ["verb1", "verb2"] {
            for (group, resource) in
                [("group1", "resource1"), ("group2", "resource1"), ("group1", "resource2"), ("group2", "resource2")]
            {
                out.push(res_req(verb, group, resource, ""));
            }
        }
        out
    }

    /// (name, rule, [(verb, url, allowed)])
    type UrlCase = (&'static str, PolicyRule, &'static [(&'static str, &'static str, bool)]);

    /// (subjects, (user, groups), namespace, index, case)
    type AppliesCase = (Value, (&'static str, Vec<String>), &'static str, Option<usize>, &'static str);

    #[test]
    fn rule_matches() {
        let cases: [(&str, PolicyRule, [bool; 8]); 4] = [
            (
                "star verb, exact match other",
                rule(&["*"], &["group1"], &["resource1"], &[]),
                [true, false, false, false, true, false, false, false],
            ),
            (
                "star group, exact match other",
                rule(&["verb1"], &["*"], &["resource1"], &[]),
                [true, true, false, false, false, false, false, false],
            ),
            (
                "star resource, exact match other",
                rule(&["verb1"], &["group1"], &["*"], &[]),
                [true, false, true, false, false, false, false, false],
            ),
            ("tuple expansion", rule(&["verb1", "verb2"], &["group1", "group2"], &["resource1", "resource2"], &[]), [true; 8]),
        ];
        for (name, r, expected) in cases {
            for (req, want) in grid().iter().zip(expected) {
                assert_eq!(rule_allows(req, &r), want, "{name}: {req:?}");
            }
        }

        let r = rule(&["*"], &["*"], &["resource1/subresource1"], &[]);
        let sub_cases = [
            (res_req("verb1", "group1", "resource1", "subresource1"), true),
            (res_req("verb1", "group2", "resource1", "subresource2"), false),
            (res_req("verb1", "group1", "resource2", "subresource1"), false),
            (res_req("verb1", "group2", "resource2", "subresource1"), false),
            (res_req("verb2", "group1", "resource1", "subresource1"), true),
            (res_req("verb2", "group2", "resource1", "subresource2"), false),
            (res_req("verb2", "group1", "resource2", "subresource1"), false),
            (res_req("verb2", "group2", "resource2", "subresource1"), false),
        ];
        for (req, want) in sub_cases {
            assert_eq!(rule_allows(&req, &r), want, "subresource expansion: {req:?}");
        }

        let urls = ["/foo", "/foo/bar", "/foo/baz", "/foo/bar/one", "/foo/baz/one"];
        let url_cases: [UrlCase; 3] = [
            (
                "star nonresource, exact match other",
                rule(&["verb1"], &[], &[], &["*"]),
                &[("verb1", "*", true), ("verb2", "*", false)],
            ),
            (
                "star nonresource subpath",
                rule(&["verb1"], &[], &[], &["/foo/*"]),
                &[
                    ("verb1", "/foo", false),
                    ("verb1", "/foo/bar", true),
                    ("verb1", "/foo/baz", true),
                    ("verb1", "/foo/bar/one", true),
                    ("verb1", "/foo/baz/one", true),
                    ("verb1", "/notfoo", false),
                    ("verb1", "/notfoo/bar", false),
                    ("verb1", "/notfoo/baz", false),
                    ("verb1", "/notfoo/bar/one", false),
                    ("verb1", "/notfoo/baz/one", false),
                ],
            ),
            (
                "star verb, exact nonresource",
                rule(&["*"], &[], &[], &["/foo", "/foo/bar/one"]),
                &[
                    ("verb1", "/foo", true),
                    ("verb1", "/foo/bar", false),
                    ("verb1", "/foo/baz", false),
                    ("verb1", "/foo/bar/one", true),
                    ("verb1", "/foo/baz/one", false),
                    ("verb2", "/foo", true),
                    ("verb2", "/foo/bar", false),
                    ("verb2", "/foo/baz", false),
                    ("verb2", "/foo/bar/one", true),
                    ("verb2", "/foo/baz/one", false),
                ],
            ),
        ];
        for (name, r, reqs) in url_cases {
            for &(verb, url, want) in reqs {
                // "*" stands for every URL of upstream's list (the star-URL case checks all five).
                let targets: Vec<&str> = if url == "*" { urls.to_vec() } else { vec![url] };
                for u in targets {
                    assert_eq!(rule_allows(&path_attrs(verb, u), &r), want, "{name}: {verb} {u}");
                }
            }
        }
    }

    #[test]
    fn applies_to() {
        let user = |name: &'static str, groups: &'static [&'static str]| {
            (name, groups.iter().map(|g| g.to_string()).collect::<Vec<_>>())
        };
        // (subjects, (user, groups), namespace, index)
        let cases: Vec<AppliesCase> = vec![
            (
                json!([{"kind": "User", "name": "foobar"}]),
                user("foobar", &[]),
                "",
                Some(0),
                "single subject that matches username",
            ),
            (
                json!([{"kind": "User", "name": "barfoo"}, {"kind": "User", "name": "foobar"}]),
                user("foobar", &[]),
                "",
                Some(1),
                "multiple subjects, one that matches username",
            ),
            (
                json!([{"kind": "User", "name": "barfoo"}, {"kind": "User", "name": "foobar"}]),
                user("zimzam", &[]),
                "",
                None,
                "multiple subjects, none that match username",
            ),
            (
                json!([{"kind": "User", "name": "barfoo"}, {"kind": "Group", "name": "foobar"}]),
                user("zimzam", &["foobar"]),
                "",
                Some(1),
                "multiple subjects, one that match group",
            ),
            (
                json!([{"kind": "User", "name": "barfoo"}, {"kind": "Group", "name": "foobar"}]),
                user("zimzam", &["foobar"]),
                "namespace1",
                Some(1),
                "multiple subjects, one that match group, should ignore namespace",
            ),
            (
                json!([{"kind": "User", "name": "barfoo"}, {"kind": "Group", "name": "foobar"}, {"kind": "ServiceAccount", "namespace": "kube-system", "name": "default"}]),
                user("system:serviceaccount:kube-system:default", &[]),
                "default",
                Some(2),
                "multiple subjects with a service account that matches",
            ),
            (
                json!([{"kind": "User", "name": "*"}]),
                user("foobar", &[]),
                "default",
                None,
                "* user subject name doesn't match all users",
            ),
            (
                json!([{"kind": "Group", "name": "system:authenticated"}, {"kind": "Group", "name": "system:unauthenticated"}]),
                user("foobar", &["system:authenticated"]),
                "default",
                Some(0),
                "binding to all authenticated and unauthenticated subjects matches authenticated user",
            ),
            (
                json!([{"kind": "Group", "name": "system:authenticated"}, {"kind": "Group", "name": "system:unauthenticated"}]),
                user("system:anonymous", &["system:unauthenticated"]),
                "default",
                Some(1),
                "binding to all authenticated and unauthenticated subjects matches anonymous user",
            ),
        ];
        for (subjects, (name, groups), ns, want, case) in cases {
            assert_eq!(super::applies_to(User { name, groups: &groups }, &subjects, ns), want, "{case}");
        }
    }

    #[test]
    fn service_account_subjects_default_to_the_binding_namespace_only_in_role_bindings() {
        let sa = json!([{"kind": "ServiceAccount", "name": "builder"}]);
        let groups = vec![];
        let user = User { name: "system:serviceaccount:ci:builder", groups: &groups };
        assert_eq!(super::applies_to(user, &sa, "ci"), Some(0));
        assert_eq!(super::applies_to(user, &sa, "other"), None);
        assert_eq!(super::applies_to(user, &sa, ""), None, "a cluster role binding has no namespace to default to");
    }

    fn named(verb: &str, resource: &str, name: &str) -> RequestInfo {
        RequestInfo { name: name.into(), ..resource_attrs(verb, resource, "", "kube-system", "coordination.k8s.io") }
    }

    #[test]
    fn resource_names_restrict_to_named_requests() {
        let mut r = rule(&["get", "list", "watch", "update"], &["coordination.k8s.io"], &["leases"], &[]);
        r.resource_names = vec!["kube-scheduler".into()];
        assert!(rule_allows(&named("get", "leases", "kube-scheduler"), &r));
        assert!(!rule_allows(&named("get", "leases", "edgesched"), &r));
        assert!(!rule_allows(&named("list", "leases", ""), &r), "a list without a metadata.name selector names nothing");
        assert!(rule_allows(&named("watch", "leases", "kube-scheduler"), &r), "a watch pinned by field selector");
        assert!(!rule_allows(&named("create", "leases", ""), &r));
    }

    #[test]
    fn reasons_name_the_binding_or_the_missing_roles() {
        let mut f = Fixture::default();
        f.cluster_role("reader", vec![new_rule("get", "", "pods", "")]);
        f.cluster_role_binding("reader", &["User:alice"]);
        f.role_binding("team", "ClusterRole", "reader", &["ServiceAccount:bot"]);
        f.cluster_role_binding("gone", &["User:bob"]);
        f.role_binding("team", "Role", "vanished", &["User:bob"]);
        f.role_binding("team", "Role", "vanished", &["Group:devs"]);
        let none: Vec<String> = vec![];
        let devs = vec!["devs".to_string()];
        let get = resource_attrs("get", "pods", "", "team", "");
        let decide = |f: &mut Fixture, name: &str, groups: &[String]| authorize(f.store(), User { name, groups }, &get);
        assert_eq!(
            decide(&mut f, "alice", &none),
            Decision::Allow(
                "RBAC: allowed by ClusterRoleBinding \"binding-1\" of ClusterRole \"reader\" to User \"alice\"".into()
            )
        );
        assert_eq!(
            decide(&mut f, "system:serviceaccount:team:bot", &none),
            Decision::Allow(
                "RBAC: allowed by RoleBinding \"binding-2/team\" of ClusterRole \"reader\" to ServiceAccount \"bot/team\"".into()
            )
        );
        assert_eq!(
            decide(&mut f, "bob", &none),
            Decision::NoOpinion("RBAC: [clusterrole.rbac.authorization.k8s.io \"gone\" not found, role.rbac.authorization.k8s.io \"vanished\" not found]".into())
        );
        assert_eq!(
            decide(&mut f, "bob", &devs),
            Decision::NoOpinion("RBAC: [clusterrole.rbac.authorization.k8s.io \"gone\" not found, role.rbac.authorization.k8s.io \"vanished\" not found]".into()),
            "the same missing role twice is reported once"
        );
        assert_eq!(
            decide(&mut f, "carol", &devs),
            Decision::NoOpinion("RBAC: role.rbac.authorization.k8s.io \"vanished\" not found".into())
        );
        assert_eq!(decide(&mut f, "dave", &none), Decision::NoOpinion(String::new()));
        f.role("team", "vanished", vec![new_rule("get", "", "pods", "")]);
        assert!(f.allowed("carol", &["devs"], &get), "a role created later takes effect at once");
    }
}
