//! The what-if commands' command line (`simulate`, `snapshot`, `capacity`): where the cluster is
//! read from, the changes applied to it, and each command's options.

use super::values::{comma_list, parse_bool, parse_num};
use super::{Acc, Command, OutputFormat, UsageError};
use std::path::PathBuf;
use std::time::Duration;

/// Where a what-if command reads the cluster from: a cluster file or a live API server.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct ClusterSource {
    /// `--cluster FILE`.
    pub cluster: Option<PathBuf>,
    /// `--kubeconfig` (or the configuration's, or in-cluster) when no `--cluster` is given.
    pub kubeconfig: Option<PathBuf>,
    pub master: Option<String>,
    pub allow_insecure_http: bool,
    pub request_timeout: Option<Duration>,
    /// `--config`: the profiles to simulate with.
    pub config: Option<PathBuf>,
    /// `--lenient`: invalid objects in cluster files are warnings, not errors.
    pub lenient: bool,
}

/// `--add`, `--remove-node`, `--cordon`: the what-if changes applied to the cluster read.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct WhatIf {
    pub add: Vec<PathBuf>,
    pub remove_nodes: Vec<String>,
    pub cordon: Vec<String>,
}

/// `simulate`'s options.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct SimulateOptions {
    pub source: ClusterSource,
    pub what_if: WhatIf,
    pub output: OutputFormat,
    /// `--top N`: scored nodes (and node names per reason) shown per pod; 0 shows all.
    pub top: usize,
    /// `--summary`: a footer with placements by reason and per-node use.
    pub summary: bool,
    /// `--summary-nodes N`: the most utilised nodes the text summary lists; 0 lists all.
    pub summary_nodes: usize,
    pub seed: Option<u64>,
}

/// `capacity`'s options.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct CapacityOptions {
    pub source: ClusterSource,
    pub what_if: WhatIf,
    /// `--pod FILE`: the pod to copy.
    pub pod: PathBuf,
    /// `--max N`: stop after this many copies.
    pub max: Option<usize>,
    pub output: OutputFormat,
    pub seed: Option<u64>,
}

/// `--summary-nodes` when not given.
pub const DEFAULT_SUMMARY_NODES: usize = 10;

/// `--top` when not given.
pub const DEFAULT_TOP: usize = 5;

impl Acc {
    /// Take `name` if it is a flag of the what-if commands only.
    pub(super) fn set_what_if(&mut self, name: &'static str, v: &str) -> Result<bool, UsageError> {
        let path = || Some(PathBuf::from(v));
        match name {
            "cluster" => self.cluster = path(),
            "seed" => self.seed = Some(parse_num(name, v, "a non-negative integer")?),
            "top" => self.top = Some(parse_num(name, v, "a non-negative integer")?),
            "summary" => self.summary = parse_bool(name, v)?,
            "summary-nodes" => self.summary_nodes = Some(parse_num(name, v, "a non-negative integer")?),
            "lenient" => self.lenient = parse_bool(name, v)?,
            "add" => self.what_if.add.push(PathBuf::from(v)),
            "remove-node" => self.what_if.remove_nodes.extend(comma_list(v)),
            "cordon" => self.what_if.cordon.extend(comma_list(v)),
            "pod" => self.pod = path(),
            "max" => self.max = Some(parse_num(name, v, "a non-negative integer")?),
            _ => return Ok(false),
        }
        Ok(true)
    }

    /// The cluster source of a what-if command.
    pub(super) fn source(&mut self, kubeconfig: Option<PathBuf>) -> ClusterSource {
        ClusterSource {
            cluster: self.cluster.take(),
            kubeconfig,
            master: self.run.master.take(),
            allow_insecure_http: self.run.allow_insecure_http,
            request_timeout: self.request_timeout,
            config: self.run.config.take(),
            lenient: self.lenient,
        }
    }

    /// `simulate`'s options, once every flag is read.
    pub(super) fn finish_simulate(mut self, kubeconfig: Option<PathBuf>) -> Result<Command, UsageError> {
        if self.top.is_some() && self.output == OutputFormat::Placements {
            return Err(UsageError::new("--top has no effect with --output placements"));
        }
        Ok(Command::Simulate(SimulateOptions {
            source: self.source(kubeconfig),
            what_if: self.what_if,
            output: self.output,
            top: self.top.unwrap_or(DEFAULT_TOP),
            summary: self.summary,
            summary_nodes: self.summary_nodes.unwrap_or(DEFAULT_SUMMARY_NODES),
            seed: self.seed,
        }))
    }

