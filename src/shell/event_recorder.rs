//! The event recorder thread: applies event-series de-duplication ([`crate::core::events`]) and writes
//! events to the API server without ever blocking the scheduler. When its queue is full, events
//! are dropped and counted (`edgesched_events_dropped_total`), as client-go's broadcaster does.
//! Writes go to `events.k8s.io/v1`; if that API is not served, the recorder falls back to core/v1.

use crate::core::api;
use crate::core::events::{EventRecord, EventSeries, EventWrite};
use crate::core::logging::Line;
use crate::core::metrics::{names as m, Metrics};
use crate::shell::kube::client::{Client, PatchType};
use crate::shell::permissions::{plain, Denials};
use log::{debug, warn};
use std::sync::mpsc::{sync_channel, RecvTimeoutError, SyncSender, TrySendError};
use std::sync::Arc;
use std::time::{Duration, Instant, SystemTime};

/// Capacity of the recorder queue (client-go's broadcaster keeps 1000 per sink).
const QUEUE: usize = 1000;

/// Handle for recording events from any thread.
#[derive(Clone)]
pub struct Recorder {
    tx: Option<SyncSender<EventRecord>>,
    metrics: Metrics,
}

impl Recorder {
    /// A recorder that discards everything (for tools that must not write).
    pub fn discard(metrics: Metrics) -> Recorder {
        Recorder { tx: None, metrics }
    }

    /// Queue an event; never blocks.
    pub fn record(&self, ev: EventRecord) {
        let Some(tx) = &self.tx else { return };
        match tx.try_send(ev) {
            Ok(()) => {}
            Err(TrySendError::Full(ev)) => {
                self.metrics.inc(m::EVENTS_DROPPED, &[], 1.0);
                debug!("{}", Line::new("Event queue full, dropping event").s("reason", ev.reason).s("object", ev.regarding.name));
            }
            Err(TrySendError::Disconnected(_)) => {}
        }
    }
}

/// Start the recorder thread.
pub fn spawn(client: Client, hostname: String, metrics: Metrics, denials: Arc<Denials>) -> std::io::Result<Recorder> {
    let (tx, rx) = sync_channel::<EventRecord>(QUEUE);
    let recorder = Recorder { tx: Some(tx), metrics };
    std::thread::Builder::new().name("event-recorder".into()).spawn(move || {
        let mut series = EventSeries::new(&hostname);
        let mut core_v1 = false;
        let mut last_tick = Instant::now();
        loop {
            let write = match rx.recv_timeout(Duration::from_secs(30)) {
                Ok(ev) => series.record(&ev, Instant::now(), SystemTime::now()).map(|w| (w, Some(ev))),
                Err(RecvTimeoutError::Timeout) => None,
                Err(RecvTimeoutError::Disconnected) => return,
            };
            if let Some((w, ev)) = write {
                perform(&client, w, ev.as_ref(), &hostname, &mut core_v1, &denials);
            }
            if last_tick.elapsed() >= Duration::from_secs(30) {
                last_tick = Instant::now();
                for w in series.tick(last_tick) {
                    perform(&client, w, None, &hostname, &mut core_v1, &denials);
                }
            }
        }
    })?;
    Ok(recorder)
}

fn perform(
    client: &Client,
    w: EventWrite,
    original: Option<&EventRecord>,
    hostname: &str,
    core_v1: &mut bool,
    denials: &Denials,
) {
    match w {
        EventWrite::Create(ev) => {
            if !*core_v1 {
                let path = format!("/apis/events.k8s.io/v1/namespaces/{}/events", ev.metadata.namespace);
                let result = client.create::<_, serde_json::Value>(&path, &*ev);
                denials.outcome(&plain("create", "events.k8s.io", "events"), &ev.reason, &result);
                match result {
                    Ok(_) => return,
                    Err(e) if e.is_not_found() && e.code() == Some(404) => {
                        warn!("events.k8s.io/v1 is not served; recording events through core/v1");
                        *core_v1 = true;
                    }
                    Err(e) => {
                        warn!("{}", Line::new("Server rejected event (will not retry!)").s("reason", &ev.reason).s("err", e));
                        return;
                    }
                }
            }
            let core = to_core(&ev, original, hostname);
            let path = format!("/api/v1/namespaces/{}/events", core.metadata.namespace);
            let result = client.create::<_, serde_json::Value>(&path, &core);
            denials.outcome(&plain("create", "", "events"), &core.reason, &result);
            if let Err(e) = result {
                warn!("{}", Line::new("Server rejected event (will not retry!)").s("reason", &core.reason).s("err", e));
            }
        }
        EventWrite::PatchSeries { namespace, name, count, last_observed } => {
            let (path, body) = if *core_v1 {
                (
                    format!("/api/v1/namespaces/{namespace}/events/{name}"),
                    serde_json::json!({"count": count, "lastTimestamp": last_observed}),
                )
            } else {
                (
                    format!("/apis/events.k8s.io/v1/namespaces/{namespace}/events/{name}"),
                    serde_json::json!({"series": {"count": count, "lastObservedTime": last_observed}}),
                )
            };
            if let Err(e) = client.patch::<serde_json::Value>(&path, PatchType::Merge, &body) {
                debug!("{}", Line::new("Could not update event series").s("event", name).s("err", e));
            }
        }
    }
}

/// The core/v1 view of an events.k8s.io event.
pub fn to_core(ev: &api::Event, _original: Option<&EventRecord>, hostname: &str) -> api::CoreEvent {
    let ts = ev.event_time.get(..19).map(|s| format!("{s}Z"));
    api::CoreEvent {
        kind: "Event".into(),
        api_version: "v1".into(),
        metadata: ev.metadata.clone(),
        involved_object: ev.regarding.clone(),
        reason: ev.reason.clone(),
        message: ev.note.clone(),
        source: api::EventSource { component: ev.reporting_controller.clone(), host: hostname.to_string() },
        first_timestamp: ts.clone(),
        last_timestamp: ts,
        count: 1,
        type_: ev.type_.clone(),
        reporting_component: ev.reporting_controller.clone(),
        reporting_instance: ev.reporting_instance.clone(),
        action: ev.action.clone(),
    }
}
