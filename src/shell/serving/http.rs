//! A deliberately small HTTP/1.1 request reader and response writer for the health and metrics
//! endpoints. Small enough to audit and fuzz, with hard limits so a slow or hostile client cannot
//! exhaust memory: the request head and body sizes and the header count are bounded, and the
//! caller enforces read deadlines and a connection cap.

use std::fmt;
use std::io::{self, Read, Write};

/// Bounds applied to every request.
#[derive(Debug, Clone, Copy)]
pub struct Limits {
    /// Request line + headers.
    pub max_head_bytes: usize,
    pub max_headers: usize,
    pub max_body_bytes: usize,
}

impl Default for Limits {
    fn default() -> Self {
        Limits { max_head_bytes: 8 * 1024, max_headers: 64, max_body_bytes: 64 * 1024 }
    }
}

/// A parsed request.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Request {
    pub method: String,
    /// Path without the query string.
    pub path: String,
    pub query: String,
    pub headers: Vec<(String, String)>,
    pub body: Vec<u8>,
    /// HTTP/1.0 or `Connection: close`.
    pub close: bool,
    /// Who the TLS client certificate (`--client-ca-file`), or the front proxy's headers behind
    /// its certificate (`--requestheader-*`), say the client is; set by the server per request.
    pub client_cert: super::client_cert::CertIdentity,
}

impl Request {
    /// First header with this (case-insensitive) name.
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers.iter().find(|(k, _)| k.eq_ignore_ascii_case(name)).map(|(_, v)| v.as_str())
    }

    /// Whether a query flag like `verbose` is present.
    pub fn has_query_flag(&self, flag: &str) -> bool {
        self.query.split('&').any(|kv| kv == flag || kv.starts_with(&format!("{flag}=")))
    }
}

/// Why a request was refused; maps to a status code.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum HttpError {
    /// 400: not HTTP as we know it.
    Malformed(&'static str),
    /// 431: head too large or too many headers.
    HeadTooLarge,
    /// 413: body too large.
    BodyTooLarge,
    /// 505/501: versions and transfer codings we do not speak.
    Unsupported(&'static str),
}

impl HttpError {
    pub fn status(&self) -> u16 {
        match self {
            HttpError::Malformed(_) => 400,
            HttpError::HeadTooLarge => 431,
            HttpError::BodyTooLarge => 413,
            HttpError::Unsupported(_) => 501,
        }
    }
}

impl fmt::Display for HttpError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            HttpError::Malformed(w) => write!(f, "malformed request: {w}"),
            HttpError::HeadTooLarge => f.write_str("request header fields too large"),
            HttpError::BodyTooLarge => f.write_str("request body too large"),
            HttpError::Unsupported(w) => write!(f, "unsupported: {w}"),
        }
    }
}

/// Try to parse one request from the front of `buf`. `Ok(None)` means "need more bytes";
/// `Ok(Some((req, used)))` consumed `used` bytes. Pure, for tests and fuzzing.
pub fn parse_request(buf: &[u8], limits: &Limits) -> Result<Option<(Request, usize)>, HttpError> {
    let head_end = match find_subsequence(buf, b"\r\n\r\n") {
        Some(i) => i,
        None => {
            if buf.len() > limits.max_head_bytes {
                return Err(HttpError::HeadTooLarge);
            }
            return Ok(None);
        }
    };
    if head_end > limits.max_head_bytes {
        return Err(HttpError::HeadTooLarge);
    }
    let head = std::str::from_utf8(&buf[..head_end]).map_err(|_| HttpError::Malformed("header is not UTF-8"))?;
    let mut lines = head.split("\r\n");
    let request_line = lines.next().ok_or(HttpError::Malformed("empty request"))?;
    let mut parts = request_line.split(' ');
    let method = parts
        .next()
        .filter(|m| !m.is_empty() && m.bytes().all(|b| b.is_ascii_uppercase()))
        .ok_or(HttpError::Malformed("method"))?;
    let target = parts.next().filter(|t| t.starts_with('/')).ok_or(HttpError::Malformed("request target"))?;
    let version = parts.next().ok_or(HttpError::Malformed("version"))?;
    if parts.next().is_some() {
        return Err(HttpError::Malformed("request line"));
    }
    let http10 = match version {
        "HTTP/1.1" => false,
        "HTTP/1.0" => true,
        _ => return Err(HttpError::Unsupported("HTTP version")),
    };
    let mut headers = Vec::new();
    for line in lines {
        if headers.len() >= limits.max_headers {
            return Err(HttpError::HeadTooLarge);
        }
        let (k, v) = line.split_once(':').ok_or(HttpError::Malformed("header line"))?;
        if k.is_empty() || k.bytes().any(|b| b.is_ascii_whitespace() || b.is_ascii_control()) {
            return Err(HttpError::Malformed("header name"));
        }
        headers.push((k.to_string(), v.trim().to_string()));
    }
    let find = |name: &str| headers.iter().find(|(k, _)| k.eq_ignore_ascii_case(name)).map(|(_, v)| v.as_str());
    if find("Transfer-Encoding").is_some() {
        return Err(HttpError::Unsupported("transfer-encoding"));
    }
    let body_len = match find("Content-Length") {
        None => 0,
        Some(v) => v.parse::<usize>().map_err(|_| HttpError::Malformed("content-length"))?,
    };
    if body_len > limits.max_body_bytes {
        return Err(HttpError::BodyTooLarge);
    }
    let body_start = head_end + 4;
    if buf.len() < body_start + body_len {
        return Ok(None);
    }
    let close = http10 || find("Connection").is_some_and(|c| c.eq_ignore_ascii_case("close"));
    let (path, query) = match target.split_once('?') {
        Some((p, q)) => (p, q),
        None => (target, ""),
    };
    let req = Request {
        method: method.to_string(),
        path: path.to_string(),
        query: query.to_string(),
        headers,
        body: buf[body_start..body_start + body_len].to_vec(),
        close,
        client_cert: Default::default(),
    };
    Ok(Some((req, body_start + body_len)))
}

