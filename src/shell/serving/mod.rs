//! The health, readiness and metrics endpoints, served on plain threads.
//!
//! The secure port (default 10259) speaks HTTPS through rustls (the same rustls the API client
//! uses, so the tree keeps one TLS stack) with a small hand-written HTTP/1.1 handler ([`http`]);
//! the optional plain-HTTP port (`--port`, v1beta1 `healthzBindAddress`/`metricsBindAddress`)
//! uses the same handler. `/healthz`, `/livez` and `/readyz` are always allowed; `/metrics` and
//! `/configz` on the secure port need a bearer token the API server authenticates (TokenReview)
//! and authorises (SubjectAccessReview), as kube-scheduler's delegated auth does.

pub mod auth;
pub mod client_cert;
pub mod http;
pub mod identity;
pub mod reuseport;
pub mod selfsigned;
pub mod sni;
pub mod x509;

use crate::core::metrics::Metrics;
use http::{Limits, Request, Response};
use log::{info, warn};
use std::cell::Cell;
use std::io::{self, Read, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::rc::Rc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// One named health check (`[+]name ok` / `[-]name failed: reason withheld`).
pub trait Check: Send + Sync {
    fn name(&self) -> &str;
    /// `Ok(note)`: healthy, with an optional note shown after `ok` in verbose output (such as
    /// "standing by"); `Err(reason)`: failing.
    fn check(&self) -> Result<Option<String>, String>;
    /// Whether verbose output may show the failure reason instead of "reason withheld" (the
    /// probe paths are unauthenticated, so only reasons that reveal nothing sensitive, such as
    /// a missing RBAC permission, are shown).
    fn shows_reason(&self) -> bool {
        false
    }
}

/// A check backed by a closure.
pub struct FnCheck<F: Fn() -> Result<Option<String>, String> + Send + Sync> {
    pub name: &'static str,
    pub shows_reason: bool,
    pub f: F,
}

impl<F: Fn() -> Result<Option<String>, String> + Send + Sync> Check for FnCheck<F> {
    fn name(&self) -> &str {
        self.name
    }
    fn check(&self) -> Result<Option<String>, String> {
        (self.f)()
    }
    fn shows_reason(&self) -> bool {
        self.shows_reason
    }
}

/// What the endpoints report on; shared with the rest of the process.
pub struct HealthState {
    pub healthz: Vec<Arc<dyn Check>>,
    pub livez: Vec<Arc<dyn Check>>,
    pub readyz: Vec<Arc<dyn Check>>,
    pub metrics: Metrics,
    /// The effective configuration as JSON (`/configz`); never contains credentials.
    pub configz: Mutex<String>,
    pub shutting_down: AtomicBool,
}

/// How a request to a protected path is decided.
pub trait Authorizer: Send + Sync {
    /// `Ok(())` to allow; `Err(status)` with 401 (no/invalid credentials) or 403 (forbidden).
    fn authorize(&self, req: &Request) -> Result<(), (u16, String)>;
}

/// Lets every request through (the plain-HTTP port, and tests).
pub struct AllowAll;

impl Authorizer for AllowAll {
    fn authorize(&self, _req: &Request) -> Result<(), (u16, String)> {
        Ok(())
    }
}

/// Paths answered without authentication (`--authorization-always-allow-paths`).
#[derive(Debug, Clone)]
pub struct AllowPaths(pub Vec<String>);

impl AllowPaths {
    pub fn allows(&self, path: &str) -> bool {
        self.0.iter().any(|p| if let Some(prefix) = p.strip_suffix('*') { path.starts_with(prefix) } else { p == path })
    }
}

impl Default for AllowPaths {
    fn default() -> Self {
        AllowPaths(vec!["/healthz".into(), "/readyz".into(), "/livez".into()])
    }
}

fn run_checks(checks: &[Arc<dyn Check>], name: &str, verbose: bool, exclude: &[&str]) -> Response {
    let mut out = String::new();
    let mut failed = false;
    out.push_str("[+]ping ok\n");
    for c in checks {
        if exclude.contains(&c.name()) {
            out.push_str(&format!("[+]{} excluded: ok\n", c.name()));
            continue;
        }
        match c.check() {
            Ok(None) => out.push_str(&format!("[+]{} ok\n", c.name())),
            Ok(Some(note)) => out.push_str(&format!("[+]{} ok: {note}\n", c.name())),
            Err(reason) => {
                failed = true;
                warn!("{name} check failed: {}: {reason}", c.name());
                let shown = if c.shows_reason() { reason.as_str() } else { "reason withheld" };
                out.push_str(&format!("[-]{} failed: {shown}\n", c.name()));
            }
        }
    }
    if failed {
        out.push_str(&format!("{name} check failed\n"));
        return Response::text(500, out);
    }
    if verbose {
        out.push_str(&format!("{name} check passed\n"));
        Response::text(200, out)
    } else {
        Response::text(200, "ok")
    }
}

/// Route one request.
pub fn route(state: &HealthState, authz: &dyn Authorizer, allow: &AllowPaths, req: &Request) -> Response {
    if req.method != "GET" && req.method != "HEAD" {
        return Response::text(405, "method not allowed\n");
    }
    if !allow.allows(&req.path) {
        if let Err((code, msg)) = authz.authorize(req) {
            // Authorizers answer with a metav1.Status body, as the apiserver filters do.
            let kind = if msg.starts_with('{') { "application/json" } else { "text/plain; charset=utf-8" };
            return Response::text(code, msg).with_type(kind);
        }
    }
    let verbose = req.has_query_flag("verbose");
    let excluded: Vec<&str> = req.query.split('&').filter_map(|kv| kv.strip_prefix("exclude=")).collect();
    match req.path.as_str() {
        "/healthz" | "/healthz/" => run_checks(&state.healthz, "healthz", verbose, &excluded),
        "/livez" | "/livez/" => run_checks(&state.livez, "livez", verbose, &excluded),
        "/readyz" | "/readyz/" => {
            if state.shutting_down.load(Ordering::SeqCst) {
                return Response::text(500, "[-]shutdown failed: reason withheld\nreadyz check failed\n");
            }
            run_checks(&state.readyz, "readyz", verbose, &excluded)
        }
        "/metrics" => {
            crate::shell::process::metrics::collect(&state.metrics);
            Response::text(200, state.metrics.render()).with_type("text/plain; version=0.0.4; charset=utf-8")
        }
        "/configz" => {
            let body = match state.configz.lock() {
                Ok(g) => g.clone(),
                Err(p) => p.into_inner().clone(),
            };
            Response::text(200, body).with_type("application/json")
        }
        p if p.starts_with("/healthz/") || p.starts_with("/livez/") || p.starts_with("/readyz/") => {
            let (group, check) = p.trim_start_matches('/').split_once('/').unwrap_or(("", ""));
            let list = match group {
                "healthz" => &state.healthz,
                "livez" => &state.livez,
                _ => &state.readyz,
            };
            if check == "ping" {
                return Response::text(200, "ok");
            }
            match list.iter().find(|c| c.name() == check) {
                Some(c) => match c.check() {
                    Ok(_) => Response::text(200, "ok"),
                    Err(_) => Response::text(500, "internal server error: reason withheld\n"),
                },
                None => Response::text(404, "404 page not found\n"),
            }
        }
        _ => Response::text(404, "404 page not found\n"),
    }
}

/// Connection and timing limits of a listener.
#[derive(Debug, Clone, Copy)]
pub struct ServeLimits {
    pub http: Limits,
    pub max_connections: usize,
    /// Per-read timeout; a client silent for longer is disconnected.
    pub read_timeout: Duration,
    pub write_timeout: Duration,
    /// Longest time from accepting a connection (or answering its previous request) until the
    /// next request has fully arrived, TLS handshake included. The per-read timeout alone would
    /// let a slow-loris client that sends one byte every few seconds hold a connection (and, with
    /// enough of them, every connection slot) forever.
    pub request_timeout: Duration,
}

impl Default for ServeLimits {
    fn default() -> Self {
        ServeLimits {
            http: Limits::default(),
            max_connections: 128,
            read_timeout: Duration::from_secs(10),
            write_timeout: Duration::from_secs(10),
            request_timeout: Duration::from_secs(15),
        }
    }
}

/// A bound listener, ready to serve.
pub struct Listener {
    pub addr: SocketAddr,
    inner: TcpListener,
    tls: Option<Arc<rustls::ServerConfig>>,
    client_auth: Option<Arc<client_cert::ClientAuth>>,
}

impl Listener {
    /// Identify clients by their certificates (the TLS configuration must ask for them:
    /// [`tls_config`] with the same [`client_cert::ClientAuth`]).
    pub fn with_client_auth(mut self, client_auth: Option<Arc<client_cert::ClientAuth>>) -> Listener {
        self.client_auth = client_auth;
        self
    }
}

/// Why serving could not start. Each variant names what the operator has to fix: the address,
/// the flag and file, or the pair of flags.
#[derive(Debug)]
pub enum ServeError {
    /// The address could not be bound (in use, no permission, not a local address).
    Listen { addr: SocketAddr, source: io::Error },
    /// A certificate or key file given by `flag` could not be read or holds nothing usable.
    File { flag: &'static str, path: std::path::PathBuf, problem: String },
    /// Only one of `--tls-cert-file` and `--tls-private-key-file` was given.
    IncompletePair,
    /// The in-memory self-signed certificate could not be generated.
    SelfSigned(selfsigned::CertError),
    /// rustls refused the certificate and key (e.g. they do not belong together).
    Tls(rustls::Error),
}

impl std::fmt::Display for ServeError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ServeError::Listen { addr, source } => write!(f, "failed to listen on {addr}: {source}"),
            ServeError::File { flag, path, problem } => write!(f, "{flag} {}: {problem}", path.display()),
            ServeError::IncompletePair => f.write_str("--tls-cert-file and --tls-private-key-file must be given together"),
            ServeError::SelfSigned(e) => write!(f, "{e}"),
            ServeError::Tls(e) => write!(f, "serving certificate and key do not match: {e}"),
        }
    }
}

