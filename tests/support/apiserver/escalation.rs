//! RBAC's privilege-escalation prevention, which kube-apiserver enforces in the storage of the
//! RBAC resources whatever the authorizer (`pkg/registry/rbac/escalation_check.go`, the
//! `role|clusterrole|rolebinding|clusterrolebinding/policybased/storage.go` files,
//! `ConfirmNoEscalation` in `pkg/registry/rbac/validation/rule.go`, `Covers` in
//! `policy_comparator.go` at kubernetes commit 48e8ef566e4a0ac4e2990d7b63704ffe12926cec with
//! upstream's later `resourceCoversAll`, and `CompactRules` in `policy_compact.go` at commit
//! 490ffa432a878f5a75e5b5906d820d06e672556e): writing a role needs every permission it grants
//! (or `escalate` on it), writing a binding needs the bound role's permissions (or `bind` on it);
//! `system:masters` may do either.

use super::attributes::RequestInfo;
use super::auth::MASTERS_GROUP;
use super::authz::{self, Authorization};
use super::rbac::{self, PolicyRule, User};
use super::resources::{ResourceType, RBAC_GROUP};
use super::status::{self, quote, ApiError};
use super::store::Store;
use serde_json::Value;

/// `BreakdownRule`: one rule per verb × group × resource (× name), then per URL × verb.
fn breakdown(rule: &PolicyRule) -> Vec<PolicyRule> {
    let one = |s: &String| vec![s.clone()];
    let mut out = Vec::new();
    for group in &rule.api_groups {
        for resource in &rule.resources {
            for verb in &rule.verbs {
                let base =
                    PolicyRule { verbs: one(verb), api_groups: one(group), resources: one(resource), ..PolicyRule::default() };
                if rule.resource_names.is_empty() {
                    out.push(base);
                } else {
                    out.extend(rule.resource_names.iter().map(|n| PolicyRule { resource_names: one(n), ..base.clone() }));
                }
            }
        }
    }
    for url in &rule.non_resource_urls {
        for verb in &rule.verbs {
            out.push(PolicyRule { verbs: one(verb), non_resource_urls: one(url), ..PolicyRule::default() });
        }
    }
    out
}

fn has(set: &[String], s: &str) -> bool {
    set.iter().any(|x| x == s)
}

fn has_all(set: &[String], wanted: &[String]) -> bool {
    wanted.iter().all(|w| has(set, w))
}

/// `resourceCoversAll`: `*`, exact names, or `*/subresource` for subresources.
fn resources_cover_all(set: &[String], wanted: &[String]) -> bool {
    has(set, "*") || wanted.iter().all(|w| has(set, w) || w.split_once('/').is_some_and(|(_, sub)| has(set, &format!("*/{sub}"))))
}

/// `nonResourceURLsCoversAll`: exact, or an owner URL ending in `*` covering the prefix.
fn urls_cover_all(set: &[String], wanted: &[String]) -> bool {
    wanted
        .iter()
        .all(|w| set.iter().any(|o| o == w || o.strip_suffix('*').is_some_and(|_| w.starts_with(o.trim_end_matches('*')))))
}

/// `ruleCovers`: whether `owner` covers the atomic `sub` rule.
fn rule_covers(owner: &PolicyRule, sub: &PolicyRule) -> bool {
    let names = if sub.resource_names.is_empty() {
        owner.resource_names.is_empty()
    } else {
        owner.resource_names.is_empty() || has_all(&owner.resource_names, &sub.resource_names)
    };
    (has(&owner.verbs, "*") || has_all(&owner.verbs, &sub.verbs))
        && (has(&owner.api_groups, "*") || has_all(&owner.api_groups, &sub.api_groups))
        && resources_cover_all(&owner.resources, &sub.resources)
        && names
        && urls_cover_all(&owner.non_resource_urls, &sub.non_resource_urls)
}

/// `Covers`: the atomic parts of `servant` that no `owner` rule covers (empty = covered).
pub fn uncovered(owner: &[PolicyRule], servant: &[PolicyRule]) -> Vec<PolicyRule> {
    servant.iter().flat_map(breakdown).filter(|sub| !owner.iter().any(|o| rule_covers(o, sub))).collect()
}

/// `CompactRules`: merge single-group, single-resource, at-most-one-name rules that differ only
/// by verb.
fn compact(rules: Vec<PolicyRule>) -> Vec<PolicyRule> {
    let mut out: Vec<PolicyRule> = Vec::new();
    let mut simple: Vec<PolicyRule> = Vec::new();
    for rule in rules {
        let is_simple = rule.resource_names.len() <= 1
            && rule.non_resource_urls.is_empty()
            && rule.api_groups.len() == 1
            && rule.resources.len() == 1;
        if !is_simple {
            out.push(rule);
            continue;
        }
        match simple
            .iter_mut()
            .find(|s| s.api_groups == rule.api_groups && s.resources == rule.resources && s.resource_names == rule.resource_names)
        {
            Some(existing) => existing.verbs.extend(rule.verbs),
            None => simple.push(rule),
        }
    }
    out.extend(simple);
    out
}

