//! A small HTTP(S) client for probing edgesched's own serving endpoints. The secure port serves a
//! self-signed certificate (as kube-scheduler does without `--tls-cert-file`), so certificate
//! verification is skipped here; [`verifying_get`] shows that a verifying client rejects it.

use std::sync::Arc;
use std::time::Duration;
use ureq::tls::{RootCerts, TlsConfig, TlsProvider};

fn agent(verify: bool) -> ureq::Agent {
    let builder = TlsConfig::builder()
        .provider(TlsProvider::Rustls)
        .unversioned_rustls_crypto_provider(Arc::new(rustls::crypto::ring::default_provider()));
    let tls = if verify {
        builder.root_certs(RootCerts::new_with_certs(&[])).build()
    } else {
        builder.disable_verification(true).build()
    };
    ureq::Agent::config_builder()
        .tls_config(tls)
        .http_status_as_error(false)
        .timeout_global(Some(Duration::from_secs(5)))
        .build()
        .new_agent()
}

/// GET `url` (http or https, certificate not verified), with an optional bearer token; returns
/// the status code and body, or the transport error.
pub fn get(url: &str, token: Option<&str>) -> Result<(u16, String), String> {
    let mut req = agent(false).get(url);
    if let Some(t) = token {
        req = req.header("Authorization", format!("Bearer {t}"));
    }
    let mut resp = req.call().map_err(|e| e.to_string())?;
    let code = resp.status().as_u16();
    let body = resp.body_mut().read_to_string().map_err(|e| e.to_string())?;
    Ok((code, body))
}

/// GET `url` with a client that verifies the server certificate against no trusted roots: a
/// self-signed serving certificate must make this fail.
pub fn verifying_get(url: &str) -> Result<u16, String> {
    agent(true).get(url).call().map(|r| r.status().as_u16()).map_err(|e| e.to_string())
}

/// GET `url` presenting a client certificate (PEM chain and key) and extra headers; the server
/// certificate is not verified. Returns the status and body, or the transport error.
pub fn get_with_cert(url: &str, cert_pem: &str, key_pem: &str, headers: &[(&str, &str)]) -> Result<(u16, String), String> {
    use ureq::tls::{Certificate, ClientCert, PrivateKey};
    let cert = Certificate::from_pem(cert_pem.as_bytes()).map_err(|e| e.to_string())?;
    let key = PrivateKey::from_pem(key_pem.as_bytes()).map_err(|e| e.to_string())?;
    let tls = TlsConfig::builder()
        .provider(TlsProvider::Rustls)
        .unversioned_rustls_crypto_provider(Arc::new(rustls::crypto::ring::default_provider()))
        .disable_verification(true)
        .client_cert(Some(ClientCert::new_with_certs(&[cert], key)))
        .build();
    let agent: ureq::Agent = ureq::Agent::config_builder()
        .tls_config(tls)
        .http_status_as_error(false)
        .timeout_global(Some(Duration::from_secs(5)))
        .build()
        .new_agent();
    let mut req = agent.get(url);
    for (k, v) in headers {
        req = req.header(*k, *v);
    }
    let mut resp = req.call().map_err(|e| e.to_string())?;
    let code = resp.status().as_u16();
    let body = resp.body_mut().read_to_string().map_err(|e| e.to_string())?;
    Ok((code, body))
}

/// Send `request` as raw bytes over TLS to `127.0.0.1:port`, trusting only `ca_der`, and return
/// everything the server answered until it closed the connection.
pub fn raw_exchange(port: u16, ca_der: &[u8], request: &[u8]) -> Result<String, String> {
    use std::io::{Read, Write};
    let mut roots = rustls::RootCertStore::empty();
    roots.add(rustls::pki_types::CertificateDer::from(ca_der.to_vec())).map_err(|e| e.to_string())?;
    let config = rustls::ClientConfig::builder_with_provider(Arc::new(rustls::crypto::ring::default_provider()))
        .with_safe_default_protocol_versions()
        .map_err(|e| e.to_string())?
        .with_root_certificates(roots)
        .with_no_client_auth();
    let name = rustls::pki_types::ServerName::try_from("127.0.0.1").map_err(|e| e.to_string())?;
    let conn = rustls::ClientConnection::new(Arc::new(config), name).map_err(|e| e.to_string())?;
    let tcp = std::net::TcpStream::connect(("127.0.0.1", port)).map_err(|e| e.to_string())?;
    tcp.set_read_timeout(Some(Duration::from_secs(10))).map_err(|e| e.to_string())?;
    let mut tls = rustls::StreamOwned::new(conn, tcp);
    tls.write_all(request).map_err(|e| e.to_string())?;
    let mut answer = Vec::new();
    tls.read_to_end(&mut answer).map_err(|e| format!("{e} after {:?}", String::from_utf8_lossy(&answer)))?;
    String::from_utf8(answer).map_err(|e| e.to_string())
}
