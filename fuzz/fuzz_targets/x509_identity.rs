//! The client-certificate identity (subject common name and organisations) and a serving
//! certificate's names from arbitrary bytes: no panic, and an identity only from a certificate
//! the DER parser accepts. Seeds are generated certificates; the fuzzer mutates their subjects'
//! string tags and bytes.
#![no_main]

use edgesched::shell::serving::x509::{directory_string, names, subject};
use libfuzzer_sys::fuzz_target;
use x509_cert::der::{Decode, Tag};

fuzz_target!(|input: &[u8]| {
    let identity = subject(input);
    let _ = names(input);
    if identity.is_some() {
        assert!(x509_cert::Certificate::from_der(input).is_ok());
    }
    // The string decoder on its own: the first byte picks the type.
    if let Some((&tag, value)) = input.split_first() {
        let tag = match tag % 8 {
            0 => Tag::Utf8String,
            1 => Tag::PrintableString,
            2 => Tag::Ia5String,
            3 => Tag::NumericString,
            4 => Tag::TeletexString,
            5 => Tag::BmpString,
            6 => Tag::VisibleString,
            _ => Tag::OctetString,
        };
        match directory_string(tag, value) {
            Some(text) if matches!(tag, Tag::Utf8String | Tag::PrintableString | Tag::Ia5String | Tag::NumericString) => {
                assert_eq!(text.as_bytes(), value)
            }
            Some(text) if tag == Tag::TeletexString => assert_eq!(text.chars().count(), value.len()),
            Some(_) => assert_eq!(tag, Tag::BmpString),
            None => assert!(!matches!(tag, Tag::TeletexString)),
        }
    }
});
