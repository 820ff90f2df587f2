//! The documents stay true: the figures BENCHMARKS.md states are generated from the benchmark
//! harness's last results (`benches/results.json`), every relative link and anchor between the
//! Markdown documents resolves, and the README stays a short front door.
//!
//! `EDGESCHED_BLESS=1 cargo test --test docs` rewrites the generated parts of BENCHMARKS.md after a
//! benchmark run; without it a document that differs from what the results say fails the test.

use serde_json::Value;
use std::collections::BTreeSet;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn read(rel: &str) -> String {
    std::fs::read_to_string(root().join(rel)).unwrap_or_else(|e| panic!("{rel}: {e}"))
}

fn results() -> Value {
    serde_json::from_str(&read("benches/results.json")).expect("benches/results.json is JSON")
}

/// `1234567.8` → `1,234,568`.
fn thousands(v: f64) -> String {
    let n = v.round() as i64;
    let digits = n.abs().to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(c);
    }
    if n < 0 {
        format!("-{out}")
    } else {
        out
    }
}

fn num(v: &Value, key: &str) -> Option<f64> {
    v.get(key).and_then(Value::as_f64)
}

fn text<'a>(v: &'a Value, key: &str) -> &'a str {
    v.get(key).and_then(Value::as_str).unwrap_or("")
}

/// The run of every workload, and the rows a later filtered run re-measured (they carry their
/// own `run`).
fn with_remeasured(r: &Value, base: String, keep: impl Fn(&str) -> bool) -> String {
    let mut later = Vec::new();
    for w in r["workloads"].as_array().into_iter().flatten() {
        let name = text(w, "workload");
        if keep(name) && !w["run"].is_null() {
            let run = serde_json::json!({ "x_run": w["run"].clone() });
            later.push(format!("{name}: {}", conditions(&run, "x")));
        }
    }
    if later.is_empty() {
        base
    } else {
        format!("{base}; re-measured {}", later.join("; "))
    }
}

/// When a part was measured and the load average (1 min) at its start and end, as the harness
/// recorded them in `<part>_run`.
fn conditions(r: &Value, part: &str) -> String {
    let run = &r[format!("{part}_run").as_str()];
    if run.is_null() {
        return "conditions not recorded".to_string();
    }
    let machine = run.get("machine").unwrap_or(run);
    let first = |k: &str| text(machine, k).split_whitespace().next().map(str::to_string);
    let load = match (first("loadavg_at_start"), first("loadavg_at_end")) {
        (Some(a), Some(b)) => format!("load {a} → {b}"),
        (Some(a), None) => format!("load {a} at the start"),
        _ => "load not recorded".to_string(),
    };
    match text(run, "when") {
        "" => load,
        when => format!("{}, {load}", when.get(..16).unwrap_or(when).replace('T', " ")),
    }
}

fn verdict(met: bool) -> &'static str {
    if met {
        "**met**"
    } else {
        "**missed**"
    }
}

/// Workloads with an upstream threshold, as (name, in-process ratio, end-to-end ratio).
fn workload_ratios(r: &Value) -> Vec<(String, Option<f64>, Option<f64>)> {
    r["workloads"]
        .as_array()
        .map(|rows| {
            rows.iter()
                .filter(|w| num(w, "upstream_threshold").is_some())
                .map(|w| {
                    // The ratio from the rates themselves: the stored ratios are rounded, and 2.97×
                    // must not pass as 3×.
                    let threshold = num(w, "upstream_threshold").unwrap_or(f64::NAN);
                    let ratio = |rate: &str| num(w, rate).map(|r| r / threshold);
                    (text(w, "workload").to_string(), ratio("decision_pods_per_sec"), ratio("e2e_pods_per_sec"))
                })
                .collect()
        })
        .unwrap_or_default()
}

/// The lowest ratio and its workload; `None` when some workload lacks the figure.
fn lowest(rows: &[(String, Option<f64>)]) -> Option<(String, f64)> {
    let mut best: Option<(String, f64)> = None;
    for (name, ratio) in rows {
        let r = (*ratio)?;
        if best.as_ref().is_none_or(|(_, b)| r < *b) {
            best = Some((name.clone(), r));
        }
    }
    best
}

