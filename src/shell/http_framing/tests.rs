use super::*;

/// Parse `head` (a response or request head without the start line) into fields.
fn fields(head: &str) -> Vec<httparse::Header<'_>> {
    let mut fields = vec![httparse::EMPTY_HEADER; 16];
    let n = match httparse::parse_headers(head.as_bytes(), &mut fields) {
        Ok(httparse::Status::Complete((_, parsed))) => parsed.len(),
        other => panic!("{head:?}: {other:?}"),
    };
    fields.truncate(n);
    fields
}

/// Go's `TestParseContentLength` (src/net/http/transfer_test.go, golang/go at
/// c674ce87c2e47699bb51e02885fb80519ecbfb27, issue 39017), and the cases this reader adds.
#[test]
fn content_length_is_digits_below_two_to_the_63() {
    let cases: &[(&str, Result<Option<u64>, FramingError>)] = &[
        ("Content-Length: \r\n\r\n", Err(FramingError::BadContentLength)),
        ("Content-Length: 3\r\n\r\n", Ok(Some(3))),
        ("Content-Length: +3\r\n\r\n", Err(FramingError::BadContentLength)),
        ("Content-Length: -3\r\n\r\n", Err(FramingError::BadContentLength)),
        ("Content-Length: 9223372036854775807\r\n\r\n", Ok(Some(i64::MAX as u64))),
        ("Content-Length: 9223372036854775808\r\n\r\n", Err(FramingError::BadContentLength)),
        ("Content-Length: 99999999999999999999999\r\n\r\n", Err(FramingError::BadContentLength)),
        ("Content-Length: 0x10\r\n\r\n", Err(FramingError::BadContentLength)),
        ("Content-Length: 1_0\r\n\r\n", Err(FramingError::BadContentLength)),
        ("Content-Length: 007\r\n\r\n", Ok(Some(7))),
        ("Content-Length:  5 \r\n\r\n", Ok(Some(5))),
        // A comma list is not a number to Go's ParseUint, even when its values agree.
        ("Content-Length: 5, 5\r\n\r\n", Err(FramingError::BadContentLength)),
        ("Content-Length: 5,6\r\n\r\n", Err(FramingError::BadContentLength)),
        // Repeated field lines: identical values are one (Go's fixLength, issue 16490) ...
        ("Content-Length: 5\r\ncontent-length: 5\r\n\r\n", Ok(Some(5))),
        // ... different ones (as text: 5 and 05 differ) are refused.
        ("Content-Length: 5\r\nContent-Length: 6\r\n\r\n", Err(FramingError::ConflictingContentLength)),
        ("Content-Length: 5\r\nContent-Length: 05\r\n\r\n", Err(FramingError::ConflictingContentLength)),
        ("Content-Length: 0\r\nX: y\r\nContent-Length: 42\r\n\r\n", Err(FramingError::ConflictingContentLength)),
        ("X: y\r\n\r\n", Ok(None)),
    ];
    for (head, want) in cases {
        assert_eq!(&content_length(&fields(head)), want, "{head:?}");
    }
}

/// Go's `TestParseTransferEncoding` (src/net/http/transfer_test.go at c674ce87): one field line
/// saying `chunked`, in any case; anything else is unsupported; HTTP/1.0 refuses it.
#[test]
fn transfer_encoding_is_one_chunked() {
    let cases: &[(&str, Result<bool, FramingError>)] = &[
        ("Transfer-Encoding: fugazi\r\n\r\n", Err(FramingError::UnsupportedTransferEncoding)),
        ("Transfer-Encoding: chunked, identity\r\n\r\n", Err(FramingError::UnsupportedTransferEncoding)),
        ("Transfer-Encoding: chunked\r\nTransfer-Encoding: identity\r\n\r\n", Err(FramingError::UnsupportedTransferEncoding)),
        ("Transfer-Encoding: chunked\r\nTransfer-Encoding: chunked\r\n\r\n", Err(FramingError::UnsupportedTransferEncoding)),
        ("Transfer-Encoding: gzip, chunked\r\n\r\n", Err(FramingError::UnsupportedTransferEncoding)),
        ("Transfer-Encoding: chunked\r\n\r\n", Ok(true)),
        ("transfer-encoding: CHUNKED\r\n\r\n", Ok(true)),
        ("X: chunked\r\n\r\n", Ok(false)),
    ];
    for (head, want) in cases {
        assert_eq!(&transfer_encoding(1, &fields(head)), want, "{head:?}");
    }
    assert_eq!(transfer_encoding(0, &fields("Transfer-Encoding: chunked\r\n\r\n")), Err(FramingError::TransferEncodingInHttp10));
}

