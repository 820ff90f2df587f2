//! library.IP and library.CIDR (`staging/src/k8s.io/apiserver/pkg/cel/library/ip.go`,
//! `cidr.go`, v1.35): `ip("10.0.0.1")`, `isIP`, `ip.isCanonical`, `family`, the address class
//! tests, `string(ip)`; `cidr("10.0.0.0/8")`, `isCIDR`, `containsIP`, `containsCIDR`, `ip()`,
//! `masked()`, `prefixLength()`, `string(cidr)`. Addresses follow Go's `net/netip`: zones and
//! IPv4-mapped IPv6 addresses are refused as upstream refuses them, and `string()` is netip's
//! canonical form (RFC 5952 for IPv6, which `std::net` prints too).

use std::any::Any;
use std::net::IpAddr;

use cel::common::types::{CelBool, CelInt, CelString, Type};
use cel::common::value::{StaticVal, Val};
use cel::{DeclarationError, Env, ExecutionError};

use super::fail;

/// `net.IP`, upstream's (legacy) type name.
pub static IP_TYPE: Type = Type::new_unspecified_type("net.IP");
/// `net.CIDR`.
pub static CIDR_TYPE: Type = Type::new_unspecified_type("net.CIDR");

/// An IP address value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Ip(IpAddr);

/// A CIDR value: an address and a prefix length (not necessarily masked, as netip keeps it).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Cidr {
    addr: IpAddr,
    bits: u8,
}

impl Val for Ip {
    fn get_type(&self) -> &Type {
        &IP_TYPE
    }
    fn cel_type() -> &'static Type {
        &IP_TYPE
    }
    fn equals(&self, other: &dyn Val) -> bool {
        other.downcast_ref::<Ip>().is_some_and(|o| o == self)
    }
    fn clone_as_boxed<'v>(&self) -> Box<dyn Val + 'v> {
        Box::new(*self)
    }
    fn as_any(&self) -> Option<&dyn Any> {
        Some(self)
    }
}

impl StaticVal for Ip {}

impl Val for Cidr {
    fn get_type(&self) -> &Type {
        &CIDR_TYPE
    }
    fn cel_type() -> &'static Type {
        &CIDR_TYPE
    }
    fn equals(&self, other: &dyn Val) -> bool {
        other.downcast_ref::<Cidr>().is_some_and(|o| o == self)
    }
    fn clone_as_boxed<'v>(&self) -> Box<dyn Val + 'v> {
        Box::new(*self)
    }
    fn as_any(&self) -> Option<&dyn Any> {
        Some(self)
    }
}

impl StaticVal for Cidr {}

/// Registers both libraries.
pub fn register(env: &mut Env) -> Result<(), DeclarationError> {
    cel::add_overload!(env, fn string_to_ip: (CelString) -> Result<Ip>, name = "ip")?;
    cel::add_overload!(env, fn is_ip: (CelString) -> CelBool, name = "isIP")?;
    cel::add_overload!(env, fn ip_is_canonical: (CelString) -> Result<CelBool>, name = "ip.isCanonical")?;
    cel::add_overload!(env, fn ip_to_string: (Ip) -> CelString, name = "string")?;
    cel::add_member_overload!(env, fn ip_family: (Ip) -> CelInt, name = "family")?;
    cel::add_member_overload!(env, fn ip_is_unspecified: (Ip) -> CelBool, name = "isUnspecified")?;
    cel::add_member_overload!(env, fn ip_is_loopback: (Ip) -> CelBool, name = "isLoopback")?;
    cel::add_member_overload!(env, fn ip_is_link_local_multicast: (Ip) -> CelBool, name = "isLinkLocalMulticast")?;
    cel::add_member_overload!(env, fn ip_is_link_local_unicast: (Ip) -> CelBool, name = "isLinkLocalUnicast")?;
    cel::add_member_overload!(env, fn ip_is_global_unicast: (Ip) -> CelBool, name = "isGlobalUnicast")?;
    cel::add_overload!(env, fn string_to_cidr: (CelString) -> Result<Cidr>, name = "cidr")?;
    cel::add_overload!(env, fn is_cidr: (CelString) -> CelBool, name = "isCIDR")?;
    cel::add_overload!(env, fn cidr_to_string: (Cidr) -> CelString, name = "string")?;
    cel::add_member_overload!(env, fn cidr_contains_ip: (Cidr, Ip) -> CelBool, name = "containsIP")?;
    cel::add_member_overload!(env, fn cidr_contains_ip_string: (Cidr, CelString) -> Result<CelBool>, name = "containsIP")?;
    cel::add_member_overload!(env, fn cidr_contains_cidr: (Cidr, Cidr) -> CelBool, name = "containsCIDR")?;
    cel::add_member_overload!(env, fn cidr_contains_cidr_string: (Cidr, CelString) -> Result<CelBool>, name = "containsCIDR")?;
    cel::add_member_overload!(env, fn cidr_ip: (Cidr) -> Ip, name = "ip")?;
    cel::add_member_overload!(env, fn cidr_masked: (Cidr) -> Cidr, name = "masked")?;
    cel::add_member_overload!(env, fn cidr_prefix_length: (Cidr) -> CelInt, name = "prefixLength")?;
    Ok(())
}