fn ratio_row(out: &mut String, target: &str, rows: &[(String, Option<f64>)], goal: f64, run: &str) {
    match lowest(rows) {
        Some((name, low)) => {
            let meeting = rows.iter().filter(|(_, r)| r.is_some_and(|r| r >= goal)).count();
            let _ = writeln!(
                out,
                "| {target} | {meeting} of {} at ≥ {goal}×; lowest {:.2}× ({name}) | {run} | {} |",
                rows.len(),
                low,
                verdict(meeting == rows.len())
            );
        }
        None => {
            let _ = writeln!(out, "| {target} | not measured for every workload in the last run | {run} | **not measured** |");
        }
    }
}

fn footprint_case<'a>(r: &'a Value, case: &str) -> Option<&'a Value> {
    r["footprint"]["cases"].as_array()?.iter().find(|c| text(c, "case") == case)
}

/// The "current figures" table: one row per target, each from the last run that measured it.
fn current_figures(r: &Value) -> String {
    let mut out = String::from("| target | current figure | run | |\n|---|---|---|---|\n");
    let workloads = workload_ratios(r);
    let (dra, default): (Vec<_>, Vec<_>) = workloads.into_iter().partition(|(n, _, _)| n.contains("ResourceClaim"));
    let default_run = with_remeasured(r, conditions(r, "workloads"), |n| !n.contains("ResourceClaim"));
    // DRA workloads measured on their own (`--workload ResourceClaim`) record their own run; a
    // later run of every workload supersedes it.
    let when = |part: &str| text(&r[format!("{part}_run").as_str()], "when").replace('T', " ");
    let dra_run =
        if when("workloads_dra") > when("workloads") { conditions(r, "workloads_dra") } else { conditions(r, "workloads") };
    let dra_run = with_remeasured(r, dra_run, |n| n.contains("ResourceClaim"));
    let in_proc = |rows: &[(String, Option<f64>, Option<f64>)]| rows.iter().map(|(n, a, _)| (n.clone(), *a)).collect::<Vec<_>>();
    let e2e = |rows: &[(String, Option<f64>, Option<f64>)]| rows.iter().map(|(n, _, b)| (n.clone(), *b)).collect::<Vec<_>>();
    ratio_row(
        &mut out,
        "upstream's scheduler_perf workloads in process ≥ 10× their thresholds",
        &in_proc(&default),
        10.0,
        &default_run,
    );
    ratio_row(&mut out, "the same end to end ≥ 3×", &e2e(&default), 3.0, &default_run);
    ratio_row(&mut out, "upstream's DRA workloads in process ≥ 10×", &in_proc(&dra), 10.0, &dra_run);
    ratio_row(&mut out, "the DRA workloads end to end ≥ 3×", &e2e(&dra), 3.0, &dra_run);

    let decision_run = conditions(r, "decision");
    let decision = r["decision"]
        .as_array()
        .and_then(|d| d.iter().find(|x| num(x, "nodes") == Some(5000.0) && text(x, "variant") == "default"));
    if let Some(d) = decision {
        let pods = num(d, "pods_per_sec").unwrap_or(0.0);
        let p99 = num(d, "p99_us").unwrap_or(f64::MAX);
        let _ = writeln!(
            out,
            "| decision ≥ 10,000 pods/s at 5,000 nodes / 50,000 pods (thread CPU time) | {} pods/s | {decision_run} | {} |",
            thousands(pods),
            verdict(pods >= 10_000.0)
        );
        let _ = writeln!(out, "| decision p99 ≤ 1 ms at 5,000 nodes | {p99} µs | {decision_run} | {} |", verdict(p99 <= 1000.0));
    }

    let e2e_run = conditions(r, "e2e");
    if let Some(e) = r["e2e"].as_array().and_then(|e| e.iter().find(|x| num(x, "nodes") == Some(5000.0))) {
        let pods = num(e, "pods_per_sec").unwrap_or(0.0);
        let _ = writeln!(
            out,
            "| end to end ≥ 3,000 pods/s at 5,000 nodes (shipped binary, test API server) | {} pods/s, {} µs of edgesched CPU per pod | {e2e_run} | {} |",
            thousands(pods),
            num(e, "cpu_us_per_pod").map_or("–".to_string(), thousands),
            verdict(pods >= 3000.0)
        );
    }

    let fp_run = conditions(r, "footprint");
    let mib = |kib: f64| format!("{:.1} MiB", kib / 1024.0);
    for (case, size, budget_mib) in [("small", "100 nodes / 3,000 pods", 8.0), ("large", "5,000 nodes / 150,000 pods", 100.0)] {
        let Some(c) = footprint_case(r, case) else { continue };
        let rss = num(c, "rss_kib").unwrap_or(f64::MAX);
        let _ = writeln!(
            out,
            "| RSS ≤ {budget_mib} MiB at {size} | {} (peak {}) | {fp_run} | {} |",
            mib(rss),
            mib(num(c, "peak_rss_kib").unwrap_or(0.0)),
            verdict(rss <= budget_mib * 1024.0)
        );
    }
    if let Some(c) = footprint_case(r, "ready") {
        let ready = num(c, "ready_s").unwrap_or(f64::MAX);
        let _ = writeln!(
            out,
            "| ready ≤ 1 s at 5,000 nodes / 50,000 pods | {ready} s ({} s of edgesched CPU) | {fp_run} | {} |",
            num(c, "ready_cpu_s").unwrap_or(0.0),
            verdict(ready <= 1.0)
        );
    }

    if let Some(bins) = r["binaries"].as_object() {
        let mut parts = Vec::new();
        let mut all = true;
        for (name, bytes) in bins {
            let Some(b) = bytes.as_f64() else { continue };
            all &= b <= 8.0 * 1024.0 * 1024.0;
            parts.push(format!("{name} {} bytes ({:.2} MiB)", thousands(b), b / 1_048_576.0));
        }
        let _ = writeln!(
            out,
            "| static binaries ≤ 8 MiB each | {} | checked by `cross/build.sh` on every build | {} |",
            parts.join(", "),
            verdict(all)
        );
    }

    real_node_figures(&mut out, r);

    let sim_run = conditions(r, "simulate");
    // The harness writes the variants as a list; older results kept them under `variants`.
    if let Some(variants) = r["simulate"].as_array().or_else(|| r["simulate"]["variants"].as_array()) {
        for v in variants {
            let rate = num(v, "placements_marginal_pods_per_cpu_sec").unwrap_or(0.0);
            let _ = writeln!(
                out,
                "| `simulate --output placements` ≥ 5,000 pods/s at 5,000 nodes / 50,000 running / 10,000 pending ({} pods) | {} pods/s (CPU, beyond loading) | {sim_run} | {} |",
                text(v, "variant"),
                thousands(rate),
                verdict(rate >= 5000.0)
            );
        }
    }
    out
}