/// Go's `shouldClose` reads `Connection` as a token list (`httpguts.HeaderValuesContainsToken`).
#[test]
fn connection_close_is_a_token_in_a_list() {
    assert!(connection_close(1, &fields("Connection: close\r\n\r\n")));
    assert!(connection_close(1, &fields("Connection: keep-alive, close\r\n\r\n")));
    assert!(connection_close(1, &fields("Connection: Upgrade\r\nConnection: CLOSE\r\n\r\n")));
    assert!(!connection_close(1, &fields("Connection: keep-alive\r\n\r\n")));
    assert!(!connection_close(1, &fields("Connection: closed, x-close\r\n\r\n")));
    assert!(connection_close(0, &fields("X: y\r\n\r\n")));
    assert!(!connection_close(0, &fields("Connection: Keep-Alive\r\n\r\n")));
}

#[test]
fn response_framing_follows_rfc_9112_section_6_3() {
    let framing = |minor, code, head| response_framing(minor, code, &fields(head));
    let body = |minor, code, head| framing(minor, code, head).map(|f| (f.body, f.close));
    assert_eq!(body(1, 200, "Content-Length: 5\r\n\r\n"), Ok((BodyLength::Length(5), false)));
    assert_eq!(body(1, 200, "Transfer-Encoding: chunked\r\n\r\n"), Ok((BodyLength::Chunked, false)));
    // Both: the chunked coding wins (as in Go) and the connection is not reused.
    assert_eq!(body(1, 200, "Content-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n"), Ok((BodyLength::Chunked, true)));
    assert_eq!(body(1, 200, "X: y\r\n\r\n"), Ok((BodyLength::UntilClose, true)));
    assert_eq!(body(1, 204, "X: y\r\n\r\n"), Ok((BodyLength::Empty, false)));
    assert_eq!(body(1, 304, "Content-Length: 5\r\n\r\n"), Ok((BodyLength::Empty, false)));
    assert_eq!(body(0, 200, "Content-Length: 2\r\n\r\n"), Ok((BodyLength::Length(2), true)));
    assert_eq!(body(0, 200, "Content-Length: 2\r\nConnection: keep-alive\r\n\r\n"), Ok((BodyLength::Length(2), false)));
    assert_eq!(body(1, 200, "Content-Length: 2\r\nConnection: keep-alive, close\r\n\r\n"), Ok((BodyLength::Length(2), true)));
    // Length fields are checked even where no body follows, as Go's fixLength does.
    assert_eq!(body(1, 204, "Content-Length: +1\r\n\r\n"), Err(FramingError::BadContentLength));
    assert_eq!(body(0, 200, "Transfer-Encoding: chunked\r\n\r\n"), Err(FramingError::TransferEncodingInHttp10));
    assert_eq!(body(1, 200, "Transfer-Encoding: gzip\r\n\r\n"), Err(FramingError::UnsupportedTransferEncoding));
}

#[test]
fn request_framing_refuses_length_and_coding_together() {
    let body = |minor, head| request_framing(minor, &fields(head)).map(|f| (f.body, f.close));
    assert_eq!(body(1, "Host: x\r\n\r\n"), Ok((BodyLength::Empty, false)));
    assert_eq!(body(1, "Content-Length: 3\r\n\r\n"), Ok((BodyLength::Length(3), false)));
    assert_eq!(body(1, "Transfer-Encoding: chunked\r\n\r\n"), Ok((BodyLength::Chunked, false)));
    assert_eq!(
        body(1, "Content-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n"),
        Err(FramingError::TransferEncodingWithContentLength)
    );
    assert_eq!(
        body(1, "Transfer-Encoding: gzip\r\nContent-Length: 3\r\n\r\n"),
        Err(FramingError::TransferEncodingWithContentLength)
    );
    assert_eq!(body(0, "Transfer-Encoding: chunked\r\n\r\n"), Err(FramingError::TransferEncodingInHttp10));
    assert_eq!(body(0, "X: y\r\n\r\n"), Ok((BodyLength::Empty, true)));
}

