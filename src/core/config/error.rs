//! Configuration errors that name the file, the field path and (for decoding problems) the line.
//!
//! Validation problems are worded like upstream's `field.Error` (`Invalid value: 0: ...`,
//! `Required value`, `Duplicate value: "x"`, `Unsupported value: ...`, `Forbidden: ...`) so that
//! messages users paste from kube-scheduler logs and from ours look alike.

use std::fmt;

/// One problem at one field (or with the whole file when `path` is `None`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Problem {
    /// Field path such as `profiles[0].pluginConfig[1].args.minCandidateNodesPercentage`.
    pub path: Option<String>,
    pub message: String,
}

impl Problem {
    /// A problem with a specific field.
    pub fn at(path: impl Into<String>, message: impl Into<String>) -> Problem {
        Problem { path: Some(path.into()), message: message.into() }
    }

    /// A problem with the whole document.
    pub fn whole(message: impl Into<String>) -> Problem {
        Problem { path: None, message: message.into() }
    }
}

impl fmt::Display for Problem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.path {
            Some(p) if !p.is_empty() => write!(f, "{p}: {}", self.message),
            _ => f.write_str(&self.message),
        }
    }
}

/// Why a configuration could not be used. Displays one line per problem:
/// `<file>: <field.path>: <message>` or `<file>: <message>`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConfigError {
    /// The file name (or another source name such as `command line`).
    pub file: String,
    /// Never empty.
    pub problems: Vec<Problem>,
}

impl ConfigError {
    /// An error made of one problem.
    pub fn new(file: &str, problem: Problem) -> ConfigError {
        ConfigError { file: file.to_string(), problems: vec![problem] }
    }

    /// An error made of several problems; `None` when there are none.
    pub fn from_problems(file: &str, problems: Vec<Problem>) -> Option<ConfigError> {
        if problems.is_empty() {
            None
        } else {
            Some(ConfigError { file: file.to_string(), problems })
        }
    }

    /// A whole-file error.
    pub fn whole(file: &str, message: impl Into<String>) -> ConfigError {
        ConfigError::new(file, Problem::whole(message))
    }

    /// The first problem (there is always one).
    pub fn first(&self) -> Option<&Problem> {
        self.problems.first()
    }
}

impl fmt::Display for ConfigError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, p) in self.problems.iter().enumerate() {
            if i > 0 {
                f.write_str("\n")?;
            }
            write!(f, "{}: {p}", self.file)?;
        }
        Ok(())
    }
}

impl std::error::Error for ConfigError {}

/// Upstream's `field.Invalid`: `Invalid value: <value>: <detail>`.
pub fn invalid(path: &str, value: impl fmt::Display, detail: &str) -> Problem {
    Problem::at(path, format!("Invalid value: {value}: {detail}"))
}

/// Upstream's `field.Required`: `Required value[: detail]`.
pub fn required(path: &str, detail: &str) -> Problem {
    if detail.is_empty() {
        Problem::at(path, "Required value")
    } else {
        Problem::at(path, format!("Required value: {detail}"))
    }
}

/// Upstream's `field.Duplicate`: `Duplicate value: <value>`.
pub fn duplicate(path: &str, value: impl fmt::Display) -> Problem {
    Problem::at(path, format!("Duplicate value: {value}"))
}

/// Upstream's `field.NotSupported`: `Unsupported value: "x": supported values: "a", "b"`.
pub fn not_supported(path: &str, value: &str, supported: &[&str]) -> Problem {
    let list: Vec<String> = supported.iter().map(|s| format!("{s:?}")).collect();
    Problem::at(path, format!("Unsupported value: {value:?}: supported values: {}", list.join(", ")))
}

/// Upstream's `field.Forbidden`: `Forbidden: <detail>`.
pub fn forbidden(path: &str, detail: &str) -> Problem {
    Problem::at(path, format!("Forbidden: {detail}"))
}

/// A string value formatted the way Go's `%q` prints it in field errors.
pub fn quoted(s: &str) -> String {
    format!("{s:?}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn display_names_file_path_and_message() {
        let e = ConfigError::new("/etc/s.yaml", Problem::at("profiles[1].plugins", "expected mapping"));
        assert_eq!(e.to_string(), "/etc/s.yaml: profiles[1].plugins: expected mapping");
        let e = ConfigError::whole("/etc/s.yaml", "file is empty");
        assert_eq!(e.to_string(), "/etc/s.yaml: file is empty");
    }

    #[test]
    fn several_problems_are_one_line_each() {
        let e = ConfigError::from_problems("f", vec![required("a", ""), duplicate("b", quoted("x"))]).unwrap();
        assert_eq!(e.to_string(), "f: a: Required value\nf: b: Duplicate value: \"x\"");
        assert!(ConfigError::from_problems("f", vec![]).is_none());
    }

    #[test]
    fn field_error_wording_matches_upstream() {
        assert_eq!(invalid("p", 0, "must be").to_string(), "p: Invalid value: 0: must be");
        assert_eq!(
            not_supported("t", "Foo", &["List", "System"]).to_string(),
            "t: Unsupported value: \"Foo\": supported values: \"List\", \"System\""
        );
        assert_eq!(forbidden("x", "no").to_string(), "x: Forbidden: no");
        assert_eq!(required("x", "can not be empty").to_string(), "x: Required value: can not be empty");
    }
}
