//! A server certificate verifier that trusts exactly the pinned certificates.

use crate::TlsConfigError;
use rustls::client::danger::{HandshakeSignatureValid, ServerCertVerified, ServerCertVerifier};
use rustls::crypto::{CryptoProvider, WebPkiSupportedAlgorithms};
use rustls::pki_types::{CertificateDer, ServerName, UnixTime};
use rustls::{DigitallySignedStruct, SignatureScheme};
use sha2::{Digest, Sha256};

/// Fingerprints as the settings write them: hex, colons and case as the operator likes.
pub(crate) fn parse_pins(texts: &[String]) -> Result<Vec<[u8; 32]>, TlsConfigError> {
    if texts.is_empty() {
        return Err(TlsConfigError::NoFingerprint);
    }
    texts
        .iter()
        .map(|text| {
            crate::sha256_fingerprint(text).map_err(|_| TlsConfigError::Fingerprint {
                text: text.to_owned(),
            })
        })
        .collect()
}

#[derive(Debug)]
pub(crate) struct PinnedServer {
    pins: Vec<[u8; 32]>,
    algorithms: WebPkiSupportedAlgorithms,
}

impl PinnedServer {
    pub fn new(pins: Vec<[u8; 32]>, provider: &CryptoProvider) -> Self {
        Self {
            pins,
            algorithms: provider.signature_verification_algorithms,
        }
    }
}

impl ServerCertVerifier for PinnedServer {
    fn verify_server_cert(
        &self,
        end_entity: &CertificateDer<'_>,
        _intermediates: &[CertificateDer<'_>],
        _server_name: &ServerName<'_>,
        _ocsp_response: &[u8],
        _now: UnixTime,
    ) -> Result<ServerCertVerified, rustls::Error> {
        let presented: [u8; 32] = Sha256::digest(end_entity.as_ref()).into();
        if self.pins.contains(&presented) {
            Ok(ServerCertVerified::assertion())
        } else {
            // Named as rustls names an untrusted certificate, so the error reads alike.
            Err(rustls::Error::InvalidCertificate(
                rustls::CertificateError::ApplicationVerificationFailure,
            ))
        }
    }

    fn verify_tls12_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        rustls::crypto::verify_tls12_signature(message, cert, dss, &self.algorithms)
    }

    fn verify_tls13_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        rustls::crypto::verify_tls13_signature(message, cert, dss, &self.algorithms)
    }

    fn supported_verify_schemes(&self) -> Vec<SignatureScheme> {
        self.algorithms.supported_schemes()
    }
}
