//! Nesting, the decompression budget, and requirements refused by the outermost layer.

use super::*;

/// `entity` as a compressed-data MIME entity (base64), as a sender writes one.
fn compressed_entity(entity: &[u8]) -> Vec<u8> {
    let der = crypto::compress(entity).unwrap();
    let mut out = b"Content-Type: application/pkcs7-mime; smime-type=compressed-data\r\n\
                    Content-Transfer-Encoding: base64\r\n\r\n"
        .to_vec();
    out.extend_from_slice(base64_lines(&der).as_bytes());
    out
}

/// A message whose body is `body` (binary) under `content_type`.
fn raw(content_type: &str, body: Vec<u8>) -> OutgoingMessage {
    let mut message = build_plain_message(&plain(None));
    for (name, value) in &mut message.headers {
        if name.eq_ignore_ascii_case("Content-Type") {
            *value = content_type.into();
        }
    }
    message.body = body;
    message
}

fn edifact_entity(payload: &[u8]) -> Vec<u8> {
    let mut entity = b"Content-Type: application/edifact\r\n\r\n".to_vec();
    entity.extend_from_slice(payload);
    entity
}

/// Compressed by the builder (one layer), with `payload` as the document.
fn compressed_message(payload: &[u8]) -> OutgoingMessage {
    build_secure_message(&SecureMessageSpec {
        plain: PlainMessageSpec {
            payload,
            ..plain(None)
        },
        compress: true,
        sign: None,
        encrypt: None,
        boundary: "b-c",
        now_unix: NOW,
    })
    .unwrap()
    .message
}

fn receive_limited(m: &OutgoingMessage, limits: UnwrapLimits) -> Result<Unwrapped, InboundRefusal> {
    let a = partner_a();
    let policy = crate::AlgorithmPolicy::default();
    receive_with(m, &[a.certificate], (false, false), &policy, limits)
}

#[test]
fn compressed_inside_compressed_is_refused_as_a_repeated_layer_before_it_is_opened() {
    // The inner layer alone would break the expansion ratio: the reason shows it was
    // never opened.
    let inner = compressed_entity(&edifact_entity(&vec![b'A'; 4 << 20]));
    let outer = crypto::compress(&inner).unwrap();
    let message = raw("application/pkcs7-mime; smime-type=compressed-data", outer);
    let refusal = receive_limited(&message, UnwrapLimits::default()).unwrap_err();
    assert_eq!(
        refusal.disposition,
        DispositionError::UnexpectedProcessingError
    );
    assert!(
        refusal.reason.contains("second compressed-data layer"),
        "{}",
        refusal.reason
    );
}

#[test]
fn a_second_signature_inside_the_first_is_refused() {
    let a = partner_a();
    let (ct, body) = super::super::signature::multipart_signed(
        &a,
        MicAlg::Sha256,
        &edifact_entity(PAYLOAD),
        "in",
        NOW,
    )
    .unwrap();
    let mut inner = format!("Content-Type: {ct}\r\n\r\n").into_bytes();
    inner.extend_from_slice(&body);
    let (ct, body) =
        super::super::signature::multipart_signed(&a, MicAlg::Sha256, &inner, "out", NOW).unwrap();
    let refusal = receive_limited(&raw(&ct, body), UnwrapLimits::default()).unwrap_err();
    assert_eq!(
        refusal.disposition,
        DispositionError::UnexpectedProcessingError
    );
    assert!(
        refusal.reason.contains("second multipart/signed layer"),
        "{}",
        refusal.reason
    );
    // The outer signature did verify with the partner's certificate.
    assert!(refusal.authenticated);
}

#[test]
fn compression_outside_the_signature_is_accepted() {
    let a = partner_a();
    let (ct, body) = super::super::signature::multipart_signed(
        &a,
        MicAlg::Sha256,
        &edifact_entity(PAYLOAD),
        "s",
        NOW,
    )
    .unwrap();
    let mut signed = format!("Content-Type: {ct}\r\n\r\n").into_bytes();
    signed.extend_from_slice(&body);
    let message = raw(
        "application/pkcs7-mime; smime-type=compressed-data",
        crypto::compress(&signed).unwrap(),
    );
    let got = receive_with(
        &message,
        std::slice::from_ref(&a.certificate),
        (true, false),
        &crate::AlgorithmPolicy::default(),
        UnwrapLimits::default(),
    )
    .unwrap();
    assert!(got.signed && got.compressed && !got.encrypted);
    assert_eq!(got.payload, PAYLOAD);
}

#[test]
fn one_compressed_layer_over_the_total_is_refused() {
    let message = compressed_message(&vec![b'A'; 1 << 20]);
    let limits = UnwrapLimits {
        max_decompressed_bytes: 64 * 1024,
        max_expansion_ratio: 1_000_000,
    };
    let refusal = receive_limited(&message, limits).unwrap_err();
    assert_eq!(
        refusal.disposition,
        DispositionError::UnexpectedProcessingError
    );
    assert!(
        refusal.reason.contains("expands beyond 65536 bytes"),
        "{}",
        refusal.reason
    );
}

#[test]
fn one_compressed_layer_over_the_expansion_ratio_is_refused() {
    // 4 MiB of one byte deflate to about 4 KiB: a thousand times, within the total.
    let message = compressed_message(&vec![b'A'; 4 << 20]);
    let refusal = receive_limited(&message, UnwrapLimits::default()).unwrap_err();
    assert_eq!(
        refusal.disposition,
        DispositionError::UnexpectedProcessingError
    );
    assert!(
        refusal.reason.contains("more than 100 times"),
        "{}",
        refusal.reason
    );
}

#[test]
fn small_and_normal_compressed_messages_are_accepted() {
    // Past the ratio, but below the floor: a small message is never refused for it.
    let small = vec![b'A'; 512 * 1024];
    let got = receive_limited(&compressed_message(&small), UnwrapLimits::default()).unwrap();
    assert!(got.compressed);
    assert_eq!(got.payload, small);
    let got = receive_limited(&compressed_message(PAYLOAD), UnwrapLimits::default()).unwrap();
    assert_eq!(got.payload, PAYLOAD);
}

#[test]
fn required_encryption_is_refused_by_the_outermost_layer_before_any_work() {
    let b = partner_b();
    let certs_a = [partner_a().certificate];
    let policy = crate::AlgorithmPolicy::default();
    // Signed by a stranger: insufficient-message-security, not authentication-failed, so
    // the signature was never verified.
    let by_stranger = secure(false, Some((&b, MicAlg::Sha256)), None);
    let refusal = receive_with(
        &by_stranger,
        &certs_a,
        (false, true),
        &policy,
        UnwrapLimits::default(),
    )
    .unwrap_err();
    assert_eq!(
        refusal.disposition,
        DispositionError::InsufficientMessageSecurity
    );
    assert_eq!(
        refusal.reason,
        "the partnership requires encrypted messages"
    );
    assert!(!refusal.authenticated);
    // A bomb: refused for the requirement, never inflated.
    let bomb = compressed_message(&vec![b'A'; 4 << 20]);
    let refusal = receive_with(
        &bomb,
        &certs_a,
        (false, true),
        &policy,
        UnwrapLimits::default(),
    )
    .unwrap_err();
    assert_eq!(
        refusal.reason,
        "the partnership requires encrypted messages"
    );
    // Signature required, plain content.
    let plain_message = build_plain_message(&plain(None));
    let refusal = receive_with(
        &plain_message,
        &certs_a,
        (true, false),
        &policy,
        UnwrapLimits::default(),
    )
    .unwrap_err();
    assert_eq!(refusal.reason, "the partnership requires signed messages");
}
