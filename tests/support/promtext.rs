//! A strict reader of Prometheus' text exposition format (`text/plain; version=0.0.4`, what
//! kube-scheduler serves on `/metrics`), so the scrape tests check edgesched's output with nothing
//! but the Rust toolchain. It accepts and refuses what Prometheus' own Go reader does:
//! `TextParser` in prometheus/common `expfmt/text_parse.go` (read at commit
//! 076fba3b7b4e2b3b48ebc3e54498dacd9c842afd), together with the later behaviour that
//! `expfmt/text_parse_test.go` at commit 06f751e981c75d28b9c3e4758ab7681c2384b08d pins down
//! (name validation schemes, gauge histograms, refusal of negative histogram counts, `{}` without
//! a metric name). `tests/promtext.rs` replays those test tables here.
//!
//! The result keeps each sample line as written (name, labels in order, value, timestamp),
//! grouped into its family the way Go groups it: a summary's or histogram's `_sum`, `_count` and
//! `_bucket` lines belong to the family whose `TYPE` line declared it, and a counter's family keeps
//! its `_total` suffix. [`Family::metrics`] folds a family's lines into Go's per-series view.
//!
//! Where the Go sources and tables leave a choice open, this reader is the stricter: a name
//! (metric or label) must be valid UTF-8 and non-empty, a `HELP` text must be valid UTF-8, under
//! [`Names::Legacy`] the names on `HELP`/`TYPE` lines are checked as strictly as on sample lines,
//! and a gauge histogram's negative counts are refused as a histogram's are. A line with two
//! faults may name a different one of them than Go does.

use std::collections::{BTreeMap, HashMap};
use std::fmt;

/// A metric family's type as its `TYPE` line declares it (`untyped` without one).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    Counter,
    Gauge,
    Summary,
    Untyped,
    Histogram,
    GaugeHistogram,
}

impl Kind {
    /// The type's name as a `TYPE` line spells it (OpenMetrics' spelling for gauge histograms).
    pub fn as_str(self) -> &'static str {
        match self {
            Kind::Counter => "counter",
            Kind::Gauge => "gauge",
            Kind::Summary => "summary",
            Kind::Untyped => "untyped",
            Kind::Histogram => "histogram",
            Kind::GaugeHistogram => "gaugehistogram",
        }
    }

    /// The type a `TYPE` line names, matched case-insensitively as Go looks it up in
    /// client_model's `MetricType` names (plus `gaugehistogram`, which the Go tests accept).
    fn from_type_line(token: &[u8]) -> Option<Kind> {
        let upper = std::str::from_utf8(token).ok()?.to_uppercase();
        Some(match upper.as_str() {
            "COUNTER" => Kind::Counter,
            "GAUGE" => Kind::Gauge,
            "SUMMARY" => Kind::Summary,
            "UNTYPED" => Kind::Untyped,
            "HISTOGRAM" => Kind::Histogram,
            "GAUGE_HISTOGRAM" | "GAUGEHISTOGRAM" => Kind::GaugeHistogram,
            _ => return None,
        })
    }

    fn is_histogram(self) -> bool {
        matches!(self, Kind::Histogram | Kind::GaugeHistogram)
    }

    /// The label that is not part of a series' identity but says which bucket or quantile a
    /// line gives (`le` for histograms, `quantile` for summaries).
    fn special_label(self) -> Option<&'static str> {
        match self {
            Kind::Summary => Some("quantile"),
            k if k.is_histogram() => Some("le"),
            _ => None,
        }
    }
}

impl PartialEq<&str> for Kind {
    fn eq(&self, other: &&str) -> bool {
        self.as_str() == *other
    }
}

impl fmt::Display for Kind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// One metric family: its samples in the order the exposition lists them.
#[derive(Debug, Clone, PartialEq)]
pub struct Family {
    pub name: String,
    pub kind: Kind,
    /// The `HELP` text, unescaped; empty without a `HELP` line (a `HELP` line always has text).
    pub help: String,
    pub samples: Vec<Sample>,
}

