//! Turning a [`RestConfig`]'s certificates into TLS settings (rustls' own for the API client,
//! ureq's for extenders), refusing anything doubtful.
//!
//! ureq quietly skips CA certificates it cannot parse and panics (`expect`) on a client
//! certificate whose key does not match. A scheduler must neither trust "whatever parsed" nor
//! crash on a bad file, so every input is parsed and checked here first, and each problem becomes
//! a [`TlsError`] that names the kubeconfig field to fix.

use crate::shell::kube::kubeconfig::RestConfig;
use rustls::crypto::CryptoProvider;
use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, PrivateKeyDer};
use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use ureq::tls::{Certificate, ClientCert, PrivateKey, RootCerts, TlsConfig, TlsProvider};

/// System CA bundle locations, in the order Go's `crypto/x509` (`root_linux.go`) tries them;
/// `SSL_CERT_FILE` overrides them all.
pub const SYSTEM_CA_FILES: &[&str] = &[
    "/etc/ssl/certs/ca-certificates.crt",
    "/etc/pki/tls/certs/ca-bundle.crt",
    "/etc/ssl/ca-bundle.pem",
    "/etc/pki/tls/cacert.pem",
    "/etc/pki/ca-trust/extracted/pem/tls-ca-bundle.pem",
    "/etc/ssl/cert.pem",
];

/// Why the TLS settings could not be built. Messages use kubeconfig field names.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TlsError {
    /// The CA bundle is not PEM, or a PEM block is corrupt.
    CaUnparsable { detail: String },
    /// The CA bundle holds no `CERTIFICATE` block at all.
    CaEmpty,
    /// A certificate in the CA bundle cannot serve as a trust anchor.
    CaCertificateInvalid { index: usize, detail: String },
    /// No CA was configured and no system bundle could be loaded.
    NoSystemRoots { tried: Vec<PathBuf> },
    /// The client certificate is not valid PEM.
    ClientCertificateUnparsable { detail: String },
    /// The client certificate holds no `CERTIFICATE` block.
    ClientCertificateEmpty,
    /// The client key is not a PEM private key rustls can use.
    ClientKeyUnparsable { detail: String },
    /// The client certificate and key do not belong together (or the key type is unsupported).
    ClientKeyMismatch { detail: String },
    /// `tls-server-name` differs from the URL host; ureq always verifies against the URL host.
    ServerNameOverrideUnsupported { server_name: String, host: String },
}

impl fmt::Display for TlsError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TlsError::CaUnparsable { detail } => {
                write!(f, "certificate-authority: not a valid PEM certificate bundle: {detail}")
            }
            TlsError::CaEmpty => f.write_str("certificate-authority: no PEM CERTIFICATE block found"),
            TlsError::CaCertificateInvalid { index, detail } => {
                write!(f, "certificate-authority: certificate #{} cannot be used as a CA: {detail}", index + 1)
            }
            TlsError::NoSystemRoots { tried } => {
                let tried: Vec<String> = tried.iter().map(|p| p.display().to_string()).collect();
                write!(
                    f,
                    "no certificate-authority configured and no system CA bundle could be loaded (tried {}); \
                     set certificate-authority(-data) in the kubeconfig or point SSL_CERT_FILE at a PEM bundle",
                    tried.join(", ")
                )
            }
            TlsError::ClientCertificateUnparsable { detail } => {
                write!(f, "client-certificate: not a valid PEM certificate: {detail}")
            }
            TlsError::ClientCertificateEmpty => f.write_str("client-certificate: no PEM CERTIFICATE block found"),
            TlsError::ClientKeyUnparsable { detail } => {
                write!(f, "client-key: no usable PEM private key (PKCS#1, SEC1 or PKCS#8 expected): {detail}")
            }
            TlsError::ClientKeyMismatch { detail } => {
                write!(f, "client-certificate and client-key do not match: {detail}")
            }
            TlsError::ServerNameOverrideUnsupported { server_name, host } => write!(
                f,
                "tls-server-name {server_name:?} differs from the server host {host:?}; edgesched cannot verify \
                 against a different name: use a server URL whose host is in the certificate"
            ),
        }
    }
}

impl std::error::Error for TlsError {}

/// The crypto provider every connection uses: ring, chosen explicitly rather than via a
/// process-wide default.
pub fn crypto_provider() -> Arc<CryptoProvider> {
    Arc::new(rustls::crypto::ring::default_provider())
}