impl std::error::Error for ServeError {}

/// Bind a listener (HTTPS when `tls` is given); `share_port` sets `SO_REUSEPORT`
/// (`--permit-port-sharing`).
pub fn bind(addr: SocketAddr, tls: Option<Arc<rustls::ServerConfig>>, share_port: bool) -> Result<Listener, ServeError> {
    let inner = if share_port { reuseport::listen(addr) } else { TcpListener::bind(addr) }
        .map_err(|source| ServeError::Listen { addr, source })?;
    let addr = inner.local_addr().map_err(|source| ServeError::Listen { addr, source })?;
    Ok(Listener { addr, inner, tls, client_auth: None })
}

/// Serve a listener on its own accept thread until the process exits.
pub fn spawn(
    listener: Listener,
    state: Arc<HealthState>,
    authz: Arc<dyn Authorizer>,
    allow: AllowPaths,
    limits: ServeLimits,
) -> io::Result<std::thread::JoinHandle<()>> {
    let secure = listener.tls.is_some();
    crate::core::logging::Line::new(if secure { "Serving securely" } else { "Serving insecurely" })
        .s("address", listener.addr)
        .info();
    let active = Arc::new(AtomicUsize::new(0));
    std::thread::Builder::new().name(format!("serve-{}", listener.addr.port())).spawn(move || {
        for conn in listener.inner.incoming() {
            let stream = match conn {
                Ok(s) => s,
                Err(e) => {
                    warn!("accept failed: {e}");
                    std::thread::sleep(Duration::from_millis(50));
                    continue;
                }
            };
            if active.load(Ordering::SeqCst) >= limits.max_connections {
                // Over the cap: refuse quickly instead of queueing a thread.
                let mut s = stream;
                let _ = s.set_write_timeout(Some(Duration::from_millis(200)));
                let _ = s.write_all(b"HTTP/1.1 503 Service Unavailable\r\nContent-Length: 0\r\nConnection: close\r\n\r\n");
                continue;
            }
            active.fetch_add(1, Ordering::SeqCst);
            let (state, authz, allow, active, tls) =
                (state.clone(), authz.clone(), allow.clone(), active.clone(), listener.tls.clone());
            let client_auth = listener.client_auth.clone();
            let spawned = std::thread::Builder::new().name("serve-conn".into()).spawn(move || {
                let tls = tls.map(|cfg| (cfg, client_auth));
                let _ = handle_connection(stream, tls, &state, &*authz, &allow, &limits);
                active.fetch_sub(1, Ordering::SeqCst);
            });
            if spawned.is_err() {
                warn!("could not start a connection thread");
            }
        }
    })
}

