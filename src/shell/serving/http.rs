//! A small HTTP/1.1 request reader and response writer for the health and metrics endpoints.
//! httparse reads each request head and [`crate::shell::http_framing`] decides where its body
//! ends, refusing what Go's `net/http` server refuses (and the ambiguous framings Go tolerates),
//! with Go's answer, and closing the connection. Hard limits keep a slow or hostile client from
//! exhausting memory: the head and body sizes and the field count are bounded, and the caller
//! enforces read deadlines and a connection cap.

use crate::shell::http_framing::{self, BodyLength, FramingError};
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

/// Why a request was refused; each maps to the status and bytes Go's `net/http` server answers
/// with (`conn.serve` in src/net/http/server.go, golang/go at
/// cf501e05e138e6911f759a5db786e90b295499b9), and the connection is closed after it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum HttpError {
    /// 400 with Go's bare `400 Bad Request`: the request line, a field or the framing is not
    /// HTTP/1.1 as we read it. The reason is for tests and logs; Go sends none.
    Malformed(&'static str),
    /// 400 with a reason Go puts in the status line and body (its `badRequestError`).
    BadRequest(&'static str),
    /// 431: head too large or too many header fields.
    HeadTooLarge,
    /// 413: body too large.
    BodyTooLarge,
    /// 501: a transfer coding we do not read (any, as these endpoints take no bodies).
    UnsupportedTransferEncoding,
    /// 505: a well-formed HTTP version other than 1.0 and 1.1.
    UnsupportedVersion,
}

impl HttpError {
    pub fn status(&self) -> u16 {
        match self {
            HttpError::Malformed(_) | HttpError::BadRequest(_) => 400,
            HttpError::HeadTooLarge => 431,
            HttpError::BodyTooLarge => 413,
            HttpError::UnsupportedTransferEncoding => 501,
            HttpError::UnsupportedVersion => 505,
        }
    }

    /// The framing refusal as the request reader's error: an unknown transfer coding is 501 (as
    /// Go answers it), every other framing fault 400.
    fn from_framing(e: FramingError) -> HttpError {
        match e {
            FramingError::UnsupportedTransferEncoding => HttpError::UnsupportedTransferEncoding,
            FramingError::HeadTooLong | FramingError::Head(httparse::Error::TooManyHeaders) => HttpError::HeadTooLarge,
            FramingError::BareLf => HttpError::Malformed("line ends with bare LF"),
            FramingError::BadContentLength => HttpError::Malformed("bad Content-Length"),
            FramingError::ConflictingContentLength => HttpError::Malformed("multiple Content-Length values"),
            FramingError::TransferEncodingWithContentLength => HttpError::Malformed("Transfer-Encoding with Content-Length"),
            FramingError::TransferEncodingInHttp10 => HttpError::Malformed("Transfer-Encoding in HTTP/1.0"),
            _ => HttpError::Malformed("malformed head"),
        }
    }
}

impl fmt::Display for HttpError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            HttpError::Malformed(w) => write!(f, "malformed request: {w}"),
            HttpError::BadRequest(w) => write!(f, "bad request: {w}"),
            HttpError::HeadTooLarge => f.write_str("request header fields too large"),
            HttpError::BodyTooLarge => f.write_str("request body too large"),
            HttpError::UnsupportedTransferEncoding => f.write_str("unsupported transfer encoding"),
            HttpError::UnsupportedVersion => f.write_str("unsupported protocol version"),
        }
    }
}

/// Write Go's answer to a request it could not read, byte for byte as `conn.serve` writes it
/// (server.go at cf501e05): no `Content-Length`, the body ending with the connection.
pub fn write_refusal(w: &mut impl Write, e: &HttpError) -> io::Result<()> {
    const ERROR_HEADERS: &str = "\r\nContent-Type: text/plain; charset=utf-8\r\nConnection: close\r\n\r\n";
    let status = match e {
        HttpError::Malformed(_) => "400 Bad Request".to_string(),
        HttpError::BadRequest(why) => format!("400 Bad Request: {why}"),
        HttpError::HeadTooLarge => "431 Request Header Fields Too Large".to_string(),
        // Go refuses an oversized body from the handler's MaxBytesReader; the shape is its
        // statusError's, with Go's status text.
        HttpError::BodyTooLarge => "413 Request Entity Too Large".to_string(),
        HttpError::UnsupportedTransferEncoding => "501 Not Implemented".to_string(),
        HttpError::UnsupportedVersion => "505 HTTP Version Not Supported: unsupported protocol version".to_string(),
    };
    // Go repeats the status as the body, except for an unknown transfer coding.
    let body = match e {
        HttpError::UnsupportedTransferEncoding => "Unsupported transfer encoding",
        _ => &status,
    };
    w.write_all(format!("HTTP/1.1 {status}{ERROR_HEADERS}{body}").as_bytes())?;
    w.flush()
}

