//! A lean HTTP/1.1 client for the API server: keep-alive requests and watch streams.
//!
//! Bindings and events are small requests sent by the thousand: through a general-purpose HTTP
//! library each one paid for a per-request liveness probe of the pooled connection (three system
//! calls), socket timeouts set again before every read and write (a whole-request deadline
//! shrinks with each call), a resolver pass and a request object built header by header. Here a
//! connection's timeouts are set once (again only when a deadline shortens them), the request
//! goes out in one write, the probe is a single non-blocking `MSG_PEEK`, and the response is
//! framed by Content-Length or chunked encoding, as RFC 9112 section 6 says: httparse reads the
//! head and [`crate::shell::http_framing`] applies Go's client rules (and refuses the ambiguous
//! framings Go tolerates), so a malformed response is a typed [`FramingError`] inside the I/O
//! error, never a guess at where the body ends.
//!
//! A connection is reused only when its response was read to the end and neither side asked to
//! close. One that the server closed while idle shows up in the probe and is dropped before
//! anything is sent; one that fails after the request went out is reported as "maybe sent", so
//! the client's retry rules ([`crate::shell::kube::client`]) decide as for any other failure.
//! A watch ([`Pool::stream`]) keeps its connection: its body is read as it arrives, each read
//! bounded by the watch's idle timeout.
//!
//! Behind an HTTP proxy ([`super::proxy_env`]) each connection is a `CONNECT` tunnel (RFC 9110
//! section 9.3.6) opened before TLS; the connect timeout covers proxy connect, tunnel and handshake.

use super::proxy_env::Proxy;
use super::watch_stream::IO_BUFFER_BYTES;
use crate::shell::http_framing::{self, BodyLength, ChunkedDecoder, FramingError, Step};
use rustls::pki_types::ServerName;
use std::io::{self, Read, Write};
use std::net::{SocketAddr, TcpStream, ToSocketAddrs};
use std::os::fd::AsRawFd;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// Longest response head accepted (status line and headers).
const MAX_HEAD_BYTES: usize = 64 * 1024;
/// Header fields a response head may carry (the API server sends about ten).
const MAX_HEAD_FIELDS: usize = 100;
/// Idle connections kept for reuse (one per API worker, and a few more).
const MAX_IDLE: usize = 40;

/// Where and how to connect.
pub struct Endpoint {
    /// Host name or address literal (no brackets), as in the server URL.
    pub host: String,
    /// Port from the URL, or the scheme's default.
    pub port: u16,
    /// TLS settings and the name the server certificate is checked against (https only).
    pub tls: Option<(Arc<rustls::ClientConfig>, ServerName<'static>)>,
    /// Deadline for TCP connect plus proxy tunnel plus TLS handshake.
    pub connect_timeout: Duration,
    /// The HTTP proxy to tunnel through, if any.
    pub proxy: Option<Proxy>,
}

/// How far a failed exchange got.
#[derive(Debug)]
pub enum Failure {
    /// Nothing was sent: connecting or the TLS handshake failed.
    NotSent(io::Error),
    /// The request may have reached the server.
    MaybeSent(io::Error),
}

/// The parts of a response the client looks at; the body is read into the caller's buffer.
#[derive(Debug)]
pub struct Response {
    /// Status code.
    pub code: u16,
    /// `Retry-After`, when present.
    pub retry_after: Option<String>,
    /// The body was longer than the limit given and was cut there.
    pub truncated: bool,
}

/// A pool of keep-alive connections to one endpoint.
pub struct Pool {
    endpoint: Endpoint,
    idle: Mutex<Vec<Conn>>,
}

impl Pool {
    /// A pool for `endpoint`; connections are opened on demand.
    pub fn new(endpoint: Endpoint) -> Pool {
        Pool { endpoint, idle: Mutex::new(Vec::new()) }
    }

    /// Send `request` (a complete request: head and body) and read the response body into
    /// `out` (cleared first), at most `limit` bytes. `timeout` bounds each read and write.
    pub fn exchange(&self, request: &[u8], timeout: Duration, limit: u64, out: &mut Vec<u8>) -> Result<Response, Failure> {
        let mut conn = match self.take_idle() {
            Some(conn) => conn,
            None => Conn::open(&self.endpoint).map_err(Failure::NotSent)?,
        };
        out.clear();
        let result = conn.exchange(request, timeout, limit, out);
        match result {
            Ok((response, reusable)) => {
                if reusable {
                    self.keep(conn);
                }
                Ok(response)
            }
            Err(e) => Err(Failure::MaybeSent(e)),
        }
    }

    /// Send several complete requests on one connection in one write, then read their responses
    /// in order (HTTP/1.1 pipelining, RFC 9112 section 9.3.2), response `i`'s body into
    /// `outs[i]`. A burst of bindings then costs one wake-up, one write and a few reads instead
    /// of a round trip each. `Err` when no connection could be had (nothing was sent); otherwise
    /// one result per request: once the connection fails or the server closes it, every request
    /// not yet answered may or may not have been processed.
    pub fn exchange_pipelined(
        &self,
        requests: &[Vec<u8>],
        timeout: Duration,
        limit: u64,
        outs: &mut [Vec<u8>],
    ) -> Result<Vec<Result<Response, Failure>>, Failure> {
        let mut conn = match self.take_idle() {
            Some(conn) => conn,
            None => Conn::open(&self.endpoint).map_err(Failure::NotSent)?,
        };
        let mut results = Vec::with_capacity(requests.len());
        let mut broken = conn.send(&requests.concat(), timeout).err().map(|e| e.to_string());
        for out in outs.iter_mut().take(requests.len()) {
            out.clear();
            if let Some(why) = &broken {
                results.push(Err(Failure::MaybeSent(io::Error::new(io::ErrorKind::ConnectionAborted, why.clone()))));
                continue;
            }
            let answer = conn.response_head().and_then(|head| {
                let (truncated, reusable) = conn.body(&head, limit, out)?;
                Ok((Response { code: head.code, retry_after: head.retry_after, truncated }, reusable))
            });
            match answer {
                Ok((response, reusable)) => {
                    if !reusable {
                        broken = Some("the connection was closed before this pipelined request was answered".into());
                    }
                    results.push(Ok(response));
                }
                Err(e) => {
                    broken = Some(e.to_string());
                    results.push(Err(Failure::MaybeSent(e)));
                }
            }
        }
        if broken.is_none() {
            self.keep(conn);
        }
        Ok(results)
    }