/// One sample line: a histogram's `_bucket`, `_sum` and `_count` lines are samples of its family.
#[derive(Debug, Clone, PartialEq)]
pub struct Sample {
    pub name: String,
    /// The labels in the order the line gives them, `le` and `quantile` included.
    pub labels: Vec<(String, String)>,
    pub value: f64,
    pub timestamp_ms: Option<i64>,
}

impl Sample {
    /// The value of the label `name`, if the line has it.
    pub fn label(&self, name: &str) -> Option<&str> {
        self.labels.iter().find(|(k, _)| k == name).map(|(_, v)| v.as_str())
    }
}

/// One series as Go's `dto.Metric` holds it: a summary's or histogram's lines with the same labels
/// (apart from `quantile`/`le`) fold into one.
#[derive(Debug, Clone, PartialEq)]
pub struct Metric {
    /// The labels of the series' first line, without `quantile`/`le`.
    pub labels: Vec<(String, String)>,
    pub value: MetricValue,
    /// The last timestamp any of the series' lines gave.
    pub timestamp_ms: Option<i64>,
}

/// What a series holds, by its family's type.
#[derive(Debug, Clone, PartialEq)]
pub enum MetricValue {
    /// A counter's, gauge's or untyped metric's value.
    Single(f64),
    Summary {
        count: Option<f64>,
        sum: Option<f64>,
        quantiles: Vec<(f64, f64)>,
    },
    Histogram {
        count: Option<f64>,
        sum: Option<f64>,
        buckets: Vec<(f64, f64)>,
    },
}

impl Family {
    /// The family's series as Go's `TextParser` builds them. A summary line without `quantile`
    /// (or a histogram line without `le`) that is no `_sum`/`_count` line adds nothing, as in Go.
    pub fn metrics(&self) -> Vec<Metric> {
        let Some(special) = self.kind.special_label() else {
            return self
                .samples
                .iter()
                .map(|s| Metric { labels: s.labels.clone(), value: MetricValue::Single(s.value), timestamp_ms: s.timestamp_ms })
                .collect();
        };
        let mut out: Vec<Metric> = Vec::new();
        let mut index: HashMap<BTreeMap<&str, &str>, usize> = HashMap::new();
        for s in &self.samples {
            let identity: BTreeMap<&str, &str> =
                s.labels.iter().filter(|(k, _)| k != special).map(|(k, v)| (k.as_str(), v.as_str())).collect();
            let i = *index.entry(identity).or_insert_with(|| {
                let labels = s.labels.iter().filter(|(k, _)| k != special).cloned().collect();
                let value = if self.kind == Kind::Summary {
                    MetricValue::Summary { count: None, sum: None, quantiles: Vec::new() }
                } else {
                    MetricValue::Histogram { count: None, sum: None, buckets: Vec::new() }
                };
                out.push(Metric { labels, value, timestamp_ms: None });
                out.len() - 1
            });
            let metric = &mut out[i];
            if s.timestamp_ms.is_some() {
                metric.timestamp_ms = s.timestamp_ms;
            }
            let bound = s.label(special).and_then(|v| go_parse_float(v.as_bytes()));
            let (count, sum, list) = match &mut metric.value {
                MetricValue::Summary { count, sum, quantiles } => (count, sum, quantiles),
                MetricValue::Histogram { count, sum, buckets } => (count, sum, buckets),
                MetricValue::Single(_) => continue,
            };
            match Role::of(&s.name, &self.name) {
                Role::Count => *count = Some(s.value),
                Role::Sum => *sum = Some(s.value),
                Role::Plain | Role::Bucket => list.extend(bound.map(|b| (b, s.value))),
            }
        }
        out
    }
}

/// How names are checked, as Go's `model.ValidationScheme` chooses.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Names {
    /// The classic character set (`[a-zA-Z_:][a-zA-Z0-9_:]*`, labels without `:`): what a
    /// `version=0.0.4` exposition that was not asked for UTF-8 names must use.
    Legacy,
    /// Any non-empty UTF-8 name (quoted where it leaves the classic set).
    Utf8,
}

/// Why the text was refused: the line (counted from 1) and Go's message for it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ParseError {
    pub line: usize,
    pub msg: String,
}

impl fmt::Display for ParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "text format parsing error in line {}: {}", self.line, self.msg)
    }
}

