//! The HTTP side of extenders: one ureq agent per configured extender, implementing the core's
//! [`ExtenderTransport`] port (pkg/scheduler/extender.go `makeTransport`, `NewHTTPExtender`,
//! `send`).
//!
//! TLS follows upstream: `tlsConfig` fields map to a client TLS configuration; with
//! `enableHTTPS` and no CA the server certificate is not verified (upstream sets `Insecure`).
//! `httpTimeout` bounds the whole exchange (5 s when zero). Only `200 OK` is a reply; any other
//! status is `failed <verb> with extender at URL <url>, code <code>`.

use crate::core::config::{Extender, ExtenderTls};
use crate::core::extender::ExtenderTransport;
use crate::core::texts::extender as texts;
use crate::shell::kube::base64;
use crate::shell::kube::kubeconfig::RestConfig;
use crate::shell::kube::tls::{build_tls_config, TlsError};
use std::fmt;
use std::io::Read;
use std::time::Duration;

/// `DefaultExtenderTimeout`.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(5);

/// Largest reply accepted from an extender (a generous bound against a runaway server).
const MAX_REPLY_BYTES: u64 = 64 * 1024 * 1024;

/// Why an extender's client cannot be built (bad TLS material); names the extender.
#[derive(Debug)]
pub enum ExtenderClientError {
    /// A `*File` could not be read.
    File {
        extender: String,
        field: &'static str,
        path: String,
        source: std::io::Error,
    },
    /// A `*Data` field is not base64.
    Base64 {
        extender: String,
        field: &'static str,
    },
    Tls {
        extender: String,
        error: TlsError,
    },
}

impl fmt::Display for ExtenderClientError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ExtenderClientError::File { extender, field, path, source } => {
                write!(f, "extender {extender}: tlsConfig.{field} {path:?}: {source}")
            }
            ExtenderClientError::Base64 { extender, field } => {
                write!(f, "extender {extender}: tlsConfig.{field} is not valid base64")
            }
            ExtenderClientError::Tls { extender, error } => write!(f, "extender {extender}: {error}"),
        }
    }
}

impl std::error::Error for ExtenderClientError {}

struct Endpoint {
    /// Where requests go: the `urlPrefix`, or with `tlsConfig.serverName` as its host.
    url_prefix: String,
    /// The `urlPrefix` as configured (error messages name it).
    configured: String,
    /// `Host` header when the request URL carries the server name instead of the real host.
    host_header: Option<String>,
    agent: ureq::Agent,
}

/// Resolves the configured server name to the `urlPrefix`'s own host: with
/// `tlsConfig.serverName` the request URL carries that name (so rustls sends it as SNI and
/// verifies the certificate against it, as Go's `tls.Config.ServerName`), while the connection
/// still goes where the `urlPrefix` points.
#[derive(Debug)]
struct ServerNameResolver {
    server_name: String,
    /// The `urlPrefix`'s scheme and authority (`https://10.0.0.5:8443`).
    real: ureq::http::Uri,
}

impl ureq::unversioned::resolver::Resolver for ServerNameResolver {
    fn resolve(
        &self,
        uri: &ureq::http::Uri,
        config: &ureq::config::Config,
        timeout: ureq::unversioned::transport::NextTimeout,
    ) -> Result<ureq::unversioned::resolver::ResolvedSocketAddrs, ureq::Error> {
        let target = if uri.host().is_some_and(|h| h.eq_ignore_ascii_case(&self.server_name)) { &self.real } else { uri };
        ureq::unversioned::resolver::DefaultResolver::default().resolve(target, config, timeout)
    }
}