    /// Send `request` and read the response head within `timeout`; a 2xx body is then read as
    /// it arrives through the returned [`Body`], each read waiting at most `idle` (forever when
    /// `None`). Other answers have their body read into `error_body` (at most `limit` bytes).
    pub fn stream(
        &self,
        request: &[u8],
        timeout: Duration,
        idle: Option<Duration>,
        limit: u64,
        error_body: &mut Vec<u8>,
    ) -> Result<(Response, Option<Body>), Failure> {
        let mut conn = match self.take_idle() {
            Some(conn) => conn,
            None => Conn::open(&self.endpoint).map_err(Failure::NotSent)?,
        };
        let head = conn.send(request, timeout).and_then(|()| conn.response_head()).map_err(Failure::MaybeSent)?;
        let response = Response { code: head.code, retry_after: head.retry_after.clone(), truncated: false };
        if !(200..300).contains(&head.code) {
            let (truncated, _) = conn.body(&head, limit, error_body).map_err(Failure::MaybeSent)?;
            return Ok((Response { truncated, ..response }, None));
        }
        conn.io.tcp().set_read_timeout(idle).map_err(Failure::MaybeSent)?;
        conn.deadline = None;
        Ok((response, Some(Body(BodyOf::after(conn, &head)))))
    }

    /// Keep a connection whose exchange ended cleanly for the next request.
    fn keep(&self, conn: Conn) {
        let mut idle = self.idle.lock().unwrap_or_else(|e| e.into_inner());
        if idle.len() < MAX_IDLE {
            idle.push(conn);
        }
    }

    /// The most recently used idle connection that is still open.
    fn take_idle(&self) -> Option<Conn> {
        loop {
            let conn = self.idle.lock().unwrap_or_else(|e| e.into_inner()).pop()?;
            if conn.is_open() {
                return Some(conn);
            }
        }
    }
}

/// The byte stream of a connection. TLS records are moved by hand through rustls' `dyn`
/// reader and writer entry points (its generic stream adapter would be compiled once more for
/// this pair of types).
enum Io {
    Plain(TcpStream),
    Tls(Box<(rustls::ClientConnection, TcpStream)>),
}

impl Io {
    fn tcp(&self) -> &TcpStream {
        match self {
            Io::Plain(s) => s,
            Io::Tls(tls) => &tls.1,
        }
    }

    /// Write all of `data` (for TLS: encrypt it and send every record).
    fn write_all(&mut self, mut data: &[u8]) -> io::Result<()> {
        let (conn, tcp) = match self {
            Io::Plain(s) => return s.write_all(data),
            Io::Tls(tls) => (&mut tls.0, &mut tls.1),
        };
        loop {
            let n = conn.writer().write(data)?;
            data = &data[n..];
            send_records(conn, tcp)?;
            if data.is_empty() {
                return Ok(());
            }
            if n == 0 {
                return Err(io::Error::from(io::ErrorKind::WriteZero));
            }
        }
    }
}

impl Read for Io {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let (conn, tcp) = match self {
            Io::Plain(s) => return s.read(buf),
            Io::Tls(tls) => (&mut tls.0, &mut tls.1),
        };
        loop {
            match conn.reader().read(buf) {
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => {}
                other => return other,
            }
            if conn.read_tls(tcp)? == 0 {
                // The peer closed the TCP stream: the reader now reports how (0 or an error).
                conn.process_new_packets().map_err(tls_error)?;
                return conn.reader().read(buf);
            }
            conn.process_new_packets().map_err(tls_error)?;
            send_records(conn, tcp)?;
        }
    }
}

/// Send the TLS records rustls has ready.
fn send_records(conn: &mut rustls::ClientConnection, tcp: &mut TcpStream) -> io::Result<()> {
    while conn.wants_write() {
        conn.write_tls(tcp)?;
    }
    Ok(())
}

/// A TLS failure as an I/O error wrapping rustls' error (how the client recognises a refused
/// certificate).
fn tls_error(e: rustls::Error) -> io::Error {
    io::Error::new(io::ErrorKind::InvalidData, e)
}

/// Ask `proxy` (connected as `tcp`) for its tunnel and read the answer: any 2xx opens it (as
/// Go's transport accepts). The head is read a byte at a time so that nothing after it is taken.
#[inline(never)]
fn tunnel(tcp: &mut TcpStream, proxy: &Proxy) -> io::Result<()> {
    tcp.write_all(proxy.connect.as_bytes())?;
    let mut head = Vec::new();
    let mut byte = [0u8];
    while !head.ends_with(b"\r\n\r\n") {
        if head.len() >= MAX_HEAD_BYTES || tcp.read(&mut byte)? == 0 {
            return Err(invalid("proxy closed the connection before answering CONNECT"));
        }
        head.push(byte[0]);
    }
    let mut fields = [httparse::EMPTY_HEADER; MAX_HEAD_FIELDS];
    let mut answer = httparse::Response::new(&mut fields);
    match answer.parse(&head) {
        Ok(httparse::Status::Complete(_)) if answer.code.is_some_and(|c| (200..300).contains(&c)) => Ok(()),
        Ok(httparse::Status::Complete(_)) => {
            let line = head.split(|&b| b == b'\r').next().unwrap_or_default();
            Err(invalid(&format!("proxy refused the tunnel: {}", String::from_utf8_lossy(line))))
        }
        Ok(httparse::Status::Partial) => Err(invalid("proxy answered CONNECT with an incomplete head")),
        Err(e) => Err(framing_error(FramingError::Head(e))),
    }
}

/// One connection with its read buffer (`store[pos..end]` is received and not yet consumed).
/// The reading half is generic over the byte source so that tests and the fuzz targets replay a
/// server's bytes through the very same reader ([`read_response`], [`stream_response`]); the
/// pool's connections are `Conn<Io>`.
struct Conn<S = Io> {
    io: S,
    /// Zeroed once; reads land in `store[end..]`.
    store: Vec<u8>,
    pos: usize,
    end: usize,
    /// The read/write timeout the socket carries now.
    timeout: Option<Duration>,
    /// When the current exchange gives up (a per-read timeout alone would let a trickle last);
    /// none while a watch streams.
    deadline: Option<Instant>,
}

