//! The `device` variable as CEL sees it, built lazily over the caller's [`CelDevice`].
//!
//! Upstream (`compile.go`, `DeviceMatches`, kubernetes/kubernetes v1.35) copies a device into
//! nested Go maps before every evaluation and notes in a TODO that a proxy looking values up
//! directly would be better; this is that proxy. The semantics are upstream's:
//! - `device.attributes` and `device.capacity` map a domain to a map of ids. Looking up a domain
//!   that the device does not have yields an empty map (upstream's `mapper` with a default), so
//!   `device.attributes["other.example.com"].x` fails with `no such key: x`, not on the domain;
//!   `"d" in device.attributes` is true only for domains the device has.
//! - An unqualified name belongs to the driver's domain (`parseQualifiedName`).
//! - A version attribute is a `Semver`; one that does not parse fails the whole evaluation
//!   before it starts (`attribute <name>: parse semantic version: ...`), used or not.
//! - `device.allowMultipleAllocations` is false when the device does not set it.

use std::sync::OnceLock;

use cel::common::traits::{Container, Indexer, Iterable, Iterator as CelIterator, Sizer};
use cel::common::types::{CelBool, CelInt, CelString, Type, MAP_TYPE};
use cel::common::value::{CowVal, Val};
use cel::ExecutionError;

use super::quantity::CelQuantity;
use super::semver::Semver;
use super::{AttributeValue, CelDevice};

/// The CEL object type name upstream declares for the variable.
pub static DEVICE_TYPE: Type = Type::new_unspecified_type("kubernetes.DRADevice");

/// The fields of `device` (compile.go's `driverVar`, `attributesVar`, `capacityVar`,
/// `multiAllocVar`).
pub const FIELDS: [&str; 4] = ["driver", "attributes", "capacity", "allowMultipleAllocations"];

/// Splits a qualified name as upstream's `parseQualifiedName`.
fn split_qualified<'a>(name: &'a str, driver: &'a str) -> (&'a str, &'a str) {
    match name.find('/') {
        Some(i) => (&name[..i], &name[i + 1..]),
        None => (driver, name),
    }
}

/// One entry of an inner map.
#[derive(Debug)]
struct Entry<'a> {
    id: CelString<'a>,
    value: Box<dyn Val + 'a>,
}

/// One domain: its name and its entries, in the order the device lists them.
#[derive(Debug)]
struct Domain<'a> {
    name: CelString<'a>,
    entries: Vec<Entry<'a>>,
}

/// The device with its maps built on first use.
#[derive(Debug)]
pub struct Prepared<'a> {
    device: &'a CelDevice<'a>,
    versions: Vec<Semver>,
    attributes: OnceLock<Vec<Domain<'a>>>,
    capacity: OnceLock<Vec<Domain<'a>>>,
    empty: Vec<Entry<'a>>,
}

impl<'a> Prepared<'a> {
    /// Checks what upstream checks before evaluating: every version attribute parses.
    pub fn new(device: &'a CelDevice<'a>) -> Result<Prepared<'a>, String> {
        let mut versions = Vec::new();
        for (name, value) in device.attributes {
            if let AttributeValue::Version(v) = value {
                let parsed = Semver::parse(v).map_err(|e| format!("attribute {name}: parse semantic version: {e}"))?;
                versions.push(parsed);
            }
        }
        Ok(Prepared { device, versions, attributes: OnceLock::new(), capacity: OnceLock::new(), empty: Vec::new() })
    }

    fn attributes(&self) -> &[Domain<'a>] {
        self.attributes.get_or_init(|| {
            let mut versions = self.versions.iter();
            let entries = self.device.attributes.iter().map(|(name, value)| {
                let v: Box<dyn Val + 'a> = match value {
                    AttributeValue::Int(i) => Box::new(CelInt::from(*i)),
                    AttributeValue::Bool(b) => Box::new(CelBool::from(*b)),
                    AttributeValue::String(s) => Box::new(CelString::from(*s)),
                    AttributeValue::Version(_) => match versions.next() {
                        Some(v) => Box::new(v.clone()),
                        None => Box::new(CelBool::from(false)),
                    },
                };
                (*name, v)
            });
            group(entries, self.device.driver)
        })
    }

    fn capacity(&self) -> &[Domain<'a>] {
        self.capacity.get_or_init(|| {
            let entries = self.device.capacity.iter().map(|(name, q)| {
                let v: Box<dyn Val + 'a> = Box::new(CelQuantity::from_device(q));
                (*name, v)
            });
            group(entries, self.device.driver)
        })
    }
}

