//! Reading the files a configuration points at (kubeconfigs, certificates, keys, token files)
//! with a size cap, so a wrong path (a log file, `/dev/zero`) fails instead of exhausting memory.

use std::io;
use std::path::Path;

/// Reads a referenced file with a size cap (swappable so fuzzing never touches the filesystem).
pub type FileReader = fn(&Path, u64) -> io::Result<Vec<u8>>;

/// Largest file a kubeconfig may reference (CA bundle, client certificate or key, token file).
pub const MAX_REFERENCED_FILE_BYTES: u64 = 4 * 1024 * 1024;

/// Read a whole file, refusing more than `max` bytes. Reads at most `max + 1` bytes, so endless
/// files (`/dev/zero`, a FIFO) fail instead of exhausting memory.
pub fn read_capped(path: &Path, max: u64) -> io::Result<Vec<u8>> {
    use std::io::Read;
    let file = std::fs::File::open(path)?;
    let mut bytes = Vec::new();
    file.take(max + 1).read_to_end(&mut bytes)?;
    if bytes.len() as u64 > max {
        return Err(io::Error::new(
            io::ErrorKind::InvalidData,
            format!("file is larger than {} MiB ({max} bytes); refused", max / (1024 * 1024)),
        ));
    }
    Ok(bytes)
}