#[test]
fn heads_need_crlf_line_ends() {
    assert_eq!(require_crlf(b"GET / HTTP/1.1\r\nHost: x\r\n\r\n"), Ok(()));
    assert_eq!(require_crlf(b"GET / HTTP/1.1\nHost: x\r\n\r\n"), Err(FramingError::BareLf));
    assert_eq!(require_crlf(b"GET / HTTP/1.1\r\nHost: x\r\n\n"), Err(FramingError::BareLf));
    assert_eq!(require_crlf(b"\n"), Err(FramingError::BareLf));
}

/// Decode `input` whole: the data, the bytes consumed, or the first error; `None` when the input
/// ends before the body does.
fn decode(input: &[u8]) -> Result<Option<(Vec<u8>, usize)>, FramingError> {
    let mut decoder = ChunkedDecoder::new();
    let (mut data, mut pos) = (Vec::new(), 0);
    loop {
        match decoder.step(&input[pos..], usize::MAX)? {
            Step::Data(n) => {
                data.extend_from_slice(&input[pos..pos + n]);
                pos += n;
            }
            Step::Framing(n) => pos += n,
            Step::End(n) => return Ok(Some((data, pos + n))),
            Step::NeedMore => return Ok(None),
        }
    }
}

/// Go's `TestParseHexUint` (src/net/http/internal/chunked_test.go, Go 1.23), through whole
/// chunk-size lines.
#[test]
fn chunk_sizes_are_one_to_sixteen_hex_digits() {
    let size = |digits: &str| {
        let mut decoder = ChunkedDecoder::new();
        decoder.size_line(format!("{digits}\r\n").as_bytes())
    };
    assert_eq!(size("x"), Err(FramingError::BadChunkSize));
    assert_eq!(size("0000000000000000"), Ok(0));
    assert_eq!(size("0000000000000001"), Ok(1));
    assert_eq!(size("ffffffffffffffff"), Ok(u64::MAX));
    assert_eq!(size("000000000000bogus"), Err(FramingError::BadChunkSize));
    assert_eq!(size("00000000000000000"), Err(FramingError::ChunkSizeTooLarge));
    assert_eq!(size("10000000000000000"), Err(FramingError::ChunkSizeTooLarge));
    assert_eq!(size("00000000000000001"), Err(FramingError::ChunkSizeTooLarge));
    assert_eq!(size(""), Err(FramingError::EmptyChunkSize));
    assert_eq!(size("+5"), Err(FramingError::BadChunkSize));
    assert_eq!(size("5 ;x"), Err(FramingError::BadChunkSize), "Go trims trailing blanks before cutting the extension");
    assert_eq!(size("5; x  "), Ok(5));
    for i in 0..=1234u64 {
        assert_eq!(size(&format!("{i:x}")), Ok(i));
        assert_eq!(size(&format!("{i:X}")), Ok(i));
    }
}