impl Conn<Io> {
    fn open(endpoint: &Endpoint) -> io::Result<Conn> {
        let start = Instant::now();
        let (host, port) = match &endpoint.proxy {
            Some(p) => (p.host.as_str(), p.port),
            None => (endpoint.host.as_str(), endpoint.port),
        };
        let addrs: Vec<SocketAddr> = match host.parse::<std::net::IpAddr>() {
            Ok(ip) => vec![SocketAddr::new(ip, port)],
            Err(_) => (host, port).to_socket_addrs()?.collect(),
        };
        let mut last = io::Error::new(io::ErrorKind::NotFound, "host has no address");
        let mut tcp = None;
        for addr in addrs {
            match TcpStream::connect_timeout(&addr, endpoint.connect_timeout) {
                Ok(s) => {
                    tcp = Some(s);
                    break;
                }
                Err(e) => last = e,
            }
        }
        let mut tcp = tcp.ok_or(last)?;
        tcp.set_nodelay(true)?;
        let left = || endpoint.connect_timeout.saturating_sub(start.elapsed()).max(Duration::from_millis(1));
        if let Some(proxy) = &endpoint.proxy {
            tcp.set_read_timeout(Some(left()))?;
            tcp.set_write_timeout(Some(left()))?;
            tunnel(&mut tcp, proxy)?;
        }
        let io = match &endpoint.tls {
            None => Io::Plain(tcp),
            Some((config, name)) => {
                tcp.set_read_timeout(Some(left()))?;
                tcp.set_write_timeout(Some(left()))?;
                let mut tls = Box::new((rustls::ClientConnection::new(config.clone(), name.clone()).map_err(tls_error)?, tcp));
                let (conn, tcp) = (&mut tls.0, &mut tls.1);
                while conn.is_handshaking() {
                    send_records(conn, tcp)?;
                    if !conn.is_handshaking() {
                        break;
                    }
                    if conn.read_tls(tcp)? == 0 {
                        return Err(io::Error::new(io::ErrorKind::UnexpectedEof, "connection closed during the TLS handshake"));
                    }
                    if let Err(e) = conn.process_new_packets() {
                        // Tell the server why (the alert rustls queued), then fail.
                        let _ = send_records(conn, tcp);
                        return Err(tls_error(e));
                    }
                }
                send_records(conn, tcp)?;
                Io::Tls(tls)
            }
        };
        // No timeout recorded: the first exchange sets its own (replacing the handshake's).
        Ok(Conn { io, store: vec![0; IO_BUFFER_BYTES], pos: 0, end: 0, timeout: None, deadline: None })
    }

    /// An idle connection is usable when nothing is waiting on it: no leftover bytes, and a
    /// non-blocking peek finds neither data nor end of stream.
    fn is_open(&self) -> bool {
        if self.pos < self.end {
            return false;
        }
        let mut byte = 0u8;
        // SAFETY: a one-byte peek into a local buffer on a socket this connection owns.
        let n = unsafe {
            libc::recv(self.io.tcp().as_raw_fd(), (&mut byte as *mut u8).cast(), 1, libc::MSG_PEEK | libc::MSG_DONTWAIT)
        };
        n < 0 && io::Error::last_os_error().kind() == io::ErrorKind::WouldBlock
    }

    fn exchange(&mut self, request: &[u8], timeout: Duration, limit: u64, out: &mut Vec<u8>) -> io::Result<(Response, bool)> {
        self.send(request, timeout)?;
        let head = self.response_head()?;
        let (truncated, reusable) = self.body(&head, limit, out)?;
        Ok((Response { code: head.code, retry_after: head.retry_after, truncated }, reusable))
    }

    /// Write the whole request, with `timeout` bounding each read and write until the response
    /// is complete.
    fn send(&mut self, request: &[u8], timeout: Duration) -> io::Result<()> {
        if self.timeout != Some(timeout) {
            self.io.tcp().set_read_timeout(Some(timeout))?;
            self.io.tcp().set_write_timeout(Some(timeout))?;
            self.timeout = Some(timeout);
        }
        self.deadline = Some(Instant::now() + timeout);
        self.io.write_all(request)
    }
}

impl<S: Read> Conn<S> {
    /// A connection over any byte source, nothing buffered, no deadline.
    fn over(io: S) -> Conn<S> {
        Conn { io, store: vec![0; IO_BUFFER_BYTES], pos: 0, end: 0, timeout: None, deadline: None }
    }

    /// The final response's head (1xx other than a protocol switch, which we never ask for,
    /// precede it).
    fn response_head(&mut self) -> io::Result<Head> {
        loop {
            let head = self.read_head()?;
            if !(100..200).contains(&head.code) || head.code == 101 {
                return Ok(head);
            }
        }
    }

    /// The whole body into `out`, at most `limit` bytes; says whether it was cut there and
    /// whether the connection can carry another request.
    fn body(&mut self, head: &Head, limit: u64, out: &mut Vec<u8>) -> io::Result<(bool, bool)> {
        let reusable = !head.close;
        match head.body {
            BodyLength::Empty => Ok((false, reusable)),
            BodyLength::Length(len) => {
                out.reserve(usize::try_from(len.min(limit)).unwrap_or(0));
                self.read_body(len.min(limit), out)?;
                Ok((len > limit, reusable && len <= limit))
            }
            BodyLength::UntilClose => Ok((self.read_to_end(limit, out)?, false)),
            BodyLength::Chunked => {
                let room = usize::try_from(limit).unwrap_or(usize::MAX);
                let mut decoder = ChunkedDecoder::new();
                while let Step::Data(n) = self.chunk_step(&mut decoder, usize::MAX)? {
                    let take = n.min(room.saturating_sub(out.len()));
                    out.extend_from_slice(&self.store[self.pos..self.pos + take]);
                    if take < n {
                        // Cut at the limit: the rest is not read, so the connection is not reused.
                        return Ok((true, false));
                    }
                    self.pos += n;
                }
                Ok((false, reusable))
            }
        }
    }

