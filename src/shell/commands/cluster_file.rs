//! Reading cluster files as a stream: the file is never held whole, and each object goes to the
//! sink as soon as it is decoded (the decoding itself is `core::simulate::decode`).
//!
//! JSON (a file starting with `{`) is one or more documents (concatenated JSON values, as several
//! `kubectl get -o json` outputs appended to one file) read through `serde_json`'s reader. YAML is
//! split into documents at `---` / `...` lines (a marker at column 0 always ends a document,
//! YAML 1.2 §9.1.2, even inside a block scalar) and each document is parsed from the file as it
//! is read, with parser limits sized for cluster files of hundreds of megabytes.

use crate::core::simulate::decode::{DecodeContext, Sink};
use crate::core::simulate::SimError;
use std::collections::BTreeMap;
use std::io::{BufRead, BufReader, Read};
use std::path::Path;

/// Largest cluster file accepted (a generous bound against accidents).
pub const MAX_CLUSTER_FILE: u64 = 1024 * 1024 * 1024;

/// Read the cluster file at `path` into `sink`; returns the kinds it ignored, with counts.
/// `lenient`: an object whose fields have the wrong type is skipped with a warning on stderr.
pub fn read_file(path: &Path, sink: &mut Sink<'_>, lenient: bool) -> Result<BTreeMap<String, usize>, SimError> {
    let name = path.display().to_string();
    let meta = std::fs::metadata(path).map_err(|e| SimError(format!("{name}: {e}")))?;
    if meta.len() > MAX_CLUSTER_FILE {
        return Err(SimError(format!("{name}: file is larger than {} MiB", MAX_CLUSTER_FILE / (1024 * 1024))));
    }
    let file = std::fs::File::open(path).map_err(|e| SimError(format!("{name}: {e}")))?;
    read(BufReader::with_capacity(256 * 1024, file), &name, sink, lenient)
}

/// How `--lenient` reports a skipped object.
fn warn_skipped(text: &str) {
    eprintln!("warning: {text}");
}

/// Read a cluster file from `reader` (`name` prefixes messages).
pub fn read<R: BufRead>(
    mut reader: R,
    name: &str,
    sink: &mut Sink<'_>,
    lenient: bool,
) -> Result<BTreeMap<String, usize>, SimError> {
    let io = |e: std::io::Error| SimError(format!("{name}: {e}"));
    let first = first_content_byte(&mut reader).map_err(io)?;
    let mut ctx = DecodeContext::new(name, sink);
    if lenient {
        ctx.skip_undecodable = Some(warn_skipped);
    }
    if first == Some(b'{') {
        // One JSON value after another: serde_json's reader stops at the closing brace of each,
        // so what follows is looked at afresh.
        let mut index = 0;
        loop {
            let mut de = serde_json::Deserializer::from_reader(&mut reader);
            ctx.document(index, &mut de)?;
            index += 1;
            match first_content_byte(&mut reader).map_err(io)? {
                None => return Ok(ctx.ignored_kinds),
                Some(b'{') => {}
                Some(b) => {
                    return Err(SimError(format!(
                        "{name}: after JSON document {}: expected another object or the end of the file, found {:?}",
                        index - 1,
                        char::from(b)
                    )))
                }
            }
        }
    }
    let mut docs = Documents { inner: reader, first_line: None, after_marker: None };
    let mut index = 0;
    while docs.next_document().map_err(io)? {
        let mut doc = OneDocument { docs: &mut docs, line: Vec::new(), pos: 0, ended: false };
        let mut decoded = Ok(());
        let parsed = serde_saphyr::with_deserializer_from_reader_with_options(&mut doc, yaml_options(), |de| {
            decoded = ctx.document(index, de);
            Ok(())
        });
        // Our own error first: the parser complains too when it is stopped mid-document.
        decoded?;
        parsed.map_err(|e| SimError(format!("{name}: document {index}: {e}")))?;
        // A document the parser stopped reading early (an error) is skipped to its end.
        while !doc.ended {
            if doc.fill().map_err(io)? == 0 {
                break;
            }
            doc.pos = doc.line.len();
        }
        index += 1;
    }
    Ok(ctx.ignored_kinds)
}

