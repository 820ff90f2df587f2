//! The blocking HTTP client for the Kubernetes API: authentication, client-side rate limiting,
//! retries that are safe for the request at hand. Errors are [`ApiError`]s
//! ([`crate::shell::kube::api_error`]); watch bodies are read by [`WatchStream`]
//! ([`crate::shell::kube::watch_stream`]); query strings are built in [`crate::shell::kube::query`].
//!
//! One [`Client`] is shared (cheaply cloned) by every thread of the scheduler; [`http1`] pools the
//! keep-alive connections behind it. We only speak JSON, whatever `clientConnection.contentType`
//! says: protobuf would need generated code for every type, and JSON is what the API server
//! always supports.
//!
//! Retry rules (client-go retries with `Retry-After` in `rest/with_retry.go`; ours are stricter
//! about writes):
//! - `429 Too Many Requests`: the server did not process the request, so any verb is retried,
//!   honouring `Retry-After` (capped), up to `max_retries` times like client-go's `maxRetries`.
//! - `500/502/503/504`: retried only for idempotent requests (GET, and PUT/DELETE that carry a
//!   precondition), because the write may already have happened. A binding POST is never retried
//!   on 5xx: a blind retry could report a conflict for a binding that actually succeeded.
//! - Connection failures before anything was sent (refused, DNS, connect timeout): retried for
//!   any verb, since the server never saw the request. Failures after sending: idempotent only.
//!
//! Tokens and keys never appear in errors or logs.

use crate::core::api::{self, Object};
use crate::core::gojson;
use crate::core::logging::Line;
use crate::core::metrics::{names, Metrics};
use crate::shell::kube::api_error::{error_from_response, ApiError, MAX_ERROR_BODY_BYTES};
use crate::shell::kube::decode::{decode_list, ListPage};
use crate::shell::kube::http1::{self, Endpoint, Failure};
use crate::shell::kube::kubeconfig::RestConfig;
use crate::shell::kube::proxy_env::{proxy_for, ProxyError};
use crate::shell::kube::query::{with_query, ListParams, WatchParams};
use crate::shell::kube::ratelimit::RateLimiter;
use crate::shell::kube::tls::{build_rustls_config, TlsError};
use crate::shell::kube::token::TokenProvider;
use crate::shell::kube::watch_stream::WatchStream;
use serde::de::DeserializeOwned;
use serde::Serialize;
use std::fmt;
use std::sync::Arc;
use std::time::{Duration, Instant};
use ureq::http;

/// Largest successful response body we accept (a page of a few hundred big objects is a few MB;
/// this only stops a runaway response from exhausting memory).
pub const MAX_BODY_BYTES: u64 = 256 * 1024 * 1024;

/// Knobs for [`Client::new`]. Defaults match kube-scheduler's `clientConnection` defaults.
#[derive(Debug, Clone)]
pub struct ClientOptions {
    /// `clientConnection.qps`: 0 → client-go default (5), negative → unlimited.
    pub qps: f32,
    /// `clientConnection.burst`: 0 → client-go default (10).
    pub burst: i32,
    /// Deadline for a whole non-watch request (connect, send, response and body).
    pub request_timeout: Duration,
    /// Deadline for establishing a connection (TCP and TLS handshake).
    pub connect_timeout: Duration,
    /// Retries after the first attempt (client-go `maxRetries` is 10).
    pub max_retries: u32,
    /// Upper bound for one retry wait, whether from `Retry-After` or our own backoff.
    pub max_retry_wait: Duration,
    /// First retry wait when the server gives no `Retry-After`; doubles per retry.
    pub retry_base_delay: Duration,
    /// Overrides the `edgesched/<version> (<os>/<arch>)` user agent.
    pub user_agent: Option<String>,
    /// Where `rest_client_*` metrics go (client-go's `tools/metrics` adapters); none when unset.
    pub metrics: Option<Metrics>,
}

impl Default for ClientOptions {
    fn default() -> ClientOptions {
        ClientOptions {
            qps: 50.0,
            burst: 100,
            request_timeout: Duration::from_secs(60),
            connect_timeout: Duration::from_secs(10),
            max_retries: 10,
            max_retry_wait: Duration::from_secs(10),
            retry_base_delay: Duration::from_millis(500),
            user_agent: None,
            metrics: None,
        }
    }
}

/// `edgesched/<version> (<os>/<arch>)`, with Go's names for os/arch as kube components use.
pub fn default_user_agent() -> String {
    format!("edgesched/{} ({})", env!("CARGO_PKG_VERSION"), platform())
}

/// `<os>/<arch>` with Go's names, as kube components report their platform.
pub fn platform() -> String {
    let arch = match std::env::consts::ARCH {
        "x86_64" => "amd64",
        "aarch64" => "arm64",
        "x86" => "386",
        "powerpc64" if cfg!(target_endian = "little") => "ppc64le",
        other => other,
    };
    format!("{}/{arch}", std::env::consts::OS)
}

/// Why the client could not be created.
#[derive(Debug)]
pub enum ClientInitError {
    /// The certificates in the configuration are unusable.
    Tls { origin: String, error: TlsError },
    /// The server URL cannot be parsed.
    InvalidServer { server: String, problem: String },
    /// The proxy the environment names cannot be used.
    Proxy(ProxyError),
}

impl fmt::Display for ClientInitError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ClientInitError::Tls { origin, error } => write!(f, "{origin}: {error}"),
            ClientInitError::InvalidServer { server, problem } => write!(f, "server {server:?}: {problem}"),
            ClientInitError::Proxy(e) => write!(f, "proxy from the environment: {e}"),
        }
    }
}

impl std::error::Error for ClientInitError {}

// ---------------------------------------------------------------------------------------------
// Requests
// ---------------------------------------------------------------------------------------------

/// HTTP verbs the client issues.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verb {
    /// Read (idempotent).
    Get,
    /// Create (not idempotent).
    Post,
    /// Replace (idempotent when preconditioned by resourceVersion).
    Put,
    /// Partial update.
    Patch,
    /// Delete (idempotent when preconditioned by UID).
    Delete,
}