fn handle_connection(
    stream: TcpStream,
    tls: Option<(Arc<rustls::ServerConfig>, Option<Arc<client_cert::ClientAuth>>)>,
    state: &HealthState,
    authz: &dyn Authorizer,
    allow: &AllowPaths,
    limits: &ServeLimits,
) -> io::Result<()> {
    stream.set_read_timeout(Some(limits.read_timeout))?;
    stream.set_write_timeout(Some(limits.write_timeout))?;
    let _ = stream.set_nodelay(true);
    let deadline = Rc::new(Cell::new(Instant::now() + limits.request_timeout));
    let stream = DeadlineStream { inner: stream, deadline: deadline.clone(), read_timeout: limits.read_timeout };
    let handler = |req: &Request, peer: Option<&client_cert::Peer>| {
        let resp = match peer {
            Some(peer) => {
                let mut req = req.clone();
                req.client_cert = peer.identify(&req.headers);
                route(state, authz, allow, &req)
            }
            None => route(state, authz, allow, req),
        };
        // The next request on this keep-alive connection gets a fresh allowance.
        deadline.set(Instant::now() + limits.request_timeout);
        resp
    };
    match tls {
        Some((cfg, client_auth)) => {
            if plain_http_on_tls_port(&stream.inner) {
                // Go's net/http answer to plain HTTP on a TLS listener, byte for byte.
                let mut raw = &stream.inner;
                let _ = raw.write_all(b"HTTP/1.0 400 Bad Request\r\n\r\nClient sent an HTTP request to an HTTPS server.\n");
                return Ok(());
            }
            let conn = rustls::ServerConnection::new(cfg).map_err(|e| io::Error::other(e.to_string()))?;
            let mut s = rustls::StreamOwned::new(conn, stream);
            let peer = match &client_auth {
                Some(auth) => {
                    while s.conn.is_handshaking() {
                        s.conn.complete_io(&mut s.sock)?;
                    }
                    Some(auth.peer(s.conn.peer_certificates()))
                }
                None => None,
            };
            http::serve_connection(&mut s, &limits.http, |req| handler(req, peer.as_ref()))?;
            s.conn.send_close_notify();
            let _ = s.flush();
            Ok(())
        }
        None => {
            let mut s = stream;
            http::serve_connection(&mut s, &limits.http, |req| handler(req, None))
        }
    }
}

