//! Hostile and malformed input through the real binary. Configuration files and kubeconfigs of
//! the wrong shape, size or encoding make it exit 2 with a message naming the file and the field,
//! never a panic; API objects with invalid, absurd, negative or unknown values (served by the test
//! API server, which like a real one does not re-validate what it stores here) cost only the pod
//! concerned a clear FailedScheduling event, and the loop keeps binding the others.

mod support;

use serde_json::{json, Value};
use std::path::{Path, PathBuf};
use std::process::{Output, Stdio};
use std::time::{Duration, Instant};
use support::objects::{node, pod};
use support::process::{command, Edgesched, Launch};
use support::{tempdir, wait_until, TestApiServer};

const T: Duration = Duration::from_secs(20);
const NODES: &str = "/api/v1/nodes";
const MIB: usize = 1024 * 1024;

// ----- configuration files and kubeconfigs ------------------------------------------------------

/// Run the binary to completion (killed after 30 s, which fails the test) and return its output.
fn run(args: &[String]) -> Output {
    let mut child =
        command().args(args).stdin(Stdio::null()).stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().expect("spawn edgesched");
    let deadline = Instant::now() + Duration::from_secs(30);
    while child.try_wait().expect("wait").is_none() {
        if Instant::now() > deadline {
            let _ = child.kill();
            break;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    child.wait_with_output().expect("output")
}

/// The binary must refuse the input with exit code 2, without panicking, and its stderr must
/// mention every string in `expect` (the file, the field, the problem).
fn assert_refused(args: &[String], expect: &[&str]) {
    let out = run(args);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "args {args:?}\nstderr:\n{stderr}");
    assert!(!stderr.contains("panicked"), "panic for {args:?}:\n{stderr}");
    for e in expect {
        assert!(stderr.contains(e), "stderr for {args:?} lacks {e:?}:\n{stderr}");
    }
}

fn write(dir: &Path, name: &str, bytes: impl AsRef<[u8]>) -> PathBuf {
    let p = dir.join(name);
    std::fs::write(&p, bytes).expect("write");
    p
}

fn config_arg(p: &Path) -> String {
    format!("--config={}", p.display())
}

const HEAD: &str = "apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\n";

/// `depth` nested flow sequences: `[[[...]]]`.
fn nested(depth: usize) -> String {
    format!("{}{}", "[".repeat(depth), "]".repeat(depth))
}

/// The "billion laughs" YAML: nine levels of anchors, each alias list referring to the previous
/// level nine times (9^9 nodes if expanded).
fn alias_bomb(key: &str) -> String {
    let mut s = format!("{key}:\n  a0: &a0 [\"lol\", \"lol\", \"lol\", \"lol\", \"lol\", \"lol\", \"lol\", \"lol\", \"lol\"]\n");
    for i in 1..10 {
        let p = i - 1;
        s.push_str(&format!("  a{i}: &a{i} [*a{p}, *a{p}, *a{p}, *a{p}, *a{p}, *a{p}, *a{p}, *a{p}, *a{p}]\n"));
    }
    s
}

#[test]
fn malformed_configuration_files_exit_2_naming_file_and_field() {
    let dir = tempdir("bad-config");
    let cases: Vec<(&str, Vec<u8>, Vec<&str>)> = vec![
        ("wrong-type.yaml", format!("{HEAD}percentageOfNodesToScore: lots\n").into_bytes(), vec!["percentageOfNodesToScore"]),
        (
            "wrong-type-nested.yaml",
            format!("{HEAD}profiles:\n- schedulerName: a\n  plugins:\n    score:\n      enabled:\n      - name: NodeAffinity\n        weight: heavy\n").into_bytes(),
            vec!["profiles[0].plugins.score.enabled[0].weight"],
        ),
        ("profiles-not-a-list.yaml", format!("{HEAD}profiles: {{a: 1}}\n").into_bytes(), vec!["profiles"]),
        (
            "unknown-apiversion.yaml",
            b"apiVersion: kubescheduler.config.k8s.io/v9\nkind: KubeSchedulerConfiguration\n".to_vec(),
            vec!["apiVersion", "kubescheduler.config.k8s.io/v9"],
        ),
        (
            "unknown-kind.yaml",
            b"apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeProxyConfiguration\n".to_vec(),
            vec!["kind", "KubeProxyConfiguration"],
        ),
        ("not-a-mapping.yaml", b"- just\n- a list\n".to_vec(), vec!["expected a YAML mapping"]),
        ("non-utf8.yaml", [HEAD.as_bytes(), b"profiles:\n- schedulerName: \xff\xfe\n"].concat(), vec!["not UTF-8"]),
        ("huge.yaml", [HEAD.as_bytes(), &vec![b'#'; 20 * MIB]].concat(), vec!["larger than 1 MiB"]),
        ("deep.yaml", format!("{HEAD}profiles: {}\n", nested(100_000)).into_bytes(), vec!["not valid YAML"]),
        ("alias-bomb.yaml", format!("{HEAD}{}", alias_bomb("extenders")).into_bytes(), vec!["not valid YAML", "alias"]),
        ("syntax.yaml", format!("{HEAD}profiles: [\n").into_bytes(), vec!["not valid YAML"]),
    ];
    for (name, bytes, expect) in cases {
        let path = write(&dir, name, bytes);
        let mut want = vec![name];
        want.extend(expect);
        assert_refused(&[config_arg(&path)], &want);
    }
    assert_refused(&[config_arg(&dir.join("missing.yaml"))], &["missing.yaml", "cannot read"]);
    assert_refused(&[config_arg(&dir)], &["cannot read"]);
}

/// A valid configuration pointing at `kubeconfig`.
fn config_with_kubeconfig(dir: &Path, kubeconfig: &Path) -> PathBuf {
    write(
        dir,
        &format!("config-{}.yaml", kubeconfig.file_name().and_then(|n| n.to_str()).unwrap_or("x")),
        format!("{HEAD}clientConnection:\n  kubeconfig: {}\nprofiles:\n- schedulerName: edgesched\n", kubeconfig.display()),
    )
}

fn b64(s: &str) -> String {
    use base64::Engine;
    base64::engine::general_purpose::STANDARD.encode(s)
}

fn kubeconfig_text(cluster: &str, user: &str) -> String {
    format!(
        "apiVersion: v1\nkind: Config\nclusters:\n- name: k\n  cluster:\n{cluster}users:\n- name: u\n  user:\n{user}contexts:\n- name: c\n  context: {{cluster: k, user: u}}\ncurrent-context: c\n"
    )
}

#[test]
fn malformed_kubeconfigs_exit_2_naming_file_and_field() {
    let dir = tempdir("bad-kubeconfig");
    let https = "    server: https://127.0.0.1:1\n";
    let garbage_pem = b64("-----BEGIN CERTIFICATE-----\nbm90IGEgY2VydA==\n-----END CERTIFICATE-----\n");
    let token = "    token: abc\n";
    let cases: Vec<(&str, Vec<u8>, Vec<&str>)> = vec![
        ("clusters-wrong-type", b"clusters: 5\n".to_vec(), vec!["clusters"]),
        (
            "insecure-wrong-type",
            kubeconfig_text(&format!("{https}    insecure-skip-tls-verify: sometimes\n"), token).into_bytes(),
            vec!["clusters[0].cluster.insecure-skip-tls-verify"],
        ),
        (
            "bad-base64",
            kubeconfig_text(&format!("{https}    certificate-authority-data: '%%%'\n"), token).into_bytes(),
            vec!["clusters[0].cluster.certificate-authority-data", "base64"],
        ),
        (
            "invalid-ca-pem",
            kubeconfig_text(&format!("{https}    certificate-authority-data: {garbage_pem}\n"), token).into_bytes(),
            vec!["certificate-authority"],
        ),
        (
            "ca-not-pem-at-all",
            kubeconfig_text(&format!("{https}    certificate-authority-data: {}\n", b64("hello")), token).into_bytes(),
            vec!["certificate-authority"],
        ),
        (
            "invalid-client-key",
            kubeconfig_text(
                &format!("{https}    insecure-skip-tls-verify: true\n"),
                &format!(
                    "    client-certificate-data: {garbage_pem}\n    client-key-data: {}\n",
                    b64("-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n")
                ),
            )
            .into_bytes(),
            vec!["client-"],
        ),
        (
            "missing-referenced-file",
            kubeconfig_text(&format!("{https}    certificate-authority: /nonexistent/ca.crt\n"), token).into_bytes(),
            vec!["clusters[0].cluster.certificate-authority", "/nonexistent/ca.crt"],
        ),
        (
            "plain-http",
            kubeconfig_text("    server: http://127.0.0.1:1\n", token).into_bytes(),
            vec!["plain http", "--allow-insecure-http"],
        ),
        ("non-utf8", [b"clusters: []\n# \xff\xfe\n".as_slice()].concat(), vec!["not UTF-8"]),
        ("huge", [b"clusters: []\n".as_slice(), &vec![b'#'; 20 * MIB]].concat(), vec!["larger than 4 MiB"]),
        ("deep", format!("clusters: {}\n", nested(100_000)).into_bytes(), vec!["kubeconfig"]),
        ("alias-bomb", alias_bomb("preferences").into_bytes(), vec!["kubeconfig"]),
        ("empty", b"\n\n".to_vec(), vec!["empty"]),
    ];
    for (name, bytes, expect) in cases {
        let kc = write(&dir, name, bytes);
        let config = config_with_kubeconfig(&dir, &kc);
        let mut want = vec![name];
        want.extend(expect);
        assert_refused(&[config_arg(&config)], &want);
    }
    let config = config_with_kubeconfig(&dir, &dir.join("no-such-kubeconfig"));
    assert_refused(&[config_arg(&config)], &["no-such-kubeconfig", "cannot read"]);
}

// ----- API objects ------------------------------------------------------------------------------

fn pods_path(ns: &str) -> String {
    format!("/api/v1/namespaces/{ns}/pods")
}

fn node_of(server: &TestApiServer, name: &str) -> Option<String> {
    server
        .get(&format!("{}/{name}", pods_path("default")))
        .and_then(|p| p["spec"]["nodeName"].as_str().map(str::to_string))
        .filter(|n| !n.is_empty())
}

fn failed_note(server: &TestApiServer, name: &str) -> Option<String> {
    server
        .events("default")
        .iter()
        .find(|e| e["regarding"]["name"] == name && e["reason"] == "FailedScheduling")
        .map(|e| e["note"].as_str().unwrap_or_default().to_string())
}

fn wait_failed(server: &TestApiServer, es: &Edgesched, name: &str) -> String {
    let mut note = None;
    wait_until(T, &format!("FailedScheduling for {name}"), || {
        note = failed_note(server, name);
        note.is_some()
    })
    .unwrap_or_else(|e| panic!("{e}\n{}", es.logs()));
    assert!(node_of(server, name).is_none(), "{name} was bound");
    note.unwrap_or_default()
}

fn wait_bound(server: &TestApiServer, es: &Edgesched, name: &str) -> String {
    wait_until(T, &format!("{name} bound"), || node_of(server, name).is_some()).unwrap_or_else(|e| panic!("{e}\n{}", es.logs()));
    node_of(server, name).unwrap_or_default()
}

fn scheduling_condition_reason(server: &TestApiServer, name: &str) -> Option<String> {
    let cond = server.pod_scheduled(&format!("{}/{name}", pods_path("default")))?;
    cond["reason"].as_str().map(str::to_string)
}

#[test]
fn hostile_api_objects_fail_only_their_own_pod_and_the_loop_continues() {
    let server = TestApiServer::start();
    // Nodes: one normal, one with absurd and negative allocatable and an unknown taint effect, one
    // tainted NoSchedule, one carrying a 1 MiB label value.
    server.create(NODES, node("good").cpu("4").memory("8Gi").label("role", "good").build());
    server.create(
        NODES,
        node("absurd")
            .cpu("1e400")
            .memory("99999999999999999999Ei")
            .resource("ephemeral-storage", "-5Gi")
            .taint("weird", "x", "Bar")
            .label("role", "absurd")
            .build(),
    );
    server.create(NODES, node("tainted").cpu("4").taint("dedicated", "x", "NoSchedule").label("role", "tainted").build());
    server.create(NODES, node("huge-label").cpu("1").label("big", &"v".repeat(MIB)).label("role", "huge").build());
    let es = Launch::default().start(&server);
    es.wait_for_log("Caches are synced", T).expect("synced");
    let create = |name: &str, obj: Value| {
        server.create(&pods_path("default"), obj);
        name.to_string()
    };

    // Invalid, negative and overflowing quantities in requests.
    let invalid = create("invalid-cpu", pod("default", "invalid-cpu").scheduler("edgesched").cpu("1x").build());
    let negative = create("negative-mem", pod("default", "negative-mem").scheduler("edgesched").memory("-1Gi").build());
    let absurd_cpu = create(
        "absurd-cpu",
        pod("default", "absurd-cpu").scheduler("edgesched").cpu("1e400").node_selector("role", "good").build(),
    );
    let absurd_mem = create(
        "absurd-mem",
        pod("default", "absurd-mem")
            .scheduler("edgesched")
            .memory("99999999999999999999Ei")
            .node_selector("role", "good")
            .build(),
    );
    // Unknown enum values: an operator that tolerates nothing, an unknown effect, an unknown
    // node-affinity operator.
    let bad_operator = create(
        "bad-operator",
        pod("default", "bad-operator")
            .scheduler("edgesched")
            .cpu("100m")
            .toleration("dedicated", "Foo", "x", "NoSchedule")
            .node_selector("role", "tainted")
            .build(),
    );
    let bad_affinity = create(
        "bad-affinity-operator",
        pod("default", "bad-affinity-operator")
            .scheduler("edgesched")
            .cpu("100m")
            .affinity(json!({"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [
                {"matchExpressions": [{"key": "role", "operator": "Foo", "values": ["good"]}]}
            ]}}}))
            .build(),
    );
    // An unknown toleration effect is harmless: it just does not match.
    let odd_effect = create(
        "odd-effect",
        pod("default", "odd-effect")
            .scheduler("edgesched")
            .cpu("100m")
            .toleration("weird", "Exists", "", "Bar")
            .node_selector("role", "good")
            .build(),
    );
    // Missing fields: no containers, no metadata labels, no requests at all.
    let bare = create(
        "bare",
        json!({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "bare", "namespace": "default"},
               "spec": {"schedulerName": "edgesched", "nodeSelector": {"role": "good"}}}),
    );
    // A 1 MiB label value on the pod itself.
    let big_label = create(
        "big-label",
        pod("default", "big-label")
            .scheduler("edgesched")
            .cpu("100m")
            .label("big", &"x".repeat(MIB))
            .node_selector("role", "good")
            .build(),
    );

    // Each broken pod gets a FailedScheduling event saying why...
    let note = wait_failed(&server, &es, &invalid);
    assert!(note.contains("cpu") && note.contains("1x"), "{note}");
    let note = wait_failed(&server, &es, &negative);
    assert!(note.contains("memory") && note.contains("-1Gi"), "{note}");
    let note = wait_failed(&server, &es, &absurd_cpu);
    assert!(note.contains("Insufficient cpu"), "{note}");
    let note = wait_failed(&server, &es, &absurd_mem);
    assert!(note.contains("Insufficient memory"), "{note}");
    let note = wait_failed(&server, &es, &bad_operator);
    assert!(note.contains("untolerated taint"), "{note}");
    let note = wait_failed(&server, &es, &bad_affinity);
    assert!(note.contains("affinity"), "{note}");
    for name in [&invalid, &negative, &absurd_cpu, &bad_operator] {
        wait_until(T, &format!("{name} PodScheduled=False"), || {
            scheduling_condition_reason(&server, name).as_deref() == Some("Unschedulable")
        })
        .unwrap_or_else(|e| panic!("{e}\n{}", es.logs()));
    }
    // ...while the odd but valid ones are bound, and so is a normal pod created afterwards.
    assert_eq!(wait_bound(&server, &es, &odd_effect), "good");
    assert_eq!(wait_bound(&server, &es, &bare), "good");
    assert_eq!(wait_bound(&server, &es, &big_label), "good");
    let after = create("after", pod("default", "after").scheduler("edgesched").cpu("100m").node_selector("role", "huge").build());
    assert_eq!(wait_bound(&server, &es, &after), "huge-label");
    let logs = es.logs();
    assert!(!logs.contains("panicked"), "{logs}");
}
