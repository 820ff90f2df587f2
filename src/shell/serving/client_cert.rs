//! Client-certificate authentication on the secure port, as kube-scheduler's delegated
//! authenticator does it (`k8s.io/apiserver/pkg/authentication/request/x509` and
//! `.../request/headerrequest`, wired by `authenticatorfactory/delegating.go`):
//!
//! - `--client-ca-file`: a certificate signed by that CA authenticates as its subject's common
//!   name, with its organisations as groups (`x509.CommonNameUserConversion`).
//! - `--requestheader-client-ca-file`: a certificate signed by the front proxy's CA (and, when
//!   `--requestheader-allowed-names` is set, with one of those common names) lets the request
//!   name its user in headers: the first `--requestheader-username-headers` header with a value,
//!   groups from every `--requestheader-group-headers` value, extras from headers starting with
//!   a `--requestheader-extra-headers-prefix` (the rest of the name, unescaped and lower-cased).
//!
//! The request-header authenticator is tried first, then the client certificate, then the bearer
//! token; a presented certificate that neither accepts is an error (401), not anonymous (the
//! chain is `unionauth.NewFailOnError`). Authenticated users get `system:authenticated`
//! (`AuthenticatedGroupAdder`). The TLS handshake asks for a certificate but does not require
//! one; unlike Go's `RequestClientCert`, rustls refuses during the handshake a certificate that
//! neither CA signed, so such a client sees a TLS alert instead of a 401.

use super::identity::UserInfo;
use super::x509::{subject, Subject};
use super::ServeError;
use rustls::pki_types::{CertificateDer, UnixTime};
use rustls::server::danger::ClientCertVerifier;
use rustls::server::WebPkiClientVerifier;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// The `--requestheader-*` flags.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct RequestHeaderOptions {
    pub client_ca_file: Option<PathBuf>,
    pub allowed_names: Vec<String>,
    pub username_headers: Vec<String>,
    pub uid_headers: Vec<String>,
    pub group_headers: Vec<String>,
    pub extra_headers_prefix: Vec<String>,
}

impl RequestHeaderOptions {
    /// kube-scheduler's defaults (`options.NewDelegatingAuthenticationOptions`).
    pub fn upstream_defaults() -> RequestHeaderOptions {
        RequestHeaderOptions {
            client_ca_file: None,
            allowed_names: Vec::new(),
            username_headers: vec!["x-remote-user".into()],
            uid_headers: Vec::new(),
            group_headers: vec!["x-remote-group".into()],
            extra_headers_prefix: vec!["x-remote-extra-".into()],
        }
    }
}

/// Both certificate authenticators, loaded.
pub struct ClientAuth {
    client_ca: Option<Arc<dyn ClientCertVerifier>>,
    front_proxy: Option<(Arc<dyn ClientCertVerifier>, RequestHeaderOptions)>,
    handshake: Arc<dyn ClientCertVerifier>,
}

impl std::fmt::Debug for ClientAuth {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ClientAuth")
            .field("client_ca", &self.client_ca.is_some())
            .field("front_proxy", &self.front_proxy.as_ref().map(|(_, o)| o))
            .finish()
    }
}

fn read_roots(flag: &'static str, path: &Path) -> Result<rustls::RootCertStore, ServeError> {
    use rustls::pki_types::pem::PemObject;
    let err = |problem: String| ServeError::File { flag, path: path.to_path_buf(), problem };
    let pem = std::fs::read(path).map_err(|e| err(e.to_string()))?;
    let mut roots = rustls::RootCertStore::empty();
    for cert in CertificateDer::pem_slice_iter(&pem) {
        roots.add(cert.map_err(|e| err(e.to_string()))?).map_err(|e| err(e.to_string()))?;
    }
    if roots.is_empty() {
        return Err(err("no certificate found".into()));
    }
    Ok(roots)
}

fn verifier(roots: rustls::RootCertStore, flag: &'static str, path: &Path) -> Result<Arc<dyn ClientCertVerifier>, ServeError> {
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    WebPkiClientVerifier::builder_with_provider(Arc::new(roots), provider)
        .allow_unauthenticated()
        .build()
        .map_err(|e| ServeError::File { flag, path: path.to_path_buf(), problem: e.to_string() })
}