/// Whether the first bytes on a TLS port are an HTTP request line instead of a TLS record
/// (`tlsRecordHeaderLooksLikeHTTP` in Go's net/http).
fn plain_http_on_tls_port(stream: &TcpStream) -> bool {
    let mut head = [0u8; 5];
    match stream.peek(&mut head) {
        Ok(n) if n >= 5 => matches!(&head, b"GET /" | b"HEAD " | b"POST " | b"PUT /" | b"OPTIO"),
        _ => false,
    }
}

/// A TCP stream whose reads fail once the current request's deadline has passed: each read waits
/// at most the per-read timeout and never beyond the deadline. Sits under rustls, so the TLS
/// handshake is bounded too.
struct DeadlineStream {
    inner: TcpStream,
    deadline: Rc<Cell<Instant>>,
    read_timeout: Duration,
}

impl Read for DeadlineStream {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let remaining = self.deadline.get().saturating_duration_since(Instant::now());
        if remaining.is_zero() {
            return Err(io::Error::new(io::ErrorKind::TimedOut, "request not received within the request timeout"));
        }
        self.inner.set_read_timeout(Some(remaining.min(self.read_timeout)))?;
        self.inner.read(buf)
    }
}

impl Write for DeadlineStream {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.inner.write(buf)
    }
    fn flush(&mut self) -> io::Result<()> {
        self.inner.flush()
    }
}

/// `--tls-min-version` and `--tls-cipher-suites`, as validated by [`tls_policy`].
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TlsPolicy {
    /// Only TLS 1.3 (`VersionTLS13`); otherwise TLS 1.2 and 1.3.
    pub tls13_only: bool,
    /// The TLS 1.2 suites allowed (rustls names); empty means rustls' safe defaults. TLS 1.3
    /// suites are not configurable, as in Go.
    pub tls12_suites: Vec<String>,
}

/// Go's name of a suite as rustls names it (`TLS_AES_128_GCM_SHA256` → `TLS13_AES_128_GCM_SHA256`,
/// `..._CHACHA20_POLY1305` → `..._CHACHA20_POLY1305_SHA256`).
fn rustls_suite_name(go: &str) -> String {
    if go.starts_with("TLS_AES_") || go.starts_with("TLS_CHACHA20_") {
        return format!("TLS13_{}", &go[4..]);
    }
    if go.ends_with("_CHACHA20_POLY1305") {
        return format!("{go}_SHA256");
    }
    go.to_string()
}

