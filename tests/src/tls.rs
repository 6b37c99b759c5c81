//! Certificates for tests of the gateway's HTTPS: a test CA, a server certificate for
//! `localhost` and 127.0.0.1 in files the gateway reads (and the test can renew), and
//! client certificates, with clients (rustls, reqwest) that trust the CA.

use openssl::asn1::{Asn1Integer, Asn1Time};
use openssl::bn::BigNum;
use openssl::hash::MessageDigest;
use openssl::pkey::{PKey, Private};
use openssl::rsa::Rsa;
use openssl::x509::extension::{
    BasicConstraints, ExtendedKeyUsage, KeyUsage, SubjectAlternativeName,
};
use openssl::x509::{X509, X509Builder, X509NameBuilder};
use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, PrivateKeyDer};
use sha2::{Digest, Sha256};
use std::path::PathBuf;
use std::sync::Arc;
use uuid::Uuid;

/// A certificate and its key, PEM.
pub struct Identity {
    pub certificate_pem: Vec<u8>,
    pub key_pem: Vec<u8>,
    /// SHA-256 of the certificate's DER.
    pub sha256: [u8; 32],
}

pub struct TestTls {
    pub dir: PathBuf,
    ca: X509,
    ca_key: PKey<Private>,
}

impl TestTls {
    /// A fresh CA and a server certificate in `<tmp>/edihub-tls-<id>/server.{crt,key}`.
    pub fn new() -> Self {
        let dir = std::env::temp_dir().join(format!("edihub-tls-{}", Uuid::new_v4().simple()));
        std::fs::create_dir_all(&dir).expect("TLS test directory");
        let ca_key = rsa_key();
        let ca = certificate("edihub test CA", &ca_key, None, Role::Ca);
        let tls = Self { dir, ca, ca_key };
        tls.renew_server();
        tls
    }

    pub fn certificate_path(&self) -> PathBuf {
        self.dir.join("server.crt")
    }

    pub fn key_path(&self) -> PathBuf {
        self.dir.join("server.key")
    }

    /// The gateway's TLS settings for these files, checked every 100 ms.
    pub fn settings(&self) -> edihub_config::GatewayTlsSettings {
        edihub_config::GatewayTlsSettings {
            certificate: self.certificate_path(),
            private_key: self.key_path(),
            reload_ms: 100,
        }
    }

    /// Writes a new server certificate (new key, new serial) over the files; returns
    /// its SHA-256. The key is written first, then the certificate, as a renewal would.
    pub fn renew_server(&self) -> [u8; 32] {
        let server = self.issue("localhost", Role::Server);
        std::fs::write(self.key_path(), &server.key_pem).expect("write server key");
        std::fs::write(self.certificate_path(), &server.certificate_pem)
            .expect("write server certificate");
        server.sha256
    }

    /// A client certificate issued by the test CA.
    pub fn client(&self, name: &str) -> Identity {
        self.issue(name, Role::Client)
    }

    /// A client certificate from a CA the gateway has never heard of: pinning is by
    /// fingerprint, so it must work all the same.
    pub fn self_signed_client(name: &str) -> Identity {
        let key = rsa_key();
        identity(certificate(name, &key, None, Role::Client), &key)
    }

    pub fn ca_pem(&self) -> Vec<u8> {
        self.ca.to_pem().expect("CA PEM")
    }

    pub fn ca_path(&self) -> PathBuf {
        let path = self.dir.join("ca.crt");
        std::fs::write(&path, self.ca_pem()).expect("write CA");
        path
    }

    fn issue(&self, name: &str, role: Role) -> Identity {
        let key = rsa_key();
        identity(
            certificate(name, &key, Some((&self.ca, &self.ca_key)), role),
            &key,
        )
    }