/// Groups qualified entries by domain, domains sorted (Go's map order is random; sorted is one
/// of its orders and deterministic). A name listed twice keeps its first value.
fn group<'a>(entries: impl IntoIterator<Item = (&'a str, Box<dyn Val + 'a>)>, driver: &'a str) -> Vec<Domain<'a>> {
    let mut domains: Vec<Domain<'a>> = Vec::new();
    for (name, value) in entries {
        let (domain, id) = split_qualified(name, driver);
        let d = match domains.iter().position(|d| d.name.inner() == domain) {
            Some(i) => &mut domains[i],
            None => {
                domains.push(Domain { name: CelString::from(domain), entries: Vec::new() });
                let last = domains.len() - 1;
                &mut domains[last]
            }
        };
        if !d.entries.iter().any(|e| e.id.inner() == id) {
            d.entries.push(Entry { id: CelString::from(id), value });
        }
    }
    domains.sort_by(|a, b| a.name.inner().cmp(b.name.inner()));
    domains
}

fn key_str(key: &dyn Val) -> Result<&str, ExecutionError> {
    key.downcast_ref::<CelString>()
        .map(|s| s.inner())
        .ok_or_else(|| ExecutionError::UnexpectedType { got: key.get_type().name().to_owned(), want: "string".to_owned() })
}

/// The `device` variable.
#[derive(Debug, Clone, Copy)]
pub struct DeviceVal<'p, 'a> {
    pub prepared: &'p Prepared<'a>,
}

impl<'p, 'a> Val for DeviceVal<'p, 'a> {
    fn get_type(&self) -> &Type {
        &DEVICE_TYPE
    }