impl ClientAuth {
    /// Load the CAs; `None` when neither flag is set (no certificate is asked for).
    pub fn load(client_ca_file: Option<&Path>, rh: &RequestHeaderOptions) -> Result<Option<ClientAuth>, ServeError> {
        const CLIENT: &str = "--client-ca-file";
        const FRONT: &str = "--requestheader-client-ca-file";
        let mut union = rustls::RootCertStore::empty();
        let mut union_path = None;
        let client_ca = match client_ca_file {
            Some(p) => {
                let roots = read_roots(CLIENT, p)?;
                union.extend(roots.roots.iter().cloned());
                union_path = Some((CLIENT, p));
                Some(verifier(roots, CLIENT, p)?)
            }
            None => None,
        };
        let front_proxy = match &rh.client_ca_file {
            Some(p) => {
                let roots = read_roots(FRONT, p)?;
                union.extend(roots.roots.iter().cloned());
                union_path = Some((FRONT, p));
                Some((verifier(roots, FRONT, p)?, rh.clone()))
            }
            None => None,
        };
        let Some((flag, path)) = union_path else { return Ok(None) };
        Ok(Some(ClientAuth { client_ca, front_proxy, handshake: verifier(union, flag, path)? }))
    }

    /// The handshake's verifier: either CA, certificate optional.
    pub fn handshake_verifier(&self) -> Arc<dyn ClientCertVerifier> {
        self.handshake.clone()
    }

    /// What the connection's certificate chain (end entity first) proves.
    pub fn peer(&self, chain: Option<&[CertificateDer<'static>]>) -> Peer {
        let Some((end, intermediates)) = chain.and_then(|c| c.split_first()) else { return Peer::default() };
        let now = UnixTime::now();
        let subject = subject(end.as_ref());
        let front_proxy =
            self.front_proxy.as_ref().filter(|(v, _)| v.verify_client_cert(end, intermediates, now).is_ok()).map(|(_, opts)| {
                match &subject {
                    Some(s) if opts.allowed_names.is_empty() || opts.allowed_names.contains(&s.common_name) => Ok(()),
                    Some(s) => Err(format!("x509: subject with cn={} is not in the allowed list", s.common_name)),
                    None => Err("x509: unreadable subject".to_string()),
                }
            });
        let client = self.client_ca.as_ref().and_then(|v| match (v.verify_client_cert(end, intermediates, now), &subject) {
            (Ok(_), Some(s)) => common_name_user(s).map(Ok),
            // Go's crypto/tls would have refused the certificate while parsing it.
            (Ok(_), None) => Some(Err("x509: unreadable subject".to_string())),
            (Err(e), _) => Some(Err(format!("verifying certificate failed: {e}"))),
        });
        Peer { front_proxy, client, front_proxy_options: self.front_proxy.as_ref().map(|(_, o)| o.clone()) }
    }
}

/// `x509.CommonNameUserConversion` (k8s.io/apiserver/pkg/authentication/request/x509/x509.go):
/// the user is the subject's common name and its groups the organisations; a certificate
/// without a common name identifies nobody (and is no error: the bearer token may still).
fn common_name_user(s: &Subject) -> Option<UserInfo> {
    (!s.common_name.is_empty())
        .then(|| authenticated(s.common_name.clone(), String::new(), s.organizations.clone(), Default::default()))
}

/// What one connection's certificate proves; each request is then identified with its headers.
#[derive(Debug, Clone, Default)]
pub struct Peer {
    /// Verified by the front proxy's CA: `Ok` when its name is allowed.
    front_proxy: Option<Result<(), String>>,
    /// Checked against `--client-ca-file` (when set): the user, or why not.
    client: Option<Result<UserInfo, String>>,
    front_proxy_options: Option<RequestHeaderOptions>,
}

/// How a request's certificate and headers identify it.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub enum CertIdentity {
    /// No certificate (or no authenticator configured): the token or anonymous decides.
    #[default]
    None,
    User(UserInfo),
    /// A certificate was presented and refused: 401 unless the token authenticates.
    Rejected(String),
}

impl Peer {
    /// The request's identity: request headers first (behind an accepted front proxy), then the
    /// client certificate.
    pub fn identify(&self, headers: &[(String, String)]) -> CertIdentity {
        let mut error = None;
        match (&self.front_proxy, &self.front_proxy_options) {
            (Some(Ok(())), Some(opts)) => {
                if let Some(user) = from_headers(opts, headers) {
                    return CertIdentity::User(user);
                }
            }
            (Some(Err(e)), _) => error = Some(e.clone()),
            _ => {}
        }
        match &self.client {
            Some(Ok(user)) => return CertIdentity::User(user.clone()),
            Some(Err(e)) => error = error.or(Some(e.clone())),
            None => {}
        }
        error.map_or(CertIdentity::None, CertIdentity::Rejected)
    }
}

