//! HTTP/1.1 framing by hand: request line, headers and a Content-Length (or chunked) body in;
//! fixed-length responses and chunked watch streams out. Kept minimal but strict enough that a
//! client relying on keep-alive, Content-Length or chunk boundaries sees real-server framing.

use std::io::{self, BufRead, Read, Write};

/// Largest request head or body accepted (requests are test traffic, never huge).
const MAX_BODY: usize = 64 * 1024 * 1024;
const MAX_LINE: usize = 64 * 1024;

/// A parsed request.
#[derive(Debug, Clone)]
pub struct Request {
    /// `GET`, `POST`, ...
    pub method: String,
    /// Decoded path without the query.
    pub path: String,
    /// Raw query string (without `?`).
    pub raw_query: String,
    /// Decoded query pairs.
    pub query: Vec<(String, String)>,
    /// Header (lower-case name, value) pairs.
    pub headers: Vec<(String, String)>,
    /// Body bytes.
    pub body: Vec<u8>,
    /// Whether the client asked to close after this request (or spoke HTTP/1.0).
    pub close: bool,
}

impl Request {
    /// First header with this (lower-case) name.
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers.iter().find(|(k, _)| k == name).map(|(_, v)| v.as_str())
    }

    /// First query parameter with this name.
    pub fn param(&self, name: &str) -> Option<&str> {
        self.query.iter().find(|(k, _)| k == name).map(|(_, v)| v.as_str())
    }

    /// Whether a boolean query flag is set (`true` or `1`).
    pub fn flag(&self, name: &str) -> bool {
        matches!(self.param(name), Some("true" | "1"))
    }

    /// Whether the client gets pretty JSON (`kubernetes/apiserver` `pkg/endpoints/handlers/
    /// responsewriters`: `?pretty=true` or a curl/Wget/browser user agent).
    pub fn wants_pretty(&self) -> bool {
        match self.param("pretty") {
            Some(p) => p == "true" || p == "1",
            None => {
                let ua = self.header("user-agent").unwrap_or("");
                ua.starts_with("curl") || ua.starts_with("Wget") || ua.starts_with("Mozilla/5.0")
            }
        }
    }
}

fn hex_val(b: u8) -> Option<u8> {
    char::from(b).to_digit(16).map(|d| d as u8)
}

/// Percent-decode (and `+` to space for query components).
pub fn percent_decode(s: &str, plus_is_space: bool) -> String {
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'%' if i + 2 < bytes.len() => match (hex_val(bytes[i + 1]), hex_val(bytes[i + 2])) {
                (Some(h), Some(l)) => {
                    out.push(h << 4 | l);
                    i += 3;
                    continue;
                }
                _ => out.push(b'%'),
            },
            b'+' if plus_is_space => out.push(b' '),
            b => out.push(b),
        }
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

fn parse_query(raw: &str) -> Vec<(String, String)> {
    raw.split('&')
        .filter(|p| !p.is_empty())
        .map(|p| {
            let (k, v) = p.split_once('=').unwrap_or((p, ""));
            (percent_decode(k, true), percent_decode(v, true))
        })
        .collect()
}

fn read_line(r: &mut impl BufRead) -> io::Result<Option<String>> {
    let mut buf = Vec::new();
    let n = r.by_ref().take(MAX_LINE as u64).read_until(b'\n', &mut buf)?;
    if n == 0 {
        return Ok(None);
    }
    while buf.last().is_some_and(|b| *b == b'\n' || *b == b'\r') {
        buf.pop();
    }
    Ok(Some(String::from_utf8_lossy(&buf).into_owned()))
}

fn bad(msg: &str) -> io::Error {
    io::Error::new(io::ErrorKind::InvalidData, msg.to_string())
}

fn read_chunked(r: &mut impl BufRead) -> io::Result<Vec<u8>> {
    let mut body = Vec::new();
    loop {
        let line = read_line(r)?.ok_or_else(|| bad("eof in chunk size"))?;
        let size_hex = line.split(';').next().unwrap_or("").trim();
        let size = usize::from_str_radix(size_hex, 16).map_err(|_| bad("bad chunk size"))?;
        if size == 0 {
            while read_line(r)?.is_some_and(|l| !l.is_empty()) {}
            return Ok(body);
        }
        if body.len() + size > MAX_BODY {
            return Err(bad("body too large"));
        }
        let start = body.len();
        body.resize(start + size, 0);
        r.read_exact(&mut body[start..])?;
        read_line(r)?;
    }
}