/// Build ureq's TLS configuration for `config` (extenders; and the start-up check of every
/// kubeconfig). When `insecure_skip_tls_verify` is set the server certificate is not verified;
/// the caller is expected to log that loudly.
pub fn build_tls_config(config: &RestConfig) -> Result<TlsConfig, TlsError> {
    let ssl_cert_file = std::env::var_os("SSL_CERT_FILE").map(PathBuf::from);
    build_tls_config_with_roots(config, ssl_cert_file.as_deref())
}

/// Build the rustls configuration the API client's connections use
/// ([`crate::shell::kube::http1`]), from the same checked certificates as [`build_tls_config`].
pub fn build_rustls_config(config: &RestConfig) -> Result<Arc<rustls::ClientConfig>, TlsError> {
    let ssl_cert_file = std::env::var_os("SSL_CERT_FILE").map(PathBuf::from);
    rustls_config(material(config, ssl_cert_file.as_deref())?)
}

/// A configuration's certificates, parsed and checked: the trust anchors (none when
/// verification is off) and the client certificate chain with its key.
struct Material {
    roots: Option<Vec<CertificateDer<'static>>>,
    client: Option<(Vec<CertificateDer<'static>>, PrivateKeyDer<'static>)>,
}

/// Parse and check every certificate input of `config` (`ssl_cert_file`: the `SSL_CERT_FILE`
/// value, passed in because tests must not touch the process environment).
fn material(config: &RestConfig, ssl_cert_file: Option<&Path>) -> Result<Material, TlsError> {
    check_server_name(&config.server, config.tls_server_name.as_deref())?;
    let client = match (&config.client_cert_pem, &config.client_key_pem) {
        (Some(cert), Some(key)) => Some(client_cert(cert, key)?),
        _ => None,
    };
    let roots = match (config.insecure_skip_tls_verify, &config.ca_pem) {
        (true, _) => None,
        (false, Some(pem)) => Some(ca_roots(pem)?),
        (false, None) => Some(system_roots(ssl_cert_file)?),
    };
    Ok(Material { roots, client })
}

/// The rustls client configuration for checked `material`. Building it with the client
/// certificate compares the key with the certificate's public key: a mismatch is reported here,
/// before any connection.
fn rustls_config(material: Material) -> Result<Arc<rustls::ClientConfig>, TlsError> {
    let provider = crypto_provider();
    let mismatch = |e: rustls::Error| TlsError::ClientKeyMismatch { detail: e.to_string() };
    let builder = rustls::ClientConfig::builder_with_provider(provider.clone())
        .with_protocol_versions(rustls::ALL_VERSIONS)
        .map_err(mismatch)?;
    let builder = match material.roots {
        None => builder.dangerous().with_custom_certificate_verifier(Arc::new(Unverified(provider))),
        Some(roots) => {
            let mut store = rustls::RootCertStore::empty();
            store.add_parsable_certificates(roots);
            builder.with_root_certificates(store)
        }
    };
    let config = match material.client {
        Some((chain, key)) => builder.with_client_auth_cert(chain, key).map_err(mismatch)?,
        None => builder.with_no_client_auth(),
    };
    Ok(Arc::new(config))
}

/// [`build_tls_config`] with the `SSL_CERT_FILE` value passed in.
fn build_tls_config_with_roots(config: &RestConfig, ssl_cert_file: Option<&Path>) -> Result<TlsConfig, TlsError> {
    let material = material(config, ssl_cert_file)?;
    let roots: Option<Vec<Certificate<'static>>> =
        material.roots.as_ref().map(|r| r.iter().map(|der| Certificate::from_der(der).to_owned()).collect());
    let chain: Option<Vec<Certificate<'static>>> =
        material.client.as_ref().map(|(c, _)| c.iter().map(|der| Certificate::from_der(der).to_owned()).collect());
    let key = material.client.as_ref().map(|(_, key)| key.clone_key());
    // ureq panics on a key that does not match: check it as the API client's connections do.
    rustls_config(material)?;
    let client_cert = match (chain, key, &config.client_key_pem) {
        (Some(chain), Some(key), Some(key_pem)) => {
            // ureq does not export its key-kind enum, so let it parse the same PEM and make sure
            // it picked exactly the key that was just validated.
            let ureq_key = PrivateKey::from_pem(key_pem).map_err(|e| TlsError::ClientKeyUnparsable { detail: e.to_string() })?;
            if ureq_key.der() != key.secret_der() {
                return Err(TlsError::ClientKeyUnparsable {
                    detail: "the PEM holds several private keys; keep only the one matching the certificate".to_string(),
                });
            }
            Some(ClientCert::new_with_certs(&chain, ureq_key))
        }
        _ => None,
    };
    let builder = TlsConfig::builder()
        .provider(TlsProvider::Rustls)
        .unversioned_rustls_crypto_provider(crypto_provider())
        .client_cert(client_cert);
    let builder = match roots {
        None => builder.disable_verification(true),
        Some(roots) => builder.root_certs(RootCerts::new_with_certs(&roots)),
    };
    Ok(builder.build())
}

