//! HTTP/1.1 message framing, shared by the secure port's request reader
//! ([`crate::shell::serving::http`]) and the API client's response reader
//! ([`crate::shell::kube::http1`]): where a message body ends (RFC 9112 section 6.3), whether the
//! connection may carry another message, and the chunked transfer coding (section 7.1).
//!
//! Heads are parsed by `httparse` (the parser under hyper and ureq); this module adds what it
//! leaves to its caller, each rule taken from Go's `net/http`, which the API server and
//! kube-scheduler speak (`src/net/http/transfer.go` `parseTransferEncoding`/`fixLength`/
//! `parseContentLength`/`shouldClose`, `src/net/http/internal/chunked.go`, Go 1.23):
//! - `Content-Length` is digits only (`+5`, `-1`, `5, 5`, empty or past 2^63-1 are refused);
//!   repeated field lines must carry the same value, or the message is refused (they are the
//!   request-smuggling signature of RFC 9112 section 11.2).
//! - `Transfer-Encoding` is one field line saying `chunked`; anything else is unsupported.
//! - `Connection` is a token list: `keep-alive, close` closes.
//! - A chunk-size line ends in CRLF with no other CR, its size is 1 to 16 hex digits, its
//!   extension is ignored, and framing overhead far beyond the data is refused.
//!
//! Where Go is lenient and a front proxy could read the same bytes differently, this is
//! stricter and says so: a bare LF ending a head line (Go and httparse accept it, RFC 9112
//! section 2.2 allows refusing it) and obsolete line folding (Go joins the lines; httparse, as
//! configured here, refuses) are errors on both sides.

use std::fmt;

/// Longest chunk-size line without its CRLF, as Go's `maxLineLength`.
const MAX_CHUNK_LINE_BYTES: usize = 4096;
/// Longest trailer section: Go reads it only when its end is within the 4 KiB read buffer.
const MAX_TRAILER_BYTES: usize = 4096;
/// Trailer fields kept apart while checking a trailer section's syntax.
const MAX_TRAILER_FIELDS: usize = 32;
/// Framing bytes allowed beyond 16 per chunk plus twice the chunk's data (Go's `excess`).
const MAX_CHUNK_OVERHEAD: u64 = 16 * 1024;

/// Why a message's framing was refused. Each is an error rather than a guess at where the body
/// ends: a guess that differs from a proxy's is how requests are smuggled.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FramingError {
    /// The head (start line and fields) is not HTTP/1.x as httparse reads it: bad request or
    /// status line, field name or value, obsolete line folding, a bare CR.
    Head(httparse::Error),
    /// A head line ends in a bare LF where CRLF is required.
    BareLf,
    /// The head is longer than the reader's limit.
    HeadTooLong,
    /// A `Content-Length` that is not a decimal number below 2^63.
    BadContentLength,
    /// Several `Content-Length` field lines with different values.
    ConflictingContentLength,
    /// A request with both `Transfer-Encoding` and `Content-Length`.
    TransferEncodingWithContentLength,
    /// `Transfer-Encoding` in an HTTP/1.0 message, whose framing RFC 9112 section 6.1 calls faulty.
    TransferEncodingInHttp10,
    /// A transfer coding other than a single `chunked`.
    UnsupportedTransferEncoding,
    /// A chunk-size line ending in a bare LF.
    ChunkLineBareLf,
    /// A CR inside a chunk-size line.
    ChunkLineCr,
    /// A chunk-size line over 4 KiB.
    ChunkLineTooLong,
    /// A chunk-size line without a size.
    EmptyChunkSize,
    /// A chunk size with a byte that is not a hex digit.
    BadChunkSize,
    /// A chunk size of more than 16 hex digits.
    ChunkSizeTooLarge,
    /// Chunk data not followed by CRLF.
    ChunkDataNotEnded,
    /// Far more framing bytes (size lines, extensions) than data.
    ChunkOverhead,
    /// A trailer section over 4 KiB.
    TrailerTooLong,
    /// A trailer section that is not a valid field section.
    Trailer(httparse::Error),
}

