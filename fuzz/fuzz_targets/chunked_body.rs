//! The chunked transfer coding decoder (`shell::http_framing::ChunkedDecoder`) shared by the API
//! client's body reader: the input is decoded whole, then again fed in pieces with a small data
//! room (sizes from the first two input bytes). It must never panic, both runs must agree on the
//! data, the bytes consumed and the error, and what it decodes must survive a round trip
//! through a canonical re-encoding.
#![no_main]

use edgesched::shell::http_framing::{ChunkedDecoder, FramingError, Step};
use libfuzzer_sys::fuzz_target;

type Outcome = Result<Option<(Vec<u8>, usize)>, FramingError>;

/// Decode `input` offering at most `piece` new bytes at a time and data steps of at most `room`:
/// the data and bytes consumed at the end of the body, `None` when the input ends first.
fn decode(input: &[u8], piece: usize, room: usize) -> Outcome {
    let mut decoder = ChunkedDecoder::new();
    let (mut data, mut pos, mut end) = (Vec::new(), 0, piece.min(input.len()));
    loop {
        match decoder.step(&input[pos..end], room)? {
            Step::Data(n) => {
                assert!(n >= 1 && n <= room && pos + n <= end);
                data.extend_from_slice(&input[pos..pos + n]);
                pos += n;
            }
            Step::Framing(n) => {
                assert!(n >= 1 && pos + n <= end);
                pos += n;
            }
            Step::End(n) => {
                assert!(pos + n <= end && decoder.is_done());
                return Ok(Some((data, pos + n)));
            }
            Step::NeedMore if end == input.len() => return Ok(None),
            Step::NeedMore => end = (end + piece).min(input.len()),
        }
    }
}

fuzz_target!(|input: &[u8]| {
    let [piece, room, body @ ..] = input else { return };
    let whole = decode(body, body.len().max(1), usize::MAX);
    let split = decode(body, usize::from(*piece % 16) + 1, usize::from(*room % 16) + 1);
    assert_eq!(whole, split);
    if let Ok(Some((data, used))) = whole {
        // At least the last chunk's `0\r\n` and the empty trailer section's `\r\n` are framing.
        assert!(data.len() + 5 <= used && used <= body.len());
        let mut encoded = Vec::new();
        for chunk in data.chunks(7) {
            encoded.extend_from_slice(format!("{:x}\r\n", chunk.len()).as_bytes());
            encoded.extend_from_slice(chunk);
            encoded.extend_from_slice(b"\r\n");
        }
        encoded.extend_from_slice(b"0\r\n\r\n");
        assert_eq!(decode(&encoded, encoded.len(), usize::MAX), Ok(Some((data, encoded.len()))));
    }
});