/// The verifier of `insecure-skip-tls-verify`: accepts any server certificate.
#[derive(Debug)]
struct Unverified(Arc<CryptoProvider>);

impl rustls::client::danger::ServerCertVerifier for Unverified {
    fn verify_server_cert(
        &self,
        _: &CertificateDer<'_>,
        _: &[CertificateDer<'_>],
        _: &rustls::pki_types::ServerName<'_>,
        _: &[u8],
        _: rustls::pki_types::UnixTime,
    ) -> Result<rustls::client::danger::ServerCertVerified, rustls::Error> {
        Ok(rustls::client::danger::ServerCertVerified::assertion())
    }
    fn verify_tls12_signature(
        &self,
        _: &[u8],
        _: &CertificateDer<'_>,
        _: &rustls::DigitallySignedStruct,
    ) -> Result<rustls::client::danger::HandshakeSignatureValid, rustls::Error> {
        Ok(rustls::client::danger::HandshakeSignatureValid::assertion())
    }
    fn verify_tls13_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &rustls::DigitallySignedStruct,
    ) -> Result<rustls::client::danger::HandshakeSignatureValid, rustls::Error> {
        self.verify_tls12_signature(message, cert, dss)
    }
    fn supported_verify_schemes(&self) -> Vec<rustls::SignatureScheme> {
        self.0.signature_verification_algorithms.supported_schemes()
    }
}

/// Every certificate in a configured CA bundle, each checked to be a usable trust anchor.
fn ca_roots(pem: &[u8]) -> Result<Vec<CertificateDer<'static>>, TlsError> {
    let certs = CertificateDer::pem_slice_iter(pem)
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| TlsError::CaUnparsable { detail: e.to_string() })?;
    if certs.is_empty() {
        return Err(TlsError::CaEmpty);
    }
    let mut store = rustls::RootCertStore::empty();
    for (index, cert) in certs.iter().enumerate() {
        store.add(cert.clone()).map_err(|e| TlsError::CaCertificateInvalid { index, detail: e.to_string() })?;
    }
    Ok(certs)
}

/// The operating system's CA bundle. Unlike a configured CA, a distribution bundle may carry a
/// few certificates rustls cannot use; those are skipped, but an unusable bundle is an error.
fn system_roots(ssl_cert_file: Option<&Path>) -> Result<Vec<CertificateDer<'static>>, TlsError> {
    let candidates: Vec<PathBuf> = match ssl_cert_file {
        Some(file) => vec![file.to_path_buf()],
        None => SYSTEM_CA_FILES.iter().map(PathBuf::from).collect(),
    };
    for file in &candidates {
        let Ok(pem) = std::fs::read(file) else { continue };
        let usable: Vec<CertificateDer<'static>> = CertificateDer::pem_slice_iter(&pem)
            .filter_map(Result::ok)
            .filter(|cert| rustls::RootCertStore::empty().add(cert.clone()).is_ok())
            .collect();
        if !usable.is_empty() {
            crate::core::logging::v(4, || {
                crate::core::logging::Line::new("Loaded system CA bundle")
                    .s("file", file.display())
                    .n("certificates", usable.len())
            });
            return Ok(usable);
        }
    }
    Err(TlsError::NoSystemRoots { tried: candidates })
}

/// The client certificate chain and key as rustls takes them. Whether they belong together is
/// checked when the rustls configuration is built with them.
fn client_cert(cert_pem: &[u8], key_pem: &[u8]) -> Result<(Vec<CertificateDer<'static>>, PrivateKeyDer<'static>), TlsError> {
    let chain = CertificateDer::pem_slice_iter(cert_pem)
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| TlsError::ClientCertificateUnparsable { detail: e.to_string() })?;
    if chain.is_empty() {
        return Err(TlsError::ClientCertificateEmpty);
    }
    // The pem error text names the section kind at most, never key material.
    let key = PrivateKeyDer::from_pem_slice(key_pem).map_err(|e| TlsError::ClientKeyUnparsable { detail: e.to_string() })?;
    Ok((chain, key))
}

