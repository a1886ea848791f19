//! TLS on the HTTP listener, with rustls: TLS 1.3 and 1.2 with the ring
//! provider's suites (every one AEAD with forward secrecy), ALPN `h2` and
//! `http/1.1`, the certificate and key re-read when their files change, and,
//! with `auth.mtls`, client certificates checked against a CA and named for
//! authentication.
//!
//! The files are looked at (their size, modification time and inode) at every
//! handshake, so a rotated certificate serves from the next connection on,
//! without a restart or a signal; open connections keep the one they began
//! with. A pair that does not load (a half-written file, a key that does not
//! match its certificate) leaves the previous pair serving, with a warning.

use crate::auth::ClientCertificate;
use crate::config::{CertificateName, MtlsConfig, TlsConfig};
use crate::error::ServerError;
use rustls::crypto::CryptoProvider;
use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, PrivateKeyDer};
use rustls::server::{ClientHello, ResolvesServerCert, WebPkiClientVerifier};
use rustls::sign::CertifiedKey;
use rustls::RootCertStore;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::{Duration, SystemTime};
use tokio::net::TcpStream;
use tokio_rustls::server::TlsStream;

/// ALPN protocol ids, most preferred first: HTTP/2 (which gRPC needs), then
/// HTTP/1.1.
const ALPN_H2: &[u8] = b"h2";
const ALPN_HTTP1: &[u8] = b"http/1.1";

/// What accepts TLS connections for the listener. Built once at start.
pub(crate) struct Tls {
    acceptor: tokio_rustls::TlsAcceptor,
    /// Which name of a client certificate is its subject, with `auth.mtls`.
    client_names: Option<CertificateName>,
}

/// A connection whose handshake finished.
pub(crate) struct Accepted {
    /// The decrypted stream.
    pub stream: TlsStream<TcpStream>,
    /// The client chose HTTP/2 by ALPN.
    pub h2: bool,
    /// The client's certificate, verified against the CA, when it gave one.
    pub client: Option<ClientCertificate>,
}

impl Tls {
    /// Loads the certificate, its key and the client CA, or says which file
    /// is wrong and how.
    pub(crate) fn from_config(tls: &TlsConfig, mtls: Option<&MtlsConfig>) -> Result<Tls, ServerError> {
        let provider = Arc::new(rustls::crypto::ring::default_provider());
        let certificate = ReloadingCertificate::load(&tls.cert_file, &tls.key_file, provider.clone())?;
        let builder = rustls::ServerConfig::builder_with_provider(provider.clone())
            .with_protocol_versions(&[&rustls::version::TLS13, &rustls::version::TLS12])
            .map_err(|e| ServerError::Tls(format!("protocol versions: {e}")))?;
        let builder = match mtls {
            None => builder.with_no_client_auth(),
            Some(mtls) => {
                let roots = load_roots(&mtls.ca_file)?;
                // A client without a certificate still completes the
                // handshake: the card is public, and other schemes may admit
                // it; a request that needs a principal is then answered 401.
                let verifier = WebPkiClientVerifier::builder_with_provider(Arc::new(roots), provider)
                    .allow_unauthenticated()
                    .build()
                    .map_err(|e| ca_file_error(&mtls.ca_file, e))?;
                builder.with_client_cert_verifier(verifier)
            }
        };
        let mut config = builder.with_cert_resolver(Arc::new(certificate));
        config.alpn_protocols = vec![ALPN_H2.to_vec(), ALPN_HTTP1.to_vec()];
        Ok(Tls {
            acceptor: tokio_rustls::TlsAcceptor::from(Arc::new(config)),
            client_names: mtls.map(|m| m.subject_from),
        })
    }

    /// The handshake on `tcp`, bounded by `within` as a request head is: a
    /// client that never finishes it is disconnected.
    pub(crate) async fn accept(&self, tcp: TcpStream, within: Duration) -> std::io::Result<Accepted> {
        let stream = tokio::time::timeout(within, self.acceptor.accept(tcp))
            .await
            .map_err(|_| std::io::Error::new(std::io::ErrorKind::TimedOut, "TLS handshake timed out"))??;
        let (_, session) = stream.get_ref();
        let h2 = session.alpn_protocol() == Some(ALPN_H2);
        let client = match (self.client_names, session.peer_certificates()) {
            (Some(names), Some([leaf, ..])) => Some(ClientCertificate::named(names, leaf)),
            _ => None,
        };
        Ok(Accepted { stream, h2, client })
    }
}

