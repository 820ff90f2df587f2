//! The few X.509 fields the secure port reads from certificates that rustls/webpki already
//! parsed and (for clients) verified: the subject's common name and organisations
//! (`x509.CommonNameUserConversion`) and the DNS names a serving certificate is for (what
//! `--tls-sni-cert-key` uses when no names are given). The certificate is parsed by RustCrypto's
//! `x509-cert`; the attribute values of names are decoded here the way Go's `crypto/x509` does,
//! because that decides which user and groups a certificate stands for.
//!
//! Go (src/crypto/x509/parser.go `parseName` and `parseASN1String`, go1.25, the toolchain of
//! kube-scheduler v1.35) reads every attribute value of the subject and the issuer as one of six
//! string types and refuses the whole certificate when one is anything else or not valid for its
//! type:
//! - UTF8String: valid UTF-8;
//! - PrintableString: `A-Z a-z 0-9 ' ( ) + , - . / : = ?` and space, plus `*` and `&` (which
//!   Go allows because real certificates use them);
//! - IA5String: ASCII;
//! - NumericString: digits and space;
//! - T61String: each byte as the Latin-1 character of that value (what BoringSSL does too);
//! - BMPString: UTF-16 big-endian of an even length, one trailing NUL character dropped, no
//!   surrogates and no non-characters (U+FFFE, U+FFFF, U+FDD0–U+FDEF).
//!
//! UniversalString, VisibleString, GeneralString, BIT STRING values and the like make Go refuse the
//! certificate (Go's development tree after 1.26 reads them as non-string values and skips them).
//! Of the subject, the last common name counts and every organisation in order
//! (`pkix.Name.FillFromRDNSequence`).

use x509_cert::der::asn1::ObjectIdentifier;
use x509_cert::der::{Decode, Tag, Tagged};
use x509_cert::ext::pkix::name::GeneralName;
use x509_cert::ext::pkix::SubjectAltName;
use x509_cert::name::Name;
use x509_cert::Certificate;

/// The subject fields the authenticators read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Subject {
    pub common_name: String,
    pub organizations: Vec<String>,
}

/// The OIDs `FillFromRDNSequence` maps to the common name and organisation (2.5.4.3, 2.5.4.10).
const COMMON_NAME: ObjectIdentifier = ObjectIdentifier::new_unwrap("2.5.4.3");
const ORGANIZATION: ObjectIdentifier = ObjectIdentifier::new_unwrap("2.5.4.10");

/// Whether Go's `isPrintable` accepts the byte (PrintableString, with `*` and `&`).
fn is_printable(b: u8) -> bool {
    b.is_ascii_alphanumeric() || matches!(b, b' ' | b'\''..=b')' | b'+'..=b'/' | b':' | b'=' | b'?' | b'*' | b'&')
}

/// An attribute value as Go's `parseASN1String` reads it; `None` where Go refuses it.
pub fn directory_string(tag: Tag, value: &[u8]) -> Option<String> {
    match tag {
        Tag::Utf8String => std::str::from_utf8(value).ok().map(str::to_string),
        Tag::PrintableString => value.iter().all(|&b| is_printable(b)).then(|| value.iter().map(|&b| char::from(b)).collect()),
        Tag::Ia5String => value.is_ascii().then(|| value.iter().map(|&b| char::from(b)).collect()),
        Tag::NumericString => {
            value.iter().all(|&b| b.is_ascii_digit() || b == b' ').then(|| value.iter().map(|&b| char::from(b)).collect())
        }
        // Latin-1: each byte is the code point of its value.
        Tag::TeletexString => Some(value.iter().map(|&b| char::from(b)).collect()),
        Tag::BmpString => {
            if value.len() % 2 != 0 {
                return None;
            }
            let value = value.strip_suffix(&[0, 0]).unwrap_or(value);
            let units: Vec<u16> = value.chunks_exact(2).map(|p| u16::from_be_bytes([p[0], p[1]])).collect();
            let refused = |u: u16| matches!(u, 0xfffe | 0xffff | 0xfdd0..=0xfdef | 0xd800..=0xdfff);
            if units.iter().any(|&u| refused(u)) {
                return None;
            }
            // No surrogates, so every unit is a character of the Basic Multilingual Plane.
            char::decode_utf16(units).collect::<Result<String, _>>().ok()
        }
        _ => None,
    }
}

/// Every attribute of `name` decoded, in order: `None` if Go would refuse any of them.
fn attributes(name: &Name) -> Option<Vec<(ObjectIdentifier, String)>> {
    name.iter().map(|atv| Some((atv.oid, directory_string(atv.value.tag(), atv.value.value())?))).collect()
}

