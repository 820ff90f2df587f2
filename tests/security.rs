//! Security properties of the real binary: server certificates are verified unless the kubeconfig
//! says `insecure-skip-tls-verify` (and then loudly), plain-http API servers need an explicit
//! opt-in, bearer tokens and private keys never reach the logs (even at `--v=10`) or `/configz`,
//! a rotated token file is picked up promptly, and the health endpoints refuse oversized,
//! slow-loris and request-smuggling requests; and every map hashed without a seed says why no
//! tenant chooses its keys.

mod support;

use std::io::{Read, Write};
use std::net::TcpStream;
use std::time::Duration;
use support::certs::TestCa;
use support::objects::{node, pod};
use support::process::{command, free_port, Edgesched, Launch};
use support::{https, tempdir, wait_until, KubeAuth, TestApiServer};

const T: Duration = Duration::from_secs(20);
const NODES: &str = "/api/v1/nodes";
const PODS: &str = "/api/v1/namespaces/default/pods";

fn create_pod(server: &TestApiServer, name: &str) {
    server.create(PODS, pod("default", name).scheduler("edgesched").cpu("100m").build());
}

fn wait_bound(server: &TestApiServer, es: &Edgesched, name: &str) {
    wait_until(T, &format!("{name} bound"), || {
        server.get(&format!("{PODS}/{name}")).is_some_and(|p| p["spec"]["nodeName"].as_str().is_some_and(|n| !n.is_empty()))
    })
    .unwrap_or_else(|e| panic!("{e}\n{}", es.logs()));
}

fn assert_no_panic(es: &Edgesched) {
    let logs = es.logs();
    assert!(!logs.contains("panicked"), "{logs}");
}

#[test]
fn tokens_and_keys_never_appear_in_logs_or_configz_even_at_v10() {
    let server = TestApiServer::start();
    server.create(NODES, node("n1").build());
    let token = "edgesched-secret-token-4f1c9a7e2b";
    server.add_token(token, "system:kube-scheduler", &[]);
    server.add_token("admin-token", "admin", &["system:masters"]);
    let mut launch = Launch { auth: KubeAuth::Token(token.into()), ..Launch::default() };
    launch.extra_args = vec!["--v=10".into()];
    let es = launch.start(&server);
    es.wait_for_log("Caches are synced", T).expect("synced");
    create_pod(&server, "p1");
    wait_bound(&server, &es, "p1");
    // Provoke the error paths too: the API server stops accepting the token for a while.
    server.remove_token(token);
    create_pod(&server, "p2");
    wait_until(T, "a 401 answered", || server.requests().iter().any(|r| r.code == 401)).expect("401");
    es.wait_for_log("Unauthorized", T).expect("401 logged");
    server.add_token(token, "system:kube-scheduler", &[]);
    wait_bound(&server, &es, "p2");

    let (code, configz) =
        https::get(&format!("https://127.0.0.1:{}/configz", es.secure_port), Some("admin-token")).expect("configz");
    assert_eq!(code, 200, "{configz}");
    assert!(!configz.contains(token), "token in /configz: {configz}");
    let logs = es.logs();
    assert!(logs.contains("Successfully bound pod"), "verbose logs expected:\n{logs}");
    assert!(!logs.contains(token), "token in the logs at --v=10");
    assert!(!logs.contains(&token[..16]), "part of the token in the logs at --v=10");
    assert_no_panic(&es);

    // A client certificate's private key: neither the PEM nor its base64 shows up.
    let launch = Launch { extra_args: vec!["--v=10".into()], ..Launch::default() };
    let es = launch.start(&server);
    es.wait_for_log("Caches are synced", T).expect("synced");
    let kubeconfig = std::fs::read_to_string(
        std::fs::read_dir(&es.dir)
            .expect("dir")
            .flatten()
            .map(|e| e.path())
            .find(|p| p.to_string_lossy().contains("kubeconfig"))
            .expect("kubeconfig"),
    )
    .expect("read kubeconfig");
    let key_b64 = kubeconfig.lines().find_map(|l| l.trim().strip_prefix("client-key-data: ")).expect("key data").to_string();
    let logs = es.logs();
    assert!(!logs.contains("PRIVATE KEY"), "key PEM in the logs");
    assert!(!logs.contains(&key_b64[..40]), "key data in the logs");
}

