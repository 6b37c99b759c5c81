//! The signed entity's digest (replay detection) and whether a refusal was authenticated.

use super::*;

fn with_message_id(m: &OutgoingMessage, id: &str) -> OutgoingMessage {
    let mut m = m.clone();
    for (name, value) in &mut m.headers {
        if name.eq_ignore_ascii_case("Message-ID") {
            *value = format!("<{id}>");
        }
    }
    m
}

fn digest_of(m: &OutgoingMessage) -> Option<[u8; 32]> {
    let certs = [partner_a().certificate];
    receive(m, &certs, (false, false)).unwrap().signed_sha256
}

#[test]
fn the_signed_digest_is_the_same_under_another_message_id_and_differs_for_other_content() {
    let a = partner_a();
    let first = secure(true, Some((&a, MicAlg::Sha256)), None);
    let digest = digest_of(&first).expect("signed");
    assert_eq!(
        digest_of(&with_message_id(&first, "another@a")),
        Some(digest)
    );
    // Encrypted again (another content-encryption key, other bytes on the wire), the same
    // signed entity: the same digest.
    let (h, _) = headers_of(&first);
    let signed_entity = {
        let mut e = format!("Content-Type: {}\r\n\r\n", h.content_type).into_bytes();
        e.extend_from_slice(&first.body);
        e
    };
    let der = crypto::encrypt(&hub().certificate, Encryption::Aes256Cbc, &signed_entity).unwrap();
    let mut encrypted = with_message_id(&first, "third@a");
    for (name, value) in &mut encrypted.headers {
        if name.eq_ignore_ascii_case("Content-Type") {
            *value = "application/pkcs7-mime; smime-type=enveloped-data".into();
        }
    }
    encrypted.body = der;
    assert_eq!(digest_of(&encrypted), Some(digest));
    // Other content, or another signing: another digest.
    let other = build_secure_message(&SecureMessageSpec {
        plain: PlainMessageSpec {
            payload: b"UNB+UNOC:3+A+B+240101:1200+2'UNZ+0+2'",
            ..plain(None)
        },
        compress: true,
        sign: Some((&a, MicAlg::Sha256)),
        encrypt: None,
        boundary: "b-test",
        now_unix: NOW,
    })
    .unwrap()
    .message;
    assert_ne!(digest_of(&other), Some(digest));
    // Unsigned: none.
    assert_eq!(digest_of(&secure(true, None, None)), None);
}

#[test]
fn a_refusal_is_authenticated_only_after_the_partners_signature_verified() {
    let a = partner_a();
    let b = partner_b();
    let certs_a = [a.certificate.clone()];
    // A stranger's signature.
    let refusal = receive(
        &secure(false, Some((&b, MicAlg::Sha256)), None),
        &certs_a,
        (false, false),
    )
    .unwrap_err();
    assert!(!refusal.authenticated);
    // Nothing signed at all.
    let refusal = receive(&build_plain_message(&plain(None)), &certs_a, (true, false)).unwrap_err();
    assert!(!refusal.authenticated);
    // Tampered: the signer is the partner, but the signature does not verify.
    let mut tampered = secure(false, Some((&a, MicAlg::Sha256)), None);
    let at = tampered.body.windows(3).position(|w| w == b"UNB").unwrap();
    tampered.body[at] = b'X';
    let refusal = receive(&tampered, &certs_a, (false, false)).unwrap_err();
    assert_eq!(refusal.disposition, DispositionError::IntegrityCheckFailed);
    assert!(!refusal.authenticated);
    // The partner's signature verified, then the inner layer was refused.
    let bomb = build_secure_message(&SecureMessageSpec {
        plain: PlainMessageSpec {
            payload: &vec![b'A'; 4 << 20],
            ..plain(None)
        },
        compress: true,
        sign: Some((&a, MicAlg::Sha256)),
        encrypt: None,
        boundary: "b-bomb",
        now_unix: NOW,
    })
    .unwrap()
    .message;
    let refusal = receive(&bomb, &certs_a, (false, false)).unwrap_err();
    assert_eq!(
        refusal.disposition,
        DispositionError::UnexpectedProcessingError
    );
    assert!(refusal.authenticated);
}

#[test]
fn a_signature_by_an_expired_partner_certificate_is_authenticated() {
    let a = partner_a();
    let message = secure(false, Some((&a, MicAlg::Sha256)), None);
    let (h, cte) = headers_of(&message);
    let certs = [a.certificate.clone()];
    let refusal = unwrap_inbound(
        &h,
        cte.as_deref(),
        &message.body,
        None,
        &PartnerSecurity {
            algorithms: &crate::AlgorithmPolicy::default(),
            certificates: &certs,
            require_signature: true,
            require_encryption: false,
            allow_expired: false,
            // 2200: past the fixture certificate's validity.
            now_unix: 7_258_118_400,
        },
        UnwrapLimits::default(),
    )
    .unwrap_err();
    assert_eq!(refusal.disposition, DispositionError::AuthenticationFailed);
    assert!(refusal.reason.contains("expired"), "{}", refusal.reason);
    assert!(refusal.authenticated);
}
