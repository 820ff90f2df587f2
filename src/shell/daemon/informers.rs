//! The informers: one list+watch thread per row of the watched-kind table, feeding the
//! scheduler core's input channel. Each thread decodes its kind's API type, hands the core
//! [`Change`]s of that type (one translation, [`Input::watch`]), and judges denials: a required
//! kind that RBAC forbids is an error logged every retry (readiness waits, `/readyz` names it), an
//! optional one turns its feature off with one warning and is retried rarely.

use crate::core::api::Object;
use crate::core::logging::Line;
use crate::core::metrics::{names as m, Metrics};
use crate::core::rng::Rng;
use crate::core::scheduler::Input;
use crate::core::watched::{visit, Change, CustomObject, KindVisitor, Watched};
use crate::core::watched::{Need, WatchedKind};
use crate::shell::daemon::permissions::{self, Denials};
use crate::shell::kube::client::Client;
use crate::shell::kube::decode::TURN;
use crate::shell::kube::watch::{spawn_watcher, Sink, WatchSpec};
use serde::de::DeserializeOwned;
use std::sync::atomic::AtomicBool;
use std::sync::mpsc::SyncSender;
use std::sync::{Arc, OnceLock};
use std::time::{Duration, Instant};

/// Environment variable overriding how long a watch may stay completely silent (no event, no
/// bookmark) before it is considered dead and reopened, in seconds (fractions allowed). The
/// default ([`WatchSpec::new`]) is 5 minutes: five times the API server's ~1-minute bookmark
/// period. Meant for tests and for networks whose middleboxes silently drop idle connections.
pub const WATCH_IDLE_TIMEOUT_ENV: &str = "EDGESCHED_WATCH_IDLE_TIMEOUT";

/// An environment variable holding something other than what it must hold.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EnvError {
    pub name: &'static str,
    pub value: String,
}

impl std::fmt::Display for EnvError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}={:?}: expected a positive number of seconds (at most 86400)", self.name, self.value)
    }
}

impl std::error::Error for EnvError {}

/// Parse [`WATCH_IDLE_TIMEOUT_ENV`]: `None` when unset; an error for anything but a positive
/// number of seconds.
pub fn parse_watch_idle_timeout(value: Option<&str>) -> Result<Option<Duration>, EnvError> {
    parse_seconds_env(WATCH_IDLE_TIMEOUT_ENV, value)
}

/// A positive number of seconds (fractions allowed, at most a day) from environment variable
/// `name`; `None` when unset or empty.
pub fn parse_seconds_env(name: &'static str, value: Option<&str>) -> Result<Option<Duration>, EnvError> {
    let Some(v) = value.map(str::trim).filter(|v| !v.is_empty()) else { return Ok(None) };
    match v.parse::<f64>() {
        Ok(secs) if secs.is_finite() && secs > 0.0 && secs <= 86_400.0 => Ok(Some(Duration::from_secs_f64(secs))),
        _ => Err(EnvError { name, value: v.to_string() }),
    }
}

/// Environment variable overriding how long an optional kind that RBAC forbids waits before it
/// is tried again, in seconds (default [`OPTIONAL_FORBIDDEN_RETRY`]). Meant for tests.
pub const FORBIDDEN_RETRY_ENV: &str = "EDGESCHED_FORBIDDEN_RETRY";

/// How long an optional kind that RBAC forbids waits before the next attempt: rare, so a cluster
/// that will never grant it is not pestered, yet a later grant heals without a restart.
pub const OPTIONAL_FORBIDDEN_RETRY: Duration = Duration::from_secs(300);

/// What every informer thread shares.
pub struct Informers {
    pub client: Client,
    pub tx: SyncSender<Input>,
    pub stop: Arc<AtomicBool>,
    pub metrics: Metrics,
    /// `EDGESCHED_WATCH_IDLE_TIMEOUT`, if set.
    pub idle_override: Option<Duration>,
    /// How long an optional kind that is forbidden waits before it is tried again.
    pub optional_retry: Duration,
    pub denials: Arc<Denials>,
    /// Where Leases are watched (the leader-election namespace).
    pub lease_namespace: String,
}

/// Why an informer could not start.
#[derive(Debug)]
pub struct StartError {
    pub resource: &'static str,
    pub source: std::io::Error,
}

impl std::fmt::Display for StartError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "starting the {} watcher: {}", self.resource, self.source)
    }
}

impl std::error::Error for StartError {}

impl Informers {
    /// Start the list+watch thread of one row of the kind table.
    pub fn start(&self, kind: &'static WatchedKind) -> Result<(), StartError> {
        visit(kind.id, &mut Starter { informers: self, kind })
    }
}

/// Starts the watcher of one kind with its API type (see [`visit`]).
struct Starter<'a> {
    informers: &'a Informers,
    kind: &'static WatchedKind,
}

impl KindVisitor for Starter<'_> {
    type Output = Result<(), StartError>;

    fn visit<T>(&mut self) -> Result<(), StartError>
    where
        T: Watched + DeserializeOwned + Send + 'static,
    {
        let (inf, kind) = (self.informers, self.kind);
        let mut spec = WatchSpec::new(kind.resource, kind.path(&inf.lease_namespace));
        spec.field_selector = kind.field_selector.map(str::to_string);
        if let Some(idle) = inf.idle_override {
            spec.idle_timeout = idle;
        }
        if !kind.is_required() {
            spec.forbidden_retry = Some(inf.optional_retry);
            // An optional kind the server does not serve (the resource.k8s.io/v1 kinds on a
            // cluster before v1.34) turns its feature off instead of holding readiness.
            spec.absent_is_unavailable = true;
        }
        let forwarder = Forwarder {
            kind,
            tx: inf.tx.clone(),
            metrics: inf.metrics.clone(),
            denials: inf.denials.clone(),
            lease_namespace: inf.lease_namespace.clone(),
            not_served_reported: false,
        };
        let seed = Rng::from_os().next_u64();
        spawn_watcher::<T, _>(inf.client.clone(), spec, inf.stop.clone(), seed, forwarder)
            .map(|_| ())
            .map_err(|source| StartError { resource: kind.resource, source })
    }

    fn visit_custom(&mut self, _id: crate::core::watched::KindId) -> Result<(), StartError> {
        match CUSTOM_STARTER.get() {
            Some(start) => start(self.informers, self.kind),
            None => Err(StartError {
                resource: self.kind.resource,
                source: std::io::Error::other("custom resources are only watched by builds made with edgesched::plugin::Builder"),
            }),
        }
    }
}