/// Validate `--tls-min-version` and `--tls-cipher-suites` with component-base's messages; returns
/// the policy and warnings for what the TLS stack cannot honour (TLS 1.0/1.1, CBC/RSA/3DES/RC4
/// suites rustls does not implement).
pub fn tls_policy(min_version: Option<&str>, suites: &[String]) -> Result<(TlsPolicy, Vec<String>), String> {
    const KNOWN_INSECURE_OR_CBC: &[&str] = &[
        "TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA",
        "TLS_ECDHE_ECDSA_WITH_AES_256_CBC_SHA",
        "TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA",
        "TLS_ECDHE_RSA_WITH_AES_256_CBC_SHA",
        "TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA256",
        "TLS_ECDHE_ECDSA_WITH_RC4_128_SHA",
        "TLS_ECDHE_RSA_WITH_3DES_EDE_CBC_SHA",
        "TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA256",
        "TLS_ECDHE_RSA_WITH_RC4_128_SHA",
        "TLS_RSA_WITH_3DES_EDE_CBC_SHA",
        "TLS_RSA_WITH_AES_128_CBC_SHA",
        "TLS_RSA_WITH_AES_128_CBC_SHA256",
        "TLS_RSA_WITH_AES_128_GCM_SHA256",
        "TLS_RSA_WITH_AES_256_CBC_SHA",
        "TLS_RSA_WITH_AES_256_GCM_SHA384",
        "TLS_RSA_WITH_RC4_128_SHA",
    ];
    let mut warnings = Vec::new();
    let tls13_only = match min_version.unwrap_or("") {
        "" | "VersionTLS12" => false,
        "VersionTLS13" => true,
        v @ ("VersionTLS10" | "VersionTLS11") => {
            warnings.push(format!("--tls-min-version={v}: TLS 1.0 and 1.1 are not implemented; TLS 1.2 is the minimum"));
            false
        }
        v => return Err(format!("--tls-min-version: unknown tls version {v:?}")),
    };
    let provider = rustls::crypto::ring::default_provider();
    let mut tls12_suites = Vec::new();
    for go in suites {
        let name = rustls_suite_name(go);
        match provider.cipher_suites.iter().find(|s| format!("{:?}", s.suite()) == name) {
            Some(s) if s.tls13().is_some() => {}
            Some(_) => tls12_suites.push(name),
            None if KNOWN_INSECURE_OR_CBC.contains(&go.as_str()) => {
                warnings.push(format!("--tls-cipher-suites: {go} is not implemented by edgesched's TLS stack; not offered"))
            }
            None => return Err(format!("--tls-cipher-suites: Cipher suite {go} not supported or doesn't exist")),
        }
    }
    if !suites.is_empty() && tls12_suites.is_empty() && !tls13_only {
        warnings.push("--tls-cipher-suites: none of the TLS 1.2 suites is available; only TLS 1.3 is offered".into());
    }
    let only13 = tls13_only || (!suites.is_empty() && tls12_suites.is_empty());
    Ok((TlsPolicy { tls13_only: only13, tls12_suites }, warnings))
}

/// `--cert-dir`: the serving pair `kube-scheduler.crt`/`.key` there (upstream's PairName),
/// generated self-signed and written on first start, read back afterwards.
pub fn cert_dir_pair(dir: &std::path::Path, hostname: &str) -> Result<(std::path::PathBuf, std::path::PathBuf), ServeError> {
    let (cert, key) = (dir.join("kube-scheduler.crt"), dir.join("kube-scheduler.key"));
    if cert.exists() && key.exists() {
        return Ok((cert, key));
    }
    let file_error = |path: &std::path::Path, e: io::Error| ServeError::File {
        flag: "--cert-dir",
        path: path.to_path_buf(),
        problem: e.to_string(),
    };
    let loopback = std::net::IpAddr::V4(std::net::Ipv4Addr::LOCALHOST);
    let pair = selfsigned::generate(
        hostname,
        &["localhost".to_string(), hostname.to_string()],
        &[loopback],
        std::time::SystemTime::now(),
    )
    .map_err(ServeError::SelfSigned)?;
    std::fs::create_dir_all(dir).map_err(|e| file_error(dir, e))?;
    std::fs::write(&cert, pair.cert_pem()).map_err(|e| file_error(&cert, e))?;
    {
        use std::os::unix::fs::OpenOptionsExt;
        let mut f = std::fs::OpenOptions::new()
            .write(true)
            .create(true)
            .truncate(true)
            .mode(0o600)
            .open(&key)
            .map_err(|e| file_error(&key, e))?;
        f.write_all(pair.key_pem().as_bytes()).map_err(|e| file_error(&key, e))?;
    }
    crate::core::logging::Line::new("Generated self-signed cert").s("cert", cert.display()).s("key", key.display()).info();
    Ok((cert, key))
}