fn values<'a>(headers: &'a [(String, String)], name: &'a str) -> impl Iterator<Item = &'a str> + 'a {
    headers.iter().filter(move |(k, _)| k.eq_ignore_ascii_case(name)).map(|(_, v)| v.as_str())
}

/// `headerrequest.requestHeaderAuthRequestHandler.AuthenticateRequest`.
fn from_headers(opts: &RequestHeaderOptions, headers: &[(String, String)]) -> Option<UserInfo> {
    let first = |names: &[String]| names.iter().flat_map(|n| values(headers, n)).find(|v| !v.is_empty()).map(str::to_string);
    let username = first(&opts.username_headers)?;
    let uid = first(&opts.uid_headers).unwrap_or_default();
    let groups: Vec<String> = opts.group_headers.iter().flat_map(|n| values(headers, n)).map(str::to_string).collect();
    let mut extra = std::collections::BTreeMap::<String, Vec<String>>::new();
    for (name, value) in headers {
        let lower = name.to_ascii_lowercase();
        for prefix in &opts.extra_headers_prefix {
            if let Some(key) = lower.strip_prefix(&prefix.to_ascii_lowercase()) {
                extra.entry(unescape(key).to_lowercase()).or_default().push(value.clone());
            }
        }
    }
    Some(authenticated(username, uid, groups, extra))
}

/// `url.PathUnescape`, leaving malformed escapes as they are.
fn unescape(s: &str) -> String {
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        let hex = |c: u8| (c as char).to_digit(16);
        match (b[i], b.get(i + 1).and_then(|c| hex(*c)), b.get(i + 2).and_then(|c| hex(*c))) {
            (b'%', Some(h), Some(l)) => {
                out.push((h * 16 + l) as u8);
                i += 3;
            }
            (c, _, _) => {
                out.push(c);
                i += 1;
            }
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// A user with `system:authenticated` added (`group.AuthenticatedGroupAdder`).
fn authenticated(
    username: String,
    uid: String,
    mut groups: Vec<String>,
    extra: std::collections::BTreeMap<String, Vec<String>>,
) -> UserInfo {
    if !groups.iter().any(|g| g == "system:authenticated") {
        groups.push("system:authenticated".into());
    }
    UserInfo { username, uid, groups, extra }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn h(pairs: &[(&str, &str)]) -> Vec<(String, String)> {
        pairs.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect()
    }

    /// `headerrequest` `TestRequestHeader` cases: first user header with a value wins, groups
    /// from every value, extras lower-cased and unescaped.
    #[test]
    fn the_common_name_is_the_user_and_organisations_the_groups() {
        let s =
            |cn: &str, o: &[&str]| Subject { common_name: cn.into(), organizations: o.iter().map(|x| x.to_string()).collect() };
        let user = common_name_user(&s("jane", &["dev", "ops"])).expect("a user");
        assert_eq!(user.username, "jane");
        assert_eq!(user.groups, ["dev", "ops", "system:authenticated"]);
        assert_eq!(common_name_user(&s("", &["system:masters"])), None, "no common name, no identity");
    }

    #[test]
    fn request_headers_name_the_user() {
        let opts = RequestHeaderOptions::upstream_defaults();
        assert_eq!(from_headers(&opts, &h(&[("X-Remote-Group", "g")])), None, "no user header: not authenticated");
        let u = from_headers(
            &opts,
            &h(&[
                ("X-Remote-User", "alice"),
                ("X-Remote-Group", "one"),
                ("x-remote-group", "two"),
                ("X-Remote-Extra-Scopes", "openid"),
                ("X-Remote-Extra-Alpha%2fBeta", "x"),
            ]),
        )
        .expect("user");
        assert_eq!(u.username, "alice");
        assert_eq!(u.groups, ["one", "two", "system:authenticated"]);
        assert_eq!(u.extra.get("scopes").map(Vec::as_slice), Some(&["openid".to_string()][..]));
        assert!(u.extra.contains_key("alpha/beta"));
        let opts = RequestHeaderOptions { username_headers: vec!["X-First".into(), "X-Second".into()], ..opts };
        assert_eq!(from_headers(&opts, &h(&[("X-First", ""), ("X-Second", "bob")])).map(|u| u.username), Some("bob".into()));
    }
}
