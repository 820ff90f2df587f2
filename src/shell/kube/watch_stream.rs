//! A watch response read as a stream of typed events: a sequence of JSON values, framed as
//! client-go frames them (`k8s.io/apimachinery/pkg/util/framer` `NewJSONFramedReader`: one
//! value after another, newlines optional), each bounded in size and decoded into a
//! [`WatchEvent`] with Go's rules. How a stream ends early is classified the way client-go's
//! `StreamWatcher.receive` (`k8s.io/apimachinery/pkg/watch/streamwatcher.go`) does, because the
//! reflector reacts differently: a cut stream ends the watch like a close, anything that is not a
//! watch event is an error.

use crate::core::api::{self, Object};
use crate::core::gojson;
use crate::shell::kube::api_error::ApiError;
use crate::shell::kube::decode::decode_object;
use serde::de::DeserializeOwned;
use serde::Deserialize;
use serde_json::value::RawValue;
use std::fmt;
use std::io::{BufRead, BufReader, ErrorKind, Read};
use std::marker::PhantomData;

/// Largest single watch event; a real event is one object, so anything bigger is garbage.
pub const MAX_WATCH_LINE_BYTES: usize = 16 * 1024 * 1024;
/// Size of the read buffer of each connection (the HTTP client uses it for its buffers too).
pub const IO_BUFFER_BYTES: usize = 16 * 1024;

/// One event of a watch stream.
#[derive(Debug, Clone, PartialEq)]
pub enum WatchEvent<T> {
    /// The object appeared (or existed when the watch started from an old version).
    Added(T),
    /// The object changed; carries its new state.
    Modified(T),
    /// The object is gone; carries its last state.
    Deleted(T),
    /// Progress marker: nothing changed, but the stream is now at this version.
    Bookmark { resource_version: String },
    /// The server ended the watch with a Status (e.g. code 410 when the version is too old).
    Error(api::Status),
}

/// Why a watch stream stopped before the server ended it cleanly.
#[derive(Debug, Clone)]
pub enum StreamError {
    /// Cut off: the stream ended in the middle of an event, the connection broke, or nothing
    /// arrived within the idle timeout. client-go ends the watch quietly in these cases
    /// (`io.ErrUnexpectedEOF`, `net.IsProbableEOF`, `net.IsTimeout` in `receive`), so the
    /// reflector treats them as a close.
    Ended(ApiError),
    /// Something that is not a watch event arrived (malformed JSON, an unknown event type, an
    /// object that does not decode, a response that is not a watch at all), or reading failed
    /// otherwise. client-go sends an ERROR event for these (code 500, `ClientWatchDecoding`).
    Failed(ApiError),
}

impl StreamError {
    /// The error inside.
    pub fn error(&self) -> &ApiError {
        match self {
            StreamError::Ended(e) | StreamError::Failed(e) => e,
        }
    }
}

impl fmt::Display for StreamError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.error().fmt(f)
    }
}

/// Decode one watch event, `{"type": "...", "object": {...}}`. Pure, so it can be fuzzed; errors
/// carry no request (the stream adds it).
pub fn decode_watch_line<T: DeserializeOwned + Object + 'static>(line: &[u8]) -> Result<WatchEvent<T>, ApiError> {
    #[derive(Deserialize)]
    struct RawEvent<'a> {
        #[serde(rename = "type")]
        type_: String,
        #[serde(borrow)]
        object: &'a RawValue,
    }
    #[derive(Deserialize, Default)]
    #[serde(default)]
    struct BookmarkObject {
        metadata: BookmarkMeta,
    }
    #[derive(Deserialize, Default)]
    #[serde(default)]
    struct BookmarkMeta {
        #[serde(rename = "resourceVersion")]
        resource_version: String,
    }
    let decode_error = |message: String| ApiError::Decode { request: String::new(), message };
    let text = gojson::text(line);
    let raw: RawEvent<'_> = serde_json::from_str(&text).map_err(|e| decode_error(format!("watch event: {e}")))?;
    let object = raw.object.get();
    let typed = |what: &str| -> Result<T, ApiError> { decode_object(object).map_err(|u| object_error(what, &u.error)) };
    match raw.type_.as_str() {
        "ADDED" => Ok(WatchEvent::Added(typed("ADDED")?)),
        "MODIFIED" => Ok(WatchEvent::Modified(typed("MODIFIED")?)),
        "DELETED" => Ok(WatchEvent::Deleted(typed("DELETED")?)),
        "BOOKMARK" => {
            let bookmark: BookmarkObject =
                gojson::from_str(object).map_err(|e| decode_error(format!("BOOKMARK event object: {e}")))?;
            Ok(WatchEvent::Bookmark { resource_version: bookmark.metadata.resource_version })
        }
        "ERROR" => {
            let status: api::Status = gojson::from_str(object).map_err(|e| decode_error(format!("ERROR event object: {e}")))?;
            Ok(WatchEvent::Error(status))
        }
        other => Err(decode_error(format!("unknown watch event type {:?}", truncate(other, 40)))),
    }
}

