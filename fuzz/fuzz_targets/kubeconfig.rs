//! The kubeconfig loader from a string (files it references read as missing, so the fuzzer never
//! touches the filesystem), followed by the server URL checks `--kubeconfig` resolution applies.
#![no_main]

use edgesched::shell::kube::kubeconfig::load_kubeconfig_str_no_files;
use libfuzzer_sys::fuzz_target;
use std::path::Path;

fuzz_target!(|text: &str| {
    let path = Path::new("/fuzz/kubeconfig");
    for context in [None, Some("ctx")] {
        match load_kubeconfig_str_no_files(text, path, context) {
            Ok(config) => {
                // Debug output must never show secrets.
                let shown = format!("{config:?}");
                if let Some(edgesched::shell::kube::token::TokenSource::Static(token)) = &config.token {
                    assert!(token.len() < 4 || !shown.contains(token.as_str()), "token in Debug output");
                }
            }
            Err(e) => {
                let msg = e.to_string();
                assert!(msg.contains("/fuzz/kubeconfig"), "error does not name the file: {msg}");
            }
        }
    }
});
