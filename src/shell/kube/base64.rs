//! A small, strict base64 decoder for kubeconfig `*-data` fields (and the encoder the PEM files
//! of a generated serving certificate need).
//!
//! Kubeconfig embeds certificates and keys as standard-alphabet base64. Hand-edited files often
//! wrap the value over several lines or drop the `=` padding, so whitespace is skipped and padding
//! is optional; anything else outside the standard alphabet (including the URL-safe `-`/`_`) is
//! rejected with the offending byte's position, so a typo never turns into a silently truncated
//! key. As in Go's `base64.StdEncoding` (which `kubectl` uses), unused low bits of the final
//! character are ignored.

use std::fmt;

/// Why a base64 value could not be decoded. Positions are byte offsets into the input as given
/// (whitespace included), so they point at the character the user has to fix.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Base64Error {
    /// A byte outside `A-Z a-z 0-9 + /`, `=` and ASCII whitespace.
    InvalidByte { offset: usize, byte: u8 },
    /// `=` somewhere other than the last one or two positions of the value.
    MisplacedPadding { offset: usize },
    /// The number of characters cannot come from any byte string (one character too many or too
    /// few, or padding that does not complete a 4-character group).
    InvalidLength { symbols: usize },
}

impl fmt::Display for Base64Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Base64Error::InvalidByte { offset, byte } if byte.is_ascii_graphic() => {
                write!(f, "invalid character {:?} at offset {offset}", char::from(*byte))
            }
            Base64Error::InvalidByte { offset, byte } => write!(f, "invalid byte 0x{byte:02x} at offset {offset}"),
            Base64Error::MisplacedPadding { offset } => write!(f, "unexpected padding '=' at offset {offset}"),
            Base64Error::InvalidLength { symbols } => {
                write!(f, "truncated input: {symbols} base64 characters do not form whole bytes")
            }
        }
    }
}

impl std::error::Error for Base64Error {}

/// The 6-bit value of a standard-alphabet character.
fn sextet(byte: u8) -> Option<u8> {
    match byte {
        b'A'..=b'Z' => Some(byte - b'A'),
        b'a'..=b'z' => Some(byte - b'a' + 26),
        b'0'..=b'9' => Some(byte - b'0' + 52),
        b'+' => Some(62),
        b'/' => Some(63),
        _ => None,
    }
}

/// Decode standard base64, ignoring ASCII whitespace, with optional `=` padding.
pub fn decode(input: &[u8]) -> Result<Vec<u8>, Base64Error> {
    let mut out = Vec::with_capacity(input.len() / 4 * 3 + 3);
    let mut acc: u32 = 0;
    let mut symbols = 0usize;
    let mut padding = 0usize;
    for (offset, &byte) in input.iter().enumerate() {
        if byte.is_ascii_whitespace() {
            continue;
        }
        if byte == b'=' {
            padding += 1;
            if padding > 2 {
                return Err(Base64Error::MisplacedPadding { offset });
            }
            continue;
        }
        if padding > 0 {
            // Data after padding: the `=` was not at the end.
            return Err(Base64Error::MisplacedPadding { offset: offset_of_first_padding(input, offset) });
        }
        let value = sextet(byte).ok_or(Base64Error::InvalidByte { offset, byte })?;
        acc = (acc << 6) | u32::from(value);
        symbols += 1;
        if symbols % 4 == 0 {
            out.extend_from_slice(&[(acc >> 16) as u8, (acc >> 8) as u8, acc as u8]);
            acc = 0;
        }
    }
    match (symbols % 4, padding) {
        (0, 0) => {}
        (2, 0 | 2) => out.push((acc >> 4) as u8),
        (3, 0 | 1) => out.extend_from_slice(&[(acc >> 10) as u8, (acc >> 2) as u8]),
        _ => return Err(Base64Error::InvalidLength { symbols: symbols + padding }),
    }
    Ok(out)
}

/// The offset of the first `=` before `end`, for pointing at padding that is followed by data.
fn offset_of_first_padding(input: &[u8], end: usize) -> usize {
    input[..end].iter().position(|&b| b == b'=').unwrap_or(end)
}