/// `urlPrefix` with its host replaced by `server_name`, the real `scheme://authority`, and the
/// authority for the `Host` header.
fn with_server_name(url_prefix: &str, server_name: &str) -> Option<(String, String, String)> {
    let scheme_end = url_prefix.find("://")? + 3;
    let rest = &url_prefix[scheme_end..];
    let authority_len = rest.find(['/', '?', '#']).unwrap_or(rest.len());
    let authority = &rest[..authority_len];
    let host_port = authority.rsplit('@').next()?;
    let port = match host_port.rsplit_once(']') {
        Some((_, after)) => after.strip_prefix(':'),
        None => host_port.rsplit_once(':').map(|(_, p)| p),
    };
    let named = match port {
        Some(p) => format!("{}{server_name}:{p}{}", &url_prefix[..scheme_end], &rest[authority_len..]),
        None => format!("{}{server_name}{}", &url_prefix[..scheme_end], &rest[authority_len..]),
    };
    Some((named, format!("{}{authority}", &url_prefix[..scheme_end]), authority.to_string()))
}

/// The configured extenders' HTTP clients, by configuration index.
pub struct HttpExtenders {
    endpoints: Vec<Endpoint>,
}

impl HttpExtenders {
    /// Build one client per extender.
    pub fn new(extenders: &[Extender]) -> Result<HttpExtenders, ExtenderClientError> {
        let endpoints = extenders.iter().map(endpoint).collect::<Result<Vec<_>, _>>()?;
        Ok(HttpExtenders { endpoints })
    }
}

/// PEM bytes of a TLS field: the `*Data` field (base64) wins over the `*File` field, as
/// client-go's `TLSClientConfig` does.
fn pem(
    ext: &str,
    data: &str,
    file: &str,
    data_field: &'static str,
    file_field: &'static str,
) -> Result<Option<Vec<u8>>, ExtenderClientError> {
    if !data.is_empty() {
        return base64::decode(data.as_bytes())
            .map(Some)
            .map_err(|_| ExtenderClientError::Base64 { extender: ext.to_string(), field: data_field });
    }
    if !file.is_empty() {
        return std::fs::read(file).map(Some).map_err(|source| ExtenderClientError::File {
            extender: ext.to_string(),
            field: file_field,
            path: file.to_string(),
            source,
        });
    }
    Ok(None)
}

fn endpoint(e: &Extender) -> Result<Endpoint, ExtenderClientError> {
    let name = e.url_prefix.as_str();
    let none = ExtenderTls::default();
    let t = e.tls_config.as_ref().unwrap_or(&none);
    let ca_pem = pem(name, &t.ca_data, &t.ca_file, "caData", "caFile")?;
    let rest = RestConfig {
        server: e.url_prefix.clone(),
        insecure_skip_tls_verify: t.insecure || (e.enable_https && ca_pem.is_none()),
        ca_pem,
        client_cert_pem: pem(name, &t.cert_data, &t.cert_file, "certData", "certFile")?,
        client_key_pem: pem(name, &t.key_data, &t.key_file, "keyData", "keyFile")?,
        token: None,
        // Honoured below through the request URL and a resolver, not by the TLS settings.
        tls_server_name: None,
        origin: format!("extender {name}"),
    };
    let tls = build_tls_config(&rest).map_err(|error| ExtenderClientError::Tls { extender: name.to_string(), error })?;
    let timeout = if e.http_timeout.0.is_zero() { DEFAULT_TIMEOUT } else { e.http_timeout.0 };
    let config = ureq::Agent::config_builder()
        .tls_config(tls)
        .http_status_as_error(false)
        .timeout_global(Some(timeout))
        .max_redirects(0)
        .build();
    let renamed = (!t.server_name.is_empty())
        .then(|| with_server_name(&e.url_prefix, &t.server_name))
        .flatten()
        .filter(|(named, _, _)| *named != e.url_prefix);
    let Some((named, real, authority)) = renamed else {
        return Ok(Endpoint {
            url_prefix: e.url_prefix.clone(),
            configured: e.url_prefix.clone(),
            host_header: None,
            agent: config.new_agent(),
        });
    };
    let real = real.parse::<ureq::http::Uri>().map_err(|err| ExtenderClientError::Tls {
        extender: name.to_string(),
        error: TlsError::ServerNameOverrideUnsupported { server_name: t.server_name.clone(), host: err.to_string() },
    })?;
    let resolver = ServerNameResolver { server_name: t.server_name.clone(), real };
    let agent = ureq::Agent::with_parts(config, ureq::unversioned::transport::DefaultConnector::new(), resolver);
    Ok(Endpoint { url_prefix: named, configured: e.url_prefix.clone(), host_header: Some(authority), agent })
}