impl Verb {
    fn as_str(self) -> &'static str {
        match self {
            Verb::Get => "GET",
            Verb::Post => "POST",
            Verb::Put => "PUT",
            Verb::Patch => "PATCH",
            Verb::Delete => "DELETE",
        }
    }
}

/// Patch flavours, named after their content types.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PatchType {
    /// `application/merge-patch+json` (RFC 7386).
    Merge,
    /// `application/strategic-merge-patch+json` (built-in types only).
    StrategicMerge,
    /// `application/json-patch+json` (RFC 6902).
    Json,
}

impl PatchType {
    /// The `Content-Type` of a patch of this flavour.
    pub fn content_type(self) -> &'static str {
        match self {
            PatchType::Merge => "application/merge-patch+json",
            PatchType::StrategicMerge => "application/strategic-merge-patch+json",
            PatchType::Json => "application/json-patch+json",
        }
    }
}

/// A request for [`Client::request`], for calls the typed helpers do not cover.
#[derive(Debug, Clone)]
pub struct RawRequest<'a> {
    /// HTTP method.
    pub verb: Verb,
    /// Path (with query string if any), relative to the server URL.
    pub path: &'a str,
    /// Request body, if any.
    pub body: Option<Vec<u8>>,
    /// `Content-Type` of `body`.
    pub content_type: Option<&'a str>,
    /// Whether repeating the request after a 5xx or a failure mid-request is harmless.
    pub idempotent: bool,
}

// ---------------------------------------------------------------------------------------------
// Retry policy (pure)
// ---------------------------------------------------------------------------------------------

/// How far a failed attempt got, which decides whether repeating it is safe.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum FailureStage {
    /// Nothing reached the server (connection refused, DNS, connect timeout).
    NotSent,
    /// The request may have reached the server (reset, read timeout, truncated body).
    MaybeSent,
    /// Retrying cannot help (TLS verification failure, bad request URL, token file unreadable).
    Permanent,
}

/// Retry parameters of one client.
#[derive(Debug, Clone, Copy)]
struct RetryPolicy {
    max_retries: u32,
    max_wait: Duration,
    base_delay: Duration,
}

impl RetryPolicy {
    /// The wait before retry number `retries_done + 1`, or `None` to give up with this error.
    fn delay(&self, error: &ApiError, stage: FailureStage, idempotent: bool, retries_done: u32) -> Option<Duration> {
        if retries_done >= self.max_retries {
            return None;
        }
        let retry = match (error.code(), stage) {
            (Some(429), _) => true,
            (Some(500 | 502 | 503 | 504), _) => idempotent,
            (Some(_), _) => false,
            (None, FailureStage::NotSent) => true,
            (None, FailureStage::MaybeSent) => idempotent,
            (None, FailureStage::Permanent) => false,
        };
        if !retry {
            return None;
        }
        let backoff = self.base_delay.saturating_mul(1u32 << retries_done.min(16));
        Some(error.retry_after().unwrap_or(backoff).min(self.max_wait))
    }
}

// ---------------------------------------------------------------------------------------------
// The client
// ---------------------------------------------------------------------------------------------

/// An exchange answered within this is quick: pipelines may deepen ([`Client::next_depth`]).
pub const QUICK_ANSWER: Duration = Duration::from_millis(20);

/// A shareable handle to one API server.
#[derive(Clone)]
pub struct Client {
    inner: Arc<Inner>,
    /// Absolute deadline for every request made through this handle (see [`Client::until`]).
    deadline: Option<Instant>,
}

struct Inner {
    /// The keep-alive connections ([`http1`]).
    http: http1::Pool,
    user_agent: String,
    base_url: String,
    token: Option<TokenProvider>,
    limiter: Option<RateLimiter>,
    request_timeout: Duration,
    retry: RetryPolicy,
    metrics: Option<Metrics>,
    /// The `host` label of `rest_client_*` (`host:port` of the server URL, as Go's `URL.Host`).
    host: String,
}

impl fmt::Debug for Client {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Client")
            .field("server", &self.inner.base_url)
            .field("authenticated", &self.inner.token.is_some())
            .field("rate_limited", &self.inner.limiter.is_some())
            .finish()
    }
}

impl Client {
    /// Build a client for `config`. Logs a warning when server certificates are not verified.
    pub fn new(config: &RestConfig, options: &ClientOptions) -> Result<Client, ClientInitError> {
        let base_url = config.server.trim_end_matches('/').to_string();
        let uri = base_url
            .parse::<http::Uri>()
            .map_err(|e| ClientInitError::InvalidServer { server: config.server.clone(), problem: e.to_string() })?;
        let host = uri.authority().map(|a| a.as_str().rsplit('@').next().unwrap_or_default().to_string()).unwrap_or_default();
        let own_tls =
            build_rustls_config(config).map_err(|error| ClientInitError::Tls { origin: config.origin.clone(), error })?;
        let invalid =
            |problem: &str| ClientInitError::InvalidServer { server: config.server.clone(), problem: problem.to_string() };
        let https = match uri.scheme_str() {
            Some("https") => true,
            Some("http") => false,
            _ => return Err(invalid("scheme must be http or https")),
        };
        let host_name = uri.host().unwrap_or_default().trim_start_matches('[').trim_end_matches(']').to_string();
        let tls_name = match https {
            true => Some(
                rustls::pki_types::ServerName::try_from(host_name.clone())
                    .map_err(|_| invalid("host is not a valid TLS server name"))?,
            ),
            false => None,
        };
        let port = uri.port_u16().unwrap_or(if https { 443 } else { 80 });
        let proxy = proxy_for(&|name| std::env::var(name).ok(), https, &host_name, port).map_err(ClientInitError::Proxy)?;
        if let Some(p) = &proxy {
            Line::new("Reaching the API server through a proxy").s("proxy", &p.host).n("port", p.port).info();
        }
        let endpoint = Endpoint {
            port,
            host: host_name,
            tls: tls_name.map(|name| (own_tls, name)),
            connect_timeout: options.connect_timeout,
            proxy,
        };
        if config.insecure_skip_tls_verify {
            Line::new(
                "Server certificate verification is DISABLED (insecure-skip-tls-verify); anyone on the network path can impersonate the API server",
            )
            .s("server", &base_url)
            .warning();
        }
        let user_agent = options.user_agent.clone().unwrap_or_else(default_user_agent);
        Ok(Client {
            inner: Arc::new(Inner {
                http: http1::Pool::new(endpoint),
                user_agent,
                base_url,
                token: config.token.clone().map(TokenProvider::new),
                limiter: RateLimiter::for_client_connection(options.qps, options.burst, Instant::now()),
                request_timeout: options.request_timeout,
                retry: RetryPolicy {
                    max_retries: options.max_retries,
                    max_wait: options.max_retry_wait,
                    base_delay: options.retry_base_delay,
                },
                metrics: options.metrics.clone(),
                host,
            }),
            deadline: None,
        })
    }

