//! End-to-end: high availability and operability of the real binary against the test API server —
//! leader election over a shared Lease (one leader, a standby that binds nothing, failover after
//! SIGKILL, prompt hand-over after SIGTERM, conflicts, renewal failure) and the serving endpoints
//! (health probes, readiness, authenticated /metrics and /configz, the plain-HTTP port).
//!
//! Timing bounds are generous upper bounds that are the feature itself (e.g. failover within
//! leaseDuration + retry + slack); the measured timeline is printed with `eprintln!`.

mod support;

use serde_json::Value;
use std::time::{Duration, Instant};
use support::objects::{node, pod};
use support::process::{free_port, Edgesched, Launch};
use support::promtext::{self, Sample};
use support::{https, wait_until, Failure, TestApiServer};

const NODES: &str = "/api/v1/nodes";
const LEASE: &str = "/apis/coordination.k8s.io/v1/namespaces/kube-system/leases/my-scheduler";
const SCHED: &str = "my-scheduler";
const T: Duration = Duration::from_secs(20);
/// `Launch`'s election timing: leaseDuration 4s, renewDeadline 3s, retryPeriod 500ms.
const LEASE_DURATION: Duration = Duration::from_secs(4);
const RENEW_DEADLINE: Duration = Duration::from_secs(3);
const RETRY_PERIOD: Duration = Duration::from_millis(500);
/// Candidates retry every retryPeriod plus up to 1.2 × retryPeriod of jitter.
const MAX_RETRY: Duration = Duration::from_millis(1100);
const SLACK: Duration = Duration::from_millis(1500);

fn launch(leader_elect: bool) -> Launch {
    Launch { scheduler_names: vec![SCHED.into()], leader_elect, lease_name: SCHED.into(), ..Default::default() }
}

fn pods_path(ns: &str) -> String {
    format!("/api/v1/namespaces/{ns}/pods")
}

fn node_of(server: &TestApiServer, ns: &str, name: &str) -> Option<String> {
    server
        .get(&format!("{}/{name}", pods_path(ns)))
        .and_then(|p| p["spec"]["nodeName"].as_str().map(str::to_string))
        .filter(|n| !n.is_empty())
}

fn create_pod(server: &TestApiServer, name: &str) {
    server.create(&pods_path("default"), pod("default", name).scheduler(SCHED).cpu("100m").build());
}

fn wait_bound(server: &TestApiServer, logs: &dyn Fn() -> String, name: &str, timeout: Duration) {
    // The server records the binding just after it stores nodeName: wait for both.
    wait_until(timeout, &format!("default/{name} bound"), || {
        node_of(server, "default", name).is_some() && server.bindings("default", name) > 0
    })
    .unwrap_or_else(|e| panic!("{e}\n{}", logs()));
}

fn lease(server: &TestApiServer) -> Option<Value> {
    server.get(LEASE)
}

fn holder(server: &TestApiServer) -> String {
    lease(server).and_then(|l| l["spec"]["holderIdentity"].as_str().map(str::to_string)).unwrap_or_default()
}

/// The identity an instance logged at start (`"Leader election enabled" identity="..."`).
fn identity(es: &Edgesched) -> String {
    es.wait_for_log("Leader election enabled", T).expect("election start logged");
    let logs = es.logs();
    let line = logs.lines().find(|l| l.contains("Leader election enabled")).expect("line");
    let rest = &line[line.find("identity=\"").expect("identity field") + "identity=\"".len()..];
    rest[..rest.find('"').expect("closing quote")].to_string()
}

fn is_uuid_v4(s: &str) -> bool {
    let b = s.as_bytes();
    s.len() == 36
        && [8, 13, 18, 23].iter().all(|&i| b[i] == b'-')
        && s.chars().enumerate().all(|(i, c)| [8, 13, 18, 23].contains(&i) || c.is_ascii_hexdigit())
        && b[14] == b'4'
        && matches!(b[19], b'8' | b'9' | b'a' | b'b')
}

/// Start two candidates sharing the lease and return (leader, standby, leader identity, standby
/// identity) once one holds it.
fn start_pair(server: &TestApiServer) -> (Edgesched, Edgesched, String, String) {
    let a = launch(true).start(server);
    let b = launch(true).start(server);
    let (ida, idb) = (identity(&a), identity(&b));
    assert_ne!(ida, idb, "two processes on one host need distinct identities");
    wait_until(T, "a leader holds the lease", || !holder(server).is_empty())
        .unwrap_or_else(|e| panic!("{e}\n--- a ---\n{}\n--- b ---\n{}", a.logs(), b.logs()));
    let h = holder(server);
    if h == ida {
        (a, b, ida, idb)
    } else {
        assert_eq!(h, idb, "holder is one of the two candidates");
        (b, a, idb, ida)
    }
}