/// Go's chunked reader tests (src/net/http/internal/chunked_test.go, Go 1.23):
/// `TestChunkReadingIgnoresExtensions`, `TestIncompleteChunk`, `TestChunkInvalidInputs`,
/// `TestChunkReaderTooMuchOverhead` and `TestChunkReaderByteAtATime`.
#[test]
fn chunked_bodies_decode_as_go_reads_them() {
    let ext =
        b"7;ext=\"some quoted string\"\r\nhello, \r\n17;someext\r\nworld! 0123456789abcdef\r\n0;someextension=sometoken\r\n\r\n";
    assert_eq!(decode(ext), Ok(Some((b"hello, world! 0123456789abcdef".to_vec(), ext.len()))));

    let valid = b"4\r\nabcd\r\n5\r\nabc\r\n\r\n0\r\n\r\n";
    for i in 0..valid.len() {
        assert_eq!(decode(&valid[..i]), Ok(None), "{:?}", String::from_utf8_lossy(&valid[..i]));
    }
    assert_eq!(decode(valid), Ok(Some((b"abcdabc\r\n".to_vec(), valid.len()))));

    let invalid: &[(&[u8], FramingError)] = &[
        (b"1\na\r\n0\r\n\r\n", FramingError::ChunkLineBareLf),
        (b"1\r\r\na\r\n0\r\n\r\n", FramingError::ChunkLineCr),
        (b"1\r\na\n0\r\n\r\n", FramingError::ChunkDataNotEnded),
        (b"1;\na\r\n0\r\n\r\n", FramingError::ChunkLineBareLf),
        (b"1;a\rb\r\na\r\n0\r\n\r\n", FramingError::ChunkLineCr),
        (b"\r\na\r\n", FramingError::EmptyChunkSize),
        (b"7\r\n1234567xx", FramingError::ChunkDataNotEnded),
        (b"0\r\nX: y\n\r\n", FramingError::BareLf),
        (b"0\r\nX y\r\n\r\n", FramingError::Trailer(httparse::Error::HeaderName)),
        (b"0\r\n folded\r\n\r\n", FramingError::Trailer(httparse::Error::HeaderName)),
    ];
    for (input, want) in invalid {
        assert_eq!(decode(input), Err(want.clone()), "{:?}", String::from_utf8_lossy(input));
    }

    // A trailer section is read and dropped; what follows it belongs to the next message.
    let trailer = b"3\r\nabc\r\n0\r\nTrailer-Field: t\r\n\r\nHTTP/1.1 200 OK";
    assert_eq!(decode(trailer), Ok(Some((b"abc".to_vec(), trailer.len() - 15))));

    // 100 bytes of extension per byte of data: refused long before the end.
    let mut greedy = Vec::new();
    for _ in 0..1000 {
        greedy.extend_from_slice(b"1;");
        greedy.extend_from_slice(&[b'a'; 100]);
        greedy.extend_from_slice(b"\r\nX\r\n");
    }
    assert_eq!(decode(&greedy), Err(FramingError::ChunkOverhead));
    // One byte per chunk is legitimate streaming.
    let trickle: Vec<u8> = b"1\r\nX\r\n".repeat(1 << 16).into_iter().chain(*b"0\r\n\r\n").collect();
    assert_eq!(decode(&trickle).map(|d| d.map(|(data, _)| data.len())), Ok(Some(1 << 16)));

    // Lines and trailers are bounded: a size line without its end, or a trailer section, over 4 KiB.
    assert_eq!(decode(&[b'1'; 5000]), Err(FramingError::ChunkLineTooLong));
    let long_line: Vec<u8> = [&b"1;"[..], &[b'a'; 4094], b"\r\nX\r\n0\r\n\r\n"].concat();
    assert_eq!(decode(&long_line), Err(FramingError::ChunkLineTooLong));
    let long_trailer: Vec<u8> = [&b"0\r\nX: "[..], &[b'a'; 5000]].concat();
    assert_eq!(decode(&long_trailer), Err(FramingError::TrailerTooLong));
}

/// Data steps never exceed the room given, and a body split anywhere decodes the same.
#[test]
fn data_steps_respect_the_room_and_splits_do_not_matter() {
    let body = b"a\r\n0123456789\r\n3;x\r\nabc\r\n0\r\nT: 1\r\n\r\n";
    let mut decoder = ChunkedDecoder::new();
    let (mut pos, mut data) = (0, Vec::new());
    while !decoder.is_done() {
        match decoder.step(&body[pos..], 3).expect("valid") {
            Step::Data(n) => {
                assert!(n <= 3);
                data.extend_from_slice(&body[pos..pos + n]);
                pos += n;
            }
            Step::Framing(n) | Step::End(n) => pos += n,
            Step::NeedMore => panic!("whole body given"),
        }
    }
    assert_eq!((data.as_slice(), pos), (&b"0123456789abc"[..], body.len()));
    // Byte by byte: every prefix either needs more or has made progress.
    let mut decoder = ChunkedDecoder::new();
    let (mut end, mut pos, mut data) = (0, 0, Vec::new());
    while !decoder.is_done() {
        match decoder.step(&body[pos..end], usize::MAX).expect("valid") {
            Step::Data(n) => {
                data.extend_from_slice(&body[pos..pos + n]);
                pos += n;
            }
            Step::Framing(n) | Step::End(n) => pos += n,
            Step::NeedMore => end += 1,
        }
    }
    assert_eq!((data.as_slice(), pos), (&b"0123456789abc"[..], body.len()));
}
