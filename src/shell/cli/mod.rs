//! The command line, shaped like kube-scheduler's so existing manifests and unit files keep working:
//! the same flag names, `--flag=value` and `--flag value`, booleans as `--flag` or `--flag=false`.
//! Flags kube-scheduler has dropped over the years are accepted with a warning when ignoring them is
//! harmless; unknown flags are usage errors that suggest the closest real flag.
//!
//! Subcommands (`check-config`, `simulate`, `snapshot`, `capacity`, `explain`, `status`) must be
//! the first argument; without one the scheduler runs.
//!
//! One file per command family holds its options and the flags only it reads: `run.rs` (the
//! scheduler), `what_if.rs` (`simulate`, `snapshot`, `capacity`) and `diagnose.rs` (`explain`,
//! `status`); `flags.rs` is the one table of every flag with what is derived from it (help,
//! unknown-flag hints, the `FLAG:` dump), `values.rs` the parsers of flag values. This file
//! walks the arguments and hands each flag to the command that reads it.

mod diagnose;
mod flags;
mod run;
mod values;
mod what_if;

use crate::core::config::Overrides;
use flags::{find_flag, help, unknown_flag, Cmd, Flag, Kind};
use lexopt::Arg;
use std::ffi::OsString;
use std::path::PathBuf;
use std::time::Duration;
use values::{lexopt_error, parse_bool, parse_output, parse_request_timeout, utf8};

pub use run::RunOptions;
pub use values::{OutputFormat, UsageError};
pub use what_if::{CapacityOptions, ClusterSource, SimulateOptions, WhatIf, DEFAULT_SUMMARY_NODES, DEFAULT_TOP};

/// What the user asked for.
#[derive(Debug, Clone, PartialEq)]
#[allow(clippy::large_enum_variant)] // built once at startup; boxing would only add noise for callers
pub enum Command {
    /// Run the scheduler.
    Run(RunOptions),
    /// Load, default and validate a configuration (with flag overrides) and print it as v1.
    CheckConfig { config: Option<PathBuf>, overrides: Overrides, warnings: Vec<String> },
    /// Schedule the pending pods of a cluster file or a live cluster's snapshot (plus added
    /// objects, minus removed nodes) and report the placements.
    Simulate(SimulateOptions),
    /// Write a live cluster's scheduling state as a cluster file.
    Snapshot { source: ClusterSource },
    /// How many more copies of a pod fit, and where.
    Capacity(CapacityOptions),
    /// Explain why pods are pending, against a live cluster.
    Explain {
        kubeconfig: Option<PathBuf>,
        config: Option<PathBuf>,
        master: Option<String>,
        namespace: Option<String>,
        pods: Vec<String>,
        all_pending: bool,
        output: OutputFormat,
        allow_insecure_http: bool,
        request_timeout: Option<Duration>,
    },
    /// Report a running scheduler's health, leadership and profiles.
    Status {
        kubeconfig: Option<PathBuf>,
        config: Option<PathBuf>,
        master: Option<String>,
        output: OutputFormat,
        allow_insecure_http: bool,
        request_timeout: Option<Duration>,
    },
    /// Print the version.
    Version,
    /// Print this help text.
    Help(String),
}

