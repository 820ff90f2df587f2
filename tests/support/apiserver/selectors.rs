//! Label and field selectors as the API server evaluates them for lists and watches
//! (`k8s.io/apimachinery/pkg/labels/selector.go`, `pkg/fields/selector.go`). Field selectors are
//! generic dotted JSON paths here; a missing field compares as "" (so `spec.nodeName=` selects
//! unbound pods and `status.phase!=Succeeded` keeps pods without a phase).

use serde_json::Value;

/// One label requirement.
#[derive(Debug, Clone, PartialEq, Eq)]
enum LabelReq {
    Equals(String, String),
    NotEquals(String, String),
    In(String, Vec<String>),
    NotIn(String, Vec<String>),
    Exists(String),
    NotExists(String),
}

/// A parsed `labelSelector`: all requirements must hold.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct LabelSelector(Vec<LabelReq>);

/// One field requirement: `path` (dotted) equals / does not equal `value`.
#[derive(Debug, Clone, PartialEq, Eq)]
struct FieldReq {
    path: String,
    value: String,
    negated: bool,
}

/// A parsed `fieldSelector`: all requirements must hold.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct FieldSelector(Vec<FieldReq>);

/// Split on commas outside parentheses (`a in (x,y),b` has two terms).
fn split_terms(s: &str) -> Vec<&str> {
    let mut terms = Vec::new();
    let mut depth = 0i32;
    let mut start = 0;
    for (i, c) in s.char_indices() {
        match c {
            '(' => depth += 1,
            ')' => depth -= 1,
            ',' if depth == 0 => {
                terms.push(&s[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    terms.push(&s[start..]);
    terms.into_iter().map(str::trim).filter(|t| !t.is_empty()).collect()
}

fn parse_set(s: &str) -> Result<Vec<String>, String> {
    let inner =
        s.trim().strip_prefix('(').and_then(|s| s.strip_suffix(')')).ok_or_else(|| format!("expected (values), got {s:?}"))?;
    Ok(inner.split(',').map(|v| v.trim().to_string()).filter(|v| !v.is_empty()).collect())
}

fn parse_label_term(term: &str) -> Result<LabelReq, String> {
    if let Some(key) = term.strip_prefix('!') {
        return Ok(LabelReq::NotExists(key.trim().to_string()));
    }
    if let Some((k, v)) = term.split_once("!=") {
        return Ok(LabelReq::NotEquals(k.trim().to_string(), v.trim().to_string()));
    }
    if let Some((k, v)) = term.split_once("==").or_else(|| term.split_once('=')) {
        return Ok(LabelReq::Equals(k.trim().to_string(), v.trim().to_string()));
    }
    let words: Vec<&str> = term.splitn(3, char::is_whitespace).collect();
    match words.as_slice() {
        [key] => Ok(LabelReq::Exists(key.to_string())),
        [key, "in", set] => Ok(LabelReq::In(key.to_string(), parse_set(set)?)),
        [key, "notin", set] => Ok(LabelReq::NotIn(key.to_string(), parse_set(set)?)),
        _ => Err(format!("unable to parse requirement: {term:?}")),
    }
}

impl LabelSelector {
    /// Parse `app=web,tier in (a,b),!legacy`; "" selects everything.
    pub fn parse(s: &str) -> Result<LabelSelector, String> {
        split_terms(s).into_iter().map(parse_label_term).collect::<Result<_, _>>().map(LabelSelector)
    }

    /// Whether the object's `metadata.labels` satisfy every requirement.
    pub fn matches(&self, obj: &Value) -> bool {
        let label = |k: &str| obj["metadata"]["labels"].get(k).and_then(Value::as_str);
        self.0.iter().all(|req| match req {
            LabelReq::Equals(k, v) => label(k) == Some(v.as_str()),
            LabelReq::NotEquals(k, v) => label(k) != Some(v.as_str()),
            LabelReq::In(k, set) => label(k).is_some_and(|l| set.iter().any(|v| v == l)),
            LabelReq::NotIn(k, set) => label(k).is_none_or(|l| set.iter().all(|v| v != l)),
            LabelReq::Exists(k) => label(k).is_some(),
            LabelReq::NotExists(k) => label(k).is_none(),
        })
    }

    /// Whether the selector is empty (selects everything).
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

/// The value at a dotted path as a field selector sees it: strings as-is, numbers and booleans
/// printed, anything missing or null as "".
pub fn field_value(obj: &Value, path: &str) -> String {
    let v = path.split('.').try_fold(obj, |v, part| v.get(part));
    match v {
        Some(Value::String(s)) => s.clone(),
        Some(Value::Number(n)) => n.to_string(),
        Some(Value::Bool(b)) => b.to_string(),
        _ => String::new(),
    }
}

impl FieldSelector {
    /// Parse `spec.nodeName=,status.phase!=Failed`; "" selects everything.
    pub fn parse(s: &str) -> Result<FieldSelector, String> {
        let mut reqs = Vec::new();
        for term in split_terms(s) {
            let (path, value, negated) = if let Some((k, v)) = term.split_once("!=") {
                (k, v, true)
            } else if let Some((k, v)) = term.split_once("==").or_else(|| term.split_once('=')) {
                (k, v, false)
            } else {
                return Err(format!("invalid selector: '{term}'; can't understand '{term}'"));
            };
            reqs.push(FieldReq { path: path.trim().to_string(), value: value.trim().to_string(), negated });
        }
        Ok(FieldSelector(reqs))
    }

    /// Whether every requirement holds.
    pub fn matches(&self, obj: &Value) -> bool {
        self.0.iter().all(|r| (field_value(obj, &r.path) == r.value) != r.negated)
    }

    /// The field labels the requirements name, in selector order.
    pub fn labels(&self) -> impl Iterator<Item = &str> {
        self.0.iter().map(|r| r.path.as_str())
    }

    /// Whether the selector is empty (selects everything).
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

/// Both selectors of a request.
#[derive(Debug, Clone, Default)]
pub struct Selectors {
    /// `labelSelector`.
    pub labels: LabelSelector,
    /// `fieldSelector`.
    pub fields: FieldSelector,
}

impl Selectors {
    /// Parse from the query values; errors are the 400 message.
    pub fn parse(label: Option<&str>, field: Option<&str>) -> Result<Selectors, String> {
        Ok(Selectors { labels: LabelSelector::parse(label.unwrap_or(""))?, fields: FieldSelector::parse(field.unwrap_or(""))? })
    }

    /// Whether `obj` passes both.
    pub fn matches(&self, obj: &Value) -> bool {
        self.labels.matches(obj) && self.fields.matches(obj)
    }

    /// Whether neither selector restricts anything.
    pub fn is_empty(&self) -> bool {
        self.labels.is_empty() && self.fields.is_empty()
    }
}
