//! What the transport knows about the connection a request came on. `serve.rs` puts one
//! into every request's extensions; the route reads it.

use std::net::SocketAddr;

#[derive(Debug, Clone, Copy)]
pub(crate) struct ConnectionInfo {
    pub peer: SocketAddr,
    /// SHA-256 of the DER of the TLS client certificate, when the client presented one.
    pub client_certificate_sha256: Option<[u8; 32]>,
}
