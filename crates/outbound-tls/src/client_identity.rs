//! The client certificate and key, read from their files.

use crate::{ClientCertificate, TlsConfigError};
use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, PrivateKeyDer};
use std::path::Path;

pub(crate) fn load(
    client: &ClientCertificate,
) -> Result<(Vec<CertificateDer<'static>>, PrivateKeyDer<'static>), TlsConfigError> {
    let chain_pem = read(&client.certificate, "certificate")?;
    let chain = CertificateDer::pem_slice_iter(&chain_pem)
        .collect::<Result<Vec<_>, _>>()
        .map_err(|source| pem_error(&client.certificate, "certificate", source))?;
    if chain.is_empty() {
        return Err(pem_error(
            &client.certificate,
            "certificate",
            rustls::pki_types::pem::Error::NoItemsFound,
        ));
    }
    let key_pem = read(&client.private_key, "private key")?;
    let key = PrivateKeyDer::from_pem_slice(&key_pem)
        .map_err(|source| pem_error(&client.private_key, "private key", source))?;
    Ok((chain, key))
}

fn read(path: &Path, what: &'static str) -> Result<Vec<u8>, TlsConfigError> {
    std::fs::read(path).map_err(|source| TlsConfigError::ReadClientFile {
        what,
        path: path.display().to_string(),
        source,
    })
}

fn pem_error(
    path: &Path,
    what: &'static str,
    source: rustls::pki_types::pem::Error,
) -> TlsConfigError {
    TlsConfigError::ClientPem {
        what,
        path: path.display().to_string(),
        source,
    }
}
