//! TLS like a kubeadm API server: a CA-signed serving certificate, optional client certificates
//! verified against the same CA, and the client identity read from the verified certificate
//! (CN = user, each O = a group; `k8s.io/apiserver/pkg/authentication/request/x509`).

use super::super::certs::{IssuedCert, TestCa};
use rustls::pki_types::{CertificateDer, PrivateKeyDer, PrivatePkcs8KeyDer};
use rustls::server::WebPkiClientVerifier;
use rustls::{RootCertStore, ServerConfig};
use std::sync::Arc;

/// The rustls server configuration for `serving`, trusting client certificates from `ca`.
pub fn server_config(ca: &TestCa, serving: &IssuedCert) -> Arc<ServerConfig> {
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let mut roots = RootCertStore::empty();
    roots.add(CertificateDer::from(ca.ca_der().to_vec())).unwrap();
    let verifier =
        WebPkiClientVerifier::builder_with_provider(Arc::new(roots), provider.clone()).allow_unauthenticated().build().unwrap();
    let key = PrivateKeyDer::Pkcs8(PrivatePkcs8KeyDer::from(serving.key_der.clone()));
    let mut config = ServerConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .unwrap()
        .with_client_cert_verifier(verifier)
        .with_single_cert(vec![CertificateDer::from(serving.cert_der.clone())], key)
        .unwrap();
    config.alpn_protocols = vec![b"http/1.1".to_vec()];
    Arc::new(config)
}

/// One DER element: (tag, contents, rest).
fn tlv(input: &[u8]) -> Option<(u8, &[u8], &[u8])> {
    let (&tag, rest) = input.split_first()?;
    let (&first, rest) = rest.split_first()?;
    let (len, rest) = if first < 0x80 {
        (usize::from(first), rest)
    } else {
        let n = usize::from(first & 0x7f);
        if n > 4 || rest.len() < n {
            return None;
        }
        (rest[..n].iter().fold(0usize, |acc, b| (acc << 8) | usize::from(*b)), &rest[n..])
    };
    if rest.len() < len {
        return None;
    }
    Some((tag, &rest[..len], &rest[len..]))
}

/// All elements of a constructed value's contents.
fn children(mut contents: &[u8]) -> Option<Vec<(u8, &[u8])>> {
    let mut out = Vec::new();
    while !contents.is_empty() {
        let (tag, value, rest) = tlv(contents)?;
        out.push((tag, value));
        contents = rest;
    }
    Some(out)
}

const OID_CN: &[u8] = &[0x55, 0x04, 0x03];
const OID_O: &[u8] = &[0x55, 0x04, 0x0a];
const TAG_SEQUENCE: u8 = 0x30;
const TAG_CONTEXT_0: u8 = 0xa0;

/// (user, groups) from a certificate's subject; `None` if it cannot be parsed or has no CN.
pub fn identity_from_cert(der: &[u8]) -> Option<(String, Vec<String>)> {
    let (_, cert, _) = tlv(der)?;
    let (_, tbs, _) = tlv(cert)?;
    let fields = children(tbs)?;
    // tbsCertificate: [0] version (optional), serial, signature, issuer, validity, subject, ...
    let skip = usize::from(fields.first()?.0 == TAG_CONTEXT_0);
    let (tag, subject) = *fields.get(skip + 4)?;
    if tag != TAG_SEQUENCE {
        return None;
    }
    let mut user = None;
    let mut groups = Vec::new();
    for (_, rdn) in children(subject)? {
        for (_, attr) in children(rdn)? {
            let parts = children(attr)?;
            let (oid, value) = (parts.first()?.1, parts.get(1)?.1);
            let text = String::from_utf8_lossy(value).into_owned();
            if oid == OID_CN {
                user = Some(text);
            } else if oid == OID_O {
                groups.push(text);
            }
        }
    }
    Some((user?, groups))
}