/// Try to parse one request from the front of `buf`. `Ok(None)` means "need more bytes";
/// `Ok(Some((req, used)))` consumed `used` bytes. Pure, for tests and fuzzing.
///
/// httparse reads the head (request line, field syntax; obsolete line folding and a bare CR are
/// refused by it); [`http_framing`](crate::shell::http_framing) decides where the body ends and
/// refuses what Go refuses (differing or malformed `Content-Length`, unknown transfer codings)
/// and more (a bare LF, `Transfer-Encoding` beside `Content-Length`). What is checked here: the
/// limits, an upper-case method and an origin-form target (what these endpoints are asked),
/// UTF-8 field values, and RFC 9112 section 3.2's one valid `Host` in HTTP/1.1, as Go's
/// `readRequest` checks it.
pub fn parse_request(buf: &[u8], limits: &Limits) -> Result<Option<(Request, usize)>, HttpError> {
    let mut fields = vec![httparse::EMPTY_HEADER; limits.max_headers];
    let mut parsed = httparse::Request::new(&mut fields);
    let head_len = match parsed.parse(buf) {
        Ok(httparse::Status::Complete(n)) if n > limits.max_head_bytes => return Err(HttpError::HeadTooLarge),
        Ok(httparse::Status::Complete(n)) => n,
        Ok(httparse::Status::Partial) if buf.len() > limits.max_head_bytes => return Err(HttpError::HeadTooLarge),
        Ok(httparse::Status::Partial) => return Ok(None),
        Err(httparse::Error::Version) => return Err(version_error(buf)),
        Err(e) => return Err(HttpError::from_framing(FramingError::Head(e))),
    };
    http_framing::require_crlf(&buf[..head_len]).map_err(HttpError::from_framing)?;
    let (Some(method), Some(target), Some(minor)) = (parsed.method, parsed.path, parsed.version) else {
        return Err(HttpError::Malformed("request line"));
    };
    if !method.bytes().all(|b| b.is_ascii_uppercase()) {
        return Err(HttpError::Malformed("method"));
    }
    if !target.starts_with('/') {
        return Err(HttpError::Malformed("request target"));
    }
    // Framing first (where this request ends), then what it says.
    let framing = http_framing::request_framing(minor, parsed.headers).map_err(HttpError::from_framing)?;
    let body_len = match framing.body {
        BodyLength::Empty => 0,
        BodyLength::Length(n) => n,
        // These endpoints take no bodies: a chunked one is not read (Go reads it).
        BodyLength::Chunked | BodyLength::UntilClose => return Err(HttpError::UnsupportedTransferEncoding),
    };
    let body_len = usize::try_from(body_len).ok().filter(|&n| n <= limits.max_body_bytes).ok_or(HttpError::BodyTooLarge)?;
    check_host(minor, parsed.headers)?;
    let headers = parsed
        .headers
        .iter()
        .map(|f| {
            let value = std::str::from_utf8(f.value).map_err(|_| HttpError::Malformed("header value is not UTF-8"))?;
            Ok((f.name.to_string(), value.to_string()))
        })
        .collect::<Result<Vec<_>, HttpError>>()?;
    let Some(body) = buf.get(head_len..head_len + body_len) else { return Ok(None) };
    let (path, query) = target.split_once('?').unwrap_or((target, ""));
    let req = Request {
        method: method.to_string(),
        path: path.to_string(),
        query: query.to_string(),
        headers,
        body: body.to_vec(),
        // HTTP/1.0 closes even with `keep-alive`: the response does not confirm it.
        close: framing.close || minor == 0,
        client_cert: Default::default(),
    };
    Ok(Some((req, head_len + body_len)))
}

