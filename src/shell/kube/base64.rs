//! Base64 as Go's `encoding/base64.StdEncoding` reads and writes it, through the `base64` crate:
//! the kubeconfig's `*-data` fields and an extender's `tlsConfig.*Data` (Go `[]byte` fields,
//! which `encoding/json` decodes with `StdEncoding`), the PEM of a generated serving certificate
//! and a proxy's basic credentials.
//!
//! Go's rules (src/encoding/base64/base64.go, `decodeQuantum` and `Decode`, go1.25): the
//! standard alphabet only (the URL-safe `-`/`_` are refused); `=` padding required, so the
//! characters come in groups of four; `\r` and `\n` ignored anywhere, and no other whitespace
//! (a YAML value folded over lines reaches the decoder with spaces, which Go refuses too); the
//! unused low bits of the last character ignored (`StdEncoding` is not `Strict`). Errors name the
//! offset of the offending byte in the value as written, as Go's `CorruptInputError` does.

use base64::engine::general_purpose::{GeneralPurpose, GeneralPurposeConfig};
use base64::engine::DecodePaddingMode;
use base64::{alphabet, Engine};
use std::fmt;

/// Go's `base64.StdEncoding`: padded, standard alphabet, trailing bits ignored.
const STD: GeneralPurpose = GeneralPurpose::new(
    &alphabet::STANDARD,
    GeneralPurposeConfig::new()
        .with_encode_padding(true)
        .with_decode_padding_mode(DecodePaddingMode::RequireCanonical)
        .with_decode_allow_trailing_bits(true),
);

/// Why a base64 value could not be decoded (Go: `illegal base64 data at input byte N`). The
/// offset counts the input's bytes as given, line breaks included, so it points at the character
/// to fix; at the end of the input when the value stops short of a group of four.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Base64Error {
    pub offset: usize,
}

impl fmt::Display for Base64Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "illegal base64 data at input byte {}", self.offset)
    }
}

impl std::error::Error for Base64Error {}

/// Decode as Go's `base64.StdEncoding.DecodeString`.
pub fn decode(input: &[u8]) -> Result<Vec<u8>, Base64Error> {
    let text: Vec<u8> = input.iter().copied().filter(|b| !matches!(b, b'\r' | b'\n')).collect();
    STD.decode(&text).map_err(|_| Base64Error { offset: go_error_offset(input).unwrap_or(input.len()) })
}

/// Where Go's decoder reports an error in `input` (`None`: Go decodes it), for pointing the
/// user at the byte to fix. Only the error path reads it; the crate decodes. The offsets follow
/// Go's `decodeQuantum`: an invalid byte or misplaced `=` at its position, data after the
/// padding at the first such byte, a last group without enough padding at the end of the input,
/// a last group cut short at the input's length less that group's characters.
pub fn go_error_offset(input: &[u8]) -> Option<usize> {
    let is_symbol = |b: u8| b.is_ascii_alphanumeric() || b == b'+' || b == b'/';
    let skip_breaks = |mut i: usize| {
        while i < input.len() && matches!(input[i], b'\r' | b'\n') {
            i += 1;
        }
        i
    };
    let mut i = 0;
    loop {
        let mut symbols = 0;
        while symbols < 4 {
            if i == input.len() {
                return (symbols != 0).then(|| input.len() - symbols);
            }
            let b = input[i];
            i += 1;
            if is_symbol(b) {
                symbols += 1;
                continue;
            }
            if matches!(b, b'\r' | b'\n') {
                continue;
            }
            if b != b'=' || symbols < 2 {
                return Some(i - 1);
            }
            if symbols == 2 {
                // "==" expected: the second may follow line breaks.
                i = skip_breaks(i);
                if i == input.len() {
                    return Some(input.len());
                }
                if input[i] != b'=' {
                    return Some(i - 1);
                }
                i += 1;
            }
            i = skip_breaks(i);
            return (i < input.len()).then_some(i);
        }
    }
}