#[test]
fn a_rotated_token_file_is_used_after_the_old_token_is_revoked() {
    let server = TestApiServer::start();
    server.create(NODES, node("n1").build());
    let dir = tempdir("token-rotation");
    let token_file = dir.join("token");
    std::fs::write(&token_file, "token-one\n").expect("write token");
    server.add_token("token-one", "sa-one", &[]);
    server.grant_kube_scheduler_roles("sa-one");
    server.grant_kube_scheduler_roles("sa-two");
    let es = Launch { auth: KubeAuth::TokenFile(token_file.clone()), ..Launch::default() }.start(&server);
    es.wait_for_log("Caches are synced", T).expect("synced");
    create_pod(&server, "before");
    wait_bound(&server, &es, "before");

    // Rotate as the kubelet does: new file contents, and the API server stops accepting the old
    // token. Open watches were authenticated when they started; drop them so they reconnect.
    std::fs::write(&token_file, "token-two\n").expect("rotate token");
    server.add_token("token-two", "sa-two", &[]);
    server.remove_token("token-one");
    server.drop_watches();
    create_pod(&server, "after");
    // Well within the one-minute token cache: the 401 makes the client re-read the file.
    wait_bound(&server, &es, "after");
    let requests = server.requests();
    assert!(
        requests.iter().any(|r| r.user == "sa-two" && r.method == "POST" && r.path.ends_with("/binding")),
        "the binding was made with the new token"
    );
    assert_no_panic(&es);
}

/// Rewrite a kubeconfig written by the test server: replace its CA line with `cluster_line`.
fn with_cluster_line(kubeconfig: &str, cluster_line: &str) -> String {
    kubeconfig
        .lines()
        .map(|l| if l.trim_start().starts_with("certificate-authority-data:") { cluster_line.to_string() } else { l.to_string() })
        .collect::<Vec<_>>()
        .join("\n")
}

fn start_with_kubeconfig(kubeconfig: &str, extra: &[&str]) -> Edgesched {
    let dir = tempdir("security-kc");
    let kc = dir.join("kubeconfig");
    std::fs::write(&kc, kubeconfig).expect("write kubeconfig");
    let config = dir.join("config.yaml");
    std::fs::write(
        &config,
        format!(
            "apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\nclientConnection:\n  kubeconfig: {}\nleaderElection:\n  leaderElect: false\nprofiles:\n- schedulerName: edgesched\n",
            kc.display()
        ),
    )
    .expect("write config");
    let port = free_port();
    let mut args = vec![
        format!("--config={}", config.display()),
        format!("--secure-port={port}"),
        "--bind-address=127.0.0.1".to_string(),
        "--v=2".to_string(),
    ];
    args.extend(extra.iter().map(|s| s.to_string()));
    Edgesched::spawn(&args, dir, port)
}