fn add_nodes(server: &TestApiServer, n: usize) {
    for i in 0..n {
        server.create(NODES, node(&format!("n{i}")).cpu("8").pods(50).build());
    }
}

fn base_url(es: &Edgesched) -> String {
    format!("https://127.0.0.1:{}", es.secure_port)
}

/// GET on the secure port, retrying transport errors while the listener comes up.
fn probe(es: &Edgesched, path: &str, token: Option<&str>) -> (u16, String) {
    let url = format!("{}{path}", base_url(es));
    let mut last = String::new();
    let deadline = Instant::now() + T;
    while Instant::now() < deadline {
        match https::get(&url, token) {
            Ok(r) => return r,
            Err(e) => last = e,
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    panic!("GET {url}: {last}\n{}", es.logs());
}

// ----- Prometheus text exposition ------------------------------------------------------------

/// The value of the one sample of `name` whose labels include `want`.
fn sample(samples: &[Sample], name: &str, want: &[(&str, &str)]) -> Option<f64> {
    let hits: Vec<&Sample> =
        samples.iter().filter(|s| s.name == name && want.iter().all(|(k, v)| s.label(k) == Some(*v))).collect();
    assert!(hits.len() <= 1, "several samples of {name} match {want:?}: {hits:?}");
    hits.first().map(|s| s.value)
}

fn scrape(es: &Edgesched, token: &str) -> Vec<Sample> {
    let (code, body) = probe(es, "/metrics", Some(token));
    assert_eq!(code, 200, "{body}");
    samples_of(&body)
}

/// Every sample of a scrape, which must be valid Prometheus text.
fn samples_of(body: &str) -> Vec<Sample> {
    let families = promtext::parse(body).unwrap_or_else(|e| panic!("/metrics is not Prometheus text: {e}\n{body}"));
    families.into_iter().flat_map(|f| f.samples).collect()
}

// ----- leader election -----------------------------------------------------------------------

#[test]
fn one_leader_standby_binds_nothing_and_lease_is_maintained() {
    let server = TestApiServer::start();
    add_nodes(&server, 2);
    let (leader, standby, leader_id, standby_id) = start_pair(&server);
    leader.wait_for_log("successfully acquired lease", T).expect("leader logged acquisition");

    // holderIdentity is `<hostname>_<uuid v4>`, as kube-scheduler's.
    let (host, uuid) = leader_id.rsplit_once('_').expect("hostname_uuid");
    assert_eq!(host, edgesched::shell::daemon::run::hostname(), "{leader_id}");
    assert!(is_uuid_v4(uuid), "{leader_id}");
    assert!(standby_id.starts_with(&format!("{host}_")));

    let l = lease(&server).expect("lease");
    assert_eq!(l["spec"]["leaseTransitions"], 0, "{l}");
    assert_eq!(l["spec"]["leaseDurationSeconds"], LEASE_DURATION.as_secs(), "{l}");
    let acquire = l["spec"]["acquireTime"].as_str().expect("acquireTime").to_string();
    let renew = l["spec"]["renewTime"].as_str().expect("renewTime").to_string();
    // MicroTime: RFC 3339 with six fractional digits.
    assert_eq!(renew.len(), "2006-01-02T15:04:05.000000Z".len(), "{renew}");
    wait_until(T, "renewTime to move", || lease(&server).is_some_and(|l| l["spec"]["renewTime"] != renew.as_str()))
        .expect("renewed");
    let l = lease(&server).expect("lease");
    assert_eq!(l["spec"]["acquireTime"], acquire.as_str(), "renewals keep acquireTime");
    assert_eq!(l["spec"]["holderIdentity"], leader_id.as_str());
    assert!(l["spec"]["renewTime"].as_str().expect("renewTime") > renew.as_str());

    // The standby knows who leads.
    standby.wait_for_log(&format!(r#""New leader elected" identity="{leader_id}""#), T).expect("standby saw the leader");

    // The LeaderElection event upstream's legacy recorder writes.
    wait_until(T, "LeaderElection event", || {
        server
            .events("kube-system")
            .iter()
            .any(|e| e["reason"] == "LeaderElection" && e["message"] == format!("{leader_id} became leader"))
    })
    .expect("event");

    leader.wait_for_log("Caches are synced", T).expect("synced");
    standby.wait_for_log("Caches are synced", T).expect("standby synced too");
    let n = 6;
    for i in 0..n {
        create_pod(&server, &format!("p{i}"));
    }
    for i in 0..n {
        wait_bound(&server, &|| leader.logs(), &format!("p{i}"), T);
        assert_eq!(server.bindings("default", &format!("p{i}")), 1);
        leader.wait_for_log(&format!(r#""Successfully bound pod to node" pod="default/p{i}""#), T).expect("leader bound it");
    }
    // Give the standby time in which it would have acted.
    std::thread::sleep(Duration::from_millis(500));
    assert!(!standby.logs().contains("Successfully bound"), "standby must bind nothing:\n{}", standby.logs());
    assert!(!standby.logs().contains("successfully acquired lease"));
    let scheduled = server.events("default").into_iter().filter(|e| e["reason"] == "Scheduled").count();
    assert_eq!(scheduled, n, "one Scheduled event per pod, none from the standby");
    assert_eq!(holder(&server), leader_id, "leadership did not move");

    // A standby shutting down leaves the leader's lease alone.
    let mut standby = standby;
    let before = lease(&server).expect("lease");
    standby.terminate();
    let status = standby.wait_exit(Duration::from_secs(5)).expect("standby exited");
    assert_eq!(status.code(), Some(0), "{}", standby.logs());
    assert!(!standby.logs().contains("Released leader lease"));
    let after = lease(&server).expect("lease");
    assert_eq!(after["spec"]["holderIdentity"], leader_id.as_str());
    assert_eq!(after["spec"]["leaseDurationSeconds"], before["spec"]["leaseDurationSeconds"]);
}

#[test]
fn standby_takes_over_after_leader_is_killed() {
    let server = TestApiServer::start();
    add_nodes(&server, 2);
    let (mut leader, standby, _leader_id, standby_id) = start_pair(&server);
    leader.wait_for_log("Caches are synced", T).expect("synced");
    create_pod(&server, "before");
    wait_bound(&server, &|| leader.logs(), "before", T);
    standby.wait_for_log("Caches are synced", T).expect("standby synced");

    let last_renew = lease(&server).expect("lease")["spec"]["renewTime"].as_str().unwrap_or_default().to_string();
    let t0 = Instant::now();
    leader.kill();
    // Created while nobody leads: the standby has it queued and binds it once it leads.
    create_pod(&server, "during");
    let bound = LEASE_DURATION + MAX_RETRY + MAX_RETRY + SLACK;
    wait_until(bound, "standby to take the lease", || holder(&server) == standby_id)
        .unwrap_or_else(|e| panic!("{e}\n{}", standby.logs()));
    let takeover = t0.elapsed();
    create_pod(&server, "after");
    wait_bound(&server, &|| standby.logs(), "after", T);
    let bound_after = t0.elapsed();
    eprintln!(
        "TIMELINE sigkill: leader killed (last renewTime {last_renew}); standby holds lease after {:.2}s; new pod bound after {:.2}s (leaseDuration {}s, retryPeriod {}ms, bound {:.1}s)",
        takeover.as_secs_f64(),
        bound_after.as_secs_f64(),
        LEASE_DURATION.as_secs(),
        RETRY_PERIOD.as_millis(),
        bound.as_secs_f64()
    );
    // A dead leader's lease is honoured for its duration: nobody takes it early.
    // (The standby may have observed the last renewal up to one renew period before the kill.)
    assert!(takeover >= LEASE_DURATION - 2 * RETRY_PERIOD, "takeover after {takeover:?} is before the lease could expire");
    let l = lease(&server).expect("lease");
    assert_eq!(l["spec"]["leaseTransitions"], 1, "{l}");
    assert_eq!(l["spec"]["acquireTime"], l["spec"]["renewTime"].clone(), "fresh acquisition: {l}");
    standby.wait_for_log(r#""Successfully bound pod to node" pod="default/after""#, T).expect("new leader binds");
    assert_eq!(server.bindings("default", "after"), 1);
    wait_bound(&server, &|| standby.logs(), "during", T);
    assert_eq!(server.bindings("default", "during"), 1);
    assert_eq!(server.bindings("default", "before"), 1, "the old pod is not bound again");
}

#[test]
fn sigterm_releases_the_lease_like_client_go() {
    let server = TestApiServer::start();
    let mut es = launch(true).start(&server);
    let id = identity(&es);
    wait_until(T, "leader", || holder(&server) == id).unwrap_or_else(|e| panic!("{e}\n{}", es.logs()));
    // Let at least one renewal happen so transitions/acquireTime are from the creation.
    let before = lease(&server).expect("lease");
    es.wait_for_log("Caches are synced", T).expect("synced");
    let t0 = Instant::now();
    es.terminate();
    let status = es.wait_exit(Duration::from_secs(5)).unwrap_or_else(|| panic!("still running 5s after SIGTERM\n{}", es.logs()));
    let exit = t0.elapsed();
    assert_eq!(status.code(), Some(0), "{}", es.logs());
    assert!(exit < Duration::from_secs(2), "exit took {exit:?}");
    let l = lease(&server).expect("lease");
    // client-go `release()`: HolderIdentity "", LeaseDurationSeconds 1, AcquireTime = RenewTime =
    // now, LeaderTransitions kept.
    assert_eq!(l["spec"]["holderIdentity"], "", "{l}");
    assert_eq!(l["spec"]["leaseDurationSeconds"], 1, "{l}");
    assert_eq!(l["spec"]["leaseTransitions"], before["spec"]["leaseTransitions"], "{l}");
    assert_eq!(l["spec"]["acquireTime"], l["spec"]["renewTime"], "{l}");
    assert!(l["spec"]["renewTime"].as_str() > before["spec"]["renewTime"].as_str(), "{l}");
    assert!(es.logs().contains("Released leader lease"), "{}", es.logs());
    eprintln!("TIMELINE sigterm single: exit 0 after {:.3}s with lease released", exit.as_secs_f64());
}

#[test]
fn standby_takes_over_promptly_after_leader_sigterm() {
    let server = TestApiServer::start();
    add_nodes(&server, 1);
    let (mut leader, standby, _leader_id, standby_id) = start_pair(&server);
    standby.wait_for_log("Caches are synced", T).expect("standby synced");
    leader.wait_for_log("Caches are synced", T).expect("synced");
    let t0 = Instant::now();
    leader.terminate();
    let status = leader.wait_exit(Duration::from_secs(5)).unwrap_or_else(|| panic!("leader still running\n{}", leader.logs()));
    let exit = t0.elapsed();
    assert_eq!(status.code(), Some(0), "{}", leader.logs());
    // Much faster than leaseDuration: the released lease is free at the next retry.
    let bound = MAX_RETRY + SLACK;
    wait_until(Duration::from_secs(2) + bound, "standby to take the lease", || holder(&server) == standby_id)
        .unwrap_or_else(|e| panic!("{e}\n{}", standby.logs()));
    let takeover = t0.elapsed();
    create_pod(&server, "after");
    wait_bound(&server, &|| standby.logs(), "after", T);
    let bound_after = t0.elapsed();
    eprintln!(
        "TIMELINE sigterm: leader exited 0 after {:.3}s; standby holds lease after {:.2}s; new pod bound after {:.2}s (leaseDuration {}s)",
        exit.as_secs_f64(),
        takeover.as_secs_f64(),
        bound_after.as_secs_f64(),
        LEASE_DURATION.as_secs()
    );
    assert!(exit < Duration::from_secs(2), "exit took {exit:?}");
    assert!(takeover < exit + bound, "takeover took {takeover:?}");
    assert!(takeover < LEASE_DURATION, "hand-over after SIGTERM must beat lease expiry ({takeover:?})");
    assert_eq!(lease(&server).expect("lease")["spec"]["leaseTransitions"], 1);
}

#[test]
fn lease_conflicts_are_reobserved_not_fatal() {
    let server = TestApiServer::start();
    add_nodes(&server, 1);
    let (mut leader, mut standby, leader_id, standby_id) = start_pair(&server);
    leader.wait_for_log("Caches are synced", T).expect("synced");

    // Injected conflicts on the leader's renewals and the standby's reads/writes alike.
    let conflicts_before = server.requests().iter().filter(|r| r.path.ends_with("/leases/my-scheduler") && r.code == 409).count();
    server.fail_next(2, "PUT", "/leases/my-scheduler", Failure::Status(409));
    wait_until(T, "injected conflicts consumed", || {
        server.requests().iter().filter(|r| r.path.ends_with("/leases/my-scheduler") && r.code == 409).count()
            >= conflicts_before + 2
    })
    .expect("409s served");

    // A renewal succeeds in between, so the conflicts below do not add up to renewDeadline.
    let renew = lease(&server).expect("lease")["spec"]["renewTime"].clone();
    wait_until(T, "renewal after injected conflicts", || lease(&server).is_some_and(|l| l["spec"]["renewTime"] != renew))
        .unwrap_or_else(|e| panic!("{e}\n{}", leader.logs()));

    // Real optimistic-concurrency conflicts: slow lease requests down so that a concurrent writer
    // bumps resourceVersion between the leader's GET and PUT. A renewal round then takes about
    // 0.7 s, so a 1 s window costs at most two renewals, well within renewDeadline (3 s).
    server.set_latency_for("/leases/my-scheduler", Duration::from_millis(100));
    let until = Instant::now() + Duration::from_millis(1000);
    let mut bumps = 0;
    while Instant::now() < until {
        if let Some(mut l) = lease(&server) {
            l["metadata"]["annotations"]["test/bump"] = Value::String(bumps.to_string());
            if server.try_update(LEASE, l).is_ok() {
                bumps += 1;
            }
        }
        std::thread::sleep(Duration::from_millis(30));
    }
    server.clear_faults();
    let conflicts = || server.requests().iter().filter(|r| r.path.ends_with("/leases/my-scheduler") && r.code == 409).count();
    // A PUT still in its latency when the window closed is recorded a moment later.
    let real = wait_until(Duration::from_secs(2), "a real 409 on a renewal", || conflicts() > conflicts_before + 2);
    eprintln!("lease conflicts served: {} ({bumps} concurrent writes)", conflicts() - conflicts_before);
    real.expect("a concurrent write made a renewal conflict");

    // Renewals resume: renewTime moves again, same holder, nobody crashed.
    let renew = lease(&server).expect("lease")["spec"]["renewTime"].clone();
    wait_until(T, "renewal after conflicts", || lease(&server).is_some_and(|l| l["spec"]["renewTime"] != renew))
        .unwrap_or_else(|e| panic!("{e}\n{}", leader.logs()));
    assert_eq!(holder(&server), leader_id, "{}", leader.logs());
    // Like client-go's LeaseLock, renewals rewrite the spec and leave others' metadata alone.
    let l = lease(&server).expect("lease");
    assert!(l["metadata"]["annotations"]["test/bump"].is_string(), "{l}");
    assert_eq!(l["metadata"]["annotations"]["edgesched.io/scheduler-names"], SCHED, "{l}");
    assert!(leader.alive(), "{}", leader.logs());
    assert!(standby.alive(), "{}", standby.logs());
    assert!(leader.logs().contains("lease changed concurrently"), "{}", leader.logs());
    assert!(!leader.logs().contains("Leaderelection lost"), "{}", leader.logs());
    assert!(!standby.logs().contains("successfully acquired lease"), "{}", standby.logs());
    assert_ne!(holder(&server), standby_id);
    // Still leading: it binds.
    create_pod(&server, "after-conflicts");
    wait_bound(&server, &|| leader.logs(), "after-conflicts", T);
    leader.wait_for_log(r#"pod="default/after-conflicts""#, T).expect("the leader bound it");
}

/// Lease requests fail (500s) longer than renewDeadline: the leader must stop before the lease
/// can expire for the others, and exit non-zero so that it is restarted.
#[test]
fn renewal_failure_past_renew_deadline_exits_non_zero() {
    let server = TestApiServer::start();
    let mut es = launch(true).start(&server);
    let id = identity(&es);
    wait_until(T, "leader", || holder(&server) == id).unwrap_or_else(|e| panic!("{e}\n{}", es.logs()));
    es.wait_for_log("successfully acquired lease", T).expect("leading");
    server.set_failure_rate(1.0, "", "/leases/my-scheduler", Failure::Status(500), 1);
    let t0 = Instant::now();
    let bound = RENEW_DEADLINE + RETRY_PERIOD + SLACK;
    let status = es.wait_exit(bound + Duration::from_secs(10));
    let elapsed = t0.elapsed();
    eprintln!("TIMELINE renewal failure (500s): leader exited after {:.2}s: {status:?}", elapsed.as_secs_f64());
    let status = status.unwrap_or_else(|| panic!("still running after lease renewals failed\n{}", es.logs()));
    assert_ne!(status.code(), Some(0), "{}", es.logs());
    assert!(es.logs().contains("failed to renew lease"), "{}", es.logs());
    assert!(elapsed < bound, "leader kept leading {elapsed:?} without a renewal (renewDeadline {RENEW_DEADLINE:?})");
}

/// Lease requests hang (the API server stops answering): the same deadline applies.
#[test]
fn hanging_renewals_stop_the_leader_within_renew_deadline() {
    let server = TestApiServer::start();
    let mut es = launch(true).start(&server);
    let id = identity(&es);
    wait_until(T, "leader", || holder(&server) == id).unwrap_or_else(|e| panic!("{e}\n{}", es.logs()));
    es.wait_for_log("successfully acquired lease", T).expect("leading");
    server.set_latency_for("/leases/my-scheduler", Duration::from_secs(30));
    let t0 = Instant::now();
    // Requests of a renewal are cut at renewDeadline, as client-go's renew context does.
    let bound = RENEW_DEADLINE + SLACK;
    let status = es.wait_exit(bound + Duration::from_secs(10));
    let elapsed = t0.elapsed();
    eprintln!("TIMELINE renewal hang: leader exited after {:.2}s: {status:?}", elapsed.as_secs_f64());
    server.clear_faults();
    let status = status.unwrap_or_else(|| panic!("still running while renewals hang\n{}", es.logs()));
    assert_ne!(status.code(), Some(0), "{}", es.logs());
    assert!(elapsed < bound, "leader kept leading {elapsed:?} without a renewal");
}

// ----- serving ---------------------------------------------------------------------------------

#[test]
fn health_probes_and_readiness() {
    let server = TestApiServer::start();
    add_nodes(&server, 1);
    // Hold the node list back so the caches cannot sync yet.
    server.set_latency_for("/api/v1/nodes", Duration::from_secs(4));
    let mut es = launch(false).start(&server);
    let (code, body) = probe(&es, "/readyz", None);
    assert_eq!(code, 500, "not ready before caches sync (upstream healthz answers 500): {body}");
    let (code, body) = probe(&es, "/readyz?verbose", None);
    assert!(body.contains("[-]sched-handler-sync failed"), "{code} {body}");
    for path in ["/healthz", "/livez"] {
        let (code, body) = probe(&es, path, None);
        assert_eq!((code, body.as_str()), (200, "ok"), "{path} needs no token and does not wait for sync");
    }
    // The serving certificate is self-signed: a verifying client refuses it.
    assert!(https::verifying_get(&format!("{}/healthz", base_url(&es))).is_err());

    server.clear_faults();
    wait_until(T, "/readyz 200", || probe(&es, "/readyz", None).0 == 200).unwrap_or_else(|e| panic!("{e}\n{}", es.logs()));
    let (code, body) = probe(&es, "/readyz?verbose", None);
    assert_eq!(code, 200);
    assert!(body.contains("[+]sched-handler-sync ok") && body.ends_with("readyz check passed\n"), "{body}");
    let (code, body) = probe(&es, "/livez?verbose", None);
    assert!(code == 200 && body.contains("[+]leaderElection ok"), "{code} {body}");

    // A bind in flight keeps the process in its shutdown grace period: readiness fails at once.
    server.set_latency_for("/binding", Duration::from_secs(5));
    create_pod(&server, "slow");
    // The scheduler picks the pod up within milliseconds; its bind then hangs on the latency.
    std::thread::sleep(Duration::from_millis(700));
    es.terminate();
    let mut saw_failing = false;
    let deadline = Instant::now() + Duration::from_secs(5);
    while Instant::now() < deadline && es.alive() {
        if let Ok((code, body)) = https::get(&format!("{}/readyz", base_url(&es)), None) {
            if code != 200 {
                assert!(body.contains("shutdown"), "{body}");
                saw_failing = true;
                break;
            }
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    assert!(saw_failing, "readyz never failed during shutdown\n{}", es.logs());
    let status = es.wait_exit(Duration::from_secs(5)).expect("exited");
    assert_eq!(status.code(), Some(0), "{}", es.logs());
}

#[test]
fn metrics_and_configz_need_authorised_tokens_and_count_what_happened() {
    let server = TestApiServer::start();
    add_nodes(&server, 2);
    server.add_token("scraper-token", "prometheus", &[]);
    server.allow_non_resource("prometheus", "/metrics");
    server.add_token("nosy-token", "nosy", &[]);
    server.add_token("admin-token", "admin", &["system:masters"]);
    let (leader, standby, _leader_id, _standby_id) = start_pair(&server);
    leader.wait_for_log("Caches are synced", T).expect("synced");

    // Authentication and authorisation are delegated to the API server.
    // No credentials: system:anonymous, authorised by SubjectAccessReview and denied (403), as
    // kube-scheduler's delegated authentication with anonymous requests allowed answers.
    let (code, body) = probe(&leader, "/metrics", None);
    assert_eq!(code, 403, "no token: {body}");
    assert!(body.contains(r#"User \"system:anonymous\" cannot get path \"/metrics\""#), "{body}");
    assert_eq!(probe(&leader, "/metrics", Some("unknown-token")).0, 401, "a token the API server does not know");
    assert_eq!(probe(&leader, "/metrics", Some("nosy-token")).0, 403, "authenticated but not authorised");
    assert_eq!(probe(&leader, "/configz", None).0, 403);
    assert_eq!(probe(&leader, "/configz", Some("scraper-token")).0, 403, "/metrics rights do not cover /configz");
    assert!(server.requests_matching("POST", "/tokenreviews") > 0, "TokenReview was used");
    assert!(server.requests_matching("POST", "/subjectaccessreviews") > 0, "SubjectAccessReview was used");

    let n = 4;
    for i in 0..n {
        create_pod(&server, &format!("m{i}"));
    }
    for i in 0..n {
        wait_bound(&server, &|| leader.logs(), &format!("m{i}"), T);
    }
    let profile = [("profile", SCHED), ("result", "scheduled")];
    // Counters are updated as the bind completes; poll briefly.
    wait_until(T, "scheduled counter", || {
        sample(&scrape(&leader, "scraper-token"), "scheduler_schedule_attempts_total", &profile) == Some(n as f64)
    })
    .unwrap_or_else(|e| panic!("{e}\n{:?}", scrape(&leader, "scraper-token")));
    let samples = scrape(&leader, "scraper-token");
    assert_eq!(sample(&samples, "leader_election_master_status", &[]), Some(1.0), "leader");
    assert!(sample(&samples, "scheduler_pending_pods", &[("queue", "active")]).is_some());
    assert_eq!(server.total_bindings(), n);

    let standby_samples = scrape(&standby, "scraper-token");
    assert_eq!(sample(&standby_samples, "leader_election_master_status", &[]), Some(0.0), "standby reports 0");
    assert!(
        sample(&standby_samples, "scheduler_schedule_attempts_total", &profile).unwrap_or(0.0) == 0.0,
        "the standby scheduled nothing"
    );

    let (code, body) = probe(&leader, "/configz", Some("admin-token"));
    assert_eq!(code, 200, "{body}");
    let cfg: Value = serde_json::from_str(&body).expect("configz is JSON");
    let cc = &cfg["componentconfig"];
    assert_eq!(cc["leaderElection"]["resourceName"], SCHED, "{cfg}");
    assert_eq!(cc["profiles"][0]["schedulerName"], SCHED, "{cfg}");
    assert!(!body.contains("client-key-data") && !body.contains("BEGIN"), "no credentials in /configz");
}

#[test]
fn plain_http_port_serves_health_and_metrics() {
    let server = TestApiServer::start();
    let port = free_port();
    let mut l = launch(false);
    l.extra_args = vec![format!("--port={port}"), "--address=127.0.0.1".into()];
    let es = l.start(&server);
    es.wait_for_log("Caches are synced", T).expect("synced");
    let url = format!("http://127.0.0.1:{port}");
    let mut res = Err(String::new());
    wait_until(T, "plain-HTTP healthz", || {
        res = https::get(&format!("{url}/healthz"), None);
        res.is_ok()
    })
    .unwrap_or_else(|e| panic!("{e}: {res:?}\n{}", es.logs()));
    assert_eq!(res.expect("ok"), (200, "ok".to_string()));
    let (code, body) = https::get(&format!("{url}/metrics"), None).expect("metrics");
    assert_eq!(code, 200);
    let samples = samples_of(&body);
    assert!(sample(&samples, "scheduler_pending_pods", &[("queue", "active")]).is_some());
    assert!(es.logs().contains("--port is deprecated"), "{}", es.logs());
}
