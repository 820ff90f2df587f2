//! The text-format reader the scrape tests use (`support/promtext.rs`), checked against the
//! format's own examples: the test tables of Prometheus' Go reader (prometheus/common
//! `expfmt/text_parse_test.go` at commit 06f751e981c75d28b9c3e4758ab7681c2384b08d:
//! `testTextParse`, `testTextParseError`, `TestTextParseMissingMetricName`,
//! `TestTextParserStartOfLine`) and the example of the format's documentation (prometheus/docs,
//! "Exposition formats").
//!
//! Go's expected `dto.MetricFamily` values are transcribed as [`Want`]s and compared with
//! [`Family::metrics`], Go's per-series view; the error tables keep Go's expected message
//! prefixes, for both name validation schemes.

#[path = "support/promtext.rs"]
#[allow(dead_code)]
mod promtext;

use promtext::{parse, parse_bytes, Family, Kind, Metric, MetricValue, Names};

/// One expected family, as Go's test table writes it.
struct Want {
    name: &'static str,
    kind: Kind,
    help: &'static str,
    metrics: Vec<Metric>,
}

fn want(name: &'static str, kind: Kind, help: &'static str, metrics: Vec<Metric>) -> Want {
    Want { name, kind, help, metrics }
}

fn labels(pairs: &[(&str, &str)]) -> Vec<(String, String)> {
    pairs.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect()
}

fn single(pairs: &[(&str, &str)], v: f64, ts: Option<i64>) -> Metric {
    Metric { labels: labels(pairs), value: MetricValue::Single(v), timestamp_ms: ts }
}

fn summary(pairs: &[(&str, &str)], count: Option<f64>, sum: Option<f64>, quantiles: &[(f64, f64)], ts: Option<i64>) -> Metric {
    Metric { labels: labels(pairs), value: MetricValue::Summary { count, sum, quantiles: quantiles.to_vec() }, timestamp_ms: ts }
}

fn histogram(count: Option<f64>, sum: Option<f64>, buckets: &[(f64, f64)]) -> Metric {
    Metric { labels: Vec::new(), value: MetricValue::Histogram { count, sum, buckets: buckets.to_vec() }, timestamp_ms: None }
}

/// Go's raw-string inputs use real tabs; `<TAB>` stands for one here so it can be seen.
fn input(text: &str) -> Vec<u8> {
    text.replace("<TAB>", "\t").into_bytes()
}

/// The families `got` as Go's test compares them (by name, NaN equal to NaN: compared through
/// `Debug`, which prints every float exactly).
fn assert_families(case: &str, got: &[Family], wanted: &[Want]) {
    assert_eq!(got.len(), wanted.len(), "{case}: families {:?}", got.iter().map(|f| &f.name).collect::<Vec<_>>());
    for w in wanted {
        let f = got.iter().find(|f| f.name == w.name).unwrap_or_else(|| panic!("{case}: no family {:?} in {got:#?}", w.name));
        assert_eq!(f.kind, w.kind, "{case}: {}", w.name);
        assert_eq!(f.help, w.help, "{case}: {}", w.name);
        assert_eq!(format!("{:#?}", f.metrics()), format!("{:#?}", w.metrics), "{case}: {}", w.name);
    }
}

const LATENCY_BUCKETS: &[(f64, f64)] =
    &[(100.0, 123.0), (120.0, 412.0), (144.0, 592.0), (172.8, 1524.0), (f64::INFINITY, 2693.0)];

/// The latency histogram Go's tables repeat with small changes: the type its `TYPE` line
/// names, its buckets (`le`, value) in order and its count; line 1 is empty, as in Go's raw
/// strings, so the buckets are lines 4 to 8 and the count line 10.
fn latency_text(kind: &str, buckets: &[(&str, &str)], count: &str) -> String {
    let mut text =
        format!("\n# HELP request_duration_microseconds The response latency.\n# TYPE request_duration_microseconds {kind}\n");
    for (le, value) in buckets {
        text.push_str(&format!("request_duration_microseconds_bucket{{le=\"{le}\"}} {value}\n"));
    }
    text.push_str(&format!("request_duration_microseconds_sum 1.7560473e+06\nrequest_duration_microseconds_count {count}\n"));
    text
}

