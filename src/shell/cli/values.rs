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
    /// `simulate` and `capacity`: one self-contained HTML page.
    Html,
}

/// One value of `--output`: its spellings (the first is the name) and the commands that print
/// it (`None`: every command with `--output`).
pub(super) struct OutputRow {
    pub(super) format: OutputFormat,
    pub(super) spellings: &'static [&'static str],
    pub(super) commands: Option<&'static [&'static str]>,
}

/// Every output format: what `--output` accepts, and which commands refuse which format, come
/// from here (the flag's help names the same values; a test checks it).
pub(super) const OUTPUT_FORMATS: &[OutputRow] = &[
    OutputRow { format: OutputFormat::Table, spellings: &["table", "text"], commands: None },
    OutputRow { format: OutputFormat::Json, spellings: &["json"], commands: None },
    OutputRow { format: OutputFormat::Placements, spellings: &["placements"], commands: Some(&["simulate"]) },
    OutputRow { format: OutputFormat::Html, spellings: &["html"], commands: Some(&["simulate", "capacity"]) },
];

impl OutputFormat {
    fn row(self) -> &'static OutputRow {
        // Every variant has its row (a test checks it); Table's is first.
        OUTPUT_FORMATS.iter().find(|r| r.format == self).unwrap_or(&OUTPUT_FORMATS[0])
    }

    /// The format's name, as `--output` takes it.
    pub fn name(self) -> &'static str {
        self.row().spellings[0]
    }

    /// Refuse the format for a command that does not print it:
    /// `--output placements is for simulate, not explain`.
    pub(super) fn check_command(self, command: &str) -> Result<(), UsageError> {
        match self.row().commands {
            Some(cmds) if !cmds.contains(&command) => {
                Err(UsageError::new(format!("--output {} is for {}, not {command}", self.name(), cmds.join(" and "))))
            }
            _ => Ok(()),
        }
    }
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
    if let Some(row) = OUTPUT_FORMATS.iter().find(|r| r.spellings.contains(&v)) {
        return Ok(row.format);
    }
    let names: Vec<&str> = OUTPUT_FORMATS.iter().map(|r| r.spellings[0]).collect();
    let (last, rest) = names.split_last().map_or(("", &[][..]), |(l, r)| (*l, r));
    Err(UsageError::new(format!("invalid argument {v:?} for --output: expected {} or {last}", rest.join(", "))))
}

/// The values of `--output`, as the flag's help shows them: `table|json|placements|html` (a
/// test checks the help against it).
#[cfg(test)]
pub(super) fn output_values() -> String {
    OUTPUT_FORMATS.iter().map(|r| r.spellings[0]).collect::<Vec<_>>().join("|")
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
