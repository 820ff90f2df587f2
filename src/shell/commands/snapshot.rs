//! A live cluster read once, read-only: `simulate --kubeconfig`, `capacity --kubeconfig` and
//! `edgesched snapshot`.
//!
//! The kinds read are the rows of the watched-kinds table ([`crate::core::watched::KINDS`])
//! that hold cluster state (every row but the leader-election Leases), listed page by page with
//! the row's field selector — the same requests the scheduler's informers make, so the
//! permissions are the `list` half of the scheduler's. Each object goes to the caller as it is
//! decoded; `snapshot` writes them as a multi-document YAML cluster file in table order, the same
//! order `simulate --kubeconfig` feeds them, so simulating the file gives the same decisions.

use crate::core::config::SchedulerConfig;
use crate::core::simulate::report::PodDecision;
use crate::core::simulate::stream::Simulation;
use crate::core::simulate::SimError;
use crate::core::watched::{self, KindChange};
use crate::shell::cli::ClusterSource;
use crate::shell::commands::cluster_reader;
use crate::shell::commands::diagnose::connect;
use crate::shell::commands::what_if_setup::{load_config, WhatIfError};
use crate::shell::kube::client::Client;
use std::io::Write;

/// Every object of the snapshot kinds, in table order.
pub fn for_each_object(client: &Client, each: &mut dyn FnMut(KindChange) -> Result<(), WhatIfError>) -> Result<(), WhatIfError> {
    let mut failed = None;
    let listed = cluster_reader::for_each_object(client, &mut |change| match each(change) {
        Ok(()) => true,
        Err(e) => {
            failed = Some(e);
            false
        }
    });
    match (failed, listed) {
        (Some(e), _) => Err(e),
        (None, Err(e)) => Err(WhatIfError::Runtime(e.to_string())),
        (None, Ok(())) => Ok(()),
    }
}

fn client(cfg: &SchedulerConfig, source: &ClusterSource) -> Result<Client, WhatIfError> {
    connect(cfg, source.kubeconfig.as_deref(), source.master.as_deref(), source.allow_insecure_http, source.request_timeout)
        .map_err(|e| WhatIfError::Input(e.to_string()))
}

/// Feed a live cluster into the simulation (objects from the API server are not re-validated:
/// the server did that).
pub fn read_live(
    sim: &mut Simulation,
    cfg: &SchedulerConfig,
    source: &ClusterSource,
    out: &mut dyn FnMut(PodDecision) -> Result<(), SimError>,
) -> Result<(), WhatIfError> {
    let client =
        client(cfg, source).map_err(|e| WhatIfError::Input(format!("no --cluster FILE, and no live cluster to read: {e}")))?;
    for_each_object(&client, &mut |change| {
        if let Err(invalid) = sim.check(&change) {
            eprintln!("warning: {invalid} (simulated as the API server has it)");
        }
        match sim.add(change) {
            Some(d) => out(d).map_err(|e| WhatIfError::Runtime(e.0)),
            None => Ok(()),
        }
    })
}

/// One object as a YAML document with its `apiVersion` and `kind`.
pub fn yaml_document(change: &KindChange) -> Result<String, SimError> {
    let row = watched::kind(change.id());
    let value = change
        .object_json()
        .unwrap_or(Ok(serde_json::Value::Null))
        .map_err(|e| SimError(format!("encoding {}: {e}", row.kind)))?;
    let mut map = serde_json::Map::new();
    map.insert("apiVersion".into(), row.api_version().into());
    map.insert("kind".into(), row.kind.into());
    if let serde_json::Value::Object(fields) = value {
        map.extend(fields);
    }
    let yaml =
        serde_saphyr::to_string(&serde_json::Value::Object(map)).map_err(|e| SimError(format!("encoding {}: {e}", row.kind)))?;
    Ok(format!("---\n{yaml}"))
}

/// `edgesched snapshot`: the live cluster as a cluster file on stdout.
pub fn snapshot_cmd(source: &ClusterSource) -> Result<(), WhatIfError> {
    let cfg = load_config(source.config.as_deref())?;
    let client = client(&cfg, source)?;
    let stdout = std::io::stdout();
    let mut w = std::io::BufWriter::with_capacity(64 * 1024, stdout.lock());
    let runtime = |e: std::io::Error| WhatIfError::Runtime(format!("writing the snapshot: {e}"));
    writeln!(w, "# edgesched snapshot of {}: the objects scheduling reads, as `simulate --cluster` reads them", client.server())
        .map_err(runtime)?;
    for_each_object(&client, &mut |change| {
        let doc = yaml_document(&change).map_err(|e| WhatIfError::Runtime(e.0))?;
        w.write_all(doc.as_bytes()).map_err(runtime)
    })?;
    w.flush().map_err(runtime)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::api;
    use crate::core::watched::{snapshot_kinds, Change};

    #[test]
    fn snapshots_every_kind_but_leases() {
        let kinds: Vec<&str> = snapshot_kinds().map(|k| k.kind).collect();
        assert!(!kinds.contains(&"Lease"));
        for k in [
            "Node",
            "Pod",
            "PersistentVolume",
            "PersistentVolumeClaim",
            "StorageClass",
            "CSINode",
            "PodDisruptionBudget",
            "PriorityClass",
            "Namespace",
        ] {
            assert!(kinds.contains(&k), "{k}");
        }
    }

    #[test]
    fn documents_carry_api_version_and_kind() {
        let mut n = api::Node::default();
        n.metadata.name = "n1".into();
        n.status.allocatable.insert("cpu".into(), api::QuantityStr("4".into()));
        let doc = yaml_document(&KindChange::Node(Change::Added(Box::new(n)))).expect("encodes");
        assert!(doc.starts_with("---\napiVersion: v1\nkind: Node\n"), "{doc}");
        assert!(doc.contains("cpu: '4'") || doc.contains("cpu: \"4\""), "numbers-as-text stay text: {doc}");
        assert!(doc.contains("name: n1"), "{doc}");
    }
}
