use super::*;
use crate::verify::Verdict;
use edihub_as2::{Identity, PlainMessageSpec, SecureMessageSpec, build_secure_message};

fn fixture(name: &str) -> Vec<u8> {
    let path = format!("{}/../../fixtures/as2/{name}", env!("CARGO_MANIFEST_DIR"));
    std::fs::read(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

/// A signed entity as the gateway keeps one when the signature is the outermost layer:
/// the HTTP Content-Type, a blank line, the body. Returns it with the MIC it must give.
fn signed_entity() -> (Vec<u8>, edihub_as2::Mic) {
    let partner =
        Identity::from_pem(&fixture("partner-a.crt"), &fixture("partner-a.key")).expect("key");
    let built = build_secure_message(&SecureMessageSpec {
        plain: PlainMessageSpec {
            as2_from: "ACME",
            as2_to: "HUB",
            message_id: "m@acme",
            subject: "test",
            content_type: "application/edifact",
            payload: b"UNA:+.? 'UNB+UNOC:3+A+B'",
            request_mdn_to: None,
            request_signed_mdn: None,
        },
        compress: false,
        sign: Some((&partner, MicAlg::Sha256)),
        encrypt: None,
        boundary: "----=_unit",
        now_unix: 1_800_000_000,
    })
    .expect("build");
    let content_type = built
        .message
        .headers
        .iter()
        .find(|(name, _)| name.eq_ignore_ascii_case("content-type"))
        .map(|(_, value)| value.clone())
        .expect("Content-Type");
    let mut entity = format!("Content-Type: {content_type}\r\n\r\n").into_bytes();
    entity.extend_from_slice(&built.message.body);
    (entity, built.expected_mic)
}

fn evidence_of(certificate: &str) -> EvidenceSignature {
    let pem = fixture(certificate);
    let der = edihub_as2::certificates_from_pem(&pem).expect("pem")[0]
        .to_der()
        .expect("der");
    EvidenceSignature {
        digest: "sha-256".into(),
        verified_on_receipt: true,
        certificate_pem: String::from_utf8(pem).expect("text"),
        certificate_sha256: sha256_hex(&der),
    }
}

#[test]
fn the_partner_signature_reverifies_and_gives_the_content_the_mic_covers() {
    let (entity, mic) = signed_entity();
    let outcome = check_signature(Some(&evidence_of("partner-a.crt")), Some(&entity));
    assert_eq!(outcome.check.verdict, Verdict::Ok);
    let content = outcome.content.expect("verified content");
    assert_eq!(edihub_as2::Mic::compute(mic.alg, &content), mic);
    assert!(outcome.signer.is_some());
}

#[test]
fn a_flipped_byte_in_the_signed_content_fails() {
    let (mut entity, _) = signed_entity();
    let at = entity.len() / 2;
    entity[at] ^= 0x01;
    let outcome = check_signature(Some(&evidence_of("partner-a.crt")), Some(&entity));
    assert!(outcome.check.is_failed(), "{:?}", outcome.check);
    assert!(outcome.content.is_none());
}

#[test]
fn another_certificate_than_the_signer_fails() {
    let (entity, _) = signed_entity();
    let outcome = check_signature(Some(&evidence_of("partner-b.crt")), Some(&entity));
    assert!(
        matches!(&outcome.check.verdict, Verdict::Failed(r) if r.contains("does not verify")),
        "{:?}",
        outcome.check
    );
}

#[test]
fn a_forged_fingerprint_is_named() {
    let (entity, _) = signed_entity();
    let mut evidence = evidence_of("partner-a.crt");
    evidence.certificate_sha256 = "00".repeat(32);
    let outcome = check_signature(Some(&evidence), Some(&entity));
    assert!(
        matches!(&outcome.check.verdict, Verdict::Failed(r) if r.contains("certificate_sha256 recorded")),
        "{:?}",
        outcome.check
    );
}

#[test]
fn an_unsigned_message_is_a_note_and_a_stray_signed_entity_a_failure() {
    assert!(matches!(
        check_signature(None, None).check.verdict,
        Verdict::Note(_)
    ));
    assert!(check_signature(None, Some(b"x")).check.is_failed());
}
