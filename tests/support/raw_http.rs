//! A raw HTTPS client for tests of the test API server itself: a byte-exact view of what the
//! server sends (status line, headers, chunked framing of watches), with client-certificate or
//! bearer-token authentication.

use super::TestApiServer;
use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, PrivateKeyDer, ServerName};
use rustls::{ClientConfig, ClientConnection, RootCertStore, StreamOwned};
use serde_json::Value;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::sync::Arc;
use std::time::Duration;

/// How a raw client authenticates.
pub enum Auth<'a> {
    /// No credentials (anonymous).
    None,
    /// A client certificate for a user (CN) in groups (O).
    Cert(&'a str, &'a [&'a str]),
    /// A bearer token.
    Token(&'a str),
}

/// A complete response.
pub struct Resp {
    /// HTTP status code.
    pub code: u16,
    /// Headers in order.
    pub headers: Vec<(String, String)>,
    /// The body (de-chunked).
    pub body: Vec<u8>,
}

impl Resp {
    /// The body as JSON (panics if it is not).
    pub fn json(&self) -> Value {
        serde_json::from_slice(&self.body).unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&self.body)))
    }

    /// The body as UTF-8 text.
    pub fn text(&self) -> String {
        String::from_utf8(self.body.clone()).unwrap()
    }

    /// A header's value, by case-insensitive name.
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers.iter().find(|(k, _)| k.eq_ignore_ascii_case(name)).map(|(_, v)| v.as_str())
    }
}

/// One TLS connection to the test API server, speaking HTTP/1.1 by hand.
pub struct Conn {
    /// The connection (tests adjust its socket's timeouts).
    pub stream: BufReader<StreamOwned<ClientConnection, TcpStream>>,
    token: Option<String>,
}

/// Connect to `server` as `auth`.
pub fn connect(server: &TestApiServer, auth: Auth<'_>) -> Conn {
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let mut roots = RootCertStore::empty();
    roots.add(CertificateDer::from_pem_slice(server.ca_pem().as_bytes()).unwrap()).unwrap();
    let builder = ClientConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .unwrap()
        .with_root_certificates(roots);
    let (config, token) = match auth {
        Auth::Cert(user, groups) => {
            let (cert, key) = server.issue_client_cert(user, groups);
            let chain = vec![CertificateDer::from_pem_slice(cert.as_bytes()).unwrap()];
            let key = PrivateKeyDer::from_pem_slice(key.as_bytes()).unwrap();
            (builder.with_client_auth_cert(chain, key).unwrap(), None)
        }
        Auth::Token(t) => (builder.with_no_client_auth(), Some(t.to_string())),
        Auth::None => (builder.with_no_client_auth(), None),
    };
    let tcp = TcpStream::connect(("127.0.0.1", server.port())).unwrap();
    tcp.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
    let conn = ClientConnection::new(Arc::new(config), ServerName::try_from("127.0.0.1").unwrap()).unwrap();
    Conn { stream: BufReader::new(StreamOwned::new(conn, tcp)), token }
}

impl Conn {
    /// Send a request (without reading the response).
    pub fn send(&mut self, method: &str, path: &str, content_type: &str, body: &[u8]) {
        let mut req =
            format!("{method} {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nUser-Agent: selftest/1.0\r\nAccept: application/json\r\n");
        if let Some(t) = &self.token {
            req.push_str(&format!("Authorization: Bearer {t}\r\n"));
        }
        if !body.is_empty() {
            req.push_str(&format!("Content-Type: {content_type}\r\nContent-Length: {}\r\n", body.len()));
        }
        req.push_str("\r\n");
        let mut bytes = req.into_bytes();
        bytes.extend_from_slice(body);
        let s = self.stream.get_mut();
        s.write_all(&bytes).unwrap();
        s.flush().unwrap();
    }

