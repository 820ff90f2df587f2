//! URL and verb dispatch with the real server's path layout: `/api/v1/...` and
//! `/apis/<group>/<version>/...`, namespaced `/namespaces/{ns}/<plural>[/{name}[/<sub>]]`,
//! cluster-wide list/watch of namespaced kinds, discovery and health endpoints, list paging
//! with opaque `continue` tokens, and the watch parameters.

use super::attributes;
use super::auth::{self, Identity};
use super::authz;
use super::binding;
use super::clock;
use super::compat::Compat;
use super::discovery;
use super::escalation;
use super::http::{Request, Response};
use super::options;
use super::rbac::User;
use super::resources::{self, is_review, ResId, ResourceType, RESOURCES};
use super::selectors::Selectors;
use super::server::Shared;
use super::status::{self, ApiError};
use super::store::{ObjKey, Store};
use super::verbs::{self, Part, PatchKind};
use super::watch::{Start, WatchSpec};
use super::wire;
use serde_json::{json, Value};
use std::sync::atomic::Ordering;
use std::time::{Duration, SystemTime};

/// What to send back.
pub enum Reply {
    /// A complete response.
    Full(Response),
    /// A watch stream.
    Watch(WatchSpec),
}

/// A resource URL, parsed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Target {
    /// Resource.
    pub res: ResId,
    /// Namespace segment, if any.
    pub ns: Option<String>,
    /// Object name, if any.
    pub name: Option<String>,
    /// Subresource (`status`, `binding`), if any.
    pub sub: Option<String>,
}

impl Target {
    /// Store key of the named object.
    pub fn key(&self) -> Option<ObjKey> {
        Some(ObjKey::new(self.res, self.ns.as_deref().unwrap_or(""), self.name.as_deref()?))
    }

    fn resource(&self) -> &'static ResourceType {
        &RESOURCES[self.res]
    }
}

/// Parse a resource path; `None` when the path is not under `/api` or `/apis` at all.
pub fn parse_path(path: &str) -> Option<Result<Target, ApiError>> {
    let segs: Vec<&str> = path.trim_matches('/').split('/').collect();
    let (group, version, rest) = match segs.as_slice() {
        ["api", version, rest @ ..] if !rest.is_empty() => ("", *version, rest),
        ["apis", group, version, rest @ ..] if !rest.is_empty() => (*group, *version, rest),
        _ => return None,
    };
    let namespaced_collection = rest.len() >= 3
        && rest[0] == "namespaces"
        && resources::find(group, version, rest[2]).is_some_and(|id| RESOURCES[id].namespaced);
    let (ns, rest) = if namespaced_collection { (Some(rest[1].to_string()), &rest[2..]) } else { (None, rest) };
    let Some(res) = resources::find(group, version, rest[0]) else { return Some(Err(status::no_such_resource())) };
    if rest.len() > 3 || (RESOURCES[res].namespaced && ns.is_none() && rest.len() > 1) {
        return Some(Err(status::no_such_resource()));
    }
    Some(Ok(Target { res, ns, name: rest.get(1).map(|s| s.to_string()), sub: rest.get(2).map(|s| s.to_string()) }))
}

fn json_reply(code: u16, body: &Value, pretty: bool) -> Reply {
    Reply::Full(Response { code, content_type: "application/json", headers: Vec::new(), body: wire::encode(body, pretty) })
}

fn error_reply(e: ApiError, pretty: bool) -> Reply {
    let headers = e.retry_after.map(|s| vec![("Retry-After".to_string(), s.to_string())]).unwrap_or_default();
    Reply::Full(Response { code: e.code, content_type: "application/json", headers, body: wire::encode(&e.body, pretty) })
}

fn text_reply(code: u16, text: &str) -> Reply {
    Reply::Full(Response { code, content_type: "text/plain; charset=utf-8", headers: Vec::new(), body: text.as_bytes().to_vec() })
}

