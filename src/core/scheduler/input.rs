//! What the scheduler core reacts to: changes of the watched kinds, binding results and
//! leadership. The list+watch loop produces [`Change`]s directly, and each API type knows its
//! variant of [`KindChange`] ([`Watched`]), so a watch event reaches the core through one
//! translation.

use crate::core::model::PodKey;
use crate::core::watched::{Change, KindChange, Watched};

/// Everything the scheduler thread reacts to.
#[derive(Debug)]
pub enum Input {
    /// A change of a watched kind.
    Watch(KindChange),
    /// A binding performed by the shell finished.
    BindDone(BindOutcome),
    /// Several bindings finished, in the order they did (the shell hands them over in batches;
    /// an empty batch changes nothing).
    BindsDone(Vec<BindOutcome>),
    /// Leadership gained (`true`) or lost.
    Leading(bool),
}

impl Input {
    /// The input for a change of API type `T`.
    pub fn watch<T: Watched>(change: Change<T>) -> Input {
        Input::Watch(T::wrap(change.map(Box::new)))
    }

    /// The input for a change whose objects are already boxed.
    pub fn watch_boxed<T: Watched>(change: Change<Box<T>>) -> Input {
        Input::Watch(T::wrap(change))
    }
}

/// Result of a binding performed by the shell.
#[derive(Debug, Clone)]
pub struct BindOutcome {
    pub key: PodKey,
    pub node: Box<str>,
    pub result: Result<(), BindFailure>,
    /// The ResourceClaims PreBind wrote, as the API server returned them (kept as the latest
    /// versions until the watch delivers them; also after a later step failed).
    pub claims: Vec<crate::core::api::ResourceClaim>,
}

impl BindOutcome {
    /// The outcome of a binding that wrote no claims.
    pub fn new(key: PodKey, node: Box<str>, result: Result<(), BindFailure>) -> BindOutcome {
        BindOutcome { key, node, result, claims: Vec::new() }
    }
}

/// Why a binding failed.
#[derive(Debug, Clone)]
pub enum BindFailure {
    /// 409: the pod is already bound (another scheduler won) or being deleted. We lost it.
    Conflict(String),
    /// Anything else (404, 5xx after retries, transport): forget and retry with backoff.
    Other(String),
}
