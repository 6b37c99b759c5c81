//! Handshakes run in memory between a rustls server and the configuration under test.

use super::*;
use openssl::asn1::Asn1Time;
use openssl::bn::BigNum;
use openssl::hash::MessageDigest;
use openssl::pkey::{PKey, Private};
use openssl::rsa::Rsa;
use openssl::x509::extension::{BasicConstraints, SubjectAlternativeName};
use openssl::x509::{X509, X509NameBuilder};
use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, PrivateKeyDer, ServerName};
use rustls::server::WebPkiClientVerifier;
use rustls::{ClientConnection, RootCertStore, ServerConfig, ServerConnection};
use sha2::{Digest, Sha256};
use std::path::Path;

struct Pair {
    certificate: X509,
    key: PKey<Private>,
}

impl Pair {
    fn pem(&self) -> String {
        String::from_utf8(self.certificate.to_pem().expect("PEM")).expect("ASCII")
    }

    fn der(&self) -> CertificateDer<'static> {
        CertificateDer::from(self.certificate.to_der().expect("DER"))
    }

    fn sha256_hex(&self) -> String {
        hex::encode(Sha256::digest(self.certificate.to_der().expect("DER")))
    }

    fn write(&self, dir: &Path, name: &str) -> ClientCertificate {
        let certificate = dir.join(format!("{name}.crt"));
        let private_key = dir.join(format!("{name}.key"));
        std::fs::write(&certificate, self.pem()).expect("write certificate");
        std::fs::write(
            &private_key,
            self.key.private_key_to_pem_pkcs8().expect("key PEM"),
        )
        .expect("write key");
        ClientCertificate {
            certificate,
            private_key,
        }
    }
}

/// A certificate for `name`, issued by `issuer` (self-signed without one).
fn issue(name: &str, issuer: Option<&Pair>, ca: bool) -> Pair {
    let key = PKey::from_rsa(Rsa::generate(2048).expect("RSA")).expect("key");
    let mut subject = X509NameBuilder::new().expect("name");
    subject.append_entry_by_text("CN", name).expect("CN");
    let subject = subject.build();
    let mut builder = X509::builder().expect("builder");
    builder.set_version(2).expect("v3");
    let serial = BigNum::from_u32(rand_serial()).expect("serial");
    builder
        .set_serial_number(&serial.to_asn1_integer().expect("serial"))
        .expect("serial");
    builder.set_subject_name(&subject).expect("subject");
    let issuer_name: &openssl::x509::X509NameRef =
        issuer.map_or(&*subject, |i| i.certificate.subject_name());
    builder.set_issuer_name(issuer_name).expect("issuer");
    builder.set_pubkey(&key).expect("key");
    builder
        .set_not_before(&Asn1Time::days_from_now(0).expect("now"))
        .expect("not before");
    builder
        .set_not_after(&Asn1Time::days_from_now(30).expect("later"))
        .expect("not after");
    if ca {
        let constraints = BasicConstraints::new().critical().ca().build().expect("bc");
        builder.append_extension(constraints).expect("bc");
    } else {
        let context = builder.x509v3_context(issuer.map(|i| &*i.certificate), None);
        let san = SubjectAlternativeName::new()
            .dns(name)
            .build(&context)
            .expect("SAN");
        builder.append_extension(san).expect("SAN");
    }
    let signer = issuer.map_or(&key, |i| &i.key);
    builder.sign(signer, MessageDigest::sha256()).expect("sign");
    Pair {
        certificate: builder.build(),
        key,
    }
}

fn rand_serial() -> u32 {
    use std::sync::atomic::{AtomicU32, Ordering};
    static NEXT: AtomicU32 = AtomicU32::new(1);
    NEXT.fetch_add(1, Ordering::Relaxed)
}

fn provider() -> Arc<rustls::crypto::CryptoProvider> {
    Arc::new(rustls::crypto::aws_lc_rs::default_provider())
}