/// ureq verifies the certificate against the URL host and sends it as SNI; it has no override.
/// A `tls-server-name` equal to the host is harmless; a different one cannot be honoured.
fn check_server_name(server: &str, tls_server_name: Option<&str>) -> Result<(), TlsError> {
    let Some(name) = tls_server_name else { return Ok(()) };
    let host = url_host(server).unwrap_or("");
    if name.eq_ignore_ascii_case(host) {
        return Ok(());
    }
    Err(TlsError::ServerNameOverrideUnsupported { server_name: name.to_string(), host: host.to_string() })
}

/// The host part of `scheme://[user@]host[:port][/path]`, without IPv6 brackets.
pub fn url_host(url: &str) -> Option<&str> {
    let rest = &url[url.find("://")? + 3..];
    let authority = rest.split(['/', '?', '#']).next()?;
    let host_port = authority.rsplit('@').next()?;
    if let Some(bracketed) = host_port.strip_prefix('[') {
        return bracketed.split(']').next();
    }
    Some(host_port.split(':').next().unwrap_or(host_port))
}

#[cfg(test)]
mod tests {
    use super::*;
    use rcgen::{BasicConstraints, CertificateParams, CertifiedIssuer, IsCa, KeyPair};

    fn base_config() -> RestConfig {
        RestConfig {
            server: "https://127.0.0.1:6443".into(),
            ca_pem: None,
            client_cert_pem: None,
            client_key_pem: None,
            token: None,
            insecure_skip_tls_verify: false,
            tls_server_name: None,
            origin: "test".into(),
        }
    }

    fn ca_pem() -> String {
        let mut params = CertificateParams::new(vec![]).unwrap();
        params.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
        CertifiedIssuer::self_signed(params, KeyPair::generate().unwrap()).unwrap().pem()
    }

    fn client_pair() -> (String, String) {
        let key = KeyPair::generate().unwrap();
        let cert = CertificateParams::new(vec!["client".to_string()]).unwrap().self_signed(&key).unwrap();
        (cert.pem(), key.serialize_pem())
    }