/// Parser limits for cluster files: the defaults protect configuration loading and would stop
/// at a few thousand objects.
fn yaml_options() -> serde_saphyr::Options {
    let mut budget = serde_saphyr::Budget::default();
    budget.max_reader_input_bytes = Some(MAX_CLUSTER_FILE as usize);
    budget.max_events = usize::MAX;
    budget.max_nodes = usize::MAX;
    budget.max_total_scalar_bytes = MAX_CLUSTER_FILE as usize;
    budget.max_documents = usize::MAX;
    let mut options = serde_saphyr::Options::default();
    options.budget = Some(budget);
    options
}

/// The first byte that is not whitespace or a byte-order mark, without consuming it.
fn first_content_byte<R: BufRead>(r: &mut R) -> std::io::Result<Option<u8>> {
    loop {
        let buf = r.fill_buf()?;
        if buf.is_empty() {
            return Ok(None);
        }
        let skip = buf.iter().take_while(|b| b.is_ascii_whitespace() || matches!(b, 0xEF | 0xBB | 0xBF)).count();
        if skip < buf.len() {
            let b = buf[skip];
            r.consume(skip);
            return Ok(Some(b));
        }
        let n = buf.len();
        r.consume(n);
    }
}

/// A YAML stream cut into documents.
struct Documents<R> {
    inner: R,
    /// The first content line of the next document, already read.
    first_line: Option<Vec<u8>>,
    /// What followed `--- ` on a marker line (the start of the next document's content).
    after_marker: Option<Vec<u8>>,
}

/// `---` or `...` at column 0, followed by a blank or the end of the line.
fn marker(line: &[u8]) -> Option<&[u8]> {
    let rest = line.strip_prefix(b"---").or_else(|| line.strip_prefix(b"..."))?;
    match rest.first() {
        None | Some(b'\n' | b'\r') => Some(&[]),
        Some(b' ' | b'\t') => Some(rest),
        Some(_) => None,
    }
}

fn is_blank_or_comment(line: &[u8]) -> bool {
    let t = line.trim_ascii_start();
    t.is_empty() || t[0] == b'#'
}

impl<R: BufRead> Documents<R> {
    /// Skip blank lines, comments and markers; true when a document with content follows.
    fn next_document(&mut self) -> std::io::Result<bool> {
        if let Some(rest) = self.after_marker.take() {
            if !is_blank_or_comment(&rest) {
                self.first_line = Some(rest);
                return Ok(true);
            }
        }
        loop {
            let mut line = Vec::new();
            if self.inner.read_until(b'\n', &mut line)? == 0 {
                return Ok(false);
            }
            if let Some(rest) = marker(&line) {
                if !is_blank_or_comment(rest) {
                    self.first_line = Some(rest.to_vec());
                    return Ok(true);
                }
                continue;
            }
            if !is_blank_or_comment(&line) {
                self.first_line = Some(line);
                return Ok(true);
            }
        }
    }
}

/// The bytes of one document, ending before the next marker line.
struct OneDocument<'d, R> {
    docs: &'d mut Documents<R>,
    line: Vec<u8>,
    pos: usize,
    ended: bool,
}

impl<R: BufRead> OneDocument<'_, R> {
    /// Load the next line of the document; 0 at its end.
    fn fill(&mut self) -> std::io::Result<usize> {
        if self.ended {
            return Ok(0);
        }
        self.pos = 0;
        self.line.clear();
        if let Some(first) = self.docs.first_line.take() {
            self.line = first;
            return Ok(self.line.len());
        }
        if self.docs.inner.read_until(b'\n', &mut self.line)? == 0 {
            self.ended = true;
            return Ok(0);
        }
        if let Some(rest) = marker(&self.line) {
            self.docs.after_marker = Some(rest.to_vec());
            self.line.clear();
            self.ended = true;
            return Ok(0);
        }
        Ok(self.line.len())
    }
}