/// Go's `%q` of a `[]string`: `["a" "b"]`.
fn quote_list(items: &[String]) -> String {
    format!("[{}]", items.iter().map(|s| quote(s)).collect::<Vec<_>>().join(" "))
}

/// `rbacv1helpers.CompactString`: `{APIGroups:["g"], Resources:["r"], Verbs:["get"]}`.
fn compact_string(r: &PolicyRule) -> String {
    let fields = [
        ("APIGroups", &r.api_groups),
        ("Resources", &r.resources),
        ("NonResourceURLs", &r.non_resource_urls),
        ("ResourceNames", &r.resource_names),
        ("Verbs", &r.verbs),
    ];
    let parts: Vec<String> =
        fields.iter().filter(|(_, v)| !v.is_empty()).map(|(name, v)| format!("{name}:{}", quote_list(v))).collect();
    format!("{{{}}}", parts.join(", "))
}

/// `ConfirmNoEscalation`: `Err` with upstream's message when `user` does not hold every rule of
/// `rules` in `namespace`.
fn confirm_no_escalation(store: &Store, user: User<'_>, namespace: &str, rules: &[PolicyRule]) -> Result<(), String> {
    let (owner, resolution_errors) = rbac::rules_for(store, user, namespace);
    let missing = uncovered(&owner, rules);
    if missing.is_empty() {
        return Ok(());
    }
    let mut lines: Vec<String> = compact(missing).iter().map(compact_string).collect();
    lines.sort();
    lines.dedup();
    let mut msg = format!(
        "user {} (groups={}) is attempting to grant RBAC permissions not currently held:\n{}",
        quote(user.name),
        quote_list(user.groups),
        lines.join("\n")
    );
    if !resolution_errors.is_empty() {
        msg.push_str(&format!("; resolution errors: [{resolution_errors}]"));
    }
    Err(msg)
}

/// Whether the authorizer chain lets `user` use `verb` (`escalate`, `bind`) on the RBAC
/// resource `resource` named `name` in `namespace`.
fn authorized(
    store: &Store,
    mode: Authorization,
    user: User<'_>,
    verb: &str,
    resource: &str,
    namespace: &str,
    name: &str,
) -> bool {
    let attrs = RequestInfo {
        is_resource_request: true,
        verb: verb.into(),
        api_group: RBAC_GROUP.into(),
        api_version: "*".into(),
        namespace: namespace.into(),
        resource: resource.into(),
        name: name.into(),
        ..RequestInfo::default()
    };
    authz::decide(store, mode, user, &attrs).0
}

/// `IsOnlyMutatingGCFields`: an update that changes nothing but owner references and finalizers
/// needs no escalation check.
fn only_gc_fields_change(old: &Value, new: &Value) -> bool {
    let mut copied = new.clone();
    for field in ["ownerReferences", "finalizers", "managedFields", "selfLink"] {
        match old["metadata"].get(field) {
            Some(v) => copied["metadata"][field] = v.clone(),
            None => {
                if let Some(m) = copied["metadata"].as_object_mut() {
                    m.remove(field);
                }
            }
        }
    }
    &copied == old
}

fn rules_of(obj: &Value) -> Vec<PolicyRule> {
    obj["rules"].as_array().map(|a| a.iter().map(PolicyRule::from_json).collect()).unwrap_or_default()
}

/// Every verb on everything, which an `aggregationRule` may gather.
fn full_authority() -> Vec<PolicyRule> {
    let all = || vec!["*".to_string()];
    vec![
        PolicyRule { verbs: all(), api_groups: all(), resources: all(), ..PolicyRule::default() },
        PolicyRule { verbs: all(), non_resource_urls: all(), ..PolicyRule::default() },
    ]
}

/// The NotFound a binding to a missing role gets from `GetRoleReferenceRules`.
fn role_not_found(role_ref: &Value) -> ApiError {
    let kind = if role_ref["kind"] == "Role" { "role" } else { "clusterrole" };
    status::not_found_in(RBAC_GROUP, kind, role_ref["name"].as_str().unwrap_or(""))
}