/// The subject's CN and O values; `None` when the certificate does not parse or Go would
/// refuse a value of its subject or issuer.
pub fn subject(cert: &[u8]) -> Option<Subject> {
    let cert = Certificate::from_der(cert).ok()?;
    let tbs = cert.tbs_certificate();
    attributes(tbs.issuer())?;
    let mut s = Subject { common_name: String::new(), organizations: Vec::new() };
    for (oid, text) in attributes(tbs.subject())? {
        if oid == COMMON_NAME {
            s.common_name = text;
        } else if oid == ORGANIZATION {
            s.organizations.push(text);
        }
    }
    Some(s)
}

/// The names a serving certificate is for: its DNS and IP subject alternative names, or its
/// common name when it has none (`dynamiccertificates.getCertificateNames`).
pub fn names(cert: &[u8]) -> Vec<String> {
    let mut out = Vec::new();
    if let Ok(parsed) = Certificate::from_der(cert) {
        if let Ok(Some((_, san))) = parsed.tbs_certificate().get_extension::<SubjectAltName>() {
            for name in san.0 {
                match name {
                    GeneralName::DnsName(dns) => out.push(dns.as_str().to_lowercase()),
                    GeneralName::IpAddress(ip) => match ip.as_bytes().len() {
                        4 | 16 => out.push(ip_text(ip.as_bytes())),
                        _ => {}
                    },
                    _ => {}
                }
            }
        }
    }
    if out.is_empty() {
        if let Some(s) = subject(cert).filter(|s| !s.common_name.is_empty()) {
            out.push(s.common_name.to_lowercase());
        }
    }
    out
}