/// `parseIPAddr` (ip.go): netip's parse, then no zone and no IPv4-mapped IPv6.
fn parse_ip(raw: &str) -> Result<IpAddr, String> {
    if raw.contains('%') {
        return Err(format!("IP address {raw:?} with zone value is not allowed"));
    }
    let addr: IpAddr = raw.parse().map_err(|_| {
        format!("IP Address {raw:?} parse error during conversion from string: ParseAddr({raw:?}): unable to parse IP")
    })?;
    if let IpAddr::V6(v6) = addr {
        if v6.to_ipv4_mapped().is_some() {
            return Err(format!("IPv4-mapped IPv6 address {raw:?} is not allowed"));
        }
    }
    Ok(addr)
}

/// `parseCIDR` (cidr.go): netip's `ParsePrefix`, with the same refusals.
fn parse_cidr(raw: &str) -> Result<Cidr, String> {
    let bad =
        || format!("network address {raw:?} parse error during conversion from string: netip.ParsePrefix({raw:?}): bad prefix");
    let (addr, bits) = raw.split_once('/').ok_or_else(bad)?;
    if addr.contains('%') {
        return Err(format!("CIDR {raw:?} with zone value is not allowed"));
    }
    let addr: IpAddr = addr.parse().map_err(|_| bad())?;
    if let IpAddr::V6(v6) = addr {
        if v6.to_ipv4_mapped().is_some() {
            return Err(format!("IPv4-mapped IPv6 address {raw:?} is not allowed"));
        }
    }
    // netip accepts only plain decimal bits without a sign or leading zeros.
    if bits.is_empty() || !bits.bytes().all(|b| b.is_ascii_digit()) || (bits.len() > 1 && bits.starts_with('0')) {
        return Err(bad());
    }
    let bits: u8 = bits.parse().map_err(|_| bad())?;
    let max = if addr.is_ipv4() { 32 } else { 128 };
    if bits > max {
        return Err(bad());
    }
    Ok(Cidr { addr, bits })
}

fn string_to_ip(s: &CelString) -> Result<Ip, ExecutionError> {
    parse_ip(s.inner()).map(Ip).map_err(|e| fail("ip", e))
}

fn is_ip(s: &CelString) -> CelBool {
    CelBool::from(parse_ip(s.inner()).is_ok())
}

fn ip_is_canonical(s: &CelString) -> Result<CelBool, ExecutionError> {
    let addr = parse_ip(s.inner()).map_err(|e| fail("ip.isCanonical", e))?;
    Ok(CelBool::from(addr.to_string() == s.inner()))
}

fn ip_to_string(ip: &Ip) -> CelString<'static> {
    CelString::from(ip.0.to_string())
}

fn ip_family(ip: &Ip) -> CelInt {
    CelInt::from(if ip.0.is_ipv4() { 4 } else { 6 })
}

fn ip_is_unspecified(ip: &Ip) -> CelBool {
    CelBool::from(ip.0.is_unspecified())
}