/// A server presenting `server`, asking for a client certificate from `client_ca`.
fn server_config(server: &Pair, client_ca: Option<&Pair>) -> Arc<ServerConfig> {
    let builder = ServerConfig::builder_with_provider(provider())
        .with_safe_default_protocol_versions()
        .expect("versions");
    let builder = match client_ca {
        None => builder.with_no_client_auth(),
        Some(ca) => {
            let mut roots = RootCertStore::empty();
            roots.add(ca.der()).expect("client CA");
            let verifier = WebPkiClientVerifier::builder_with_provider(roots.into(), provider())
                .build()
                .expect("client verifier");
            builder.with_client_cert_verifier(verifier)
        }
    };
    let key = PrivateKeyDer::from_pem_slice(&server.key.private_key_to_pem_pkcs8().expect("key"))
        .expect("key DER");
    Arc::new(
        builder
            .with_single_cert(vec![server.der()], key)
            .expect("server certificate"),
    )
}

/// Runs a handshake to `host` in memory. Ok: the client certificate the server saw.
fn handshake(
    client: &OutboundTls,
    host: &str,
    server: Arc<ServerConfig>,
) -> Result<Option<CertificateDer<'static>>, rustls::Error> {
    let config = Arc::new(client_config(client).expect("client config"));
    let name = ServerName::try_from(host.to_owned()).expect("server name");
    let mut client = ClientConnection::new(config, name)?;
    let mut server = ServerConnection::new(server)?;
    for _ in 0..20 {
        let mut buffer = Vec::new();
        while client.wants_write() {
            client.write_tls(&mut buffer).expect("client write");
        }
        server
            .read_tls(&mut buffer.as_slice())
            .expect("server read");
        server.process_new_packets()?;
        let mut buffer = Vec::new();
        while server.wants_write() {
            server.write_tls(&mut buffer).expect("server write");
        }
        client
            .read_tls(&mut buffer.as_slice())
            .expect("client read");
        client.process_new_packets()?;
        if !client.is_handshaking() && !server.is_handshaking() {
            return Ok(server
                .peer_certificates()
                .and_then(|c| c.first().cloned())
                .map(|c| c.into_owned()));
        }
    }
    panic!("the handshake did not finish");
}

fn is_unknown_issuer(error: &rustls::Error) -> bool {
    matches!(
        error,
        rustls::Error::InvalidCertificate(rustls::CertificateError::UnknownIssuer)
    )
}

fn trusting(server: ServerTrust) -> OutboundTls {
    OutboundTls {
        server,
        client: None,
    }
}

#[test]
fn the_platform_roots_refuse_a_server_of_a_private_ca() {
    let ca = issue("partner CA", None, true);
    let server = issue("as2.partner.test", Some(&ca), false);
    let error = handshake(
        &OutboundTls::default(),
        "as2.partner.test",
        server_config(&server, None),
    )
    .expect_err("not trusted");
    assert!(is_unknown_issuer(&error), "{error:?}");
}

#[test]
fn an_extra_ca_is_trusted_for_its_servers_and_the_host_name_still_counts() {
    let ca = issue("partner CA", None, true);
    let server = issue("as2.partner.test", Some(&ca), false);
    let trust = trusting(ServerTrust::ExtraCa { ca_pem: ca.pem() });
    handshake(&trust, "as2.partner.test", server_config(&server, None)).expect("trusted");
    let error = handshake(&trust, "other.partner.test", server_config(&server, None))
        .expect_err("another name");
    assert!(
        matches!(
            error,
            rustls::Error::InvalidCertificate(
                rustls::CertificateError::NotValidForNameContext { .. }
            ) | rustls::Error::InvalidCertificate(rustls::CertificateError::NotValidForName)
        ),
        "{error:?}"
    );
    let stranger = issue("as2.partner.test", None, false);
    let error = handshake(&trust, "as2.partner.test", server_config(&stranger, None))
        .expect_err("a self-signed certificate is not the CA's");
    assert!(is_unknown_issuer(&error), "{error:?}");
}

