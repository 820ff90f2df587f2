//! Throwaway PKI generated at test time: a CA, a server certificate for 127.0.0.1/localhost and
//! client certificates whose CN/O carry a Kubernetes user and groups, exactly as kubeadm issues
//! them (`kubernetes/apiserver` `pkg/authentication/request/x509/x509.go`: CN = user, O = groups).

use rcgen::{BasicConstraints, CertificateParams, DnType, ExtendedKeyUsagePurpose, IsCa, Issuer, KeyPair, KeyUsagePurpose};

/// Object identifier of X.520 `organizationName` (2.5.4.10), used for a second group because
/// rcgen keeps one value per attribute type.
const OID_ORGANIZATION: [u64; 4] = [2, 5, 4, 10];

/// A certificate authority able to sign server and client certificates.
pub struct TestCa {
    issuer: Issuer<'static, KeyPair>,
    ca_pem: String,
    ca_der: Vec<u8>,
}

/// A certificate with its private key, in both encodings.
pub struct IssuedCert {
    /// PEM `CERTIFICATE`.
    pub cert_pem: String,
    /// PEM PKCS#8 `PRIVATE KEY`.
    pub key_pem: String,
    /// DER certificate.
    pub cert_der: Vec<u8>,
    /// DER PKCS#8 private key.
    pub key_der: Vec<u8>,
}

impl TestCa {
    /// A new self-signed CA with a random key.
    pub fn new() -> TestCa {
        let key = KeyPair::generate().unwrap();
        let mut params = CertificateParams::new(Vec::<String>::new()).unwrap();
        params.distinguished_name.push(DnType::CommonName, "edgesched-test-ca");
        params.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
        params.key_usages = vec![KeyUsagePurpose::KeyCertSign, KeyUsagePurpose::CrlSign, KeyUsagePurpose::DigitalSignature];
        let cert = params.self_signed(&key).unwrap();
        TestCa { ca_pem: cert.pem(), ca_der: cert.der().to_vec(), issuer: Issuer::new(params, key) }
    }

    /// The CA certificate (PEM), for kubeconfig `certificate-authority-data`.
    pub fn ca_pem(&self) -> &str {
        &self.ca_pem
    }

    /// The CA certificate (DER), for the server's client-certificate verifier.
    pub fn ca_der(&self) -> &[u8] {
        &self.ca_der
    }

    /// A serving certificate valid for `127.0.0.1` and `localhost`.
    pub fn issue_server_cert(&self) -> IssuedCert {
        self.issue_server_cert_for(&["127.0.0.1", "localhost"])
    }

    /// A serving certificate valid for `names` only (DNS names or IP addresses).
    pub fn issue_server_cert_for(&self, names: &[&str]) -> IssuedCert {
        let mut params = CertificateParams::new(names.iter().map(|n| n.to_string()).collect::<Vec<_>>()).unwrap();
        params.distinguished_name.push(DnType::CommonName, "kube-apiserver");
        params.extended_key_usages = vec![ExtendedKeyUsagePurpose::ServerAuth];
        params.key_usages = vec![KeyUsagePurpose::DigitalSignature, KeyUsagePurpose::KeyEncipherment];
        self.sign(params)
    }

    /// A client certificate for `user` (CN) in `groups` (O). At most two groups fit (see
    /// [`OID_ORGANIZATION`]); tests needing more should use a bearer token.
    pub fn issue_client_cert(&self, user: &str, groups: &[&str]) -> IssuedCert {
        assert!(groups.len() <= 2, "client certificates carry at most two groups; use a token for more");
        let mut params = CertificateParams::new(Vec::<String>::new()).unwrap();
        params.distinguished_name.push(DnType::CommonName, user);
        if let Some(first) = groups.first() {
            params.distinguished_name.push(DnType::OrganizationName, *first);
        }
        if let Some(second) = groups.get(1) {
            params.distinguished_name.push(DnType::CustomDnType(OID_ORGANIZATION.to_vec()), *second);
        }
        params.extended_key_usages = vec![ExtendedKeyUsagePurpose::ClientAuth];
        params.key_usages = vec![KeyUsagePurpose::DigitalSignature, KeyUsagePurpose::KeyEncipherment];
        self.sign(params)
    }

    fn sign(&self, params: CertificateParams) -> IssuedCert {
        let key = KeyPair::generate().unwrap();
        let cert = params.signed_by(&key, &self.issuer).unwrap();
        IssuedCert {
            cert_pem: cert.pem(),
            key_pem: key.serialize_pem(),
            cert_der: cert.der().to_vec(),
            key_der: key.serialize_der(),
        }
    }
}

impl Default for TestCa {
    fn default() -> TestCa {
        TestCa::new()
    }
}