/// Parse the arguments after the program name.
pub fn parse(args: impl IntoIterator<Item = OsString>) -> Result<Command, UsageError> {
    let mut args: Vec<OsString> = args.into_iter().collect();
    let cmd = match args.first().and_then(|a| a.to_str()).and_then(Cmd::from_word) {
        Some(c) => {
            args.remove(0);
            c
        }
        None => Cmd::Run,
    };
    let mut acc = Acc::default();
    let mut parser = lexopt::Parser::from_args(args);
    while let Some(arg) = parser.next().map_err(lexopt_error)? {
        let name = match arg {
            Arg::Short('h') => "help".to_string(),
            Arg::Short('v') if cmd == Cmd::Run => "v".to_string(),
            Arg::Short('n') if cmd == Cmd::Explain => "namespace".to_string(),
            Arg::Short(c) => return Err(UsageError::new(format!("unknown flag: -{c}"))),
            Arg::Long(l) => l.to_string(),
            Arg::Value(v) => {
                acc.positional(cmd, v)?;
                continue;
            }
        };
        let f = find_flag(&name).filter(|f| f.cmds & cmd.bit() != 0).ok_or_else(|| unknown_flag(cmd, &name))?;
        let value = match f.kind {
            Kind::Bool => match parser.optional_value() {
                None => "true".to_string(),
                Some(v) => utf8(&name, v)?,
            },
            Kind::Value(_) => {
                let v = parser.value().map_err(|_| UsageError::new(format!("flag needs an argument: --{name}")))?;
                utf8(&name, v)?
            }
        };
        if name == "help" && parse_bool(&name, &value)? {
            return Ok(Command::Help(help(cmd)));
        }
        acc.set(f, &value)?;
    }
    acc.finish(cmd)
}

/// Flag values seen so far, for any command.
#[derive(Default)]
struct Acc {
    run: RunOptions,
    secure_port: Option<u16>,
    cluster: Option<PathBuf>,
    output: OutputFormat,
    seed: Option<u64>,
    namespace: Option<String>,
    all_pending: bool,
    request_timeout: Option<Duration>,
    positionals: Vec<String>,
    version: bool,
    top: Option<usize>,
    summary: bool,
    summary_nodes: Option<usize>,
    lenient: bool,
    what_if: WhatIf,
    pod: Option<PathBuf>,
    max: Option<usize>,
    /// (split stream, info buffer size) for JSON and for text; the format chosen picks one.
    log_streams: [(bool, u64); 2],
    /// `--feature-gates` occurrences, checked once every flag is read (as upstream's
    /// compatibility registry applies them after parsing).
    feature_gate_flag: crate::core::features::FeatureGatesFlag,
    /// Flags as given, in order (for the `FLAG:` dump).
    given: Vec<(&'static str, String)>,
}

impl Acc {
    fn positional(&mut self, cmd: Cmd, v: OsString) -> Result<(), UsageError> {
        let v = v.to_string_lossy().to_string();
        if cmd == Cmd::Explain {
            self.positionals.push(v);
            return Ok(());
        }
        if Cmd::from_word(&v).is_some() {
            return Err(UsageError::new(format!("the subcommand must come first: edgesched {v} [flags]")));
        }
        if matches!(v.as_str(), "true" | "false") {
            return Err(UsageError::new(format!(
                "unexpected argument {v:?}: boolean flags take their value with '=', e.g. --leader-elect=false"
            )));
        }
        Err(UsageError::new(format!("unexpected argument {v:?}")))
    }

    fn set(&mut self, f: &Flag, v: &str) -> Result<(), UsageError> {
        let name = f.name;
        let text = || Some(v.to_string());
        let path = || Some(PathBuf::from(v));
        match name {
            "config" => self.run.config = path(),
            "master" => self.run.master = text(),
            "kubeconfig" => self.run.overrides.kubeconfig = text(),
            "output" => self.output = parse_output(v)?,
            "request-timeout" => self.request_timeout = Some(parse_request_timeout(v)?),
            "allow-insecure-http" => self.run.allow_insecure_http = parse_bool(name, v)?,
            "version" => self.version = !matches!(v, "false" | "0" | "f" | "F" | "FALSE" | "False"),
            // A flag of one command's own: the command's setter says whether it took it.
            _ => {
                let taken = self.set_what_if(name, v)? || self.set_diagnose(name, v)? || self.set_run(name, v)?;
                if !taken && f.kind == Kind::Bool {
                    parse_bool(name, v)?;
                }
            }
        }
        self.given.push((f.name, v.to_string()));
        self.note(f, v);
        Ok(())
    }