    fn cel_type() -> &'static Type {
        &DEVICE_TYPE
    }

    fn as_indexer<'b, 'v>(&'b self) -> Option<&'b (dyn Indexer + 'v)>
    where
        Self: 'v,
    {
        Some(self)
    }

    fn clone_as_boxed<'v>(&self) -> Box<dyn Val + 'v>
    where
        Self: 'v,
    {
        Box::new(*self)
    }
}

impl<'p, 'a> Indexer for DeviceVal<'p, 'a> {
    fn get<'b, 'v>(&'b self, idx: &dyn Val) -> Result<CowVal<'b, 'v>, ExecutionError>
    where
        Self: 'v,
    {
        let device = self.prepared.device;
        match key_str(idx)? {
            "driver" => Ok(CowVal::owned(CelString::from(device.driver))),
            "attributes" => Ok(CowVal::owned(Outer { prepared: self.prepared, kind: MapKind::Attributes })),
            "capacity" => Ok(CowVal::owned(Outer { prepared: self.prepared, kind: MapKind::Capacity })),
            "allowMultipleAllocations" => Ok(CowVal::owned(CelBool::from(device.allow_multiple_allocations.unwrap_or(false)))),
            other => Err(ExecutionError::no_such_key(other)),
        }
    }

    fn steal<'v>(self: Box<Self>, idx: &dyn Val) -> Result<Box<dyn Val + 'v>, ExecutionError>
    where
        Self: 'v,
    {
        self.get(idx).map(CowVal::into_owned)
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum MapKind {
    Attributes,
    Capacity,
}

/// `device.attributes` / `device.capacity`: domain → inner map.
#[derive(Debug, Clone, Copy)]
struct Outer<'p, 'a> {
    prepared: &'p Prepared<'a>,
    kind: MapKind,
}

impl<'p, 'a> Outer<'p, 'a> {
    fn domains(&self) -> &'p [Domain<'a>] {
        match self.kind {
            MapKind::Attributes => self.prepared.attributes(),
            MapKind::Capacity => self.prepared.capacity(),
        }
    }
}

impl<'p, 'a> Val for Outer<'p, 'a> {
    fn get_type(&self) -> &Type {
        &MAP_TYPE
    }

    fn cel_type() -> &'static Type {
        &MAP_TYPE
    }

    fn as_indexer<'b, 'v>(&'b self) -> Option<&'b (dyn Indexer + 'v)>
    where
        Self: 'v,
    {
        Some(self)
    }

    fn as_container(&self) -> Option<&dyn Container> {
        Some(self)
    }

    fn as_iterable<'b, 'v>(&'b self) -> Option<&'b (dyn Iterable + 'v)>
    where
        Self: 'v,
    {
        Some(self)
    }

    fn as_sizer(&self) -> Option<&dyn Sizer> {
        Some(self)
    }

    fn clone_as_boxed<'v>(&self) -> Box<dyn Val + 'v>
    where
        Self: 'v,
    {
        Box::new(*self)
    }
}

impl<'p, 'a> Indexer for Outer<'p, 'a> {
    fn get<'b, 'v>(&'b self, idx: &dyn Val) -> Result<CowVal<'b, 'v>, ExecutionError>
    where
        Self: 'v,
    {
        let domain = key_str(idx)?;
        let entries: &'p [Entry<'a>] = match self.domains().iter().find(|d| d.name.inner() == domain) {
            Some(d) => &d.entries,
            None => &self.prepared.empty,
        };
        Ok(CowVal::owned(Inner { entries }))
    }

    fn steal<'v>(self: Box<Self>, idx: &dyn Val) -> Result<Box<dyn Val + 'v>, ExecutionError>
    where
        Self: 'v,
    {
        self.get(idx).map(CowVal::into_owned)
    }
}

impl Container for Outer<'_, '_> {
    fn contains(&self, value: &dyn Val) -> Result<bool, ExecutionError> {
        let domain = key_str(value)?;
        Ok(self.domains().iter().any(|d| d.name.inner() == domain))
    }
}

impl Sizer for Outer<'_, '_> {
    fn size(&self) -> CelInt {
        CelInt::from(self.domains().len() as i64)
    }
}

struct DomainIter<'b, 'a> {
    rest: std::slice::Iter<'b, Domain<'a>>,
}

impl<'b, 'a: 'v, 'v> CelIterator<'b, 'v> for DomainIter<'b, 'a> {
    fn next(&mut self) -> Option<&'b (dyn Val + 'v)> {
        self.rest.next().map(|d| &d.name as &dyn Val)
    }
}

impl<'p, 'a> Iterable for Outer<'p, 'a> {
    fn iter<'b, 'v>(&'b self) -> Box<dyn CelIterator<'b, 'v> + 'b>
    where
        Self: 'v,
    {
        Box::new(DomainIter { rest: self.domains().iter() })
    }
}

/// One domain's map: id → value.
#[derive(Debug, Clone, Copy)]
struct Inner<'p, 'a> {
    entries: &'p [Entry<'a>],
}

impl<'p, 'a> Val for Inner<'p, 'a> {
    fn get_type(&self) -> &Type {
        &MAP_TYPE
    }

    fn cel_type() -> &'static Type {
        &MAP_TYPE
    }

    fn as_indexer<'b, 'v>(&'b self) -> Option<&'b (dyn Indexer + 'v)>
    where
        Self: 'v,
    {
        Some(self)
    }

    fn as_container(&self) -> Option<&dyn Container> {
        Some(self)
    }

    fn as_iterable<'b, 'v>(&'b self) -> Option<&'b (dyn Iterable + 'v)>
    where
        Self: 'v,
    {
        Some(self)
    }

    fn as_sizer(&self) -> Option<&dyn Sizer> {
        Some(self)
    }

    fn equals(&self, other: &dyn Val) -> bool {
        // Equal to another map with the same entries (only empty maps can be written in a
        // selector's type environment, `{}`).
        other.as_sizer().is_some_and(|s| *s.size().inner() == self.entries.len() as i64)
            && other.get_type() == &MAP_TYPE
            && other
                .as_indexer()
                .is_some_and(|ix| self.entries.iter().all(|e| ix.get(&e.id).is_ok_and(|v| e.value.equals(v.as_ref()))))
    }

    fn clone_as_boxed<'v>(&self) -> Box<dyn Val + 'v>
    where
        Self: 'v,
    {
        Box::new(*self)
    }
}

impl<'p, 'a> Indexer for Inner<'p, 'a> {
    fn get<'b, 'v>(&'b self, idx: &dyn Val) -> Result<CowVal<'b, 'v>, ExecutionError>
    where
        Self: 'v,
    {
        let id = key_str(idx)?;
        match self.entries.iter().find(|e| e.id.inner() == id) {
            Some(e) => Ok(CowVal::Borrowed(e.value.as_ref())),
            None => Err(ExecutionError::no_such_key(id)),
        }
    }

    fn steal<'v>(self: Box<Self>, idx: &dyn Val) -> Result<Box<dyn Val + 'v>, ExecutionError>
    where
        Self: 'v,
    {
        self.get(idx).map(CowVal::into_owned)
    }
}

impl Container for Inner<'_, '_> {
    fn contains(&self, value: &dyn Val) -> Result<bool, ExecutionError> {
        let id = key_str(value)?;
        Ok(self.entries.iter().any(|e| e.id.inner() == id))
    }
}

impl Sizer for Inner<'_, '_> {
    fn size(&self) -> CelInt {
        CelInt::from(self.entries.len() as i64)
    }
}

struct IdIter<'b, 'a> {
    rest: std::slice::Iter<'b, Entry<'a>>,
}

impl<'b, 'a: 'v, 'v> CelIterator<'b, 'v> for IdIter<'b, 'a> {
    fn next(&mut self) -> Option<&'b (dyn Val + 'v)> {
        self.rest.next().map(|e| &e.id as &dyn Val)
    }
}

impl<'p, 'a> Iterable for Inner<'p, 'a> {
    fn iter<'b, 'v>(&'b self) -> Box<dyn CelIterator<'b, 'v> + 'b>
    where
        Self: 'v,
    {
        Box::new(IdIter { rest: self.entries.iter() })
    }
}
