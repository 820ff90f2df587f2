//! Where the API server is and how to prove who we are to it.
//!
//! kube-scheduler takes `--kubeconfig` and `--master` (or `clientConnection.kubeconfig`) and hands
//! them to client-go's `clientcmd.BuildConfigFromFlags`; a drop-in replacement must read the same
//! files the same way. This module resolves those inputs into one [`RestConfig`]: kubeconfig YAML
//! (clusters/users/contexts, file references relative to the kubeconfig's directory as `kubectl`
//! does), the in-cluster service account, or a bare `--master` URL. Only certificate and bearer
//! token authentication is supported; exec plugins, auth providers, basic auth and impersonation
//! are rejected with an error naming the user entry rather than silently connecting anonymously.
//!
//! Secrets never reach `Debug` output or error messages.

use crate::core::api::null_as_default;
use crate::shell::kube::base64;
use crate::shell::kube::files::{read_capped, FileReader, MAX_REFERENCED_FILE_BYTES};
use crate::shell::kube::token::{read_token_file_with, TokenError, TokenSource};
use serde::de::{Deserializer, IgnoredAny};
use serde::Deserialize;
use std::fmt;
use std::io;
use std::path::{Path, PathBuf};

/// Everything needed to open authenticated connections to one API server.
#[derive(Clone)]
pub struct RestConfig {
    /// Base URL, e.g. `https://10.0.0.1:6443` (may carry a path prefix behind a proxy).
    pub server: String,
    /// PEM bundle of the CAs that sign the server certificate; `None` means system roots.
    pub ca_pem: Option<Vec<u8>>,
    /// PEM client certificate chain for mutual TLS (kubeadm's scheduler.conf uses this).
    pub client_cert_pem: Option<Vec<u8>>,
    /// PEM private key matching `client_cert_pem`. Secret.
    pub client_key_pem: Option<Vec<u8>>,
    /// Bearer token source (service accounts, static tokens). Secret.
    pub token: Option<TokenSource>,
    /// Do not verify the server certificate (kubeconfig `insecure-skip-tls-verify`).
    pub insecure_skip_tls_verify: bool,
    /// Name to verify the server certificate against instead of the URL host.
    pub tls_server_name: Option<String>,
    /// Where this configuration came from ("kubeconfig FILE context X", "in-cluster"), for logs.
    pub origin: String,
}

impl fmt::Debug for RestConfig {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // Certificates are public but bulky; keys and tokens are secret. Show only presence.
        f.debug_struct("RestConfig")
            .field("server", &self.server)
            .field("ca_pem", &self.ca_pem.as_ref().map(|_| "<set>"))
            .field("client_cert_pem", &self.client_cert_pem.as_ref().map(|_| "<set>"))
            .field("client_key_pem", &self.client_key_pem.as_ref().map(|_| "<redacted>"))
            .field("token", &self.token)
            .field("insecure_skip_tls_verify", &self.insecure_skip_tls_verify)
            .field("tls_server_name", &self.tls_server_name)
            .field("origin", &self.origin)
            .finish()
    }
}

