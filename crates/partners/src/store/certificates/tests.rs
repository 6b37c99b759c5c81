use super::*;
use openssl::pkey::PKey;
use openssl::rsa::Rsa;
use openssl::x509::{X509, X509NameBuilder};

const NOW: i64 = 1_800_000_000;
const DAY: i64 = 86_400;

/// A self-signed certificate valid from `not_before` to `not_after` (Unix seconds).
fn certificate(not_before: i64, not_after: i64, bits: u32) -> X509 {
    let key = PKey::from_rsa(Rsa::generate(bits).unwrap()).unwrap();
    let mut name = X509NameBuilder::new().unwrap();
    name.append_entry_by_text("CN", "lifecycle test").unwrap();
    let name = name.build();
    let mut builder = X509::builder().unwrap();
    builder.set_version(2).unwrap();
    builder.set_subject_name(&name).unwrap();
    builder.set_issuer_name(&name).unwrap();
    builder.set_pubkey(&key).unwrap();
    builder
        .set_not_before(&Asn1Time::from_unix(not_before).unwrap())
        .unwrap();
    builder
        .set_not_after(&Asn1Time::from_unix(not_after).unwrap())
        .unwrap();
    builder
        .sign(&key, openssl::hash::MessageDigest::sha256())
        .unwrap();
    builder.build()
}

fn described(not_before: i64, not_after: i64, bits: u32) -> CertificateInfo {
    describe(&certificate(not_before, not_after, bits)).unwrap()
}

fn kinds(found: &[CertificateWarning]) -> Vec<&'static str> {
    found.iter().map(CertificateWarning::kind).collect()
}

#[test]
fn validity_is_read_to_the_second_with_the_key_size() {
    let info = described(NOW - DAY, NOW + 400 * DAY + 17, 2048);
    assert_eq!(info.not_before_unix, NOW - DAY);
    assert_eq!(info.not_after_unix, NOW + 400 * DAY + 17);
    assert_eq!(info.rsa_bits, Some(2048));
    assert_eq!(info.sha256.len(), 64);
}

#[test]
fn a_sound_certificate_has_no_warning() {
    let info = described(NOW - DAY, NOW + 31 * DAY, 2048);
    assert!(warnings(&info, NOW, 2048).is_empty());
}

#[test]
fn expired_soon_expiring_and_future_certificates_are_warned_about() {
    let expired = described(NOW - 400 * DAY, NOW - DAY, 2048);
    assert_eq!(kinds(&warnings(&expired, NOW, 2048)), ["expired"]);

    let soon = described(NOW - DAY, NOW + 29 * DAY + 5, 2048);
    let found = warnings(&soon, NOW, 2048);
    assert_eq!(kinds(&found), ["expires_soon"]);
    assert!(
        found[0].to_string().contains("in 29 day(s)"),
        "{}",
        found[0]
    );

    let future = described(NOW + DAY, NOW + 400 * DAY, 2048);
    let found = warnings(&future, NOW, 2048);
    assert_eq!(kinds(&found), ["not_yet_valid"]);
    assert!(
        found[0].to_string().contains("is not valid before"),
        "{}",
        found[0]
    );
}

#[test]
fn a_key_under_the_partnerships_minimum_is_warned_about() {
    let small = described(NOW - DAY, NOW + 400 * DAY, 1024);
    let found = warnings(&small, NOW, 2048);
    assert_eq!(kinds(&found), ["weak_key"]);
    assert!(
        found[0]
            .to_string()
            .contains("1024-bit RSA key, under the partnership's minimum of 2048"),
        "{}",
        found[0]
    );
    assert!(warnings(&small, NOW, 1024).is_empty());
}

#[test]
fn an_expired_certificate_is_stored_only_when_asked_to() {
    let sound = described(NOW - DAY, NOW + 400 * DAY, 2048);
    let expired = described(NOW - 400 * DAY, NOW - DAY, 2048);
    let both = [sound, expired.clone()];
    let error = check_not_expired(&both, NOW, false).unwrap_err();
    assert!(
        matches!(&error, StoreError::ExpiredCertificate { sha256, .. } if *sha256 == expired.sha256),
        "{error}"
    );
    assert!(error.to_string().contains("--store-expired"), "{error}");
    assert!(check_not_expired(&both, NOW, true).is_ok());
    assert!(check_not_expired(&both[..1], NOW, false).is_ok());
}