impl std::error::Error for ParseError {}

/// Parse a scrape with the classic name rules; families in the order they first appear.
pub fn parse(text: &str) -> Result<Vec<Family>, ParseError> {
    parse_bytes(text.as_bytes(), Names::Legacy)
}

/// Parse raw bytes (the format is UTF-8, but a scrape's bytes need not be) under `names`.
pub fn parse_bytes(input: &[u8], names: Names) -> Result<Vec<Family>, ParseError> {
    let mut p = Parser { input, pos: 0, line: 0, names, families: Vec::new(), by_name: HashMap::new() };
    p.run()?;
    Ok(p.families
        .into_iter()
        .filter(|f| !f.samples.is_empty())
        .map(|f| Family {
            name: f.name,
            kind: f.kind.unwrap_or(Kind::Untyped),
            help: f.help.unwrap_or_default(),
            samples: f.samples,
        })
        .collect())
}

/// A family while it is being read: its type and help may not be known yet.
struct Building {
    name: String,
    kind: Option<Kind>,
    help: Option<String>,
    samples: Vec<Sample>,
}

/// Which line of its family a sample line is, from the suffix its name adds to the family's.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Role {
    Plain,
    Count,
    Sum,
    Bucket,
}

impl Role {
    fn of(sample: &str, family: &str) -> Role {
        match sample.strip_prefix(family) {
            Some("_count") => Role::Count,
            Some("_sum") => Role::Sum,
            Some("_bucket") => Role::Bucket,
            _ => Role::Plain,
        }
    }
}

/// A fault inside a line: a message for that line, or the input ended before the line did.
enum Fault {
    Msg(String),
    Eof,
}

type Step<T> = Result<T, Fault>;

fn msg<T>(m: impl Into<String>) -> Step<T> {
    Err(Fault::Msg(m.into()))
}

struct Parser<'a> {
    input: &'a [u8],
    pos: usize,
    line: usize,
    names: Names,
    families: Vec<Building>,
    by_name: HashMap<String, usize>,
}

/// The current sample line's family, once its name is known.
#[derive(Clone, Copy)]
struct Target {
    family: usize,
    kind: Kind,
}

/// A sample line's labels while they are read: all of them in order, and the identity labels
/// checked for duplicates.
#[derive(Default)]
struct LabelSet {
    all: Vec<(String, String)>,
    identity: Vec<String>,
    checked: usize,
}

impl<'a> Parser<'a> {
    fn run(&mut self) -> Result<(), ParseError> {
        loop {
            self.line += 1;
            self.skip_blank();
            let step = match self.peek() {
                None => return Ok(()),
                Some(b'\n') => {
                    self.pos += 1;
                    Ok(())
                }
                Some(b'#') => {
                    self.pos += 1;
                    self.comment()
                }
                Some(b'{') => {
                    self.pos += 1;
                    self.sample(true)
                }
                Some(_) => self.sample(false),
            };
            if let Err(fault) = step {
                let msg = match fault {
                    Fault::Msg(m) => m,
                    Fault::Eof => "unexpected end of input stream".to_string(),
                };
                return Err(ParseError { line: self.line, msg });
            }
        }
    }

    // ----- bytes --------------------------------------------------------------------------

    fn peek(&self) -> Option<u8> {
        self.input.get(self.pos).copied()
    }

    /// The next byte, which the line needs: the input ending here is a fault.
    fn need(&self) -> Step<u8> {
        self.peek().ok_or(Fault::Eof)
    }

    fn skip_blank(&mut self) {
        while matches!(self.peek(), Some(b' ' | b'\t')) {
            self.pos += 1;
        }
    }