impl fmt::Display for FramingError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            FramingError::Head(e) => write!(f, "malformed HTTP head: {e}"),
            FramingError::BareLf => f.write_str("HTTP head line ends with bare LF"),
            FramingError::HeadTooLong => f.write_str("HTTP head too long"),
            FramingError::BadContentLength => f.write_str("bad Content-Length"),
            FramingError::ConflictingContentLength => f.write_str("message cannot contain multiple Content-Length headers"),
            FramingError::TransferEncodingWithContentLength => {
                f.write_str("message cannot contain both Transfer-Encoding and Content-Length")
            }
            FramingError::TransferEncodingInHttp10 => f.write_str("Transfer-Encoding in an HTTP/1.0 message"),
            FramingError::UnsupportedTransferEncoding => f.write_str("unsupported transfer encoding"),
            FramingError::ChunkLineBareLf => f.write_str("chunked line ends with bare LF"),
            FramingError::ChunkLineCr => f.write_str("invalid CR in chunked line"),
            FramingError::ChunkLineTooLong => f.write_str("chunked line too long"),
            FramingError::EmptyChunkSize => f.write_str("empty hex number for chunk length"),
            FramingError::BadChunkSize => f.write_str("invalid byte in chunk length"),
            FramingError::ChunkSizeTooLarge => f.write_str("http chunk length too large"),
            FramingError::ChunkDataNotEnded => f.write_str("malformed chunked encoding"),
            FramingError::ChunkOverhead => f.write_str("chunked encoding contains too much non-data"),
            FramingError::TrailerTooLong => f.write_str("suspiciously long trailer after chunked body"),
            FramingError::Trailer(e) => write!(f, "malformed trailer: {e}"),
        }
    }
}

impl std::error::Error for FramingError {}

/// Refuse a head with a line ending in a bare LF. httparse accepts LF alone as a line end (RFC
/// 9112 section 2.2 lets a recipient do so); a proxy in front may not, so here CRLF is required.
/// A bare CR is refused by httparse itself.
pub fn require_crlf(head: &[u8]) -> Result<(), FramingError> {
    let mut previous = 0u8;
    for &b in head {
        if b == b'\n' && previous != b'\r' {
            return Err(FramingError::BareLf);
        }
        previous = b;
    }
    Ok(())
}

/// How a message's body is delimited.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BodyLength {
    /// No body (a request without length fields; a 1xx, 204 or 304 response).
    Empty,
    /// Exactly this many bytes.
    Length(u64),
    /// The chunked transfer coding.
    Chunked,
    /// Everything until the connection closes (a response without length fields).
    UntilClose,
}

/// A message's body length and whether its connection must close after it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Framing {
    pub body: BodyLength,
    pub close: bool,
}