    fn finish(mut self, cmd: Cmd) -> Result<Command, UsageError> {
        if self.version {
            return Ok(Command::Version);
        }
        self.output.check_command(cmd.name())?;
        if self.cluster.is_some() && self.run.overrides.kubeconfig.is_some() {
            return Err(UsageError::new("give --cluster FILE or --kubeconfig, not both"));
        }
        self.run.overrides.config_file_given = self.run.config.is_some();
        let mut warnings = std::mem::take(&mut self.run.warnings);
        warnings.extend(crate::core::config::override_warnings(&self.run.overrides));
        let kubeconfig = self.run.overrides.kubeconfig.clone().map(PathBuf::from);
        Ok(match cmd {
            Cmd::Run => self.finish_run(warnings)?,
            Cmd::CheckConfig => Command::CheckConfig { config: self.run.config, overrides: self.run.overrides, warnings },
            Cmd::Simulate => self.finish_simulate(kubeconfig)?,
            Cmd::Snapshot => Command::Snapshot { source: self.source(kubeconfig) },
            Cmd::Capacity => self.finish_capacity(kubeconfig)?,
            Cmd::Explain => self.finish_explain(kubeconfig)?,
            Cmd::Status => self.finish_status(kubeconfig),
        })
    }
}

/// The help text of a command: usage, then its flags grouped like kube-scheduler's `--help`.
pub fn help_text(subcommand: Option<&str>) -> String {
    help(subcommand.and_then(Cmd::from_word).unwrap_or(Cmd::Run))
}

/// What the parsing tests of every command share.
#[cfg(test)]
mod testing {
    use super::*;

    pub(super) fn args(list: &[&str]) -> Vec<OsString> {
        list.iter().map(OsString::from).collect()
    }

    pub(super) fn run(list: &[&str]) -> RunOptions {
        match parse(args(list)) {
            Ok(Command::Run(o)) => o,
            other => panic!("{other:?}"),
        }
    }

    pub(super) fn usage(list: &[&str]) -> String {
        match parse(args(list)) {
            Err(e) => e.message,
            Ok(c) => panic!("expected a usage error, got {c:?}"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::testing::{args, usage};
    use super::*;

    #[test]
    fn version_and_help() {
        assert_eq!(parse(args(&["--version"])).unwrap(), Command::Version);
        assert_eq!(parse(args(&["--version=raw"])).unwrap(), Command::Version);
        let Command::Help(text) = parse(args(&["-h"])).unwrap() else { panic!() };
        assert!(text.contains("Leader election flags:"));
        let Command::Help(sim) = parse(args(&["simulate", "--help"])).unwrap() else { panic!() };
        assert!(sim.contains("--cluster path") && !sim.contains("--secure-port"));
        assert_eq!(help_text(Some("simulate")), sim);
    }

    #[test]
    fn subcommands() {
        assert_eq!(
            parse(args(&["check-config", "--config=/c.yaml", "--leader-elect=false"])).unwrap(),
            Command::CheckConfig {
                config: Some(PathBuf::from("/c.yaml")),
                overrides: Overrides { config_file_given: true, leader_elect: Some(false), ..Default::default() },
                warnings: vec![],
            }
        );
        assert_eq!(usage(&["simulate", "--cluster=c", "--kubeconfig=k"]), "give --cluster FILE or --kubeconfig, not both");
        assert_eq!(
            usage(&["explain", "--all-pending", "--output=placements"]),
            "--output placements is for simulate, not explain"
        );
        assert_eq!(usage(&["status", "--output=html"]), "--output html is for simulate and capacity, not status");
        assert_eq!(
            usage(&["explain", "--all-pending", "--output", "html"]),
            "--output html is for simulate and capacity, not explain"
        );
        assert_eq!(usage(&["--v=2", "simulate"]), "the subcommand must come first: edgesched simulate [flags]");
    }
}
