//! Which configuration the client uses, resolved from `--kubeconfig` and `--master` like
//! client-go's `clientcmd.BuildConfigFromFlags`: a kubeconfig file, a bare server URL, or the
//! in-cluster service account (`rest.InClusterConfig`).

use crate::shell::kube::files::{read_capped, MAX_REFERENCED_FILE_BYTES};
use crate::shell::kube::kubeconfig::{load_kubeconfig, KubeconfigError, RestConfig};
use crate::shell::kube::token::{read_token_file, TokenError, TokenSource};
use std::io;
use std::path::{Path, PathBuf};

/// Where the kubelet mounts the pod's service account token and cluster CA.
pub const SERVICE_ACCOUNT_DIR: &str = "/var/run/secrets/kubernetes.io/serviceaccount";

/// Test hook: overrides [`SERVICE_ACCOUNT_DIR`] so end-to-end tests can fake an in-cluster run
/// with their own token and CA files. Not meant for production use.
pub const SERVICE_ACCOUNT_DIR_ENV: &str = "EDGESCHED_SERVICEACCOUNT_DIR";

/// The configuration a pod gets from its environment and service account, like client-go's
/// `rest.InClusterConfig`.
pub fn in_cluster_config() -> Result<RestConfig, KubeconfigError> {
    in_cluster_config_from(|name| std::env::var(name).ok())
}

/// [`in_cluster_config`] with the environment passed in, so tests need not mutate process state.
fn in_cluster_config_from(env: impl Fn(&str) -> Option<String>) -> Result<RestConfig, KubeconfigError> {
    let non_empty =
        |name: &'static str| env(name).filter(|v| !v.is_empty()).ok_or(KubeconfigError::NotInCluster { missing: name });
    let host = non_empty("KUBERNETES_SERVICE_HOST")?;
    let port = non_empty("KUBERNETES_SERVICE_PORT")?;
    let dir = env(SERVICE_ACCOUNT_DIR_ENV).filter(|d| !d.is_empty()).unwrap_or_else(|| SERVICE_ACCOUNT_DIR.to_string());
    let dir = PathBuf::from(dir);
    let token_file = dir.join("token");
    // Read once now so a pod without a token fails at startup (client-go does the same).
    read_token_file(&token_file).map_err(|err| match err {
        TokenError::Read { path, source } => KubeconfigError::ServiceAccount { file: path, source },
        TokenError::Empty { path } => KubeconfigError::ServiceAccount {
            file: path,
            source: io::Error::new(io::ErrorKind::InvalidData, "token file is empty"),
        },
    })?;
    let ca_file = dir.join("ca.crt");
    let ca_pem = read_capped(&ca_file, MAX_REFERENCED_FILE_BYTES)
        .map_err(|source| KubeconfigError::ServiceAccount { file: ca_file, source })?;
    Ok(RestConfig {
        server: format!("https://{}", join_host_port(&host, &port)),
        ca_pem: Some(ca_pem),
        client_cert_pem: None,
        client_key_pem: None,
        token: Some(TokenSource::File(token_file)),
        insecure_skip_tls_verify: false,
        tls_server_name: None,
        origin: "in-cluster".to_string(),
    })
}

/// `net.JoinHostPort`: IPv6 literals need brackets in a URL authority.
fn join_host_port(host: &str, port: &str) -> String {
    if host.contains(':') && !host.starts_with('[') {
        format!("[{host}]:{port}")
    } else {
        format!("{host}:{port}")
    }
}

// ---------------------------------------------------------------------------------------------
// --kubeconfig / --master resolution.
// ---------------------------------------------------------------------------------------------