/// The framing of a response to a request other than HEAD (the API client sends none), as Go's
/// `readTransfer` decides it: `minor` is the HTTP/1.x minor version, `code` the status.
///
/// Both `Transfer-Encoding: chunked` and `Content-Length`: the chunked coding wins as in Go
/// (`fixLength` drops the length), and, unlike Go, the connection is not reused: RFC 9112 section
/// 6.3 calls such a message a possible smuggling or response-splitting attempt, and the API
/// server never sends one.
pub fn response_framing(minor: u8, code: u16, fields: &[httparse::Header<'_>]) -> Result<Framing, FramingError> {
    let mut close = connection_close(minor, fields);
    let length = content_length(fields)?;
    let chunked = transfer_encoding(minor, fields)?;
    let body = if (100..200).contains(&code) || code == 204 || code == 304 {
        BodyLength::Empty
    } else if chunked {
        close |= length.is_some();
        BodyLength::Chunked
    } else if let Some(n) = length {
        BodyLength::Length(n)
    } else {
        close = true;
        BodyLength::UntilClose
    };
    Ok(Framing { body, close })
}

/// The framing of a request. Stricter than Go's server, which reads a chunked body and drops a
/// `Content-Length` beside it: RFC 9112 section 6.1 lets a server refuse such a request (and
/// requires closing the connection after it either way), and refusing leaves no way for a front
/// proxy that reads the length to disagree about where the next request starts.
pub fn request_framing(minor: u8, fields: &[httparse::Header<'_>]) -> Result<Framing, FramingError> {
    let close = connection_close(minor, fields);
    let length = content_length(fields)?;
    let has_te = fields.iter().any(|f| f.name.eq_ignore_ascii_case("transfer-encoding"));
    if has_te && length.is_some() {
        return Err(FramingError::TransferEncodingWithContentLength);
    }
    let body = if transfer_encoding(minor, fields)? {
        BodyLength::Chunked
    } else {
        length.map_or(BodyLength::Empty, BodyLength::Length)
    };
    Ok(Framing { body, close })
}

/// The `Content-Length`, if any (Go's `fixLength` and `parseContentLength`): repeated field
/// lines must be identical (`Content-Length: 5` twice is 5; `5` and `6` are refused, and so are
/// `5` and `05`, as Go compares the text), and the value is 1 to 19 decimal digits below 2^63
/// (Go's `strconv.ParseUint(cl, 10, 63)`): no sign, no comma list, not empty.
pub fn content_length(fields: &[httparse::Header<'_>]) -> Result<Option<u64>, FramingError> {
    let mut values = fields.iter().filter(|f| f.name.eq_ignore_ascii_case("content-length")).map(|f| f.value);
    let Some(first) = values.next() else { return Ok(None) };
    if values.any(|other| other != first) {
        return Err(FramingError::ConflictingContentLength);
    }
    if first.is_empty() || !first.iter().all(u8::is_ascii_digit) {
        return Err(FramingError::BadContentLength);
    }
    // httparse trims the value, so only digits remain; 2^63 - 1 has 19 of them.
    let mut n: u64 = 0;
    for &digit in first {
        n = n.checked_mul(10).and_then(|n| n.checked_add(u64::from(digit - b'0'))).ok_or(FramingError::BadContentLength)?;
    }
    if n > i64::MAX as u64 {
        return Err(FramingError::BadContentLength);
    }
    Ok(Some(n))
}

/// Whether the body is chunked (Go's `parseTransferEncoding`): one field line whose value is
/// `chunked` (any case); more lines or another coding are unsupported. In HTTP/1.0 any
/// `Transfer-Encoding` is refused (Go ignores it there; RFC 9112 section 6.1 says the framing is
/// then faulty).
pub fn transfer_encoding(minor: u8, fields: &[httparse::Header<'_>]) -> Result<bool, FramingError> {
    let mut values = fields.iter().filter(|f| f.name.eq_ignore_ascii_case("transfer-encoding")).map(|f| f.value);
    let Some(value) = values.next() else { return Ok(false) };
    if minor == 0 {
        return Err(FramingError::TransferEncodingInHttp10);
    }
    if values.next().is_some() || !value.eq_ignore_ascii_case(b"chunked") {
        return Err(FramingError::UnsupportedTransferEncoding);
    }
    Ok(true)
}

/// Whether the connection closes after this message (Go's `shouldClose`): a `close` token in any
/// `Connection` field line; in HTTP/1.0 unless a `keep-alive` token asks otherwise.
pub fn connection_close(minor: u8, fields: &[httparse::Header<'_>]) -> bool {
    let has = |token: &[u8]| {
        fields
            .iter()
            .filter(|f| f.name.eq_ignore_ascii_case("connection"))
            .flat_map(|f| f.value.split(|&b| b == b','))
            .any(|t| t.trim_ascii().eq_ignore_ascii_case(token))
    };
    has(b"close") || (minor == 0 && !has(b"keep-alive"))
}

/// What the next bytes of a chunked body are.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Step {
    /// The first `n` input bytes (1 to the `room` given) are body data; the decoder counts them
    /// as taken, so the caller must consume exactly these.
    Data(usize),
    /// The first `n` input bytes were framing (a chunk-size line, the CRLF after a chunk's data);
    /// the caller consumes them.
    Framing(usize),
    /// The last chunk and its trailer section ended in the first `n` input bytes: the body is
    /// complete; the caller consumes them.
    End(usize),
    /// The input holds no complete framing element: more is needed (nothing was consumed).
    NeedMore,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum ChunkState {
    SizeLine,
    Data(u64),
    DataEnd,
    Trailer,
    Done,
}

/// An incremental decoder of the chunked transfer coding: the caller hands it the unconsumed
/// input (which may end anywhere) and consumes what each [`Step`] says. Pure, so a body split at
/// any point decodes the same (the `chunked_body` fuzz target checks this).
#[derive(Debug, Clone)]
pub struct ChunkedDecoder {
    state: ChunkState,
    excess: u64,
}

impl Default for ChunkedDecoder {
    fn default() -> Self {
        ChunkedDecoder::new()
    }
}

impl ChunkedDecoder {
    pub fn new() -> ChunkedDecoder {
        ChunkedDecoder { state: ChunkState::SizeLine, excess: 0 }
    }

    /// Whether the last chunk and the trailer section were read.
    pub fn is_done(&self) -> bool {
        self.state == ChunkState::Done
    }

    /// Decode the front of `input`; data steps are at most `room` bytes (`room` must be > 0).
    pub fn step(&mut self, input: &[u8], room: usize) -> Result<Step, FramingError> {
        match self.state {
            ChunkState::Done => Ok(Step::End(0)),
            ChunkState::Data(left) => {
                let n = input.len().min(room).min(usize::try_from(left).unwrap_or(usize::MAX));
                if n == 0 {
                    return Ok(Step::NeedMore);
                }
                let left = left - n as u64;
                self.state = if left == 0 { ChunkState::DataEnd } else { ChunkState::Data(left) };
                Ok(Step::Data(n))
            }
            ChunkState::DataEnd => match input.get(..2) {
                None if input.first().is_none_or(|&b| b == b'\r') => Ok(Step::NeedMore),
                Some(b"\r\n") => {
                    self.state = ChunkState::SizeLine;
                    Ok(Step::Framing(2))
                }
                _ => Err(FramingError::ChunkDataNotEnded),
            },
            ChunkState::SizeLine => {
                let Some(lf) = input.iter().take(MAX_CHUNK_LINE_BYTES + 2).position(|&b| b == b'\n') else {
                    return match input.len() > MAX_CHUNK_LINE_BYTES + 1 {
                        true => Err(FramingError::ChunkLineTooLong),
                        false => Ok(Step::NeedMore),
                    };
                };
                let size = self.size_line(&input[..=lf])?;
                self.state = if size == 0 { ChunkState::Trailer } else { ChunkState::Data(size) };
                Ok(Step::Framing(lf + 1))
            }
            ChunkState::Trailer => self.trailer(input),
        }
    }

    /// A whole chunk-size line (with its LF): its size, as Go's `readChunkLine`, `removeChunkExtension`
    /// and `parseHexUint` read it, and the overhead account of Go's `beginChunk`.
    fn size_line(&mut self, line: &[u8]) -> Result<u64, FramingError> {
        match line.iter().position(|&b| b == b'\r') {
            None => return Err(FramingError::ChunkLineBareLf),
            Some(cr) if cr != line.len() - 2 => return Err(FramingError::ChunkLineCr),
            Some(_) => {}
        }
        let line = &line[..line.len() - 2];
        if line.len() >= MAX_CHUNK_LINE_BYTES {
            return Err(FramingError::ChunkLineTooLong);
        }
        self.excess += line.len() as u64 + 2;
        let line = line.trim_ascii_end();
        let digits = line.split(|&b| b == b';').next().unwrap_or_default();
        if digits.is_empty() {
            return Err(FramingError::EmptyChunkSize);
        }
        let mut size: u64 = 0;
        for (i, &b) in digits.iter().enumerate() {
            let digit = (b as char).to_digit(16).ok_or(FramingError::BadChunkSize)?;
            if i == 16 {
                return Err(FramingError::ChunkSizeTooLarge);
            }
            size = (size << 4) | u64::from(digit);
        }
        // 16 bytes of overhead per chunk and twice its data are free; beyond that, 16 KiB.
        self.excess = self.excess.saturating_sub(size.saturating_mul(2).saturating_add(16));
        if self.excess > MAX_CHUNK_OVERHEAD {
            return Err(FramingError::ChunkOverhead);
        }
        Ok(size)
    }

    /// The trailer section after the last chunk: CRLF alone, or field lines httparse accepts,
    /// each ending in CRLF, then CRLF; at most 4 KiB (Go's `readTrailer`). The fields are checked
    /// and dropped: nothing here reads trailers.
    fn trailer(&mut self, input: &[u8]) -> Result<Step, FramingError> {
        let end = match input.windows(2).position(|w| w == b"\r\n") {
            Some(0) => Some(2),
            _ => input.windows(4).position(|w| w == b"\r\n\r\n").map(|i| i + 4),
        };
        // A bare LF is refused wherever it is in the first 4 KiB, before the section's end or
        // size is judged: the same error however the input is split.
        require_crlf(&input[..end.unwrap_or(input.len()).min(MAX_TRAILER_BYTES)])?;
        let Some(end) = end.filter(|&end| end <= MAX_TRAILER_BYTES) else {
            return match input.len() >= MAX_TRAILER_BYTES || end.is_some() {
                true => Err(FramingError::TrailerTooLong),
                false => Ok(Step::NeedMore),
            };
        };
        let section = &input[..end];
        let mut fields = [httparse::EMPTY_HEADER; MAX_TRAILER_FIELDS];
        match httparse::parse_headers(section, &mut fields) {
            Ok(httparse::Status::Complete((n, _))) if n == end => {}
            Ok(_) => return Err(FramingError::Trailer(httparse::Error::NewLine)),
            Err(e) => return Err(FramingError::Trailer(e)),
        }
        self.state = ChunkState::Done;
        Ok(Step::End(end))
    }
}

#[cfg(test)]
mod tests;
