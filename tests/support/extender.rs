//! A test HTTP extender speaking upstream's extender protocol (k8s.io/kube-scheduler/extender/v1)
//! on 127.0.0.1: each request is answered by a closure of the test, and every request is kept so
//! the test can check what the scheduler sent. Stopped (and its port released) when dropped.

use serde_json::Value;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::Duration;

/// What the handler answers: HTTP status and body.
pub type Answer = (u16, String);

pub struct TestExtender {
    pub port: u16,
    pub requests: Arc<Mutex<Vec<(String, Value)>>>,
    stop: Arc<AtomicBool>,
    thread: Option<JoinHandle<()>>,
}

impl TestExtender {
    /// Serve `handler(verb, request)` for every POST `/<verb>`.
    pub fn start(handler: impl Fn(&str, &Value) -> Answer + Send + 'static) -> TestExtender {
        let server = tiny_http::Server::http("127.0.0.1:0").expect("bind test extender");
        let port = server.server_addr().to_ip().map(|a| a.port()).expect("port");
        let requests: Arc<Mutex<Vec<(String, Value)>>> = Arc::default();
        let stop = Arc::new(AtomicBool::new(false));
        let (log, halt) = (requests.clone(), stop.clone());
        let thread = std::thread::spawn(move || {
            while !halt.load(Ordering::SeqCst) {
                let Ok(Some(mut req)) = server.recv_timeout(Duration::from_millis(50)) else { continue };
                let verb = req.url().trim_start_matches('/').to_string();
                let mut body = String::new();
                let _ = req.as_reader().read_to_string(&mut body);
                let value: Value = serde_json::from_str(&body).unwrap_or(Value::Null);
                log.lock().expect("log").push((verb.clone(), value.clone()));
                let (code, reply) = handler(&verb, &value);
                let _ = req.respond(tiny_http::Response::from_string(reply).with_status_code(code));
            }
        });
        TestExtender { port, requests, stop, thread: Some(thread) }
    }

    /// The same over HTTPS with `serving` (signed by `ca`); client certificates signed by `ca`
    /// are verified and their identities (CN) recorded in [`TestExtender::clients`] order.
    pub fn start_https(
        ca: &super::certs::TestCa,
        serving: &super::certs::IssuedCert,
        clients: Arc<Mutex<Vec<String>>>,
        handler: impl Fn(&str, &Value) -> Answer + Send + 'static,
    ) -> TestExtender {
        let config = super::apiserver::tls::server_config(ca, serving);
        let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind https extender");
        listener.set_nonblocking(true).expect("nonblocking");
        let port = listener.local_addr().expect("addr").port();
        let requests: Arc<Mutex<Vec<(String, Value)>>> = Arc::default();
        let stop = Arc::new(AtomicBool::new(false));
        let (log, halt) = (requests.clone(), stop.clone());
        let thread = std::thread::spawn(move || {
            while !halt.load(Ordering::SeqCst) {
                let Ok((tcp, _)) = listener.accept() else {
                    std::thread::sleep(Duration::from_millis(20));
                    continue;
                };
                let _ = tcp.set_nonblocking(false);
                let _ = tcp.set_read_timeout(Some(Duration::from_secs(5)));
                let Ok(conn) = rustls::ServerConnection::new(config.clone()) else { continue };
                let mut tls = rustls::StreamOwned::new(conn, tcp);
                let Some((verb, body)) = read_request(&mut tls) else { continue };
                if let Some(cert) = tls.conn.peer_certificates().and_then(|c| c.first()) {
                    if let Some((user, _)) = super::apiserver::tls::identity_from_cert(cert) {
                        clients.lock().expect("clients").push(user);
                    }
                }
                let value: Value = serde_json::from_slice(&body).unwrap_or(Value::Null);
                log.lock().expect("log").push((verb.clone(), value.clone()));
                let (code, reply) = handler(&verb, &value);
                let head = format!(
                    "HTTP/1.1 {code} X\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
                    reply.len()
                );
                let _ = std::io::Write::write_all(&mut tls, head.as_bytes());
                let _ = std::io::Write::write_all(&mut tls, reply.as_bytes());
                let _ = std::io::Write::flush(&mut tls);
                tls.conn.send_close_notify();
                let _ = std::io::Write::flush(&mut tls);
            }
        });
        TestExtender { port, requests, stop, thread: Some(thread) }
    }

    pub fn url(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }

    /// The requests received for `verb`, in order.
    pub fn calls(&self, verb: &str) -> Vec<Value> {
        self.requests.lock().expect("log").iter().filter(|(v, _)| v == verb).map(|(_, r)| r.clone()).collect()
    }
}

impl Drop for TestExtender {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

/// Names of the nodes offered in an `ExtenderArgs` (full nodes or names).
pub fn offered(args: &Value) -> Vec<String> {
    if let Some(names) = args["NodeNames"].as_array() {
        return names.iter().filter_map(|n| n.as_str().map(String::from)).collect();
    }
    args["Nodes"]["items"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|n| n["metadata"]["name"].as_str().map(String::from))
        .collect()
}

/// One HTTP/1.1 request: the path without its leading `/`, and the body (by Content-Length).
fn read_request(stream: &mut impl std::io::Read) -> Option<(String, Vec<u8>)> {
    let mut buf = Vec::new();
    let mut chunk = [0u8; 4096];
    let header_end = loop {
        if let Some(p) = buf.windows(4).position(|w| w == b"\r\n\r\n") {
            break p + 4;
        }
        let n = stream.read(&mut chunk).ok()?;
        if n == 0 || buf.len() > 1 << 20 {
            return None;
        }
        buf.extend_from_slice(&chunk[..n]);
    };
    let head = String::from_utf8_lossy(&buf[..header_end]).to_string();
    let path = head.split_whitespace().nth(1)?.trim_start_matches('/').to_string();
    let len: usize = head
        .lines()
        .find_map(|l| l.to_ascii_lowercase().strip_prefix("content-length:").map(|v| v.trim().parse().unwrap_or(0)))
        .unwrap_or(0);
    let mut body = buf[header_end..].to_vec();
    while body.len() < len {
        let n = stream.read(&mut chunk).ok()?;
        if n == 0 {
            break;
        }
        body.extend_from_slice(&chunk[..n]);
    }
    Some((path, body))
}
