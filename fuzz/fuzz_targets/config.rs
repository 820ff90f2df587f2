//! The KubeSchedulerConfiguration loader (every supported version) from raw bytes: it must return
//! a configuration or an error naming the source, never panic or hang. The first byte picks an
//! apiVersion header that is prepended when the input has none, so mutations of the body are
//! exercised against v1, v1beta3, v1beta2 and v1beta1 alike.
#![no_main]

use libfuzzer_sys::fuzz_target;

const VERSIONS: [&str; 4] = [
    "kubescheduler.config.k8s.io/v1",
    "kubescheduler.config.k8s.io/v1beta3",
    "kubescheduler.config.k8s.io/v1beta2",
    "kubescheduler.config.k8s.io/v1beta1",
];

fuzz_target!(|data: &[u8]| {
    let Some((&selector, body)) = data.split_first() else {
        return;
    };
    let owned;
    let bytes = if body.windows(b"apiVersion".len()).any(|w| w == b"apiVersion") {
        body
    } else {
        let mut v =
            format!("apiVersion: {}\nkind: KubeSchedulerConfiguration\n", VERSIONS[usize::from(selector) % VERSIONS.len()])
                .into_bytes();
        v.extend_from_slice(body);
        owned = v;
        &owned
    };
    match edgesched::core::config::load_bytes(bytes, "fuzz.yaml") {
        Ok(loaded) => {
            // A loaded configuration must also dump and re-validate without panicking.
            let _ = edgesched::core::config::to_yaml(&loaded.config);
            let _ = edgesched::core::config::to_json(&loaded.config);
            let _ = edgesched::core::config::validate(&loaded.config);
        }
        Err(e) => assert!(e.to_string().contains("fuzz.yaml"), "error does not name the file: {e}"),
    }
});