/// Discovery, version and health endpoints.
fn non_resource(req: &Request) -> Option<Reply> {
    if req.method != "GET" {
        return None;
    }
    let pretty = req.wants_pretty();
    let host = req.header("host").unwrap_or("127.0.0.1");
    let segs: Vec<&str> = req.path.trim_matches('/').split('/').collect();
    let doc = match segs.as_slice() {
        ["healthz" | "readyz" | "livez"] => return Some(text_reply(200, "ok")),
        ["version"] => discovery::version(),
        ["api"] => discovery::api_versions(host),
        ["api", version] => discovery::resource_list("", version)?,
        ["apis"] => discovery::api_group_list(),
        ["apis", group] => discovery::api_group_doc(group)?,
        ["apis", group, version] => discovery::resource_list(group, version)?,
        _ => return None,
    };
    Some(json_reply(200, &doc, pretty))
}

/// Route one authenticated and authorized request from `who`.
pub fn route(shared: &Shared, req: &Request, who: &Identity) -> Reply {
    if let Some(reply) = non_resource(req) {
        return reply;
    }
    let pretty = req.wants_pretty();
    let target = match parse_path(&req.path) {
        Some(Ok(t)) => t,
        Some(Err(e)) => return error_reply(e, pretty),
        None => return text_reply(404, "404 page not found\n"),
    };
    if req.method == "GET" && target.name.is_none() && attributes::wants_watch(&req.query) {
        // A server that ignores `watch` (or only knows `watch=true`) answers with the list.
        let compat = shared.compat;
        if compat.list_for_watch && (req.param("watch") != Some("true") || shared.first_watch(target.res, target.ns.as_deref())) {
            shared.compat_hits.list_for_watch();
            return list_reply(shared, req, &target, pretty);
        }
        return match watch_spec(req, &target, compat) {
            Ok(spec) => Reply::Watch(spec),
            Err(e) => error_reply(e, pretty),
        };
    }
    if req.method == "GET" && target.name.is_none() {
        return list_reply(shared, req, &target, pretty);
    }
    match dispatch(shared, req, &target, who) {
        Ok((code, body)) => json_reply(code, &body, pretty),
        Err(e) => error_reply(e, pretty),
    }
}

fn parse_body(req: &Request) -> Result<Value, ApiError> {
    serde_json::from_slice(&req.body)
        .map_err(|e| status::bad_request(&format!("the body of the request could not be decoded: {e}")))
}

fn status_part(target: &Target) -> Result<Part, ApiError> {
    match target.sub.as_deref() {
        None => Ok(Part::Main),
        Some("status") if target.resource().status_subresource => Ok(Part::Status),
        Some(_) => Err(status::no_such_resource()),
    }
}

fn dispatch(shared: &Shared, req: &Request, target: &Target, who: &Identity) -> Result<(u16, Value), ApiError> {
    let res = target.resource();
    let now = SystemTime::now();
    let key = target.key();
    let mode = shared.authorization();
    let user = User { name: &who.user, groups: &who.groups };
    // RBAC writes are checked for privilege escalation against the state they would replace.
    let no_escalation =
        |s: &Store, ns: &str, old: Option<&Value>, new: &Value| escalation::check(s, mode, user, res, ns, old, new);
    match (req.method.as_str(), key) {
        ("GET", Some(key)) => {
            status_part(target)?;
            verbs::get(&shared.lock_store(), &key).map(|v| (200, shared.compat.object(v)))
        }
        ("POST", None) if is_review(res) => Ok((201, review(shared, res, &parse_body(req)?))),
        ("POST", None) => {
            if res.namespaced && target.ns.is_none() {
                return Err(status::method_not_allowed());
            }
            let body = parse_body(req)?;
            let ns = target.ns.clone().unwrap_or_default();
            shared
                .write(|s| {
                    no_escalation(s, &ns, None, &body)?;
                    verbs::create(s, target.res, &ns, body, now)
                })
                .map(|v| (201, v))
        }
        ("POST", Some(key)) if target.sub.as_deref() == Some("binding") && key.res == resources::pods() => {
            shared.inspect.binding_attempt(&key.ns, &key.name);
            let body = parse_body(req)?;
            let when = clock::rfc3339(now);
            // Counted while the store is still locked, so that whoever sees the pod bound also
            // sees its binding counted.
            shared.write(|s| {
                let node = binding::bind(s, &key.ns, &key.name, &body, &when)?;
                shared.inspect.binding_success(&key.ns, &key.name, &node);
                Ok(node)
            })?;
            Ok((201, binding::created()))
        }
        ("PUT", Some(key)) => {
            let part = status_part(target)?;
            let body = parse_body(req)?;
            shared
                .write(|s| {
                    if let Some(old) = s.get(&key) {
                        no_escalation(s, &key.ns, Some(old), &body)?;
                    }
                    verbs::update(s, &key, part, body)
                })
                .map(|v| (200, v))
        }
        ("PATCH", Some(key)) => {
            let part = status_part(target)?;
            let kind = PatchKind::from_content_type(req.header("content-type").unwrap_or(""))?;
            let body = parse_body(req)?;
            shared
                .write(|s| {
                    let patched = verbs::patched(s, &key, kind, &body)?;
                    no_escalation(s, &key.ns, s.get(&key), &patched)?;
                    verbs::update(s, &key, part, patched)
                })
                .map(|v| (200, v))
        }
        ("DELETE", Some(key)) if target.sub.is_none() => {
            let mut options = if req.body.is_empty() { json!({}) } else { parse_body(req)? };
            if let Some(g) = req.param("gracePeriodSeconds").and_then(|g| g.parse::<i64>().ok()) {
                options["gracePeriodSeconds"] = json!(g);
            }
            let graceful = shared.graceful_pod_deletion.load(Ordering::SeqCst);
            let deleted = shared.write(|s| verbs::delete(s, &key, &options, graceful, now))?;
            Ok((200, verbs::delete_response(&key, &deleted)))
        }
        _ => Err(status::method_not_allowed()),
    }
}

