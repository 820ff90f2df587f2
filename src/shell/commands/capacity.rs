//! `edgesched capacity`: reads the pod and the cluster, asks the core planner, prints the answer.

use crate::core::simulate::capacity::{place_copies, place_pending, CapacityReport};
use crate::core::simulate::html::nodes::Snapshot;
use crate::core::simulate::html::CapacityPage;
use crate::core::texts::what_if_html;
use crate::core::watched::{Change, KindChange};
use crate::shell::cli::{CapacityOptions, OutputFormat};
use crate::shell::commands::cluster_file;
use crate::shell::commands::what_if::{load, load_config, source_text, WhatIfError};
use std::fmt::Write as _;
use std::io::Write as _;

/// `--max` when not given.
pub const DEFAULT_MAX: usize = 10_000;

/// Read the one pod of `--pod FILE`.
fn read_pod(path: &std::path::Path) -> Result<crate::core::api::Pod, WhatIfError> {
    let name = path.display().to_string();
    let mut pods = Vec::new();
    let mut others = 0;
    cluster_file::read_file(
        path,
        &mut |_, change: KindChange| {
            match change {
                KindChange::Pod(Change::Added(p)) => pods.push(*p),
                _ => others += 1,
            }
            Ok(())
        },
        false,
    )?;
    match (pods.len(), others) {
        (1, 0) => Ok(pods.remove(0)),
        (n, m) => Err(WhatIfError::Input(format!(
            "{name}: --pod needs a file with exactly one Pod (it has {n} pod(s) and {m} other object(s))"
        ))),
    }
}

/// The answer as text.
pub fn render_table(pod: &str, r: &CapacityReport) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "{}", what_if_html::copies_fit(r.count, pod));
    if !r.per_node.is_empty() {
        let width = r.per_node.keys().map(|n| n.len()).max().unwrap_or(4).max(4);
        let _ = writeln!(out, "  {:<width$}  COPIES", "NODE");
        for (node, n) in &r.per_node {
            let _ = writeln!(out, "  {node:<width$}  {n:>6}");
        }
    }
    let _ = writeln!(out, "{}", what_if_html::stopped_by(&r.stopped_by));
    out
}

/// `edgesched capacity`.
pub fn capacity_cmd(opts: &CapacityOptions) -> Result<(), WhatIfError> {
    let cfg = load_config(opts.source.config.as_deref())?;
    let template = read_pod(&opts.pod)?;
    let requested =
        if template.spec.scheduler_name.is_empty() { "default-scheduler" } else { template.spec.scheduler_name.as_str() };
    let profile = match cfg.profiles.iter().find(|p| p.scheduler_name == requested).or(cfg.profiles.first()) {
        Some(p) => p.scheduler_name.clone(),
        None => return Err(WhatIfError::Input("the configuration has no profile".into())),
    };
    if profile != requested {
        eprintln!("note: the pod's schedulerName {requested:?} is not a profile of the configuration; using profile {profile:?}");
    }
    let seed = opts.seed.unwrap_or_else(|| crate::core::rng::Rng::from_os().next_u64());
    let mut sim = crate::shell::commands::what_if_setup::new_simulation(&cfg, seed)?;
    load(&mut sim, &cfg, &opts.source, &opts.what_if, &mut |_| Ok(()))?;
    place_pending(&mut sim);
    // The nodes with the cluster's own pending pods placed, before any copy.
    let before = Snapshot::of(sim.scheduler().cache());
    let report = place_copies(&mut sim, &template, &profile, opts.max.unwrap_or(DEFAULT_MAX));
    let ns = if template.metadata.namespace.is_empty() { "default" } else { template.metadata.namespace.as_str() };
    let key = format!("{ns}/{}", template.metadata.name);
    let stdout = std::io::stdout();
    let mut w = std::io::BufWriter::with_capacity(64 * 1024, stdout.lock());
    let runtime = |e: std::io::Error| WhatIfError::Runtime(format!("writing the output: {e}"));
    match opts.output {
        OutputFormat::Json => match serde_json::to_string(&report) {
            Ok(s) => writeln!(w, "{s}").map_err(runtime)?,
            Err(e) => return Err(WhatIfError::Runtime(e.to_string())),
        },
        OutputFormat::Html => {
            let source = source_text(&opts.source);
            let page = CapacityPage::new(&source, &key, &report, &before, sim.scheduler().cache());
            write!(w, "{page}").map_err(runtime)?;
        }
        OutputFormat::Table | OutputFormat::Placements => w.write_all(render_table(&key, &report).as_bytes()).map_err(runtime)?,
    }
    w.flush().map_err(runtime)
}