    /// A handle whose requests (retries included) all end by `deadline`, like a Go context
    /// deadline: each attempt's timeout is cut to the time left, and a request started after
    /// the deadline fails at once. Leader election bounds a renewal by renewDeadline this way.
    pub fn until(&self, deadline: Instant) -> Client {
        Client { inner: self.inner.clone(), deadline: Some(deadline) }
    }

    /// The timeout for an attempt starting now, or an error when the deadline has passed.
    fn attempt_timeout(&self, label: &str) -> Result<Duration, ApiError> {
        match self.deadline {
            None => Ok(self.inner.request_timeout),
            Some(d) => match d.checked_duration_since(Instant::now()).filter(|left| !left.is_zero()) {
                Some(left) => Ok(left.min(self.inner.request_timeout)),
                None => Err(ApiError::Transport { request: label.to_string(), message: "deadline exceeded".to_string() }),
            },
        }
    }

    /// The server URL this client talks to (for logs).
    pub fn server(&self) -> &str {
        &self.inner.base_url
    }

    /// GET one object.
    pub fn get<T: DeserializeOwned>(&self, path: &str) -> Result<T, ApiError> {
        let body = self.request(RawRequest { verb: Verb::Get, path, body: None, content_type: None, idempotent: true })?;
        decode(&request_label(Verb::Get, path), &body)
    }

