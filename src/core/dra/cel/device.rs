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

/// One domain: its name and its ids, in the order the device lists them (what iteration and
/// `size()` need; values are read from the device on lookup).
#[derive(Debug)]
struct Domain<'a> {
    name: CelString<'a>,
    ids: Vec<CelString<'a>>,
}

/// The device: values are looked up in it directly; the grouped maps are built on first use
/// by iteration or `size()`.
#[derive(Debug)]
pub struct Prepared<'a> {
    device: &'a CelDevice<'a>,
    versions: Vec<Semver>,
    attributes: OnceLock<Vec<Domain<'a>>>,
    capacity: OnceLock<Vec<Domain<'a>>>,
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
        Ok(Prepared { device, versions, attributes: OnceLock::new(), capacity: OnceLock::new() })
    }

    fn attributes(&self) -> &[Domain<'a>] {
        self.attributes.get_or_init(|| group(self.device.attributes.iter().map(|(n, _)| *n), self.device.driver))
    }

    /// `domain` as the device spells it (a slice of one of its names, or its driver), if the
    /// device has entries in that domain.
    fn find_domain(&self, kind: MapKind, domain: &str) -> Option<&'a str> {
        let driver = self.device.driver;
        let found = |name: &'a str| {
            let (d, _) = split_qualified(name, driver);
            (d == domain).then_some(d)
        };
        match kind {
            MapKind::Attributes => self.device.attributes.iter().find_map(|(n, _)| found(n)),
            MapKind::Capacity => self.device.capacity.iter().find_map(|(n, _)| found(n)),
        }
    }

    /// The value of `domain`/`id`, read from the device directly (the first entry of that name,
    /// as the grouped maps keep it).
    fn lookup<'p, 'v>(&'p self, kind: MapKind, domain: &str, id: &str) -> Option<CowVal<'p, 'v>>
    where
        'a: 'v,
    {
        let driver = self.device.driver;
        let matches = |name: &str| split_qualified(name, driver) == (domain, id);
        match kind {
            MapKind::Attributes => {
                let mut version = 0;
                for (name, value) in self.device.attributes {
                    if matches(name) {
                        return Some(match value {
                            AttributeValue::Int(i) => CowVal::owned(CelInt::from(*i)),
                            AttributeValue::Bool(b) => CowVal::owned(CelBool::from(*b)),
                            AttributeValue::String(s) => CowVal::owned(CelString::from(*s)),
                            AttributeValue::Version(_) => CowVal::Borrowed(self.versions.get(version)?),
                        });
                    }
                    if matches!(value, AttributeValue::Version(_)) {
                        version += 1;
                    }
                }
                None
            }
            MapKind::Capacity => self
                .device
                .capacity
                .iter()
                .find(|(name, _)| matches(name))
                .map(|(_, q)| CowVal::owned(CelQuantity::from_device(q))),
        }
    }

    fn capacity(&self) -> &[Domain<'a>] {
        self.capacity.get_or_init(|| group(self.device.capacity.iter().map(|(n, _)| *n), self.device.driver))
    }
}

