//! The parsers of flag values, with pflag's spellings and the usage errors kube-scheduler gives,
//! and the [`UsageError`] every part of the command line returns.

use crate::core::config::{parse_go_duration, GoDuration};
use std::ffi::OsString;
use std::fmt;
use std::time::Duration;

/// How subcommands print results.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum OutputFormat {
    #[default]
    Table,
    Json,
    /// `simulate` only: one `NAMESPACE/NAME NODE` line per pod.
    Placements,
}

/// A command line that cannot be used; the caller exits with status 2.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UsageError {
    pub message: String,
}

impl UsageError {
    pub(super) fn new(message: impl Into<String>) -> UsageError {
        UsageError { message: message.into() }
    }
}

impl fmt::Display for UsageError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} (see --help)", self.message)
    }
}

impl std::error::Error for UsageError {}

pub(super) fn lexopt_error(e: lexopt::Error) -> UsageError {
    UsageError::new(e.to_string())
}

pub(super) fn utf8(name: &str, v: OsString) -> Result<String, UsageError> {
    v.into_string().map_err(|v| UsageError::new(format!("invalid argument {v:?} for --{name}: not UTF-8")))
}

/// pflag/strconv.ParseBool spellings.
pub(super) fn parse_bool(name: &str, v: &str) -> Result<bool, UsageError> {
    match v {
        "1" | "t" | "T" | "true" | "TRUE" | "True" => Ok(true),
        "0" | "f" | "F" | "false" | "FALSE" | "False" => Ok(false),
        _ => Err(UsageError::new(format!("invalid argument {v:?} for --{name}: expected true or false"))),
    }
}

pub(super) fn parse_num<T: std::str::FromStr>(name: &str, v: &str, what: &str) -> Result<T, UsageError> {
    v.trim().parse().map_err(|_| UsageError::new(format!("invalid argument {v:?} for --{name}: expected {what}")))
}

pub(super) fn parse_duration(name: &str, v: &str) -> Result<GoDuration, UsageError> {
    parse_go_duration(v)
        .map(GoDuration)
        .map_err(|_| UsageError::new(format!("invalid argument {v:?} for --{name}: expected a duration such as 15s or 1m30s")))
}

/// kubectl's `--request-timeout`: a plain integer is seconds, otherwise a duration; 0 is none.
pub(super) fn parse_request_timeout(v: &str) -> Result<Duration, UsageError> {
    if let Ok(secs) = v.trim().parse::<u64>() {
        return Ok(Duration::from_secs(secs));
    }
    parse_go_duration(v).map_err(|_| {
        UsageError::new(format!(
            "invalid argument {v:?} for --request-timeout: invalid timeout value. Timeout must be a single integer in seconds, or an integer followed by a corresponding time unit (e.g. 1s | 2m | 3h)"
        ))
    })
}

pub(super) fn comma_list(v: &str) -> Vec<String> {
    v.split(',').map(str::trim).filter(|s| !s.is_empty()).map(str::to_string).collect()
}

pub(super) fn parse_output(v: &str) -> Result<OutputFormat, UsageError> {
    match v {
        "table" | "text" => Ok(OutputFormat::Table),
        "json" => Ok(OutputFormat::Json),
        "placements" => Ok(OutputFormat::Placements),
        _ => Err(UsageError::new(format!("invalid argument {v:?} for --output: expected table, json or placements"))),
    }
}

/// A `resource.QuantityValue` of bytes (`512`, `1K`, `2Ki`).
pub(super) fn parse_buffer_size(name: &str, v: &str) -> Result<u64, UsageError> {
    crate::core::quantity::Quantity::parse(v)
        .ok()
        .and_then(|q| u64::try_from(q.value()).ok())
        .ok_or_else(|| UsageError::new(format!("invalid argument {v:?} for --{name}: expected a non-negative quantity of bytes")))
}

pub(super) fn parse_ip(name: &str, v: &str) -> Result<String, UsageError> {
    v.trim()
        .parse::<std::net::IpAddr>()
        .map(|ip| ip.to_string())
        .map_err(|_| UsageError::new(format!("invalid argument {v:?} for --{name}: expected an IP address")))
}
