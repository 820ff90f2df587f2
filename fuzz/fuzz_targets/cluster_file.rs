//! Cluster files (`simulate`/`capacity --cluster`, what `snapshot` writes): the streaming reader
//! (`shell::commands::cluster_file`: JSON documents one after another, or YAML cut into documents
//! at markers) and the object decoder behind it. Any bytes give objects or an error naming the
//! file, never a panic; the outcome does not depend on how the bytes arrive (read whole, then
//! through a buffer of 1–64 bytes chosen by the first input byte); what a strict read accepts a
//! lenient read accepts alike; and the objects read go into a cluster.
#![no_main]

use edgesched::core::simulate::Cluster;
use edgesched::shell::commands::cluster_file::read;
use libfuzzer_sys::fuzz_target;
use std::io::BufReader;

const NAME: &str = "fuzz-cluster.yaml";

/// The objects read (origin, kind and key) and the ignored kinds, or the error's text.
fn read_all(bytes: &[u8], buffer: usize, lenient: bool) -> Result<(Vec<String>, String), String> {
    let mut seen = Vec::new();
    let mut cluster = Cluster::default();
    let ignored = read(
        BufReader::with_capacity(buffer, bytes),
        NAME,
        &mut |origin, change| {
            seen.push(format!("{origin}: {:?} {}", change.id(), change.object().map(|o| o.key()).unwrap_or_default()));
            cluster.push(change);
            Ok(())
        },
        lenient,
    )
    .map_err(|e| e.0)?;
    assert!(cluster.changes().len() <= seen.len());
    Ok((seen, format!("{ignored:?}")))
}

fuzz_target!(|input: &[u8]| {
    let Some((&buffer, bytes)) = input.split_first() else { return };
    let whole = read_all(bytes, bytes.len().max(1), false);
    if let Err(e) = &whole {
        assert!(e.starts_with(NAME), "error does not name the file: {e}");
    }
    let small = read_all(bytes, usize::from(buffer % 64) + 1, false);
    assert_eq!(whole, small, "whole and through a small buffer differ");
    // Only after an accepted strict read: a lenient read that skips objects warns on stderr.
    if whole.is_ok() {
        let lenient = read_all(bytes, bytes.len().max(1), true);
        assert_eq!(whole, lenient, "the lenient read differs from an accepted strict read");
    }
});
