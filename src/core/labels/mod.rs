//! Labels in one place: the syntax of keys and values (`validation.IsQualifiedName`,
//! `IsValidLabelValue`), one requirement type (`labels.Requirement`) and compiled label selectors.
//!
//! Configuration validation, label selectors (affinity terms, spread constraints, Services) and
//! node selectors (node affinity) all read these, so a key is valid, and a requirement matches, the
//! same way everywhere.

pub mod requirement;
pub mod selector;
pub mod syntax;

pub use requirement::{resolve, KeyResolution, Op, Requirement};
pub use selector::{Narrowing, Selector};