impl ExtenderTransport for HttpExtenders {
    fn post(&self, index: usize, verb: &str, body: &[u8]) -> Result<Vec<u8>, String> {
        let ep = self.endpoints.get(index).ok_or_else(|| format!("no extender #{index}"))?;
        let target = format!("{}/{verb}", ep.url_prefix.trim_end_matches('/'));
        let url = format!("{}/{verb}", ep.configured.trim_end_matches('/'));
        let mut request = ep.agent.post(&target).header("Content-Type", "application/json");
        if let Some(host) = &ep.host_header {
            request = request.header("Host", host);
        }
        let mut resp = request.send(body).map_err(|e| format!("Post {url:?}: {e}"))?;
        let code = resp.status().as_u16();
        if code != 200 {
            return Err(texts::http_status(verb, &url, code));
        }
        let mut out = Vec::new();
        resp.body_mut()
            .as_reader()
            .take(MAX_REPLY_BYTES)
            .read_to_end(&mut out)
            .map_err(|e| format!("Post {url:?}: reading the reply: {e}"))?;
        Ok(out)
    }

    /// Every call on its own thread (upstream runs each prioritizer in a goroutine).
    fn post_many(&self, calls: &[(usize, &str, Vec<u8>)]) -> Vec<Result<Vec<u8>, String>> {
        if calls.len() < 2 {
            return calls.iter().map(|(i, verb, body)| self.post(*i, verb, body)).collect();
        }
        std::thread::scope(|scope| {
            let handles: Vec<_> = calls.iter().map(|(i, verb, body)| scope.spawn(move || self.post(*i, verb, body))).collect();
            handles.into_iter().map(|h| h.join().unwrap_or_else(|_| Err("extender call panicked".into()))).collect()
        })
    }
}

