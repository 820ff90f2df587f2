//! An in-memory self-signed serving certificate (ECDSA P-256), used when no `--tls-cert-file` is
//! given — as kube-scheduler does ("Generated self-signed cert in-memory"). Kubelet HTTPS probes do
//! not verify certificates, so this is enough for probes; scrapers should be given a real cert.
//!
//! The X.509 encoding is written by hand (a few DER helpers) to avoid a certificate-generation
//! dependency; `ring` provides the key pair and the signature.

use ring::rand::SystemRandom;
use ring::signature::{EcdsaKeyPair, KeyPair, ECDSA_P256_SHA256_ASN1_SIGNING};
use std::net::IpAddr;
use std::time::{Duration, SystemTime};

/// A certificate and its PKCS#8 private key, both DER.
pub struct SelfSigned {
    pub cert_der: Vec<u8>,
    pub key_pkcs8_der: Vec<u8>,
}

impl SelfSigned {
    /// The certificate as a PEM file.
    pub fn cert_pem(&self) -> String {
        pem("CERTIFICATE", &self.cert_der)
    }

    /// The private key as a PEM file (PKCS#8).
    pub fn key_pem(&self) -> String {
        pem("PRIVATE KEY", &self.key_pkcs8_der)
    }
}

fn pem(label: &str, der: &[u8]) -> String {
    let b64 = crate::shell::kube::base64::encode(der);
    let mut out = format!("-----BEGIN {label}-----\n");
    for line in b64.as_bytes().chunks(64) {
        out.push_str(&String::from_utf8_lossy(line));
        out.push('\n');
    }
    out.push_str(&format!("-----END {label}-----\n"));
    out
}

fn der(tag: u8, content: &[u8]) -> Vec<u8> {
    let mut out = vec![tag];
    let n = content.len();
    if n < 0x80 {
        out.push(n as u8);
    } else {
        let bytes: Vec<u8> = n.to_be_bytes().iter().copied().skip_while(|b| *b == 0).collect();
        out.push(0x80 | bytes.len() as u8);
        out.extend_from_slice(&bytes);
    }
    out.extend_from_slice(content);
    out
}

fn seq(parts: &[Vec<u8>]) -> Vec<u8> {
    der(0x30, &parts.concat())
}

fn oid(arcs: &[u64]) -> Vec<u8> {
    let mut body = vec![(arcs[0] * 40 + arcs[1]) as u8];
    for &a in &arcs[2..] {
        let mut stack = vec![(a & 0x7f) as u8];
        let mut v = a >> 7;
        while v > 0 {
            stack.push(0x80 | (v & 0x7f) as u8);
            v >>= 7;
        }
        stack.reverse();
        body.extend(stack);
    }
    der(0x06, &body)
}

fn integer(bytes: &[u8]) -> Vec<u8> {
    let mut b: Vec<u8> = bytes.iter().copied().skip_while(|x| *x == 0).collect();
    if b.is_empty() || b[0] & 0x80 != 0 {
        b.insert(0, 0);
    }
    der(0x02, &b)
}

fn bit_string(bytes: &[u8]) -> Vec<u8> {
    let mut b = vec![0u8];
    b.extend_from_slice(bytes);
    der(0x03, &b)
}

fn name(cn: &str) -> Vec<u8> {
    seq(&[der(0x31, &seq(&[oid(&[2, 5, 4, 3]), der(0x0c, cn.as_bytes())]))])
}

fn time(t: SystemTime) -> Vec<u8> {
    let s = crate::core::timefmt::format_rfc3339(t); // YYYY-MM-DDTHH:MM:SSZ
    let compact: String = s.chars().filter(|c| c.is_ascii_digit()).collect(); // YYYYMMDDHHMMSS
    let year: u32 = compact[..4].parse().unwrap_or(2000);
    if (1950..2050).contains(&year) {
        der(0x17, format!("{}Z", &compact[2..]).as_bytes())
    } else {
        der(0x18, format!("{compact}Z").as_bytes())
    }
}

fn extension(id: &[u64], critical: bool, value: Vec<u8>) -> Vec<u8> {
    let mut parts = vec![oid(id)];
    if critical {
        parts.push(der(0x01, &[0xff]));
    }
    parts.push(der(0x04, &value));
    seq(&parts)
}

/// Why a certificate could not be generated.
#[derive(Debug)]
pub struct CertError(pub String);

impl std::fmt::Display for CertError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "generating self-signed certificate: {}", self.0)
    }
}

impl std::error::Error for CertError {}