/// One row per replayed workload.
fn workloads_table(r: &Value) -> String {
    let mut out = String::from(
        "| workload | nodes | init pods | measured pods | threshold | in process (pods/s) | ratio | end to end (pods/s) | ratio |\n|---|---:|---:|---:|---:|---:|---:|---:|---:|\n",
    );
    let cell = |v: Option<f64>| v.map_or("–".to_string(), thousands);
    let ratio = |v: Option<f64>| v.map_or("–".to_string(), |x| format!("{x}×"));
    for w in r["workloads"].as_array().into_iter().flatten() {
        let _ = writeln!(
            out,
            "| {} | {} | {} | {} | {} | {} | {} | {} | {} |",
            text(w, "workload"),
            cell(num(w, "nodes")),
            cell(num(w, "init_pods")),
            cell(num(w, "measured_pods")),
            cell(num(w, "upstream_threshold")),
            cell(num(w, "decision_pods_per_sec")),
            ratio(num(w, "decision_ratio")),
            cell(num(w, "e2e_pods_per_sec")),
            ratio(num(w, "e2e_ratio")),
        );
    }
    out
}

/// The rows of the workloads replayed on nodes labelled as real nodes are (the `/RealNodeLabels`
/// variants and this project's own workloads shaped like real clusters).
fn real_node_rows(r: &Value) -> &[Value] {
    r["real_node_workloads"]["rows"].as_array().map_or(&[], Vec::as_slice)
}

