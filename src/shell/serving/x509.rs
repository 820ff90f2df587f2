//! The few X.509 fields the secure port reads from certificates that rustls/webpki already
//! parsed and (for clients) verified: the subject's common name and organisations
//! (`x509.CommonNameUserConversion`) and the DNS names a serving certificate is for (what
//! `--tls-sni-cert-key` uses when no names are given). A small DER walk over RFC 5280's
//! `Certificate` rather than a general X.509 parser.

/// The subject fields the authenticators read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Subject {
    pub common_name: String,
    pub organizations: Vec<String>,
}

/// One DER element: (tag, contents, rest).
fn der(input: &[u8]) -> Option<(u8, &[u8], &[u8])> {
    let (&tag, rest) = input.split_first()?;
    let (&first, rest) = rest.split_first()?;
    let (len, rest) = if first < 0x80 {
        (usize::from(first), rest)
    } else {
        let n = usize::from(first & 0x7f);
        if n == 0 || n > 4 || rest.len() < n {
            return None;
        }
        let len = rest[..n].iter().fold(0usize, |acc, b| (acc << 8) | usize::from(*b));
        (len, &rest[n..])
    };
    (rest.len() >= len).then(|| (tag, &rest[..len], &rest[len..]))
}

/// TBSCertificate's fields after the optional version: serialNumber, signature, issuer,
/// validity, subject, subjectPublicKeyInfo, then the optional [1], [2], [3] ones.
fn tbs_fields(cert: &[u8]) -> Option<Vec<(u8, &[u8])>> {
    let (_, certificate, _) = der(cert)?;
    let (_, mut tbs, _) = der(certificate)?;
    if tbs.first() == Some(&0xa0) {
        tbs = der(tbs)?.2;
    }
    let mut out = Vec::new();
    while !tbs.is_empty() {
        let (tag, contents, rest) = der(tbs)?;
        out.push((tag, contents));
        tbs = rest;
    }
    Some(out)
}

/// The subject's CN and O values.
pub fn subject(cert: &[u8]) -> Option<Subject> {
    let fields = tbs_fields(cert)?;
    let mut name = fields.get(4)?.1;
    let mut s = Subject { common_name: String::new(), organizations: Vec::new() };
    while !name.is_empty() {
        let (_, mut set, rest) = der(name)?;
        name = rest;
        while !set.is_empty() {
            let (_, atv, rest) = der(set)?;
            set = rest;
            let (_, oid, value) = der(atv)?;
            let (_, text, _) = der(value)?;
            let text = String::from_utf8_lossy(text).into_owned();
            match oid {
                [0x55, 0x04, 0x03] => s.common_name = text,
                [0x55, 0x04, 0x0a] => s.organizations.push(text),
                _ => {}
            }
        }
    }
    Some(s)
}

/// The names a serving certificate is for: its DNS and IP subject alternative names, or its
/// common name when it has none (`dynamiccertificates.getCertificateNames`).
pub fn names(cert: &[u8]) -> Vec<String> {
    let mut out = Vec::new();
    if let Some(fields) = tbs_fields(cert) {
        for (_, contents) in fields.iter().filter(|(t, _)| *t == 0xa3) {
            let Some((_, mut exts, _)) = der(contents) else { continue };
            while let Some((_, ext, rest)) = der(exts) {
                exts = rest;
                let Some((_, oid, mut rest)) = der(ext) else { continue };
                if oid != [0x55, 0x1d, 0x11] {
                    continue;
                }
                if rest.first() == Some(&0x01) {
                    rest = der(rest).map(|(_, _, r)| r).unwrap_or_default(); // critical
                }
                let Some((_, octets, _)) = der(rest) else { continue };
                let Some((_, mut general, _)) = der(octets) else { continue };
                while let Some((tag, value, rest)) = der(general) {
                    general = rest;
                    match (tag, value.len()) {
                        (0x82, _) => out.push(String::from_utf8_lossy(value).to_lowercase()),
                        (0x87, 4) => out.push(std::net::Ipv4Addr::new(value[0], value[1], value[2], value[3]).to_string()),
                        (0x87, 16) => {
                            let mut b = [0u8; 16];
                            b.copy_from_slice(value);
                            out.push(std::net::Ipv6Addr::from(b).to_string());
                        }
                        _ => {}
                    }
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
        let mut params = rcgen::CertificateParams::new(vec!["Example.COM".to_string(), "127.0.0.1".to_string()]).expect("params");
        params.distinguished_name.push(rcgen::DnType::CommonName, "ignored");
        let key = rcgen::KeyPair::generate().expect("key");
        let cert = params.self_signed(&key).expect("cert");
        assert_eq!(names(cert.der()), ["example.com", "127.0.0.1"]);
        let mut params = rcgen::CertificateParams::new(Vec::<String>::new()).expect("params");
        params.distinguished_name.push(rcgen::DnType::CommonName, "only-cn");
        let cert = params.self_signed(&key).expect("cert");
        assert_eq!(names(cert.der()), ["only-cn"]);
    }
}