fn ip_is_loopback(ip: &Ip) -> CelBool {
    CelBool::from(ip.0.is_loopback())
}

/// netip: 224.0.0.0/24 and ff02::/16.
fn is_link_local_multicast(addr: IpAddr) -> bool {
    match addr {
        IpAddr::V4(v4) => v4.octets()[..3] == [224, 0, 0],
        IpAddr::V6(v6) => v6.segments()[0] == 0xff02,
    }
}

/// netip: 169.254.0.0/16 and fe80::/10.
fn is_link_local_unicast(addr: IpAddr) -> bool {
    match addr {
        IpAddr::V4(v4) => v4.octets()[..2] == [169, 254],
        IpAddr::V6(v6) => v6.segments()[0] & 0xffc0 == 0xfe80,
    }
}

fn ip_is_link_local_multicast(ip: &Ip) -> CelBool {
    CelBool::from(is_link_local_multicast(ip.0))
}

fn ip_is_link_local_unicast(ip: &Ip) -> CelBool {
    CelBool::from(is_link_local_unicast(ip.0))
}

/// netip's `IsGlobalUnicast`: not unspecified, loopback, multicast, link-local unicast or the
/// IPv4 broadcast address (private ranges count as global).
fn ip_is_global_unicast(ip: &Ip) -> CelBool {
    let a = ip.0;
    let broadcast = matches!(a, IpAddr::V4(v4) if v4.is_broadcast());
    CelBool::from(!(a.is_unspecified() || a.is_loopback() || a.is_multicast() || is_link_local_unicast(a) || broadcast))
}

fn string_to_cidr(s: &CelString) -> Result<Cidr, ExecutionError> {
    parse_cidr(s.inner()).map_err(|e| fail("cidr", e))
}

fn is_cidr(s: &CelString) -> CelBool {
    CelBool::from(parse_cidr(s.inner()).is_ok())
}

fn cidr_to_string(c: &Cidr) -> CelString<'static> {
    CelString::from(format!("{}/{}", c.addr, c.bits))
}

/// The first `bits` bits of `addr`, the rest zero.
fn mask(addr: IpAddr, bits: u8) -> IpAddr {
    match addr {
        IpAddr::V4(v4) => {
            let m = if bits == 0 { 0 } else { u32::MAX << (32 - u32::from(bits)) };
            IpAddr::V4((u32::from(v4) & m).into())
        }
        IpAddr::V6(v6) => {
            let m = if bits == 0 { 0 } else { u128::MAX << (128 - u32::from(bits)) };
            IpAddr::V6((u128::from(v6) & m).into())
        }
    }
}

fn contains(c: &Cidr, addr: IpAddr) -> bool {
    c.addr.is_ipv4() == addr.is_ipv4() && mask(addr, c.bits) == mask(c.addr, c.bits)
}

fn cidr_contains_ip(c: &Cidr, ip: &Ip) -> CelBool {
    CelBool::from(contains(c, ip.0))
}

fn cidr_contains_ip_string(c: &Cidr, s: &CelString) -> Result<CelBool, ExecutionError> {
    let addr = parse_ip(s.inner()).map_err(|e| fail("containsIP", e))?;
    Ok(CelBool::from(contains(c, addr)))
}

fn cidr_contains_cidr(c: &Cidr, other: &Cidr) -> CelBool {
    CelBool::from(c.bits <= other.bits && contains(c, other.addr))
}

fn cidr_contains_cidr_string(c: &Cidr, s: &CelString) -> Result<CelBool, ExecutionError> {
    let other = parse_cidr(s.inner()).map_err(|e| fail("containsCIDR", e))?;
    Ok(CelBool::from(c.bits <= other.bits && contains(c, other.addr)))
}

fn cidr_ip(c: &Cidr) -> Ip {
    Ip(c.addr)
}

fn cidr_masked(c: &Cidr) -> Cidr {
    Cidr { addr: mask(c.addr, c.bits), bits: c.bits }
}

fn cidr_prefix_length(c: &Cidr) -> CelInt {
    CelInt::from(i64::from(c.bits))
}