    /// The next data of a chunked body (left at `store[pos..]`, at most `room` bytes, for the
    /// caller to take) or its end, reading as needed; framing is consumed here.
    fn chunk_step(&mut self, decoder: &mut ChunkedDecoder, room: usize) -> io::Result<Step> {
        loop {
            match decoder.step(&self.store[self.pos..self.end], room).map_err(framing_error)? {
                Step::NeedMore => self.fill()?,
                Step::Framing(n) => self.pos += n,
                Step::End(n) => {
                    self.pos += n;
                    return Ok(Step::End(n));
                }
                data => return Ok(data),
            }
        }
    }

    /// Read more from the connection into the buffer; end of stream is an error (the response
    /// was not complete).
    fn fill(&mut self) -> io::Result<()> {
        if self.deadline.is_some_and(|d| Instant::now() > d) {
            return Err(io::Error::new(io::ErrorKind::TimedOut, "request timed out"));
        }
        if self.pos > 0 {
            self.store.copy_within(self.pos..self.end, 0);
            self.end -= self.pos;
            self.pos = 0;
        }
        if self.end == self.store.len() {
            // Only a head or line longer than the buffer gets here (both are bounded).
            self.store.resize(self.store.len() + IO_BUFFER_BYTES, 0);
        }
        let n = loop {
            match self.io.read(&mut self.store[self.end..]) {
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                other => break other,
            }
        };
        self.end += *n.as_ref().unwrap_or(&0);
        match n? {
            0 => Err(io::Error::new(io::ErrorKind::UnexpectedEof, "connection closed before the response was complete")),
            _ => Ok(()),
        }
    }

    /// The next response head, read as needed.
    fn read_head(&mut self) -> io::Result<Head> {
        loop {
            if let Some((head, len)) = head_at(&self.store[self.pos..self.end])? {
                self.pos += len;
                return Ok(head);
            }
            self.fill()?;
        }
    }

    /// Exactly `n` body bytes into `out`.
    fn read_body(&mut self, mut n: u64, out: &mut Vec<u8>) -> io::Result<()> {
        while n > 0 {
            if self.pos == self.end {
                self.fill()?;
            }
            let avail = &self.store[self.pos..self.end];
            let take = avail.len().min(usize::try_from(n).unwrap_or(usize::MAX));
            out.extend_from_slice(&avail[..take]);
            self.pos += take;
            n -= take as u64;
        }
        Ok(())
    }

    /// The rest of the stream into `out`, at most `limit` bytes; true when cut at the limit.
    fn read_to_end(&mut self, limit: u64, out: &mut Vec<u8>) -> io::Result<bool> {
        loop {
            let avail = &self.store[self.pos..self.end];
            let room = usize::try_from(limit).unwrap_or(usize::MAX).saturating_sub(out.len());
            if avail.len() > room {
                out.extend_from_slice(&avail[..room]);
                return Ok(true);
            }
            out.extend_from_slice(avail);
            self.pos = self.end;
            match self.fill() {
                Ok(()) => {}
                Err(e) if e.kind() == io::ErrorKind::UnexpectedEof => return Ok(false),
                Err(e) => return Err(e),
            }
        }
    }
}

/// What is left of a streamed body.
enum Rest {
    /// This many bytes.
    Length(u64),
    /// Chunks, as far as the decoder has read them.
    Chunked(ChunkedDecoder),
    /// Everything until the connection closes.
    Close,
    /// Nothing: the body ended.
    Done,
}

/// The body of a streamed response (a watch), read as it arrives.
pub struct Body(BodyOf<Io>);

impl Read for Body {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        self.0.read(buf)
    }
}

/// A streamed body over any byte source ([`Body`] is the pool's; [`stream_response`] replays).
struct BodyOf<S> {
    conn: Conn<S>,
    rest: Rest,
}

impl<S: Read> BodyOf<S> {
    /// The body that follows `head` on `conn`.
    fn after(conn: Conn<S>, head: &Head) -> BodyOf<S> {
        let rest = match head.body {
            BodyLength::Empty => Rest::Done,
            BodyLength::Length(n) => Rest::Length(n),
            BodyLength::Chunked => Rest::Chunked(ChunkedDecoder::new()),
            BodyLength::UntilClose => Rest::Close,
        };
        BodyOf { conn, rest }
    }
}

impl<S: Read> Read for BodyOf<S> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let conn = &mut self.conn;
        let left = match &mut self.rest {
            _ if buf.is_empty() => return Ok(0),
            Rest::Done | Rest::Length(0) => return Ok(0),
            Rest::Chunked(decoder) => match conn.chunk_step(decoder, buf.len())? {
                Step::Data(n) => n as u64,
                _ => {
                    self.rest = Rest::Done;
                    return Ok(0);
                }
            },
            Rest::Length(n) => *n,
            Rest::Close => u64::MAX,
        };
        if conn.pos == conn.end {
            match conn.fill() {
                Err(e) if e.kind() == io::ErrorKind::UnexpectedEof && matches!(self.rest, Rest::Close) => return Ok(0),
                other => other?,
            }
        }
        let avail = &conn.store[conn.pos..conn.end];
        let n = avail.len().min(buf.len()).min(usize::try_from(left).unwrap_or(usize::MAX));
        buf[..n].copy_from_slice(&avail[..n]);
        conn.pos += n;
        if let Rest::Length(left) = &mut self.rest {
            *left -= n as u64;
        }
        Ok(n)
    }
}

/// What the response head says about the body and the connection.
struct Head {
    code: u16,
    body: BodyLength,
    close: bool,
    retry_after: Option<String>,
}

