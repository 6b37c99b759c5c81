//! The partnership's algorithm policy (ciphers, digests, RSA key size) and the signer
//! certificate's key usage.

use openssl::x509::extension::KeyUsage;

use super::certs::rsa_identity;
use super::*;
use crate::AlgorithmPolicy;

fn only_cipher(cipher: Encryption) -> AlgorithmPolicy {
    AlgorithmPolicy {
        ciphers: vec![cipher],
        ..AlgorithmPolicy::default()
    }
}

#[test]
fn a_forbidden_cipher_is_refused_before_decryption() {
    let a = partner_a();
    // Encrypted to partner B: the hub could not decrypt it, so a reason naming the
    // cipher (not a decryption failure) shows no decryption was tried.
    let b = partner_b();
    let message = secure(false, None, Some((&b.certificate, Encryption::TripleDes)));
    let refusal = receive_with(
        &message,
        &[a.certificate],
        (false, true),
        &only_cipher(Encryption::Aes256Cbc),
        UnwrapLimits::default(),
    )
    .unwrap_err();
    assert_eq!(
        refusal.disposition,
        DispositionError::InsufficientMessageSecurity
    );
    assert!(refusal.reason.contains("3des"), "{}", refusal.reason);
    // GCM (authenticated-enveloped-data) is read too.
    let gcm = secure(
        false,
        None,
        Some((&hub().certificate, Encryption::Aes128Gcm)),
    );
    let refusal = receive_with(
        &gcm,
        &[],
        (false, true),
        &only_cipher(Encryption::Aes256Cbc),
        UnwrapLimits::default(),
    )
    .unwrap_err();
    assert!(refusal.reason.contains("aes128-gcm"), "{}", refusal.reason);
}

#[test]
fn an_accepted_cipher_decrypts_and_3des_warns() {
    let hub_cert = hub().certificate;
    let accepted = |cipher| {
        receive_with(
            &secure(false, None, Some((&hub_cert, cipher))),
            &[],
            (false, true),
            &AlgorithmPolicy::default(),
            UnwrapLimits::default(),
        )
        .unwrap()
    };
    let aes = accepted(Encryption::Aes256Cbc);
    assert!(aes.encrypted);
    assert_eq!(aes.payload, PAYLOAD);
    assert!(aes.warnings.is_empty(), "{:?}", aes.warnings);
    let des = accepted(Encryption::TripleDes);
    assert_eq!(des.payload, PAYLOAD);
    assert_eq!(des.warnings.len(), 1);
    assert!(des.warnings[0].contains("3des"), "{:?}", des.warnings);
}

#[test]
fn a_forbidden_digest_is_refused_and_sha1_warns() {
    let a = partner_a();
    let certs = [a.certificate.clone()];
    let sha1 = secure(false, Some((&a, MicAlg::Sha1)), None);
    let sha256_only = AlgorithmPolicy {
        digests: vec![MicAlg::Sha256],
        ..AlgorithmPolicy::default()
    };
    let refusal = receive_with(
        &sha1,
        &certs,
        (true, false),
        &sha256_only,
        UnwrapLimits::default(),
    )
    .unwrap_err();
    assert_eq!(
        refusal.disposition,
        DispositionError::InsufficientMessageSecurity
    );
    assert!(refusal.reason.contains("sha-1"), "{}", refusal.reason);
    // Checked before verification: not authenticated.
    assert!(!refusal.authenticated);
    let got = receive_with(
        &sha1,
        &certs,
        (true, false),
        &AlgorithmPolicy::default(),
        UnwrapLimits::default(),
    )
    .unwrap();
    assert!(got.signed);
    assert_eq!(got.warnings.len(), 1);
    assert!(got.warnings[0].contains("sha-1"), "{:?}", got.warnings);
    let sha256 = secure(false, Some((&a, MicAlg::Sha256)), None);
    let got = receive_with(
        &sha256,
        &certs,
        (true, false),
        &sha256_only,
        UnwrapLimits::default(),
    )
    .unwrap();
    assert!(got.warnings.is_empty());
}

#[test]
fn an_rsa_1024_signer_is_refused_by_default_and_accepted_when_the_minimum_allows() {
    let weak = rsa_identity(1024, None);
    let message = secure(false, Some((&weak, MicAlg::Sha256)), None);
    let certs = [weak.certificate.clone()];
    let refusal = receive_with(
        &message,
        &certs,
        (true, false),
        &AlgorithmPolicy::default(),
        UnwrapLimits::default(),
    )
    .unwrap_err();
    assert_eq!(refusal.disposition, DispositionError::AuthenticationFailed);
    assert!(refusal.reason.contains("1024 bits"), "{}", refusal.reason);
    assert!(refusal.reason.contains("2048"), "{}", refusal.reason);
    assert!(
        refusal.authenticated,
        "the partner's key made the signature"
    );
    let lowered = AlgorithmPolicy {
        min_rsa_bits: 1024,
        ..AlgorithmPolicy::default()
    };
    let got = receive_with(
        &message,
        &certs,
        (true, false),
        &lowered,
        UnwrapLimits::default(),
    )
    .unwrap();
    assert!(got.signed);
}

#[test]
fn a_signer_whose_key_usage_excludes_signing_is_refused() {
    let encipher_only = rsa_identity(2048, Some(KeyUsage::new().key_encipherment()));
    let message = secure(false, Some((&encipher_only, MicAlg::Sha256)), None);
    let refusal = receive_with(
        &message,
        std::slice::from_ref(&encipher_only.certificate),
        (true, false),
        &AlgorithmPolicy::default(),
        UnwrapLimits::default(),
    )
    .unwrap_err();
    assert_eq!(refusal.disposition, DispositionError::AuthenticationFailed);
    assert!(refusal.reason.contains("key usage"), "{}", refusal.reason);
    // nonRepudiation alone (and digitalSignature alone) may sign.
    for usage in [
        KeyUsage::new().non_repudiation(),
        KeyUsage::new().digital_signature().key_encipherment(),
    ] {
        let signer = rsa_identity(2048, Some(usage));
        let message = secure(false, Some((&signer, MicAlg::Sha256)), None);
        let got = receive_with(
            &message,
            std::slice::from_ref(&signer.certificate),
            (true, false),
            &AlgorithmPolicy::default(),
            UnwrapLimits::default(),
        )
        .unwrap();
        assert!(got.signed);
    }
}
