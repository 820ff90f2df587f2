//! Why an allocation did not produce results, in the three kinds the DynamicResources plugin
//! tells apart (`dynamicresources.go` Filter, v1.35): nothing fits on this node, the node failed
//! (`ErrFailedAllocationOnNode`: invalid pools, the time limit), or the claims or classes are
//! broken (any other error: scheduling the pod is aborted). The texts are upstream's
//! ([`crate::core::texts::dra_allocator`]).

use crate::core::texts::dra_allocator as texts;
use crate::core::texts::dynamic_resources::CANNOT_ALLOCATE_ALL_CLAIMS;
use std::fmt;

/// The result of an allocation attempt that found no allocation.
#[derive(Debug, Clone, PartialEq)]
pub enum AllocError {
    /// No combination of devices satisfies all claims on this node (upstream returns no result
    /// and no error; the plugin's reason is [`CANNOT_ALLOCATE_ALL_CLAIMS`]).
    CannotAllocate,
    /// Nothing fits and some pool is invalid (`ErrFailedAllocationOnNode`): this node only.
    InvalidPools,
    /// The deadline passed during the search (the plugin's Filter time limit).
    TimedOut,
    /// Invalid input: scheduling the pod is aborted with this error.
    Fatal(Fatal),
}

/// Errors in claims, classes or slices that abort scheduling the pod, each with upstream's text.
#[derive(Debug, Clone, PartialEq)]
pub enum Fatal {
    /// Text built by one of [`texts`]'s functions.
    Input(String),
    /// Alpha features this allocator does not implement are enabled.
    UnsupportedFeatures(Vec<&'static str>),
}

impl AllocError {
    /// Whether only this node is affected (the plugin reports the text as the node's
    /// Unschedulable reason and tries the other nodes).
    pub fn is_node_failure(&self) -> bool {
        matches!(self, AllocError::CannotAllocate | AllocError::InvalidPools)
    }

    pub(super) fn input(text: String) -> AllocError {
        AllocError::Fatal(Fatal::Input(text))
    }
}

impl fmt::Display for AllocError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            AllocError::CannotAllocate => f.write_str(CANNOT_ALLOCATE_ALL_CLAIMS),
            AllocError::InvalidPools => f.write_str(texts::INVALID_POOLS),
            AllocError::TimedOut => f.write_str(texts::ABORTED),
            AllocError::Fatal(Fatal::Input(text)) => f.write_str(text),
            AllocError::Fatal(Fatal::UnsupportedFeatures(features)) => f.write_str(&texts::unsupported_features(features)),
        }
    }
}

impl std::error::Error for AllocError {}