/// The response head at the front of `window` and its length; `None` while it is incomplete.
/// httparse reads the status line and fields (obsolete line folding and a bare CR refused);
/// [`http_framing`] refuses a bare LF and decides the body's framing as Go's client does.
fn head_at(window: &[u8]) -> io::Result<Option<(Head, usize)>> {
    let mut fields = [httparse::EMPTY_HEADER; MAX_HEAD_FIELDS];
    let mut response = httparse::Response::new(&mut fields);
    let len = match response.parse(window) {
        Ok(httparse::Status::Complete(len)) if len <= MAX_HEAD_BYTES => len,
        Ok(httparse::Status::Partial) if window.len() <= MAX_HEAD_BYTES => return Ok(None),
        Ok(_) => return Err(framing_error(FramingError::HeadTooLong)),
        Err(e) => return Err(framing_error(FramingError::Head(e))),
    };
    http_framing::require_crlf(&window[..len]).map_err(framing_error)?;
    let (Some(minor), Some(code)) = (response.version, response.code) else {
        return Err(framing_error(FramingError::Head(httparse::Error::Status)));
    };
    let framing = http_framing::response_framing(minor, code, response.headers).map_err(framing_error)?;
    let retry_after = response
        .headers
        .iter()
        .find(|f| f.name.eq_ignore_ascii_case("retry-after"))
        .map(|f| String::from_utf8_lossy(f.value).into_owned());
    Ok(Some((Head { code, body: framing.body, close: framing.close, retry_after }, len)))
}

/// A refused framing as an I/O error whose inner error is the [`FramingError`] (callers and tests
/// can downcast to it).
fn framing_error(e: FramingError) -> io::Error {
    io::Error::new(io::ErrorKind::InvalidData, e)
}

/// Read one response from `source` exactly as a pooled connection reads it: the head, then the
/// body by its framing into `out` (cleared first, at most `limit` bytes); says whether the
/// connection could carry another request. For tests and the `http_response` fuzz target.
pub fn read_response<S: Read>(source: S, limit: u64, out: &mut Vec<u8>) -> io::Result<(Response, bool)> {
    out.clear();
    let mut conn = Conn::over(source);
    let head = conn.response_head()?;
    let (truncated, reusable) = conn.body(&head, limit, out)?;
    Ok((Response { code: head.code, retry_after: head.retry_after, truncated }, reusable))
}

/// Read a response head from `source` as [`Pool::stream`] does and return its body as a stream
/// (whatever the status). For tests and the `http_response` fuzz target.
pub fn stream_response<S: Read>(source: S) -> io::Result<(Response, impl Read)> {
    let mut conn = Conn::over(source);
    let head = conn.response_head()?;
    let response = Response { code: head.code, retry_after: head.retry_after.clone(), truncated: false };
    Ok((response, BodyOf::after(conn, &head)))
}