    /// A rustls client trusting the test CA, presenting `identity` when given.
    pub fn client_config(&self, identity: Option<&Identity>) -> rustls::ClientConfig {
        let provider = Arc::new(rustls::crypto::aws_lc_rs::default_provider());
        let mut roots = rustls::RootCertStore::empty();
        let ca = CertificateDer::from_pem_slice(&self.ca_pem()).expect("CA DER");
        roots.add(ca).expect("trust the test CA");
        let builder = rustls::ClientConfig::builder_with_provider(provider)
            .with_safe_default_protocol_versions()
            .expect("protocol versions")
            .with_root_certificates(roots);
        match identity {
            None => builder.with_no_client_auth(),
            Some(identity) => {
                let chain = CertificateDer::pem_slice_iter(&identity.certificate_pem)
                    .collect::<Result<Vec<_>, _>>()
                    .expect("client chain");
                let key = PrivateKeyDer::from_pem_slice(&identity.key_pem).expect("client key");
                builder
                    .with_client_auth_cert(chain, key)
                    .expect("client certificate")
            }
        }
    }

    /// A reqwest client over [`TestTls::client_config`].
    pub fn http_client(&self, identity: Option<&Identity>) -> reqwest::Client {
        reqwest::Client::builder()
            .use_preconfigured_tls(self.client_config(identity))
            .build()
            .expect("HTTPS client")
    }
}

impl Default for TestTls {
    fn default() -> Self {
        Self::new()
    }
}

impl Drop for TestTls {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

#[derive(Clone, Copy, PartialEq)]
enum Role {
    Ca,
    Server,
    Client,
}

fn rsa_key() -> PKey<Private> {
    PKey::from_rsa(Rsa::generate(2048).expect("RSA key")).expect("key")
}

fn identity(certificate: X509, key: &PKey<Private>) -> Identity {
    let der = certificate.to_der().expect("DER");
    Identity {
        certificate_pem: certificate.to_pem().expect("PEM"),
        key_pem: key.private_key_to_pem_pkcs8().expect("key PEM"),
        sha256: Sha256::digest(&der).into(),
    }
}

/// An X.509 v3 certificate for `name`, signed by `issuer` (self-signed without one).
fn certificate(
    name: &str,
    key: &PKey<Private>,
    issuer: Option<(&X509, &PKey<Private>)>,
    role: Role,
) -> X509 {
    let mut subject = X509NameBuilder::new().expect("name");
    subject.append_entry_by_text("CN", name).expect("CN");
    let subject = subject.build();
    let mut builder = X509Builder::new().expect("builder");
    builder.set_version(2).expect("v3");
    let serial = BigNum::from_slice(Uuid::new_v4().as_bytes()).expect("serial");
    builder
        .set_serial_number(&Asn1Integer::from_bn(&serial).expect("serial"))
        .expect("serial");
    builder.set_subject_name(&subject).expect("subject");
    let issuer_name = issuer.map_or(&*subject, |(ca, _)| ca.subject_name());
    builder.set_issuer_name(issuer_name).expect("issuer");
    builder.set_pubkey(key).expect("public key");
    builder
        .set_not_before(&Asn1Time::days_from_now(0).expect("time"))
        .expect("not before");
    builder
        .set_not_after(&Asn1Time::days_from_now(30).expect("time"))
        .expect("not after");
    add_extensions(&mut builder, issuer.map(|(ca, _)| ca), role);
    let signer = issuer.map_or(key, |(_, ca_key)| ca_key);
    builder.sign(signer, MessageDigest::sha256()).expect("sign");
    builder.build()
}

fn add_extensions(builder: &mut X509Builder, issuer: Option<&X509>, role: Role) {
    let extensions = match role {
        Role::Ca => vec![
            BasicConstraints::new().critical().ca().build().expect("bc"),
            KeyUsage::new()
                .critical()
                .key_cert_sign()
                .crl_sign()
                .build()
                .expect("ku"),
        ],
        Role::Server | Role::Client => {
            let mut usage = ExtendedKeyUsage::new();
            let usage = if role == Role::Server {
                usage.server_auth()
            } else {
                usage.client_auth()
            };
            let mut extensions = vec![
                BasicConstraints::new().build().expect("bc"),
                KeyUsage::new()
                    .critical()
                    .digital_signature()
                    .key_encipherment()
                    .build()
                    .expect("ku"),
                usage.build().expect("eku"),
            ];
            if role == Role::Server {
                let context = builder.x509v3_context(issuer.map(|ca| &**ca), None);
                let names = SubjectAlternativeName::new()
                    .dns("localhost")
                    .ip("127.0.0.1")
                    .build(&context)
                    .expect("SAN");
                extensions.push(names);
            }
            extensions
        }
    };
    for extension in extensions {
        builder.append_extension(extension).expect("extension");
    }
}

impl TestTls {
    /// A rustls server presenting the current server certificate, requiring a client
    /// certificate issued by the test CA when told to.
    pub fn server_config(&self, require_client_certificate: bool) -> rustls::ServerConfig {
        let provider = Arc::new(rustls::crypto::aws_lc_rs::default_provider());
        let builder = rustls::ServerConfig::builder_with_provider(Arc::clone(&provider))
            .with_safe_default_protocol_versions()
            .expect("protocol versions");
        let builder = if require_client_certificate {
            let mut roots = rustls::RootCertStore::empty();
            let ca = CertificateDer::from_pem_slice(&self.ca_pem()).expect("CA DER");
            roots.add(ca).expect("trust the test CA");
            let verifier =
                rustls::server::WebPkiClientVerifier::builder_with_provider(roots.into(), provider)
                    .build()
                    .expect("client verifier");
            builder.with_client_cert_verifier(verifier)
        } else {
            builder.with_no_client_auth()
        };
        let pem = std::fs::read(self.certificate_path()).expect("server certificate");
        let chain = CertificateDer::pem_slice_iter(&pem)
            .collect::<Result<Vec<_>, _>>()
            .expect("server chain");
        let key = PrivateKeyDer::from_pem_file(self.key_path()).expect("server key");
        builder
            .with_single_cert(chain, key)
            .expect("server certificate")
    }