/// Starts the informer of a custom resource's row. Set by [`enable_custom_resources`], which
/// only custom builds call ([`crate::plugin::Builder::run`]): the shipped binary, which never has
/// such a row, then carries no list+watch code for [`CustomObject`] (each kind's reflector is
/// its own instantiation, tens of kilobytes).
type CustomStarter = fn(&Informers, &'static WatchedKind) -> Result<(), StartError>;

static CUSTOM_STARTER: OnceLock<CustomStarter> = OnceLock::new();

/// Make the custom resources' rows startable (only custom builds call this, so the shipped binary
/// carries no reflector for [`CustomObject`]) and have the scheduler core
/// keep their objects ([`crate::core::scheduler::enable_custom_resources`]).
pub fn enable_custom_resources() {
    crate::core::scheduler::enable_custom_resources();
    let _ = CUSTOM_STARTER.set(|informers, kind| Starter { informers, kind }.visit::<CustomObject>());
}

/// The sink of one informer: changes go to the core; denials are recorded and logged.
struct Forwarder {
    kind: &'static WatchedKind,
    tx: SyncSender<Input>,
    metrics: Metrics,
    denials: Arc<Denials>,
    lease_namespace: String,
    /// The kind's absence was logged (once).
    not_served_reported: bool,
}

impl<T: Watched + Object> Sink<T> for Forwarder {
    fn change(&mut self, change: Change<Box<T>>) -> bool {
        match &change {
            Change::ListBegin => self.metrics.inc(m::WATCH_RELISTS, &[self.kind.resource], 1.0),
            Change::ListDone => {
                for verb in ["list", "watch"] {
                    if self.denials.allowed(&permissions::kind_access(self.kind, verb, &self.lease_namespace)) {
                        Line::new("Permission granted; watching again").s("resource", self.kind.qualified_resource()).info();
                    }
                }
            }
            _ => {}
        }
        TURN.sending();
        self.tx.send(Input::Watch(T::wrap_as(self.kind.id, change))).is_ok()
    }

    /// Required: an error every time (the reflector backs off). Optional: one warning naming the
    /// rule, then quiet; the core forgets the kind's objects and turns the feature off.
    fn denied(&mut self, verb: &'static str, message: &str) -> bool {
        let kind = self.kind;
        let access = permissions::kind_access(kind, verb, &self.lease_namespace);
        match kind.need {
            Need::Required => {
                self.denials.denied(&access, message, Instant::now());
                Line::new("Permission denied; scheduling waits for it")
                    .s("verb", verb)
                    .s("resource", kind.qualified_resource())
                    .s("rule", access.rule())
                    .s("err", message)
                    .error();
                true
            }
            Need::Optional { feature } => {
                // One warning per feature: the kinds that serve it are denied together.
                if self.denials.denied_feature(&access, message, Instant::now()) {
                    Line::new("Permission denied; continuing without it")
                        .s("verb", verb)
                        .s("resource", kind.qualified_resource())
                        .s("disabled", feature)
                        .s("toEnable", permissions::feature_rule(kind, verb, &self.lease_namespace))
                        .s("err", message)
                        .warning();
                } else {
                    crate::core::logging::v(4, || {
                        Line::new("Still forbidden").s("verb", verb).s("resource", kind.qualified_resource())
                    });
                }
                TURN.sending();
                self.tx.send(Input::Watch(T::wrap_as(kind.id, Change::<Box<T>>::Unavailable))).is_ok()
            }
        }
    }

    /// An optional kind the API server does not serve: one warning naming the feature turned
    /// off, then quiet retries; the core forgets the kind's objects.
    fn not_served(&mut self, message: &str) -> bool {
        let kind = self.kind;
        let feature = match kind.need {
            Need::Optional { feature } => feature,
            Need::Required => "",
        };
        if !self.not_served_reported {
            self.not_served_reported = true;
            Line::new("Resource not served by the API server; continuing without it")
                .s("resource", kind.qualified_resource())
                .s("disabled", feature)
                .s("err", message)
                .warning();
        }
        TURN.sending();
        self.tx.send(Input::Watch(T::wrap_as(kind.id, Change::<Box<T>>::Unavailable))).is_ok()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn watch_idle_timeout_override_parses_positive_seconds() {
        assert_eq!(parse_watch_idle_timeout(None), Ok(None));
        assert_eq!(parse_watch_idle_timeout(Some(" ")), Ok(None));
        assert_eq!(parse_watch_idle_timeout(Some("3")), Ok(Some(Duration::from_secs(3))));
        assert_eq!(parse_watch_idle_timeout(Some("0.5")), Ok(Some(Duration::from_millis(500))));
        for bad in ["0", "-1", "soon", "inf", "NaN", "100000"] {
            assert!(parse_watch_idle_timeout(Some(bad)).is_err(), "{bad}");
        }
    }
}