    /// Bytes up to a blank, tab or line feed (not consumed), which must follow.
    fn token_until_whitespace(&mut self) -> Step<&'a [u8]> {
        let start = self.pos;
        while !matches!(self.need()?, b' ' | b'\t' | b'\n') {
            self.pos += 1;
        }
        Ok(&self.input[start..self.pos])
    }

    /// The rest of the line (the line feed consumed); with `unescape`, `\\`, `\n` and `\"` are
    /// the only escapes (a `HELP` text).
    fn rest_of_line(&mut self, unescape: bool) -> Step<Vec<u8>> {
        let mut out = Vec::new();
        loop {
            let b = self.need()?;
            self.pos += 1;
            match b {
                b'\n' => return Ok(out),
                b'\\' if unescape => out.push(self.unescape()?),
                b => out.push(b),
            }
        }
    }

    /// After a backslash: the byte it escapes (`\\`, `\n` and `\"` are the format's only escapes).
    fn unescape(&mut self) -> Step<u8> {
        let e = self.need()?;
        self.pos += 1;
        match e {
            b'\\' => Ok(b'\\'),
            b'n' => Ok(b'\n'),
            b'"' => Ok(b'"'),
            other => msg(format!("invalid escape sequence '\\{}'", other as char)),
        }
    }

    /// A metric name (`label: false`) or label name, bare or quoted, as Go's
    /// `readTokenAsMetricName`/`readTokenAsLabelName` read it: empty when the next byte cannot
    /// start one (nothing consumed). Inside quotes any byte but a line feed continues the name.
    fn name_token(&mut self, label: bool) -> Step<Vec<u8>> {
        let starts = |b: u8| b.is_ascii_alphabetic() || b == b'_' || b == b'"' || (!label && b == b':');
        let continues = |b: u8, quoted: bool| quoted || starts(b) || b.is_ascii_digit();
        let what = if label { "label name" } else { "metric name" };
        let mut out = Vec::new();
        if !self.peek().is_some_and(starts) {
            return Ok(out);
        }
        let mut quoted = false;
        loop {
            let b = self.need()?;
            self.pos += 1;
            match b {
                b'"' => {
                    quoted = !quoted;
                    if !quoted {
                        return Ok(out);
                    }
                }
                b'\n' => return msg(format!("{what} {} contains unescaped new-line", go_quote(&out))),
                b'\\' => out.push(self.unescape()?),
                b => out.push(b),
            }
            if !continues(self.need()?, quoted) {
                return Ok(out);
            }
        }
    }

    // ----- names and families -------------------------------------------------------------

    /// A metric name checked against the name rules.
    fn metric_name(&self, raw: Vec<u8>) -> Step<String> {
        let name = String::from_utf8(raw).map_err(|e| Fault::Msg(format!("invalid metric name {}", go_quote(e.as_bytes()))))?;
        let ok = match self.names {
            Names::Legacy => is_legacy_name(&name, true),
            Names::Utf8 => !name.is_empty(),
        };
        if ok {
            Ok(name)
        } else {
            msg(format!("invalid metric name {}", go_quote(name.as_bytes())))
        }
    }

    /// A label name checked against the name rules.
    fn label_name(&self, raw: Vec<u8>) -> Step<String> {
        let name = String::from_utf8(raw).map_err(|e| Fault::Msg(format!("invalid label name {}", go_quote(e.as_bytes()))))?;
        if name == "__name__" {
            return msg("label name \"__name__\" is reserved");
        }
        if self.names == Names::Legacy && !is_legacy_name(&name, false) {
            return msg(format!("invalid label name {}", go_quote(name.as_bytes())));
        }
        Ok(name)
    }

    /// The family a name belongs to (Go's `setOrCreateCurrentMF`): one of that exact name; else
    /// the summary `x` for `x_sum`/`x_count`; else the histogram `x` for `x_sum`/`x_count`/
    /// `x_bucket`; else a new family of that name.
    fn family_of(&mut self, name: &str) -> usize {
        if let Some(&i) = self.by_name.get(name) {
            return i;
        }
        let declared = |suffixes: &[&str], fits: fn(Kind) -> bool, p: &Self| {
            suffixes
                .iter()
                .find_map(|s| name.strip_suffix(s))
                .filter(|base| !base.is_empty())
                .and_then(|base| p.by_name.get(base).copied().filter(|&i| p.families[i].kind.is_some_and(fits)))
        };
        if let Some(i) = declared(&["_count", "_sum"], |k| k == Kind::Summary, self) {
            return i;
        }
        if let Some(i) = declared(&["_count", "_sum", "_bucket"], Kind::is_histogram, self) {
            return i;
        }
        self.families.push(Building { name: name.to_string(), kind: None, help: None, samples: Vec::new() });
        self.by_name.insert(name.to_string(), self.families.len() - 1);
        self.families.len() - 1
    }

    /// A sample line's family, typed `untyped` if no `TYPE` line came first.
    fn target(&mut self, name: &str) -> Target {
        let family = self.family_of(name);
        let kind = *self.families[family].kind.get_or_insert(Kind::Untyped);
        Target { family, kind }
    }

    // ----- lines --------------------------------------------------------------------------

    /// After `#`: a `HELP` or `TYPE` line, or a comment.
    fn comment(&mut self) -> Step<()> {
        self.skip_blank();
        if self.need()? == b'\n' {
            self.pos += 1;
            return Ok(());
        }
        let keyword = self.token_until_whitespace()?;
        if self.need()? == b'\n' {
            self.pos += 1;
            return Ok(());
        }
        if keyword != b"HELP" && keyword != b"TYPE" {
            self.rest_of_line(false)?;
            return Ok(());
        }
        self.skip_blank();
        self.need()?;
        let raw = self.name_token(false)?;
        match self.need()? {
            b'\n' => {
                self.pos += 1;
                return Ok(());
            }
            b' ' | b'\t' => {}
            _ => return msg("invalid metric name in comment"),
        }
        let name = self.metric_name(raw)?;
        let family = self.family_of(&name);
        self.skip_blank();
        if self.need()? == b'\n' {
            self.pos += 1;
            return Ok(());
        }
        let f = &self.families[family];
        if keyword == b"HELP" {
            if f.help.is_some() {
                return msg(format!("second HELP line for metric name {}", go_quote(f.name.as_bytes())));
            }
            let text = self.rest_of_line(true)?;
            let text = String::from_utf8(text)
                .map_err(|_| Fault::Msg(format!("HELP text for {} is not UTF-8", go_quote(name.as_bytes()))))?;
            self.families[family].help = Some(text);
        } else {
            if f.kind.is_some() {
                let name = go_quote(f.name.as_bytes());
                return msg(format!("second TYPE line for metric name {name}, or TYPE reported after samples"));
            }
            let token = self.rest_of_line(false)?;
            let kind =
                Kind::from_type_line(&token).ok_or_else(|| Fault::Msg(format!("unknown metric type {}", go_quote(&token))))?;
            self.families[family].kind = Some(kind);
        }
        Ok(())
    }

    /// A sample line: `name{labels} value [timestamp]`, or with `braces_first`, `{"name",
    /// labels} value [timestamp]` where the name is one of the comma-separated items.
    fn sample(&mut self, braces_first: bool) -> Step<()> {
        let mut name = None;
        let mut target = None;
        if !braces_first {
            let raw = self.name_token(false)?;
            self.need()?;
            if raw.is_empty() {
                return msg("invalid metric name");
            }
            let n = self.metric_name(raw)?;
            target = Some(self.target(&n));
            name = Some(n);
            self.skip_blank();
        }
        let mut labels = LabelSet::default();
        if braces_first || self.need()? == b'{' {
            if !braces_first {
                self.pos += 1;
            }
            self.labels(braces_first, &mut name, &mut target, &mut labels)?;
        }
        let (Some(name), Some(target)) = (name, target) else {
            return msg("invalid metric name");
        };
        let raw = self.token_until_whitespace()?;
        let Some(value) = go_parse_float(raw) else {
            return msg(format!("expected float as value, got {}", go_quote(raw)));
        };
        let family = &self.families[target.family];
        if target.kind.is_histogram() && value < 0.0 {
            let role = Role::of(&name, &family.name);
            let bucket = role != Role::Count && role != Role::Sum && labels.all.iter().any(|(k, _)| k == "le");
            if role == Role::Count {
                return msg(format!("negative count for histogram {}", go_quote(family.name.as_bytes())));
            }
            if bucket {
                return msg(format!("negative bucket population for histogram {}", go_quote(family.name.as_bytes())));
            }
        }
        let mut timestamp_ms = None;
        if self.need()? != b'\n' {
            self.skip_blank();
            let raw = self.token_until_whitespace()?;
            let ts = std::str::from_utf8(raw).ok().and_then(|t| t.parse::<i64>().ok());
            let Some(ts) = ts else {
                return msg(format!("expected integer as timestamp, got {}", go_quote(raw)));
            };
            timestamp_ms = Some(ts);
            let rest = self.rest_of_line(false)?;
            if !rest.is_empty() {
                return msg(format!("spurious string after timestamp: {}", go_quote(&rest)));
            }
        } else {
            self.pos += 1;
        }
        self.families[target.family].samples.push(Sample { name, labels: labels.all, value, timestamp_ms });
        Ok(())
    }

    /// After `{`: the label pairs up to `}` and the blanks after it. With `braces_first`, the
    /// one item without `=` is the metric name.
    fn labels(
        &mut self,
        braces_first: bool,
        name: &mut Option<String>,
        target: &mut Option<Target>,
        labels: &mut LabelSet,
    ) -> Step<()> {
        loop {
            self.skip_blank();
            if self.need()? == b'}' {
                return self.close_braces(braces_first, name);
            }
            let raw = self.name_token(true)?;
            self.need()?;
            if raw.is_empty() {
                let of = name.as_deref().unwrap_or_default();
                return msg(format!("invalid label name for metric {}", go_quote(of.as_bytes())));
            }
            self.skip_blank();
            let after = self.need()?;
            if after != b'=' {
                if !braces_first {
                    return msg(format!("expected '=' after label name, found {}", go_quote_byte(after)));
                }
                if let Some(n) = name {
                    return msg(format!("multiple metric names for metric {}", go_quote(n.as_bytes())));
                }
                if after != b',' && after != b'}' {
                    return msg(format!("unexpected end of metric name {}", go_quote_byte(after)));
                }
                let n = self.metric_name(raw)?;
                let t = self.target(&n);
                *name = Some(n);
                *target = Some(t);
                self.check_labels(t, labels)?;
                if after == b'}' {
                    return self.close_braces(braces_first, name);
                }
                self.pos += 1;
                continue;
            }
            self.pos += 1;
            let label = self.label_name(raw)?;
            self.skip_blank();
            let quote = self.need()?;
            if quote != b'"' {
                return msg(format!("expected '\"' at start of label value, found {}", go_quote_byte(quote)));
            }
            self.pos += 1;
            let value = self.label_value()?;
            labels.all.push((label, value));
            if let Some(t) = *target {
                self.check_labels(t, labels)?;
            }
            self.skip_blank();
            match self.need()? {
                b',' => self.pos += 1,
                b'}' => return self.close_braces(braces_first, name),
                _ => {
                    let last = labels.all.last().map(|(_, v)| v.as_str()).unwrap_or_default();
                    return msg(format!("unexpected end of label value {}", go_quote(last.as_bytes())));
                }
            }
        }
    }

    /// At `}`: the line must have named its metric by now; the blanks before the value go.
    fn close_braces(&mut self, braces_first: bool, name: &Option<String>) -> Step<()> {
        if braces_first && name.is_none() {
            return msg("invalid metric name");
        }
        self.pos += 1;
        self.skip_blank();
        self.need()?;
        Ok(())
    }

    /// The labels read since the last check, now that the family is known: `le` of a
    /// histogram and `quantile` of a summary must be floats; the others must not repeat.
    fn check_labels(&self, target: Target, labels: &mut LabelSet) -> Step<()> {
        let special = target.kind.special_label();
        let family = &self.families[target.family].name;
        while labels.checked < labels.all.len() {
            let (k, v) = &labels.all[labels.checked];
            labels.checked += 1;
            if Some(k.as_str()) == special {
                if go_parse_float(v.as_bytes()).is_none() {
                    return msg(format!("expected float as value for '{k}' label, got {}", go_quote(v.as_bytes())));
                }
            } else if labels.identity.contains(k) {
                return msg(format!("duplicate label names for metric {}", go_quote(family.as_bytes())));
            } else {
                labels.identity.push(k.clone());
            }
        }
        Ok(())
    }

    /// After the opening quote: the value up to the closing quote (consumed), unescaped.
    fn label_value(&mut self) -> Step<String> {
        let mut out = Vec::new();
        loop {
            let b = self.need()?;
            self.pos += 1;
            match b {
                b'"' => break,
                b'\n' => return msg(format!("label value {} contains unescaped new-line", go_quote(&out))),
                b'\\' => out.push(self.unescape()?),
                b => out.push(b),
            }
        }
        String::from_utf8(out).map_err(|e| Fault::Msg(format!("invalid label value {}", go_quote(e.as_bytes()))))
    }
}