/// Standard-alphabet base64 with padding (Go's `base64.StdEncoding`).
pub fn encode(input: &[u8]) -> String {
    const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::with_capacity(input.len().div_ceil(3) * 4);
    for chunk in input.chunks(3) {
        let b = [chunk[0], chunk.get(1).copied().unwrap_or(0), chunk.get(2).copied().unwrap_or(0)];
        let n = (u32::from(b[0]) << 16) | (u32::from(b[1]) << 8) | u32::from(b[2]);
        for i in 0..4 {
            if i <= chunk.len() {
                out.push(char::from(ALPHABET[((n >> (18 - 6 * i)) & 63) as usize]));
            } else {
                out.push('=');
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn encode_round_trips_through_decode() {
        assert_eq!(encode(b""), "");
        assert_eq!(encode(b"f"), "Zg==");
        assert_eq!(encode(b"fo"), "Zm8=");
        assert_eq!(encode(b"foobar"), "Zm9vYmFy");
        let bytes: Vec<u8> = (0..=255).collect();
        assert_eq!(decode(encode(&bytes).as_bytes()).expect("decodes"), bytes);
    }

    fn ok(s: &str) -> Vec<u8> {
        decode(s.as_bytes()).unwrap()
    }

    #[test]
    fn rfc4648_test_vectors_padded_and_unpadded() {
        // RFC 4648 section 10.
        let cases = [
            ("", ""),
            ("Zg==", "f"),
            ("Zm8=", "fo"),
            ("Zm9v", "foo"),
            ("Zm9vYg==", "foob"),
            ("Zm9vYmE=", "fooba"),
            ("Zm9vYmFy", "foobar"),
        ];
        for (encoded, plain) in cases {
            assert_eq!(ok(encoded), plain.as_bytes(), "{encoded}");
            assert_eq!(ok(encoded.trim_end_matches('=')), plain.as_bytes(), "{encoded} unpadded");
        }
    }

    #[test]
    fn kubeconfig_fixture_values() {
        // Values from the javascript client's test kubeconfig.
        assert_eq!(ok("Q0FEQVRB"), b"CADATA");
        assert_eq!(ok("Q0FEQVRBMg=="), b"CADATA2");
        assert_eq!(ok("VVNFUl9DQURBVEE="), b"USER_CADATA");
    }

    #[test]
    fn whitespace_and_line_wrapping_are_ignored() {
        assert_eq!(ok(" Zm9v\nYmFy\r\n"), b"foobar");
        assert_eq!(ok("Zm9vYg\n=\n=\n"), b"foob");
        assert_eq!(ok("\t\n "), b"");
    }

    /// Reference encoder for round-trip tests (padded, standard alphabet).
    fn encode(data: &[u8]) -> String {
        const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
        let mut out = String::new();
        for chunk in data.chunks(3) {
            let b = [chunk[0], *chunk.get(1).unwrap_or(&0), *chunk.get(2).unwrap_or(&0)];
            let n = (u32::from(b[0]) << 16) | (u32::from(b[1]) << 8) | u32::from(b[2]);
            for i in 0..4 {
                if i <= chunk.len() {
                    out.push(char::from(ALPHABET[((n >> (18 - 6 * i)) & 63) as usize]));
                } else {
                    out.push('=');
                }
            }
        }
        out
    }

    #[test]
    fn binary_round_trip_every_length_and_byte_value() {
        let data: Vec<u8> = (0..=255u8).chain((0..=255u8).rev()).collect();
        for len in 0..data.len() {
            let encoded = encode(&data[..len]);
            assert_eq!(ok(&encoded), &data[..len], "len {len}");
            assert_eq!(ok(encoded.trim_end_matches('=')), &data[..len], "len {len} unpadded");
        }
    }

    #[test]
    fn rejects_url_safe_alphabet_and_garbage() {
        assert_eq!(decode(b"Zm9-"), Err(Base64Error::InvalidByte { offset: 3, byte: b'-' }));
        assert_eq!(decode(b"ab_c"), Err(Base64Error::InvalidByte { offset: 2, byte: b'_' }));
        assert_eq!(decode(b"ab\0c"), Err(Base64Error::InvalidByte { offset: 2, byte: 0 }));
        assert_eq!(decode("abç=".as_bytes()), Err(Base64Error::InvalidByte { offset: 2, byte: 0xc3 }));
    }

    #[test]
    fn rejects_misplaced_or_excess_padding() {
        assert_eq!(decode(b"Zg==Zg=="), Err(Base64Error::MisplacedPadding { offset: 2 }));
        assert_eq!(decode(b"Zg==="), Err(Base64Error::MisplacedPadding { offset: 4 }));
        assert_eq!(decode(b"Zm9v="), Err(Base64Error::InvalidLength { symbols: 5 }));
        assert_eq!(decode(b"Zg="), Err(Base64Error::InvalidLength { symbols: 3 }));
        assert_eq!(decode(b"="), Err(Base64Error::InvalidLength { symbols: 1 }));
    }

    #[test]
    fn rejects_impossible_lengths() {
        assert_eq!(decode(b"Z"), Err(Base64Error::InvalidLength { symbols: 1 }));
        assert_eq!(decode(b"Zm9vY"), Err(Base64Error::InvalidLength { symbols: 5 }));
    }

    #[test]
    fn errors_read_clearly() {
        assert_eq!(decode(b"ab-c").unwrap_err().to_string(), "invalid character '-' at offset 2");
        assert_eq!(decode(b"Z").unwrap_err().to_string(), "truncated input: 1 base64 characters do not form whole bytes");
    }
}
