//! The gateway's decision on bytes alone: one test per outcome a partner can get.

use chrono::{DateTime, TimeZone, Utc};
use edihub_as2::mic::MicAlg;
use edihub_as2::{
    As2Headers, Disposition, DispositionError, Encryption, Identity, OutgoingMessage,
    PlainMessageSpec, SecureMessageSpec, build_plain_message, build_secure_message, read_mdn,
};
use edihub_config::{GatewaySettings, PartnerSettings};
use edihub_inbound::{Decision, Policy, ReceiptDelivery, Request, decide};
use edihub_partners::Directory;
use std::path::PathBuf;
use uuid::Uuid;

const HUB: &str = "EDIHUB";
const PAYLOAD: &[u8] = b"UNA:+.? 'UNB+UNOC:3+SENDER+EDIHUB+240101:1200+REF42'UNZ+0+REF42'";

fn fixture(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../fixtures/as2")
        .join(name)
}

fn identity(name: &str) -> Identity {
    let read = |ext: &str| std::fs::read(fixture(&format!("{name}.{ext}"))).expect("fixture");
    Identity::from_pem(&read("crt"), &read("key")).expect("fixture identity")
}

fn now() -> DateTime<Utc> {
    Utc.timestamp_opt(1_800_000_000, 0)
        .single()
        .expect("valid time")
}

/// Partner A signs with its own key; it may ask for async MDNs below one URL.
fn partner_a(require_signature: bool, require_encryption: bool) -> PartnerSettings {
    PartnerSettings {
        as2_id: "A".into(),
        certificates: vec![fixture("partner-a.crt")],
        require_signature,
        require_encryption,
        async_mdn_urls: vec!["https://a.example/mdn/".into()],
        ..Default::default()
    }
}

fn directory(partner: PartnerSettings) -> Directory {
    Directory::from_settings(&GatewaySettings {
        hub_as2_id: HUB.into(),
        hub_certificate: Some(fixture("hub.crt")),
        hub_private_key: Some(fixture("hub.key")),
        partners: vec![partner],
        ..Default::default()
    })
    .expect("directory")
}

fn policy() -> Policy {
    Policy {
        hub_as2_id: HUB.into(),
        max_decompressed_bytes: 1024 * 1024,
    }
}

fn plain(from: &'static str, to: &'static str) -> PlainMessageSpec<'static> {
    PlainMessageSpec {
        as2_from: from,
        as2_to: to,
        message_id: "<m1@a.example>",
        subject: "invoice",
        content_type: "application/edifact",
        payload: PAYLOAD,
        request_mdn_to: Some("mdn@a.example"),
        request_signed_mdn: Some(MicAlg::Sha256),
    }
}

fn secured(
    plain: PlainMessageSpec<'_>,
    signer: Option<&Identity>,
    encrypt_to: Option<&Identity>,
) -> OutgoingMessage {
    build_secure_message(&SecureMessageSpec {
        plain,
        compress: false,
        sign: signer.map(|s| (s, MicAlg::Sha256)),
        encrypt: encrypt_to.map(|r| (&r.certificate, Encryption::Aes256Cbc)),
        boundary: "signed-boundary",
        now_unix: now().timestamp(),
    })
    .expect("message")
    .message
}

/// A message signed by A and encrypted to the hub.
fn signed_and_encrypted() -> OutgoingMessage {
    secured(
        plain("A", HUB),
        Some(&identity("partner-a")),
        Some(&identity("hub")),
    )
}

fn headers_of(message: &OutgoingMessage) -> As2Headers {
    As2Headers::from_pairs(
        message
            .headers
            .iter()
            .map(|(name, value)| (name.as_str(), value.as_bytes())),
    )
    .expect("AS2 headers")
}

fn with_header(mut message: OutgoingMessage, name: &str, value: &str) -> OutgoingMessage {
    message.headers.push((name.into(), value.into()));
    message
}

fn transfer_encoding(message: &OutgoingMessage) -> Option<&str> {
    message
        .headers
        .iter()
        .find(|(name, _)| name.eq_ignore_ascii_case("content-transfer-encoding"))
        .map(|(_, value)| value.as_str())
}

fn decide_on(message: &OutgoingMessage, directory: &Directory) -> Decision {
    decide_over_tls(message, directory, None)
}

/// The decision on `message` arriving over a connection whose TLS client certificate
/// has this SHA-256 (`None`: no client certificate).
fn decide_over_tls(
    message: &OutgoingMessage,
    directory: &Directory,
    tls_client_sha256: Option<[u8; 32]>,
) -> Decision {
    let headers = headers_of(message);
    let request = Request {
        headers: &headers,
        transfer_encoding: transfer_encoding(message),
        body: &message.body,
        message_id: Uuid::from_u128(1),
        mdn_nonce: Uuid::from_u128(2),
        now: now(),
        tls_client_sha256,
    };
    decide(&request, directory, &policy()).expect("a decision")
}