    /// One page of a list, its objects decoded one by one ([`decode_list`]).
    pub fn list<T: DeserializeOwned + Object + 'static>(&self, path: &str, params: &ListParams) -> Result<ListPage<T>, ApiError> {
        self.list_into(path, params, &mut Vec::new())
    }

    /// [`Client::list`] reading the page into `buffer`, which a caller paging through a list
    /// keeps from page to page (a page of pods is about a megabyte: read into a fresh vector,
    /// it was grown by doubling and copied for every page).
    pub fn list_into<T: DeserializeOwned + Object + 'static>(
        &self,
        path: &str,
        params: &ListParams,
        buffer: &mut Vec<u8>,
    ) -> Result<ListPage<T>, ApiError> {
        let full = with_query(path, &params.query());
        let req = RawRequest { verb: Verb::Get, path: &full, body: None, content_type: None, idempotent: true };
        self.request_into(req, buffer)?;
        decode_list(buffer).map_err(|message| ApiError::Decode { request: request_label(Verb::Get, path), message })
    }

    /// POST a new object (never retried after a possible write).
    pub fn create<B: Serialize + ?Sized, T: DeserializeOwned>(&self, path: &str, body: &B) -> Result<T, ApiError> {
        let bytes = encode(Verb::Post, path, body)?;
        let resp = self.request(RawRequest {
            verb: Verb::Post,
            path,
            body: Some(bytes),
            content_type: Some("application/json"),
            idempotent: false,
        })?;
        decode(&request_label(Verb::Post, path), &resp)
    }

    /// Send a body already encoded as JSON (events, bindings: written directly, no typed value)
    /// with `verb` (POST or PATCH: never retried after a possible write). Only the status
    /// matters; the answer is checked to be JSON, never built.
    pub fn send(&self, verb: Verb, path: &str, content_type: &str, body: Vec<u8>) -> Result<(), ApiError> {
        let resp =
            self.request(RawRequest { verb, path, body: Some(body), content_type: Some(content_type), idempotent: false })?;
        decode::<serde::de::IgnoredAny>(&request_label(verb, path), &resp).map(|_| ())
    }

    /// How many requests the next pipelined exchange may carry after one that took `took` with
    /// `depth` allowed: doubled (up to `max`) while answers come within [`QUICK_ANSWER`], one again
    /// after a slower exchange, as TCP's slow start grows its window. On a slow server nothing then
    /// waits behind another request's answer.
    pub fn next_depth(depth: usize, took: Duration, max: usize) -> usize {
        match took <= QUICK_ANSWER {
            true => depth.saturating_mul(2).clamp(1, max.max(1)),
            false => 1,
        }
    }

    /// [`Client::send`] for several bodies at once: the requests go out pipelined on one
    /// connection ([`http1::Pool::exchange_pipelined`]) and each answer is judged as `send`
    /// judges its own; one the retry rules would try again is retried on its own. Results in
    /// the order of `items` (path, JSON body).
    pub fn send_pipelined(&self, verb: Verb, content_type: &str, items: Vec<(String, Vec<u8>)>) -> Vec<Result<(), ApiError>> {
        let (paths, bodies): (Vec<String>, Vec<Vec<u8>>) = items.into_iter().unzip();
        let reqs: Vec<RawRequest<'_>> = paths
            .iter()
            .zip(bodies)
            .map(|(path, body)| RawRequest { verb, path, body: Some(body), content_type: Some(content_type), idempotent: false })
            .collect();
        let mut results: Vec<Option<Result<(), ApiError>>> = reqs.iter().map(|_| None).collect();
        let (mut messages, mut prepared) = (Vec::with_capacity(reqs.len()), Vec::with_capacity(reqs.len()));
        for (i, req) in reqs.iter().enumerate() {
            let label = request_label(verb, req.path);
            let built = self.url(req.path, &label).and_then(|url| match self.message(req, &url, &label) {
                Ok(message) => Ok((url, message)),
                Err((e, _)) => Err(e),
            });
            match built {
                Ok((url, message)) => {
                    self.throttle(verb);
                    messages.push(message);
                    prepared.push((req, url, label, i));
                }
                Err(e) => results[i] = Some(Err(e)),
            }
        }
        let mut outs: Vec<Vec<u8>> = vec![Vec::new(); prepared.len()];
        let sent_at = Instant::now();
        // Past a deadline or without a connection nothing was sent: each goes its own way.
        let answers = self
            .attempt_timeout("pipelined requests")
            .ok()
            .and_then(|timeout| self.inner.http.exchange_pipelined(&messages, timeout, MAX_BODY_BYTES, &mut outs).ok());
        let mut answers = answers.map(Vec::into_iter);
        for ((req, url, label, i), out) in prepared.into_iter().zip(outs.iter_mut()) {
            let first = answers.as_mut().and_then(Iterator::next);
            let done = match first {
                Some(answer) => match self.finish(req, &label, sent_at, answer, out) {
                    Ok(()) => Ok(()),
                    Err(failure) => self.retrying(req, &url, &label, out, Some(failure)),
                },
                None => self.retrying(req, &url, &label, out, None),
            };
            results[i] = Some(done.and_then(|()| decode::<serde::de::IgnoredAny>(&label, out).map(|_| ())));
        }
        results.into_iter().flatten().collect()
    }

    /// PUT a whole object. Idempotent (retried on 5xx) when the body carries
    /// `metadata.resourceVersion`, since a repeated conditional update cannot apply twice.
    pub fn replace<B: Serialize, T: DeserializeOwned>(&self, path: &str, body: &B) -> Result<T, ApiError> {
        let label = request_label(Verb::Put, path);
        let value =
            serde_json::to_value(body).map_err(|e| ApiError::Decode { request: label.clone(), message: e.to_string() })?;
        let preconditioned = value.pointer("/metadata/resourceVersion").and_then(|v| v.as_str()).is_some_and(|rv| !rv.is_empty());
        let bytes =
            serde_json::to_vec(&value).map_err(|e| ApiError::Decode { request: label.clone(), message: e.to_string() })?;
        let resp = self.request(RawRequest {
            verb: Verb::Put,
            path,
            body: Some(bytes),
            content_type: Some("application/json"),
            idempotent: preconditioned,
        })?;
        decode(&label, &resp)
    }

    /// PATCH an object (not retried after a possible write).
    pub fn patch<T: DeserializeOwned>(&self, path: &str, patch_type: PatchType, body: &serde_json::Value) -> Result<T, ApiError> {
        let bytes = encode(Verb::Patch, path, body)?;
        let resp = self.request(RawRequest {
            verb: Verb::Patch,
            path,
            body: Some(bytes),
            content_type: Some(patch_type.content_type()),
            idempotent: false,
        })?;
        decode(&request_label(Verb::Patch, path), &resp)
    }

    /// DELETE an object, optionally only if its UID is still `preconditions_uid` (then the
    /// request is idempotent and retried on 5xx).
    pub fn delete(&self, path: &str, preconditions_uid: Option<&str>) -> Result<(), ApiError> {
        let options = api::DeleteOptions {
            kind: "DeleteOptions".to_string(),
            api_version: "v1".to_string(),
            preconditions: preconditions_uid.map(|uid| api::Preconditions { uid: Some(uid.to_string()), resource_version: None }),
        };
        let bytes = encode(Verb::Delete, path, &options)?;
        self.request(RawRequest {
            verb: Verb::Delete,
            path,
            body: Some(bytes),
            content_type: Some("application/json"),
            idempotent: preconditions_uid.is_some(),
        })?;
        Ok(())
    }

    /// Send any request with the client's auth, rate limit and retry rules; returns the body of
    /// a 2xx response.
    pub fn request(&self, req: RawRequest<'_>) -> Result<Vec<u8>, ApiError> {
        let mut body = Vec::new();
        self.request_into(req, &mut body)?;
        Ok(body)
    }

    /// [`Client::request`] with the body of the 2xx response read into `body` (cleared first).
    pub fn request_into(&self, req: RawRequest<'_>, body: &mut Vec<u8>) -> Result<(), ApiError> {
        let label = request_label(req.verb, req.path);
        let url = self.url(req.path, &label)?;
        self.retrying(&req, &url, &label, body, None)
    }

    /// Attempts of `req` until one succeeds or the retry rules give up; `failed` is the outcome
    /// of a first attempt already made (in a pipelined exchange).
    fn retrying(
        &self,
        req: &RawRequest<'_>,
        url: &http::Uri,
        label: &str,
        body: &mut Vec<u8>,
        mut failed: Option<(ApiError, FailureStage)>,
    ) -> Result<(), ApiError> {
        let mut retries_done = 0;
        loop {
            let (error, stage) = match failed.take() {
                Some(failure) => failure,
                None => {
                    self.throttle(req.verb);
                    match self.attempt(req, url, label, body) {
                        Ok(()) => return Ok(()),
                        Err(failure) => failure,
                    }
                }
            };
            let Some(wait) = self.inner.retry.delay(&error, stage, req.idempotent, retries_done) else {
                return Err(error);
            };
            if self.deadline.is_some_and(|d| Instant::now() + wait >= d) {
                return Err(error);
            }
            retries_done += 1;
            if let Some(m) = &self.inner.metrics {
                m.inc(names::REST_RETRIES, &[&code_label(error.code()), req.verb.as_str(), &self.inner.host], 1.0);
            }
            crate::core::logging::v(4, || {
                Line::new("Retrying request")
                    .s("request", label)
                    .n("attempt", retries_done + 1)
                    .s("wait", format!("{wait:?}"))
                    .s("reason", &error)
            });
            std::thread::sleep(wait);
        }
    }

    /// Open a watch. The returned stream yields events until the server ends the watch (`None`)
    /// or the connection fails (`Some(Err)` once, then `None`). Not retried here: the watcher
    /// owns reconnection and backoff.
    pub fn watch<T: DeserializeOwned + Object>(&self, path: &str, params: &WatchParams) -> Result<WatchStream<T>, ApiError> {
        let label = format!("WATCH {path}");
        let url = self.url(&with_query(path, &params.query()), &label)?;
        self.throttle(Verb::Get);
        let sent_at = Instant::now();
        let req = RawRequest { verb: Verb::Get, path: "", body: None, content_type: None, idempotent: true };
        let message = self.message(&req, &url, &label).map_err(|(e, _)| e)?;
        let mut error_body = Vec::new();
        let timeout = self.inner.request_timeout;
        let response = self.inner.http.stream(&message, timeout, params.idle_timeout, MAX_ERROR_BODY_BYTES, &mut error_body);
        self.count(Verb::Get, response.as_ref().ok().map(|(r, _)| r.code));
        let (response, body) = response.map_err(|failure| io_failure(&label, failure).0)?;
        match body {
            Some(body) => Ok(WatchStream::new(Box::new(body), label)),
            None => {
                self.unauthorized_at(response.code, sent_at);
                Err(error_from_response(&label, response.code, response.retry_after.as_deref(), &error_body))
            }
        }
    }

    fn url(&self, path_and_query: &str, label: &str) -> Result<http::Uri, ApiError> {
        let sep = if path_and_query.starts_with('/') { "" } else { "/" };
        let url = format!("{}{sep}{path_and_query}", self.inner.base_url);
        url.parse::<http::Uri>()
            .map_err(|e| ApiError::Transport { request: label.to_string(), message: format!("invalid request URL: {e}") })
    }

    /// Wait for the client-side rate limiter (`rest_client_rate_limiter_duration_seconds`).
    fn throttle(&self, verb: Verb) {
        if let Some(limiter) = &self.inner.limiter {
            let start = Instant::now();
            limiter.acquire();
            if let Some(m) = &self.inner.metrics {
                m.observe(names::REST_RATE_LIMITER_DURATION, &[verb.as_str(), &self.inner.host], start.elapsed().as_secs_f64());
            }
        }
    }

    /// `rest_client_requests_total` for one attempt (`<error>` when no response arrived).
    fn count(&self, verb: Verb, code: Option<u16>) {
        if let Some(m) = &self.inner.metrics {
            m.inc(names::REST_REQUESTS, &[&code_label(code), verb.as_str(), &self.inner.host], 1.0);
        }
    }

    /// One HTTP exchange, body included (read into `out`).
    fn attempt(
        &self,
        req: &RawRequest<'_>,
        url: &http::Uri,
        label: &str,
        out: &mut Vec<u8>,
    ) -> Result<(), (ApiError, FailureStage)> {
        let timeout = self.attempt_timeout(label).map_err(|e| (e, FailureStage::Permanent))?;
        let sent_at = Instant::now();
        let message = self.message(req, url, label)?;
        let response = self.inner.http.exchange(&message, timeout, MAX_BODY_BYTES, out);
        self.finish(req, label, sent_at, response, out)
    }

    /// Account for one exchange (metrics, a 401's token reset) and classify its response.
    fn finish(
        &self,
        req: &RawRequest<'_>,
        label: &str,
        sent_at: Instant,
        response: Result<http1::Response, Failure>,
        out: &mut Vec<u8>,
    ) -> Result<(), (ApiError, FailureStage)> {
        let (verb, host) = (req.verb.as_str(), self.inner.host.as_str());
        // The attempt's samples under one lock of the registry (a bind and its event are two
        // requests; four locks each were a hand-off between the API workers every time).
        if let Some(m) = &self.inner.metrics {
            let latency = sent_at.elapsed().as_secs_f64();
            let code = code_label(response.as_ref().ok().map(|r| r.code));
            m.batch(|b| {
                b.observe(names::REST_REQUEST_SIZE, &[verb, host], req.body.as_ref().map_or(0, Vec::len) as f64);
                b.inc(names::REST_REQUESTS, &[&code, verb, host], 1.0);
                b.observe(names::REST_REQUEST_DURATION, &[verb, host], latency);
                if response.is_ok() {
                    b.observe(names::REST_RESPONSE_SIZE, &[verb, host], out.len() as f64);
                }
            });
        }
        let response = response.map_err(|failure| io_failure(label, failure))?;
        let code = response.code;
        self.unauthorized_at(code, sent_at);
        if !(200..300).contains(&code) {
            // A truncated error body still tells us the status code.
            out.truncate(usize::try_from(MAX_ERROR_BODY_BYTES).unwrap_or(usize::MAX));
            return Err((error_from_response(label, code, response.retry_after.as_deref(), out), FailureStage::MaybeSent));
        }
        if response.truncated {
            let message = format!("response body exceeds {MAX_BODY_BYTES} bytes");
            return Err((ApiError::Transport { request: label.to_string(), message }, FailureStage::MaybeSent));
        }
        Ok(())
    }

    /// The bytes of `req` on the wire: request line, headers and body, sent in one write.
    fn message(&self, req: &RawRequest<'_>, url: &http::Uri, label: &str) -> Result<Vec<u8>, (ApiError, FailureStage)> {
        let body = req.body.as_deref().unwrap_or_default();
        let mut msg = Vec::with_capacity(320 + body.len());
        let target = url.path_and_query().map_or("/", |p| p.as_str());
        for part in [req.verb.as_str(), " ", target, " HTTP/1.1\r\nHost: ", &self.inner.host, "\r\nUser-Agent: "] {
            msg.extend_from_slice(part.as_bytes());
        }
        let mut header = |name: &str, value: &str| {
            msg.extend_from_slice(name.as_bytes());
            msg.extend_from_slice(value.as_bytes());
            msg.extend_from_slice(b"\r\n");
            // Only header values can be malformed; never echo them (one is the token).
            value.bytes().all(|b| b == b'\t' || (b' '..=b'~').contains(&b) || b >= 0x80)
        };
        let mut valid = header("", &self.inner.user_agent) & header("Accept: ", "application/json");
        if let Some(provider) = &self.inner.token {
            let token = provider.token().map_err(|e| {
                (
                    ApiError::Transport { request: label.to_string(), message: format!("bearer token: {e}") },
                    FailureStage::Permanent,
                )
            })?;
            valid &= header("Authorization: Bearer ", &token);
        }
        if let Some(ct) = req.content_type {
            valid &= header("Content-Type: ", ct);
        }
        if !body.is_empty() || req.verb != Verb::Get {
            valid &= header("Content-Length: ", &body.len().to_string());
        }
        if !valid {
            return Err((
                ApiError::Transport {
                    request: label.to_string(),
                    message: "invalid request header (bearer token or content type contains forbidden characters)".to_string(),
                },
                FailureStage::Permanent,
            ));
        }
        msg.extend_from_slice(b"\r\n");
        msg.extend_from_slice(body);
        Ok(msg)
    }

    /// On 401, drop a file token read before the request was sent so the next request reads
    /// the (probably rotated) file again instead of waiting out the refresh period.
    fn unauthorized_at(&self, code: u16, sent_at: Instant) {
        if code == 401 {
            if let Some(provider) = &self.inner.token {
                provider.reset_older_than(sent_at);
            }
        }
    }
}

