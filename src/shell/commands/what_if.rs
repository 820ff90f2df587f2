//! `edgesched simulate`: reads a cluster (a file, or a live API server read once), applies the
//! what-if changes, and writes each decision as soon as the core makes it.
//!
//! Nothing here decides anything: objects stream from the source into
//! [`Simulation`] and decisions stream out to stdout
//! through one buffered writer.

use crate::core::config::SchedulerConfig;
use crate::core::simulate::decode::{Origin, Sink};
use crate::core::simulate::html::SimulatePage;
use crate::core::simulate::report::{Detail, PodDecision, Summary};
use crate::core::simulate::stream::{Edits, Simulation};
use crate::core::simulate::SimError;
use crate::core::watched::KindChange;
use crate::shell::cli::{ClusterSource, OutputFormat, SimulateOptions, WhatIf};
use crate::shell::commands::cluster_file;
pub use crate::shell::commands::what_if_setup::{exit_with, load_config, WhatIfError};
use std::io::Write;
use std::path::Path;

/// The sink that checks each object and feeds it to the simulation; decisions about pods no
/// profile serves are written at once.
fn feeding<'a>(
    sim: &'a mut Simulation,
    file: &'a str,
    lenient: bool,
    out: &'a mut dyn FnMut(PodDecision) -> Result<(), SimError>,
) -> impl FnMut(Origin, KindChange) -> Result<(), SimError> + 'a {
    move |origin, change| {
        if let Err(invalid) = sim.check(&change) {
            let text = format!("{file}: {origin}: {invalid}");
            if !lenient {
                return Err(SimError(text));
            }
            eprintln!("warning: {text}");
        }
        match sim.add(change) {
            Some(d) => out(d),
            None => Ok(()),
        }
    }
}