impl<R: BufRead> Read for OneDocument<'_, R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        if self.pos >= self.line.len() && self.fill()? == 0 {
            return Ok(0);
        }
        let n = (self.line.len() - self.pos).min(buf.len());
        buf[..n].copy_from_slice(&self.line[self.pos..self.pos + n]);
        self.pos += n;
        Ok(n)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::api;
    use crate::core::simulate::decode::Origin;
    use crate::core::watched::{KindChange, KindId};

    fn kinds(text: &str) -> Result<(Vec<String>, BTreeMap<String, usize>), SimError> {
        kinds_read(text, false)
    }

    fn kinds_read(text: &str, lenient: bool) -> Result<(Vec<String>, BTreeMap<String, usize>), SimError> {
        let mut seen = Vec::new();
        let mut sink = |o: Origin, c: KindChange| {
            let obj = c.object().map(|o| o.key()).unwrap_or_default();
            seen.push(format!("{o} {:?} {obj}", c.id()));
            Ok(())
        };
        let ignored = read(text.as_bytes(), "c.yaml", &mut sink, lenient)?;
        Ok((seen, ignored))
    }

    #[test]
    fn lists_documents_and_markers() {
        let yaml = "# comment\n---\napiVersion: v1\nkind: List\nitems:\n- apiVersion: v1\n  kind: Node\n  metadata: {name: n1}\n- kind: ConfigMap\n  metadata: {name: s}\n- kind: Pod\n  metadata: {name: p, namespace: default}\n  spec:\n    containers: [{name: c}]\n...\n--- \nkind: PriorityClass\nmetadata: {name: high}\nvalue: 1000\n---\n---\nmetadata: {name: n2}\nkind: Node\n";
        let (seen, ignored) = kinds(yaml).expect("reads");
        assert_eq!(
            seen,
            [
                "document 0: items[0] Node n1",
                "document 0: items[2] Pod default/p",
                "document 1 PriorityClass high",
                "document 2 Node n2"
            ]
        );
        assert_eq!(ignored.get("ConfigMap"), Some(&1));
    }

    #[test]
    fn typed_lists_and_kubectl_json() {
        let yaml = "apiVersion: v1\nkind: NodeList\nitems:\n- metadata: {name: a}\n- metadata: {name: b}\n";
        assert_eq!(kinds(yaml).expect("reads").0, ["document 0: items[0] Node a", "document 0: items[1] Node b"]);
        // kubectl -o json sorts keys: `items` before `kind`, each item with its kind.
        let json = r#"{"apiVersion":"v1","items":[{"kind":"Node","metadata":{"name":"a"}},{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p","namespace":"d"}}],"kind":"List","metadata":{}}"#;
        assert_eq!(kinds(json).expect("reads").0, ["document 0: items[0] Node a", "document 0: items[1] Pod d/p"]);
    }

    #[test]
    fn json_files_may_hold_several_documents_and_lists_of_lists() {
        // Two `kubectl get -o json` outputs appended, the second a List of Lists.
        let json = r#"{"kind":"Node","metadata":{"name":"a"}}
            {"apiVersion":"v1","items":[{"apiVersion":"v1","items":[{"kind":"Node","metadata":{"name":"b"}}],"kind":"List"},
            {"kind":"NodeList","items":[{"metadata":{"name":"c"}}]}],"kind":"List"}{"kind":"Node","metadata":{"name":"d"}}"#;
        assert_eq!(
            kinds(json).expect("reads").0,
            ["document 0 Node a", "document 1: items[0] Node b", "document 1: items[0] Node c", "document 2 Node d"]
        );
        let trailing = r#"{"kind":"Node","metadata":{"name":"a"}} ["#;
        assert_eq!(
            kinds(trailing).expect_err("not an object").0,
            "c.yaml: after JSON document 0: expected another object or the end of the file, found '['"
        );
        // The YAML reader takes lists of lists too.
        let yaml = "kind: List\nitems:\n- kind: List\n  items:\n  - kind: Node\n    metadata: {name: n3}\n";
        assert_eq!(kinds(yaml).expect("reads").0, ["document 0: items[0] Node n3"]);
    }

    #[test]
    fn lenient_skips_objects_whose_fields_do_not_decode() {
        let yaml = "kind: List\nitems:\n- kind: Node\n  metadata: {name: n1}\n  spec: {unschedulable: yes-please}\n\
                    - kind: Node\n  metadata: {name: n2}\n";
        assert!(kinds(yaml).is_err());
        assert_eq!(kinds_read(yaml, true).expect("lenient").0, ["document 0: items[1] Node n2"]);
        let json = r#"{"kind":"Pod","metadata":{"name":"p","namespace":"d","creationTimestamp":5}}{"kind":"Node","metadata":{"name":"a"}}"#;
        assert_eq!(kinds_read(json, true).expect("lenient").0, ["document 1 Node a"]);
    }

    #[test]
    fn errors_name_the_document_item_and_field() {
        let bad = "kind: List\nitems:\n- kind: Node\n  metadata: {name: [1]}\n";
        let e = kinds(bad).expect_err("bad");
        assert!(e.0.starts_with("c.yaml: document 0: items[0] (Node): metadata.name"), "{e}");
        let no_kind = "kind: List\nitems:\n- metadata: {name: a}\n";
        assert_eq!(kinds(no_kind).expect_err("no kind").0, "c.yaml: document 0: items[0]: object has no kind");
        let broken = "kind: List\nitems: [ {kind: Node, metadata: {name: 3\n";
        assert!(kinds(broken).expect_err("syntax").0.starts_with("c.yaml: document 0:"));
        let json = r#"{"kind":"Node","metadata":{"name":"a"},"spec":{"unschedulable":"yes"}}"#;
        let e = kinds(json).expect_err("type");
        assert!(e.0.starts_with("c.yaml: document 0 (Node): spec.unschedulable: invalid type"), "{e}");
    }

    #[test]
    fn reads_the_objects_topology_plugins_read() {
        let yaml = "kind: Namespace\nmetadata: {name: team-a, labels: {team: a}}\n---\n\
                    kind: Service\nmetadata: {name: web, namespace: team-a}\nspec: {selector: {app: web}}\n---\n\
                    kind: ReplicationController\nmetadata: {name: rc, namespace: team-a}\nspec: {selector: {app: rc}}\n---\n\
                    apiVersion: apps/v1\nkind: ReplicaSet\nmetadata: {name: rs, namespace: team-a}\n\
                    spec: {selector: {matchLabels: {app: web}}}\n---\n\
                    apiVersion: apps/v1\nkind: StatefulSet\nmetadata: {name: db, namespace: team-a}\n\
                    spec: {selector: {matchExpressions: [{key: app, operator: In, values: [db]}]}}\n";
        let mut c = crate::core::simulate::Cluster::default();
        let ignored = read(
            yaml.as_bytes(),
            "c.yaml",
            &mut |_, change| {
                c.push(change);
                Ok(())
            },
            false,
        )
        .expect("reads");
        assert_eq!(c.count(KindId::Namespace), 1);
        assert_eq!(c.of::<api::Service>().next().and_then(|s| s.spec.selector.as_ref()).map(|s| s.len()), Some(1));
        assert_eq!(c.count(KindId::ReplicationController), 1);
        assert_eq!(c.count(KindId::ReplicaSet), 1);
        let ss = c.of::<api::StatefulSet>().next().expect("a StatefulSet");
        assert_eq!(ss.spec.selector.as_ref().map(|s| s.match_expressions.len()), Some(1));
        assert!(ignored.is_empty());
        assert_eq!(c.changes().len(), 5);
    }

    #[test]
    fn null_rules_of_go() {
        let yaml = "kind: Pod\nmetadata: {name: p, namespace: d, labels: null}\nspec: null\n";
        assert_eq!(kinds(yaml).expect("reads").0, ["document 0 Pod d/p"]);
    }
}