/// Groups qualified names by domain, domains sorted (Go's map order is random; sorted is one
/// of its orders and deterministic). A name listed twice counts once.
fn group<'a>(names: impl IntoIterator<Item = &'a str>, driver: &'a str) -> Vec<Domain<'a>> {
    let mut domains: Vec<Domain<'a>> = Vec::new();
    for name in names {
        let (domain, id) = split_qualified(name, driver);
        let d = match domains.iter().position(|d| d.name.inner() == domain) {
            Some(i) => &mut domains[i],
            None => {
                domains.push(Domain { name: CelString::from(domain), ids: Vec::new() });
                let last = domains.len() - 1;
                &mut domains[last]
            }
        };
        if !d.ids.iter().any(|e| e.inner() == id) {
            d.ids.push(CelString::from(id));
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

/// Resolves the one variable of the environment, `device` (no per-evaluation variable table).
pub struct DeviceResolver<'p, 'a> {
    pub prepared: &'p Prepared<'a>,
}

impl cel::context::VariableResolver for DeviceResolver<'_, '_> {
    fn resolve<'b>(&'b self, variable: &str) -> Option<CowVal<'b, 'b>> {
        (variable == "device").then(|| CowVal::owned(DeviceVal { prepared: self.prepared }))
    }
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

/// `Val` for the map proxies: a CEL `map` with lookup, `in`, iteration and `size()`, equal to
/// any map with the same entries.
macro_rules! map_proxy_val {
    ($proxy:ident) => {
        impl<'p, 'a> Val for $proxy<'p, 'a> {
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
                maps_equal(self, other)
            }

            fn clone_as_boxed<'v>(&self) -> Box<dyn Val + 'v>
            where
                Self: 'v,
            {
                Box::new(*self)
            }
        }
    };
}

/// CEL map equality: the same size, and every key of `a` maps to an equal value in `b`.
fn maps_equal(a: &dyn Val, b: &dyn Val) -> bool {
    let size = |v: &dyn Val| v.as_sizer().map(|s| *s.size().inner());
    if b.get_type() != &MAP_TYPE || size(a).is_none() || size(a) != size(b) {
        return false;
    }
    let (Some(keys), Some(ia), Some(ib)) = (a.as_iterable(), a.as_indexer(), b.as_indexer()) else {
        return false;
    };
    let mut iter = keys.iter();
    while let Some(k) = iter.next() {
        match (ia.get(k), ib.get(k)) {
            (Ok(x), Ok(y)) if x.equals(y.as_ref()) => {}
            _ => return false,
        }
    }
    true
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

map_proxy_val!(Outer);

impl<'p, 'a> Indexer for Outer<'p, 'a> {
    fn get<'b, 'v>(&'b self, idx: &dyn Val) -> Result<CowVal<'b, 'v>, ExecutionError>
    where
        Self: 'v,
    {
        let domain = self.prepared.find_domain(self.kind, key_str(idx)?);
        Ok(CowVal::owned(Inner { prepared: self.prepared, kind: self.kind, domain }))
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
        Ok(self.prepared.find_domain(self.kind, key_str(value)?).is_some())
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
    prepared: &'p Prepared<'a>,
    kind: MapKind,
    /// The domain, `None` when the device has nothing in it (an empty map).
    domain: Option<&'a str>,
}

impl<'p, 'a> Inner<'p, 'a> {
    /// The domain's entries, from the grouped maps (built on first use: only iteration and
    /// `size()` need them).
    fn ids(&self) -> &'p [CelString<'a>] {
        let Some(domain) = self.domain else {
            return &[];
        };
        let domains = match self.kind {
            MapKind::Attributes => self.prepared.attributes(),
            MapKind::Capacity => self.prepared.capacity(),
        };
        domains.iter().find(|d| d.name.inner() == domain).map_or(&[], |d| d.ids.as_slice())
    }
}

map_proxy_val!(Inner);

impl<'p, 'a> Indexer for Inner<'p, 'a> {
    fn get<'b, 'v>(&'b self, idx: &dyn Val) -> Result<CowVal<'b, 'v>, ExecutionError>
    where
        Self: 'v,
    {
        let id = key_str(idx)?;
        self.domain.and_then(|d| self.prepared.lookup(self.kind, d, id)).ok_or_else(|| ExecutionError::no_such_key(id))
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
        Ok(self.domain.is_some_and(|d| self.prepared.lookup(self.kind, d, id).is_some()))
    }
}

impl Sizer for Inner<'_, '_> {
    fn size(&self) -> CelInt {
        CelInt::from(self.ids().len() as i64)
    }
}

struct IdIter<'b, 'a> {
    rest: std::slice::Iter<'b, CelString<'a>>,
}

impl<'b, 'a: 'v, 'v> CelIterator<'b, 'v> for IdIter<'b, 'a> {
    fn next(&mut self) -> Option<&'b (dyn Val + 'v)> {
        self.rest.next().map(|id| id as &dyn Val)
    }
}

impl<'p, 'a> Iterable for Inner<'p, 'a> {
    fn iter<'b, 'v>(&'b self) -> Box<dyn CelIterator<'b, 'v> + 'b>
    where
        Self: 'v,
    {
        Box::new(IdIter { rest: self.ids().iter() })
    }
}