/// Read one request; `Ok(None)` when the client closed the connection between requests.
pub fn read_request(r: &mut impl BufRead) -> io::Result<Option<Request>> {
    let line = loop {
        match read_line(r)? {
            None => return Ok(None),
            Some(l) if l.is_empty() => continue,
            Some(l) => break l,
        }
    };
    let mut parts = line.split_whitespace();
    let (method, target, version) = match (parts.next(), parts.next(), parts.next()) {
        (Some(m), Some(t), Some(v)) => (m.to_string(), t.to_string(), v.to_string()),
        _ => return Err(bad("malformed request line")),
    };
    let mut headers = Vec::new();
    loop {
        let h = read_line(r)?.ok_or_else(|| bad("eof in headers"))?;
        if h.is_empty() {
            break;
        }
        if let Some((k, v)) = h.split_once(':') {
            headers.push((k.trim().to_ascii_lowercase(), v.trim().to_string()));
        }
    }
    let header = |name: &str| headers.iter().find(|(k, _)| k == name).map(|(_, v)| v.clone());
    let chunked = header("transfer-encoding").is_some_and(|v| v.to_ascii_lowercase().contains("chunked"));
    let body = if chunked {
        read_chunked(r)?
    } else {
        let len: usize =
            header("content-length").map(|v| v.parse().map_err(|_| bad("bad content-length"))).transpose()?.unwrap_or(0);
        if len > MAX_BODY {
            return Err(bad("body too large"));
        }
        let mut body = vec![0; len];
        r.read_exact(&mut body)?;
        body
    };
    let close = version == "HTTP/1.0" || header("connection").is_some_and(|v| v.eq_ignore_ascii_case("close"));
    let (path, raw_query) = match target.split_once('?') {
        Some((p, q)) => (p.to_string(), q.to_string()),
        None => (target.clone(), String::new()),
    };
    Ok(Some(Request {
        method,
        path: percent_decode(&path, false),
        query: parse_query(&raw_query),
        raw_query,
        headers,
        body,
        close,
    }))
}

/// Reason phrase for the codes the server sends.
pub fn reason_phrase(code: u16) -> &'static str {
    match code {
        200 => "OK",
        201 => "Created",
        400 => "Bad Request",
        401 => "Unauthorized",
        403 => "Forbidden",
        404 => "Not Found",
        405 => "Method Not Allowed",
        409 => "Conflict",
        410 => "Gone",
        415 => "Unsupported Media Type",
        422 => "Unprocessable Entity",
        429 => "Too Many Requests",
        500 => "Internal Server Error",
        503 => "Service Unavailable",
        504 => "Gateway Timeout",
        _ => "Unknown",
    }
}

/// A complete (non-streaming) response.
#[derive(Debug, Clone)]
pub struct Response {
    /// Status code.
    pub code: u16,
    /// `Content-Type`.
    pub content_type: &'static str,
    /// Extra headers (e.g. `Retry-After`).
    pub headers: Vec<(String, String)>,
    /// Body bytes.
    pub body: Vec<u8>,
}

/// Headers every API server response carries (see the fixtures README: audit id, no-cache,
/// priority-and-fairness uids, date).
fn common_headers(audit_id: &str, date: &str) -> String {
    format!(
        "Audit-Id: {audit_id}\r\nCache-Control: no-cache, private\r\nDate: {date}\r\nX-Kubernetes-Pf-Flowschema-Uid: {audit_id}\r\nX-Kubernetes-Pf-Prioritylevel-Uid: {audit_id}\r\n"
    )
}

/// Serialize head and body; `truncate` sends only the first half of the body (the declared
/// Content-Length stays the full size) to simulate a connection cut mid-response.
pub fn write_response(w: &mut impl Write, resp: &Response, audit_id: &str, date: &str, truncate: bool) -> io::Result<()> {
    let mut head = format!("HTTP/1.1 {} {}\r\n", resp.code, reason_phrase(resp.code));
    head.push_str(&common_headers(audit_id, date));
    head.push_str(&format!("Content-Type: {}\r\n", resp.content_type));
    for (k, v) in &resp.headers {
        head.push_str(&format!("{k}: {v}\r\n"));
    }
    head.push_str(&format!("Content-Length: {}\r\n\r\n", resp.body.len()));
    let mut out = head.into_bytes();
    let body = if truncate { &resp.body[..resp.body.len() / 2] } else { &resp.body[..] };
    out.extend_from_slice(body);
    w.write_all(&out)?;
    w.flush()
}

/// Start a chunked streaming response (watch).
pub fn write_stream_head(w: &mut impl Write, content_type: &str, audit_id: &str, date: &str) -> io::Result<()> {
    let head = format!(
        "HTTP/1.1 200 OK\r\n{}Content-Type: {content_type}\r\nTransfer-Encoding: chunked\r\n\r\n",
        common_headers(audit_id, date)
    );
    w.write_all(head.as_bytes())?;
    w.flush()
}

/// Write one chunk and flush it to the socket at once.
pub fn write_chunk(w: &mut impl Write, data: &[u8]) -> io::Result<()> {
    let mut out = format!("{:x}\r\n", data.len()).into_bytes();
    out.extend_from_slice(data);
    out.extend_from_slice(b"\r\n");
    w.write_all(&out)?;
    w.flush()
}

/// End a chunked response cleanly.
pub fn write_last_chunk(w: &mut impl Write) -> io::Result<()> {
    w.write_all(b"0\r\n\r\n")?;
    w.flush()
}