#[test]
fn server_certificates_are_verified_unless_the_kubeconfig_says_otherwise() {
    let server = TestApiServer::start();
    let impostor = TestApiServer::start();
    server.create(NODES, node("n1").build());
    let dir = tempdir("tls-verify");
    let good =
        std::fs::read_to_string(server.write_kubeconfig(&dir, KubeAuth::ClientCert { user: "system:kube-scheduler".into() }))
            .expect("kubeconfig");

    // Trusting another CA: the connection is refused, nothing is scheduled, no silent fallback.
    let other_ca = std::fs::read_to_string(impostor.write_kubeconfig(&dir, KubeAuth::Token("x".into()))).expect("kubeconfig");
    let other_ca_line = other_ca.lines().find(|l| l.contains("certificate-authority-data:")).expect("ca line");
    let es = start_with_kubeconfig(&with_cluster_line(&good, other_ca_line), &[]);
    // Logged at the default verbosity, at once: a certificate failure is not retried silently.
    es.wait_for_log("invalid peer certificate", T).expect("verification failure logged");
    create_pod(&server, "unverified");
    assert!(!es.logs().contains("Caches are synced"), "{}", es.logs());
    assert!(server.requests().iter().all(|r| r.method != "POST"), "nothing written over an unverified connection");
    drop(es);

    // insecure-skip-tls-verify: works, with a warning on startup.
    let es = start_with_kubeconfig(&with_cluster_line(&good, "    insecure-skip-tls-verify: true"), &[]);
    es.wait_for_log("Caches are synced", T).expect("synced");
    let logs = es.logs();
    assert!(logs.contains("insecure-skip-tls-verify") && logs.contains("NOT verified"), "{logs}");
    wait_bound(&server, &es, "unverified");
}

#[test]
fn plain_http_master_needs_the_explicit_opt_in() {
    let dir = tempdir("http-master");
    let config = dir.join("config.yaml");
    std::fs::write(
        &config,
        "apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\nprofiles:\n- schedulerName: edgesched\n",
    )
    .expect("write config");
    let out =
        command().args([format!("--config={}", config.display()), "--master=http://127.0.0.1:1".into()]).output().expect("run");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("plain http") && stderr.contains("--allow-insecure-http"), "{stderr}");
    assert!(!stderr.contains("panicked"), "{stderr}");

    // With the opt-in it starts (and keeps retrying the unreachable server), warning about it.
    let port = free_port();
    let mut es = Edgesched::spawn(
        &[
            format!("--config={}", config.display()),
            "--master=http://127.0.0.1:1".into(),
            "--allow-insecure-http".into(),
            format!("--secure-port={port}"),
            "--bind-address=127.0.0.1".into(),
        ],
        dir,
        port,
    );
    es.wait_for_log("plain HTTP", T).expect("warning");
    assert!(es.alive(), "{}", es.logs());
}

/// Send `request` on a fresh plain-HTTP connection and return the status line.
fn raw_status(port: u16, request: &[u8]) -> String {
    let mut s = TcpStream::connect(("127.0.0.1", port)).expect("connect");
    s.set_read_timeout(Some(T)).expect("timeout");
    // The server may answer and close before reading everything; that is fine.
    let _ = s.write_all(request);
    let mut out = Vec::new();
    let _ = s.read_to_end(&mut out);
    String::from_utf8_lossy(&out).lines().next().unwrap_or_default().to_string()
}