/// Build the HTTPS configuration from PEM files, or an in-memory self-signed certificate.
pub fn tls_config(
    cert_file: Option<&std::path::Path>,
    key_file: Option<&std::path::Path>,
    hostname: &str,
    policy: &TlsPolicy,
    client_auth: Option<&client_cert::ClientAuth>,
    sni: &[sni::NamedCertKey],
) -> Result<Arc<rustls::ServerConfig>, ServeError> {
    use rustls::pki_types::{CertificateDer, PrivateKeyDer, PrivatePkcs8KeyDer};
    let (certs, key) = match (cert_file, key_file) {
        (Some(c), Some(k)) => read_pair(c, k, "--tls-cert-file", "--tls-private-key-file")?,
        (None, None) => {
            let loopback = std::net::IpAddr::V4(std::net::Ipv4Addr::LOCALHOST);
            let cert = selfsigned::generate(
                hostname,
                &["localhost".to_string(), hostname.to_string()],
                &[loopback],
                std::time::SystemTime::now(),
            )
            .map_err(ServeError::SelfSigned)?;
            info!("Generated self-signed cert in-memory");
            (vec![CertificateDer::from(cert.cert_der)], PrivateKeyDer::Pkcs8(PrivatePkcs8KeyDer::from(cert.key_pkcs8_der)))
        }
        _ => return Err(ServeError::IncompletePair),
    };
    let mut provider = rustls::crypto::ring::default_provider();
    if !policy.tls12_suites.is_empty() || policy.tls13_only {
        provider.cipher_suites.retain(|s| s.tls13().is_some() || policy.tls12_suites.contains(&format!("{:?}", s.suite())));
    }
    let versions: &[&rustls::SupportedProtocolVersion] =
        if policy.tls13_only { &[&rustls::version::TLS13] } else { &[&rustls::version::TLS13, &rustls::version::TLS12] };
    let builder = rustls::ServerConfig::builder_with_provider(Arc::new(provider))
        .with_protocol_versions(versions)
        .map_err(ServeError::Tls)?;
    let builder = match client_auth {
        Some(auth) => builder.with_client_cert_verifier(auth.handshake_verifier()),
        None => builder.with_no_client_auth(),
    };
    if sni.is_empty() {
        return Ok(Arc::new(builder.with_single_cert(certs, key).map_err(ServeError::Tls)?));
    }
    let keys = builder.crypto_provider().key_provider;
    let certified = |certs: Vec<CertificateDer<'static>>, key: PrivateKeyDer<'static>| {
        let signing = keys.load_private_key(key).map_err(ServeError::Tls)?;
        let ck = rustls::sign::CertifiedKey::new(certs, signing);
        ck.keys_match().map_err(ServeError::Tls)?;
        Ok::<_, ServeError>(Arc::new(ck))
    };
    let default = certified(certs, key)?;
    let resolver = sni::SniResolver::new(default, sni, |nck| {
        let (certs, key) = read_pair(&nck.cert, &nck.key, "--tls-sni-cert-key", "--tls-sni-cert-key")?;
        certified(certs, key)
    })?;
    Ok(Arc::new(builder.with_cert_resolver(Arc::new(resolver))))
}