/// client-go's result code label: the status code, or `<error>` when no response arrived
/// (the codes of every bind and event written without formatting a number).
fn code_label(code: Option<u16>) -> std::borrow::Cow<'static, str> {
    match code {
        None => "<error>".into(),
        Some(200) => "200".into(),
        Some(201) => "201".into(),
        Some(c) => c.to_string().into(),
    }
}

/// `"VERB /path"` without the query string (continue tokens and selectors would only add noise).
fn request_label(verb: Verb, path: &str) -> String {
    let path = path.split('?').next().unwrap_or(path);
    format!("{} {path}", verb.as_str())
}

fn encode<B: Serialize + ?Sized>(verb: Verb, path: &str, body: &B) -> Result<Vec<u8>, ApiError> {
    serde_json::to_vec(body)
        .map_err(|e| ApiError::Decode { request: request_label(verb, path), message: format!("cannot encode request: {e}") })
}

/// Responses are read with Go's rules, as client-go reads them ([`gojson`]).
fn decode<T: DeserializeOwned>(label: &str, body: &[u8]) -> Result<T, ApiError> {
    gojson::from_slice(body).map_err(|e| ApiError::Decode { request: label.to_string(), message: e.to_string() })
}

/// Classify a failure of the keep-alive path ([`http1`]) by how far the request got.
fn io_failure(label: &str, failure: Failure) -> (ApiError, FailureStage) {
    let (error, sent) = match failure {
        Failure::NotSent(e) => (e, false),
        Failure::MaybeSent(e) => (e, true),
    };
    let message = format!("io: {error}");
    let stage = match sent {
        // rustls reports handshake failures (an untrusted or mismatched server certificate)
        // as an io::Error wrapping rustls::Error. Retrying cannot fix a certificate, and
        // treating it as "maybe sent" hid it behind a minute of silent retries.
        _ if error.get_ref().is_some_and(|inner| inner.is::<rustls::Error>()) => FailureStage::Permanent,
        false if error.kind() == std::io::ErrorKind::ConnectionRefused => {
            return (ApiError::Refused { request: label.to_string(), message }, FailureStage::NotSent);
        }
        false => FailureStage::NotSent,
        true => FailureStage::MaybeSent,
    };
    (ApiError::Transport { request: label.to_string(), message }, stage)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::shell::kube::fixture;
    use crate::shell::kube::watch_stream::{StreamError, WatchEvent};
    use std::io::Read;

    // --- retry policy ------------------------------------------------------------------------

    fn policy() -> RetryPolicy {
        RetryPolicy { max_retries: 10, max_wait: Duration::from_secs(10), base_delay: Duration::from_millis(500) }
    }

    fn http_err(code: u16, retry_after: Option<u64>) -> ApiError {
        ApiError::Http { request: String::new(), code, body: String::new(), retry_after: retry_after.map(Duration::from_secs) }
    }

    #[test]
    fn too_many_requests_is_retried_for_every_verb_honouring_capped_retry_after() {
        let p = policy();
        let stage = FailureStage::MaybeSent;
        assert_eq!(p.delay(&http_err(429, Some(2)), stage, false, 0), Some(Duration::from_secs(2)));
        assert_eq!(p.delay(&http_err(429, Some(60)), stage, false, 0), Some(Duration::from_secs(10)));
        assert_eq!(p.delay(&http_err(429, None), stage, false, 0), Some(Duration::from_millis(500)));
        assert_eq!(p.delay(&http_err(429, None), stage, false, 3), Some(Duration::from_secs(4)));
        assert_eq!(p.delay(&http_err(429, Some(1)), stage, false, 10), None, "max retries reached");
    }

    #[test]
    fn server_errors_are_retried_only_when_idempotent() {
        let p = policy();
        for code in [500, 502, 503, 504] {
            assert!(p.delay(&http_err(code, None), FailureStage::MaybeSent, true, 0).is_some(), "{code}");
            assert_eq!(p.delay(&http_err(code, Some(1)), FailureStage::MaybeSent, false, 0), None, "{code} POST");
        }
        for code in [400, 401, 403, 404, 409, 410, 422, 501] {
            assert_eq!(p.delay(&http_err(code, Some(1)), FailureStage::MaybeSent, true, 0), None, "{code}");
        }
    }

    #[test]
    fn transport_failures_depend_on_how_far_the_request_got() {
        let p = policy();
        let err = ApiError::Transport { request: String::new(), message: "x".into() };
        assert!(p.delay(&err, FailureStage::NotSent, false, 0).is_some());
        assert!(p.delay(&err, FailureStage::MaybeSent, true, 0).is_some());
        assert_eq!(p.delay(&err, FailureStage::MaybeSent, false, 0), None);
        assert_eq!(p.delay(&err, FailureStage::Permanent, true, 0), None);
    }

    #[test]
    fn certificate_failures_surfacing_as_io_errors_are_permanent() {
        // What the handshake returns when rustls rejects the server certificate.
        let bad_cert = rustls::Error::InvalidCertificate(rustls::CertificateError::BadSignature);
        let err = Failure::NotSent(std::io::Error::new(std::io::ErrorKind::InvalidData, bad_cert));
        let (api, stage) = io_failure("GET /api/v1/nodes", err);
        assert_eq!(stage, FailureStage::Permanent);
        assert!(api.to_string().contains("invalid peer certificate"), "{api}");
        // A plain connection reset is still "maybe sent".
        let reset = Failure::MaybeSent(std::io::Error::from(std::io::ErrorKind::ConnectionReset));
        assert_eq!(io_failure("GET /x", reset).1, FailureStage::MaybeSent);
    }

    #[test]
    fn user_agent_names_edgesched_and_platform() {
        let ua = default_user_agent();
        assert!(ua.starts_with(&format!("edgesched/{} (", env!("CARGO_PKG_VERSION"))), "{ua}");
        assert!(ua.ends_with(')') && ua.contains('/'), "{ua}");
    }

    #[test]
    fn request_labels_drop_the_query() {
        assert_eq!(request_label(Verb::Get, "/api/v1/pods?limit=1"), "GET /api/v1/pods");
    }

    // --- end to end against a local HTTP server ---------------------------------------------

    /// (method, url, authorization header) of a request the test server received.
    type SeenRequest = (String, String, Option<String>);

    /// A tiny_http server answering each request with the next scripted response; records the
    /// requests it saw as (method, url, authorization header).
    struct Server {
        url: String,
        seen: Arc<std::sync::Mutex<Vec<SeenRequest>>>,
        handle: Option<std::thread::JoinHandle<()>>,
    }

    struct Scripted {
        code: u16,
        headers: Vec<(&'static str, String)>,
        body: Vec<u8>,
    }

    fn reply(code: u16, body: &str) -> Scripted {
        Scripted { code, headers: vec![("Content-Type", "application/json".into())], body: body.as_bytes().to_vec() }
    }

    impl Server {
        fn start(script: Vec<Scripted>) -> Server {
            let server = tiny_http::Server::http("127.0.0.1:0").unwrap();
            let port = server.server_addr().to_ip().unwrap().port();
            let seen = Arc::new(std::sync::Mutex::new(Vec::new()));
            let seen2 = seen.clone();
            let handle = std::thread::spawn(move || {
                for step in script {
                    let Ok(req) = server.recv() else { return };
                    let auth = req.headers().iter().find(|h| h.field.equiv("Authorization")).map(|h| h.value.to_string());
                    seen2.lock().unwrap().push((req.method().to_string(), req.url().to_string(), auth));
                    let mut resp = tiny_http::Response::from_data(step.body).with_status_code(step.code);
                    for (k, v) in step.headers {
                        resp.add_header(tiny_http::Header::from_bytes(k.as_bytes(), v.as_bytes()).unwrap());
                    }
                    let _ = req.respond(resp);
                }
            });
            Server { url: format!("http://127.0.0.1:{port}"), seen, handle: Some(handle) }
        }

        fn finish(mut self) -> Vec<SeenRequest> {
            if let Some(h) = self.handle.take() {
                h.join().unwrap();
            }
            self.seen.lock().unwrap().clone()
        }
    }

    fn client_for_url(url: &str) -> RestConfig {
        RestConfig {
            server: url.to_string(),
            ca_pem: None,
            client_cert_pem: None,
            client_key_pem: None,
            token: Some(crate::shell::kube::token::TokenSource::Static("sekret".into())),
            insecure_skip_tls_verify: true,
            tls_server_name: None,
            origin: "test".into(),
        }
    }

    fn client_for(server: &Server) -> Client {
        let config = client_for_url(&server.url);
        let options = ClientOptions {
            qps: -1.0,
            retry_base_delay: Duration::from_millis(1),
            max_retry_wait: Duration::from_millis(5),
            ..ClientOptions::default()
        };
        Client::new(&config, &options).unwrap()
    }

    #[test]
    fn get_sends_token_and_retries_429_then_decodes() {
        let server = Server::start(vec![
            Scripted {
                code: 429,
                headers: vec![("Retry-After", "0".into())],
                body: b"Too many requests, please try again later.\n".to_vec(),
            },
            reply(200, r#"{"metadata":{"name":"n1","resourceVersion":"7"}}"#),
        ]);
        let client = client_for(&server);
        let node: api::Node = client.get("/api/v1/nodes/n1").unwrap();
        assert_eq!(node.metadata.name, "n1");
        let seen = server.finish();
        assert_eq!(seen.len(), 2);
        assert_eq!(seen[1].0, "GET");
        assert_eq!(seen[1].1, "/api/v1/nodes/n1");
        assert_eq!(seen[1].2.as_deref(), Some("Bearer sekret"));
    }

    #[test]
    fn a_deadline_bounds_requests_and_retries() {
        // Past the deadline nothing is sent; within it, 503s are retried only while time is left.
        let server = Server::start(vec![reply(503, "{}")]);
        let client = client_for(&server);
        let late = client.until(Instant::now());
        let err = late.get::<api::Node>("/api/v1/nodes/n1").unwrap_err();
        assert!(err.to_string().contains("deadline exceeded"), "{err}");
        let options = ClientOptions { qps: -1.0, retry_base_delay: Duration::from_secs(5), ..ClientOptions::default() };
        let slow_retries = Client::new(&client_for_url(&server.url), &options).unwrap();
        let start = Instant::now();
        let err = slow_retries.until(start + Duration::from_secs(2)).get::<api::Node>("/api/v1/nodes/n1").unwrap_err();
        assert_eq!(err.code(), Some(503));
        assert!(start.elapsed() < Duration::from_secs(2), "gave up instead of sleeping past the deadline");
        assert_eq!(server.finish().len(), 1);
    }

    #[test]
    fn binding_post_is_not_retried_on_503_but_get_is() {
        let server = Server::start(vec![reply(503, "{}"), reply(503, "{}"), reply(200, r#"{"items":[]}"#)]);
        let client = client_for(&server);
        let binding = api::Binding {
            kind: "Binding".into(),
            api_version: "v1".into(),
            metadata: api::ObjectMeta { name: "p".into(), ..Default::default() },
            target: api::ObjectReference { kind: "Node".into(), name: "n".into(), ..Default::default() },
        };
        let err = client.create::<_, serde_json::Value>("/api/v1/namespaces/ns/pods/p/binding", &binding).unwrap_err();
        assert_eq!(err.code(), Some(503));
        assert!(err.to_string().starts_with("POST /api/v1/namespaces/ns/pods/p/binding: 503 Service Unavailable"), "{err}");
        let list: ListPage<api::Pod> = client.list("/api/v1/pods", &ListParams::default()).unwrap();
        assert!(list.items.is_empty());
        let seen = server.finish();
        let methods: Vec<&str> = seen.iter().map(|s| s.0.as_str()).collect();
        assert_eq!(methods, vec!["POST", "GET", "GET"]);
    }

    #[test]
    fn status_error_is_returned_typed_and_token_never_in_message() {
        let body = String::from_utf8(fixture("status/status-409-conflict-binding-already-assigned.RECONSTRUCTED.json")).unwrap();
        let server = Server::start(vec![reply(409, &body)]);
        let client = client_for(&server);
        let err = client.delete("/api/v1/namespaces/ns/pods/p", Some("uid-1")).unwrap_err();
        assert!(err.is_conflict());
        assert!(!err.to_string().contains("sekret"));
        server.finish();
    }

    #[test]
    fn watch_streams_events_from_a_chunked_body() {
        let lines = concat!(
            "{\"type\":\"ADDED\",\"object\":{\"metadata\":{\"name\":\"a\",\"resourceVersion\":\"2\"}}}\n",
            "{\"type\":\"BOOKMARK\",\"object\":{\"metadata\":{\"resourceVersion\":\"3\"}}}\n",
        );
        let server = Server::start(vec![reply(200, lines)]);
        let client = client_for(&server);
        let params = WatchParams {
            resource_version: "1".into(),
            allow_watch_bookmarks: true,
            timeout_seconds: Some(300),
            ..Default::default()
        };
        let events: Vec<_> = client.watch::<api::Pod>("/api/v1/pods", &params).unwrap().collect::<Result<_, _>>().unwrap();
        assert_eq!(events.len(), 2);
        let seen = server.finish();
        assert_eq!(seen[0].1, "/api/v1/pods?watch=true&resourceVersion=1&timeoutSeconds=300&allowWatchBookmarks=true");
    }

    #[test]
    fn stalled_watch_ends_with_an_idle_error_and_sends_json_headers() {
        use std::io::Write;
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        let (release_tx, release_rx) = std::sync::mpsc::channel::<()>();
        let (head_tx, head_rx) = std::sync::mpsc::channel::<String>();
        let server = std::thread::spawn(move || {
            let (mut conn, _) = listener.accept().unwrap();
            let mut head = Vec::new();
            let mut byte = [0u8; 1];
            while !head.ends_with(b"\r\n\r\n") && conn.read(&mut byte).unwrap() == 1 {
                head.push(byte[0]);
            }
            head_tx.send(String::from_utf8_lossy(&head).to_lowercase()).unwrap();
            let event = "{\"type\":\"BOOKMARK\",\"object\":{\"metadata\":{\"resourceVersion\":\"5\"}}}\n";
            let reply = format!(
                "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n{:x}\r\n{event}\r\n",
                event.len()
            );
            conn.write_all(reply.as_bytes()).unwrap();
            conn.flush().unwrap();
            // Hold the connection open, silent, until the test is done.
            let _ = release_rx.recv();
        });
        let mut config = client_for_url(&format!("http://127.0.0.1:{port}"));
        config.token = None;
        let client = Client::new(&config, &ClientOptions { qps: -1.0, ..ClientOptions::default() }).unwrap();
        let params =
            WatchParams { resource_version: "4".into(), idle_timeout: Some(Duration::from_millis(300)), ..Default::default() };
        let mut stream = client.watch::<api::Pod>("/api/v1/pods", &params).unwrap();
        assert!(matches!(stream.next().unwrap().unwrap(), WatchEvent::Bookmark { resource_version } if resource_version == "5"));
        let err = stream.next().unwrap().unwrap_err();
        assert!(matches!(err, StreamError::Ended(ApiError::Transport { .. })), "{err:?}");
        assert!(err.to_string().contains("idle"), "{err}");
        assert!(stream.next().is_none());
        release_tx.send(()).unwrap();
        server.join().unwrap();
        let head = head_rx.recv().unwrap();
        assert!(head.contains("accept: application/json"), "{head}");
        assert!(head.contains("user-agent: edgesched/"), "{head}");
        assert!(head.starts_with("get /api/v1/pods?watch=true&resourceversion=4 "), "{head}");
    }

    #[test]
    fn watch_start_410_is_gone() {
        let body = String::from_utf8(fixture("status/status-410-expired-continue-token.json")).unwrap();
        let server = Server::start(vec![reply(410, &body)]);
        let client = client_for(&server);
        let err = client.watch::<api::Pod>("/api/v1/pods", &WatchParams::default()).err().unwrap();
        assert!(err.is_gone());
        server.finish();
    }

    #[test]
    fn connection_refused_is_a_transport_error() {
        // Bind and drop a listener to find a port nobody listens on.
        let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
        let config = RestConfig {
            server: format!("http://127.0.0.1:{port}"),
            ca_pem: None,
            client_cert_pem: None,
            client_key_pem: None,
            token: None,
            insecure_skip_tls_verify: true,
            tls_server_name: None,
            origin: "test".into(),
        };
        let options =
            ClientOptions { qps: -1.0, max_retries: 2, retry_base_delay: Duration::from_millis(1), ..ClientOptions::default() };
        let client = Client::new(&config, &options).unwrap();
        let err = client.get::<api::Node>("/api/v1/nodes/x").unwrap_err();
        assert!(matches!(err, ApiError::Refused { .. }), "{err:?}");
        assert!(err.to_string().starts_with("GET /api/v1/nodes/x: "), "{err}");
    }

    #[test]
    fn client_is_send_sync_and_clone() {
        fn assert_send_sync<T: Send + Sync + Clone>() {}
        assert_send_sync::<Client>();
    }
}
