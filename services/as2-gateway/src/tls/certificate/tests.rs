use super::*;
use openssl::asn1::Asn1Time;
use openssl::hash::MessageDigest;
use openssl::pkey::PKey;
use openssl::rsa::Rsa;
use openssl::x509::{X509Builder, X509NameBuilder};
use sha2::{Digest, Sha256};

/// A self-signed certificate and its key, PEM, valid until `not_after` (Unix seconds).
fn self_signed(not_after: i64) -> (Vec<u8>, Vec<u8>) {
    let key = PKey::from_rsa(Rsa::generate(2048).unwrap()).unwrap();
    let mut name = X509NameBuilder::new().unwrap();
    name.append_entry_by_text("CN", "gateway").unwrap();
    let name = name.build();
    let mut builder = X509Builder::new().unwrap();
    builder.set_version(2).unwrap();
    builder.set_subject_name(&name).unwrap();
    builder.set_issuer_name(&name).unwrap();
    builder.set_pubkey(&key).unwrap();
    builder
        .set_not_before(&Asn1Time::from_unix(0).unwrap())
        .unwrap();
    builder
        .set_not_after(&Asn1Time::from_unix(not_after).unwrap())
        .unwrap();
    builder.sign(&key, MessageDigest::sha256()).unwrap();
    let certificate = builder.build().to_pem().unwrap();
    (certificate, key.private_key_to_pem_pkcs8().unwrap())
}

fn files(certificate: &[u8], key: &[u8]) -> CertificateFiles {
    CertificateFiles {
        certificate: ("gateway.crt".into(), certificate.to_vec()),
        private_key: ("gateway.key".into(), key.to_vec()),
    }
}

fn provider() -> CryptoProvider {
    rustls::crypto::aws_lc_rs::default_provider()
}

#[test]
fn a_certificate_and_its_key_load_and_their_expiry_is_exported() {
    let (certificate, key) = self_signed(2_000_000_000);
    let loaded = files(&certificate, &key)
        .certified_key(&provider())
        .unwrap();
    export_expiry(&loaded).unwrap();
    let fingerprint = hex::encode(Sha256::digest(loaded.cert[0].as_ref()));
    let metrics = edihub_metrics::render();
    let series = format!(
        r#"edihub_certificate_expiry_timestamp_seconds{{fingerprint="{fingerprint}",kind="tls",owner="gateway"}} 2000000000"#
    );
    assert!(metrics.contains(&series), "{metrics}");
}

#[test]
fn a_key_of_another_certificate_is_refused() {
    let (certificate, _) = self_signed(2_000_000_000);
    let (_, other_key) = self_signed(2_000_000_000);
    let refused = files(&certificate, &other_key).certified_key(&provider());
    assert!(matches!(refused, Err(TlsError::Key(_))), "{refused:?}");
}

#[test]
fn files_without_a_certificate_or_a_key_are_refused() {
    let (certificate, key) = self_signed(2_000_000_000);
    let no_certificate = files(b"not PEM at all", &key).certified_key(&provider());
    assert!(
        matches!(no_certificate, Err(TlsError::NoCertificate { .. })),
        "{no_certificate:?}"
    );
    let no_key = files(&certificate, b"").certified_key(&provider());
    assert!(matches!(no_key, Err(TlsError::Pem { .. })), "{no_key:?}");
}