/// Why a client configuration could not be built. Every variant names the file and, where it
/// applies, the field path inside it, so the user knows exactly what to fix.
#[derive(Debug)]
pub enum KubeconfigError {
    /// The kubeconfig itself could not be read.
    Read { path: PathBuf, source: io::Error },
    /// The kubeconfig exists but holds no YAML document.
    Empty { path: PathBuf },
    /// YAML syntax error or a field of the wrong shape; `field` is the path inside the document.
    Parse { path: PathBuf, field: String, message: String },
    /// A file named by a kubeconfig field (`certificate-authority`, `tokenFile`, ...) is unreadable.
    ReadReferenced { path: PathBuf, field: String, file: PathBuf, source: io::Error },
    /// No context was requested and `current-context` is empty.
    NoCurrentContext { path: PathBuf, available: Vec<String> },
    /// The requested context is not defined.
    UnknownContext { path: PathBuf, context: String, available: Vec<String> },
    /// The context names a cluster that is not defined.
    MissingCluster { path: PathBuf, context: String, cluster: String },
    /// The context names a user that is not defined.
    MissingUser { path: PathBuf, context: String, user: String },
    /// An authentication or connection feature edgesched deliberately does not implement;
    /// `hint` says what to use instead.
    Unsupported { path: PathBuf, entry: String, feature: &'static str, hint: &'static str },
    /// Fields that are individually fine but contradict each other or are incomplete.
    Invalid { path: PathBuf, entry: String, problem: String },
    /// In-cluster configuration requested outside a pod.
    NotInCluster { missing: &'static str },
    /// A service-account file (token or CA) could not be read.
    ServiceAccount { file: PathBuf, source: io::Error },
    /// A plain-HTTP server URL without the explicit opt-in.
    InsecureHttp { server: String, origin: String },
    /// The server URL is malformed.
    InvalidServer { server: String, origin: String, problem: String },
}

impl fmt::Display for KubeconfigError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        use KubeconfigError::*;
        match self {
            Read { path, source } => write!(f, "{}: cannot read kubeconfig: {source}", path.display()),
            Empty { path } => write!(f, "{}: kubeconfig is empty", path.display()),
            Parse { path, field, message } if field == "." => write!(f, "{}: {message}", path.display()),
            Parse { path, field, message } => write!(f, "{}: {field}: {message}", path.display()),
            ReadReferenced { path, field, file, source } => {
                write!(f, "{}: {field}: cannot read {}: {source}", path.display(), file.display())
            }
            NoCurrentContext { path, available } => write!(
                f,
                "{}: current-context is not set, so there is no context to use (contexts defined: {})",
                path.display(),
                list_or_none(available)
            ),
            UnknownContext { path, context, available } => {
                write!(f, "{}: context {context:?} not found (contexts defined: {})", path.display(), list_or_none(available))
            }
            MissingCluster { path, context, cluster } => write!(
                f,
                "{}: context {context:?} refers to cluster {cluster:?}, which is not defined under clusters",
                path.display()
            ),
            MissingUser { path, context, user } => {
                write!(f, "{}: context {context:?} refers to user {user:?}, which is not defined under users", path.display())
            }
            Unsupported { path, entry, feature, hint } => {
                write!(f, "{}: {entry}: {feature} is not supported by edgesched; {hint}", path.display())
            }
            Invalid { path, entry, problem } => write!(f, "{}: {entry}: {problem}", path.display()),
            NotInCluster { missing } => write!(
                f,
                "not running inside a cluster: environment variable {missing} is not set \
                 (pass --kubeconfig or --master to run outside a pod)"
            ),
            ServiceAccount { file, source } => {
                write!(f, "in-cluster configuration: cannot read {}: {source}", file.display())
            }
            InsecureHttp { server, origin } => write!(
                f,
                "{origin}: server {server:?} uses plain http, which sends credentials unencrypted; \
                 pass --allow-insecure-http if this is really intended"
            ),
            InvalidServer { server, origin, problem } => write!(f, "{origin}: server {server:?}: {problem}"),
        }
    }
}

impl std::error::Error for KubeconfigError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            KubeconfigError::Read { source, .. }
            | KubeconfigError::ReadReferenced { source, .. }
            | KubeconfigError::ServiceAccount { source, .. } => Some(source),
            _ => None,
        }
    }
}

fn list_or_none(names: &[String]) -> String {
    if names.is_empty() {
        "none".to_string()
    } else {
        names.join(", ")
    }
}

// ---------------------------------------------------------------------------------------------
// The kubeconfig file format (clientcmd/api/v1 types), reduced to what we read.
// ---------------------------------------------------------------------------------------------

#[derive(Debug, Default, Deserialize)]
#[serde(default)]
struct KubeconfigFile {
    #[serde(deserialize_with = "null_as_default")]
    clusters: Vec<NamedCluster>,
    #[serde(deserialize_with = "null_as_default")]
    users: Vec<NamedUser>,
    #[serde(deserialize_with = "null_as_default")]
    contexts: Vec<NamedContext>,
    #[serde(rename = "current-context", deserialize_with = "null_as_default")]
    current_context: String,
}

#[derive(Debug, Default, Deserialize)]
#[serde(default)]
struct NamedCluster {
    #[serde(deserialize_with = "null_as_default")]
    name: String,
    #[serde(deserialize_with = "null_as_default")]
    cluster: ClusterEntry,
}

#[derive(Debug, Default, Deserialize)]
#[serde(default, rename_all = "kebab-case")]
struct ClusterEntry {
    #[serde(deserialize_with = "null_as_default")]
    server: String,
    certificate_authority: Option<String>,
    #[serde(deserialize_with = "base64_field")]
    certificate_authority_data: Option<Vec<u8>>,
    #[serde(deserialize_with = "null_as_default")]
    insecure_skip_tls_verify: bool,
    tls_server_name: Option<String>,
    proxy_url: Option<String>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(default)]
struct NamedUser {
    #[serde(deserialize_with = "null_as_default")]
    name: String,
    #[serde(deserialize_with = "null_as_default")]
    user: UserEntry,
}