/// The targets of the real-node workloads: ≥ 5,000 pods/s in process at 5,000 nodes on every
/// one, and ≥ 10× upstream's threshold where the workload has one.
fn real_node_figures(out: &mut String, r: &Value) {
    let run = conditions(r, "real_node_workloads");
    let target = "hostname-keyed topology: every real-node workload ≥ 5,000 pods/s in process at 5,000 nodes";
    let rows: Vec<(String, Option<f64>)> = real_node_rows(r)
        .iter()
        .filter(|w| num(w, "nodes").is_some_and(|n| n >= 5000.0))
        .map(|w| (text(w, "workload").to_string(), num(w, "decision_pods_per_sec")))
        .collect();
    match lowest(&rows) {
        Some((name, low)) if !rows.is_empty() => {
            let meeting = rows.iter().filter(|(_, v)| v.is_some_and(|v| v >= 5000.0)).count();
            let _ = writeln!(
                out,
                "| {target} | {meeting} of {} at ≥ 5,000 pods/s; lowest {} pods/s ({name}) | {run} | {} |",
                rows.len(),
                thousands(low),
                verdict(meeting == rows.len())
            );
        }
        _ => {
            let _ = writeln!(out, "| {target} | not measured yet (`--only real-nodes`) | {run} | **not measured** |");
        }
    }
    let ratios: Vec<(String, Option<f64>)> = real_node_rows(r)
        .iter()
        .filter_map(|w| {
            let threshold = num(w, "upstream_threshold")?;
            Some((text(w, "workload").to_string(), num(w, "decision_pods_per_sec").map(|v| v / threshold)))
        })
        .collect();
    if ratios.is_empty() {
        let _ = writeln!(
            out,
            "| the real-node variants in process ≥ 10× upstream's thresholds | not measured yet (`--only real-nodes`) | {run} | **not measured** |"
        );
    } else {
        ratio_row(out, "the real-node variants in process ≥ 10× upstream's thresholds", &ratios, 10.0, &run);
    }
}

/// One row per workload replayed on nodes labelled as real nodes are, beside the same workload on
/// upstream's nodes (the last run of `--only workloads`) and the binding limit of its run.
fn real_nodes_table(r: &Value) -> String {
    let mut out = String::from(
        "| workload | nodes | init pods | measured pods | threshold | in process, upstream's nodes | in process, real nodes | ratio | end to end, upstream's nodes | end to end, real nodes | ratio |\n|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n",
    );
    let cell = |v: Option<f64>| v.map_or("–".to_string(), thousands);
    let ratio = |v: Option<f64>| v.map_or("–".to_string(), |x| format!("{x}×"));
    let upstream = |name: &str| {
        let base = name.strip_suffix("/RealNodeLabels").unwrap_or("");
        r["workloads"].as_array().into_iter().flatten().find(|w| !base.is_empty() && text(w, "workload") == base)
    };
    for w in real_node_rows(r) {
        let name = text(w, "workload");
        let up = upstream(name);
        let mut cells = vec![name.to_string()];
        cells.extend(["nodes", "init_pods", "measured_pods", "upstream_threshold"].map(|k| cell(num(w, k))));
        cells.extend([
            cell(up.and_then(|u| num(u, "decision_pods_per_sec"))),
            cell(num(w, "decision_pods_per_sec")),
            ratio(num(w, "decision_ratio")),
            cell(up.and_then(|u| num(u, "e2e_pods_per_sec"))),
            cell(num(w, "e2e_pods_per_sec")),
            ratio(num(w, "e2e_ratio")),
        ]);
        let _ = writeln!(out, "| {} |", cells.join(" | "));
    }
    if real_node_rows(r).is_empty() {
        out += "| not measured yet: `cargo bench --bench scheduling -- --only real-nodes` | | | | | | | | | | |\n";
    }
    let limit = &r["real_node_workloads"]["binding_limit"];
    if let Some(b) = num(limit, "bindings_per_sec") {
        let _ = writeln!(
            out,
            "\nBinding limit of the test API server in the same run: {} bindings/s ({} nodes, {} pods). Run: {}.",
            thousands(b),
            cell(num(limit, "nodes")),
            cell(num(limit, "pods")),
            conditions(r, "real_node_workloads")
        );
    }
    out
}

