//! Certificates the TLS tests make for themselves: a CA, server certificates
//! for the loopback address (valid, expired, or for another name), and client
//! certificates by common name, written as PEM files.

use rcgen::{
    date_time_ymd, BasicConstraints, CertificateParams, DnType, ExtendedKeyUsagePurpose, IsCa, Issuer,
    KeyPair, KeyUsagePurpose, SanType,
};
use std::path::{Path, PathBuf};

/// A certificate authority, its certificate written to `cert_file`.
pub struct Ca {
    issuer: Issuer<'static, KeyPair>,
    pub cert_file: PathBuf,
}

/// A certificate and its key, as PEM files.
pub struct Pair {
    pub cert_file: PathBuf,
    pub key_file: PathBuf,
}

/// How long, from now, a made certificate is valid.
pub enum Validity {
    Current,
    Expired,
}

impl Ca {
    /// A new CA named `name`, written under `dir`.
    pub fn new(dir: &Path, name: &str) -> Ca {
        let mut params = CertificateParams::new(Vec::<String>::new()).expect("CA params");
        params.distinguished_name.push(DnType::CommonName, name);
        params.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
        params.key_usages = vec![KeyUsagePurpose::KeyCertSign, KeyUsagePurpose::CrlSign];
        let key = KeyPair::generate().expect("CA key");
        let cert = params.self_signed(&key).expect("CA certificate");
        let cert_file = dir.join(format!("{name}.pem"));
        std::fs::write(&cert_file, cert.pem()).expect("CA file");
        Ca {
            issuer: Issuer::new(params, key),
            cert_file,
        }
    }

    /// A server certificate for `names` (IP addresses or DNS names), written
    /// under `dir` as `<file>.pem` and `<file>.key`.
    pub fn server(&self, dir: &Path, file: &str, names: &[&str], validity: Validity) -> Pair {
        let mut params = CertificateParams::new(Vec::<String>::new()).expect("server params");
        params.distinguished_name.push(DnType::CommonName, names[0]);
        params.subject_alt_names = names
            .iter()
            .map(|name| match name.parse() {
                Ok(ip) => SanType::IpAddress(ip),
                Err(_) => SanType::DnsName((*name).try_into().expect("DNS name")),
            })
            .collect();
        params.extended_key_usages = vec![ExtendedKeyUsagePurpose::ServerAuth];
        self.sign(params, dir, file, validity)
    }

    /// A client certificate whose common name is `name`.
    pub fn client(&self, dir: &Path, name: &str) -> Pair {
        let mut params = CertificateParams::new(Vec::<String>::new()).expect("client params");
        params.distinguished_name.push(DnType::CommonName, name);
        params.extended_key_usages = vec![ExtendedKeyUsagePurpose::ClientAuth];
        self.sign(params, dir, name, Validity::Current)
    }

    fn sign(&self, mut params: CertificateParams, dir: &Path, file: &str, validity: Validity) -> Pair {
        if let Validity::Expired = validity {
            params.not_before = date_time_ymd(2020, 1, 1);
            params.not_after = date_time_ymd(2021, 1, 1);
        }
        let key = KeyPair::generate().expect("key");
        let cert = params.signed_by(&key, &self.issuer).expect("certificate");
        let pair = Pair {
            cert_file: dir.join(format!("{file}.pem")),
            key_file: dir.join(format!("{file}.key")),
        };
        std::fs::write(&pair.cert_file, cert.pem()).expect("certificate file");
        std::fs::write(&pair.key_file, key.serialize_pem()).expect("key file");
        pair
    }
}

impl Pair {
    /// Puts this pair where `target`'s files are, each by an atomic rename,
    /// as a certificate rotation does.
    pub fn install_as(&self, target: &Pair) {
        for (from, to) in [
            (&self.key_file, &target.key_file),
            (&self.cert_file, &target.cert_file),
        ] {
            let staged = to.with_extension("staged");
            std::fs::copy(from, &staged).expect("staged copy");
            std::fs::rename(&staged, to).expect("rename into place");
        }
    }
}