/// Check a create (`old` None) or update of `new` in RBAC resource `res`, in `namespace`, by
/// `user`. Other resources always pass.
pub fn check(
    store: &Store,
    mode: Authorization,
    user: User<'_>,
    res: &ResourceType,
    namespace: &str,
    old: Option<&Value>,
    new: &Value,
) -> Result<(), ApiError> {
    if res.group != RBAC_GROUP || user.groups.iter().any(|g| g == MASTERS_GROUP) {
        return Ok(());
    }
    if old.is_some_and(|old| only_gc_fields_change(old, new)) {
        return Ok(());
    }
    let name = new["metadata"]["name"].as_str().unwrap_or("");
    let forbidden = |why: String| status::forbidden(res, name, &why);
    match res.plural {
        "roles" | "clusterroles" => {
            let escalate_ok = authorized(store, mode, user, "escalate", res.plural, namespace, name);
            if !escalate_ok {
                confirm_no_escalation(store, user, namespace, &rules_of(new)).map_err(forbidden)?;
            }
            if res.plural == "clusterroles" && new.get("aggregationRule").is_some_and(|a| !a.is_null()) {
                confirm_no_escalation(store, user, namespace, &full_authority())
                    .map_err(|_| forbidden("must have cluster-admin privileges to use the aggregationRule".into()))?;
            }
            Ok(())
        }
        "rolebindings" | "clusterrolebindings" => {
            let role_ref = &new["roleRef"];
            let role_resource = match role_ref["kind"].as_str() {
                Some("ClusterRole") => "clusterroles",
                Some("Role") => "roles",
                _ => "",
            };
            let ref_name = role_ref["name"].as_str().unwrap_or("");
            if !role_resource.is_empty() && authorized(store, mode, user, "bind", role_resource, namespace, ref_name) {
                return Ok(());
            }
            let rules = match rbac::role_reference_rules(store, role_ref, namespace) {
                Ok(rules) => rules,
                Err(_) if !role_resource.is_empty() => return Err(role_not_found(role_ref)),
                Err(e) => return Err(status::internal_error(&e)),
            };
            confirm_no_escalation(store, user, namespace, &rules).map_err(forbidden)
        }
        _ => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    //! `Covers` and `CompactRules` on cases modelled on upstream's `policy_comparator_test.go`
    //! and `policy_compact_test.go`, and the message `ConfirmNoEscalation` builds.

    use super::*;

    fn rule(verbs: &[&str], groups: &[&str], resources: &[&str], names: &[&str], urls: &[&str]) -> PolicyRule {
        let v = |l: &[&str]| l.iter().map(|s| s.to_string()).collect();
        PolicyRule {
            verbs: v(verbs),
            api_groups: v(groups),
            resources: v(resources),
            resource_names: v(names),
            non_resource_urls: v(urls),
        }
    }

    /// The atomic rules of `servant` that `owner` does not cover.
    fn missing(owner: PolicyRule, servant: PolicyRule) -> Vec<PolicyRule> {
        uncovered(&[owner], &[servant])
    }

    #[test]
    fn covers() {
        let star = || rule(&["*"], &["*"], &["*"], &[], &[]);
        let pods = || rule(&["get", "list"], &[""], &["pods"], &[], &[]);
        assert!(missing(star(), pods()).is_empty(), "* covers everything");
        assert!(missing(rule(&["get", "list", "watch"], &[""], &["pods", "nodes"], &[], &[]), pods()).is_empty());
        assert_eq!(missing(rule(&["get"], &[""], &["pods"], &[], &[]), pods()), [rule(&["list"], &[""], &["pods"], &[], &[])]);
        let named = || rule(&["get"], &["coordination.k8s.io"], &["leases"], &["a"], &[]);
        assert!(missing(rule(&["get"], &["coordination.k8s.io"], &["leases"], &["a", "b"], &[]), named()).is_empty());
        let any_lease = rule(&["get"], &["coordination.k8s.io"], &["leases"], &[], &[]);
        assert_eq!(missing(named(), any_lease).len(), 1, "a named grant does not cover all names");
        let status = || rule(&["get"], &[""], &["*/status"], &[], &[]);
        assert!(missing(status(), rule(&["get"], &[""], &["pods/status"], &[], &[])).is_empty());
        assert_eq!(missing(status(), rule(&["get"], &[""], &["pods"], &[], &[])).len(), 1);
        let urls = || rule(&["get"], &[], &[], &[], &["/metrics", "/healthz/ready"]);
        assert!(missing(rule(&["get"], &[], &[], &[], &["/metrics", "/healthz/*"]), urls()).is_empty());
        assert_eq!(missing(star(), urls()).len(), 2, "resource stars do not cover URLs");
    }

    #[test]
    fn missing_rights_are_compacted_by_resource() {
        let missing = uncovered(&[], &[rule(&["get", "list"], &["", "apps"], &["pods"], &[], &["/metrics"])]);
        let lines: Vec<String> = compact(missing).iter().map(compact_string).collect();
        assert_eq!(
            lines,
            [
                "{NonResourceURLs:[\"/metrics\"], Verbs:[\"get\"]}",
                "{NonResourceURLs:[\"/metrics\"], Verbs:[\"list\"]}",
                "{APIGroups:[\"\"], Resources:[\"pods\"], Verbs:[\"get\" \"list\"]}",
                "{APIGroups:[\"apps\"], Resources:[\"pods\"], Verbs:[\"get\" \"list\"]}",
            ]
        );
    }
}
