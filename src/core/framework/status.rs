//! Plugin verdicts and the FitError message users read in `FailedScheduling` events.

use crate::core::texts::framework as texts;
use std::borrow::Cow;
use std::collections::BTreeMap;

/// Status codes of a rejecting plugin (upstream `fwk.Code`, minus Success/Skip/Wait which are
/// expressed through `Result`/`Option` here).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Code {
    /// The node does not fit now; preemption may help.
    Unschedulable,
    /// The node does not fit and preemption cannot change that.
    UnschedulableAndUnresolvable,
    /// An internal error (not the pod's fault).
    Error,
}

/// Why a plugin rejected a pod (for one node, or for the whole pod at PreFilter).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Rejection {
    pub code: Code,
    pub reasons: Reasons,
    /// The rejecting plugin, filled in by the framework.
    pub plugin: &'static str,
}

impl Rejection {
    pub fn unschedulable(reason: impl Into<Cow<'static, str>>) -> Rejection {
        Rejection { code: Code::Unschedulable, reasons: Reasons::One(reason.into()), plugin: "" }
    }

    pub fn unresolvable(reason: impl Into<Cow<'static, str>>) -> Rejection {
        Rejection { code: Code::UnschedulableAndUnresolvable, reasons: Reasons::One(reason.into()), plugin: "" }
    }

    pub fn error(reason: impl Into<Cow<'static, str>>) -> Rejection {
        Rejection { code: Code::Error, reasons: Reasons::One(reason.into()), plugin: "" }
    }

    pub fn with_plugin(mut self, plugin: &'static str) -> Rejection {
        self.plugin = plugin;
        self
    }

    /// All reasons joined as upstream's `Status.Message()` does (", ").
    pub fn message(&self) -> String {
        self.reasons.join(", ")
    }
}

/// A rejection's reasons (upstream `Status.reasons`). Filters reject thousands of nodes per
/// cycle, almost always with one static text: that case is held inline, so a per-node rejection
/// allocates nothing. Reads as a slice either way.
#[derive(Debug, Clone)]
pub enum Reasons {
    One(Cow<'static, str>),
    Many(Vec<Cow<'static, str>>),
}

impl Default for Reasons {
    fn default() -> Reasons {
        Reasons::Many(Vec::new())
    }
}

impl std::ops::Deref for Reasons {
    type Target = [Cow<'static, str>];
    fn deref(&self) -> &Self::Target {
        match self {
            Reasons::One(r) => std::slice::from_ref(r),
            Reasons::Many(v) => v,
        }
    }
}

impl PartialEq for Reasons {
    fn eq(&self, other: &Reasons) -> bool {
        self[..] == other[..]
    }
}

impl Eq for Reasons {}

impl<T> PartialEq<Vec<T>> for Reasons
where
    Cow<'static, str>: PartialEq<T>,
{
    fn eq(&self, other: &Vec<T>) -> bool {
        self[..] == other[..]
    }
}

impl From<Vec<Cow<'static, str>>> for Reasons {
    fn from(v: Vec<Cow<'static, str>>) -> Reasons {
        Reasons::Many(v)
    }
}

impl FromIterator<Cow<'static, str>> for Reasons {
    fn from_iter<I: IntoIterator<Item = Cow<'static, str>>>(iter: I) -> Reasons {
        Reasons::Many(iter.into_iter().collect())
    }
}

impl Extend<Cow<'static, str>> for Reasons {
    fn extend<I: IntoIterator<Item = Cow<'static, str>>>(&mut self, iter: I) {
        let mut v = match std::mem::take(self) {
            Reasons::One(r) => vec![r],
            Reasons::Many(v) => v,
        };
        v.extend(iter);
        *self = Reasons::Many(v);
    }
}

impl<'a> IntoIterator for &'a Reasons {
    type Item = &'a Cow<'static, str>;
    type IntoIter = std::slice::Iter<'a, Cow<'static, str>>;
    fn into_iter(self) -> Self::IntoIter {
        self.iter()
    }
}

/// Upstream `Diagnosis`: per-node verdicts of the filters, plus what PreFilter/PostFilter said.
#[derive(Debug, Clone, Default)]
pub struct Diagnosis {
    /// Node name → rejection, for every node a filter rejected.
    pub node_to_status: BTreeMap<std::sync::Arc<str>, Rejection>,
    /// Status of nodes that were never evaluated because PreFilter restricted the node set or
    /// rejected the pod outright (upstream `AbsentNodesStatus`).
    pub absent_nodes_status: Option<Rejection>,
    /// Plugins that rejected the pod somewhere (drives queueing hints).
    pub unschedulable_plugins: Vec<&'static str>,
    pub pre_filter_msg: String,
    pub post_filter_msg: String,
    /// What each extender said during the cycle (for `simulate` and `explain`).
    pub extender_notes: Vec<crate::core::extender::ExtenderNote>,
    /// Decisions plugins took about pods waiting at Permit, applied by the scheduler core.
    pub waiting_actions: Vec<super::waiting::WaitingAction>,
    /// API writes PostFilter and Unreserve asked for, handed to the shell by the scheduler core.
    pub api_writes: Vec<super::ApiWrite>,
}

