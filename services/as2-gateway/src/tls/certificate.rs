//! The server certificate: read from its PEM files, checked against its key, presented
//! to each handshake, and its expiry exported.

use edihub_config::GatewayTlsSettings;
use edihub_metrics::{CertificateExpiry, CertificateKind};
use openssl::x509::X509;
use rustls::crypto::CryptoProvider;
use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, PrivateKeyDer};
use rustls::server::{ClientHello, ResolvesServerCert};
use rustls::sign::CertifiedKey;
use std::path::{Path, PathBuf};
use std::sync::{Arc, PoisonError, RwLock};

#[derive(Debug, thiserror::Error)]
pub(crate) enum TlsError {
    #[error("cannot read {path}: {source}")]
    Read {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("{path}: not PEM: {source}")]
    Pem {
        path: PathBuf,
        #[source]
        source: rustls::pki_types::pem::Error,
    },
    #[error("{path} holds no certificate")]
    NoCertificate { path: PathBuf },
    #[error("the TLS key does not fit the certificate, or is of an unsupported type: {0}")]
    Key(#[source] rustls::Error),
    #[error("the TLS certificate's validity cannot be read: {0}")]
    Validity(#[source] openssl::error::ErrorStack),
    #[error("TLS protocol versions: {0}")]
    Config(#[source] rustls::Error),
}

/// The bytes of the certificate and key files, as last read.
#[derive(Clone, PartialEq, Eq)]
pub(super) struct CertificateFiles {
    certificate: (PathBuf, Vec<u8>),
    private_key: (PathBuf, Vec<u8>),
}

impl CertificateFiles {
    pub fn read(settings: &GatewayTlsSettings) -> Result<Self, TlsError> {
        Ok(Self {
            certificate: read(&settings.certificate)?,
            private_key: read(&settings.private_key)?,
        })
    }

    /// The chain and key, parsed and checked to belong together.
    pub fn certified_key(&self, provider: &CryptoProvider) -> Result<Arc<CertifiedKey>, TlsError> {
        let (certificate_path, certificate_pem) = &self.certificate;
        let pem_error = |path: &PathBuf| {
            let path = path.clone();
            move |source| TlsError::Pem { path, source }
        };
        let chain = CertificateDer::pem_slice_iter(certificate_pem)
            .collect::<Result<Vec<_>, _>>()
            .map_err(pem_error(certificate_path))?;
        if chain.is_empty() {
            return Err(TlsError::NoCertificate {
                path: certificate_path.clone(),
            });
        }
        let (key_path, key_pem) = &self.private_key;
        let key = PrivateKeyDer::from_pem_slice(key_pem).map_err(pem_error(key_path))?;
        let key = CertifiedKey::from_der(chain, key, provider).map_err(TlsError::Key)?;
        Ok(Arc::new(key))
    }
}

fn read(path: &Path) -> Result<(PathBuf, Vec<u8>), TlsError> {
    let bytes = std::fs::read(path).map_err(|source| TlsError::Read {
        path: path.to_owned(),
        source,
    })?;
    Ok((path.to_owned(), bytes))
}

/// Sets `edihub_certificate_expiry_timestamp_seconds{kind="tls"}` to the end-entity
/// certificate's notAfter.
pub(super) fn export_expiry(key: &CertifiedKey) -> Result<(), TlsError> {
    let Some(end_entity) = key.cert.first() else {
        return Ok(());
    };
    let certificate = X509::from_der(end_entity.as_ref()).map_err(TlsError::Validity)?;
    let not_after_unix =
        edihub_partners::store::unix_time(certificate.not_after()).map_err(TlsError::Validity)?;
    edihub_metrics::set_certificate_expiries(
        CertificateKind::Tls,
        &[CertificateExpiry {
            kind: CertificateKind::Tls,
            owner: "gateway".into(),
            fingerprint: edihub_partners::store::fingerprint(&certificate)
                .map_err(TlsError::Validity)?,
            not_after_unix,
        }],
    );
    Ok(())
}

/// The certificate new handshakes get; replaced when the files change.
#[derive(Debug)]
pub(super) struct CurrentCertificate(RwLock<Arc<CertifiedKey>>);

impl CurrentCertificate {
    pub fn new(key: Arc<CertifiedKey>) -> Self {
        Self(RwLock::new(key))
    }

    pub fn replace(&self, key: Arc<CertifiedKey>) {
        *self.0.write().unwrap_or_else(PoisonError::into_inner) = key;
    }
}

impl ResolvesServerCert for CurrentCertificate {
    fn resolve(&self, _hello: ClientHello<'_>) -> Option<Arc<CertifiedKey>> {
        Some(Arc::clone(
            &self.0.read().unwrap_or_else(PoisonError::into_inner),
        ))
    }
}

#[cfg(test)]
mod tests;