/// The classic name character set: `[a-zA-Z_:][a-zA-Z0-9_:]*` for metric names, without `:`
/// for label names.
fn is_legacy_name(name: &str, metric: bool) -> bool {
    let ok = |c: u8| c.is_ascii_alphabetic() || c == b'_' || (metric && c == b':');
    let b = name.as_bytes();
    !b.is_empty() && ok(b[0]) && b[1..].iter().all(|&c| ok(c) || c.is_ascii_digit())
}

/// A float as Go's `strconv.ParseFloat` reads it, less what prometheus/common's `parseFloat`
/// refuses on top (`p`, `P`, `_`: hex mantissas and digit separators): decimal with optional
/// exponent, `Inf`/`Infinity` with optional sign, unsigned `NaN`, all case-insensitive; a
/// finite literal too large for f64 is out of range, hence refused.
pub fn go_parse_float(raw: &[u8]) -> Option<f64> {
    let s = std::str::from_utf8(raw).ok()?;
    if s.contains(['p', 'P', '_']) {
        return None;
    }
    let (negative, unsigned) = match s.as_bytes().first() {
        Some(b'+') => (false, &s[1..]),
        Some(b'-') => (true, &s[1..]),
        _ => (false, s),
    };
    if unsigned.eq_ignore_ascii_case("inf") || unsigned.eq_ignore_ascii_case("infinity") {
        return Some(if negative { f64::NEG_INFINITY } else { f64::INFINITY });
    }
    if unsigned.eq_ignore_ascii_case("nan") {
        return (unsigned.len() == s.len()).then_some(f64::NAN);
    }
    let b = unsigned.as_bytes();
    let mantissa_end = b.iter().position(|&c| c == b'e' || c == b'E').unwrap_or(b.len());
    let (mantissa, exponent) = b.split_at(mantissa_end);
    let digits = mantissa.iter().filter(|c| c.is_ascii_digit()).count();
    let dots = mantissa.iter().filter(|&&c| c == b'.').count();
    if digits == 0 || digits + dots != mantissa.len() || dots > 1 {
        return None;
    }
    if let Some(exp) = exponent.get(1..) {
        let exp = exp.strip_prefix(b"+").or_else(|| exp.strip_prefix(b"-")).unwrap_or(exp);
        if exp.is_empty() || !exp.iter().all(u8::is_ascii_digit) {
            return None;
        }
    }
    s.parse::<f64>().ok().filter(|v| v.is_finite())
}

/// Bytes quoted as Go's `%q` quotes a string (tests compare messages with Go's).
fn go_quote(bytes: &[u8]) -> String {
    let mut out = String::from("\"");
    for chunk in bytes.utf8_chunks() {
        for c in chunk.valid().chars() {
            match c {
                '"' => out.push_str("\\\""),
                '\\' => out.push_str("\\\\"),
                '\n' => out.push_str("\\n"),
                '\t' => out.push_str("\\t"),
                '\r' => out.push_str("\\r"),
                c if c.is_control() => out.push_str(&format!("\\x{:02x}", c as u32)),
                c => out.push(c),
            }
        }
        for b in chunk.invalid() {
            out.push_str(&format!("\\x{b:02x}"));
        }
    }
    out.push('"');
    out
}

/// A byte quoted as Go's `%q` quotes a byte (a character literal).
fn go_quote_byte(b: u8) -> String {
    match b {
        b'\'' => "'\\''".to_string(),
        b'\\' => "'\\\\'".to_string(),
        b'\n' => "'\\n'".to_string(),
        b'\t' => "'\\t'".to_string(),
        b if b.is_ascii_graphic() || b == b' ' => format!("'{}'", b as char),
        b => format!("'\\x{b:02x}'"),
    }
}