#[derive(Debug, Default, Deserialize)]
#[serde(default, rename_all = "kebab-case")]
struct UserEntry {
    client_certificate: Option<String>,
    #[serde(deserialize_with = "base64_field")]
    client_certificate_data: Option<Vec<u8>>,
    client_key: Option<String>,
    #[serde(deserialize_with = "base64_field")]
    client_key_data: Option<Vec<u8>>,
    token: Option<String>,
    #[serde(rename = "tokenFile")]
    token_file: Option<String>,
    username: Option<String>,
    password: Option<String>,
    exec: Option<IgnoredAny>,
    auth_provider: Option<IgnoredAny>,
    #[serde(rename = "as")]
    impersonate: Option<String>,
    #[serde(rename = "as-uid")]
    impersonate_uid: Option<String>,
    #[serde(rename = "as-groups")]
    impersonate_groups: Option<IgnoredAny>,
    #[serde(rename = "as-user-extra")]
    impersonate_extra: Option<IgnoredAny>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(default)]
struct NamedContext {
    #[serde(deserialize_with = "null_as_default")]
    name: String,
    #[serde(deserialize_with = "null_as_default")]
    context: ContextEntry,
}

#[derive(Debug, Default, Deserialize)]
#[serde(default)]
struct ContextEntry {
    #[serde(deserialize_with = "null_as_default")]
    cluster: String,
    #[serde(deserialize_with = "null_as_default")]
    user: String,
}

/// Decode a `*-data` field while deserializing, so a bad value is reported with its field path.
fn base64_field<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Vec<u8>>, D::Error> {
    match Option::<String>::deserialize(d)? {
        None => Ok(None),
        // Decoded as Go's `encoding/json` decodes a `[]byte` field; nothing decoded is unset,
        // as client-go reads an empty `*Data` field.
        Some(text) => match base64::decode(text.as_bytes()) {
            Ok(bytes) if bytes.is_empty() => Ok(None),
            Ok(bytes) => Ok(Some(bytes)),
            Err(e) => Err(serde::de::Error::custom(format!("invalid base64: {e}"))),
        },
    }
}

/// Most YAML nodes (aliases expanded) accepted in a kubeconfig.
const MAX_YAML_NODES: usize = 20_000;

fn parse_kubeconfig(path: &Path, text: &str) -> Result<KubeconfigFile, KubeconfigError> {
    let mut failed_at: Option<String> = None;
    let mut options = serde_saphyr::Options::default();
    // Snippets would quote the offending line, which may hold key or token material.
    options.with_snippet = false;
    // A kubeconfig has at most a few hundred nodes; refuse alias bombs before they cost seconds.
    let mut budget = serde_saphyr::budget::Budget::default();
    budget.max_nodes = MAX_YAML_NODES;
    budget.max_events = 4 * MAX_YAML_NODES;
    options.budget = Some(budget);
    options.alias_limits.max_total_replayed_events = MAX_YAML_NODES;
    let parsed = serde_saphyr::with_deserializer_from_str_with_options(text, options, |de| {
        let mut track = serde_path_to_error::Track::new();
        let tracked = serde_path_to_error::Deserializer::new(de, &mut track);
        let result = KubeconfigFile::deserialize(tracked);
        if result.is_err() {
            failed_at = Some(track.path().to_string());
        }
        result
    });
    parsed.map_err(|err| KubeconfigError::Parse {
        path: path.to_path_buf(),
        field: failed_at.unwrap_or_else(|| ".".to_string()),
        message: err.to_string(),
    })
}

// ---------------------------------------------------------------------------------------------
// Resolving a context into a RestConfig.
// ---------------------------------------------------------------------------------------------

/// Read a kubeconfig and resolve `context` (or its `current-context`) into a [`RestConfig`].
/// Does not judge the server URL's scheme; [`build_config`](crate::shell::kube::config_source::build_config) does.
pub fn load_kubeconfig(path: &Path, context: Option<&str>) -> Result<RestConfig, KubeconfigError> {
    let read_error = |source| KubeconfigError::Read { path: path.to_path_buf(), source };
    // Size first: a kubeconfig pointed at a huge file (or /dev/zero) must not be read whole.
    let bytes = read_capped(path, MAX_KUBECONFIG_BYTES).map_err(read_error)?;
    let text = String::from_utf8(bytes).map_err(|e| {
        read_error(io::Error::new(
            io::ErrorKind::InvalidData,
            format!("not UTF-8 text (invalid byte at offset {})", e.utf8_error().valid_up_to()),
        ))
    })?;
    load_kubeconfig_str(&text, path, context)
}

