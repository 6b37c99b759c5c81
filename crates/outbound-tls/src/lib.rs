//! Outbound HTTPS to a partner (asynchronous MDNs; outbound AS2 later): which server
//! certificates the hub trusts, and which client certificate it presents, per
//! partnership.
//!
//! [`OutboundTls`] is a plain value: the gateway puts a partnership's into each delivery
//! row, so the delivery that POSTs later connects as the partnership said when the message
//! came in. [`client_config`] turns it into a rustls configuration; the only files it
//! reads are the client certificate and key, which stay on the sending host's disk and never
//! enter the database.

mod client_identity;
mod pinned;
mod roots;

use serde::{Deserialize, Serialize};
use std::path::PathBuf;
use std::sync::Arc;

/// A partnership's outbound TLS.
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct OutboundTls {
    #[serde(default)]
    pub server: ServerTrust,
    /// Presented when the partner's server asks for one; `None`: no client certificate.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub client: Option<ClientCertificate>,
}

/// Which server certificates are trusted.
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(tag = "trust", rename_all = "kebab-case")]
pub enum ServerTrust {
    /// The platform's root CAs, the host name checked: what a browser would accept.
    #[default]
    System,
    /// The platform's roots and these CA certificates (PEM), the host name checked: for
    /// a partner whose server certificate comes from its own CA.
    ExtraCa { ca_pem: String },
    /// Only a server whose end-entity certificate has one of these SHA-256 fingerprints
    /// (of its DER, lower-case hex). Neither its issuer, nor its host name, nor its dates
    /// are consulted: the pin says more than they could (self-signed servers are common
    /// among AS2 partners). The handshake signature must still verify with its key.
    Pinned { sha256: Vec<String> },
}

/// Files (PEM) of the client certificate chain and its private key, read by the
/// process that connects.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct ClientCertificate {
    pub certificate: PathBuf,
    pub private_key: PathBuf,
}

#[derive(Debug, thiserror::Error)]
pub enum TlsConfigError {
    #[error("the extra CA holds no certificate")]
    NoCaCertificate,
    #[error("the extra CA is not PEM certificates: {0}")]
    CaPem(#[source] rustls::pki_types::pem::Error),
    #[error("an extra CA certificate cannot be used: {0}")]
    CaCertificate(#[source] rustls::Error),
    #[error("{text:?} is not a SHA-256 fingerprint (64 hex digits, colons allowed)")]
    Fingerprint { text: String },
    #[error("a pinned server trust needs at least one fingerprint")]
    NoFingerprint,
    #[error("cannot read the TLS client {what} {path}: {source}")]
    ReadClientFile {
        what: &'static str,
        path: String,
        #[source]
        source: std::io::Error,
    },
    #[error("the TLS client {what} {path} is not usable PEM: {source}")]
    ClientPem {
        what: &'static str,
        path: String,
        #[source]
        source: rustls::pki_types::pem::Error,
    },
    #[error("the TLS client certificate and key do not go together: {0}")]
    ClientKey(#[source] rustls::Error),
    #[error("TLS protocol versions: {0}")]
    Protocol(#[source] rustls::Error),
}

impl ServerTrust {
    /// The trust a partnership's settings describe: `ca_pem` (an extra CA) or
    /// `fingerprints` (a pin), or neither (the platform's roots); both is a mistake.
    pub fn from_parts(
        ca_pem: Option<String>,
        fingerprints: &[String],
    ) -> Result<ServerTrust, ServerTrustConflict> {
        match (ca_pem, fingerprints.is_empty()) {
            (None, true) => Ok(ServerTrust::System),
            (Some(ca_pem), true) => Ok(ServerTrust::ExtraCa { ca_pem }),
            (None, false) => Ok(ServerTrust::Pinned {
                sha256: fingerprints.to_vec(),
            }),
            (Some(_), false) => Err(ServerTrustConflict),
        }
    }

    /// Checks what can be checked without connecting: the CA parses, the fingerprints
    /// are fingerprints. Returns the trust with the fingerprints normalised.
    pub fn validated(self) -> Result<ServerTrust, TlsConfigError> {
        match self {
            ServerTrust::System => Ok(ServerTrust::System),
            ServerTrust::ExtraCa { ca_pem } => {
                roots::ca_certificates(&ca_pem)?;
                Ok(ServerTrust::ExtraCa { ca_pem })
            }
            ServerTrust::Pinned { sha256 } => {
                let pins = pinned::parse_pins(&sha256)?;
                Ok(ServerTrust::Pinned {
                    sha256: pins.iter().map(hex::encode).collect(),
                })
            }
        }
    }
}

/// A SHA-256 certificate fingerprint as operators write it: 64 hex digits, colons and
/// case ignored. One reader for every fingerprint the hub is given (pinned servers here,
/// partners' TLS client certificates in `edihub_partners`).
pub fn sha256_fingerprint(text: &str) -> Result<[u8; 32], FingerprintError> {
    let digits: String = text.chars().filter(|c| *c != ':').collect();
    let bytes = hex::decode(digits.trim()).map_err(FingerprintError::NotHex)?;
    bytes
        .try_into()
        .map_err(|b: Vec<u8>| FingerprintError::Length(b.len()))
}

/// Why a text is not a SHA-256 fingerprint; callers name the option in their message.
#[derive(Debug, thiserror::Error)]
pub enum FingerprintError {
    #[error("not hex: {0}")]
    NotHex(#[source] hex::FromHexError),
    #[error("{0} bytes, not 32")]
    Length(usize),
}

/// Both an extra CA and pinned fingerprints were given.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("an extra CA and pinned fingerprints exclude each other: give one")]
pub struct ServerTrustConflict;

/// The rustls configuration that connects as `tls` says (TLS 1.2 and 1.3, HTTP/1.1).
/// Reads the client certificate files, when there are any, and the platform's roots the
/// first time they are needed.
pub fn client_config(tls: &OutboundTls) -> Result<rustls::ClientConfig, TlsConfigError> {
    let provider = Arc::new(rustls::crypto::aws_lc_rs::default_provider());
    let builder = rustls::ClientConfig::builder_with_provider(Arc::clone(&provider))
        .with_safe_default_protocol_versions()
        .map_err(TlsConfigError::Protocol)?;
    let builder = match &tls.server {
        ServerTrust::System => builder.with_root_certificates(roots::platform()),
        ServerTrust::ExtraCa { ca_pem } => {
            builder.with_root_certificates(roots::platform_and(ca_pem)?)
        }
        ServerTrust::Pinned { sha256 } => {
            builder
                .dangerous()
                .with_custom_certificate_verifier(Arc::new(pinned::PinnedServer::new(
                    pinned::parse_pins(sha256)?,
                    &provider,
                )))
        }
    };
    let mut config = match &tls.client {
        None => builder.with_no_client_auth(),
        Some(client) => {
            let (chain, key) = client_identity::load(client)?;
            builder
                .with_client_auth_cert(chain, key)
                .map_err(TlsConfigError::ClientKey)?
        }
    };
    config.alpn_protocols = vec![b"http/1.1".to_vec()];
    Ok(config)
}

#[cfg(test)]
mod tests;