#[test]
fn health_server_refuses_oversized_and_slow_requests() {
    let server = TestApiServer::start();
    let port = free_port();
    let es =
        Launch { extra_args: vec![format!("--port={port}"), "--address=127.0.0.1".into()], ..Launch::default() }.start(&server);
    es.wait_for_log("Caches are synced", T).expect("synced");
    wait_until(T, "plain-HTTP healthz", || https::get(&format!("http://127.0.0.1:{port}/healthz"), None).is_ok())
        .unwrap_or_else(|e| panic!("{e}\n{}", es.logs()));

    let huge_header = format!("GET /healthz HTTP/1.1\r\nX-Big: {}\r\n\r\n", "a".repeat(64 * 1024));
    assert!(raw_status(port, huge_header.as_bytes()).starts_with("HTTP/1.1 431"));
    let many_headers = format!("GET /healthz HTTP/1.1\r\n{}\r\n", "X-A: b\r\n".repeat(200));
    assert!(raw_status(port, many_headers.as_bytes()).starts_with("HTTP/1.1 431"));
    let big_body = format!("POST /healthz HTTP/1.1\r\nContent-Length: {}\r\n\r\n", 10 * 1024 * 1024);
    assert!(raw_status(port, big_body.as_bytes()).starts_with("HTTP/1.1 413"));
    assert!(raw_status(port, b"GET /healthz HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n").starts_with("HTTP/1.1 501"));
    assert!(raw_status(port, b"\x16\x03\x01garbage\r\n\r\n").starts_with("HTTP/1.1 400"));

    // Slow loris on the HTTPS port: a TLS record header announcing 16 KiB, then one byte per
    // 100 ms. Every read is well inside the 10 s per-read timeout, so only the request deadline
    // can end it; the server must hang up long before the record is complete.
    let mut slow = TcpStream::connect(("127.0.0.1", es.secure_port)).expect("connect");
    slow.write_all(&[0x16, 0x03, 0x01, 0x40, 0x00]).expect("record header");
    slow.set_read_timeout(Some(Duration::from_millis(100))).expect("timeout");
    let mut closed = false;
    for _ in 0..16 * 1024 {
        if slow.write_all(&[0x01]).is_err() {
            closed = true;
            break;
        }
        let mut buf = [0u8; 64];
        match slow.read(&mut buf) {
            Ok(_) => {
                closed = true; // EOF or an alert, followed by the close
                break;
            }
            Err(e) if matches!(e.kind(), std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut) => {}
            Err(_) => {
                closed = true;
                break;
            }
        }
    }
    assert!(closed, "a slow-loris TLS handshake was kept open");
    // And the server still answers everyone else.
    assert_eq!(https::get(&format!("https://127.0.0.1:{}/healthz", es.secure_port), None).expect("healthz").0, 200);
    assert_no_panic(&es);
}

/// Plain HTTP to the HTTPS port gets Go's `400 Client sent an HTTP request to an HTTPS server.`;
/// `--cert-dir` keeps the generated serving pair; `--tls-min-version=VersionTLS13` is served.
#[test]
fn secure_port_answers_plain_http_like_go_and_keeps_its_certificate_in_cert_dir() {
    let server = TestApiServer::start();
    server.create(NODES, node("n1").build());
    let certs = tempdir("cert-dir");
    let launch = Launch {
        extra_args: vec![format!("--cert-dir={}", certs.display()), "--tls-min-version".into(), "VersionTLS13".into()],
        ..Default::default()
    };
    let es = launch.start(&server);
    es.wait_for_log("Caches are synced", T).expect("synced");
    assert!(certs.join("kube-scheduler.crt").exists() && certs.join("kube-scheduler.key").exists());
    let mut conn = TcpStream::connect(("127.0.0.1", es.secure_port)).expect("connect");
    conn.set_read_timeout(Some(T)).expect("timeout");
    conn.write_all(b"GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n").expect("write");
    let mut out = String::new();
    let _ = conn.read_to_string(&mut out);
    assert_eq!(out, "HTTP/1.0 400 Bad Request\r\n\r\nClient sent an HTTP request to an HTTPS server.\n");
    assert_eq!(https::get(&format!("https://127.0.0.1:{}/healthz", es.secure_port), None).expect("https"), (200, "ok".into()));
}

#[test]
fn write_config_to_writes_the_effective_configuration_and_exits() {
    let dir = tempdir("write-config");
    let out = dir.join("effective.yaml");
    let status = command()
        .args(["--config=examples/config.yaml", &format!("--write-config-to={}", out.display())])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .status()
        .expect("run");
    assert_eq!(status.code(), Some(0));
    let text = std::fs::read_to_string(&out).expect("written");
    assert!(text.contains("kind: KubeSchedulerConfiguration") && text.contains("percentageOfNodesToScore"), "{text}");
}

