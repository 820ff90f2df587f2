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
        if let Ok(tag) = Tag::try_from(tag) {
            if let Some(text) = directory_string(tag, value) {
                if matches!(tag, Tag::PrintableString | Tag::Ia5String | Tag::NumericString) {
                    assert_eq!(text.as_bytes(), value);
                }
            }
        }
    }
});