/// A PEM certificate chain and its private key, the flags named in errors.
fn read_pair(
    cert: &std::path::Path,
    key: &std::path::Path,
    cert_flag: &'static str,
    key_flag: &'static str,
) -> Result<(Vec<rustls::pki_types::CertificateDer<'static>>, rustls::pki_types::PrivateKeyDer<'static>), ServeError> {
    use rustls::pki_types::pem::PemObject;
    use rustls::pki_types::{CertificateDer, PrivateKeyDer};
    let file_error = |flag: &'static str, path: &std::path::Path, problem: String| ServeError::File {
        flag,
        path: path.to_path_buf(),
        problem,
    };
    let mut pem = Vec::new();
    std::fs::File::open(cert)
        .and_then(|mut f| f.read_to_end(&mut pem))
        .map_err(|e| file_error(cert_flag, cert, e.to_string()))?;
    let certs: Vec<CertificateDer<'static>> =
        CertificateDer::pem_slice_iter(&pem).collect::<Result<_, _>>().map_err(|e| file_error(cert_flag, cert, e.to_string()))?;
    if certs.is_empty() {
        return Err(file_error(cert_flag, cert, "no certificate found".into()));
    }
    let mut kpem = Vec::new();
    std::fs::File::open(key).and_then(|mut f| f.read_to_end(&mut kpem)).map_err(|e| file_error(key_flag, key, e.to_string()))?;
    let private = PrivateKeyDer::from_pem_slice(&kpem).map_err(|e| file_error(key_flag, key, e.to_string()))?;
    Ok((certs, private))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn req(path: &str, query: &str) -> Request {
        Request {
            method: "GET".into(),
            path: path.into(),
            query: query.into(),
            headers: vec![],
            body: vec![],
            close: false,
            client_cert: Default::default(),
        }
    }

    struct Deny;
    impl Authorizer for Deny {
        fn authorize(&self, _: &Request) -> Result<(), (u16, String)> {
            Err((401, "Unauthorized".into()))
        }
    }

    fn state(ready: bool) -> HealthState {
        let flag = Arc::new(AtomicBool::new(ready));
        let f2 = flag.clone();
        HealthState {
            healthz: vec![],
            livez: vec![],
            readyz: vec![Arc::new(FnCheck {
                name: "sched-handler-sync",
                shows_reason: false,
                f: move || if f2.load(Ordering::SeqCst) { Ok(None) } else { Err("not synced".into()) },
            })],
            metrics: Metrics::new(),
            configz: Mutex::new("{}".into()),
            shutting_down: AtomicBool::new(false),
        }
    }

    #[test]
    fn probes_are_always_allowed_metrics_are_not() {
        let s = state(true);
        let allow = AllowPaths::default();
        assert_eq!(route(&s, &Deny, &allow, &req("/healthz", "")).status, 200);
        assert_eq!(route(&s, &Deny, &allow, &req("/readyz", "")).body, b"ok");
        assert_eq!(route(&s, &Deny, &allow, &req("/metrics", "")).status, 401);
        assert_eq!(route(&s, &AllowAll, &allow, &req("/metrics", "")).status, 200);
        assert_eq!(route(&s, &AllowAll, &allow, &req("/nope", "")).status, 404);
    }

    #[test]
    fn readiness_reflects_checks_and_shutdown() {
        let s = state(false);
        let allow = AllowPaths::default();
        let r = route(&s, &AllowAll, &allow, &req("/readyz", "verbose"));
        assert_eq!(r.status, 500);
        let body = String::from_utf8(r.body).expect("utf8");
        assert!(
            body.contains("[-]sched-handler-sync failed: reason withheld") && body.ends_with("readyz check failed\n"),
            "{body}"
        );
        let s = state(true);
        let r = route(&s, &AllowAll, &allow, &req("/readyz", "verbose"));
        assert!(String::from_utf8(r.body).expect("utf8").ends_with("readyz check passed\n"));
        s.shutting_down.store(true, Ordering::SeqCst);
        assert_eq!(route(&s, &AllowAll, &allow, &req("/readyz", "")).status, 500);
    }

    /// Whether the server has closed `conn`: EOF or reset on a short read.
    fn closed_by_server(conn: &mut TcpStream) -> bool {
        let mut buf = [0u8; 512];
        conn.set_read_timeout(Some(Duration::from_millis(20))).expect("timeout");
        match conn.read(&mut buf) {
            Ok(0) => true,
            Ok(_) => false, // an error response, the close follows
            Err(e) => !matches!(e.kind(), io::ErrorKind::WouldBlock | io::ErrorKind::TimedOut),
        }
    }

    #[test]
    fn slow_loris_clients_are_cut_off_and_do_not_starve_others() {
        let listener = bind("127.0.0.1:0".parse().expect("addr"), None, false).expect("bind");
        let addr = listener.addr;
        let limits = ServeLimits {
            max_connections: 2,
            read_timeout: Duration::from_secs(5),
            request_timeout: Duration::from_millis(300),
            ..ServeLimits::default()
        };
        spawn(listener, Arc::new(state(true)), Arc::new(AllowAll), AllowPaths::default(), limits).expect("spawn");
        // Two clients (every slot) dribble a never-ending header, one byte per 20 ms: each read
        // comes well within the per-read timeout, so only the request deadline can stop them.
        let mut slow: Vec<TcpStream> = (0..2).map(|_| TcpStream::connect(addr).expect("connect")).collect();
        let head = b"GET /healthz HTTP/1.1\r\nX-Slow: ";
        let mut closed = [false; 2];
        for i in 0..2000 {
            for (conn, done) in slow.iter_mut().zip(closed.iter_mut()) {
                if *done {
                    continue;
                }
                let byte = if i < head.len() { head[i] } else { b'a' };
                *done = conn.write_all(&[byte]).is_err() || closed_by_server(conn);
            }
            if closed.iter().all(|c| *c) {
                break;
            }
        }
        assert_eq!(closed, [true, true], "slow clients still connected after 2000 bytes");
        // The slots are free again: a normal client is served.
        let mut ok = TcpStream::connect(addr).expect("connect");
        ok.write_all(b"GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n").expect("write");
        let mut out = String::new();
        ok.set_read_timeout(Some(Duration::from_secs(5))).expect("timeout");
        ok.read_to_string(&mut out).expect("read");
        assert!(out.starts_with("HTTP/1.1 200"), "{out}");
    }

    /// A CA and a leaf for `names`, PEM files in `dir` (cert, key).
    fn issue(
        dir: &std::path::Path,
        tag: &str,
        ca: &(rcgen::Issuer<'static, rcgen::KeyPair>, String),
        names: &[&str],
    ) -> (std::path::PathBuf, std::path::PathBuf) {
        let params = rcgen::CertificateParams::new(names.iter().map(|n| n.to_string()).collect::<Vec<_>>()).expect("params");
        let key = rcgen::KeyPair::generate().expect("key");
        let cert = params.signed_by(&key, &ca.0).expect("sign");
        let (c, k) = (dir.join(format!("{tag}.crt")), dir.join(format!("{tag}.key")));
        std::fs::write(&c, cert.pem()).expect("write");
        std::fs::write(&k, key.serialize_pem()).expect("write");
        (c, k)
    }

    /// Handshake in memory as `server_name`, trusting only `ca_pem`: whether it verifies.
    fn handshake(cfg: Arc<rustls::ServerConfig>, ca_pem: &str, server_name: &str) -> bool {
        use rustls::pki_types::pem::PemObject;
        let mut roots = rustls::RootCertStore::empty();
        roots.add(rustls::pki_types::CertificateDer::from_pem_slice(ca_pem.as_bytes()).expect("ca")).expect("root");
        let client_cfg = rustls::ClientConfig::builder_with_provider(Arc::new(rustls::crypto::ring::default_provider()))
            .with_safe_default_protocol_versions()
            .expect("versions")
            .with_root_certificates(roots)
            .with_no_client_auth();
        let name = rustls::pki_types::ServerName::try_from(server_name.to_string()).expect("name");
        let mut client = rustls::ClientConnection::new(Arc::new(client_cfg), name).expect("client");
        let mut server = rustls::ServerConnection::new(cfg).expect("server");
        for _ in 0..10 {
            let mut buf = Vec::new();
            let _ = client.write_tls(&mut buf);
            if server.read_tls(&mut buf.as_slice()).is_ok() && server.process_new_packets().is_err() {
                return false;
            }
            let mut buf = Vec::new();
            let _ = server.write_tls(&mut buf);
            if client.read_tls(&mut buf.as_slice()).is_ok() && client.process_new_packets().is_err() {
                return false;
            }
            if !client.is_handshaking() && !server.is_handshaking() {
                return true;
            }
        }
        false
    }

    /// `--tls-sni-cert-key`: the named certificate for its names (explicit, wildcard, or read
    /// from the certificate), the default one for the rest.
    #[test]
    fn sni_picks_the_named_certificate() {
        let dir = crate::core::scratch::ScratchDir::new("sni");
        let ca_key = rcgen::KeyPair::generate().expect("key");
        let mut ca_params = rcgen::CertificateParams::new(Vec::<String>::new()).expect("params");
        ca_params.is_ca = rcgen::IsCa::Ca(rcgen::BasicConstraints::Unconstrained);
        let ca_pem = ca_params.self_signed(&ca_key).expect("ca").pem();
        let ca = (rcgen::Issuer::new(ca_params, ca_key), ca_pem.clone());
        let (dc, dk) = issue(&dir, "default", &ca, &["localhost"]);
        let (nc, nk) = issue(&dir, "named", &ca, &["api.example", "x.wild.example"]);
        let (ec, ek) = issue(&dir, "extracted", &ca, &["extracted.example"]);
        let sni = vec![
            sni::NamedCertKey { cert: nc, key: nk, names: vec!["api.example".into(), "*.wild.example".into()] },
            sni::NamedCertKey { cert: ec, key: ek, names: vec![] },
        ];
        let cfg = tls_config(Some(&dc), Some(&dk), "h", &TlsPolicy::default(), None, &sni).expect("config");
        let ok = |name: &str| handshake(cfg.clone(), &ca_pem, name);
        assert!(ok("localhost"), "default certificate");
        assert!(ok("api.example"), "explicit name");
        assert!(ok("x.wild.example"), "wildcard");
        assert!(ok("extracted.example"), "name read from the certificate");
        assert!(!ok("other.example"), "unknown names get the default certificate");
    }
}