/// The refusal's disposition and reason, after checking its MDN says the same.
fn refused(decision: Decision) -> (DispositionError, String, ReceiptDelivery) {
    match decision {
        Decision::Refuse(refused) => {
            assert_eq!(
                refused.mdn.disposition,
                Disposition::Failed(refused.disposition)
            );
            (refused.disposition, refused.reason, refused.receipt)
        }
        Decision::Accept(accepted) => panic!("accepted: {:?}", accepted.layers),
    }
}

#[test]
fn a_signed_and_encrypted_message_is_accepted_with_a_signed_processed_mdn() {
    let message = signed_and_encrypted();
    let Decision::Accept(accepted) = decide_on(&message, &directory(partner_a(true, true))) else {
        panic!("refused");
    };
    assert_eq!(accepted.payload, PAYLOAD);
    assert_eq!(accepted.content_type, "application/edifact");
    assert!(accepted.layers.signed && accepted.layers.encrypted && !accepted.layers.compressed);
    let unb = accepted.unb.expect("UNB read");
    assert_eq!(unb.control_reference, "REF42");
    assert_eq!(accepted.async_mdn, None);

    // The partner can verify the MDN against the hub's certificate, and its MIC.
    let mdn = &accepted.mdn;
    assert_eq!(mdn.disposition, Disposition::Processed);
    assert_eq!(mdn.message_id, format!("{}@edihub", Uuid::from_u128(2)));
    let verified = read_mdn(&mdn.content_type, &mdn.body, &[identity("hub").certificate])
        .expect("MDN verifies");
    assert!(verified.signed);
    assert_eq!(verified.report.received_content_mic, Some(accepted.mic));
    assert_eq!(verified.report.original_message_id, "m1@a.example");
}

#[test]
fn the_decision_is_the_same_for_the_same_request() {
    let message = signed_and_encrypted();
    let directory = directory(partner_a(true, true));
    let mdn_of = |decision| match decision {
        Decision::Accept(accepted) => accepted.mdn,
        Decision::Refuse(refused) => refused.mdn,
    };
    assert_eq!(
        mdn_of(decide_on(&message, &directory)),
        mdn_of(decide_on(&message, &directory))
    );
}

#[test]
fn an_unknown_as2_to_is_refused_with_authentication_failed_from_the_main_identity() {
    let message = secured(plain("A", "SOMEONE-ELSE"), None, None);
    let Decision::Refuse(refused) = decide_on(&message, &directory(partner_a(false, false))) else {
        panic!("accepted");
    };
    assert_eq!(refused.disposition, DispositionError::AuthenticationFailed);
    assert_eq!(refused.reason, "AS2-To \"SOMEONE-ELSE\" is not this hub");
    // Signed by the hub's main identity, as the partner asked.
    let verified = read_mdn(
        &refused.mdn.content_type,
        &refused.mdn.body,
        &[identity("hub").certificate],
    )
    .expect("MDN verifies");
    assert_eq!(verified.report.final_recipient, HUB);
}

#[test]
fn an_unknown_as2_from_is_refused_with_authentication_failed() {
    let message = secured(plain("STRANGER", HUB), None, None);
    let (disposition, reason, _) =
        refused(decide_on(&message, &directory(partner_a(false, false))));
    assert_eq!(disposition, DispositionError::AuthenticationFailed);
    assert_eq!(reason, "AS2-From \"STRANGER\" is not a configured partner");
}

#[test]
fn a_signature_by_another_key_is_refused_with_authentication_failed() {
    let message = secured(plain("A", HUB), Some(&identity("partner-b")), None);
    let (disposition, reason, _) =
        refused(decide_on(&message, &directory(partner_a(false, false))));
    assert_eq!(disposition, DispositionError::AuthenticationFailed);
    assert!(
        reason.starts_with("not signed with the partner's certificate"),
        "{reason}"
    );
}

#[test]
fn content_altered_after_signing_is_refused_with_integrity_check_failed() {
    let mut message = secured(plain("A", HUB), Some(&identity("partner-a")), None);
    let at = message
        .body
        .windows(5)
        .position(|w| w == b"REF42")
        .expect("payload in the body");
    message.body[at] = b'X';
    let (disposition, _, _) = refused(decide_on(&message, &directory(partner_a(false, false))));
    assert_eq!(disposition, DispositionError::IntegrityCheckFailed);
}

#[test]
fn a_message_encrypted_to_someone_else_is_refused_with_decryption_failed() {
    let message = secured(plain("A", HUB), None, Some(&identity("partner-b")));
    let (disposition, _, _) = refused(decide_on(&message, &directory(partner_a(false, false))));
    assert_eq!(disposition, DispositionError::DecryptionFailed);
}