    /// SHA-256 of the current server certificate's DER.
    pub fn server_sha256(&self) -> [u8; 32] {
        let pem = std::fs::read(self.certificate_path()).expect("server certificate");
        let der = CertificateDer::from_pem_slice(&pem).expect("server DER");
        Sha256::digest(der.as_ref()).into()
    }
}

/// An axum listener that serves TLS: a failed handshake (a client that does not trust
/// the certificate, or presents none when one is required) drops that connection and
/// is counted. Handshakes run one at a time: enough for tests.
pub struct TlsListener {
    pub tcp: tokio::net::TcpListener,
    pub acceptor: tokio_rustls::TlsAcceptor,
    /// SHA-256 of the client certificate of each connection that completed its handshake
    /// (`None`: it presented none).
    pub client_certificates: Arc<std::sync::Mutex<Vec<Option<[u8; 32]>>>>,
    pub failed_handshakes: Arc<std::sync::atomic::AtomicUsize>,
}

impl axum::serve::Listener for TlsListener {
    type Io = tokio_rustls::server::TlsStream<tokio::net::TcpStream>;
    type Addr = std::net::SocketAddr;

    async fn accept(&mut self) -> (Self::Io, Self::Addr) {
        loop {
            let Ok((stream, peer)) = self.tcp.accept().await else {
                continue;
            };
            match self.acceptor.accept(stream).await {
                Ok(tls) => {
                    let client = tls
                        .get_ref()
                        .1
                        .peer_certificates()
                        .and_then(|chain| chain.first())
                        .map(|der| Sha256::digest(der.as_ref()).into());
                    self.client_certificates
                        .lock()
                        .expect("listener lock")
                        .push(client);
                    return (tls, peer);
                }
                Err(_) => {
                    self.failed_handshakes
                        .fetch_add(1, std::sync::atomic::Ordering::SeqCst);
                }
            }
        }
    }

    fn local_addr(&self) -> std::io::Result<Self::Addr> {
        self.tcp.local_addr()
    }
}
