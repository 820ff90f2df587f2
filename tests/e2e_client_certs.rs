//! End-to-end: client-certificate authentication on the secure port, as kube-scheduler's
//! delegated authenticator (`k8s.io/apiserver` `request/x509`, `request/headerrequest`): a
//! certificate from `--client-ca-file` authenticates as CN with O as groups, a front proxy
//! certificate from `--requestheader-client-ca-file` (with an allowed CN) lets the
//! `X-Remote-*` headers name the user; either way a SubjectAccessReview then decides (200 or
//! 403), and a refused certificate is 401. Certificates are generated in the test.

mod support;

use std::time::Duration;
use support::certs::TestCa;
use support::https;
use support::objects::node;
use support::process::{Edgesched, Launch};
use support::wait::wait_for;
use support::TestApiServer;

const T: Duration = Duration::from_secs(20);

fn get(es: &Edgesched, cert: &support::certs::IssuedCert, headers: &[(&str, &str)]) -> (u16, String) {
    let url = format!("https://127.0.0.1:{}/metrics", es.secure_port);
    wait_for(T, "GET /metrics", || https::get_with_cert(&url, &cert.cert_pem, &cert.key_pem, headers).ok())
        .unwrap_or_else(|e| panic!("{e}\n{}", es.logs()))
}

#[test]
fn client_certificates_and_front_proxy_headers_authenticate_then_reviews_authorise() {
    let server = TestApiServer::start();
    server.create("/api/v1/nodes", node("n1").build());
    let clients = TestCa::new();
    let front = TestCa::new();
    let stranger = TestCa::new();
    let dir = support::tempdir("client-certs");
    let client_ca = dir.join("client-ca.crt");
    let front_ca = dir.join("front-proxy-ca.crt");
    std::fs::write(&client_ca, clients.ca_pem()).expect("write");
    std::fs::write(&front_ca, front.ca_pem()).expect("write");
    let launch = Launch {
        extra_args: vec![
            format!("--client-ca-file={}", client_ca.display()),
            format!("--requestheader-client-ca-file={}", front_ca.display()),
            "--requestheader-allowed-names=front-proxy-client".into(),
            "--requestheader-username-headers=X-Remote-User".into(),
            "--requestheader-group-headers=X-Remote-Group".into(),
        ],
        ..Launch::default()
    };
    let es = launch.start(&server);
    es.wait_for_log("Caches are synced", T).expect("synced");

    // CN = user, O = groups: the monitoring group may scrape, a user without it may not.
    let (code, body) = get(&es, &clients.issue_client_cert("prometheus", &["system:monitoring"]), &[]);
    assert_eq!(code, 200, "{body}");
    assert!(body.contains("# HELP scheduler_"), "{body}");
    let (code, body) = get(&es, &clients.issue_client_cert("nosy", &[]), &[]);
    assert_eq!(code, 403, "{body}");
    assert!(body.contains(r#"User \"nosy\" cannot get path \"/metrics\""#), "{body}");

    // The front proxy names the user in headers.
    let proxy = front.issue_client_cert("front-proxy-client", &[]);
    let (code, body) = get(&es, &proxy, &[("X-Remote-User", "alice"), ("X-Remote-Group", "system:monitoring")]);
    assert_eq!(code, 200, "{body}");
    let (code, body) = get(&es, &proxy, &[("X-Remote-User", "bob")]);
    assert_eq!(code, 403, "{body}");
    assert!(body.contains(r#"User \"bob\""#), "{body}");
    // A front proxy certificate is not a client certificate: without headers, or from a name
    // not allowed, it is refused (401), not anonymous.
    assert_eq!(get(&es, &proxy, &[]).0, 401);
    let other_proxy = front.issue_client_cert("not-the-proxy", &[]);
    assert_eq!(get(&es, &other_proxy, &[("X-Remote-User", "alice"), ("X-Remote-Group", "system:monitoring")]).0, 401);
    // A client certificate cannot smuggle headers in.
    let (code, body) = get(&es, &clients.issue_client_cert("nosy", &[]), &[("X-Remote-User", "admin")]);
    assert_eq!(code, 403, "{body}");
    assert!(body.contains(r#"User \"nosy\""#), "{body}");

    // A certificate neither CA signed fails the TLS handshake (rustls verifies during it).
    let strange = stranger.issue_client_cert("prometheus", &["system:monitoring"]);
    let url = format!("https://127.0.0.1:{}/metrics", es.secure_port);
    assert!(https::get_with_cert(&url, &strange.cert_pem, &strange.key_pem, &[]).is_err());
    // No certificate at all is still possible: anonymous, then authorised (403 here).
    assert_eq!(https::get(&url, None).expect("anonymous").0, 403);
    drop(dir);
}