/// A request-smuggling attempt on the real binary's secure port: two different `Content-Length`
/// values, so that a front proxy reading the second would forward `GET /metrics` as the body of
/// an unauthenticated `/healthz` request. The server answers as Go's net/http does (400, the
/// connection closed) and never answers the hidden request; the same request with one length
/// is served.
#[test]
fn secure_port_refuses_a_request_smuggling_attempt() {
    let server = TestApiServer::start();
    let ca = TestCa::new();
    let serving = ca.issue_server_cert();
    let dir = tempdir("smuggling");
    let (cert, key) = (dir.join("serving.crt"), dir.join("serving.key"));
    std::fs::write(&cert, &serving.cert_pem).expect("write");
    std::fs::write(&key, &serving.key_pem).expect("write");
    let launch = Launch {
        extra_args: vec![format!("--tls-cert-file={}", cert.display()), format!("--tls-private-key-file={}", key.display())],
        ..Default::default()
    };
    let es = launch.start(&server);
    es.wait_for_log("Caches are synced", T).expect("synced");

    let hidden = "GET /metrics HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n";
    let attempt = |lengths: &str| format!("GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n{lengths}\r\n{hidden}");
    let two = attempt(&format!("Content-Length: 0\r\nContent-Length: {}\r\n", hidden.len()));
    let answer =
        https::raw_exchange(es.secure_port, ca.ca_der(), two.as_bytes()).unwrap_or_else(|e| panic!("{e}\n{}", es.logs()));
    assert_eq!(
        answer,
        "HTTP/1.1 400 Bad Request\r\nContent-Type: text/plain; charset=utf-8\r\nConnection: close\r\n\r\n400 Bad Request"
    );
    let beside = attempt(&format!("Content-Length: {}\r\nTransfer-Encoding: chunked\r\n", hidden.len()));
    let answer = https::raw_exchange(es.secure_port, ca.ca_der(), beside.as_bytes()).expect("exchange");
    assert!(answer.starts_with("HTTP/1.1 400 Bad Request\r\n") && !answer.contains("200 OK"), "{answer}");

    let one = attempt(&format!("Content-Length: {}\r\nConnection: close\r\n", hidden.len()));
    let answer = https::raw_exchange(es.secure_port, ca.ca_der(), one.as_bytes()).expect("exchange");
    assert!(answer.starts_with("HTTP/1.1 200 OK\r\n") && answer.ends_with("ok"), "{answer}");
    assert_no_panic(&es);
}

/// The unseeded hasher (`src/core/fxhash.rs`) can be attacked with keys computed offline, so each
/// place that uses it says, in a comment starting "Unseeded" on the line or the three before it,
/// why no tenant chooses its keys; keys a tenant chooses go to the seeded hasher. A new use
/// without the reason fails here and makes its author decide.
#[test]
fn every_use_of_the_unseeded_hash_says_why_no_tenant_chooses_its_keys() {
    fn rust_files(dir: &std::path::Path, out: &mut Vec<std::path::PathBuf>) {
        for entry in std::fs::read_dir(dir).expect("read src") {
            let path = entry.expect("dir entry").path();
            if path.is_dir() {
                rust_files(&path, out);
            } else if path.extension().is_some_and(|e| e == "rs") {
                out.push(path);
            }
        }
    }
    let src = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    let mut uses = 0;
    let mut missing = Vec::new();
    for file in files.iter().filter(|f| !f.ends_with("core/fxhash.rs")) {
        let text = std::fs::read_to_string(file).expect("read source");
        let lines: Vec<&str> = text.lines().collect();
        for (i, line) in lines.iter().enumerate() {
            if !line.contains("fxhash::") {
                continue;
            }
            uses += 1;
            let said = lines[i.saturating_sub(3)..=i].iter().any(|l| l.contains("Unseeded"));
            if !said {
                missing.push(format!("{}:{}: {}", file.strip_prefix(&src).unwrap_or(file).display(), i + 1, line.trim()));
            }
        }
    }
    assert!(uses > 0, "no use of the unseeded hash found under {}: is the scan looking in the right place?", src.display());
    assert!(missing.is_empty(), "uses of the unseeded hash without an `Unseeded` reason:\n{}", missing.join("\n"));
}