/// Generate a serving certificate for `host` valid for one year, with DNS and IP SANs.
pub fn generate(host: &str, dns: &[String], ips: &[IpAddr], now: SystemTime) -> Result<SelfSigned, CertError> {
    let rng = SystemRandom::new();
    let pkcs8 = EcdsaKeyPair::generate_pkcs8(&ECDSA_P256_SHA256_ASN1_SIGNING, &rng)
        .map_err(|_| CertError("key generation failed".into()))?;
    let key = EcdsaKeyPair::from_pkcs8(&ECDSA_P256_SHA256_ASN1_SIGNING, pkcs8.as_ref(), &rng)
        .map_err(|_| CertError("key parse failed".into()))?;
    let mut serial = [0u8; 16];
    ring::rand::SecureRandom::fill(&rng, &mut serial).map_err(|_| CertError("no randomness".into()))?;
    serial[0] &= 0x7f;

    let sig_alg = seq(&[oid(&[1, 2, 840, 10045, 4, 3, 2])]);
    let spki =
        seq(&[seq(&[oid(&[1, 2, 840, 10045, 2, 1]), oid(&[1, 2, 840, 10045, 3, 1, 7])]), bit_string(key.public_key().as_ref())]);
    let mut general_names = Vec::new();
    for d in dns {
        general_names.push(der(0x82, d.as_bytes()));
    }
    for ip in ips {
        let bytes = match ip {
            IpAddr::V4(v4) => v4.octets().to_vec(),
            IpAddr::V6(v6) => v6.octets().to_vec(),
        };
        general_names.push(der(0x87, &bytes));
    }
    let extensions = seq(&[
        extension(&[2, 5, 29, 15], true, der(0x03, &[0x05, 0xa0])), // keyUsage: digitalSignature, keyEncipherment
        extension(&[2, 5, 29, 37], false, seq(&[oid(&[1, 3, 6, 1, 5, 5, 7, 3, 1])])), // serverAuth
        extension(&[2, 5, 29, 19], true, seq(&[])),                 // basicConstraints CA:false
        extension(&[2, 5, 29, 17], false, seq(&general_names)),
    ]);
    let not_before = now.checked_sub(Duration::from_secs(3600)).unwrap_or(now);
    let not_after = now + Duration::from_secs(365 * 24 * 3600);
    let subject = name(&format!("{host}@{}", now.duration_since(SystemTime::UNIX_EPOCH).map(|d| d.as_secs()).unwrap_or(0)));
    let tbs = seq(&[
        der(0xa0, &integer(&[2])),
        integer(&serial),
        sig_alg.clone(),
        subject.clone(),
        seq(&[time(not_before), time(not_after)]),
        subject,
        spki,
        der(0xa3, &extensions),
    ]);
    let sig = key.sign(&rng, &tbs).map_err(|_| CertError("signing failed".into()))?;
    let cert = seq(&[tbs, sig_alg, bit_string(sig.as_ref())]);
    Ok(SelfSigned { cert_der: cert, key_pkcs8_der: pkcs8.as_ref().to_vec() })
}

#[cfg(test)]
mod tests {
    use super::*;
    use rustls::pki_types::{CertificateDer, PrivateKeyDer, PrivatePkcs8KeyDer, ServerName, UnixTime};

    #[test]
    fn certificate_is_accepted_by_rustls_and_webpki() {
        let ips: Vec<IpAddr> = vec!["127.0.0.1".parse().expect("ip")];
        let c = generate("edge-1", &["localhost".into(), "edge-1".into()], &ips, SystemTime::now()).expect("cert");
        let provider = std::sync::Arc::new(rustls::crypto::ring::default_provider());
        rustls::ServerConfig::builder_with_provider(provider.clone())
            .with_safe_default_protocol_versions()
            .expect("versions")
            .with_no_client_auth()
            .with_single_cert(
                vec![CertificateDer::from(c.cert_der.clone())],
                PrivateKeyDer::Pkcs8(PrivatePkcs8KeyDer::from(c.key_pkcs8_der.clone())),
            )
            .expect("rustls accepts the pair");
        // Self-signed leaf used as its own trust anchor: webpki validates names and signature.
        let cert = CertificateDer::from(c.cert_der);
        let mut roots = rustls::RootCertStore::empty();
        roots.add(cert.clone()).expect("parsable");
        let verifier = rustls::client::WebPkiServerVerifier::builder_with_provider(std::sync::Arc::new(roots), provider)
            .build()
            .expect("verifier");
        use rustls::client::danger::ServerCertVerifier;
        for name in ["localhost", "127.0.0.1"] {
            let sn = ServerName::try_from(name).expect("name");
            // A CA:false self-signed leaf is reported as an unknown issuer or accepted, never as a
            // malformed certificate or a name mismatch.
            if let Err(e) = verifier.verify_server_cert(&cert, &[], &sn, &[], UnixTime::now()) {
                let text = format!("{e:?}");
                assert!(!text.contains("BadEncoding") && !text.contains("NotValidForName"), "{text}");
            }
        }
    }
}