/// Read a cluster file (or an `--add` file) into the simulation.
pub fn read_into(
    sim: &mut Simulation,
    path: &Path,
    lenient: bool,
    out: &mut dyn FnMut(PodDecision) -> Result<(), SimError>,
) -> Result<(), WhatIfError> {
    let name = path.display().to_string();
    let mut sink = feeding(sim, &name, lenient, out);
    let ignored = cluster_file::read_file(path, &mut sink as &mut Sink<'_>, lenient)?;
    for (kind, n) in ignored {
        eprintln!("note: {name}: ignoring {n} {kind} object(s)");
    }
    Ok(())
}

/// Load the cluster and the what-if changes into `sim`.
pub fn load(
    sim: &mut Simulation,
    cfg: &SchedulerConfig,
    source: &ClusterSource,
    what_if: &WhatIf,
    out: &mut dyn FnMut(PodDecision) -> Result<(), SimError>,
) -> Result<(), WhatIfError> {
    sim.set_edits(Edits::new(&what_if.remove_nodes, &what_if.cordon));
    match &source.cluster {
        Some(path) => read_into(sim, path, source.lenient, out)?,
        None => crate::shell::commands::snapshot::read_live(sim, cfg, source, out)?,
    }
    for path in &what_if.add {
        read_into(sim, path, source.lenient, out)?;
    }
    let unknown = sim.unknown_edited_nodes();
    if !unknown.is_empty() {
        return Err(WhatIfError::Input(format!("--remove-node/--cordon: no node named {}", unknown.join(", "))));
    }
    Ok(())
}

/// Where the cluster is read from, as the HTML page says it.
pub fn source_text(source: &ClusterSource) -> String {
    let file = source.cluster.as_ref().map(|p| p.display().to_string());
    crate::core::texts::what_if_html::source(file.as_deref())
}

/// `edgesched simulate`.
pub fn simulate_cmd(opts: &SimulateOptions) -> Result<(), WhatIfError> {
    let cfg = load_config(opts.source.config.as_deref())?;
    let seed = opts.seed.unwrap_or_else(|| crate::core::rng::Rng::from_os().next_u64());
    let mut sim = crate::shell::commands::what_if_setup::new_simulation(&cfg, seed)?;
    let stdout = std::io::stdout();
    let mut w = std::io::BufWriter::with_capacity(64 * 1024, stdout.lock());
    let mut summary = Summary::default();
    let format = opts.output;
    let mut page = SimulatePage::new();
    let write_one = |d: PodDecision, w: &mut dyn Write, summary: &mut Summary, page: &mut SimulatePage| -> std::io::Result<()> {
        summary.record(&d);
        match format {
            OutputFormat::Placements => w.write_all(d.placement_line().as_bytes()),
            OutputFormat::Json => w.write_all(d.json_line().as_bytes()),
            OutputFormat::Table => w.write_all(d.table_block().as_bytes()),
            OutputFormat::Html => w.write_all(page.pod(&d).as_bytes()),
        }
    };
    let runtime = |e: std::io::Error| WhatIfError::Runtime(format!("writing the output: {e}"));
    if format == OutputFormat::Html {
        w.write_all(page.begin(&source_text(&opts.source)).as_bytes()).map_err(runtime)?;
    }
    let broken = |e: std::io::Error| SimError(format!("writing the output: {e}"));
    {
        let mut out = |d: PodDecision| write_one(d, &mut w, &mut summary, &mut page).map_err(broken);
        load(&mut sim, &cfg, &opts.source, &opts.what_if, &mut out)?;
    }
    let detail = match format {
        OutputFormat::Placements => Detail::placements(opts.summary),
        _ => Detail::explained(opts.top),
    };
    if format == OutputFormat::Html {
        sim.finish_loading();
        page.set_before(sim.scheduler().cache());
    }
    sim.run(&detail, &mut |d| write_one(d, &mut w, &mut summary, &mut page)).map_err(runtime)?;
    if format == OutputFormat::Html {
        // The summary and the nodes, written zone by zone and node by node.
        write!(w, "{}", page.end(&summary, sim.scheduler().cache())).map_err(runtime)?;
    } else if opts.summary {
        let nodes = sim.node_use();
        let text = match format {
            OutputFormat::Json => summary.render_json(&nodes),
            _ => summary.render_text(&nodes, opts.summary_nodes),
        };
        w.write_all(text.as_bytes()).map_err(runtime)?;
    }
    w.flush().map_err(runtime)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::simulate::synthetic::{self, Shape};
    use crate::core::simulate::Cluster;
    use std::time::Instant;

    fn config() -> SchedulerConfig {
        let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/config.yaml");
        load_config(Some(&path)).expect("example config")
    }

    fn run(sim: &mut Simulation, mut out: String) -> String {
        sim.run::<()>(&Detail::explained(0), &mut |d| {
            out.push_str(&d.json_line());
            Ok(())
        })
        .expect("runs");
        out
    }

    /// The cluster text read as a stream, each object fed as it is decoded.
    fn streamed(cfg: &SchedulerConfig, text: &str) -> String {
        let mut sim = Simulation::new(cfg, 3, Instant::now()).expect("sim");
        let mut out = String::new();
        {
            let mut write = |d: PodDecision| {
                out.push_str(&d.json_line());
                Ok(())
            };
            let mut sink = feeding(&mut sim, "c.yaml", false, &mut write);
            cluster_file::read(text.as_bytes(), "c.yaml", &mut sink as &mut Sink<'_>, false).expect("reads");
        }
        run(&mut sim, out)
    }

    /// The cluster text read whole into memory.
    fn read_whole(text: &str) -> Cluster {
        let mut cluster = Cluster::default();
        let mut push = |_, c| {
            cluster.push(c);
            Ok(())
        };
        cluster_file::read(text.as_bytes(), "c.yaml", &mut push, false).expect("reads");
        cluster
    }

    /// The cluster text read whole into memory first, then fed kind by kind.
    fn in_memory(cfg: &SchedulerConfig, text: &str) -> String {
        let cluster = read_whole(text);
        let mut sim = Simulation::new(cfg, 3, Instant::now()).expect("sim");
        let mut out = String::new();
        for change in cluster.changes() {
            sim.check(&change).expect("valid");
            if let Some(d) = sim.add(change) {
                out.push_str(&d.json_line());
            }
        }
        run(&mut sim, out)
    }

    /// Byte-identical, or the first differing line (a whole run would be unreadable).
    fn same(got: &str, want: &str, what: &str) {
        for (i, (g, w)) in got.lines().zip(want.lines()).enumerate() {
            assert_eq!(g, w, "{what}: decision {i} differs");
        }
        assert_eq!(got.lines().count(), want.lines().count(), "{what}: number of decisions");
        assert_eq!(got, want, "{what}");
    }

    #[test]
    fn streaming_gives_the_in_memory_decisions_on_the_example() {
        let cfg = config();
        let text = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/cluster.yaml")).expect("example");
        let a = streamed(&cfg, &text);
        assert!(a.lines().count() >= 5, "{a}");
        same(&a, &in_memory(&cfg, &text), "example");
    }

    #[test]
    fn streaming_gives_the_in_memory_decisions_on_random_clusters_in_any_order() {
        let cfg = config();
        for seed in 0..4 {
            let shape =
                Shape { nodes: 12 + seed as usize * 5, running: 40, pending: 30, scheduler_name: "edgesched", plain: false };
            let items = synthetic::items(&shape, seed);
            let text = synthetic::cluster_yaml(&items);
            let expected = in_memory(&cfg, &text);
            assert_eq!(expected.lines().count(), 30, "seed {seed}");
            same(&streamed(&cfg, &text), &expected, &format!("seed {seed}"));
            // Pods before their nodes, classes after their pods: the same decisions. (The nodes
            // keep their order: it is the node table's, which sampling and ties follow.)
            let mut mixed = synthetic::shuffled(&items, seed + 100);
            let mut nodes = items.iter().filter(|i| i.contains("kind: Node\n"));
            for slot in mixed.iter_mut().filter(|i| i.contains("kind: Node\n")) {
                *slot = nodes.next().cloned().unwrap_or_default();
            }
            same(&streamed(&cfg, &synthetic::cluster_yaml(&mixed)), &expected, &format!("seed {seed}, shuffled"));
        }
    }

    /// Answers like an extender that keeps only `n2` and scores it 7.
    struct KeepN2;

    impl crate::core::extender::ExtenderTransport for KeepN2 {
        fn post(&self, _index: usize, verb: &str, _body: &[u8]) -> Result<Vec<u8>, String> {
            let reply = match verb {
                "filter" => r#"{"NodeNames":["n2"],"FailedNodes":{"n1":"not on n1"}}"#,
                "prioritize" => r#"[{"Host":"n2","Score":7}]"#,
                _ => return Err(format!("unexpected {verb}")),
            };
            Ok(reply.as_bytes().to_vec())
        }
    }

    #[test]
    fn simulate_and_explain_show_what_each_extender_said() {
        use crate::core::extender::ExtenderTransport;
        use std::sync::Arc;
        let cfg_text = "apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\nextenders:\n- urlPrefix: http://ext\n  filterVerb: filter\n  nodeCacheCapable: true\n";
        let cfg = crate::core::config::load_str(cfg_text, "c.yaml").expect("config").config;
        let text = "kind: Node\nmetadata: {name: n1}\nstatus: {allocatable: {cpu: '2', pods: '10'}}\n---\nkind: Node\nmetadata: {name: n2}\nstatus: {allocatable: {cpu: '2', pods: '10'}}\n---\nkind: Pod\nmetadata: {name: p, namespace: default}\nspec: {containers: [{name: c}]}\n";
        let cluster = read_whole(text);
        let transport: Arc<dyn ExtenderTransport> = Arc::new(KeepN2);
        let decide = |transport: Option<Arc<dyn ExtenderTransport>>| {
            let mut sim = Simulation::new(&cfg, 1, Instant::now()).expect("sim");
            sim.set_extenders(&cfg, transport);
            for change in cluster.changes() {
                assert!(sim.add(change).is_none());
            }
            let mut out = Vec::new();
            sim.run::<()>(&Detail::explained(0), &mut |d| {
                out.push(d);
                Ok(())
            })
            .expect("runs");
            out
        };
        let d = decide(Some(transport.clone()));
        assert_eq!(d[0].node.as_deref(), Some("n2"));
        assert_eq!(d[0].extenders.len(), 1);
        assert_eq!(d[0].extenders[0].kept, vec!["n2".to_string()]);
        assert!(d[0].filtered.iter().any(|g| g.reason == "not on n1" && g.nodes == ["n1"]), "{:?}", d[0].filtered);
        let table = d[0].table_block();
        assert!(table.contains("  extender http://ext filter: kept [n2]; n1: not on n1\n"), "{table}");
        assert!(d[0].json_line().contains(r#""extenders":[{"extender":"http://ext","call":"filter","kept":["n2"]"#));
        let e =
            crate::core::simulate::explain_pods(&cfg, &cluster, &["default/p".to_string()], 1, Some(transport)).expect("explain");
        assert_eq!(e[0].extenders, d[0].extenders);
        assert!(crate::core::simulate::render_table(&e).contains("  extender http://ext filter: kept [n2]; n1: not on n1\n"));
        // Without a transport the extenders are left out.
        assert!(decide(None)[0].extenders.is_empty());
    }

    /// The DRA fixture shared with the command-line and live tests.
    fn dra_cluster() -> String {
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/dra/edge-devices.yaml"))
            .expect("fixture")
    }

    #[test]
    fn device_claims_stream_and_round_trip_through_a_snapshot() {
        let cfg = load_config(None).expect("default config");
        let text = dra_cluster();
        let streamed_decisions = streamed(&cfg, &text);
        assert!(streamed_decisions.contains(r#""devices":[{"claim":"ml/vision-0-gpu-"#), "{streamed_decisions}");
        same(&streamed_decisions, &in_memory(&cfg, &text), "DRA cluster, streamed and in memory");
        // What `snapshot` writes for these objects reads back to the same decisions.
        let cluster = read_whole(&text);
        let mut snapshot = String::new();
        for change in cluster.changes() {
            snapshot.push_str(&crate::shell::commands::snapshot::yaml_document(&change).expect("encodes"));
        }
        for kind in ["DeviceClass", "ResourceSlice", "ResourceClaim", "ResourceClaimTemplate"] {
            assert!(snapshot.contains(&format!("apiVersion: resource.k8s.io/v1\nkind: {kind}\n")), "{kind}: {snapshot}");
        }
        same(&streamed(&cfg, &snapshot), &streamed_decisions, "DRA cluster and its snapshot");
    }

    #[test]
    fn explain_names_the_requests_that_found_no_device() {
        let cfg = load_config(None).expect("default config");
        // Two requests: any GPU and the A2. edge-a has no A2, edge-b has one GPU for both, edge-c
        // has no devices at all.
        let text = dra_cluster()
            + "---\napiVersion: resource.k8s.io/v1\nkind: ResourceClaimTemplate\nmetadata: {name: two, namespace: ml}\nspec:\n  spec:\n    devices:\n      requests:\n      - {name: any, exactly: {deviceClassName: gpu.example.com}}\n      - name: a2\n        exactly:\n          deviceClassName: gpu.example.com\n          selectors: [{cel: {expression: 'device.attributes[\"gpu.example.com\"].model == \"a2\"'}}]\n"
            + "---\napiVersion: v1\nkind: Pod\nmetadata: {name: pair, namespace: ml, uid: uid-pair}\nspec:\n  containers: [{name: c}]\n  resourceClaims: [{name: gpus, resourceClaimTemplateName: two}]\n";
        let cluster = read_whole(&text);
        let e = crate::core::simulate::explain_pods(&cfg, &cluster, &["ml/pair".to_string()], 1, None).expect("explain");
        let d = &e[0];
        assert_eq!(d.node, None);
        for node in ["edge-a", "edge-b", "edge-c"] {
            assert_eq!(d.filtered.get(node).map(String::as_str), Some("cannot allocate all claims"), "{node}");
        }
        let claim = d.devices_missing["edge-a"][0].split(' ').nth(1).expect("claim").to_string();
        assert!(claim.starts_with("ml/pair-gpus-") && claim.len() == "ml/pair-gpus-".len() + 5, "{claim}");
        let no_a2 = format!("claim {claim} request a2: no available device of class gpu.example.com matches");
        let no_any = format!("claim {claim} request any: no available device of class gpu.example.com matches");
        assert_eq!(d.devices_missing["edge-a"], vec![no_a2.clone()]);
        assert_eq!(d.devices_missing["edge-b"], vec![crate::core::texts::what_if_devices::NOT_ALL_TOGETHER.to_string()]);
        assert_eq!(d.devices_missing["edge-c"], vec![no_any, no_a2.clone()]);
        let table = crate::core::simulate::render_table(&e);
        assert!(table.contains(&format!("  x edge-a: cannot allocate all claims\n      {no_a2}\n")), "{table}");
    }

    #[test]
    fn explain_says_where_a_gang_stands() {
        // A profile with GangScheduling, one node with room for two one-CPU pods, a gang of
        // minCount 3 with one pod bound and two pending.
        let cfg = crate::core::config::load_str(
            "apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\nprofiles:\n- schedulerName: edgesched\n  plugins:\n    multiPoint:\n      enabled: [{name: GangScheduling}]\n",
            "gang.yaml",
        )
        .expect("config")
        .config;
        let pod = |name: &str, node: &str, workload: &str| {
            format!("---\napiVersion: v1\nkind: Pod\nmetadata: {{name: {name}, namespace: d, uid: uid-{name}}}\nspec: {{schedulerName: edgesched, nodeName: \"{node}\", workloadRef: {{name: {workload}, podGroup: g}}, containers: [{{name: c, resources: {{requests: {{cpu: \"1\"}}}}}}]}}\n")
        };
        let workload = |name: &str, min: i32| {
            format!("---\napiVersion: scheduling.k8s.io/v1alpha1\nkind: Workload\nmetadata: {{name: {name}, namespace: d}}\nspec: {{podGroups: [{{name: g, policy: {{gang: {{minCount: {min}}}}}}}]}}\n")
        };
        let text = "apiVersion: v1\nkind: Node\nmetadata: {name: n1, labels: {kubernetes.io/hostname: n1}}\nstatus: {allocatable: {cpu: \"3\", memory: 4Gi, pods: \"10\"}}\n".to_string()
            + &workload("train", 3)
            + &workload("big", 5)
            + &pod("w0", "n1", "train")
            + &pod("w1", "", "train")
            + &pod("w2", "", "train")
            + &pod("b0", "", "big");
        let cluster = read_whole(&text);
        let targets = ["d/w1".to_string(), "d/b0".to_string()];
        let e = crate::core::simulate::explain_pods(&cfg, &cluster, &targets, 1, None).expect("explain");
        assert_eq!(e[0].node.as_deref(), Some("n1"));
        assert_eq!(
            e[0].gang.as_deref(),
            Some("d/train/g: 3 of minCount 3 pods exist, 1 assumed or bound; this pod would wait at Permit for 1 more")
        );
        assert_eq!(e[1].node, None);
        assert_eq!(e[1].message, "waiting for minCount pods from a gang to appear in scheduling queue");
        assert_eq!(e[1].gang.as_deref(), Some("d/big/g: 1 of minCount 5 pods exist, 0 assumed or bound"));
        let table = crate::core::simulate::render_table(&e);
        assert!(table.contains("  gang: d/train/g: 3 of minCount 3"), "{table}");
    }
}
