//! The API client's response reader (`shell::kube::http1`): any bytes from a server go through
//! the same head parser and body framing as a pooled connection, whole and in pieces whose sizes
//! come from the first input byte. It must never panic, the outcome must not depend on how the
//! bytes arrive, the body can hold no more than was sent, and streaming the body (as a watch
//! does) must give the same bytes as reading it whole.
#![no_main]

use edgesched::shell::kube::http1::{read_response, stream_response};
use libfuzzer_sys::fuzz_target;
use std::io::{self, Read};

/// Hands out `data` at most `piece` bytes per read.
struct Pieces<'a> {
    data: &'a [u8],
    piece: usize,
}

impl Read for Pieces<'_> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = buf.len().min(self.piece).min(self.data.len());
        buf[..n].copy_from_slice(&self.data[..n]);
        self.data = &self.data[n..];
        Ok(n)
    }
}

const LIMIT: u64 = 1 << 20;

fuzz_target!(|input: &[u8]| {
    let Some((&piece, data)) = input.split_first() else { return };
    let mut whole = Vec::new();
    let a = read_response(data, LIMIT, &mut whole);
    let mut pieces = Vec::new();
    let b = read_response(Pieces { data, piece: usize::from(piece % 32) + 1 }, LIMIT, &mut pieces);
    match (&a, &b) {
        (Ok((ra, keep_a)), Ok((rb, keep_b))) => {
            assert_eq!((ra.code, ra.truncated, keep_a, &ra.retry_after), (rb.code, rb.truncated, keep_b, &rb.retry_after));
            assert_eq!(whole, pieces);
            assert!(whole.len() <= data.len());
            assert!(ra.code <= 999, "three digits");
        }
        (Err(ea), Err(eb)) => assert_eq!(ea.kind(), eb.kind(), "{ea} / {eb}"),
        _ => panic!("whole {a:?} and in pieces {b:?} disagree"),
    }
    if let Ok((response, _)) = &a {
        if !response.truncated {
            let (streamed_head, mut body) = stream_response(data).expect("the head was read once already");
            assert_eq!(streamed_head.code, response.code);
            let mut streamed = Vec::new();
            body.read_to_end(&mut streamed).expect("the body was read once already");
            assert_eq!(streamed, whole);
        }
    }
});
