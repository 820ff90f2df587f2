//! A watch response read as a stream of typed events: newline-delimited JSON split into lines
//! (bounded in size), each decoded into a [`WatchEvent`]; a cut-off stream or a stalled
//! connection ends with an error the reflector can act on.

use crate::core::api;
use crate::shell::kube::api_error::ApiError;
use serde::de::DeserializeOwned;
use serde::Deserialize;
use serde_json::value::RawValue;
use std::io::{BufRead, BufReader, Read};
use std::marker::PhantomData;

/// Largest single watch event line; a real event is one object, so anything bigger is garbage.
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

/// Decode one line of a watch stream: `{"type": "...", "object": {...}}`. Pure, so it can be
/// fuzzed; errors carry no request (the stream adds it).
pub fn decode_watch_line<T: DeserializeOwned>(line: &[u8]) -> Result<WatchEvent<T>, ApiError> {
    #[derive(Deserialize)]
    struct RawEvent<'a> {
        #[serde(rename = "type")]
        type_: String,
        #[serde(borrow)]
        object: &'a RawValue,
    }
    #[derive(Deserialize)]
    struct BookmarkObject {
        #[serde(default)]
        metadata: BookmarkMeta,
    }
    #[derive(Deserialize, Default)]
    struct BookmarkMeta {
        #[serde(default, rename = "resourceVersion", deserialize_with = "api::null_as_default")]
        resource_version: String,
    }
    let decode_error = |message: String| ApiError::Decode { request: String::new(), message };
    let raw: RawEvent<'_> = serde_json::from_slice(line).map_err(|e| decode_error(format!("watch event: {e}")))?;
    let object = raw.object.get();
    let typed = |what: &str| -> Result<T, ApiError> {
        serde_json::from_str(object).map_err(|e| decode_error(format!("{what} event object: {e}")))
    };
    match raw.type_.as_str() {
        "ADDED" => Ok(WatchEvent::Added(typed("ADDED")?)),
        "MODIFIED" => Ok(WatchEvent::Modified(typed("MODIFIED")?)),
        "DELETED" => Ok(WatchEvent::Deleted(typed("DELETED")?)),
        "BOOKMARK" => {
            let bookmark: BookmarkObject =
                serde_json::from_str(object).map_err(|e| decode_error(format!("BOOKMARK event object: {e}")))?;
            Ok(WatchEvent::Bookmark { resource_version: bookmark.metadata.resource_version })
        }
        "ERROR" => {
            let status: api::Status =
                serde_json::from_str(object).map_err(|e| decode_error(format!("ERROR event object: {e}")))?;
            Ok(WatchEvent::Error(status))
        }
        other => Err(decode_error(format!("unknown watch event type {:?}", truncate(other, 40)))),
    }
}

fn truncate(s: &str, max: usize) -> &str {
    match s.char_indices().nth(max) {
        Some((cut, _)) => &s[..cut],
        None => s,
    }
}

/// The events of one open watch, read line by line from the response body.
pub struct WatchStream<T> {
    reader: BufReader<Box<dyn Read + Send>>,
    request: String,
    line: Vec<u8>,
    finished: bool,
    _type: PhantomData<fn() -> T>,
}

impl<T> WatchStream<T> {
    /// Wrap any byte stream (the HTTP body, or a test's bytes) in the line decoder.
    pub fn new(reader: Box<dyn Read + Send>, request: String) -> WatchStream<T> {
        WatchStream {
            reader: BufReader::with_capacity(IO_BUFFER_BYTES, reader),
            request,
            line: Vec::new(),
            finished: false,
            _type: PhantomData,
        }
    }

    /// Read the next non-empty line into `self.line`.
    fn read_line(&mut self) -> Result<Line, String> {
        self.line.clear();
        loop {
            let available = match self.reader.fill_buf() {
                Ok(buf) => buf,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(read_error_message(&e)),
            };
            if available.is_empty() {
                if self.line.iter().all(u8::is_ascii_whitespace) {
                    return Ok(Line::End);
                }
                return Ok(Line::Unterminated);
            }
            let (chunk, found_newline) = match available.iter().position(|&b| b == b'\n') {
                Some(i) => (&available[..i], true),
                None => (available, false),
            };
            if self.line.len() + chunk.len() > MAX_WATCH_LINE_BYTES {
                return Err(format!("watch event larger than {MAX_WATCH_LINE_BYTES} bytes"));
            }
            self.line.extend_from_slice(chunk);
            let used = chunk.len() + usize::from(found_newline);
            self.reader.consume(used);
            if found_newline {
                if self.line.iter().all(u8::is_ascii_whitespace) {
                    self.line.clear();
                    continue;
                }
                return Ok(Line::Complete);
            }
        }
    }
}

/// What [`WatchStream::read_line`] found.
enum Line {
    /// A newline-terminated line.
    Complete,
    /// Data at the end of the stream without a final newline: a complete event whose newline was
    /// lost, or (if it does not decode) a stream cut off mid-event.
    Unterminated,
    /// Clean end of stream.
    End,
}

fn read_error_message(e: &std::io::Error) -> String {
    // ureq reports its own timeouts as an io::Error wrapping a ureq::Error.
    let ureq_timeout =
        e.get_ref().and_then(|inner| inner.downcast_ref::<ureq::Error>()).is_some_and(|u| matches!(u, ureq::Error::Timeout(_)));
    if ureq_timeout || matches!(e.kind(), std::io::ErrorKind::TimedOut | std::io::ErrorKind::WouldBlock) {
        "watch stream idle for too long (no data within the idle timeout)".to_string()
    } else {
        format!("watch stream read failed: {e}")
    }
}

impl<T: DeserializeOwned> Iterator for WatchStream<T> {
    type Item = Result<WatchEvent<T>, ApiError>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.finished {
            return None;
        }
        match self.read_line() {
            Ok(Line::Complete) => Some(decode_watch_line(&self.line).map_err(|e| e.for_request(&self.request))),
            Ok(Line::Unterminated) => {
                self.finished = true;
                Some(decode_watch_line(&self.line).map_err(|_| ApiError::Transport {
                    request: self.request.clone(),
                    message: "watch stream ended in the middle of an event".to_string(),
                }))
            }
            Ok(Line::End) => {
                self.finished = true;
                None
            }
            Err(message) => {
                self.finished = true;
                Some(Err(ApiError::Transport { request: self.request.clone(), message }))
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
    fn truncated_final_event_is_a_transport_error() {
        let text = "{\"type\":\"BOOKMARK\",\"object\":{\"metadata\":{\"resourceVersion\":\"1\"}}}\n{\"type\":\"ADD";
        let mut stream: WatchStream<api::Pod> = WatchStream::new(Box::new(Cursor::new(text)), "WATCH /x".into());
        assert!(stream.next().unwrap().is_ok());
        let err = stream.next().unwrap().unwrap_err();
        assert!(matches!(err, ApiError::Transport { .. }));
        assert_eq!(err.to_string(), "WATCH /x: watch stream ended in the middle of an event");
        assert!(stream.next().is_none());
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
        assert!(err.to_string().contains("larger than"), "{err}");
    }

    #[test]
    fn decode_error_in_stream_names_the_request() {
        let mut stream: WatchStream<api::Pod> =
            WatchStream::new(Box::new(Cursor::new("nonsense\n")), "WATCH /api/v1/pods".into());
        let err = stream.next().unwrap().unwrap_err();
        assert!(err.to_string().starts_with("WATCH /api/v1/pods: cannot decode response: watch event:"), "{err}");
    }
}
