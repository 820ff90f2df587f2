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
    url_prefix: String,
    agent: ureq::Agent,
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
        tls_server_name: (!t.server_name.is_empty()).then(|| t.server_name.clone()),
        origin: format!("extender {name}"),
    };
    let tls = build_tls_config(&rest).map_err(|error| ExtenderClientError::Tls { extender: name.to_string(), error })?;
    let timeout = if e.http_timeout.0.is_zero() { DEFAULT_TIMEOUT } else { e.http_timeout.0 };
    let agent = ureq::Agent::config_builder()
        .tls_config(tls)
        .http_status_as_error(false)
        .timeout_global(Some(timeout))
        .max_redirects(0)
        .build()
        .new_agent();
    Ok(Endpoint { url_prefix: e.url_prefix.clone(), agent })
}

impl ExtenderTransport for HttpExtenders {
    fn post(&self, index: usize, verb: &str, body: &[u8]) -> Result<Vec<u8>, String> {
        let ep = self.endpoints.get(index).ok_or_else(|| format!("no extender #{index}"))?;
        let url = format!("{}/{verb}", ep.url_prefix.trim_end_matches('/'));
        let mut resp = ep
            .agent
            .post(&url)
            .header("Content-Type", "application/json")
            .send(body)
            .map_err(|e| format!("Post {url:?}: {e}"))?;
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
}

/// The transport the core calls through for `cfg`'s extenders (`None` without extenders): the
/// live scheduler, `simulate` and `explain` share it.
pub fn transport_for(
    cfg: &crate::core::config::SchedulerConfig,
) -> Result<Option<std::sync::Arc<dyn ExtenderTransport>>, ExtenderClientError> {
    if cfg.extenders.is_empty() {
        return Ok(None);
    }
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
        assert!(HttpExtenders::new(&[ext("https://x", Some(other_name), true)]).is_err(), "serverName must equal the host");
    }

    #[test]
    fn refused_connections_are_errors_naming_the_url() {
        let port = std::net::TcpListener::bind("127.0.0.1:0").and_then(|l| l.local_addr()).map(|a| a.port()).unwrap_or(1);
        let t = HttpExtenders::new(&[ext(&format!("http://127.0.0.1:{port}/"), None, false)]).expect("client");
        let e = t.post(0, "filter", b"{}").unwrap_err();
        assert!(e.starts_with(&format!("Post \"http://127.0.0.1:{port}/filter\": ")), "{e}");
        assert_eq!(t.post(3, "filter", b"{}").unwrap_err(), "no extender #3");
    }
}