/// The client CAs of `auth.mtls.ca_file`.
fn load_roots(path: &Path) -> Result<RootCertStore, ServerError> {
    let bytes = std::fs::read(path)
        .map_err(|e| ServerError::Tls(format!("cannot read auth.mtls.ca_file {}: {e}", path.display())))?;
    let mut roots = RootCertStore::empty();
    for certificate in CertificateDer::pem_slice_iter(&bytes) {
        roots
            .add(certificate.map_err(|e| ca_file_error(path, e))?)
            .map_err(|e| ca_file_error(path, e))?;
    }
    if roots.is_empty() {
        return Err(ca_file_error(path, "holds no PEM certificate"));
    }
    Ok(roots)
}

/// What is wrong with `auth.mtls.ca_file`.
fn ca_file_error(path: &Path, reason: impl std::fmt::Display) -> ServerError {
    ServerError::Tls(format!("auth.mtls.ca_file {}: {reason}", path.display()))
}

/// What tells a file's content changed without reading it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Stamp {
    modified: Option<SystemTime>,
    len: u64,
    inode: u64,
}

impl Stamp {
    fn of(path: &Path) -> Option<Stamp> {
        let metadata = std::fs::metadata(path).ok()?;
        Some(Stamp {
            modified: metadata.modified().ok(),
            len: metadata.len(),
            inode: metadata.ino(),
        })
    }
}

/// The serving certificate and key, re-read when their files change.
#[derive(Debug)]
struct ReloadingCertificate {
    cert_file: PathBuf,
    key_file: PathBuf,
    provider: Arc<CryptoProvider>,
    current: Mutex<Current>,
}

#[derive(Debug)]
struct Current {
    /// The files' stamps when last read, whether or not they loaded.
    stamps: (Option<Stamp>, Option<Stamp>),
    key: Arc<CertifiedKey>,
}

impl ReloadingCertificate {
    fn load(cert_file: &Path, key_file: &Path, provider: Arc<CryptoProvider>) -> Result<Self, ServerError> {
        let stamps = (Stamp::of(cert_file), Stamp::of(key_file));
        let key = load_pair(cert_file, key_file, &provider).map_err(ServerError::Tls)?;
        Ok(ReloadingCertificate {
            cert_file: cert_file.to_path_buf(),
            key_file: key_file.to_path_buf(),
            provider,
            current: Mutex::new(Current {
                stamps,
                key: Arc::new(key),
            }),
        })
    }

    /// The pair to serve: re-read first when a file changed since.
    fn current(&self) -> Arc<CertifiedKey> {
        let stamps = (Stamp::of(&self.cert_file), Stamp::of(&self.key_file));
        let mut current = self
            .current
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        if stamps != current.stamps {
            current.stamps = stamps;
            match load_pair(&self.cert_file, &self.key_file, &self.provider) {
                Ok(key) => {
                    tracing::info!(cert_file = %self.cert_file.display(), "TLS certificate reloaded");
                    current.key = Arc::new(key);
                }
                Err(reason) => {
                    tracing::warn!(%reason, "TLS certificate not reloaded; the previous one still serves");
                }
            }
        }
        current.key.clone()
    }
}

impl ResolvesServerCert for ReloadingCertificate {
    fn resolve(&self, _hello: ClientHello<'_>) -> Option<Arc<CertifiedKey>> {
        Some(self.current())
    }
}

/// The chain of `cert_file` (leaf first) with the key of `key_file`, checked
/// to belong together.
fn load_pair(cert_file: &Path, key_file: &Path, provider: &CryptoProvider) -> Result<CertifiedKey, String> {
    let cert_bytes = std::fs::read(cert_file)
        .map_err(|e| format!("cannot read the certificate file {}: {e}", cert_file.display()))?;
    let chain = CertificateDer::pem_slice_iter(&cert_bytes)
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| format!("the certificate file {}: {e}", cert_file.display()))?;
    if chain.is_empty() {
        return Err(format!(
            "the certificate file {} holds no PEM certificate",
            cert_file.display()
        ));
    }
    let key_bytes = std::fs::read(key_file)
        .map_err(|e| format!("cannot read the key file {}: {e}", key_file.display()))?;
    let key = PrivateKeyDer::from_pem_slice(&key_bytes).map_err(|e| {
        format!(
            "the key file {} holds no usable PEM private key: {e}",
            key_file.display()
        )
    })?;
    CertifiedKey::from_der(chain, key, provider).map_err(|error| {
        let pair = format!(
            "the key in {} does not fit the certificate in {}",
            key_file.display(),
            cert_file.display()
        );
        match error {
            rustls::Error::InconsistentKeys(rustls::InconsistentKeys::KeyMismatch) => pair,
            other => format!("{pair}: {other}"),
        }
    })
}
