//! `--tls-sni-cert-key`: extra serving certificates chosen by the name the client asks for
//! (TLS SNI), as kube-scheduler's secure serving does (`component-base/cli/flag`
//! `NamedCertKey`, `apiserver/pkg/server/dynamiccertificates` `getNamedCertificateMap` and
//! `GetConfigForClient`): `cert,key[:name,name...]`; without names the certificate's own names
//! (subject alternative names, else its common name) are used. Names match case-insensitively;
//! an exact name wins over a `*.` wildcard for the first label; explicit names win over
//! extracted ones; anything else gets the `--tls-cert-file` (or generated) certificate.

use super::ServeError;
use rustls::server::{ClientHello, ResolvesServerCert};
use rustls::sign::CertifiedKey;
use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::Arc;

/// One `--tls-sni-cert-key` value.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NamedCertKey {
    pub cert: PathBuf,
    pub key: PathBuf,
    pub names: Vec<String>,
}

/// Parse `cert,key[:names]` (`NamedCertKey.Set`).
pub fn parse(value: &str) -> Result<NamedCertKey, String> {
    let (pair, names) = match value.split_once(':') {
        Some((pair, names)) => (pair, names.split(',').map(|n| n.trim().to_string()).filter(|n| !n.is_empty()).collect()),
        None => (value, Vec::new()),
    };
    let files: Vec<&str> = pair.split(',').map(str::trim).collect();
    match files.as_slice() {
        [cert, key] if !cert.is_empty() && !key.is_empty() => {
            Ok(NamedCertKey { cert: PathBuf::from(cert), key: PathBuf::from(key), names })
        }
        _ => Err("expected comma separated certificate and key file paths".into()),
    }
}

/// Picks the certificate for the requested name.
#[derive(Debug)]
pub struct SniResolver {
    default: Arc<CertifiedKey>,
    by_name: HashMap<String, Arc<CertifiedKey>>,
}

impl SniResolver {
    /// `default` serves every name no `named` certificate claims. `load` reads a pair.
    pub fn new(
        default: Arc<CertifiedKey>,
        named: &[NamedCertKey],
        mut load: impl FnMut(&NamedCertKey) -> Result<Arc<CertifiedKey>, ServeError>,
    ) -> Result<SniResolver, ServeError> {
        let mut by_name = HashMap::new();
        let mut loaded = Vec::new();
        for nck in named {
            let key = load(nck)?;
            for name in &nck.names {
                by_name.entry(name.to_lowercase()).or_insert_with(|| key.clone());
            }
            loaded.push(key);
        }
        for key in loaded {
            let names = key.cert.first().map(|c| super::x509::names(c.as_ref())).unwrap_or_default();
            for name in names {
                by_name.entry(name).or_insert_with(|| key.clone());
            }
        }
        Ok(SniResolver { default, by_name })
    }

    /// The certificate for `server_name` (exact, then the first label as `*`), else the default.
    pub fn pick(&self, server_name: Option<&str>) -> Arc<CertifiedKey> {
        let Some(name) = server_name.map(str::to_lowercase) else { return self.default.clone() };
        if let Some(k) = self.by_name.get(&name) {
            return k.clone();
        }
        if let Some((_, rest)) = name.split_once('.') {
            if let Some(k) = self.by_name.get(&format!("*.{rest}")) {
                return k.clone();
            }
        }
        self.default.clone()
    }
}

impl ResolvesServerCert for SniResolver {
    fn resolve(&self, hello: ClientHello<'_>) -> Option<Arc<CertifiedKey>> {
        Some(self.pick(hello.server_name()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `namedcertkey_flag_test.go` cases.
    #[test]
    fn values_parse_as_upstream() {
        assert_eq!(
            parse("foo.crt,foo.key:*.foo.com,foo.com"),
            Ok(NamedCertKey { cert: "foo.crt".into(), key: "foo.key".into(), names: vec!["*.foo.com".into(), "foo.com".into()] })
        );
        assert_eq!(parse("example.crt,example.key").map(|n| n.names.len()), Ok(0));
        assert!(parse("foo.crt").is_err());
        assert!(parse("a,b,c").is_err());
        assert!(parse(",key").is_err());
    }
}