/// TokenReview from the token table; SubjectAccessReview from the authorizer chain.
fn review(shared: &Shared, res: &ResourceType, body: &Value) -> Value {
    if res.plural == "tokenreviews" {
        auth::token_review(body, &shared.lock_auth())
    } else {
        authz::subject_access_review(&shared.lock_store(), shared.authorization(), body)
    }
}

/// Continue token payload, as `k8s.io/apiserver/pkg/storage` encodes it.
fn encode_continue(rv: i64, res: &ResourceType, after: &ObjKey) -> String {
    let start = if res.namespaced { format!("{}/{}\u{0}", after.ns, after.name) } else { format!("{}\u{0}", after.name) };
    let token = json!({"v": "meta.k8s.io/v1", "rv": rv, "start": start});
    wire::base64_url(token.to_string().as_bytes())
}

fn decode_continue(token: &str, target: &Target) -> Result<(i64, ObjKey), ApiError> {
    let bad = || status::bad_request(&format!("continue key is not valid: {token}"));
    let raw = wire::base64_url_decode(token).ok_or_else(bad)?;
    let v: Value = serde_json::from_slice(&raw).map_err(|_| bad())?;
    let rv = v["rv"].as_i64().ok_or_else(bad)?;
    let start = v["start"].as_str().ok_or_else(bad)?.trim_end_matches('\u{0}');
    let (ns, name) = if target.resource().namespaced { start.split_once('/').ok_or_else(bad)? } else { ("", start) };
    Ok((rv, ObjKey::new(target.res, ns, name)))
}

fn parse_rv(s: &str) -> Result<u64, ApiError> {
    s.parse::<u64>().map_err(|_| {
        status::bad_request(&format!(
            "resourceVersion: Invalid value: \"{s}\": strconv.ParseUint: parsing \"{s}\": invalid syntax"
        ))
    })
}

/// The request's label and field selectors, each field label checked against what the kind
/// accepts; either problem is a 400.
fn selectors(req: &Request, res: &ResourceType) -> Result<Selectors, ApiError> {
    let sel = Selectors::parse(req.param("labelSelector"), req.param("fieldSelector")).map_err(|e| status::bad_request(&e))?;
    for label in sel.fields.labels() {
        res.check_field_label(label).map_err(|e| status::bad_request(&e))?;
    }
    Ok(sel)
}

/// A list response (`GET` on a collection).
fn list_reply(shared: &Shared, req: &Request, target: &Target, pretty: bool) -> Reply {
    match list(shared, req, target, pretty) {
        Ok(body) => Reply::Full(Response { code: 200, content_type: "application/json", headers: Vec::new(), body }),
        Err(e) => error_reply(e, pretty),
    }
}