    /// Read one CRLF-terminated line.
    pub fn line(&mut self) -> std::io::Result<String> {
        let mut l = String::new();
        if self.stream.read_line(&mut l)? == 0 {
            return Err(std::io::Error::new(std::io::ErrorKind::UnexpectedEof, "eof"));
        }
        Ok(l.trim_end_matches(['\r', '\n']).to_string())
    }

    /// Read the status line and headers.
    pub fn head(&mut self) -> std::io::Result<(u16, Vec<(String, String)>)> {
        let status = self.line()?;
        let code = status.split_whitespace().nth(1).unwrap().parse().unwrap();
        let mut headers = Vec::new();
        loop {
            let h = self.line()?;
            if h.is_empty() {
                return Ok((code, headers));
            }
            let (k, v) = h.split_once(':').unwrap();
            headers.push((k.trim().to_string(), v.trim().to_string()));
        }
    }

    /// Next chunk of a chunked body; `Ok(None)` at the terminating chunk.
    pub fn chunk(&mut self) -> std::io::Result<Option<Vec<u8>>> {
        let size = usize::from_str_radix(&self.line()?, 16).unwrap();
        if size == 0 {
            self.line()?;
            return Ok(None);
        }
        let mut data = vec![0; size];
        self.stream.read_exact(&mut data)?;
        self.line()?;
        Ok(Some(data))
    }

    /// Send a request and read the whole response.
    pub fn try_call(&mut self, method: &str, path: &str, content_type: &str, body: &[u8]) -> std::io::Result<Resp> {
        self.send(method, path, content_type, body);
        let (code, headers) = self.head()?;
        let len =
            headers.iter().find(|(k, _)| k.eq_ignore_ascii_case("content-length")).map(|(_, v)| v.parse::<usize>().unwrap());
        let mut body = Vec::new();
        match len {
            Some(n) => {
                body.resize(n, 0);
                self.stream.read_exact(&mut body)?;
            }
            None => {
                while let Some(c) = self.chunk()? {
                    body.extend_from_slice(&c);
                }
            }
        }
        Ok(Resp { code, headers, body })
    }

    /// A request with an optional JSON body (panics on I/O errors).
    pub fn call(&mut self, method: &str, path: &str, body: Option<&Value>) -> Resp {
        let bytes = body.map(|b| serde_json::to_vec(b).unwrap()).unwrap_or_default();
        self.try_call(method, path, "application/json", &bytes).unwrap()
    }

    /// A PATCH with `content_type`.
    pub fn patch(&mut self, path: &str, content_type: &str, body: &Value) -> Resp {
        self.try_call("PATCH", path, content_type, &serde_json::to_vec(body).unwrap()).unwrap()
    }

    /// Start a watch; returns the status code (the stream follows as chunks).
    pub fn watch(&mut self, path: &str) -> u16 {
        self.send("GET", path, "", b"");
        let (code, headers) = self.head().unwrap();
        assert!(headers.iter().any(|(k, v)| k == "Transfer-Encoding" && v == "chunked"), "{headers:?}");
        code
    }

    /// Next watch event (each chunk is exactly one line).
    pub fn event(&mut self) -> Option<Value> {
        let chunk = self.chunk().unwrap()?;
        assert_eq!(chunk.last(), Some(&b'\n'), "one event per chunk, newline-terminated");
        Some(serde_json::from_slice(&chunk).unwrap())
    }
}

/// A connection as a member of `system:masters`.
pub fn admin(server: &TestApiServer) -> Conn {
    connect(server, Auth::Cert("admin", &["system:masters"]))
}

/// The exact 403 body kube-apiserver writes for a refused request (`details` as raw JSON).
pub fn forbidden_body(message: &str, details: &str) -> String {
    format!(
        "{{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"metadata\":{{}},\"status\":\"Failure\",\"message\":{},\"reason\":\"Forbidden\",\"details\":{details},\"code\":403}}\n",
        serde_json::json!(message)
    )
}