/// The error for an event whose object does not decode (one copy, not one per watched kind).
fn object_error(what: &str, error: &dyn std::fmt::Display) -> ApiError {
    ApiError::Decode { request: String::new(), message: format!("{what} event object: {error}") }
}

fn truncate(s: &str, max: usize) -> &str {
    match s.char_indices().nth(max) {
        Some((cut, _)) => &s[..cut],
        None => s,
    }
}

/// The events of one open watch, read value by value from the response body.
pub struct WatchStream<T> {
    reader: BufReader<Box<dyn Read + Send>>,
    request: String,
    frame: Vec<u8>,
    finished: bool,
    _type: PhantomData<fn() -> T>,
}

/// What [`WatchStream::read_frame`] found.
enum Frame {
    /// A whole JSON value (or a run of non-JSON text up to whitespace).
    Complete,
    /// The stream ended inside a value.
    Cut,
    /// Clean end of stream.
    End,
}

/// Where the framer is inside the current value.
#[derive(Default)]
struct Scan {
    /// Nesting depth of objects and arrays (0 before the value starts or for a bare scalar).
    depth: u32,
    in_string: bool,
    escaped: bool,
    /// The value is not an object or array: it runs to the next whitespace.
    bare: bool,
}

impl Scan {
    /// Feed one byte of the value; true when it completes the value.
    fn push(&mut self, b: u8) -> bool {
        if self.in_string {
            if self.escaped {
                self.escaped = false;
            } else if b == b'\\' {
                self.escaped = true;
            } else if b == b'"' {
                self.in_string = false;
            }
            return false;
        }
        match b {
            b'"' => self.in_string = true,
            b'{' | b'[' => self.depth += 1,
            b'}' | b']' => {
                self.depth = self.depth.saturating_sub(1);
                return self.depth == 0;
            }
            _ => {}
        }
        false
    }
}

impl<T> WatchStream<T> {
    /// Wrap any byte stream (the HTTP body, or a test's bytes) in the event decoder.
    pub fn new(reader: Box<dyn Read + Send>, request: String) -> WatchStream<T> {
        WatchStream {
            reader: BufReader::with_capacity(IO_BUFFER_BYTES, reader),
            request,
            frame: Vec::new(),
            finished: false,
            _type: PhantomData,
        }
    }

    /// Read the next JSON value into `self.frame`, skipping whitespace between values.
    fn read_frame(&mut self) -> Result<Frame, StreamError> {
        self.frame.clear();
        let mut scan = Scan::default();
        loop {
            let available = match self.reader.fill_buf() {
                Ok(buf) => buf,
                Err(e) if e.kind() == ErrorKind::Interrupted => continue,
                Err(e) => return Err(read_error(&self.request, &e)),
            };
            if available.is_empty() {
                return Ok(match (self.frame.is_empty(), scan.bare) {
                    (true, _) => Frame::End,
                    (false, true) => Frame::Complete,
                    (false, false) => Frame::Cut,
                });
            }
            let mut used = 0;
            let mut complete = false;
            for &b in available {
                used += 1;
                if self.frame.is_empty() {
                    if b.is_ascii_whitespace() {
                        continue;
                    }
                    scan.bare = b != b'{' && b != b'[';
                } else if scan.bare && b.is_ascii_whitespace() {
                    complete = true;
                    break;
                }
                self.frame.push(b);
                if !scan.bare && scan.push(b) {
                    complete = true;
                    break;
                }
            }
            self.reader.consume(used);
            if complete {
                return Ok(Frame::Complete);
            }
            if self.frame.len() > MAX_WATCH_LINE_BYTES {
                let message = format!("watch event larger than {MAX_WATCH_LINE_BYTES} bytes");
                return Err(StreamError::Failed(ApiError::Decode { request: self.request.clone(), message }));
            }
        }
    }
}

/// A failed read: broken connections and timeouts end the watch (client-go `net.IsProbableEOF`,
/// `net.IsTimeout`); anything else (a TLS or framing error) fails it.
fn read_error(request: &str, e: &std::io::Error) -> StreamError {
    // ureq reports its own timeouts as an io::Error wrapping a ureq::Error.
    let ureq_timeout =
        e.get_ref().and_then(|inner| inner.downcast_ref::<ureq::Error>()).is_some_and(|u| matches!(u, ureq::Error::Timeout(_)));
    let transport = |message: String| ApiError::Transport { request: request.to_string(), message };
    if ureq_timeout || matches!(e.kind(), ErrorKind::TimedOut | ErrorKind::WouldBlock) {
        return StreamError::Ended(transport("watch stream idle for too long (no data within the idle timeout)".to_string()));
    }
    let message = format!("watch stream read failed: {e}");
    match e.kind() {
        ErrorKind::ConnectionReset
        | ErrorKind::ConnectionAborted
        | ErrorKind::BrokenPipe
        | ErrorKind::UnexpectedEof
        | ErrorKind::NotConnected => StreamError::Ended(transport(message)),
        _ => StreamError::Failed(transport(message)),
    }
}