#[test]
fn an_unsigned_message_where_a_signature_is_required_is_refused_as_insufficient() {
    let message = secured(plain("A", HUB), None, Some(&identity("hub")));
    let (disposition, _, _) = refused(decide_on(&message, &directory(partner_a(true, false))));
    assert_eq!(disposition, DispositionError::InsufficientMessageSecurity);
}

#[test]
fn a_disallowed_async_mdn_url_is_refused_before_any_work() {
    // Encrypted to someone else: had it been unwrapped, it would be decryption-failed.
    let message = with_header(
        secured(plain("A", HUB), None, Some(&identity("partner-b"))),
        "Receipt-Delivery-Option",
        "http://169.254.169.254/latest",
    );
    let (disposition, reason, receipt) =
        refused(decide_on(&message, &directory(partner_a(false, false))));
    assert_eq!(disposition, DispositionError::UnexpectedProcessingError);
    assert!(reason.contains("169.254.169.254"), "{reason}");
    assert!(matches!(receipt, ReceiptDelivery::Disallowed(_)));
}

#[test]
fn an_allowed_async_mdn_url_is_where_the_mdn_goes() {
    let message = with_header(
        signed_and_encrypted(),
        "Receipt-Delivery-Option",
        "https://a.example/mdn/in",
    );
    let Decision::Accept(accepted) = decide_on(&message, &directory(partner_a(true, true))) else {
        panic!("refused");
    };
    assert_eq!(
        accepted.async_mdn.map(String::from),
        Some("https://a.example/mdn/in".to_owned())
    );
}

#[test]
fn a_payload_without_unb_is_accepted_for_the_consumer_to_reject() {
    let spec = PlainMessageSpec {
        payload: b"not EDIFACT at all",
        ..plain("A", HUB)
    };
    let message = build_plain_message(&spec);
    let Decision::Accept(accepted) = decide_on(&message, &directory(partner_a(false, false)))
    else {
        panic!("refused");
    };
    assert!(accepted.unb.is_none());
    assert_eq!(accepted.payload, b"not EDIFACT at all");
}

#[test]
fn a_hub_without_a_key_answers_a_signed_receipt_request_unsigned() {
    let directory = Directory::from_settings(&GatewaySettings {
        hub_as2_id: HUB.into(),
        partners: vec![partner_a(false, false)],
        ..Default::default()
    })
    .expect("directory");
    let message = build_plain_message(&plain("A", HUB));
    let Decision::Accept(accepted) = decide_on(&message, &directory) else {
        panic!("refused");
    };
    assert!(
        accepted.mdn.content_type.starts_with("multipart/report"),
        "{}",
        accepted.mdn.content_type
    );
}

#[test]
fn a_partnership_pinning_tls_client_certificates_refuses_other_connections_before_any_work() {
    let pinned = [0x5a; 32];
    let partner = PartnerSettings {
        tls_client_fingerprints: vec![hex_of(&pinned)],
        ..partner_a(true, true)
    };
    let directory = directory(partner);
    let message = signed_and_encrypted();
    for presented in [None, Some([0x11; 32])] {
        let (disposition, reason, _) = refused(decide_over_tls(&message, &directory, presented));
        assert_eq!(disposition, DispositionError::AuthenticationFailed);
        assert!(reason.contains("TLS client certificate"), "{reason}");
    }
    let Decision::Accept(_) = decide_over_tls(&message, &directory, Some(pinned)) else {
        panic!("refused with the pinned certificate");
    };
}

fn hex_of(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

#[test]
fn a_replay_is_answered_with_a_signed_duplicate_document_warning() {
    let message = signed_and_encrypted();
    let directory = directory(partner_a(true, true));
    let Decision::Accept(accepted) = decide_on(&message, &directory) else {
        panic!("refused");
    };
    let headers = headers_of(&message);
    let request = Request {
        headers: &headers,
        transfer_encoding: None,
        body: &[],
        message_id: Uuid::from_u128(3),
        mdn_nonce: Uuid::from_u128(4),
        now: now(),
        tls_client_sha256: None,
    };
    let mdn = edihub_inbound::replay_mdn(
        &request,
        &directory,
        &policy(),
        accepted.mic.clone(),
        "<first@a.example>",
    )
    .expect("MDN");
    assert_eq!(
        mdn.disposition.outcome(),
        "processed/warning: duplicate-document"
    );
    let hub = identity("hub");
    let read = read_mdn(
        &mdn.content_type,
        &mdn.body,
        std::slice::from_ref(&hub.certificate),
    )
    .expect("signed by the hub");
    assert!(read.signed);
    assert_eq!(read.report.received_content_mic, Some(accepted.mic));
}
