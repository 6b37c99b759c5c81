//! Root certificate stores: the platform's, read once, and the platform's plus a
//! partnership's extra CA.

use crate::TlsConfigError;
use rustls::RootCertStore;
use rustls::pki_types::CertificateDer;
use rustls::pki_types::pem::PemObject;
use std::sync::{Arc, OnceLock};

/// The platform's trusted roots (the system store, or `SSL_CERT_FILE`/`SSL_CERT_DIR`),
/// read on first use. Certificates that do not load are skipped, as browsers do; no
/// store at all leaves it empty, and every handshake then fails as an unknown issuer.
pub(crate) fn platform() -> Arc<RootCertStore> {
    static PLATFORM: OnceLock<Arc<RootCertStore>> = OnceLock::new();
    Arc::clone(PLATFORM.get_or_init(|| {
        let mut store = RootCertStore::empty();
        let loaded = rustls_native_certs::load_native_certs();
        store.add_parsable_certificates(loaded.certs);
        Arc::new(store)
    }))
}

/// The platform's roots and the CA certificates in `ca_pem`.
pub(crate) fn platform_and(ca_pem: &str) -> Result<Arc<RootCertStore>, TlsConfigError> {
    let mut store = (*platform()).clone();
    for certificate in ca_certificates(ca_pem)? {
        store
            .add(certificate)
            .map_err(TlsConfigError::CaCertificate)?;
    }
    Ok(Arc::new(store))
}

/// The certificates of a PEM text; at least one.
pub(crate) fn ca_certificates(
    ca_pem: &str,
) -> Result<Vec<CertificateDer<'static>>, TlsConfigError> {
    let certificates = CertificateDer::pem_slice_iter(ca_pem.as_bytes())
        .collect::<Result<Vec<_>, _>>()
        .map_err(TlsConfigError::CaPem)?;
    if certificates.is_empty() {
        return Err(TlsConfigError::NoCaCertificate);
    }
    // A root store takes trust anchors; one that does not parse is refused here rather
    // than at the first POST.
    let mut probe = RootCertStore::empty();
    for certificate in &certificates {
        probe
            .add(certificate.clone())
            .map_err(TlsConfigError::CaCertificate)?;
    }
    Ok(certificates)
}