fn find_subsequence(hay: &[u8], needle: &[u8]) -> Option<usize> {
    hay.windows(needle.len()).position(|w| w == needle)
}

/// A response to write.
#[derive(Debug, Clone)]
pub struct Response {
    pub status: u16,
    pub content_type: &'static str,
    pub body: Vec<u8>,
    pub extra_headers: Vec<(&'static str, String)>,
}

impl Response {
    pub fn text(status: u16, body: impl Into<String>) -> Response {
        Response { status, content_type: "text/plain; charset=utf-8", body: body.into().into_bytes(), extra_headers: Vec::new() }
    }

    pub fn with_type(mut self, content_type: &'static str) -> Response {
        self.content_type = content_type;
        self
    }
}

fn reason(status: u16) -> &'static str {
    match status {
        200 => "OK",
        400 => "Bad Request",
        401 => "Unauthorized",
        403 => "Forbidden",
        404 => "Not Found",
        405 => "Method Not Allowed",
        408 => "Request Timeout",
        413 => "Payload Too Large",
        431 => "Request Header Fields Too Large",
        500 => "Internal Server Error",
        501 => "Not Implemented",
        503 => "Service Unavailable",
        _ => "Unknown",
    }
}

/// Serialise a response (always with Content-Length; `close` adds `Connection: close`).
pub fn write_response(w: &mut impl Write, resp: &Response, close: bool) -> io::Result<()> {
    write_response_head_or_full(w, resp, close, false)
}

/// [`write_response`], leaving out the body when `head_only` (the answer to a HEAD request).
fn write_response_head_or_full(w: &mut impl Write, resp: &Response, close: bool, head_only: bool) -> io::Result<()> {
    let mut head = format!(
        "HTTP/1.1 {} {}\r\nContent-Type: {}\r\nContent-Length: {}\r\nX-Content-Type-Options: nosniff\r\nCache-Control: no-cache, private\r\n",
        resp.status,
        reason(resp.status),
        resp.content_type,
        resp.body.len()
    );
    for (k, v) in &resp.extra_headers {
        head.push_str(&format!("{k}: {v}\r\n"));
    }
    if close {
        head.push_str("Connection: close\r\n");
    }
    head.push_str("\r\n");
    w.write_all(head.as_bytes())?;
    if !head_only {
        w.write_all(&resp.body)?;
    }
    w.flush()
}

