//! A live cluster read once, read-only, kind by kind from the watched-kinds table: what
//! `explain`, `snapshot` and the live what-if commands see.
//!
//! Every cluster-state row of [`crate::core::watched::KINDS`] is listed page by page with the
//! row's field selector — the requests the scheduler's informers make, so the permissions needed
//! are the `list` half of the scheduler's. An optional kind the identity may not list is skipped
//! with a warning naming the feature lost; a required one is an error naming the missing rule.

use crate::core::watched::{self, snapshot_kinds, Change, KindChange, KindVisitor, Need, Watched, WatchedKind};
use crate::shell::kube::api_error::ApiError;
use crate::shell::kube::client::Client;
use crate::shell::kube::query::ListParams;
use std::fmt;

/// Page size of the lists (client-go's reflector default).
const PAGE: u32 = 500;

/// Why the cluster could not be read.
#[derive(Debug)]
pub enum ReadError {
    /// The identity may not list a required kind.
    Forbidden { resource: String, path: String, rule: String, source: Box<ApiError> },
    /// A list request failed otherwise (no answer, server error, …).
    Api { server: String, path: String, source: Box<ApiError> },
}

impl fmt::Display for ReadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ReadError::Forbidden { resource, path, rule, source } => write!(
                f,
                "listing {resource} ({path}) is forbidden: the identity needs {rule} (see docs/permissions.md): {source}"
            ),
            ReadError::Api { server, path, source } => write!(f, "the API server {server}: listing {path}: {source}"),
        }
    }
}

impl std::error::Error for ReadError {}

/// Lists one kind and hands each object over as an `Added` change.
struct ListKind<'a> {
    client: &'a Client,
    row: &'static WatchedKind,
    each: &'a mut dyn FnMut(KindChange) -> bool,
}

impl KindVisitor for ListKind<'_> {
    /// `Ok(false)` when the caller asked to stop.
    type Output = Result<bool, ReadError>;

    fn visit<T>(&mut self) -> Self::Output
    where
        T: Watched + serde::de::DeserializeOwned + Send + 'static,
    {
        let path = self.row.path("");
        let mut token: Option<String> = None;
        loop {
            let params = ListParams {
                limit: Some(PAGE),
                continue_token: token.take(),
                field_selector: self.row.field_selector.map(str::to_string),
                ..Default::default()
            };
            let page = match self.client.list::<T>(&path, &params) {
                Ok(p) => p,
                // An optional kind the server does not serve (404: e.g. resource.k8s.io/v1 before
                // v1.34) is skipped like a forbidden one.
                Err(source) if source.is_not_found() && !self.row.is_required() => {
                    if let Need::Optional { feature } = self.row.need {
                        eprintln!(
                            "warning: cannot list {} (not served by the API server); going on without it: no {feature}",
                            self.row.qualified_resource()
                        );
                    }
                    return Ok(true);
                }
                Err(source) if source.is_forbidden() => {
                    if let Need::Optional { feature } = self.row.need {
                        eprintln!(
                            "warning: cannot list {} (forbidden); going on without it: no {feature}",
                            self.row.qualified_resource()
                        );
                        return Ok(true);
                    }
                    let rule = crate::shell::daemon::permissions::kind_access(self.row, "list", "").rule();
                    return Err(ReadError::Forbidden {
                        resource: self.row.qualified_resource(),
                        path,
                        rule,
                        source: Box::new(source),
                    });
                }
                Err(source) => {
                    return Err(ReadError::Api { server: self.client.server().to_string(), path, source: Box::new(source) })
                }
            };
            for u in page.undecodable {
                eprintln!("warning: {path}: skipping {}, which cannot be decoded: {}", u.key(), u.error);
            }
            for item in page.items {
                if !(self.each)(T::wrap(Change::Added(item))) {
                    return Ok(false);
                }
            }
            if page.metadata.continue_token.is_empty() {
                return Ok(true);
            }
            token = Some(page.metadata.continue_token);
        }
    }

    /// Custom resources are no part of a snapshot (its rows are the built-in kinds).
    fn visit_custom(&mut self, _id: crate::core::watched::KindId) -> Self::Output {
        Ok(true)
    }
}

/// Every object of the cluster-state kinds, in table order; `each` returns `false` to stop.
pub fn for_each_object(client: &Client, each: &mut dyn FnMut(KindChange) -> bool) -> Result<(), ReadError> {
    for row in snapshot_kinds() {
        if !watched::visit(row.id, &mut ListKind { client, row, each: &mut *each })? {
            break;
        }
    }
    Ok(())
}