/// Resolve `--kubeconfig` and `--master` like client-go's `clientcmd.BuildConfigFromFlags`:
/// neither → in-cluster; a kubeconfig → its current context, with `master` (if given) replacing
/// the server and clearing `tls-server-name`; `master` alone → that URL without credentials.
/// Plain `http://` servers are refused unless `allow_insecure_http` is set.
pub fn build_config(
    kubeconfig: Option<&Path>,
    master: Option<&str>,
    allow_insecure_http: bool,
) -> Result<RestConfig, KubeconfigError> {
    let master = master.map(str::trim).filter(|m| !m.is_empty());
    let kubeconfig = kubeconfig.filter(|p| !p.as_os_str().is_empty());
    let config = match (kubeconfig, master) {
        (None, None) => {
            log::warn!("Neither --kubeconfig nor --master was specified. Using the inClusterConfig. This might not work.");
            in_cluster_config()?
        }
        (Some(path), master) => {
            let mut config = load_kubeconfig(path, None)?;
            if let Some(master) = master {
                config.server = master.to_string();
                // clientcmd: overriding --server also clears the kubeconfig's tls-server-name.
                config.tls_server_name = None;
                config.origin = format!("{} (server overridden by --master)", config.origin);
            }
            config
        }
        (None, Some(master)) => RestConfig {
            server: master.to_string(),
            ca_pem: None,
            client_cert_pem: None,
            client_key_pem: None,
            token: None,
            insecure_skip_tls_verify: false,
            tls_server_name: None,
            origin: "--master".to_string(),
        },
    };
    check_server_url(&config, allow_insecure_http)?;
    Ok(config)
}

/// The server must be an absolute `https://` URL (or `http://` with the explicit opt-in).
fn check_server_url(config: &RestConfig, allow_insecure_http: bool) -> Result<(), KubeconfigError> {
    let server = &config.server;
    let invalid = |problem: &str| KubeconfigError::InvalidServer {
        server: server.clone(),
        origin: config.origin.clone(),
        problem: problem.to_string(),
    };
    let rest = if let Some(rest) = strip_prefix_ignore_case(server, "https://") {
        rest
    } else if let Some(rest) = strip_prefix_ignore_case(server, "http://") {
        if !allow_insecure_http {
            return Err(KubeconfigError::InsecureHttp { server: server.clone(), origin: config.origin.clone() });
        }
        rest
    } else {
        return Err(invalid("must start with https:// (or http:// with --allow-insecure-http)"));
    };
    let authority = rest.split(['/', '?', '#']).next().unwrap_or("");
    if authority.is_empty() {
        return Err(invalid("has no host"));
    }
    if authority.contains('@') {
        return Err(invalid("must not contain user credentials"));
    }
    if rest.contains(['?', '#']) {
        return Err(invalid("must not contain a query or fragment"));
    }
    Ok(())
}