/// Encode as Go's `base64.StdEncoding.EncodeToString`.
pub fn encode(input: &[u8]) -> String {
    STD.encode(input)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ok(s: &str) -> Vec<u8> {
        decode(s.as_bytes()).unwrap_or_else(|e| panic!("{s:?}: {e}"))
    }

    fn refused(s: &str) -> usize {
        decode(s.as_bytes()).map(|v| panic!("{s:?} decoded to {v:?}")).unwrap_or_else(|e| e.offset)
    }

    #[test]
    fn rfc4648_test_vectors_round_trip() {
        // RFC 4648 section 10, also Go's base64_test.go `pairs`.
        for (plain, encoded) in [
            ("", ""),
            ("f", "Zg=="),
            ("fo", "Zm8="),
            ("foo", "Zm9v"),
            ("foob", "Zm9vYg=="),
            ("fooba", "Zm9vYmE="),
            ("foobar", "Zm9vYmFy"),
        ] {
            assert_eq!(encode(plain.as_bytes()), encoded);
            assert_eq!(ok(encoded), plain.as_bytes(), "{encoded}");
        }
        let bytes: Vec<u8> = (0..=255u8).chain((0..=255u8).rev()).collect();
        for len in 0..bytes.len() {
            assert_eq!(ok(&encode(&bytes[..len])), &bytes[..len], "len {len}");
        }
    }

    /// Go's src/encoding/base64/base64_test.go `TestDecodeCorrupt` (golang/go commit 185e6094),
    /// for `StdEncoding`: the input and the offset of Go's `CorruptInputError` (-1: no error);
    /// and `TestNewLineCharacters`, every spelling of "sure".
    #[test]
    fn refuses_what_go_refuses_at_the_offset_go_reports() {
        let cases: &[(&str, i64)] = &[
            ("", -1),
            ("\n", -1),
            ("AAA=\n", -1),
            ("AAAA\n", -1),
            ("!!!!", 0),
            ("====", 0),
            ("x===", 1),
            ("=AAA", 0),
            ("A=AA", 1),
            ("AA=A", 2),
            ("AA==A", 4),
            ("AAA=AAAA", 4),
            ("AAAAA", 4),
            ("AAAAAA", 4),
            ("A=", 1),
            ("A==", 1),
            ("AA=", 3),
            ("AA==", -1),
            ("AAA=", -1),
            ("AAAA", -1),
            ("AAAAAA=", 7),
            ("YWJjZA=====", 8),
            ("A!\n", 1),
            ("A=\n", 1),
        ];
        for &(input, offset) in cases {
            match decode(input.as_bytes()) {
                Ok(v) => assert_eq!(offset, -1, "{input:?} decoded to {v:?}"),
                Err(e) => assert_eq!(e.offset as i64, offset, "{input:?}"),
            }
            assert_eq!(go_error_offset(input.as_bytes()).map_or(-1, |o| o as i64), offset, "{input:?}");
        }
        for input in [
            "c3VyZQ==",
            "c3VyZQ==\r",
            "c3VyZQ==\n",
            "c3VyZQ==\r\n",
            "c3VyZ\r\nQ==",
            "c3V\ryZ\nQ==",
            "c3V\nyZ\rQ==",
            "c3VyZ\nQ==",
            "c3VyZQ\n==",
            "c3VyZQ=\n=",
            "c3VyZQ=\r\n\r\n=",
        ] {
            assert_eq!(ok(input), b"sure", "{input:?}");
            assert_eq!(go_error_offset(input.as_bytes()), None, "{input:?}");
        }
        // TestDecoderIssue15656: not Strict, so unused bits in the last character are fine.
        assert_eq!(ok("WvLTlMrX9NpYDQlEIFlnDB==").len(), 16);
    }

    #[test]
    fn line_breaks_are_ignored_and_other_whitespace_is_refused() {
        // A value wrapped over lines (as `kubectl config view --raw` never writes, but editors do).
        assert_eq!(ok("Zm9v\nYmFy\r\n"), b"foobar");
        assert_eq!(ok("Zm9vYg\n=\r\n=\n"), b"foob");
        // Go ignores only \r and \n: a folded YAML value (spaces) or a tab is an error.
        assert_eq!(refused("Zm9v YmFy"), 4);
        assert_eq!(refused("\tZm9v"), 0);
    }

    #[test]
    fn padding_is_required_and_url_safe_characters_refused() {
        assert_eq!(refused("Zg"), 0);
        assert_eq!(refused("Zm8"), 0);
        assert_eq!(refused("Zm9vYg"), 4);
        assert_eq!(refused("Zm9-"), 3);
        assert_eq!(refused("ab_c"), 2);
        assert_eq!(refused("ab\0c"), 2);
        assert_eq!(refused("abç="), 2);
    }

    #[test]
    fn unused_low_bits_of_the_last_character_are_ignored_as_in_go() {
        // "Zh==" has low bits set in 'h' (Go's StdEncoding accepts it; Strict would not).
        assert_eq!(ok("Zh=="), b"f");
        assert_eq!(ok("Zm9="), b"fo");
    }

    #[test]
    fn kubeconfig_fixture_values() {
        // Values from the javascript client's test kubeconfig.
        assert_eq!(ok("Q0FEQVRB"), b"CADATA");
        assert_eq!(ok("Q0FEQVRBMg=="), b"CADATA2");
        assert_eq!(ok("VVNFUl9DQURBVEE="), b"USER_CADATA");
    }

    #[test]
    fn errors_read_as_go_writes_them() {
        assert_eq!(decode(b"ab-c").map_err(|e| e.to_string()), Err("illegal base64 data at input byte 2".to_string()));
    }
}