fn invalid(what: &str) -> io::Error {
    io::Error::new(io::ErrorKind::InvalidData, what.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::net::TcpListener;

    /// A server answering each request on a connection with the next scripted reply, then
    /// closing the connection after `per_connection` replies; returns the connections accepted.
    fn serve(replies: Vec<&'static str>, per_connection: usize) -> (Endpoint, std::thread::JoinHandle<usize>) {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        let handle = std::thread::spawn(move || {
            let mut replies = replies.into_iter();
            let mut connections = 0;
            'accept: while let Ok((mut conn, _)) = listener.accept() {
                connections += 1;
                for _ in 0..per_connection {
                    let mut head = Vec::new();
                    let mut byte = [0u8; 1];
                    while !head.ends_with(b"\r\n\r\n") {
                        if conn.read(&mut byte).unwrap_or(0) == 0 {
                            continue 'accept;
                        }
                        head.push(byte[0]);
                    }
                    let Some(reply) = replies.next() else { break 'accept };
                    conn.write_all(reply.as_bytes()).unwrap();
                }
                if replies.len() == 0 {
                    break;
                }
            }
            connections
        });
        let endpoint =
            Endpoint { host: "127.0.0.1".into(), port, tls: None, connect_timeout: Duration::from_secs(5), proxy: None };
        (endpoint, handle)
    }

    const GET: &[u8] = b"GET / HTTP/1.1\r\nHost: x\r\n\r\n";

    #[test]
    fn content_length_chunked_and_close_delimited_bodies_keep_alive_as_allowed() {
        let (endpoint, server) = serve(
            vec![
                "HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhello",
                "HTTP/1.1 429 Too Many\r\nRetry-After: 3\r\ntransfer-encoding: chunked\r\n\r\n3;x=y\r\nabc\r\n2\r\nde\r\n0\r\nTrailer: t\r\n\r\n",
                "HTTP/1.0 200 OK\r\n\r\nuntil the end",
            ],
            3,
        );
        let pool = Pool::new(endpoint);
        let mut out = Vec::new();
        let r = pool.exchange(GET, Duration::from_secs(5), 100, &mut out).unwrap();
        assert_eq!((r.code, out.as_slice(), r.truncated), (200, &b"hello"[..], false));
        let r = pool.exchange(GET, Duration::from_secs(5), 100, &mut out).unwrap();
        assert_eq!((r.code, r.retry_after.as_deref(), out.as_slice()), (429, Some("3"), &b"abcde"[..]));
        // HTTP/1.0 without a length: the body ends with the connection, which is not reused.
        let r = pool.exchange(GET, Duration::from_secs(5), 100, &mut out).unwrap();
        assert_eq!((r.code, out.as_slice()), (200, &b"until the end"[..]));
        assert!(pool.idle.lock().unwrap().is_empty());
        assert_eq!(server.join().unwrap(), 1, "the first two replies shared one connection");
    }

    #[test]
    fn pipelined_requests_are_answered_in_order_on_one_kept_connection() {
        let (endpoint, server) = serve(
            vec![
                "HTTP/1.1 201 Created\r\nContent-Length: 1\r\n\r\na",
                "HTTP/1.1 409 Conflict\r\ntransfer-encoding: chunked\r\n\r\n2\r\nbc\r\n0\r\n\r\n",
                "HTTP/1.1 201 Created\r\nContent-Length: 1\r\n\r\nd",
            ],
            3,
        );
        let pool = Pool::new(endpoint);
        let mut outs = vec![Vec::new(); 3];
        let requests = vec![GET.to_vec(), GET.to_vec(), GET.to_vec()];
        let answers = pool.exchange_pipelined(&requests, Duration::from_secs(5), 100, &mut outs).unwrap();
        let codes: Vec<u16> = answers.iter().map(|a| a.as_ref().map(|r| r.code).unwrap()).collect();
        assert_eq!(codes, [201, 409, 201]);
        assert_eq!(outs, [b"a".to_vec(), b"bc".to_vec(), b"d".to_vec()]);
        assert_eq!(pool.idle.lock().unwrap().len(), 1, "the connection is kept");
        assert_eq!(server.join().unwrap(), 1);
    }

    #[test]
    fn pipelined_requests_after_the_server_closed_may_have_been_sent() {
        let (endpoint, server) = serve(
            vec![
                "HTTP/1.1 201 Created\r\nConnection: close\r\nContent-Length: 1\r\n\r\na",
                "HTTP/1.1 201 Created\r\nContent-Length: 1\r\n\r\nb",
            ],
            2,
        );
        let pool = Pool::new(endpoint);
        let mut outs = vec![Vec::new(); 2];
        let requests = vec![GET.to_vec(), GET.to_vec()];
        let answers = pool.exchange_pipelined(&requests, Duration::from_secs(5), 100, &mut outs).unwrap();
        assert_eq!(answers[0].as_ref().map(|r| r.code).unwrap(), 201);
        // Nothing after a "close" is read: the second may or may not have been processed.
        assert!(matches!(answers[1], Err(Failure::MaybeSent(_))), "{:?}", answers[1]);
        assert!(pool.idle.lock().unwrap().is_empty(), "a closing connection is not kept");
        assert_eq!(server.join().unwrap(), 1);
    }

    #[test]
    fn pipelining_without_a_connection_sends_nothing() {
        let port = TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
        let endpoint =
            Endpoint { host: "127.0.0.1".into(), port, tls: None, connect_timeout: Duration::from_secs(5), proxy: None };
        let pool = Pool::new(endpoint);
        let mut outs = vec![Vec::new(); 2];
        let requests = vec![GET.to_vec(), GET.to_vec()];
        assert!(matches!(pool.exchange_pipelined(&requests, Duration::from_secs(5), 100, &mut outs), Err(Failure::NotSent(_))));
    }

    #[test]
    fn a_connection_the_server_closed_while_idle_is_replaced_before_sending() {
        let (endpoint, server) =
            serve(vec!["HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok", "HTTP/1.1 201 Created\r\nContent-Length: 0\r\n\r\n"], 1);
        let pool = Pool::new(endpoint);
        let mut out = Vec::new();
        assert_eq!(pool.exchange(GET, Duration::from_secs(5), 100, &mut out).unwrap().code, 200);
        // Wait (bounded) until the server's close is visible, as it is when a real server drops an idle one.
        let give_up = Instant::now() + Duration::from_secs(10);
        while pool.idle.lock().unwrap().last().is_some_and(Conn::is_open) {
            assert!(Instant::now() < give_up, "the server's close never showed on the idle connection");
            std::thread::sleep(Duration::from_millis(5));
        }
        assert_eq!(pool.exchange(GET, Duration::from_secs(5), 100, &mut out).unwrap().code, 201);
        assert_eq!(server.join().unwrap(), 2);
    }

    #[test]
    fn bodies_over_the_limit_are_cut_and_the_connection_dropped() {
        let (endpoint, server) = serve(vec!["HTTP/1.1 500 Oops\r\nContent-Length: 10\r\n\r\n0123456789"], 1);
        let pool = Pool::new(endpoint);
        let mut out = Vec::new();
        let r = pool.exchange(GET, Duration::from_secs(5), 4, &mut out).unwrap();
        assert_eq!((r.code, r.truncated, out.as_slice()), (500, true, &b"0123"[..]));
        assert!(pool.idle.lock().unwrap().is_empty());
        server.join().unwrap();
    }

    #[test]
    fn nothing_listening_is_not_sent_and_a_cut_response_maybe_sent() {
        let port = TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
        let endpoint =
            Endpoint { host: "127.0.0.1".into(), port, tls: None, connect_timeout: Duration::from_secs(5), proxy: None };
        let err = Pool::new(endpoint).exchange(GET, Duration::from_secs(5), 100, &mut Vec::new()).unwrap_err();
        assert!(matches!(&err, Failure::NotSent(e) if e.kind() == io::ErrorKind::ConnectionRefused), "{err:?}");
        let (endpoint, server) = serve(vec!["HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nshort"], 1);
        let err = Pool::new(endpoint).exchange(GET, Duration::from_secs(5), 100, &mut Vec::new()).unwrap_err();
        assert!(matches!(&err, Failure::MaybeSent(e) if e.kind() == io::ErrorKind::UnexpectedEof), "{err:?}");
        server.join().unwrap();
    }

    /// The framing error inside a failed exchange.
    fn framing_failure(failure: &Failure) -> Option<FramingError> {
        match failure {
            Failure::MaybeSent(e) => e.get_ref().and_then(|inner| inner.downcast_ref::<FramingError>()).cloned(),
            Failure::NotSent(_) => None,
        }
    }

    /// Every malformed or ambiguous response from a server on loopback fails the exchange with
    /// a typed error (never a guess at where the body ends) and its connection is dropped. The
    /// comment on each row says what Go's client (transfer.go, chunked.go, textproto) does.
    #[test]
    fn malformed_responses_are_typed_errors_and_the_connection_is_dropped() {
        use httparse::Error as H;
        let long_head: &'static str = Box::leak(format!("HTTP/1.1 200 OK\r\nX: {}\r\n\r\n", "a".repeat(70_000)).into_boxed_str());
        let many_fields: &'static str = Box::leak(
            format!("HTTP/1.1 200 OK\r\n{}Content-Length: 0\r\n\r\n", "X: y\r\n".repeat(MAX_HEAD_FIELDS)).into_boxed_str(),
        );
        let greedy: &'static str = Box::leak(
            format!(
                "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n{}0\r\n\r\n",
                format!("1;{}\r\nX\r\n", "e".repeat(200)).repeat(200)
            )
            .into_boxed_str(),
        );
        let cases: &[(&str, &'static str, FramingError)] = &[
            (
                "differing lengths (Go: error)",
                "HTTP/1.1 200 OK\r\nContent-Length: 2\r\nContent-Length: 5\r\n\r\nhello",
                FramingError::ConflictingContentLength,
            ),
            ("sign (Go: error)", "HTTP/1.1 200 OK\r\nContent-Length: +5\r\n\r\nhello", FramingError::BadContentLength),
            ("negative (Go: error)", "HTTP/1.1 200 OK\r\nContent-Length: -1\r\n\r\n", FramingError::BadContentLength),
            ("not digits (Go: error)", "HTTP/1.1 200 OK\r\nContent-Length: 5a\r\n\r\nhello", FramingError::BadContentLength),
            ("empty (Go: error)", "HTTP/1.1 200 OK\r\nContent-Length: \r\n\r\n", FramingError::BadContentLength),
            (
                "past 2^63-1 (Go: error)",
                "HTTP/1.1 200 OK\r\nContent-Length: 9223372036854775808\r\n\r\n",
                FramingError::BadContentLength,
            ),
            ("comma list (Go: error)", "HTTP/1.1 200 OK\r\nContent-Length: 5, 5\r\n\r\nhello", FramingError::BadContentLength),
            ("on a 204 too (Go: error)", "HTTP/1.1 204 No Content\r\nContent-Length: x\r\n\r\n", FramingError::BadContentLength),
            (
                "unknown coding (Go: error)",
                "HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip\r\n\r\n",
                FramingError::UnsupportedTransferEncoding,
            ),
            (
                "coding list (Go: error)",
                "HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip, chunked\r\n\r\n0\r\n\r\n",
                FramingError::UnsupportedTransferEncoding,
            ),
            (
                "two coding lines (Go: error)",
                "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n",
                FramingError::UnsupportedTransferEncoding,
            ),
            (
                "HTTP/1.0 coding (Go: ignores it)",
                "HTTP/1.0 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n",
                FramingError::TransferEncodingInHttp10,
            ),
            (
                "obs-fold (Go: joins)",
                "HTTP/1.1 200 OK\r\nX: a\r\n b\r\nContent-Length: 0\r\n\r\n",
                FramingError::Head(H::HeaderName),
            ),
            ("bare LF (Go: accepts)", "HTTP/1.1 200 OK\nContent-Length: 0\n\n", FramingError::BareLf),
            (
                "bare CR (Go: error)",
                "HTTP/1.1 200 OK\r\nX: a\rb\r\nContent-Length: 0\r\n\r\n",
                FramingError::Head(H::HeaderValue),
            ),
            (
                "NUL in a value (Go: error)",
                "HTTP/1.1 200 OK\r\nX: a\0b\r\nContent-Length: 0\r\n\r\n",
                FramingError::Head(H::HeaderValue),
            ),
            (
                "space before the colon (Go: error)",
                "HTTP/1.1 200 OK\r\nContent-Length : 0\r\n\r\n",
                FramingError::Head(H::HeaderName),
            ),
            ("four-digit status (Go: error)", "HTTP/1.1 2000 OK\r\nContent-Length: 0\r\n\r\n", FramingError::Head(H::Status)),
            ("not HTTP/1.x (Go: error)", "ICY 200 OK\r\nContent-Length: 0\r\n\r\n", FramingError::Head(H::Version)),
            ("too many fields (Go: 10 MiB of head)", many_fields, FramingError::Head(H::TooManyHeaders)),
            ("head over 64 KiB (Go: 10 MiB)", long_head, FramingError::HeadTooLong),
            // Chunked bodies (chunked.go readChunkLine, parseHexUint, beginChunk).
            (
                "chunk line with bare LF (Go: error)",
                "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n3\nabc\r\n0\r\n\r\n",
                FramingError::ChunkLineBareLf,
            ),
            (
                "chunk size with sign (Go: error)",
                "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n+3\r\nabc\r\n0\r\n\r\n",
                FramingError::BadChunkSize,
            ),
            (
                "empty chunk size (Go: error)",
                "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n\r\nabc\r\n0\r\n\r\n",
                FramingError::EmptyChunkSize,
            ),
            (
                "CR in a chunk line (Go: error)",
                "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n3;a\rb\r\nabc\r\n0\r\n\r\n",
                FramingError::ChunkLineCr,
            ),
            (
                "chunk of 17 digits (Go: error)",
                "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n00000000000000003\r\nabc\r\n0\r\n\r\n",
                FramingError::ChunkSizeTooLarge,
            ),
            (
                "data not ended by CRLF (Go: error)",
                "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabcd\r\n0\r\n\r\n",
                FramingError::ChunkDataNotEnded,
            ),
            (
                "trailer with bare LF (Go: accepts)",
                "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n0\r\nT: 1\n\r\n",
                FramingError::BareLf,
            ),
            ("extensions far beyond the data (Go: error)", greedy, FramingError::ChunkOverhead),
        ];
        for (name, reply, want) in cases {
            let (endpoint, server) = serve(vec![reply], 1);
            let pool = Pool::new(endpoint);
            let mut out = Vec::new();
            let failure = pool.exchange(GET, Duration::from_secs(5), 1 << 20, &mut out).expect_err(name);
            assert_eq!(framing_failure(&failure).as_ref(), Some(want), "{name}: {failure:?}");
            assert!(pool.idle.lock().unwrap().is_empty(), "{name}: the connection was kept");
            server.join().unwrap();
        }
    }

    /// What Go's client accepts and so must this one, with the connection kept or not as Go
    /// (or, for a length beside a coding, more cautiously) decides.
    #[test]
    fn well_framed_responses_are_read_and_kept_as_go_keeps_them() {
        let cases: &[(&str, &'static str, &[u8], bool)] = &[
            ("identical lengths", "HTTP/1.1 200 OK\r\nContent-Length: 2\r\ncontent-length: 2\r\n\r\nok", b"ok", true),
            (
                "close in a token list",
                "HTTP/1.1 200 OK\r\nConnection: keep-alive, close\r\nContent-Length: 2\r\n\r\nok",
                b"ok",
                false,
            ),
            ("HTTP/1.0 keep-alive", "HTTP/1.0 200 OK\r\nConnection: Keep-Alive\r\nContent-Length: 2\r\n\r\nok", b"ok", true),
            ("HTTP/1.0", "HTTP/1.0 200 OK\r\nContent-Length: 2\r\n\r\nok", b"ok", false),
            (
                "coding beside a length: the coding wins",
                "HTTP/1.1 200 OK\r\nContent-Length: 100\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nok\r\n0\r\n\r\n",
                b"ok",
                false,
            ),
            (
                "trailer fields",
                "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2;x=1\r\nok\r\n0\r\nT: 1\r\n\r\n",
                b"ok",
                true,
            ),
            ("no reason phrase", "HTTP/1.1 200\r\nContent-Length: 2\r\n\r\nok", b"ok", true),
            ("a 304 with a length", "HTTP/1.1 304 Not Modified\r\nContent-Length: 10\r\n\r\n", b"", true),
        ];
        for (name, reply, body, kept) in cases {
            let (endpoint, server) = serve(vec![reply], 1);
            let pool = Pool::new(endpoint);
            let mut out = Vec::new();
            pool.exchange(GET, Duration::from_secs(5), 100, &mut out).unwrap_or_else(|e| panic!("{name}: {e:?}"));
            assert_eq!((out.as_slice(), pool.idle.lock().unwrap().len() == 1), (*body, *kept), "{name}");
            drop(pool);
            server.join().unwrap();
        }
    }

    /// A watch body streams through the same decoder: chunks as they arrive, a framing error as a
    /// typed read error, and replaying the same bytes gives the same result as the pool.
    #[test]
    fn streamed_bodies_decode_chunks_and_refuse_bad_framing() {
        let (endpoint, server) =
            serve(vec!["HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n7\r\n{\"a\":1}\r\n2\r\n\n\n\r\n0\r\n\r\n"], 1);
        let pool = Pool::new(endpoint);
        let (response, body) = pool.stream(GET, Duration::from_secs(5), None, 100, &mut Vec::new()).unwrap();
        let mut text = String::new();
        body.expect("2xx streams").read_to_string(&mut text).unwrap();
        assert_eq!((response.code, text.as_str()), (200, "{\"a\":1}\n\n"));
        server.join().unwrap();

        let bad: &[u8] = b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nok\r\n+1\r\nx\r\n0\r\n\r\n";
        let (_, mut body) = stream_response(bad).unwrap();
        let mut data = Vec::new();
        let err = body.read_to_end(&mut data).unwrap_err();
        assert_eq!(err.get_ref().and_then(|e| e.downcast_ref::<FramingError>()), Some(&FramingError::BadChunkSize));
        assert_eq!(data, b"ok");
        let err = read_response(bad, 100, &mut data).unwrap_err();
        assert_eq!(err.get_ref().and_then(|e| e.downcast_ref::<FramingError>()), Some(&FramingError::BadChunkSize));
        // Cut short: the end of the stream before the last chunk is an error, not an end.
        let (_, mut body) = stream_response(&b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nok\r\n"[..]).unwrap();
        assert_eq!(body.read_to_end(&mut Vec::new()).unwrap_err().kind(), io::ErrorKind::UnexpectedEof);
    }

    /// A `CONNECT` proxy on loopback for one connection: it records the request head, answers
    /// `reply`, and on 2xx relays bytes to the requested target both ways.
    fn connect_proxy(reply: &'static str) -> (u16, std::thread::JoinHandle<String>) {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        let handle = std::thread::spawn(move || {
            let (mut client, _) = listener.accept().unwrap();
            let mut head = Vec::new();
            let mut byte = [0u8; 1];
            while !head.ends_with(b"\r\n\r\n") && client.read(&mut byte).unwrap() == 1 {
                head.push(byte[0]);
            }
            let head = String::from_utf8(head).unwrap();
            client.write_all(reply.as_bytes()).unwrap();
            if reply.starts_with("HTTP/1.1 200") {
                let target = head.split(' ').nth(1).unwrap();
                let mut server = TcpStream::connect(target).unwrap();
                let (mut up, mut down) = (client.try_clone().unwrap(), server.try_clone().unwrap());
                let relay = std::thread::spawn(move || {
                    let _ = io::copy(&mut up, &mut server);
                    let _ = server.shutdown(std::net::Shutdown::Write);
                });
                let _ = io::copy(&mut down, &mut client);
                let _ = client.shutdown(std::net::Shutdown::Both);
                relay.join().unwrap();
            }
            head
        });
        (port, handle)
    }

    #[test]
    fn requests_go_through_a_connect_tunnel_with_proxy_authorization() {
        let (mut endpoint, server) = serve(vec!["HTTP/1.1 200 OK\r\nContent-Length: 7\r\n\r\ntunnels"], 1);
        let (proxy_port, proxy) = connect_proxy("HTTP/1.1 200 Connection established\r\n\r\n");
        let target = format!("127.0.0.1:{}", endpoint.port);
        endpoint.proxy = Some(Proxy::new("127.0.0.1", proxy_port, Some(b"user:pass"), "127.0.0.1", endpoint.port));
        let pool = Pool::new(endpoint);
        let mut out = Vec::new();
        let r = pool.exchange(GET, Duration::from_secs(5), 100, &mut out).unwrap();
        assert_eq!((r.code, out.as_slice()), (200, &b"tunnels"[..]));
        drop(pool);
        assert_eq!(server.join().unwrap(), 1);
        assert_eq!(
            proxy.join().unwrap(),
            format!("CONNECT {target} HTTP/1.1\r\nHost: {target}\r\nProxy-Authorization: Basic dXNlcjpwYXNz\r\n\r\n")
        );
    }

    #[test]
    fn a_refused_tunnel_is_not_sent() {
        let (proxy_port, proxy_thread) = connect_proxy("HTTP/1.1 407 Proxy Authentication Required\r\n\r\n");
        let proxy = Some(Proxy::new("127.0.0.1", proxy_port, None, "::1", 6443));
        let endpoint = Endpoint { host: "::1".into(), port: 6443, tls: None, connect_timeout: Duration::from_secs(5), proxy };
        let err = Pool::new(endpoint).exchange(GET, Duration::from_secs(5), 100, &mut Vec::new()).unwrap_err();
        assert!(matches!(&err, Failure::NotSent(e) if e.to_string().contains("407 Proxy Authentication Required")), "{err:?}");
        assert!(proxy_thread.join().unwrap().starts_with("CONNECT [::1]:6443 HTTP/1.1\r\n"));
    }
}
