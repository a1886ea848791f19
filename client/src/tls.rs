//! The client's side of HTTPS: which CAs it trusts in place of the built-in
//! roots, the certificate it proves itself with (mutual TLS), and what a
//! failed handshake is called in an error a person can act on.

use a2a::rpc::CallError;
use std::path::{Path, PathBuf};

/// Files for HTTPS. Without any, the server's certificate must chain to the
/// built-in web roots and the client shows no certificate.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct TlsFiles {
    /// PEM certificates of the CAs the server's certificate must chain to,
    /// trusted instead of the built-in roots (as `curl --cacert` does).
    pub ca_file: Option<PathBuf>,
    /// PEM certificate chain the client proves itself with (leaf first);
    /// needs `client_key`.
    pub client_cert: Option<PathBuf>,
    /// PEM private key of `client_cert` (PKCS#8, PKCS#1 or SEC1).
    pub client_key: Option<PathBuf>,
    /// Accept any server certificate: no verification at all (development
    /// only; the CLI warns whenever it is set).
    pub insecure: bool,
}

fn read(what: &str, path: &Path) -> Result<Vec<u8>, CallError> {
    std::fs::read(path)
        .map_err(|e| CallError::Transport(format!("cannot read the {what} {}: {e}", path.display())))
}

/// `builder` trusting and showing what `files` name.
pub(crate) fn configure(
    builder: reqwest::ClientBuilder,
    files: &TlsFiles,
) -> Result<reqwest::ClientBuilder, CallError> {
    let mut builder = builder.use_rustls_tls();
    if files.insecure {
        builder = builder.danger_accept_invalid_certs(true);
    }
    if let Some(path) = &files.ca_file {
        let bytes = read("CA file", path)?;
        let certificates = reqwest::Certificate::from_pem_bundle(&bytes)
            .map_err(|e| CallError::Transport(format!("the CA file {}: {e}", path.display())))?;
        if certificates.is_empty() {
            return Err(CallError::Transport(format!(
                "the CA file {} holds no PEM certificate",
                path.display()
            )));
        }
        builder = builder.tls_built_in_root_certs(false);
        for certificate in certificates {
            builder = builder.add_root_certificate(certificate);
        }
    }
    match (&files.client_cert, &files.client_key) {
        (None, None) => {}
        (Some(cert), Some(key)) => {
            let mut pem = read("client certificate", cert)?;
            pem.push(b'\n');
            pem.extend(read("client key", key)?);
            let identity = reqwest::Identity::from_pem(&pem).map_err(|e| {
                CallError::Transport(format!(
                    "the client certificate {} with the key {}: {e}",
                    cert.display(),
                    key.display()
                ))
            })?;
            builder = builder.identity(identity);
        }
        _ => {
            return Err(CallError::Transport(
                "a client certificate needs its key, and a key its certificate".into(),
            ))
        }
    }
    Ok(builder)
}

/// What went wrong in the TLS handshake behind `error`, in words a person can
/// act on; `None` when it was no TLS failure or one these words do not cover.
pub(crate) fn handshake_failure(error: &(dyn std::error::Error + 'static)) -> Option<&'static str> {
    use rustls::{AlertDescription as Alert, CertificateError as Certificate, Error as Tls};
    let mut cause = Some(error);
    while let Some(error) = cause {
        if let Some(tls) = error.downcast_ref::<Tls>() {
            return Some(match tls {
                Tls::InvalidCertificate(Certificate::Expired | Certificate::ExpiredContext { .. }) => {
                    "the server's certificate has expired"
                }
                Tls::InvalidCertificate(
                    Certificate::NotValidYet | Certificate::NotValidYetContext { .. },
                ) => "the server's certificate is not valid yet",
                Tls::InvalidCertificate(Certificate::UnknownIssuer) => {
                    "the server's certificate is not issued by a trusted CA"
                }
                Tls::InvalidCertificate(
                    Certificate::NotValidForName | Certificate::NotValidForNameContext { .. },
                ) => "the server's certificate is not valid for the server's name",
                Tls::InvalidCertificate(Certificate::Revoked) => "the server's certificate is revoked",
                Tls::InvalidCertificate(_) => "the server's certificate is not valid",
                Tls::AlertReceived(Alert::CertificateRequired) => "the server requires a client certificate",
                Tls::AlertReceived(
                    Alert::BadCertificate
                    | Alert::UnknownCA
                    | Alert::CertificateExpired
                    | Alert::CertificateRevoked
                    | Alert::CertificateUnknown
                    | Alert::UnsupportedCertificate,
                ) => "the server refused the client certificate",
                _ => return None,
            });
        }
        // An I/O error's `source` is its inner error's source, not the
        // inner error (reqwest's rustls errors sit two I/O errors deep).
        cause = match error
            .downcast_ref::<std::io::Error>()
            .and_then(std::io::Error::get_ref)
        {
            Some(inner) => Some(inner as &(dyn std::error::Error + 'static)),
            None => error.source(),
        };
    }
    None
}
