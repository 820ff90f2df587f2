//! The command line of `explain` and `status`, the read-only questions to a live cluster.

use super::values::parse_bool;
use super::{Acc, Command, UsageError};
use std::path::PathBuf;

impl Acc {
    /// Take `name` if it is a flag of `explain` only.
    pub(super) fn set_diagnose(&mut self, name: &'static str, v: &str) -> Result<bool, UsageError> {
        let text = || Some(v.to_string());
        match name {
            "namespace" => self.namespace = text(),
            "all-pending" => self.all_pending = parse_bool(name, v)?,
            _ => return Ok(false),
        }
        Ok(true)
    }

    /// `explain`'s question: pod names or `--all-pending`.
    pub(super) fn finish_explain(self, kubeconfig: Option<PathBuf>) -> Result<Command, UsageError> {
        if self.positionals.is_empty() && !self.all_pending {
            return Err(UsageError::new("explain needs pod names or --all-pending"));
        }
        Ok(Command::Explain {
            kubeconfig,
            config: self.run.config,
            master: self.run.master,
            namespace: self.namespace,
            pods: self.positionals,
            all_pending: self.all_pending,
            output: self.output,
            allow_insecure_http: self.run.allow_insecure_http,
            request_timeout: self.request_timeout,
        })
    }

    /// `status`'s connection and output.
    pub(super) fn finish_status(self, kubeconfig: Option<PathBuf>) -> Command {
        Command::Status {
            kubeconfig,
            config: self.run.config,
            master: self.run.master,
            output: self.output,
            allow_insecure_http: self.run.allow_insecure_http,
            request_timeout: self.request_timeout,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::testing::{args, usage};
    use super::super::*;

    #[test]
    fn explain_and_status() {
        assert_eq!(
            parse(args(&["explain", "-n", "apps", "web-0", "web-1", "--kubeconfig=/k"])).unwrap(),
            Command::Explain {
                kubeconfig: Some(PathBuf::from("/k")),
                config: None,
                master: None,
                namespace: Some("apps".into()),
                pods: vec!["web-0".into(), "web-1".into()],
                all_pending: false,
                output: OutputFormat::Table,
                allow_insecure_http: false,
                request_timeout: None,
            }
        );
        assert!(matches!(parse(args(&["explain", "--all-pending"])).unwrap(), Command::Explain { all_pending: true, .. }));
        assert_eq!(usage(&["explain"]), "explain needs pod names or --all-pending");
        assert_eq!(
            parse(args(&["status", "--master=http://m", "--output", "json", "--allow-insecure-http"])).unwrap(),
            Command::Status {
                kubeconfig: None,
                config: None,
                master: Some("http://m".into()),
                output: OutputFormat::Json,
                allow_insecure_http: true,
                request_timeout: None,
            }
        );
    }
}