/// Read requests from a stream and answer them until the client closes, an error occurs or a
/// request asks to close. The stream's read timeout bounds how long a silent client is kept.
pub fn serve_connection<S: Read + Write>(
    stream: &mut S,
    limits: &Limits,
    mut handle: impl FnMut(&Request) -> Response,
) -> io::Result<()> {
    let mut buf: Vec<u8> = Vec::with_capacity(1024);
    let mut chunk = [0u8; 4096];
    loop {
        match parse_request(&buf, limits) {
            Ok(Some((req, used))) => {
                buf.drain(..used);
                let resp = handle(&req);
                // A HEAD response carries the headers (Content-Length included) but no body; a
                // body would be read by the client as the start of the next response.
                write_response_head_or_full(stream, &resp, req.close, req.method == "HEAD")?;
                if req.close {
                    return Ok(());
                }
                continue;
            }
            Ok(None) => {}
            Err(e) => {
                let _ = write_response(stream, &Response::text(e.status(), format!("{e}\n")), true);
                return Ok(());
            }
        }
        let n = stream.read(&mut chunk)?;
        if n == 0 {
            return Ok(());
        }
        buf.extend_from_slice(&chunk[..n]);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_pipelined_requests_and_bodies() {
        let raw = b"GET /healthz?verbose HTTP/1.1\r\nHost: x\r\n\r\nPOST /x HTTP/1.1\r\nContent-Length: 3\r\nConnection: close\r\n\r\nabc";
        let l = Limits::default();
        let (r1, used) = parse_request(raw, &l).expect("ok").expect("complete");
        assert_eq!((r1.method.as_str(), r1.path.as_str(), r1.query.as_str()), ("GET", "/healthz", "verbose"));
        assert!(r1.has_query_flag("verbose"));
        let (r2, used2) = parse_request(&raw[used..], &l).expect("ok").expect("complete");
        assert_eq!(r2.body, b"abc");
        assert!(r2.close);
        assert_eq!(used + used2, raw.len());
        assert_eq!(parse_request(b"GET / HTTP/1.1\r\nHost: x\r\n", &l), Ok(None));
        assert_eq!(parse_request(b"POST / HTTP/1.1\r\nContent-Length: 5\r\n\r\nab", &l), Ok(None));
    }

    #[test]
    fn enforces_limits_and_rejects_garbage() {
        let l = Limits { max_head_bytes: 64, max_headers: 2, max_body_bytes: 4 };
        assert_eq!(parse_request(&[b'a'; 100], &l), Err(HttpError::HeadTooLarge));
        assert_eq!(parse_request(b"GET / HTTP/1.1\r\na: 1\r\nb: 2\r\nc: 3\r\n\r\n", &l), Err(HttpError::HeadTooLarge));
        assert_eq!(parse_request(b"POST / HTTP/1.1\r\nContent-Length: 5\r\n\r\n", &l), Err(HttpError::BodyTooLarge));
        assert!(matches!(parse_request(b"get / HTTP/1.1\r\n\r\n", &l), Err(HttpError::Malformed(_))));
        assert!(matches!(parse_request(b"GET / HTTP/2\r\n\r\n", &l), Err(HttpError::Unsupported(_))));
        assert!(matches!(parse_request(b"GET x HTTP/1.1\r\n\r\n", &l), Err(HttpError::Malformed(_))));
        assert!(matches!(
            parse_request(b"GET / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n", &l),
            Err(HttpError::Unsupported(_))
        ));
        assert!(matches!(parse_request(b"GET / HTTP/1.1\r\nContent-Length: -1\r\n\r\n", &l), Err(HttpError::Malformed(_))));
    }

    #[test]
    fn serves_keep_alive_connection() {
        struct Duplex {
            input: std::io::Cursor<Vec<u8>>,
            output: Vec<u8>,
        }
        impl Read for Duplex {
            fn read(&mut self, b: &mut [u8]) -> io::Result<usize> {
                self.input.read(b)
            }
        }
        impl Write for Duplex {
            fn write(&mut self, b: &[u8]) -> io::Result<usize> {
                self.output.write(b)
            }
            fn flush(&mut self) -> io::Result<()> {
                Ok(())
            }
        }
        let mut d = Duplex {
            input: std::io::Cursor::new(b"GET /a HTTP/1.1\r\n\r\nGET /b HTTP/1.1\r\n\r\n".to_vec()),
            output: Vec::new(),
        };
        serve_connection(&mut d, &Limits::default(), |r| Response::text(200, r.path.clone())).expect("served");
        let out = String::from_utf8(d.output).expect("utf8");
        assert_eq!(out.matches("HTTP/1.1 200 OK").count(), 2);
        assert!(out.contains("\r\n\r\n/a") && out.ends_with("/b"));

        // HEAD: same headers, no body, so the next response on the connection is not corrupted.
        let mut d = Duplex {
            input: std::io::Cursor::new(b"HEAD /abc HTTP/1.1\r\n\r\nGET /b HTTP/1.1\r\n\r\n".to_vec()),
            output: Vec::new(),
        };
        serve_connection(&mut d, &Limits::default(), |r| Response::text(200, r.path.clone())).expect("served");
        let out = String::from_utf8(d.output).expect("utf8");
        let (head, rest) = out.split_once("\r\n\r\n").expect("head");
        assert!(head.contains("Content-Length: 4"), "{head}");
        assert!(rest.starts_with("HTTP/1.1 200 OK") && rest.ends_with("\r\n\r\n/b"), "{rest}");
    }
}