impl Diagnosis {
    /// Record a rejecting plugin once.
    pub fn add_plugin(&mut self, plugin: &'static str) {
        // Plugin names are constants: the walk adds the same one for every node it rejects, and
        // its address finds it without comparing text.
        if self.unschedulable_plugins.iter().any(|p| std::ptr::eq(*p, plugin)) {
            return;
        }
        if !plugin.is_empty() && !self.unschedulable_plugins.contains(&plugin) {
            self.unschedulable_plugins.push(plugin);
        }
    }

    /// The status a node ended with: its own, or the absent-nodes status.
    pub fn status_of(&self, node: &str) -> Option<&Rejection> {
        self.node_to_status.get(node).or(self.absent_nodes_status.as_ref())
    }
}

/// The error text of a pod that fits no node (`FitError.Error()` in
/// pkg/scheduler/framework/types.go): `0/N nodes are available: <prefilter>. <histogram>. <postfilter>`.
pub fn fit_error_message(num_all_nodes: usize, d: &Diagnosis) -> String {
    let mut msg = format!("{}:", texts::nodes_available(num_all_nodes));
    if !d.pre_filter_msg.is_empty() {
        msg.push_str(&format!(" {}.", d.pre_filter_msg));
    } else {
        let mut counts: BTreeMap<&str, usize> = BTreeMap::new();
        for status in d.node_to_status.values() {
            for r in &status.reasons {
                *counts.entry(r).or_default() += 1;
            }
        }
        if d.node_to_status.len() < num_all_nodes {
            if let Some(absent) = &d.absent_nodes_status {
                let n = num_all_nodes - d.node_to_status.len();
                for r in &absent.reasons {
                    *counts.entry(r).or_default() += n;
                }
            }
        }
        // "%v %v" then sort.Strings: lexicographic, so "10 x" sorts before "2 y" as upstream.
        let mut entries: Vec<String> = counts.iter().map(|(r, n)| format!("{n} {r}")).collect();
        entries.sort();
        if !entries.is_empty() {
            msg.push_str(&format!(" {}.", entries.join(", ")));
        }
    }
    if !d.post_filter_msg.is_empty() {
        msg.push_str(&format!(" {}", d.post_filter_msg));
    }
    msg
}

/// `truncateMessage` (schedule_one.go): notes longer than `NoteLengthLimit` (1024 bytes) are cut
/// and end in " ..." (at a character boundary: a note must stay UTF-8).
pub fn truncate_note(message: &str) -> String {
    const MAX: usize = texts::NOTE_LENGTH_LIMIT;
    if message.len() <= MAX {
        return message.to_string();
    }
    let mut cut = MAX - texts::NOTE_TRUNCATION_SUFFIX.len();
    while !message.is_char_boundary(cut) {
        cut -= 1;
    }
    format!("{}{}", &message[..cut], texts::NOTE_TRUNCATION_SUFFIX)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn histogram_is_sorted_as_strings() {
        let mut d = Diagnosis::default();
        for i in 0..10 {
            d.node_to_status.insert(format!("a{i}").into(), Rejection::unschedulable("node(s) had untolerated taint(s)"));
        }
        for i in 0..2 {
            d.node_to_status.insert(format!("b{i}").into(), Rejection::unschedulable("Insufficient cpu"));
        }
        assert_eq!(
            fit_error_message(12, &d),
            "0/12 nodes are available: 10 node(s) had untolerated taint(s), 2 Insufficient cpu."
        );
    }

    #[test]
    fn real_k3s_message_shape() {
        // fixtures: events.k8s.io FailedScheduling note from a k3s v1.33 cluster.
        let mut d = Diagnosis::default();
        d.node_to_status.insert("c9b7eea91".into(), Rejection::unschedulable("Insufficient cpu"));
        d.post_filter_msg = "preemption: 0/1 nodes are available: 1 No preemption victims found for incoming pod.".into();
        assert_eq!(
            fit_error_message(1, &d),
            "0/1 nodes are available: 1 Insufficient cpu. preemption: 0/1 nodes are available: 1 No preemption victims found for incoming pod."
        );
    }

    #[test]
    fn prefilter_message_replaces_histogram_and_absent_nodes_count() {
        let mut d = Diagnosis { pre_filter_msg: "pod has unbound immediate PersistentVolumeClaims".into(), ..Default::default() };
        assert_eq!(fit_error_message(3, &d), "0/3 nodes are available: pod has unbound immediate PersistentVolumeClaims.");
        d.pre_filter_msg.clear();
        d.absent_nodes_status = Some(Rejection::unresolvable("node(s) didn't satisfy plugin(s) [NodeAffinity]"));
        d.node_to_status.insert("n1".into(), Rejection::unschedulable("Too many pods"));
        assert_eq!(
            fit_error_message(3, &d),
            "0/3 nodes are available: 1 Too many pods, 2 node(s) didn't satisfy plugin(s) [NodeAffinity]."
        );
    }

    #[test]
    fn notes_are_truncated_to_1024() {
        let long = "x".repeat(2000);
        let t = truncate_note(&long);
        assert_eq!(t.len(), 1024);
        assert!(t.ends_with(" ..."));
        assert_eq!(truncate_note("short"), "short");
    }
}