/// The buckets of Go's integer histogram scenarios.
const LATENCY_LINES: &[(&str, &str)] = &[("100", "123"), ("120", "412"), ("144", "592"), ("172.8", "1524"), ("+Inf", "2693")];

/// The same buckets, the fourth with a fractional value.
const LATENCY_LINES_ONE_FLOAT: &[(&str, &str)] =
    &[("100", "123"), ("120", "412"), ("144", "592"), ("172.8", "1524.8"), ("+Inf", "2693")];

/// `testTextParse`'s scenarios: input, expected families, and whether the input needs UTF-8 names
/// (quoted names outside the classic character set, which the classic rules refuse).
fn valid_scenarios() -> Vec<(String, Vec<Want>, bool)> {
    use Kind::*;
    let latency = |kind, buckets: &[(f64, f64)], count| {
        want(
            "request_duration_microseconds",
            kind,
            "The response latency.",
            vec![histogram(Some(count), Some(1756047.3), buckets)],
        )
    };
    vec![
        // 0: Empty lines as input.
        ("\n\n".into(), vec![], false),
        // 1: Minimal case.
        (
            "\nminimal_metric 1.234\nanother_metric -3e3 103948\n# Even that:\nno_labels{} 3\n# HELP line for non-existing metric will be ignored.\n"
                .into(),
            vec![
                want("minimal_metric", Untyped, "", vec![single(&[], 1.234, None)]),
                want("another_metric", Untyped, "", vec![single(&[], -3e3, Some(103948))]),
                want("no_labels", Untyped, "", vec![single(&[], 3.0, None)]),
            ],
            false,
        ),
        // 2: Counters & gauges, docstrings, various whitespace, escape sequences.
        (
            r#"
# A normal comment.
#
# TYPE name counter
name{labelname="val1",basename="basevalue"} NaN
name {labelname="val2",basename="base\"v\\al\nue"} 0.23 1234567890
# HELP name two-line\n doc  str\\ing

 # HELP  name2  <TAB>doc str"ing 2
  #    TYPE    name2 gauge
name2{labelname="val2"<TAB>,basename   =   "basevalue2"<TAB><TAB>} +Inf 54321
name2{ labelname = "val1" , }-Inf
"#
            .into(),
            vec![
                want(
                    "name",
                    Counter,
                    "two-line\n doc  str\\ing",
                    vec![
                        single(&[("labelname", "val1"), ("basename", "basevalue")], f64::NAN, None),
                        single(&[("labelname", "val2"), ("basename", "base\"v\\al\nue")], 0.23, Some(1234567890)),
                    ],
                ),
                want(
                    "name2",
                    Gauge,
                    "doc str\"ing 2",
                    vec![
                        single(&[("labelname", "val2"), ("basename", "basevalue2")], f64::INFINITY, Some(54321)),
                        single(&[("labelname", "val1")], f64::NEG_INFINITY, None),
                    ],
                ),
            ],
            false,
        ),
        // 3: The evil summary, mixed with other types and funny comments.
        (
            r#"
# TYPE my_summary summary
my_summary{n1="val1",quantile="0.5"} 110
decoy -1 -2
my_summary{n1="val1",quantile="0.9"} 140 1
my_summary_count{n1="val1"} 42
# Latest timestamp wins in case of a summary.
my_summary_sum{n1="val1"} 4711 2
fake_sum{n1="val1"} 2001
# TYPE another_summary summary
another_summary_count{n2="val2",n1="val1"} 20
my_summary_count{n2="val2",n1="val1"} 5 5
another_summary{n1="val1",n2="val2",quantile=".3"} -1.2
my_summary_sum{n1="val2"} 08 15
my_summary{n1="val3", quantile="0.2"} 4711
  my_summary{n1="val1",n2="val2",quantile="-12.34",} NaN
# some
# funny comments
# HELP
# HELP
# HELP my_summary
# HELP my_summary
"#
            .into(),
            vec![
                want("fake_sum", Untyped, "", vec![single(&[("n1", "val1")], 2001.0, None)]),
                want("decoy", Untyped, "", vec![single(&[], -1.0, Some(-2))]),
                want(
                    "my_summary",
                    Summary,
                    "",
                    vec![
                        summary(&[("n1", "val1")], Some(42.0), Some(4711.0), &[(0.5, 110.0), (0.9, 140.0)], Some(2)),
                        summary(&[("n2", "val2"), ("n1", "val1")], Some(5.0), None, &[(-12.34, f64::NAN)], Some(5)),
                        summary(&[("n1", "val2")], None, Some(8.0), &[], Some(15)),
                        summary(&[("n1", "val3")], None, None, &[(0.2, 4711.0)], None),
                    ],
                ),
                want(
                    "another_summary",
                    Summary,
                    "",
                    vec![summary(&[("n2", "val2"), ("n1", "val1")], Some(20.0), None, &[(0.3, -1.2)], None)],
                ),
            ],
            false,
        ),
        // 4: The histogram.
        (
            latency_text("histogram", LATENCY_LINES, "2693"),
            vec![latency(Histogram, LATENCY_BUCKETS, 2693.0)],
            false,
        ),
        // 5: Quoted metric name and quoted label name with dots.
        (
            r#"
# HELP "my.noncompliant.metric" help text
# TYPE "my.noncompliant.metric" counter
{"my.noncompliant.metric","label.name"="value"} 1
"#
            .into(),
            vec![want("my.noncompliant.metric", Counter, "help text", vec![single(&[("label.name", "value")], 1.0, None)])],
            true,
        ),
        // 6: Metric family with dots in name.
        (
            r#"
# HELP "name.with.dots" boring help
# TYPE "name.with.dots" counter
{"name.with.dots",labelname="val1",basename="basevalue"} 42.0
{"name.with.dots",labelname="val2",basename="basevalue"} 0.23 1234567890
"#
            .into(),
            vec![want(
                "name.with.dots",
                Counter,
                "boring help",
                vec![
                    single(&[("labelname", "val1"), ("basename", "basevalue")], 42.0, None),
                    single(&[("labelname", "val2"), ("basename", "basevalue")], 0.23, Some(1234567890)),
                ],
            )],
            true,
        ),
        // 7: Metric family with dots in name, no labels.
        (
            "
<TAB><TAB><TAB><TAB># HELP \"name.with.dots\" boring help
<TAB><TAB><TAB><TAB># TYPE \"name.with.dots\" counter
<TAB><TAB><TAB><TAB>{\"name.with.dots\"} 42.0
<TAB><TAB><TAB><TAB>{\"name.with.dots\"} 0.23 1234567890
<TAB><TAB><TAB><TAB>"
                .into(),
            vec![want("name.with.dots", Counter, "boring help", vec![single(&[], 42.0, None), single(&[], 0.23, Some(1234567890))])],
            true,
        ),
        // 8: Quoted metric name and quoted label names with dots and asterisks, special
        // characters in label values.
        (
            r#"# HELP "gauge.name" gauge\ndoc\nstr\"ing
# TYPE "gauge.name" gauge
{"gauge.name","name.1"="val with\nnew line","name*2"="val with \\backslash and \"quotes\""} +Inf
{"gauge.name","name.1"="Björn","name*2"="佖佥"} 3.14e+42
"#
            .into(),
            vec![want(
                "gauge.name",
                Gauge,
                "gauge\ndoc\nstr\"ing",
                vec![
                    single(&[("name.1", "val with\nnew line"), ("name*2", "val with \\backslash and \"quotes\"")], f64::INFINITY, None),
                    single(&[("name.1", "Björn"), ("name*2", "佖佥")], 3.14e42, None),
                ],
            )],
            true,
        ),
        // 9: Various escaped special characters in metric and label names.
        (
            r#"
# HELP "my\"noncompliant\nmetric\\" help text
# TYPE "my\"noncompliant\nmetric\\" counter
{"my\"noncompliant\nmetric\\","label\"name\n"="value"} 1
"#
            .into(),
            vec![want("my\"noncompliant\nmetric\\", Counter, "help text", vec![single(&[("label\"name\n", "value")], 1.0, None)])],
            true,
        ),
        // 10: Quoted metric name, not the first element in the label set.
        (
            r#"
# HELP "my.noncompliant.metric" help text
# TYPE "my.noncompliant.metric" counter
{labelname="value", "my.noncompliant.metric"} 1
"#
            .into(),
            vec![want("my.noncompliant.metric", Counter, "help text", vec![single(&[("labelname", "value")], 1.0, None)])],
            true,
        ),
        // 11: Multiple minimal metrics with quoted metric names.
        (
            "\n{\"name.1\"} 1\n{\"name.2\"} 1\n{\"name.3\"} 1\n".into(),
            vec![
                want("name.1", Untyped, "", vec![single(&[], 1.0, None)]),
                want("name.2", Untyped, "", vec![single(&[], 1.0, None)]),
                want("name.3", Untyped, "", vec![single(&[], 1.0, None)]),
            ],
            true,
        ),
        // 12: A full float histogram.
        (
            latency_text(
                "histogram",
                &[("100", "123.5"), ("120", "412.6"), ("144", "592.7"), ("172.8", "1524.8"), ("+Inf", "2693.9")],
                "2693.9",
            ),
            vec![latency(
                Histogram,
                &[(100.0, 123.5), (120.0, 412.6), (144.0, 592.7), (172.8, 1524.8), (f64::INFINITY, 2693.9)],
                2693.9,
            )],
            false,
        ),
        // 13: A float histogram where only the count is really a float.
        (
            latency_text("histogram", &LATENCY_LINES[..4], "2693.9"),
            vec![latency(Histogram, &LATENCY_BUCKETS[..4], 2693.9)],
            false,
        ),
        // 14: A float histogram where only one of the buckets is really a float.
        (
            latency_text("histogram", LATENCY_LINES_ONE_FLOAT, "2693"),
            vec![latency(Histogram, &[(100.0, 123.0), (120.0, 412.0), (144.0, 592.0), (172.8, 1524.8), (f64::INFINITY, 2693.0)], 2693.0)],
            false,
        ),
        // 15: A gauge histogram.
        (
            latency_text("gaugehistogram", LATENCY_LINES, "2693"),
            vec![latency(GaugeHistogram, LATENCY_BUCKETS, 2693.0)],
            false,
        ),
        // 16: A gauge histogram with alternative spelling.
        (
            latency_text("gauge_histogram", LATENCY_LINES, "2693"),
            vec![latency(GaugeHistogram, LATENCY_BUCKETS, 2693.0)],
            false,
        ),
        // 17: A float gauge histogram where only one of the buckets is really a float and with
        // alternative spelling.
        (
            latency_text("gauge_histogram", LATENCY_LINES_ONE_FLOAT, "2693"),
            vec![latency(
                GaugeHistogram,
                &[(100.0, 123.0), (120.0, 412.0), (144.0, 592.0), (172.8, 1524.8), (f64::INFINITY, 2693.0)],
                2693.0,
            )],
            false,
        ),
    ]
}

#[test]
fn go_valid_scenarios_parse_to_gos_families() {
    let scenarios = valid_scenarios();
    assert_eq!(scenarios.len(), 18);
    for (i, (text, wanted, utf8_only)) in scenarios.iter().enumerate() {
        let got = parse_bytes(&input(text), Names::Utf8).unwrap_or_else(|e| panic!("{i}. error: {e}"));
        assert_families(&format!("{i}"), &got, wanted);
        // The classic rules give the same families, or refuse the quoted dotted names.
        match parse_bytes(&input(text), Names::Legacy) {
            Ok(legacy) if !utf8_only => assert_eq!(format!("{legacy:?}"), format!("{got:?}"), "{i}. legacy"),
            Ok(legacy) => panic!("{i}. the classic rules accepted UTF-8 names: {legacy:?}"),
            Err(e) if *utf8_only => assert!(e.msg.starts_with("invalid metric name"), "{i}. legacy: {e}"),
            Err(e) => panic!("{i}. legacy error: {e}"),
        }
    }
}

/// `testTextParseError`'s scenarios 0 to 42: input, Go's expected error prefix under UTF-8 name
/// validation (empty: no error), and under the classic rules where it differs.
const ERROR_SCENARIOS_0_TO_42: &[(&[u8], &str, Option<&str>)] = &[
    // 0: No new-line at end of input.
    (b"\nbla 3.14\nblubber 42", "text format parsing error in line 3: unexpected end of input stream", None),
    // 1: Invalid escape sequence in label value.
    (br#"metric{label="\t"} 3.14"#, "text format parsing error in line 1: invalid escape sequence", None),
    // 2: Newline in label value.
    (
        b"\nmetric{label=\"new\nline\"} 3.14\n",
        r#"text format parsing error in line 2: label value "new" contains unescaped new-line"#,
        None,
    ),
    // 3:
    (br#"metric{@="bla"} 3.14"#, "text format parsing error in line 1: invalid label name for metric", None),
    // 4:
    (br#"metric{__name__="bla"} 3.14"#, r#"text format parsing error in line 1: label name "__name__" is reserved"#, None),
    // 5:
    (br#"metric{label+="bla"} 3.14"#, "text format parsing error in line 1: expected '=' after label name", None),
    // 6:
    (br#"metric{label=bla} 3.14"#, "text format parsing error in line 1: expected '\"' at start of label value", None),
    // 7:
    (
        b"\n# TYPE metric summary\nmetric{quantile=\"bla\"} 3.14\n",
        "text format parsing error in line 3: expected float as value for 'quantile' label",
        None,
    ),
    // 8:
    (br#"metric{label="bla"+} 3.14"#, "text format parsing error in line 1: unexpected end of label value", None),
    // 9:
    (b"metric{label=\"bla\"} 3.14 2.72\n", "text format parsing error in line 1: expected integer as timestamp", None),
    // 10:
    (b"metric{label=\"bla\"} 3.14 2 3\n", "text format parsing error in line 1: spurious string after timestamp", None),
    // 11:
    (b"metric{label=\"bla\"} blubb\n", "text format parsing error in line 1: expected float as value", None),
    // 12:
    (b"\n# HELP metric one\n# HELP metric two\n", "text format parsing error in line 3: second HELP line for metric name", None),
    // 13:
    (
        b"\n# TYPE metric counter\n# TYPE metric untyped\n",
        r#"text format parsing error in line 3: second TYPE line for metric name "metric", or TYPE reported after samples"#,
        None,
    ),
    // 14:
    (
        b"\nmetric 4.12\n# TYPE metric counter\n",
        r#"text format parsing error in line 3: second TYPE line for metric name "metric", or TYPE reported after samples"#,
        None,
    ),
    // 15:
    (b"\n# TYPE metric bla\n", "text format parsing error in line 2: unknown metric type", None),
    // 16:
    (b"\n# TYPE met-ric\n", "text format parsing error in line 2: invalid metric name in comment", None),
    // 17:
    (br#"@invalidmetric{label="bla"} 3.14 2"#, "text format parsing error in line 1: invalid metric name", None),
    // 18:
    (br#"{label="bla"} 3.14 2"#, "text format parsing error in line 1: invalid metric name", None),
    // 19:
    (
        b"\n# TYPE metric histogram\nmetric_bucket{le=\"bla\"} 3.14\n",
        "text format parsing error in line 3: expected float as value for 'le' label",
        None,
    ),
    // 20: Invalid UTF-8 in label value.
    (b"metric{l=\"\xbd\"} 3.14\n", r#"text format parsing error in line 1: invalid label value "\xbd""#, None),
    // 21: Go 1.13 sometimes allows underscores in numbers.
    (b"foo 1_2\n", "text format parsing error in line 1: expected float as value", None),
    // 22: Go 1.13 supports hex floating point.
    (b"foo 0x1p-3\n", "text format parsing error in line 1: expected float as value", None),
    // 23: Check for various other literals variants, just in case.
    (b"foo 0x1P-3\n", "text format parsing error in line 1: expected float as value", None),
    // 24:
    (b"foo 0B1\n", "text format parsing error in line 1: expected float as value", None),
    // 25:
    (b"foo 0O1\n", "text format parsing error in line 1: expected float as value", None),
    // 26:
    (b"foo 0X1\n", "text format parsing error in line 1: expected float as value", None),
    // 27:
    (b"foo 0x1\n", "text format parsing error in line 1: expected float as value", None),
    // 28:
    (b"foo 0b1\n", "text format parsing error in line 1: expected float as value", None),
    // 29:
    (b"foo 0o1\n", "text format parsing error in line 1: expected float as value", None),
    // 30:
    (b"foo 0x1\n", "text format parsing error in line 1: expected float as value", None),
    // 31:
    (b"foo 0x1\n", "text format parsing error in line 1: expected float as value", None),
    // 32: Check histogram label.
    (
        b"\n# TYPE metric histogram\nmetric_bucket{le=\"0x1p-3\"} 3.14\n",
        "text format parsing error in line 3: expected float as value for 'le' label",
        None,
    ),
    // 33: Check quantile label.
    (
        b"\n# TYPE metric summary\nmetric{quantile=\"0x1p-3\"} 3.14\n",
        "text format parsing error in line 3: expected float as value for 'quantile' label",
        None,
    ),
    // 34: Check duplicate label.
    (br#"metric{label="bla",label="bla"} 3.14"#, "text format parsing error in line 1: duplicate label names for metric", None),
    // 35: Multiple quoted metric names.
    (
        br#"{"one.name","another.name"} 3.14"#,
        "text format parsing error in line 1: multiple metric names",
        Some(r#"text format parsing error in line 1: invalid metric name "one.name""#),
    ),
    // 36: Invalid escape sequence in quoted metric name.
    (br#"{"a\xc5z",label="bla"} 3.14"#, "text format parsing error in line 1: invalid escape sequence", None),
    // 37: Unexpected end of quoted metric name.
    (br#"{"metric.name".label="bla"} 3.14"#, "text format parsing error in line 1: unexpected end of metric name", None),
    // 38: Invalid escape sequence in quoted metric name.
    (
        b"\n# TYPE \"metric.name\\t\" counter\n{\"metric.name\\t\",label=\"bla\"} 3.14\n",
        "text format parsing error in line 2: invalid escape sequence",
        None,
    ),
    // 39: Newline in quoted metric name.
    (
        b"\n# TYPE \"metric\nname\" counter\n{\"metric\nname\",label=\"bla\"} 3.14\n",
        r#"text format parsing error in line 2: metric name "metric" contains unescaped new-line"#,
        None,
    ),
    // 40: Newline in quoted label name.
    (
        b"\n{\"metric.name\",\"new\nline\"=\"bla\"} 3.14\n",
        r#"text format parsing error in line 2: label name "new" contains unescaped new-line"#,
        Some(r#"text format parsing error in line 2: invalid metric name "metric.name""#),
    ),
    // 41: Dotted metric name fails legacy validation.
    (
        b"{\"metric.name\",foo=\"bla\"} 3.14\n",
        "",
        Some(r#"text format parsing error in line 1: invalid metric name "metric.name""#),
    ),
    // 42: Dotted label name fails legacy validation.
    (
        b"metric_name{\"foo\"=\"bar\", \"dotted.label\"=\"bla\"} 3.14\n",
        "",
        Some(r#"text format parsing error in line 1: invalid label name "dotted.label""#),
    ),
];

/// All of `testTextParseError`'s scenarios, in Go's order.
fn error_scenarios() -> Vec<(Vec<u8>, &'static str, Option<&'static str>)> {
    let mut all: Vec<_> = ERROR_SCENARIOS_0_TO_42.iter().map(|(text, utf8, legacy)| (text.to_vec(), *utf8, *legacy)).collect();
    let negative_count = r#"text format parsing error in line 10: negative count for histogram "request_duration_microseconds""#;
    let negative_bucket =
        r#"text format parsing error in line 5: negative bucket population for histogram "request_duration_microseconds""#;
    let second_bucket = |v| [("100", "123"), ("120", v), ("144", "592"), ("172.8", "1524"), ("+Inf", "2693")];
    // 43: Histogram with negative count.
    all.push((latency_text("histogram", LATENCY_LINES, "-2693").into_bytes(), negative_count, None));
    // 44: Histogram with negative bucket.
    all.push((latency_text("histogram", &second_bucket("-412"), "2693").into_bytes(), negative_bucket, None));
    // 45: Histogram with negative float count.
    all.push((latency_text("histogram", LATENCY_LINES, "-2693.123").into_bytes(), negative_count, None));
    // 46: Histogram with negative float bucket.
    all.push((latency_text("histogram", &second_bucket("-412.456"), "2693").into_bytes(), negative_bucket, None));
    // 47: Empty braces with no metric name (regression test for a nil pointer dereference in
    // startLabelName).
    all.push((b"{} 3.14".to_vec(), "text format parsing error in line 1: invalid metric name", None));
    all
}

#[test]
fn go_error_scenarios_are_refused_with_gos_message() {
    let scenarios = error_scenarios();
    assert_eq!(scenarios.len(), 48);
    for (i, (text, utf8, legacy)) in scenarios.iter().enumerate() {
        for (names, expected) in [(Names::Utf8, *utf8), (Names::Legacy, legacy.unwrap_or(utf8))] {
            match parse_bytes(text, names) {
                Ok(families) => assert!(expected.is_empty(), "{i}. {names:?}: expected {expected:?}, parsed {families:?}"),
                Err(e) => {
                    let got = e.to_string();
                    assert!(
                        !expected.is_empty() && got.starts_with(expected),
                        "{i}. {names:?}: expected {expected:?}, got {got:?}"
                    );
                }
            }
        }
    }
}

/// `TestTextParseMissingMetricName`: a sample line whose braces name no metric is refused on that
/// line, whatever came before, under both name schemes.
#[test]
fn go_missing_metric_name_is_refused_on_its_line() {
    let prefixes = [
        "",
        "#TYPE A000000 summArY\n",
        "# TYPE metric histogram\n",
        "# HELP metric Help text.\n",
        "metric 1\n",
        "{\"metric\"} 1\n",
    ];
    let samples = ["{}", "{} 2\n", "{label=\"value\"} 2\n", "{label=\"value\",} 2\n"];
    for names in [Names::Legacy, Names::Utf8] {
        for prefix in prefixes {
            for sample in samples {
                let e = parse_bytes(format!("{prefix}{sample}").as_bytes(), names)
                    .expect_err(&format!("{names:?} {prefix:?}{sample:?}"));
                assert_eq!(
                    (e.msg.as_str(), e.line),
                    ("invalid metric name", prefix.matches('\n').count() + 1),
                    "{prefix:?}{sample:?}"
                );
            }
        }
    }
}

/// `TestTextParserStartOfLine`: input that ends at the start of a line is complete.
#[test]
fn go_end_of_input_at_a_line_start_is_no_error() {
    assert_eq!(parse(""), Ok(Vec::new()));
    assert_eq!(parse("valid 1\n  <TAB>".replace("<TAB>", "\t").as_str()).map(|f| f.len()), Ok(1));
}

/// The text-format example of the format's documentation as it stood for `version=0.0.4`, verbatim
/// (source in `fixtures/README.md`).
const DOCS_EXAMPLE_0_0_4: &str = include_str!("fixtures/prometheus-text/docs-example-v0.0.4.txt");

/// The families every version of the documentation's example has (its summary's name aside).
fn docs_example_families(summary_name: &'static str, summary_help: &'static str) -> Vec<Want> {
    use Kind::*;
    let ts = Some(1395066363000);
    vec![
        want(
            "http_requests_total",
            Counter,
            "The total number of HTTP requests.",
            vec![
                single(&[("method", "post"), ("code", "200")], 1027.0, ts),
                single(&[("method", "post"), ("code", "400")], 3.0, ts),
            ],
        ),
        want(
            "msdos_file_access_time_seconds",
            Untyped,
            "",
            vec![single(&[("path", r"C:\DIR\FILE.TXT"), ("error", "Cannot find file:\n\"FILE.TXT\"")], 1.458255915e9, None)],
        ),
        want("metric_without_timestamp_and_labels", Untyped, "", vec![single(&[], 12.47, None)]),
        want("something_weird", Untyped, "", vec![single(&[("problem", "division by zero")], f64::INFINITY, Some(-3982045))]),
        want(
            "http_request_duration_seconds",
            Histogram,
            "A histogram of the request duration.",
            vec![histogram(
                Some(144320.0),
                Some(53423.0),
                &[(0.05, 24054.0), (0.1, 33444.0), (0.2, 100392.0), (0.5, 129389.0), (1.0, 133988.0), (f64::INFINITY, 144320.0)],
            )],
        ),
        want(
            summary_name,
            Summary,
            summary_help,
            vec![summary(
                &[],
                Some(2693.0),
                Some(1.7560473e7),
                &[(0.01, 3102.0), (0.05, 3272.0), (0.5, 4773.0), (0.9, 9001.0), (0.99, 76656.0)],
                None,
            )],
        ),
    ]
}

#[test]
fn documentation_example_for_version_0_0_4_parses() {
    let got = parse(DOCS_EXAMPLE_0_0_4).expect("the documented example");
    assert_families(
        "docs 0.0.4",
        &got,
        &docs_example_families("telemetry_requests_metrics_latency_microseconds", "A summary of the response latency."),
    );
    // Line by line, as the scrape tests read it: the histogram's lines stay samples of its family
    // under their own names, `le` included; the counter keeps its `_total`.
    let names: Vec<&str> = got.iter().map(|f| f.name.as_str()).collect();
    assert_eq!(names[0], "http_requests_total");
    let histogram = &got[4];
    assert_eq!(histogram.samples.len(), 8);
    assert_eq!(histogram.samples[0].name, "http_request_duration_seconds_bucket");
    assert_eq!(histogram.samples[0].label("le"), Some("0.05"));
    assert_eq!(histogram.samples[7].name, "http_request_duration_seconds_count");
    assert_eq!(histogram.samples[7].value, 144320.0);
}

/// The documentation's example today, verbatim (source in `fixtures/README.md`): it added a
/// UTF-8 names line, printed without a value, and renamed the summary.
const DOCS_EXAMPLE_CURRENT: &str = include_str!("fixtures/prometheus-text/docs-example-current.txt");

#[test]
fn documentation_example_today_is_refused_where_go_refuses_it() {
    // Go's reader refuses the value-less line 10: a sample needs a value, and the classic rules
    // refuse the dotted name before that.
    let utf8 = parse_bytes(DOCS_EXAMPLE_CURRENT.as_bytes(), Names::Utf8).expect_err("line 10 has no value");
    assert_eq!(utf8.to_string(), "text format parsing error in line 10: expected float as value, got \"\"");
    let legacy = parse(DOCS_EXAMPLE_CURRENT).expect_err("line 10 names a UTF-8 metric");
    assert_eq!(legacy.to_string(), "text format parsing error in line 10: invalid metric name \"my.dotted.metric\"");

    // With a value on that line, the rest is the classic example's families plus the UTF-8 one.
    let fixed = DOCS_EXAMPLE_CURRENT.replace(r#""Not Found"}"#, r#""Not Found"} 1"#);
    let got = parse_bytes(fixed.as_bytes(), Names::Utf8).expect("with a value");
    let mut wanted = docs_example_families("rpc_duration_seconds", "A summary of the RPC duration in seconds.");
    wanted.push(want("my.dotted.metric", Kind::Untyped, "", vec![single(&[("error.message", "Not Found")], 1.0, None)]));
    assert_families("docs today", &got, &wanted);
}

/// Go's reader refuses trailing blanks after a value or timestamp and a value too large for a
/// float, and reads floats as `strconv.ParseFloat` does; these pin the corners the tables above
/// leave open.
#[test]
fn corners_of_values_and_timestamps() {
    let value = |v: &str| parse(&format!("m {v}\n")).map(|f| f[0].samples[0].value);
    assert_eq!(value("1e3"), Ok(1000.0));
    assert_eq!(value(".5"), Ok(0.5));
    assert_eq!(value("5."), Ok(5.0));
    assert_eq!(value("+Inf"), Ok(f64::INFINITY));
    assert_eq!(value("-infinity"), Ok(f64::NEG_INFINITY));
    assert!(value("nan").is_ok_and(f64::is_nan));
    for refused in ["+NaN", "-nan", "1e400", "1e", "e5", ".", "1.2.3", "infin", "0x10", "1 ", "1\r"] {
        let e = value(refused).expect_err(refused);
        assert!(e.msg.starts_with("expected") || e.msg.starts_with("spurious"), "{refused:?}: {e}");
    }
    assert_eq!(parse("m 1 -5\n").map(|f| f[0].samples[0].timestamp_ms), Ok(Some(-5)));
    assert!(parse("m 1 5 \n").is_err_and(|e| e.msg.starts_with("spurious string after timestamp")));
    assert!(parse("m 1 99999999999999999999\n").is_err_and(|e| e.msg.starts_with("expected integer as timestamp")));
    // A type is matched case-insensitively; a trailing blank makes it another word.
    assert_eq!(parse("# TYPE m COUNTER\nm 1\n").map(|f| f[0].kind), Ok(Kind::Counter));
    assert!(parse("# TYPE m counter \nm 1\n").is_err_and(|e| e.msg.starts_with("unknown metric type")));
}