/// The cycle's cost by cluster size: per variant and node count, pods per CPU-second and
/// microseconds per pod, and the cost per pod relative to the smallest cluster.
fn topology_scaling_table(r: &Value) -> String {
    let rows = r["topology_scaling"].as_array().map_or(&[][..], Vec::as_slice);
    if rows.is_empty() {
        return "Not measured yet: `cargo bench --bench scheduling -- --only topology-scaling --repeats 3`.\n".to_string();
    }
    let mut out = String::from(
        "| variant | nodes | existing pods | nodes evaluated | nodes scored | pods/s (CPU) | µs per pod | p99 µs | cost per pod vs the smallest cluster |\n|---|---:|---:|---:|---:|---:|---:|---:|---:|\n",
    );
    let cell = |v: Option<f64>| v.map_or("–".to_string(), thousands);
    for w in rows {
        let variant = text(w, "variant");
        let first = rows.iter().find(|x| text(x, "variant") == variant).and_then(|x| num(x, "us_per_pod"));
        let relative = match (num(w, "us_per_pod"), first) {
            (Some(us), Some(base)) if base > 0.0 => format!("{:.2}×", us / base),
            _ => "–".to_string(),
        };
        let mut cells = vec![variant.to_string()];
        cells.extend(["nodes", "existing_pods", "nodes_evaluated", "nodes_scored", "pods_per_sec"].map(|k| cell(num(w, k))));
        cells.extend(["us_per_pod", "p99_us"].map(|k| num(w, k).map_or("–".to_string(), |v| format!("{v:.1}"))));
        cells.push(relative);
        let _ = writeln!(out, "| {} |", cells.join(" | "));
    }
    let _ = writeln!(out, "\nRun: {}.", conditions(r, "topology_scaling"));
    out
}

/// Checks (or, with `EDGESCHED_BLESS=1`, rewrites) the text between `<!-- NAME:begin -->` and
/// `<!-- NAME:end -->` in `file`.
fn generated(file: &str, name: &str, expected: &str) {
    let path = root().join(file);
    let doc = read(file);
    let begin = format!("<!-- {name}:begin -->\n");
    let end = format!("<!-- {name}:end -->");
    let start = doc.find(&begin).unwrap_or_else(|| panic!("{file} lacks {begin}")) + begin.len();
    let stop = doc[start..].find(&end).unwrap_or_else(|| panic!("{file} lacks {end}")) + start;
    if doc[start..stop] == *expected {
        return;
    }
    if std::env::var_os("EDGESCHED_BLESS").is_some_and(|v| v == "1") {
        let updated = format!("{}{}{}", &doc[..start], expected, &doc[stop..]);
        std::fs::write(&path, updated).unwrap_or_else(|e| panic!("{file}: {e}"));
        return;
    }
    panic!(
        "{file}'s {name} section differs from benches/results.json; run `EDGESCHED_BLESS=1 cargo test --test docs` to regenerate it:\n{expected}"
    );
}

#[test]
fn benchmarks_current_figures_are_generated_from_the_results() {
    let r = results();
    generated("BENCHMARKS.md", "current-figures", &current_figures(&r));
    generated("BENCHMARKS.md", "workloads", &workloads_table(&r));
    generated("BENCHMARKS.md", "real-nodes", &real_nodes_table(&r));
    generated("BENCHMARKS.md", "topology-scaling", &topology_scaling_table(&r));
}

/// GitHub's anchor of a heading: lower case, punctuation dropped, spaces to hyphens, repeats
/// numbered.
fn slug(heading: &str) -> String {
    heading
        .trim()
        .to_lowercase()
        .chars()
        .filter(|c| c.is_alphanumeric() || *c == '-' || *c == ' ' || *c == '_')
        .map(|c| if c == ' ' { '-' } else { c })
        .collect()
}

fn anchors(doc: &str) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    let mut in_code = false;
    let mut seen = std::collections::BTreeMap::<String, usize>::new();
    for line in doc.lines() {
        if line.starts_with("```") {
            in_code = !in_code;
        }
        if in_code {
            continue;
        }
        let hashes = line.chars().take_while(|&c| c == '#').count();
        if (1..=6).contains(&hashes) && line[hashes..].starts_with(' ') {
            let s = slug(&line[hashes + 1..]);
            let n = seen.entry(s.clone()).or_insert(0);
            out.insert(if *n == 0 { s.clone() } else { format!("{s}-{n}") });
            *n += 1;
        }
    }
    out
}

/// Every `[text](target)` outside code blocks.
fn links(doc: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut in_code = false;
    for line in doc.lines() {
        if line.starts_with("```") {
            in_code = !in_code;
        }
        if in_code {
            continue;
        }
        let mut rest = line;
        while let Some(i) = rest.find("](") {
            let after = &rest[i + 2..];
            let Some(end) = after.find(')') else { break };
            let target = &after[..end];
            if !target.contains(char::is_whitespace) {
                out.push(target.to_string());
            }
            rest = &after[end..];
        }
    }
    out
}