/// The body of one list page. Compact bodies of a server without item quirks are put together
/// from the store's cached item encodings (see [`Store::list_item_bytes`]); the bytes are the
/// same as encoding the whole list document.
fn list(shared: &Shared, req: &Request, target: &Target, pretty: bool) -> Result<Vec<u8>, ApiError> {
    options::validate(req, false)?;
    let res = target.resource();
    let sel = selectors(req, res)?;
    let limit = req.param("limit").and_then(|l| l.parse::<usize>().ok()).filter(|l| *l > 0);
    let store = shared.lock_store();
    let continued = match req.param("continue").filter(|c| !c.is_empty()) {
        Some(tok) => Some(decode_continue(tok, target)?),
        None => None,
    };
    let at = match (&continued, req.param("resourceVersion").unwrap_or("")) {
        (Some((rv, _)), _) if *rv < 0 => store.rv(),
        (Some((rv, _)), _) => *rv as u64,
        (None, "" | "0") => store.rv(),
        (None, rv) if req.param("resourceVersionMatch") == Some("Exact") => parse_rv(rv)?,
        (None, rv) => parse_rv(rv).map(|_| store.rv())?,
    };
    let after = continued.as_ref().map(|(_, k)| k);
    let page = match store.page_at(target.res, target.ns.as_deref(), at, after, &|v| sel.matches(v), limit, sel.is_empty()) {
        Ok(p) => p,
        Err(oldest) => {
            return Err(match after {
                Some(k) => status::expired_continue(&encode_continue(-1, res, k)),
                None => status::too_old_resource_version(at, oldest),
            })
        }
    };
    let mut metadata = json!({"resourceVersion": at.to_string()});
    if let Some(last) = &page.next_after {
        metadata["continue"] = json!(encode_continue(at as i64, res, last));
        if sel.is_empty() {
            metadata["remainingItemCount"] = json!(page.remaining);
        }
    }
    let mut envelope = json!({"kind": format!("{}List", res.kind), "apiVersion": res.api_version(), "metadata": metadata});
    if pretty || shared.compat != Compat::default() {
        let items: Vec<Value> = page
            .items
            .into_iter()
            .map(|(_, v)| {
                let mut v = v.clone();
                if let Some(m) = v.as_object_mut() {
                    m.remove("kind");
                    m.remove("apiVersion");
                }
                shared.compat.list_item(v)
            })
            .collect();
        envelope["items"] = Value::Array(items);
        return Ok(wire::encode(&envelope, pretty));
    }
    // `items` is the envelope's last key in the server's key order: splice the cached items in
    // before the closing brace.
    let items: Vec<_> = page.items.iter().map(|(k, v)| store.list_item_bytes(k, v)).collect();
    drop(store);
    let mut body = wire::encode(&envelope, false);
    body.truncate(body.len() - 2); // "}\n"
    body.reserve(items.iter().map(|i| i.len() + 1).sum::<usize>() + 16);
    body.extend_from_slice(b",\"items\":[");
    for (i, item) in items.iter().enumerate() {
        if i > 0 {
            body.push(b',');
        }
        body.extend_from_slice(item);
    }
    body.extend_from_slice(b"]}\n");
    Ok(body)
}

fn watch_spec(req: &Request, target: &Target, compat: Compat) -> Result<WatchSpec, ApiError> {
    options::validate(req, true)?;
    let selectors = selectors(req, target.resource())?;
    let rv = req.param("resourceVersion").unwrap_or("");
    let start = match (req.param("sendInitialEvents"), rv) {
        (Some("true"), _) => Start::CurrentState,
        (Some("false"), "" | "0") => Start::Now,
        (_, "" | "0") => Start::CurrentState,
        (_, rv) => Start::After(parse_rv(rv)?),
    };
    let timeout = req.param("timeoutSeconds").and_then(|t| t.parse::<u64>().ok()).map(Duration::from_secs);
    Ok(WatchSpec {
        res: target.res,
        ns: target.ns.clone(),
        selectors,
        start,
        bookmarks: req.flag("allowWatchBookmarks"),
        initial_events_end: req.param("sendInitialEvents") == Some("true"),
        timeout,
        compat,
    })
}