/// Resolve kubeconfig `text` as if it had been read from `path` (which names the file in errors
/// and anchors relative file references). Pure apart from reading referenced files; used by
/// [`load_kubeconfig`] and by the fuzz target.
pub fn load_kubeconfig_str(text: &str, path: &Path, context: Option<&str>) -> Result<RestConfig, KubeconfigError> {
    if text.len() as u64 > MAX_KUBECONFIG_BYTES {
        return Err(too_large(path, text.len() as u64, MAX_KUBECONFIG_BYTES));
    }
    if text.trim().is_empty() {
        return Err(KubeconfigError::Empty { path: path.to_path_buf() });
    }
    load_kubeconfig_str_with(text, path, context, read_capped)
}

/// [`load_kubeconfig_str`] without touching the filesystem: every file the kubeconfig references
/// reads as "not found". For fuzzing, where a generated `certificate-authority: /dev/stdin`
/// would otherwise block.
#[doc(hidden)]
pub fn load_kubeconfig_str_no_files(text: &str, path: &Path, context: Option<&str>) -> Result<RestConfig, KubeconfigError> {
    if text.len() as u64 > MAX_KUBECONFIG_BYTES {
        return Err(too_large(path, text.len() as u64, MAX_KUBECONFIG_BYTES));
    }
    if text.trim().is_empty() {
        return Err(KubeconfigError::Empty { path: path.to_path_buf() });
    }
    load_kubeconfig_str_with(text, path, context, |_, _| Err(io::Error::from(io::ErrorKind::NotFound)))
}

fn load_kubeconfig_str_with(
    text: &str,
    path: &Path,
    context: Option<&str>,
    read: FileReader,
) -> Result<RestConfig, KubeconfigError> {
    let file = parse_kubeconfig(path, text)?;
    Resolver { path, base_dir: path.parent().unwrap_or(Path::new("")), file: &file, read }.resolve(context)
}

/// Largest kubeconfig accepted. Real ones, even with several embedded certificates, are a few
/// KiB; the cap keeps a wrong path (a log file, a disk image) from being loaded into memory.
pub const MAX_KUBECONFIG_BYTES: u64 = 4 * 1024 * 1024;

fn too_large(path: &Path, len: u64, max: u64) -> KubeconfigError {
    KubeconfigError::Read {
        path: path.to_path_buf(),
        source: io::Error::new(
            io::ErrorKind::InvalidData,
            format!("file is {len} bytes; files larger than {} MiB ({max} bytes) are refused", max / (1024 * 1024)),
        ),
    }
}

/// Resolution state for one kubeconfig: knows the file for error messages and its directory for
/// relative paths.
struct Resolver<'a> {
    path: &'a Path,
    base_dir: &'a Path,
    file: &'a KubeconfigFile,
    read: FileReader,
}

