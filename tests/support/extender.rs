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