/// The transport the core calls through for `cfg`'s extenders (`None` without extenders): the
/// live scheduler, `simulate` and `explain` share it.
pub fn transport_for(
    cfg: &crate::core::config::SchedulerConfig,
) -> Result<Option<std::sync::Arc<dyn ExtenderTransport>>, ExtenderClientError> {
    if cfg.extenders.is_empty() {
        return Ok(None);
    }
    crate::core::api::keep_pod_sources();
    Ok(Some(std::sync::Arc::new(HttpExtenders::new(&cfg.extenders)?)))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ext(url: &str, tls: Option<ExtenderTls>, https: bool) -> Extender {
        Extender { url_prefix: url.into(), enable_https: https, tls_config: tls, ..Default::default() }
    }

    #[test]
    fn tls_settings_are_checked_when_the_client_is_built() {
        // enableHTTPS without a CA: verification is skipped (upstream sets Insecure).
        assert!(HttpExtenders::new(&[ext("https://127.0.0.1:1", None, true)]).is_ok());
        let bad = ExtenderTls { ca_data: "%%%".into(), ..Default::default() };
        let e = HttpExtenders::new(&[ext("https://x", Some(bad), true)]).err().map(|e| e.to_string());
        assert_eq!(e.as_deref(), Some("extender https://x: tlsConfig.caData is not valid base64"));
        let missing = ExtenderTls { ca_file: "/nonexistent/ca.pem".into(), ..Default::default() };
        let e = HttpExtenders::new(&[ext("https://x", Some(missing), true)]).err().map(|e| e.to_string()).unwrap_or_default();
        assert!(e.starts_with("extender https://x: tlsConfig.caFile \"/nonexistent/ca.pem\": "), "{e}");
        let other_name = ExtenderTls { insecure: true, server_name: "other".into(), ..Default::default() };
        assert!(HttpExtenders::new(&[ext("https://x", Some(other_name), true)]).is_ok(), "serverName may differ from the host");
    }

    #[test]
    fn server_name_replaces_the_host_of_the_request_url() {
        assert_eq!(
            with_server_name("https://10.0.0.5:8443/scheduler", "ext.example"),
            Some(("https://ext.example:8443/scheduler".into(), "https://10.0.0.5:8443".into(), "10.0.0.5:8443".into()))
        );
        assert_eq!(
            with_server_name("https://[::1]:8443", "ext.example"),
            Some(("https://ext.example:8443".into(), "https://[::1]:8443".into(), "[::1]:8443".into()))
        );
        assert_eq!(
            with_server_name("https://ext.internal/", "ext.example"),
            Some(("https://ext.example/".into(), "https://ext.internal".into(), "ext.internal".into()))
        );
    }

    #[test]
    fn refused_connections_are_errors_naming_the_url() {
        let port = std::net::TcpListener::bind("127.0.0.1:0").and_then(|l| l.local_addr()).map(|a| a.port()).unwrap_or(1);
        let t = HttpExtenders::new(&[ext(&format!("http://127.0.0.1:{port}/"), None, false)]).expect("client");
        let e = t.post(0, "filter", b"{}").unwrap_err();
        assert!(e.starts_with(&format!("Post \"http://127.0.0.1:{port}/filter\": ")), "{e}");
        assert_eq!(t.post(3, "filter", b"{}").unwrap_err(), "no extender #3");
    }

    /// A one-request HTTP server on loopback that answers 200 only once `peers` other servers
    /// have received their request too (a rendezvous: sequential calls would never meet).
    fn rendezvous_server(
        arrived: std::sync::mpsc::Sender<()>,
        others: std::sync::mpsc::Receiver<()>,
    ) -> (u16, std::thread::JoinHandle<()>) {
        use std::io::Write;
        let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
        let port = listener.local_addr().map(|a| a.port()).expect("port");
        let handle = std::thread::spawn(move || {
            let Ok((mut conn, _)) = listener.accept() else { return };
            let mut buf = Vec::new();
            let mut chunk = [0u8; 1024];
            while !buf.windows(4).any(|w| w == b"\r\n\r\n") {
                match conn.read(&mut chunk) {
                    Ok(0) | Err(_) => return,
                    Ok(n) => buf.extend_from_slice(&chunk[..n]),
                }
            }
            let _ = arrived.send(());
            let met = others.recv_timeout(Duration::from_secs(30)).is_ok();
            let (status, body) = if met { ("200 OK", "[]") } else { ("500 Internal Server Error", "") };
            let _ = write!(conn, "HTTP/1.1 {status}\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}", body.len());
        });
        (port, handle)
    }

    #[test]
    fn post_many_makes_the_calls_concurrently() {
        let (a_arrived, a_waits) = std::sync::mpsc::channel();
        let (b_arrived, b_waits) = std::sync::mpsc::channel();
        // Each server waits for the other's request before answering.
        let (pa, ha) = rendezvous_server(a_arrived, b_waits);
        let (pb, hb) = rendezvous_server(b_arrived, a_waits);
        let cfg = |port: u16| ext(&format!("http://127.0.0.1:{port}/"), None, false);
        let (mut a, mut b) = (cfg(pa), cfg(pb));
        a.http_timeout = crate::core::config::GoDuration(Duration::from_secs(60));
        b.http_timeout = crate::core::config::GoDuration(Duration::from_secs(60));
        let t = HttpExtenders::new(&[a, b]).expect("client");
        let replies = t.post_many(&[(0, "prioritize", b"{}".to_vec()), (1, "prioritize", b"{}".to_vec())]);
        assert_eq!(replies, vec![Ok(b"[]".to_vec()), Ok(b"[]".to_vec())]);
        let _ = (ha.join(), hb.join());
    }
}