fn strip_prefix_ignore_case<'a>(s: &'a str, prefix: &str) -> Option<&'a str> {
    let head = s.get(..prefix.len())?;
    head.eq_ignore_ascii_case(prefix).then(|| &s[prefix.len()..])
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::shell::kube::write_file;
    use std::collections::HashMap;

    /// A fresh directory for one test's files, removed when the test ends.
    fn scratch_dir(name: &str) -> crate::core::scratch::ScratchDir {
        crate::core::scratch::ScratchDir::new(&format!("config-source-{name}"))
    }

    fn fake_env(vars: &[(&str, &str)]) -> impl Fn(&str) -> Option<String> {
        let map: HashMap<String, String> = vars.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect();
        move |name| map.get(name).cloned()
    }

    #[test]
    fn in_cluster_reads_service_account_and_brackets_ipv6() {
        let dir = scratch_dir("incluster");
        write_file(&dir, "token", "sa-token\n");
        write_file(&dir, "ca.crt", "CA");
        let sa_dir = dir.display().to_string();
        let cfg = in_cluster_config_from(fake_env(&[
            ("KUBERNETES_SERVICE_HOST", "fd00::1"),
            ("KUBERNETES_SERVICE_PORT", "443"),
            (SERVICE_ACCOUNT_DIR_ENV, &sa_dir),
        ]))
        .unwrap();
        assert_eq!(cfg.server, "https://[fd00::1]:443");
        assert_eq!(cfg.token, Some(TokenSource::File(dir.join("token"))));
        assert_eq!(cfg.ca_pem.as_deref(), Some(&b"CA"[..]));
        assert_eq!(cfg.origin, "in-cluster");
        let v4 = in_cluster_config_from(fake_env(&[
            ("KUBERNETES_SERVICE_HOST", "10.96.0.1"),
            ("KUBERNETES_SERVICE_PORT", "443"),
            (SERVICE_ACCOUNT_DIR_ENV, &sa_dir),
        ]))
        .unwrap();
        assert_eq!(v4.server, "https://10.96.0.1:443");
    }

    #[test]
    fn in_cluster_errors_outside_a_pod_or_without_token() {
        let msg = in_cluster_config_from(fake_env(&[])).unwrap_err().to_string();
        assert!(msg.contains("KUBERNETES_SERVICE_HOST"), "{msg}");
        let dir = scratch_dir("notoken");
        let sa_dir = dir.display().to_string();
        let err = in_cluster_config_from(fake_env(&[
            ("KUBERNETES_SERVICE_HOST", "h"),
            ("KUBERNETES_SERVICE_PORT", "1"),
            (SERVICE_ACCOUNT_DIR_ENV, &sa_dir),
        ]))
        .unwrap_err();
        assert!(err.to_string().contains("token"), "{err}");
    }

    #[test]
    fn build_config_master_overrides_and_http_needs_opt_in() {
        let dir = scratch_dir("build");
        let path = write_file(
            &dir,
            "config",
            "current-context: c\ncontexts:\n- name: c\n  context: {cluster: k, user: u}\nclusters:\n- name: k\n  cluster:\n    server: https://old:6443\n    tls-server-name: old\nusers:\n- name: u\n  user: {token: t}\n",
        );
        let cfg = build_config(Some(&path), Some("https://new:6443"), false).unwrap();
        assert_eq!(cfg.server, "https://new:6443");
        assert_eq!(cfg.tls_server_name, None);
        assert_eq!(cfg.token, Some(TokenSource::Static("t".into())));

        let bare = build_config(None, Some("https://127.0.0.1:6443"), false).unwrap();
        assert_eq!(bare.server, "https://127.0.0.1:6443");
        assert!(bare.token.is_none() && bare.ca_pem.is_none() && bare.client_cert_pem.is_none());

        let msg = build_config(None, Some("http://127.0.0.1:8080"), false).unwrap_err().to_string();
        assert!(msg.contains("--allow-insecure-http"), "{msg}");
        assert!(build_config(None, Some("http://127.0.0.1:8080"), true).is_ok());
        let msg = build_config(None, Some("127.0.0.1:6443"), true).unwrap_err().to_string();
        assert!(msg.contains("must start with https://"), "{msg}");
        assert!(build_config(None, Some("https://"), true).is_err());
        assert!(build_config(None, Some("https://u:p@h"), true).is_err());
    }

    #[test]
    fn js_fixture_http_server_needs_opt_in_through_build_config() {
        // context2 → cluster2: http://example2.com with CA data *and* insecure → invalid anyway;
        // context1 has proxy-url. Neither loads, so build a copy without the unsupported parts.
        let dir = scratch_dir("jshttp");
        let text = String::from_utf8(crate::shell::kube::fixture("kubeconfig-embedded-data-fake-js-client-testdata.yaml"))
            .unwrap()
            .lines()
            .filter(|l| !l.contains("proxy-url"))
            .collect::<Vec<_>>()
            .join("\n");
        let path = write_file(&dir, "config", &text);
        let cfg = load_kubeconfig(&path, Some("context1")).unwrap();
        assert_eq!(cfg.server, "http://example.com");
        let msg = build_config(Some(&path), None, false).unwrap_err().to_string();
        // current-context is context2, whose cluster sets both CA data and insecure.
        assert!(msg.contains("cannot both be set"), "{msg}");
    }
}