#[test]
fn a_pinned_certificate_is_trusted_alone_whatever_its_issuer_or_name() {
    let pinned = issue("as2.partner.test", None, false);
    let other = issue("as2.partner.test", None, false);
    let trust = trusting(
        ServerTrust::Pinned {
            sha256: vec![pinned.sha256_hex().to_uppercase()],
        }
        .validated()
        .expect("valid pin"),
    );
    handshake(&trust, "127.0.0.1.nip.test", server_config(&pinned, None)).expect("pinned");
    let error = handshake(&trust, "as2.partner.test", server_config(&other, None))
        .expect_err("not the pinned certificate");
    assert!(
        matches!(
            error,
            rustls::Error::InvalidCertificate(
                rustls::CertificateError::ApplicationVerificationFailure
            )
        ),
        "{error:?}"
    );
}

#[test]
fn a_client_certificate_is_presented_when_configured() {
    let dir = std::env::temp_dir().join(format!("edihub-outbound-tls-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("dir");
    let ca = issue("partner CA", None, true);
    let server = issue("as2.partner.test", Some(&ca), false);
    let client_ca = issue("client CA", None, true);
    let hub = issue("hub.example", Some(&client_ca), false);
    let requiring = server_config(&server, Some(&client_ca));

    let mut tls = trusting(ServerTrust::ExtraCa { ca_pem: ca.pem() });
    assert!(
        handshake(&tls, "as2.partner.test", Arc::clone(&requiring)).is_err(),
        "the server requires a client certificate"
    );
    tls.client = Some(hub.write(&dir, "hub"));
    let seen = handshake(&tls, "as2.partner.test", requiring).expect("with the certificate");
    assert_eq!(seen, Some(hub.der()));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn client_files_that_are_missing_or_not_pem_are_named_in_the_error() {
    let dir = std::env::temp_dir().join(format!("edihub-outbound-bad-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("dir");
    let missing = OutboundTls {
        server: ServerTrust::System,
        client: Some(ClientCertificate {
            certificate: dir.join("absent.crt"),
            private_key: dir.join("absent.key"),
        }),
    };
    let error = client_config(&missing).expect_err("no file");
    assert!(error.to_string().contains("absent.crt"), "{error}");
    std::fs::write(dir.join("text.crt"), "not PEM").expect("write");
    let not_pem = OutboundTls {
        server: ServerTrust::System,
        client: Some(ClientCertificate {
            certificate: dir.join("text.crt"),
            private_key: dir.join("text.crt"),
        }),
    };
    let error = client_config(&not_pem).expect_err("not PEM");
    assert!(matches!(error, TlsConfigError::ClientPem { .. }), "{error}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn settings_name_one_trust_and_are_checked_before_use() {
    assert_eq!(ServerTrust::from_parts(None, &[]), Ok(ServerTrust::System));
    assert_eq!(
        ServerTrust::from_parts(Some("x".into()), &["ab".into()]),
        Err(ServerTrustConflict)
    );
    let bad_pin = ServerTrust::Pinned {
        sha256: vec!["12:34".into()],
    };
    assert!(matches!(
        bad_pin.validated(),
        Err(TlsConfigError::Fingerprint { .. })
    ));
    let no_ca = ServerTrust::ExtraCa {
        ca_pem: String::new(),
    };
    assert!(matches!(
        no_ca.validated(),
        Err(TlsConfigError::NoCaCertificate)
    ));
    let with_colons = ServerTrust::Pinned {
        sha256: vec![["AB"; 32].join(":")],
    };
    assert_eq!(
        with_colons.validated().expect("a pin"),
        ServerTrust::Pinned {
            sha256: vec!["ab".repeat(32)]
        }
    );
}

#[test]
fn the_delivery_row_form_is_tagged_and_defaults_to_the_platform_roots() {
    let tls: OutboundTls = serde_json::from_str("{}").expect("empty");
    assert_eq!(tls, OutboundTls::default());
    let pinned = trusting(ServerTrust::Pinned {
        sha256: vec!["ab".repeat(32)],
    });
    let json = serde_json::to_value(&pinned).expect("json");
    assert_eq!(json["server"]["trust"], "pinned");
    assert_eq!(
        serde_json::from_value::<OutboundTls>(json).expect("back"),
        pinned
    );
}