    fn fixture(name: &str) -> Vec<u8> {
        std::fs::read(Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/tls").join(name)).unwrap()
    }

    fn build(config: &RestConfig) -> Result<TlsConfig, TlsError> {
        build_tls_config_with_roots(config, Some(Path::new("/nonexistent/bundle.pem")))
    }

    #[test]
    fn ca_bundle_with_several_certificates_is_used_whole() {
        let bundle = format!("{}\n{}", ca_pem(), ca_pem());
        let config = RestConfig { ca_pem: Some(bundle.into_bytes()), ..base_config() };
        let tls = build(&config).unwrap();
        match tls.root_certs() {
            RootCerts::Specific(certs) => assert_eq!(certs.len(), 2),
            other => panic!("unexpected roots {other:?}"),
        }
        assert!(!tls.disable_verification());
    }

    #[test]
    fn unparsable_or_empty_ca_is_an_error_not_a_fallback() {
        let fake = RestConfig { ca_pem: Some(b"CADATA".to_vec()), ..base_config() };
        assert_eq!(build(&fake).unwrap_err(), TlsError::CaEmpty);
        let corrupt = "-----BEGIN CERTIFICATE-----\n!!!!\n-----END CERTIFICATE-----\n";
        let bad = RestConfig { ca_pem: Some(corrupt.as_bytes().to_vec()), ..base_config() };
        assert!(matches!(build(&bad).unwrap_err(), TlsError::CaUnparsable { .. }));
        let garbage_der = "-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n";
        let bad = RestConfig { ca_pem: Some(garbage_der.as_bytes().to_vec()), ..base_config() };
        let err = build(&bad).unwrap_err();
        assert!(matches!(err, TlsError::CaCertificateInvalid { index: 0, .. }), "{err:?}");
        assert!(err.to_string().contains("certificate #1"), "{err}");
    }

    #[test]
    fn without_ca_the_system_bundle_is_required() {
        let err = build(&base_config()).unwrap_err();
        assert!(matches!(err, TlsError::NoSystemRoots { .. }), "{err:?}");
        assert!(err.to_string().contains("/nonexistent/bundle.pem"), "{err}");
        let dir = crate::core::scratch::ScratchDir::new("tls");
        let bundle = dir.join("bundle.pem");
        std::fs::write(&bundle, ca_pem()).unwrap();
        let tls = build_tls_config_with_roots(&base_config(), Some(&bundle)).unwrap();
        assert!(matches!(tls.root_certs(), RootCerts::Specific(c) if c.len() == 1));
    }

    #[test]
    fn insecure_skips_roots_entirely() {
        let config = RestConfig { insecure_skip_tls_verify: true, ..base_config() };
        assert!(build(&config).unwrap().disable_verification());
    }

    #[test]
    fn matching_client_pairs_in_every_key_format_are_accepted() {
        let ca = ca_pem().into_bytes();
        let (cert, key) = client_pair(); // PKCS#8 ECDSA
        let cases = [
            (cert.into_bytes(), key.into_bytes(), "Pkcs8"),
            (fixture("client-rsa.crt"), fixture("client-rsa-pkcs1.key"), "Pkcs1"),
            (fixture("client-ec.crt"), fixture("client-ec-sec1.key"), "Sec1"),
        ];
        for (cert, key, kind) in cases {
            let config =
                RestConfig { ca_pem: Some(ca.clone()), client_cert_pem: Some(cert), client_key_pem: Some(key), ..base_config() };
            let tls = build(&config).unwrap();
            let client = tls.client_cert().expect("client cert set");
            assert_eq!(format!("{:?}", client.private_key().kind()), kind);
            assert_eq!(client.certs().len(), 1);
        }
    }

    #[test]
    fn mismatched_client_pair_is_a_clear_error_not_a_panic() {
        let (cert, _) = client_pair();
        let (_, other_key) = client_pair();
        let config = RestConfig {
            ca_pem: Some(ca_pem().into_bytes()),
            client_cert_pem: Some(cert.into_bytes()),
            client_key_pem: Some(other_key.into_bytes()),
            ..base_config()
        };
        let err = build(&config).unwrap_err();
        assert!(matches!(err, TlsError::ClientKeyMismatch { .. }), "{err:?}");
        assert!(err.to_string().starts_with("client-certificate and client-key do not match"), "{err}");
        // RSA certificate with an EC key.
        let config = RestConfig {
            ca_pem: Some(ca_pem().into_bytes()),
            client_cert_pem: Some(fixture("client-rsa.crt")),
            client_key_pem: Some(fixture("client-ec-sec1.key")),
            ..base_config()
        };
        assert!(matches!(build(&config).unwrap_err(), TlsError::ClientKeyMismatch { .. }));
    }

    #[test]
    fn unparsable_client_material_is_reported_per_field() {
        let (cert, key) = client_pair();
        let ca = Some(ca_pem().into_bytes());
        let no_cert = RestConfig {
            ca_pem: ca.clone(),
            client_cert_pem: Some(b"USER_CADATA".to_vec()),
            client_key_pem: Some(key.clone().into_bytes()),
            ..base_config()
        };
        assert_eq!(build(&no_cert).unwrap_err(), TlsError::ClientCertificateEmpty);
        let no_key = RestConfig {
            ca_pem: ca,
            client_cert_pem: Some(cert.into_bytes()),
            client_key_pem: Some(b"USER_CKDATA".to_vec()),
            ..base_config()
        };
        let err = build(&no_key).unwrap_err();
        assert!(matches!(err, TlsError::ClientKeyUnparsable { .. }), "{err:?}");
        assert!(!err.to_string().contains("USER_CKDATA"), "{err}");
    }

    #[test]
    fn tls_server_name_only_allowed_when_it_equals_the_host() {
        let mut config = RestConfig { insecure_skip_tls_verify: true, ..base_config() };
        config.server = "https://kubernetes.default.svc:443".into();
        config.tls_server_name = Some("Kubernetes.Default.svc".into());
        assert!(build(&config).is_ok());
        config.tls_server_name = Some("kubernetes".into());
        let err = build(&config).unwrap_err();
        assert_eq!(
            err,
            TlsError::ServerNameOverrideUnsupported { server_name: "kubernetes".into(), host: "kubernetes.default.svc".into() }
        );
    }

    #[test]
    fn url_host_handles_ports_ipv6_and_paths() {
        assert_eq!(url_host("https://h:6443/prefix"), Some("h"));
        assert_eq!(url_host("https://[fd00::1]:443"), Some("fd00::1"));
        assert_eq!(url_host("https://10.0.0.1"), Some("10.0.0.1"));
        assert_eq!(url_host("https://u@h:1"), Some("h"));
        assert_eq!(url_host("h:1"), None);
    }
}