    /// `capacity`'s options, once every flag is read (`--pod` is required).
    pub(super) fn finish_capacity(mut self, kubeconfig: Option<PathBuf>) -> Result<Command, UsageError> {
        Ok(Command::Capacity(CapacityOptions {
            pod: self.pod.clone().ok_or_else(|| UsageError::new("capacity needs --pod FILE"))?,
            source: self.source(kubeconfig),
            what_if: self.what_if,
            max: self.max,
            output: self.output,
            seed: self.seed,
        }))
    }
}

#[cfg(test)]
mod tests {
    use super::super::testing::{args, usage};
    use super::super::*;

    #[test]
    fn what_if_commands() {
        assert_eq!(
            parse(args(&["simulate", "--cluster", "c.yaml", "--output=json", "--seed=7"])).unwrap(),
            Command::Simulate(SimulateOptions {
                source: ClusterSource { cluster: Some(PathBuf::from("c.yaml")), ..Default::default() },
                output: OutputFormat::Json,
                top: DEFAULT_TOP,
                summary_nodes: DEFAULT_SUMMARY_NODES,
                seed: Some(7),
                ..Default::default()
            })
        );
        assert_eq!(
            parse(args(&[
                "simulate",
                "--kubeconfig=/k",
                "--add",
                "a.yaml",
                "--add=b.yaml",
                "--remove-node=n1,n2",
                "--cordon",
                "n3",
                "--output=placements",
                "--summary",
                "--lenient"
            ]))
            .unwrap(),
            Command::Simulate(SimulateOptions {
                source: ClusterSource { kubeconfig: Some(PathBuf::from("/k")), lenient: true, ..Default::default() },
                what_if: WhatIf {
                    add: vec![PathBuf::from("a.yaml"), PathBuf::from("b.yaml")],
                    remove_nodes: vec!["n1".into(), "n2".into()],
                    cordon: vec!["n3".into()],
                },
                output: OutputFormat::Placements,
                top: DEFAULT_TOP,
                summary: true,
                summary_nodes: DEFAULT_SUMMARY_NODES,
                seed: None,
            })
        );
        assert_eq!(usage(&["simulate", "--output=placements", "--top=3"]), "--top has no effect with --output placements");
        assert!(usage(&["simulate", "--cluster=c", "--output=yaml"]).contains("expected table, json, placements or html"));
        assert_eq!(
            usage(&["capacity", "--pod=p.yaml", "--output=placements"]),
            "--output placements is for simulate, not capacity"
        );
        let output = |list: &[&str]| match parse(args(list)) {
            Ok(Command::Simulate(o)) => o.output,
            Ok(Command::Capacity(o)) => o.output,
            other => panic!("{list:?}: {other:?}"),
        };
        assert_eq!(output(&["simulate", "--cluster=c.yaml", "--output=html"]), OutputFormat::Html);
        assert_eq!(output(&["capacity", "--pod=p.yaml", "--cluster=c.yaml", "--output=html"]), OutputFormat::Html);
        assert_eq!(usage(&["capacity"]), "capacity needs --pod FILE");
        assert_eq!(
            parse(args(&["capacity", "--pod=p.yaml", "--cluster=c.yaml", "--max=3", "--output=json"])).unwrap(),
            Command::Capacity(CapacityOptions {
                source: ClusterSource { cluster: Some(PathBuf::from("c.yaml")), ..Default::default() },
                pod: PathBuf::from("p.yaml"),
                max: Some(3),
                output: OutputFormat::Json,
                ..Default::default()
            })
        );
        assert_eq!(
            parse(args(&["snapshot", "--kubeconfig=/k"])).unwrap(),
            Command::Snapshot { source: ClusterSource { kubeconfig: Some(PathBuf::from("/k")), ..Default::default() } }
        );
        assert!(usage(&["snapshot", "--cluster=c"]).starts_with("unknown flag for snapshot: --cluster"));
    }
}
