//! HTTPS on the partner port (rustls with the aws-lc-rs provider). The server
//! certificate is re-read while the gateway runs (`reload.rs`); a client certificate is
//! asked for but not required (`client_auth.rs`): a partnership pins its partner's by
//! fingerprint, so the route gets the certificate's SHA-256, not a CA's verdict.

mod certificate;
mod client_auth;
mod reload;

use certificate::{CertificateFiles, CurrentCertificate};
use edihub_config::GatewayTlsSettings;
use rustls::ServerConfig;
use rustls::server::ServerConnection;
use sha2::{Digest, Sha256};
use std::path::PathBuf;
use std::sync::Arc;
use tokio_rustls::TlsAcceptor;
use tokio_util::sync::CancellationToken;

pub(crate) use certificate::TlsError;

/// The TLS side of the partner port: the acceptor new connections go through, and the
/// certificate it presents, which [`Tls::reload_until`] keeps current.
pub(crate) struct Tls {
    acceptor: TlsAcceptor,
    current: Arc<CurrentCertificate>,
    settings: GatewayTlsSettings,
    loaded: CertificateFiles,
}

impl Tls {
    /// Loads the certificate and key named in the settings; fails when they cannot be
    /// read, do not parse or do not belong together, so the gateway does not start.
    pub fn load(settings: &GatewayTlsSettings) -> Result<Self, TlsError> {
        let provider = Arc::new(rustls::crypto::aws_lc_rs::default_provider());
        let loaded = CertificateFiles::read(settings)?;
        let key = loaded.certified_key(&provider)?;
        certificate::export_expiry(&key)?;
        let current = Arc::new(CurrentCertificate::new(key));
        let verifier = client_auth::AnyClientCertificate::new(&provider);
        let mut config = ServerConfig::builder_with_provider(provider)
            .with_safe_default_protocol_versions()
            .map_err(TlsError::Config)?
            .with_client_cert_verifier(Arc::new(verifier))
            .with_cert_resolver(current.clone());
        config.alpn_protocols = vec![b"http/1.1".to_vec()];
        Ok(Self {
            acceptor: TlsAcceptor::from(Arc::new(config)),
            current,
            settings: settings.clone(),
            loaded,
        })
    }

    pub fn acceptor(&self) -> TlsAcceptor {
        self.acceptor.clone()
    }

    /// Checks the certificate files every `reload_ms` until `shutdown`, and presents a
    /// changed certificate to the handshakes that follow.
    pub async fn reload_until(self, shutdown: CancellationToken) {
        reload::watch(self.settings, self.current, self.loaded, shutdown).await;
    }

    /// The certificate file, for the start-up log.
    pub fn certificate_path(&self) -> &PathBuf {
        &self.settings.certificate
    }
}

/// SHA-256 of the DER of the certificate the client presented, if it presented one.
pub(crate) fn client_certificate_sha256(connection: &ServerConnection) -> Option<[u8; 32]> {
    let end_entity = connection.peer_certificates()?.first()?;
    Some(Sha256::digest(end_entity.as_ref()).into())
}
