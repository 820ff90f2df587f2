//! The hand-written pod decoder (`core::api::pod_wire`, the fast path of list pages and watch
//! events) against the general decoder (`gojson` over the serde derive): whenever the fast
//! decoder returns a pod, whole or node-side, the general one must accept the same text and
//! build the same pod (the check shared with `tests/pod_wire.rs`). Seeds are watch-event pods.
#![no_main]

#[path = "../../tests/support/pod_decoders_agree.rs"]
mod pod_decoders_agree;

use libfuzzer_sys::fuzz_target;

fuzz_target!(|text: &str| {
    pod_decoders_agree::agree(text);
});