fn documents() -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> =
        ["README.md", "ARCHITECTURE.md", "BENCHMARKS.md", "SECURITY.md", "RELIABILITY.md"].iter().map(PathBuf::from).collect();
    let mut docs: Vec<PathBuf> = std::fs::read_dir(root().join("docs"))
        .expect("docs/")
        .filter_map(|e| e.ok())
        .map(|e| PathBuf::from("docs").join(e.file_name()))
        .filter(|p| p.extension().is_some_and(|x| x == "md"))
        .collect();
    docs.sort();
    files.extend(docs);
    files
}

#[test]
fn every_link_between_the_documents_resolves() {
    let mut broken = Vec::new();
    for file in documents() {
        let doc = read(file.to_str().expect("utf-8 path"));
        let dir = file.parent().unwrap_or(Path::new(""));
        for target in links(&doc) {
            if target.contains("://") || target.starts_with("mailto:") {
                continue;
            }
            let (path, anchor) = target.split_once('#').map_or((target.as_str(), None), |(p, a)| (p, Some(a)));
            let target_file = if path.is_empty() { file.clone() } else { dir.join(path) };
            let full = root().join(&target_file);
            if !full.exists() {
                broken.push(format!("{}: {target} (no such file)", file.display()));
                continue;
            }
            if let Some(anchor) = anchor {
                let Ok(target_doc) = std::fs::read_to_string(&full) else { continue };
                if full.extension().is_some_and(|x| x == "md") && !anchors(&target_doc).contains(anchor) {
                    broken.push(format!("{}: {target} (no such heading)", file.display()));
                }
            }
        }
    }
    assert!(broken.is_empty(), "broken links:\n{}", broken.join("\n"));
}

#[test]
fn the_readme_is_a_short_front_door() {
    let size = read("README.md").len();
    assert!(size < 20 * 1024, "README.md is {size} bytes; the reference belongs in docs/");
}

#[test]
fn slugs_follow_githubs_rules() {
    assert_eq!(slug("Why did my pod go there?"), "why-did-my-pod-go-there");
    assert_eq!(slug("Health, readiness and metrics"), "health-readiness-and-metrics");
    assert_eq!(slug("`simulate` output"), "simulate-output");
    assert_eq!(anchors("# A\n## A\n```\n# B\n```\n"), ["a", "a-1"].iter().map(|s| s.to_string()).collect());
}

/// Every fuzz target (a `[[bin]]` of `fuzz/Cargo.toml`, the list `fuzz/run.sh` runs) is described
/// in SECURITY.md's target table, has a row in the executions table `fuzz/record.sh` writes
/// (between its markers), a source file and committed seeds; and no row names a target that
/// is gone.
#[test]
fn every_fuzz_target_is_described_recorded_and_seeded() {
    let manifest = read("fuzz/Cargo.toml");
    let targets: Vec<&str> = manifest
        .split("[[bin]]")
        .skip(1)
        .filter_map(|bin| bin.lines().find_map(|l| l.strip_prefix("name = ")))
        .map(|name| name.trim_matches('"'))
        .collect();
    assert!(targets.len() >= 17, "{targets:?}");
    let security = read("SECURITY.md");
    let begin = "<!-- fuzz-executions:begin (written by fuzz/record.sh) -->";
    let (described, rest) = security.split_once(begin).expect("the executions table's start marker");
    let (recorded, _) = rest.split_once("<!-- fuzz-executions:end -->").expect("its end marker");
    let row_names = |text: &str| -> Vec<String> {
        text.lines().filter_map(|l| l.strip_prefix("| `")).filter_map(|l| l.split_once('`')).map(|(n, _)| n.to_string()).collect()
    };
    let described = described.split_once("## Fuzzing").expect("a Fuzzing section").1;
    assert_eq!(row_names(recorded), targets, "the executions table has one row per target, in fuzz/Cargo.toml's order");
    for t in &targets {
        assert!(row_names(described).iter().any(|n| n == t), "SECURITY.md does not describe the fuzz target {t}");
        assert!(root().join(format!("fuzz/fuzz_targets/{t}.rs")).is_file(), "{t} has no source");
        let seeds = std::fs::read_dir(root().join(format!("fuzz/corpus/{t}"))).map_or(0, |d| d.count());
        assert!(seeds > 0, "{t} has no seeds in fuzz/corpus/{t}/");
    }
}