/// An unreadable HTTP version: 505 when it is `HTTP/<digit>.<digit>` (Go's `ParseHTTPVersion`
/// accepts it and `http1ServerSupportsRequest` refuses it), otherwise 400 (`malformed HTTP
/// version`).
fn version_error(buf: &[u8]) -> HttpError {
    let line = buf.split(|&b| b == b'\n').next().unwrap_or_default();
    let version = line.strip_suffix(b"\r").unwrap_or(line).rsplit(|&b| b == b' ').next().unwrap_or_default();
    match version {
        [b'H', b'T', b'T', b'P', b'/', major, b'.', minor] if major.is_ascii_digit() && minor.is_ascii_digit() => {
            HttpError::UnsupportedVersion
        }
        _ => HttpError::Malformed("HTTP version"),
    }
}

/// RFC 9112 section 3.2: an HTTP/1.1 request without `Host`, and any request with more than one
/// or with an invalid value, is answered 400 (Go's `readRequest` in server.go: `missing required
/// Host header`, `malformed Host header`, with `httpguts.ValidHostHeader`'s byte set).
fn check_host(minor: u8, fields: &[httparse::Header<'_>]) -> Result<(), HttpError> {
    let mut hosts = fields.iter().filter(|f| f.name.eq_ignore_ascii_case("host"));
    match (hosts.next(), hosts.next()) {
        (None, _) if minor >= 1 => Err(HttpError::BadRequest("missing required Host header")),
        (None, _) => Ok(()),
        (Some(_), Some(_)) => Err(HttpError::BadRequest("too many Host headers")),
        (Some(host), None) if host.value.iter().all(|&b| valid_host_byte(b)) => Ok(()),
        (Some(_), None) => Err(HttpError::BadRequest("malformed Host header")),
    }
}

/// The bytes `httpguts.ValidHostHeader` allows: letters, digits and `!$%&'()*+,-.:;=[]_~`
/// (host, port, IPv6 literal, percent-encoding), and any byte from 0x80 (it leaves UTF-8 alone).
fn valid_host_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b"!$%&'()*+,-.:;=[]_~".contains(&b) || b >= 0x80
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
                let _ = write_refusal(stream, &e);
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
        let raw = b"GET /healthz?verbose HTTP/1.1\r\nHost: x\r\n\r\nPOST /x HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\nConnection: close\r\n\r\nabc";
        let l = Limits::default();
        let (r1, used) = parse_request(raw, &l).expect("ok").expect("complete");
        assert_eq!((r1.method.as_str(), r1.path.as_str(), r1.query.as_str()), ("GET", "/healthz", "verbose"));
        assert!(r1.has_query_flag("verbose"));
        let (r2, used2) = parse_request(&raw[used..], &l).expect("ok").expect("complete");
        assert_eq!(r2.body, b"abc");
        assert!(r2.close);
        assert_eq!(used + used2, raw.len());
        assert_eq!(parse_request(b"GET / HTTP/1.1\r\nHost: x\r\n", &l), Ok(None));
        assert_eq!(parse_request(b"POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\n\r\nab", &l), Ok(None));
    }

    #[test]
    fn enforces_limits_and_rejects_garbage() {
        let l = Limits { max_head_bytes: 64, max_headers: 2, max_body_bytes: 4 };
        assert_eq!(parse_request(&[b'a'; 100], &l), Err(HttpError::HeadTooLarge));
        assert_eq!(parse_request(b"GET / HTTP/1.1\r\na: 1\r\nb: 2\r\nc: 3\r\n\r\n", &l), Err(HttpError::HeadTooLarge));
        assert_eq!(parse_request(b"POST / HTTP/1.1\r\nContent-Length: 5\r\n\r\n", &l), Err(HttpError::BodyTooLarge));
        assert!(matches!(parse_request(b"get / HTTP/1.1\r\n\r\n", &l), Err(HttpError::Malformed(_))));
        assert!(matches!(parse_request(b"GET / HTTP/2\r\n\r\n", &l), Err(HttpError::Malformed(_))));
        assert_eq!(parse_request(b"GET / HTTP/2.0\r\n\r\n", &l), Err(HttpError::UnsupportedVersion));
        assert!(matches!(parse_request(b"GET x HTTP/1.1\r\n\r\n", &l), Err(HttpError::Malformed(_))));
        assert!(matches!(
            parse_request(b"GET / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n", &l),
            Err(HttpError::UnsupportedTransferEncoding)
        ));
        assert!(matches!(parse_request(b"GET / HTTP/1.1\r\nContent-Length: -1\r\n\r\n", &l), Err(HttpError::Malformed(_))));
    }

    /// A connection whose client sent `input` and then closed; `output` is what was answered.
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

    /// Go's answer to a request it cannot read (server.go at cf501e05, `conn.serve`).
    const GO_400: &str =
        "HTTP/1.1 400 Bad Request\r\nContent-Type: text/plain; charset=utf-8\r\nConnection: close\r\n\r\n400 Bad Request";

    /// Every malformed or ambiguous request is answered once, with Go's status and shape, and
    /// the connection ends there: the request pipelined after it (which a front proxy reading
    /// the framing differently would see as a separate request to /metrics) is never answered.
    /// The comment on each row says what Go's server does with the same bytes.
    #[test]
    fn malformed_requests_are_refused_like_go_and_the_connection_closed() {
        let cases: &[(&str, &[u8], u16)] = &[
            // Content-Length (transfer.go fixLength / parseContentLength).
            (
                "differing lengths (Go: 400)",
                b"POST /x HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\nContent-Length: 5\r\n\r\nhello",
                400,
            ),
            ("sign (Go: 400)", b"POST /x HTTP/1.1\r\nHost: x\r\nContent-Length: +5\r\n\r\nhello", 400),
            ("negative (Go: 400)", b"POST /x HTTP/1.1\r\nHost: x\r\nContent-Length: -1\r\n\r\n", 400),
            ("not digits (Go: 400)", b"POST /x HTTP/1.1\r\nHost: x\r\nContent-Length: 5a\r\n\r\nhello", 400),
            ("empty (Go: 400)", b"POST /x HTTP/1.1\r\nHost: x\r\nContent-Length:\r\n\r\n", 400),
            ("past 2^63-1 (Go: 400)", b"POST /x HTTP/1.1\r\nHost: x\r\nContent-Length: 9223372036854775808\r\n\r\n", 400),
            ("past u64 (Go: 400)", b"POST /x HTTP/1.1\r\nHost: x\r\nContent-Length: 99999999999999999999\r\n\r\n", 400),
            ("comma list that disagrees (Go: 400)", b"POST /x HTTP/1.1\r\nHost: x\r\nContent-Length: 0, 5\r\n\r\nhello", 400),
            ("comma list that agrees (Go: 400)", b"POST /x HTTP/1.1\r\nHost: x\r\nContent-Length: 5, 5\r\n\r\nhello", 400),
            // Transfer-Encoding (transfer.go parseTransferEncoding).
            (
                "coding beside a length (Go: reads chunked)",
                b"POST /x HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n",
                400,
            ),
            ("HTTP/1.0 coding (Go: ignores it)", b"POST /x HTTP/1.0\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n", 400),
            ("unknown coding (Go: 501)", b"POST /x HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: gzip\r\n\r\n", 501),
            ("coding list (Go: 501)", b"POST /x HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: gzip, chunked\r\n\r\n", 501),
            (
                "two coding lines (Go: 501)",
                b"POST /x HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\nTransfer-Encoding: chunked\r\n\r\n",
                501,
            ),
            ("chunked body (Go: reads it)", b"POST /x HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n", 501),
            // Field syntax (net/textproto readMIMEHeader; httparse here).
            ("obs-fold (Go: joins the lines)", b"GET /healthz HTTP/1.1\r\nHost: x\r\nX-A: b\r\n c\r\n\r\n", 400),
            ("obs-fold of a length (Go: 400)", b"POST /x HTTP/1.1\r\nHost: x\r\nContent-Length:\r\n 5\r\n\r\nhello", 400),
            ("bare LF line ends (Go: accepts)", b"GET /healthz HTTP/1.1\nHost: x\n\n", 400),
            ("one bare LF (Go: accepts)", b"GET /healthz HTTP/1.1\r\nHost: x\nX: y\r\n\r\n", 400),
            ("bare CR (Go: 400)", b"GET /healthz HTTP/1.1\r\nHost: x\rX: y\r\n\r\n", 400),
            ("NUL in a value (Go: 400)", b"GET /healthz HTTP/1.1\r\nHost: x\r\nX: a\0b\r\n\r\n", 400),
            ("space before the colon (Go: 400)", b"GET /healthz HTTP/1.1\r\nHost : x\r\n\r\n", 400),
            ("invalid name byte (Go: 400)", b"GET /healthz HTTP/1.1\r\nHost: x\r\nX(Y): z\r\n\r\n", 400),
            ("leading space on the first field (Go: 400)", b"GET /healthz HTTP/1.1\r\n Host: x\r\n\r\n", 400),
            ("non-UTF-8 value (Go: accepts)", b"GET /healthz HTTP/1.1\r\nHost: x\r\nX: \xff\r\n\r\n", 400),
            // Request line (request.go readRequest, server.go readRequest).
            ("double space (Go: 400)", b"GET  /healthz HTTP/1.1\r\nHost: x\r\n\r\n", 400),
            ("no version (Go: 400)", b"GET /healthz\r\nHost: x\r\n\r\n", 400),
            ("trailing token (Go: 400)", b"GET /healthz HTTP/1.1 x\r\nHost: x\r\n\r\n", 400),
            ("not HTTP (Go: 400)", b"GET /healthz FTP/1.1\r\nHost: x\r\n\r\n", 400),
            ("HTTP/2.0 (Go: 505)", b"GET /healthz HTTP/2.0\r\nHost: x\r\n\r\n", 505),
            ("lower-case method (Go: a valid method)", b"get /healthz HTTP/1.1\r\nHost: x\r\n\r\n", 400),
            ("absolute form (Go: routes it)", b"GET http://x/healthz HTTP/1.1\r\nHost: x\r\n\r\n", 400),
            ("TLS bytes (Go: 400)", b"\x16\x03\x01garbage\r\n\r\n", 400),
            // Host (RFC 9112 section 3.2; server.go readRequest).
            ("no Host in HTTP/1.1 (Go: 400)", b"GET /healthz HTTP/1.1\r\nX: y\r\n\r\n", 400),
            ("two Hosts (Go: 400)", b"GET /healthz HTTP/1.1\r\nHost: x\r\nHost: y\r\n\r\n", 400),
            ("invalid Host (Go: 400)", b"GET /healthz HTTP/1.1\r\nHost: x/y\r\n\r\n", 400),
            // Size (Go: 431 past MaxHeaderBytes, 1 MiB by default; no field count limit).
            (
                "head over 8 KiB (Go: 431 past 1 MiB)",
                &[b"GET /healthz HTTP/1.1\r\nHost: x\r\nX: ".as_slice(), &[b'a'; 9000], b"\r\n\r\n"].concat(),
                431,
            ),
            (
                "65 fields (Go: accepts)",
                &[b"GET /healthz HTTP/1.1\r\nHost: x\r\n".as_slice(), &b"X: y\r\n".repeat(64), b"\r\n"].concat(),
                431,
            ),
            ("body over 64 KiB (Go: the handler's limit)", b"POST /x HTTP/1.1\r\nHost: x\r\nContent-Length: 65537\r\n\r\n", 413),
        ];
        let next = b"GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n";
        for (name, request, status) in cases {
            let mut d = Duplex { input: std::io::Cursor::new([*request, next.as_slice()].concat()), output: Vec::new() };
            serve_connection(&mut d, &Limits::default(), |r| Response::text(200, r.path.clone())).expect("served");
            let out = String::from_utf8_lossy(&d.output);
            assert!(out.starts_with(&format!("HTTP/1.1 {status} ")), "{name}: {out:?}");
            assert!(out.contains("\r\nConnection: close\r\n"), "{name}: {out:?}");
            assert_eq!(out.matches("HTTP/1.1 ").count(), 1, "{name}: the pipelined request was answered: {out:?}");
            if *status == 400 && !out.contains("Host") {
                assert_eq!(out, GO_400, "{name}");
            }
        }
        // Go's other shapes.
        let answer = |request: &[u8]| {
            let mut d = Duplex { input: std::io::Cursor::new(request.to_vec()), output: Vec::new() };
            serve_connection(&mut d, &Limits::default(), |r| Response::text(200, r.path.clone())).expect("served");
            String::from_utf8(d.output).expect("utf8")
        };
        let eh = "\r\nContent-Type: text/plain; charset=utf-8\r\nConnection: close\r\n\r\n";
        assert_eq!(
            answer(b"GET / HTTP/1.1\r\n\r\n"),
            format!("HTTP/1.1 400 Bad Request: missing required Host header{eh}400 Bad Request: missing required Host header")
        );
        assert_eq!(
            answer(b"GET / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: gzip\r\n\r\n"),
            format!("HTTP/1.1 501 Not Implemented{eh}Unsupported transfer encoding")
        );
        assert_eq!(answer(b"GET / HTTP/3.0\r\nHost: x\r\n\r\n"), format!("HTTP/1.1 505 HTTP Version Not Supported: unsupported protocol version{eh}505 HTTP Version Not Supported: unsupported protocol version"));
        let big = [b"GET / HTTP/1.1\r\nX: ".as_slice(), &[b'a'; 9000]].concat();
        assert_eq!(answer(&big), format!("HTTP/1.1 431 Request Header Fields Too Large{eh}431 Request Header Fields Too Large"));
    }

    /// What Go accepts and so must we: identical repeated lengths, a token-list `Connection`,
    /// HTTP/1.0 without `Host`, leading empty lines (RFC 9112 section 2.2).
    #[test]
    fn well_framed_requests_are_served() {
        let cases: &[(&str, &[u8], usize)] = &[
            ("identical lengths", b"POST /a HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\ncontent-length: 3\r\n\r\nabcGET /b HTTP/1.1\r\nHost: x\r\n\r\n", 2),
            ("close in a token list", b"GET /a HTTP/1.1\r\nHost: x\r\nConnection: keep-alive, close\r\n\r\nGET /b HTTP/1.1\r\nHost: x\r\n\r\n", 1),
            ("HTTP/1.0 without Host", b"GET /a HTTP/1.0\r\n\r\n", 1),
            ("leading CRLF", b"\r\nGET /a HTTP/1.1\r\nHost: [::1]:10259\r\n\r\n", 1),
            ("zero length", b"GET /a HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\n\r\nGET /b HTTP/1.1\r\nHost: x\r\n\r\n", 2),
        ];
        for (name, request, answers) in cases {
            let mut d = Duplex { input: std::io::Cursor::new(request.to_vec()), output: Vec::new() };
            serve_connection(&mut d, &Limits::default(), |r| Response::text(200, r.path.clone())).expect("served");
            let out = String::from_utf8(d.output).expect("utf8");
            assert_eq!(out.matches("HTTP/1.1 200 OK").count(), *answers, "{name}: {out:?}");
        }
    }

    #[test]
    fn serves_keep_alive_connection() {
        let mut d = Duplex {
            input: std::io::Cursor::new(b"GET /a HTTP/1.1\r\nHost: x\r\n\r\nGET /b HTTP/1.1\r\nHost: x\r\n\r\n".to_vec()),
            output: Vec::new(),
        };
        serve_connection(&mut d, &Limits::default(), |r| Response::text(200, r.path.clone())).expect("served");
        let out = String::from_utf8(d.output).expect("utf8");
        assert_eq!(out.matches("HTTP/1.1 200 OK").count(), 2);
        assert!(out.contains("\r\n\r\n/a") && out.ends_with("/b"));

        // HEAD: same headers, no body, so the next response on the connection is not corrupted.
        let mut d = Duplex {
            input: std::io::Cursor::new(b"HEAD /abc HTTP/1.1\r\nHost: x\r\n\r\nGET /b HTTP/1.1\r\nHost: x\r\n\r\n".to_vec()),
            output: Vec::new(),
        };
        serve_connection(&mut d, &Limits::default(), |r| Response::text(200, r.path.clone())).expect("served");
        let out = String::from_utf8(d.output).expect("utf8");
        let (head, rest) = out.split_once("\r\n\r\n").expect("head");
        assert!(head.contains("Content-Length: 4"), "{head}");
        assert!(rest.starts_with("HTTP/1.1 200 OK") && rest.ends_with("\r\n\r\n/b"), "{rest}");
    }
}
