//! The bearer token a client sends: a fixed string from a kubeconfig, or a token file that the
//! kubelet rotates (projected service-account tokens), re-read periodically like client-go's
//! cached file token source.

use crate::shell::kube::files::{read_capped, FileReader, MAX_REFERENCED_FILE_BYTES};
use std::fmt;
use std::io;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// Where the bearer token comes from. A file source is re-read periodically because projected
/// service-account tokens are rotated by the kubelet (typically hourly).
#[derive(Clone, PartialEq, Eq)]
pub enum TokenSource {
    /// A token written in the kubeconfig itself.
    Static(String),
    /// A token file, re-read every [`TOKEN_FILE_REFRESH`].
    File(PathBuf),
}

impl fmt::Debug for TokenSource {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TokenSource::Static(_) => f.write_str("Static(<redacted>)"),
            TokenSource::File(path) => f.debug_tuple("File").field(path).finish(),
        }
    }
}

/// How long a token read from a file is trusted before the file is read again; client-go's
/// `NewCachedFileTokenSource` uses one minute (`transport/token_source.go`).
pub const TOKEN_FILE_REFRESH: Duration = Duration::from_secs(60);

/// Why no bearer token could be produced.
#[derive(Debug)]
pub enum TokenError {
    /// The token file could not be read.
    Read { path: PathBuf, source: io::Error },
    /// The token file holds only whitespace.
    Empty { path: PathBuf },
}

impl fmt::Display for TokenError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TokenError::Read { path, source } => write!(f, "cannot read token file {}: {source}", path.display()),
            TokenError::Empty { path } => write!(f, "token file {} is empty", path.display()),
        }
    }
}

impl std::error::Error for TokenError {}

/// Hands out the current bearer token, caching file tokens for [`TOKEN_FILE_REFRESH`].
///
/// Mirrors client-go's cached file token source: after the refresh period the file is read again;
/// if that read fails while an older token is cached, the old token keeps being used (and the
/// failure is logged) so a transient error during rotation does not break every request.
#[derive(Debug)]
pub struct TokenProvider {
    source: TokenSource,
    cache: Mutex<Option<CachedToken>>,
}

#[derive(Debug)]
struct CachedToken {
    token: String,
    read_at: Instant,
}

impl TokenProvider {
    /// A provider with an empty cache: the first request reads the file.
    pub fn new(source: TokenSource) -> TokenProvider {
        TokenProvider { source, cache: Mutex::new(None) }
    }

    /// The token to send now.
    pub fn token(&self) -> Result<String, TokenError> {
        self.token_at(Instant::now())
    }

    /// Forget a file token read before `sent_at`, so the next request re-reads the file. Called
    /// when the API server answers 401 to a request that started at `sent_at`: the token was
    /// probably rotated before the refresh period ran out (client-go's bearerAuthRoundTripper
    /// calls `ResetTokenOlderThan` in the same situation).
    pub fn reset_older_than(&self, sent_at: Instant) {
        if matches!(self.source, TokenSource::Static(_)) {
            return;
        }
        let mut cache = self.cache.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        if cache.as_ref().is_some_and(|c| c.read_at <= sent_at) {
            *cache = None;
        }
    }

    /// The token to send at `now` (the clock is a parameter so rotation is testable).
    pub fn token_at(&self, now: Instant) -> Result<String, TokenError> {
        let path = match &self.source {
            TokenSource::Static(token) => return Ok(token.clone()),
            TokenSource::File(path) => path,
        };
        let mut cache = self.cache.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        if let Some(cached) = cache.as_ref() {
            if now.saturating_duration_since(cached.read_at) < TOKEN_FILE_REFRESH {
                return Ok(cached.token.clone());
            }
        }
        match read_token_file(path) {
            Ok(token) => {
                *cache = Some(CachedToken { token: token.clone(), read_at: now });
                Ok(token)
            }
            Err(err) => match cache.as_ref() {
                Some(cached) => {
                    crate::core::logging::Line::new("Unable to rotate token, using the previous one").s("err", &err).warning();
                    Ok(cached.token.clone())
                }
                None => Err(err),
            },
        }
    }
}

pub fn read_token_file(path: &Path) -> Result<String, TokenError> {
    read_token_file_with(path, read_capped)
}

pub fn read_token_file_with(path: &Path, read: FileReader) -> Result<String, TokenError> {
    let raw = read(path, MAX_REFERENCED_FILE_BYTES)
        .and_then(|bytes| String::from_utf8(bytes).map_err(|_| io::Error::new(io::ErrorKind::InvalidData, "not UTF-8 text")))
        .map_err(|source| TokenError::Read { path: path.to_path_buf(), source })?;
    let token = raw.trim();
    if token.is_empty() {
        return Err(TokenError::Empty { path: path.to_path_buf() });
    }
    Ok(token.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::shell::kube::write_file;

    #[test]
    fn token_provider_caches_file_tokens_for_a_minute_and_survives_read_errors() {
        let dir = crate::core::scratch::ScratchDir::new("kubeconfig-token");
        let file = write_file(&dir, "token", "one\n");
        let provider = TokenProvider::new(TokenSource::File(file.clone()));
        let t0 = Instant::now();
        assert_eq!(provider.token_at(t0).unwrap(), "one");
        std::fs::write(&file, "two").unwrap();
        assert_eq!(provider.token_at(t0 + Duration::from_secs(59)).unwrap(), "one");
        assert_eq!(provider.token_at(t0 + Duration::from_secs(60)).unwrap(), "two");
        std::fs::remove_file(&file).unwrap();
        // Rotation failure keeps the previous token rather than failing requests.
        assert_eq!(provider.token_at(t0 + Duration::from_secs(200)).unwrap(), "two");
        let fresh = TokenProvider::new(TokenSource::File(file));
        assert!(matches!(fresh.token_at(t0), Err(TokenError::Read { .. })));
        let fixed = TokenProvider::new(TokenSource::Static("abc".into()));
        assert_eq!(fixed.token_at(t0).unwrap(), "abc");
    }

    #[test]
    fn unauthorized_reset_rereads_a_rotated_token_file_before_the_refresh_period() {
        let dir = crate::core::scratch::ScratchDir::new("kubeconfig-token-reset");
        let file = write_file(&dir, "token", "old");
        let provider = TokenProvider::new(TokenSource::File(file.clone()));
        let t0 = Instant::now();
        assert_eq!(provider.token_at(t0).unwrap(), "old");
        std::fs::write(&file, "new").unwrap();
        // A 401 for a request sent before the token was read does not discard it...
        provider.reset_older_than(t0 - Duration::from_secs(1));
        assert_eq!(provider.token_at(t0 + Duration::from_secs(1)).unwrap(), "old");
        // ...one sent with it does, and the next request reads the rotated file.
        provider.reset_older_than(t0 + Duration::from_secs(1));
        assert_eq!(provider.token_at(t0 + Duration::from_secs(2)).unwrap(), "new");
    }
}
