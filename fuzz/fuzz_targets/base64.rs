//! Base64 as Go's `StdEncoding` reads it (kubeconfig `*-data` fields): the crate decides, and
//! the emulation of Go's error offsets must agree that there is an error exactly when the crate
//! refuses, point inside the input, and every decoded value must encode back to its input less
//! line breaks (canonical padding, except for unused low bits Go ignores).
#![no_main]

use edgesched::shell::kube::base64::{decode, encode, go_error_offset};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|input: &[u8]| {
    match decode(input) {
        Ok(bytes) => {
            assert_eq!(go_error_offset(input), None, "{input:?} decodes but Go's offsets say it does not");
            let text: Vec<u8> = input.iter().copied().filter(|b| !matches!(b, b'\r' | b'\n')).collect();
            let again = encode(&bytes);
            assert_eq!(again.len(), text.len(), "{input:?}");
            assert_eq!(decode(again.as_bytes()).as_deref(), Ok(bytes.as_slice()));
        }
        Err(e) => {
            assert_eq!(go_error_offset(input), Some(e.offset), "{input:?}");
            assert!(e.offset <= input.len());
        }
    }
});