impl Resolver<'_> {
    fn resolve(&self, context: Option<&str>) -> Result<RestConfig, KubeconfigError> {
        let context_name = context.unwrap_or(self.file.current_context.as_str());
        let context_names = || self.file.contexts.iter().map(|c| c.name.clone()).collect::<Vec<_>>();
        if context_name.is_empty() {
            return Err(KubeconfigError::NoCurrentContext { path: self.path.to_path_buf(), available: context_names() });
        }
        let ctx = self.file.contexts.iter().find(|c| c.name == context_name).ok_or_else(|| KubeconfigError::UnknownContext {
            path: self.path.to_path_buf(),
            context: context_name.to_string(),
            available: context_names(),
        })?;
        let (cluster_index, cluster) =
            self.file.clusters.iter().enumerate().find(|(_, c)| c.name == ctx.context.cluster).ok_or_else(|| {
                KubeconfigError::MissingCluster {
                    path: self.path.to_path_buf(),
                    context: context_name.to_string(),
                    cluster: ctx.context.cluster.clone(),
                }
            })?;
        let mut config = self.cluster_config(cluster_index, cluster)?;
        // An empty user name means "no credentials", as in clientcmd.
        if !ctx.context.user.is_empty() {
            let (user_index, user) =
                self.file.users.iter().enumerate().find(|(_, u)| u.name == ctx.context.user).ok_or_else(|| {
                    KubeconfigError::MissingUser {
                        path: self.path.to_path_buf(),
                        context: context_name.to_string(),
                        user: ctx.context.user.clone(),
                    }
                })?;
            self.apply_user(user_index, user, &mut config)?;
        }
        config.origin = format!("kubeconfig {} context {context_name}", self.path.display());
        Ok(config)
    }

    fn cluster_config(&self, index: usize, named: &NamedCluster) -> Result<RestConfig, KubeconfigError> {
        let entry = format!("clusters[{index}] ({:?})", named.name);
        let cluster = &named.cluster;
        if cluster.server.trim().is_empty() {
            return Err(self.invalid(&entry, "server is not set".to_string()));
        }
        if cluster.proxy_url.as_deref().is_some_and(|p| !p.is_empty()) {
            return Err(KubeconfigError::Unsupported {
                path: self.path.to_path_buf(),
                entry,
                feature: "proxy-url",
                hint: "set HTTPS_PROXY (and NO_PROXY) in the environment instead: they are honoured",
            });
        }
        let field = format!("clusters[{index}].cluster.certificate-authority");
        let ca_pem =
            self.data_or_file(cluster.certificate_authority_data.as_ref(), cluster.certificate_authority.as_deref(), &field)?;
        if cluster.insecure_skip_tls_verify && ca_pem.is_some() {
            // client-go refuses this combination too (transport.TLSConfigFor).
            return Err(
                self.invalid(&entry, "insecure-skip-tls-verify and a certificate authority cannot both be set".to_string())
            );
        }
        Ok(RestConfig {
            server: cluster.server.trim().to_string(),
            ca_pem,
            client_cert_pem: None,
            client_key_pem: None,
            token: None,
            insecure_skip_tls_verify: cluster.insecure_skip_tls_verify,
            tls_server_name: cluster.tls_server_name.clone().filter(|s| !s.is_empty()),
            origin: String::new(),
        })
    }

    fn apply_user(&self, index: usize, named: &NamedUser, config: &mut RestConfig) -> Result<(), KubeconfigError> {
        let entry = format!("users[{index}] ({:?})", named.name);
        let user = &named.user;
        self.reject_unsupported_auth(&entry, user)?;
        let prefix = format!("users[{index}].user");
        config.client_cert_pem = self.data_or_file(
            user.client_certificate_data.as_ref(),
            user.client_certificate.as_deref(),
            &format!("{prefix}.client-certificate"),
        )?;
        config.client_key_pem =
            self.data_or_file(user.client_key_data.as_ref(), user.client_key.as_deref(), &format!("{prefix}.client-key"))?;
        match (&config.client_cert_pem, &config.client_key_pem) {
            (Some(_), None) => return Err(self.invalid(&entry, "client-certificate is set but client-key is not".into())),
            (None, Some(_)) => return Err(self.invalid(&entry, "client-key is set but client-certificate is not".into())),
            _ => {}
        }
        config.token = self.token_source(user, &prefix)?;
        Ok(())
    }

    fn reject_unsupported_auth(&self, entry: &str, user: &UserEntry) -> Result<(), KubeconfigError> {
        let feature = if user.exec.is_some() {
            Some("exec credential plugins")
        } else if user.auth_provider.is_some() {
            Some("auth-provider")
        } else if user.username.is_some() || user.password.is_some() {
            Some("username/password (basic) authentication")
        } else if user.impersonate.is_some()
            || user.impersonate_uid.is_some()
            || user.impersonate_groups.is_some()
            || user.impersonate_extra.is_some()
        {
            Some("impersonation (as, as-uid, as-groups, as-user-extra)")
        } else {
            None
        };
        match feature {
            Some(feature) => Err(KubeconfigError::Unsupported {
                path: self.path.to_path_buf(),
                entry: entry.to_string(),
                feature,
                hint: "use a client certificate, token or tokenFile",
            }),
            None => Ok(()),
        }
    }

    /// `tokenFile` wins over `token` (client-go reads the file last and keeps re-reading it); the
    /// file is read once now so a missing file fails at startup, not on the first request.
    fn token_source(&self, user: &UserEntry, prefix: &str) -> Result<Option<TokenSource>, KubeconfigError> {
        if let Some(file) = user.token_file.as_deref().filter(|f| !f.is_empty()) {
            let resolved = self.resolve_path(file);
            let field = format!("{prefix}.tokenFile");
            return match read_token_file_with(&resolved, self.read) {
                Ok(_) => Ok(Some(TokenSource::File(resolved))),
                Err(TokenError::Read { source, .. }) => {
                    Err(KubeconfigError::ReadReferenced { path: self.path.to_path_buf(), field, file: resolved, source })
                }
                Err(TokenError::Empty { .. }) => Err(KubeconfigError::Invalid {
                    path: self.path.to_path_buf(),
                    entry: field,
                    problem: format!("token file {} is empty", resolved.display()),
                }),
            };
        }
        Ok(user.token.as_deref().map(str::trim).filter(|t| !t.is_empty()).map(|t| TokenSource::Static(t.to_string())))
    }

    /// Inline `*-data` takes precedence over the file reference, as in client-go.
    fn data_or_file(&self, data: Option<&Vec<u8>>, file: Option<&str>, field: &str) -> Result<Option<Vec<u8>>, KubeconfigError> {
        if let Some(data) = data {
            return Ok(Some(data.clone()));
        }
        let Some(file) = file.filter(|f| !f.is_empty()) else {
            return Ok(None);
        };
        let resolved = self.resolve_path(file);
        (self.read)(&resolved, MAX_REFERENCED_FILE_BYTES).map(Some).map_err(|source| KubeconfigError::ReadReferenced {
            path: self.path.to_path_buf(),
            field: field.to_string(),
            file: resolved,
            source,
        })
    }

    /// Relative paths inside a kubeconfig are relative to the kubeconfig's own directory
    /// (clientcmd `ResolvePaths`), not to the working directory.
    fn resolve_path(&self, file: &str) -> PathBuf {
        let p = Path::new(file);
        if p.is_absolute() {
            p.to_path_buf()
        } else {
            self.base_dir.join(p)
        }
    }

    fn invalid(&self, entry: &str, problem: String) -> KubeconfigError {
        KubeconfigError::Invalid { path: self.path.to_path_buf(), entry: entry.to_string(), problem }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::shell::kube::write_file as write;

    /// A fresh directory for one test's files, removed when the test ends.
    fn scratch_dir(name: &str) -> crate::core::scratch::ScratchDir {
        crate::core::scratch::ScratchDir::new(&format!("kubeconfig-{name}"))
    }

    fn fixture(name: &str) -> PathBuf {
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures").join(name)
    }

    fn err_text(r: Result<RestConfig, KubeconfigError>) -> String {
        r.expect_err("expected an error").to_string()
    }

    #[test]
    fn docs_fixture_has_empty_current_context() {
        let path = fixture("kubeconfig-docs-config-demo-view.yaml");
        let msg = err_text(load_kubeconfig(&path, None));
        assert!(msg.contains("current-context is not set"), "{msg}");
        assert!(msg.contains("dev-frontend, dev-storage, exp-test"), "{msg}");
    }

    #[test]
    fn docs_fixture_missing_referenced_files_name_the_field() {
        // dev-frontend uses certificate-authority: fake-ca-file, relative to the fixture's dir.
        let path = fixture("kubeconfig-docs-config-demo-view.yaml");
        let err = load_kubeconfig(&path, Some("dev-frontend")).unwrap_err();
        match &err {
            KubeconfigError::ReadReferenced { field, file, .. } => {
                assert_eq!(field, "clusters[0].cluster.certificate-authority");
                assert_eq!(file, &path.parent().unwrap().join("fake-ca-file"));
            }
            other => panic!("unexpected {other:?}"),
        }
    }

    #[test]
    fn docs_fixture_insecure_cluster_with_basic_auth_user_is_rejected_naming_the_user() {
        let path = fixture("kubeconfig-docs-config-demo-view.yaml");
        let msg = err_text(load_kubeconfig(&path, Some("exp-test")));
        assert!(msg.contains("users[1] (\"experimenter\")"), "{msg}");
        assert!(msg.contains("username/password"), "{msg}");
        assert!(!msg.contains("some-password"), "{msg}");
    }

    #[test]
    fn js_fixture_rejects_proxy_url_and_unknown_context() {
        let path = fixture("kubeconfig-embedded-data-fake-js-client-testdata.yaml");
        let msg = err_text(load_kubeconfig(&path, Some("context1")));
        assert!(msg.contains("clusters[0] (\"cluster1\"): proxy-url is not supported"), "{msg}");
        let msg = err_text(load_kubeconfig(&path, Some("nope")));
        assert!(msg.contains("context \"nope\" not found"), "{msg}");
        assert!(msg.contains("context1, context2, passwd"), "{msg}");
    }

    #[test]
    fn embedded_data_is_decoded_and_secrets_stay_out_of_debug() {
        let dir = scratch_dir("embedded");
        let path = write(
            &dir,
            "config",
            "apiVersion: v1\nkind: Config\ncurrent-context: c\nclusters:\n- name: k\n  cluster:\n    server: https://10.0.0.1:6443\n    certificate-authority-data: Q0FEQVRB\n    tls-server-name: kubernetes\nusers:\n- name: u\n  user:\n    client-certificate-data: VVNFUl9DQURBVEE=\n    client-key-data: VVNFUl9DS0RBVEE=\n    token: s3cr3t-token\ncontexts:\n- name: c\n  context: {cluster: k, user: u, namespace: x}\n",
        );
        let cfg = load_kubeconfig(&path, None).unwrap();
        assert_eq!(cfg.server, "https://10.0.0.1:6443");
        assert_eq!(cfg.ca_pem.as_deref(), Some(&b"CADATA"[..]));
        assert_eq!(cfg.client_cert_pem.as_deref(), Some(&b"USER_CADATA"[..]));
        assert_eq!(cfg.client_key_pem.as_deref(), Some(&b"USER_CKDATA"[..]));
        assert_eq!(cfg.token, Some(TokenSource::Static("s3cr3t-token".into())));
        assert_eq!(cfg.tls_server_name.as_deref(), Some("kubernetes"));
        assert_eq!(cfg.origin, format!("kubeconfig {} context c", path.display()));
        let debug = format!("{cfg:?}");
        assert!(!debug.contains("s3cr3t"), "{debug}");
        assert!(!debug.contains("CKDATA"), "{debug}");
    }

    #[test]
    fn invalid_base64_names_file_and_field_path() {
        let dir = scratch_dir("b64");
        let path = write(
            &dir,
            "k.conf",
            "clusters:\n- name: k\n  cluster:\n    server: https://h\ncontexts:\n- name: c\n  context: {cluster: k, user: u}\ncurrent-context: c\nusers:\n- name: u\n  user:\n    client-key-data: not_base64\n",
        );
        let msg = err_text(load_kubeconfig(&path, None));
        let expected =
            format!("{}: users[0].user.client-key-data: invalid base64: illegal base64 data at input byte 3", path.display());
        assert!(msg.starts_with(&expected), "{msg}");
    }

    #[test]
    fn wrong_shape_names_field_path() {
        let dir = scratch_dir("shape");
        let path = write(&dir, "k", "clusters:\n- name: k\n  cluster:\n    insecure-skip-tls-verify: [1]\n");
        let err = load_kubeconfig(&path, None).unwrap_err();
        match &err {
            KubeconfigError::Parse { field, .. } => assert_eq!(field, "clusters[0].cluster.insecure-skip-tls-verify"),
            other => panic!("unexpected {other:?}"),
        }
    }

    #[test]
    fn yaml_syntax_error_is_reported_with_the_file() {
        let dir = scratch_dir("syntax");
        let path = write(&dir, "k", "clusters: [\n");
        let msg = err_text(load_kubeconfig(&path, None));
        assert!(msg.starts_with(&path.display().to_string()), "{msg}");
    }

    #[test]
    fn missing_and_empty_files() {
        let dir = scratch_dir("missing");
        let msg = err_text(load_kubeconfig(&dir.join("absent"), None));
        assert!(msg.contains("absent: cannot read kubeconfig"), "{msg}");
        let empty = write(&dir, "empty", "  \n# just a comment\n");
        // A comment-only file parses to nothing: no contexts.
        let msg = err_text(load_kubeconfig(&empty, None));
        assert!(msg.contains("current-context is not set"), "{msg}");
        let blank = write(&dir, "blank", "\n\n");
        assert!(matches!(load_kubeconfig(&blank, None), Err(KubeconfigError::Empty { .. })));
    }

    #[test]
    fn context_pointing_at_missing_cluster_or_user() {
        let dir = scratch_dir("dangling");
        let path = write(
            &dir,
            "k",
            "current-context: a\ncontexts:\n- name: a\n  context: {cluster: nowhere, user: u}\n- name: b\n  context: {cluster: k, user: nobody}\nclusters:\n- name: k\n  cluster: {server: https://h}\n",
        );
        let msg = err_text(load_kubeconfig(&path, None));
        assert!(msg.contains("context \"a\" refers to cluster \"nowhere\""), "{msg}");
        let msg = err_text(load_kubeconfig(&path, Some("b")));
        assert!(msg.contains("context \"b\" refers to user \"nobody\""), "{msg}");
    }

    #[test]
    fn exec_and_auth_provider_are_rejected_naming_the_user() {
        let dir = scratch_dir("exec");
        let base = "current-context: c\ncontexts:\n- name: c\n  context: {cluster: k, user: u}\nclusters:\n- name: k\n  cluster: {server: https://h}\nusers:\n- name: other\n  user: {}\n- name: u\n  user:\n";
        let exec = write(
            &dir,
            "exec",
            &format!("{base}    exec:\n      command: aws\n      apiVersion: client.authentication.k8s.io/v1\n"),
        );
        let msg = err_text(load_kubeconfig(&exec, None));
        assert!(msg.contains("users[1] (\"u\"): exec credential plugins is not supported"), "{msg}");
        let ap = write(&dir, "ap", &format!("{base}    auth-provider:\n      name: gcp\n"));
        assert!(err_text(load_kubeconfig(&ap, None)).contains("auth-provider is not supported"));
        let imp = write(&dir, "imp", &format!("{base}    as: admin\n    token: t\n"));
        assert!(err_text(load_kubeconfig(&imp, None)).contains("impersonation"));
    }

    #[test]
    fn relative_file_references_resolve_against_the_kubeconfig_directory() {
        let dir = scratch_dir("relative");
        std::fs::create_dir_all(dir.join("pki")).unwrap();
        write(&dir, "pki/ca.crt", "CA PEM");
        write(&dir, "pki/client.crt", "CERT PEM");
        write(&dir, "pki/client.key", "KEY PEM");
        write(&dir, "pki/token", "  tok-from-file\n");
        let path = write(
            &dir,
            "config",
            "current-context: c\ncontexts:\n- name: c\n  context: {cluster: k, user: u}\nclusters:\n- name: k\n  cluster:\n    server: https://h:6443\n    certificate-authority: pki/ca.crt\nusers:\n- name: u\n  user:\n    client-certificate: pki/client.crt\n    client-key: pki/client.key\n    token: ignored-because-tokenFile-wins\n    tokenFile: pki/token\n",
        );
        let cfg = load_kubeconfig(&path, None).unwrap();
        assert_eq!(cfg.ca_pem.as_deref(), Some(&b"CA PEM"[..]));
        assert_eq!(cfg.client_cert_pem.as_deref(), Some(&b"CERT PEM"[..]));
        assert_eq!(cfg.client_key_pem.as_deref(), Some(&b"KEY PEM"[..]));
        assert_eq!(cfg.token, Some(TokenSource::File(dir.join("pki/token"))));
    }

    #[test]
    fn data_fields_take_precedence_over_files_and_incomplete_pairs_fail() {
        let dir = scratch_dir("precedence");
        let path = write(
            &dir,
            "config",
            "current-context: c\ncontexts:\n- name: c\n  context: {cluster: k, user: u}\nclusters:\n- name: k\n  cluster:\n    server: https://h\n    certificate-authority: /does/not/exist\n    certificate-authority-data: Q0FEQVRB\nusers:\n- name: u\n  user:\n    client-certificate-data: Q0FEQVRB\n",
        );
        let msg = err_text(load_kubeconfig(&path, None));
        assert!(msg.contains("client-certificate is set but client-key is not"), "{msg}");
    }

    #[test]
    fn insecure_with_ca_and_missing_server_are_invalid() {
        let dir = scratch_dir("invalid");
        let both = write(
            &dir,
            "both",
            "current-context: c\ncontexts:\n- name: c\n  context: {cluster: k}\nclusters:\n- name: k\n  cluster:\n    server: https://h\n    insecure-skip-tls-verify: true\n    certificate-authority-data: Q0FEQVRB\n",
        );
        assert!(err_text(load_kubeconfig(&both, None)).contains("cannot both be set"));
        let noserver = write(
            &dir,
            "noserver",
            "current-context: c\ncontexts:\n- name: c\n  context: {cluster: k}\nclusters:\n- name: k\n  cluster: {}\n",
        );
        assert!(err_text(load_kubeconfig(&noserver, None)).contains("clusters[0] (\"k\"): server is not set"));
    }

    #[test]
    fn oversized_kubeconfigs_and_referenced_files_are_refused_with_the_file_name() {
        let dir = scratch_dir("huge");
        let huge = dir.join("huge");
        let f = std::fs::File::create(&huge).unwrap();
        f.set_len(MAX_KUBECONFIG_BYTES + 1).unwrap();
        let msg = err_text(load_kubeconfig(&huge, None));
        assert!(msg.contains(&huge.display().to_string()) && msg.contains("larger than 4 MiB"), "{msg}");
        let text = format!(
            "current-context: c\ncontexts:\n- name: c\n  context: {{cluster: k}}\nclusters:\n- name: k\n  cluster: {{server: https://x, certificate-authority: {}}}\n",
            huge.display()
        );
        let cfg = write(&dir, "refs-huge", &text);
        let msg = err_text(load_kubeconfig(&cfg, None));
        assert!(msg.contains("clusters[0].cluster.certificate-authority") && msg.contains("refused"), "{msg}");
        let binary = dir.join("binary");
        std::fs::write(&binary, b"clusters: [\xff\xfe]\n").unwrap();
        let msg = err_text(load_kubeconfig(&binary, None));
        assert!(msg.contains("not UTF-8"), "{msg}");
    }
}