/// An IPv4 (4 bytes) or IPv6 (16 bytes) address as text.
fn ip_text(b: &[u8]) -> String {
    match <[u8; 4]>::try_from(b) {
        Ok(v4) => std::net::Ipv4Addr::from(v4).to_string(),
        Err(_) => <[u8; 16]>::try_from(b).map(|v6| std::net::Ipv6Addr::from(v6).to_string()).unwrap_or_default(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn subjects_are_read_from_der() {
        let mut params = rcgen::CertificateParams::new(vec!["x".to_string()]).expect("params");
        params.distinguished_name.push(rcgen::DnType::CommonName, "system:kube-scheduler");
        params.distinguished_name.push(rcgen::DnType::OrganizationName, "system:masters");
        let key = rcgen::KeyPair::generate().expect("key");
        let cert = params.self_signed(&key).expect("cert");
        let s = subject(cert.der()).expect("subject");
        assert_eq!(s.common_name, "system:kube-scheduler");
        assert_eq!(s.organizations, ["system:masters"]);
        assert_eq!(subject(b"\x30\x03\x02\x01"), None);
    }

    #[test]
    fn serving_names_are_the_alternative_names() {
        let mut params =
            rcgen::CertificateParams::new(vec!["Example.COM".to_string(), "127.0.0.1".to_string(), "::1".to_string()])
                .expect("params");
        params.distinguished_name.push(rcgen::DnType::CommonName, "ignored");
        let key = rcgen::KeyPair::generate().expect("key");
        let cert = params.self_signed(&key).expect("cert");
        assert_eq!(names(cert.der()), ["example.com", "127.0.0.1", "::1"]);
        let mut params = rcgen::CertificateParams::new(Vec::<String>::new()).expect("params");
        params.distinguished_name.push(rcgen::DnType::CommonName, "only-cn");
        let cert = params.self_signed(&key).expect("cert");
        assert_eq!(names(cert.der()), ["only-cn"]);
    }

    /// A self-signed certificate whose subject (and so issuer) has these attributes, in order.
    fn certificate(attributes: Vec<(rcgen::DnType, rcgen::DnValue)>) -> Vec<u8> {
        let mut params = rcgen::CertificateParams::new(vec!["x".to_string()]).expect("params");
        params.distinguished_name = rcgen::DistinguishedName::new();
        for (t, v) in attributes {
            params.distinguished_name.push(t, v);
        }
        let key = rcgen::KeyPair::generate().expect("key");
        params.self_signed(&key).expect("cert").der().to_vec()
    }

    /// Give every string element `value` (tagged `from`) the tag `to` instead: string types rcgen
    /// does not write, and values invalid for their type.
    fn retag(mut der: Vec<u8>, from: u8, value: &[u8], to: u8) -> Vec<u8> {
        let mut pattern = vec![from, value.len() as u8];
        pattern.extend_from_slice(value);
        let mut i = 0;
        while let Some(at) = der[i..].windows(pattern.len()).position(|w| w == pattern.as_slice()) {
            der[i + at] = to;
            i += at + 1;
        }
        assert!(i > 0, "{value:?} found");
        der
    }

    /// The subject as x509-parser (a second, independent X.509 parser) reads it: the last
    /// common name and every organisation, for the types it decodes (UTF8String,
    /// PrintableString, IA5String, NumericString).
    fn x509_parser_subject(der: &[u8]) -> Option<Subject> {
        let (_, cert) = x509_parser::parse_x509_certificate(der).ok()?;
        let text = |a: &x509_parser::x509::AttributeTypeAndValue<'_>| a.as_str().ok().map(str::to_string);
        let common_name = cert.subject().iter_common_name().last().map(text).unwrap_or(Some(String::new()))?;
        let organizations = cert.subject().iter_organization().map(text).collect::<Option<Vec<_>>>()?;
        Some(Subject { common_name, organizations })
    }

    /// Client-certificate identities in every string type: generated by rcgen (BMPString,
    /// IA5String, PrintableString, TeletexString, UniversalString, UTF8String), NumericString
    /// and invalid values by retagging; each read by `subject` and compared with what was
    /// written and with x509-parser where it decodes the type.
    #[test]
    fn identities_in_every_string_type_read_as_go_reads_them() {
        use rcgen::string::{BmpString, Ia5String, PrintableString, TeletexString, UniversalString};
        use rcgen::{DnType::CommonName as Cn, DnType::OrganizationName as O, DnValue as V};
        let printable = |s: &str| V::PrintableString(PrintableString::try_from(s).expect("printable"));
        let bmp = |s: &str| V::BmpString(BmpString::try_from(s).expect("bmp"));
        let subject_of =
            |cn: &str, o: &[&str]| Subject { common_name: cn.into(), organizations: o.iter().map(|s| s.to_string()).collect() };
        // (attributes, what Go makes of them, whether x509-parser decodes every value)
        type Attributes = Vec<(rcgen::DnType, V)>;
        let cases: Vec<(Attributes, Option<Subject>, bool)> = vec![
            (
                vec![(Cn, V::Utf8String("Łódź user".into())), (O, V::Utf8String("grüne".into()))],
                Some(subject_of("Łódź user", &["grüne"])),
                true,
            ),
            (
                vec![(Cn, printable("system:node:edge-1")), (O, printable("system:nodes"))],
                Some(subject_of("system:node:edge-1", &["system:nodes"])),
                true,
            ),
            (
                vec![(Cn, V::Ia5String(Ia5String::try_from("jane@example.com").expect("ia5")))],
                Some(subject_of("jane@example.com", &[])),
                true,
            ),
            (
                vec![(Cn, V::TeletexString(TeletexString::try_from("legacy-user").expect("t61")))],
                Some(subject_of("legacy-user", &[])),
                false,
            ),
            (vec![(Cn, bmp("Jö氷")), (O, bmp("グループ"))], Some(subject_of("Jö氷", &["グループ"])), false),
            // The last common name counts; organisations in order, whatever their types (rcgen
            // keeps one value per attribute type, so the second of each comes as a custom type
            // with the same OID).
            (
                vec![
                    (Cn, V::Utf8String("first".into())),
                    (O, V::Utf8String("a".into())),
                    (rcgen::DnType::CustomDnType(vec![2, 5, 4, 3]), printable("second")),
                    (rcgen::DnType::CustomDnType(vec![2, 5, 4, 10]), bmp("b")),
                ],
                Some(subject_of("second", &["a", "b"])),
                false,
            ),
            (
                vec![(Cn, V::Utf8String("first".into())), (rcgen::DnType::CustomDnType(vec![2, 5, 4, 3]), printable("second"))],
                Some(subject_of("second", &[])),
                true,
            ),
            (vec![(O, V::Utf8String("system:masters".into()))], Some(subject_of("", &["system:masters"])), true),
            // UniversalString: Go (1.25) refuses the certificate.
            (vec![(Cn, V::UniversalString(UniversalString::try_from("u").expect("universal")))], None, false),
        ];
        for (attributes, want, parser_decodes) in cases {
            let der = certificate(attributes.clone());
            assert_eq!(subject(&der), want, "{attributes:?}");
            if parser_decodes {
                assert_eq!(x509_parser_subject(&der), want, "x509-parser on {attributes:?}");
            }
        }

        // NumericString (rcgen writes none): digits and spaces.
        let der = retag(certificate(vec![(Cn, printable("0123 45"))]), 0x13, b"0123 45", 0x12);
        assert_eq!(subject(&der), Some(subject_of("0123 45", &[])));
        assert_eq!(x509_parser_subject(&der), Some(subject_of("0123 45", &[])));
        // Values their type does not allow: Go refuses the certificate, so there is no identity
        // (x509-parser does not check PrintableString's characters).
        let der = retag(certificate(vec![(Cn, V::Utf8String("a@b".into()))]), 0x0c, b"a@b", 0x13);
        assert_eq!(subject(&der), None);
        assert_eq!(x509_parser_subject(&der), Some(subject_of("a@b", &[])));
        let der = retag(certificate(vec![(Cn, V::Utf8String("12a".into()))]), 0x0c, b"12a", 0x12);
        assert_eq!(subject(&der), None);
        let der = retag(certificate(vec![(Cn, V::Utf8String("caf\u{e9}".into()))]), 0x0c, "caf\u{e9}".as_bytes(), 0x16);
        assert_eq!(subject(&der), None, "IA5String is ASCII");
        // T61String bytes are Latin-1: the UTF-8 of "é" (c3 a9) reads as "Ã©", as in Go.
        let der = retag(certificate(vec![(Cn, V::Utf8String("caf\u{e9}".into()))]), 0x0c, "caf\u{e9}".as_bytes(), 0x14);
        assert_eq!(subject(&der), Some(subject_of("caf\u{c3}\u{a9}", &[])));
    }

    /// Go's `parseASN1String` per string type (go1.25 src/crypto/x509/parser.go), and
    /// encoding/asn1's own cases for the same types (src/encoding/asn1/asn1_test.go
    /// `TestPrintableString`-style inputs).
    #[test]
    fn each_string_type_decodes_as_go_decodes_it() {
        let ok = |tag, v: &[u8], want: &str| assert_eq!(directory_string(tag, v).as_deref(), Some(want), "{tag:?} {v:x?}");
        let refused = |tag, v: &[u8]| assert_eq!(directory_string(tag, v), None, "{tag:?} {v:x?}");
        ok(Tag::Utf8String, "Łódź ☃".as_bytes(), "Łódź ☃");
        refused(Tag::Utf8String, b"\xff\xfe");
        refused(Tag::Utf8String, b"\xc3");
        ok(
            Tag::PrintableString,
            b"Test O'Reilly (1) +,-./:=? *.example.com & co",
            "Test O'Reilly (1) +,-./:=? *.example.com & co",
        );
        for bad in [b"a@b".as_slice(), b"a_b", b"a!b", b"a\"b", b"a;b", b"a<b", b"a\x00", b"\xe9"] {
            refused(Tag::PrintableString, bad);
        }
        ok(Tag::Ia5String, b"user@example.com ~!", "user@example.com ~!");
        refused(Tag::Ia5String, b"caf\xc3\xa9");
        ok(Tag::NumericString, b"0123 456", "0123 456");
        refused(Tag::NumericString, b"12a");
        // T61String: Latin-1 (0xe9 is é, 0xa3 is £), never refused.
        ok(Tag::TeletexString, b"caf\xe9 \xa3", "café £");
        // BMPString: UTF-16BE; a trailing NUL pair dropped; odd lengths, surrogates and
        // non-characters refused.
        ok(Tag::BmpString, &[0x00, 0x4a, 0x00, 0xf6, 0x6c, 0x37], "Jö氷");
        ok(Tag::BmpString, &[0x00, 0x61, 0x00, 0x00], "a");
        ok(Tag::BmpString, &[], "");
        refused(Tag::BmpString, &[0x00, 0x61, 0x00]);
        refused(Tag::BmpString, &[0xd8, 0x3d, 0xde, 0x00]);
        refused(Tag::BmpString, &[0xff, 0xfe]);
        refused(Tag::BmpString, &[0xff, 0xff]);
        refused(Tag::BmpString, &[0xfd, 0xd0]);
        refused(Tag::BmpString, &[0xfd, 0xef]);
        ok(Tag::BmpString, &[0xfd, 0xf0], "\u{fdf0}");
        // Types Go's go1.25 parser does not read: the certificate is refused.
        refused(Tag::VisibleString, b"a");
        refused(Tag::GeneralString, b"a");
        refused(Tag::BitString, &[0, 1]);
    }
}