impl<T: DeserializeOwned + Object + 'static> Iterator for WatchStream<T> {
    type Item = Result<WatchEvent<T>, StreamError>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.finished {
            return None;
        }
        match self.read_frame() {
            Ok(Frame::Complete) => {
                let event = decode_watch_line(&self.frame).map_err(|e| StreamError::Failed(e.for_request(&self.request)));
                // client-go stops reading after reporting what it could not decode.
                self.finished = event.is_err();
                Some(event)
            }
            Ok(Frame::Cut) => {
                self.finished = true;
                Some(Err(StreamError::Ended(ApiError::Transport {
                    request: self.request.clone(),
                    message: "watch stream ended in the middle of an event".to_string(),
                })))
            }
            Ok(Frame::End) => {
                self.finished = true;
                None
            }
            Err(e) => {
                self.finished = true;
                Some(Err(e))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Cursor;

    fn bookmark_rv(event: WatchEvent<api::Pod>) -> Option<String> {
        match event {
            WatchEvent::Bookmark { resource_version } => Some(resource_version),
            _ => None,
        }
    }

    #[test]
    fn decodes_every_event_type() {
        let added: WatchEvent<api::Pod> =
            decode_watch_line(br#"{"type":"ADDED","object":{"kind":"Pod","metadata":{"name":"p","resourceVersion":"5"}}}"#)
                .unwrap();
        assert!(matches!(added, WatchEvent::Added(p) if p.metadata.name == "p"));
        let modified: WatchEvent<api::Pod> =
            decode_watch_line(br#"{"type":"MODIFIED","object":{"metadata":{"name":"q"}}}"#).unwrap();
        assert!(matches!(modified, WatchEvent::Modified(_)));
        let deleted: WatchEvent<api::Pod> =
            decode_watch_line(br#"{"object":{"metadata":{"name":"q"}},"type":"DELETED"}"#).unwrap();
        assert!(matches!(deleted, WatchEvent::Deleted(_)));
        let bookmark: WatchEvent<api::Pod> = decode_watch_line(
            br#"{"type":"BOOKMARK","object":{"kind":"Pod","apiVersion":"v1","metadata":{"resourceVersion":"12746"},"spec":{"containers":null}}}"#,
        )
        .unwrap();
        assert_eq!(bookmark_rv(bookmark), Some("12746".to_string()));
        let error: WatchEvent<api::Pod> = decode_watch_line(
            br#"{"type":"ERROR","object":{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"too old resource version: 1 (2)","reason":"Expired","code":410}}"#,
        )
        .unwrap();
        assert!(matches!(error, WatchEvent::Error(s) if s.code == 410));
    }

    #[test]
    fn malformed_lines_are_decode_errors_not_panics() {
        for line in [
            &b""[..],
            b"{",
            b"null",
            b"[]",
            br#"{"type":"ADDED"}"#,
            br#"{"type":"ADDED","object":5}"#,
            br#"{"type":"ADDED","object":null}"#,
            br#"{"type":"SOMETHING","object":{}}"#,
            br#"{"type":7,"object":{}}"#,
            b"\xff\xfe",
        ] {
            let r: Result<WatchEvent<api::Pod>, _> = decode_watch_line(line);
            assert!(matches!(r, Err(ApiError::Decode { .. })), "{:?}", String::from_utf8_lossy(line));
        }
    }

    #[test]
    fn real_watch_recordings_decode() {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/watch");
        let mut seen = 0;
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            let text = std::fs::read(&path).unwrap();
            let stream: WatchStream<api::Pod> = WatchStream::new(Box::new(Cursor::new(text)), "WATCH /api/v1/pods".into());
            for event in stream {
                event.unwrap_or_else(|e| panic!("{}: {e}", path.display()));
                seen += 1;
            }
        }
        assert!(seen > 0);
    }

    #[test]
    fn stream_splits_lines_skips_blank_ones_and_ends_cleanly() {
        let text = "\n{\"type\":\"BOOKMARK\",\"object\":{\"metadata\":{\"resourceVersion\":\"1\"}}}\n\r\n{\"type\":\"BOOKMARK\",\"object\":{\"metadata\":{\"resourceVersion\":\"2\"}}}\n";
        let mut stream: WatchStream<api::Pod> = WatchStream::new(Box::new(Cursor::new(text)), "WATCH /x".into());
        assert_eq!(bookmark_rv(stream.next().unwrap().unwrap()), Some("1".to_string()));
        assert_eq!(bookmark_rv(stream.next().unwrap().unwrap()), Some("2".to_string()));
        assert!(stream.next().is_none());
        assert!(stream.next().is_none());
    }

    #[test]
    fn truncated_final_event_ends_the_stream() {
        let text = "{\"type\":\"BOOKMARK\",\"object\":{\"metadata\":{\"resourceVersion\":\"1\"}}}\n{\"type\":\"ADD";
        let mut stream: WatchStream<api::Pod> = WatchStream::new(Box::new(Cursor::new(text)), "WATCH /x".into());
        assert!(stream.next().unwrap().is_ok());
        let err = stream.next().unwrap().unwrap_err();
        assert!(matches!(err, StreamError::Ended(ApiError::Transport { .. })), "{err:?}");
        assert_eq!(err.to_string(), "WATCH /x: watch stream ended in the middle of an event");
        assert!(stream.next().is_none());
    }

    #[test]
    fn values_are_framed_without_newlines_and_across_lines() {
        // The JSON framer needs no newline between values, and strings may hold braces.
        let text = concat!(
            "{\"type\":\"BOOKMARK\",\"object\":{\"metadata\":{\"resourceVersion\":\"1\",\"x\":\"}{\\\"\"}}}",
            "{\"type\":\"BOOKMARK\",\n  \"object\":{\"metadata\":\n{\"resourceVersion\":\"2\"}}}\n"
        );
        let stream: WatchStream<api::Pod> = WatchStream::new(Box::new(Cursor::new(text)), "WATCH /x".into());
        let rvs: Vec<Option<String>> = stream.map(|e| bookmark_rv(e.unwrap())).collect();
        assert_eq!(rvs, [Some("1".to_string()), Some("2".to_string())]);
    }

    #[test]
    fn a_list_answered_to_a_watch_fails_the_stream() {
        let text = "{\"kind\":\"PodList\",\"apiVersion\":\"v1\",\"metadata\":{\"resourceVersion\":\"5\"},\"items\":[]}\n";
        let mut stream: WatchStream<api::Pod> = WatchStream::new(Box::new(Cursor::new(text)), "WATCH /x".into());
        assert!(matches!(stream.next(), Some(Err(StreamError::Failed(ApiError::Decode { .. })))));
        assert!(stream.next().is_none());
    }

    #[test]
    fn null_fields_in_event_objects_decode_as_go_does() {
        let line = br#"{"type":"ADDED","object":{"metadata":{"name":"p","labels":null},"spec":null,"status":null}}"#;
        let event: WatchEvent<api::Pod> = decode_watch_line(line).expect("decodes");
        assert!(matches!(event, WatchEvent::Added(p) if p.metadata.name == "p"));
    }

    #[test]
    fn read_errors_end_or_fail_the_stream_as_client_go_classifies_them() {
        let ended = |kind| matches!(read_error("WATCH /x", &std::io::Error::from(kind)), StreamError::Ended(_));
        for kind in [ErrorKind::ConnectionReset, ErrorKind::BrokenPipe, ErrorKind::UnexpectedEof, ErrorKind::TimedOut] {
            assert!(ended(kind), "{kind:?}");
        }
        assert!(!ended(ErrorKind::InvalidData));
    }

    #[test]
    fn complete_final_event_without_newline_is_accepted() {
        let text = "{\"type\":\"BOOKMARK\",\"object\":{\"metadata\":{\"resourceVersion\":\"9\"}}}";
        let mut stream: WatchStream<api::Pod> = WatchStream::new(Box::new(Cursor::new(text)), "WATCH /x".into());
        assert_eq!(bookmark_rv(stream.next().unwrap().unwrap()), Some("9".to_string()));
        assert!(stream.next().is_none());
    }

    #[test]
    fn oversized_line_is_refused() {
        /// An endless line with no newline.
        struct Endless;
        impl Read for Endless {
            fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
                buf.fill(b'x');
                Ok(buf.len())
            }
        }
        let mut stream: WatchStream<api::Pod> = WatchStream::new(Box::new(Endless), "WATCH /x".into());
        let err = stream.next().unwrap().unwrap_err();
        assert!(matches!(err, StreamError::Failed(_)) && err.to_string().contains("larger than"), "{err}");
    }

    #[test]
    fn decode_error_in_stream_names_the_request() {
        let mut stream: WatchStream<api::Pod> =
            WatchStream::new(Box::new(Cursor::new("nonsense\n")), "WATCH /api/v1/pods".into());
        let err = stream.next().unwrap().unwrap_err();
        assert!(matches!(err, StreamError::Failed(_)), "{err:?}");
        assert!(err.to_string().starts_with("WATCH /api/v1/pods: cannot decode response: watch event:"), "{err}");
    }
}
