//! What the scheduler core reacts to: changes of the watched kinds, binding results and
//! leadership. The list+watch loop produces [`Change`]s directly, and each API type knows its
//! variant of [`KindChange`] ([`Watched`]), so a watch event reaches the core through one
//! translation.

use crate::core::api;
use crate::core::model::PodKey;
use crate::core::watched::KindId;

/// A change observed by a list+watch loop.
#[derive(Debug)]
pub enum Change<T> {
    /// A full relist starts; objects not seen before `ListDone` are gone afterwards.
    ListBegin,
    /// One page of the list, in server order.
    ListPage(Vec<T>),
    /// The list is complete: objects not seen since `ListBegin` are gone.
    ListDone,
    Added(T),
    Modified(T),
    Deleted(T),
    /// The kind cannot be read (RBAC forbids it): an optional kind's feature is off and its
    /// objects are forgotten until a later list succeeds.
    Unavailable,
}

impl<T> Change<T> {
    /// The same change with every object converted (boxing, typically).
    pub fn map<U>(self, f: impl Fn(T) -> U) -> Change<U> {
        match self {
            Change::ListBegin => Change::ListBegin,
            Change::ListPage(v) => Change::ListPage(v.into_iter().map(f).collect()),
            Change::ListDone => Change::ListDone,
            Change::Added(o) => Change::Added(f(o)),
            Change::Modified(o) => Change::Modified(f(o)),
            Change::Deleted(o) => Change::Deleted(f(o)),
            Change::Unavailable => Change::Unavailable,
        }
    }

    /// What this change says about the kind's sync state, if anything.
    pub fn sync_state(&self) -> Option<KindSync> {
        match self {
            Change::ListDone => Some(KindSync::Synced),
            Change::Unavailable => Some(KindSync::Unavailable),
            _ => None,
        }
    }
}

/// How far a watched kind has come.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum KindSync {
    /// No complete list yet.
    Waiting,
    /// Listed at least once.
    Synced,
    /// Forbidden (only meaningful for optional kinds, which then do not hold up scheduling).
    Unavailable,
}

/// An API type the scheduler mirrors: its row of the kind table and its [`KindChange`] variant.
pub trait Watched: api::Object + Sized {
    const ID: KindId;
    /// Wrap a change of this type for the core.
    fn wrap(change: Change<Box<Self>>) -> KindChange;
}

macro_rules! watched_kinds {
    ($($id:ident => $ty:ty),* $(,)?) => {
        /// A change of one watched kind (objects boxed, so that inputs stay small in the channel).
        #[derive(Debug)]
        pub enum KindChange {
            $($id(Change<Box<$ty>>),)*
        }

        impl KindChange {
            /// The kind this change belongs to.
            pub fn id(&self) -> KindId {
                match self {
                    $(KindChange::$id(_) => KindId::$id,)*
                }
            }

            /// What this change says about the kind's sync state, if anything.
            pub fn sync_state(&self) -> Option<KindSync> {
                match self {
                    $(KindChange::$id(c) => c.sync_state(),)*
                }
            }
        }

        $(impl Watched for $ty {
            const ID: KindId = KindId::$id;
            fn wrap(change: Change<Box<Self>>) -> KindChange {
                KindChange::$id(change)
            }
        })*

        /// Something done with the API type of a kind known only at run time (the shell starts a
        /// typed watcher per row of the kind table through this).
        pub trait KindVisitor {
            type Output;
            fn visit<T>(&mut self) -> Self::Output
            where
                T: Watched + serde::de::DeserializeOwned + Send + 'static;
        }

        /// Call `v.visit::<T>()` with the API type `T` of kind `id`.
        pub fn visit<V: KindVisitor>(id: KindId, v: &mut V) -> V::Output {
            match id {
                $(KindId::$id => v.visit::<$ty>(),)*
            }
        }
    };
}

watched_kinds!(
    Node => api::Node,
    Pod => api::Pod,
    PriorityClass => api::PriorityClass,
    PodDisruptionBudget => api::PodDisruptionBudget,
    PersistentVolumeClaim => api::PersistentVolumeClaim,
    PersistentVolume => api::PersistentVolume,
    StorageClass => api::StorageClass,
    CsiNode => api::CsiNode,
    Namespace => api::Namespace,
    Service => api::Service,
    ReplicationController => api::ReplicationController,
    ReplicaSet => api::ReplicaSet,
    StatefulSet => api::StatefulSet,
    Lease => api::Lease,
);

/// Everything the scheduler thread reacts to.
#[derive(Debug)]
pub enum Input {
    /// A change of a watched kind.
    Watch(KindChange),
    /// A binding performed by the shell finished.
    BindDone(BindOutcome),
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
}

/// Why a binding failed.
#[derive(Debug, Clone)]
pub enum BindFailure {
    /// 409: the pod is already bound (another scheduler won) or being deleted. We lost it.
    Conflict(String),
    /// Anything else (404, 5xx after retries, transport): forget and retry with backoff.
    Other(String),
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::watched::KINDS;

    struct Named;
    impl KindVisitor for Named {
        type Output = KindId;
        fn visit<T>(&mut self) -> KindId
        where
            T: Watched + serde::de::DeserializeOwned + Send + 'static,
        {
            T::ID
        }
    }

    #[test]
    fn every_row_of_the_kind_table_has_a_type() {
        for k in KINDS {
            assert_eq!(visit(k.id, &mut Named), k.id);
        }
        let c = Input::watch(Change::Added(api::Node::default()));
        assert!(matches!(c, Input::Watch(ref kc) if kc.id() == KindId::Node));
        let done = KindChange::Lease(Change::ListDone);
        assert_eq!(done.sync_state(), Some(KindSync::Synced));
    }
}
