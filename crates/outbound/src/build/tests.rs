use super::*;
use edihub_as2::{Encryption, MicAlg};

fn fixture(name: &str) -> Vec<u8> {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../fixtures/as2/");
    std::fs::read(format!("{path}{name}")).expect("fixture")
}

fn hub() -> Identity {
    Identity::from_pem(&fixture("hub.crt"), &fixture("hub.key")).expect("hub identity")
}

fn partner_certificates() -> Vec<Certificate> {
    edihub_as2::certificates_from_pem(&fixture("partner-a.crt")).expect("partner certificate")
}

const PARTS: Parts<'static> = Parts {
    hub_as2_id: "EDIHUB",
    partner: "PARTNER",
    message_id: "m1@EDIHUB",
    subject: "invoice.edi",
    content_type: "application/edifact",
    payload: b"UNA:+.? 'UNB+UNOC:3'",
};

fn header<'a>(built: &'a Built, name: &str) -> Option<&'a str> {
    built
        .message
        .headers
        .iter()
        .find(|(n, _)| n.eq_ignore_ascii_case(name))
        .map(|(_, v)| v.as_str())
}

#[test]
fn the_default_partnership_signs_encrypts_and_asks_for_a_signed_sync_mdn() {
    let outbound = OutboundPartnership::new("http://partner/as2".into());
    let built = build_message(
        &PARTS,
        &outbound,
        Some(&hub()),
        &partner_certificates(),
        "b1",
        0,
    )
    .expect("built");
    assert!(
        header(&built, "Content-Type")
            .unwrap()
            .contains("enveloped-data")
    );
    assert_eq!(header(&built, "Message-ID"), Some("<m1@EDIHUB>"));
    assert_eq!(header(&built, "AS2-To"), Some("PARTNER"));
    assert!(header(&built, "Disposition-Notification-Options").is_some());
    assert!(header(&built, "Receipt-Delivery-Option").is_none());
    assert!(built.sent.signed_mdn_requested);
    assert_eq!(built.sent.message_id, "m1@EDIHUB");
    assert!(
        !built.message.body.windows(3).any(|w| w == b"UNB"),
        "encrypted"
    );
}

#[test]
fn signing_without_a_hub_key_or_encrypting_without_a_certificate_cannot_be_built() {
    let outbound = OutboundPartnership::new("http://partner/as2".into());
    let no_key = build_message(&PARTS, &outbound, None, &partner_certificates(), "b", 0);
    assert!(matches!(no_key, Err(BuildError::NoSigningKey(id)) if id == "EDIHUB"));
    let no_cert = build_message(&PARTS, &outbound, Some(&hub()), &[], "b", 0);
    assert!(matches!(no_cert, Err(BuildError::NoPartnerCertificate)));
}

#[test]
fn an_async_request_names_the_return_url_and_none_asks_for_nothing() {
    let mut outbound = OutboundPartnership::new("http://partner/as2".into());
    outbound.sign = Some(MicAlg::Sha256);
    outbound.encrypt = Some(Encryption::Aes128Cbc);
    outbound.mdn = MdnRequest::Async {
        signed: None,
        return_url: "https://hub.example/as2".into(),
    };
    let built = build_message(
        &PARTS,
        &outbound,
        Some(&hub()),
        &partner_certificates(),
        "b",
        0,
    )
    .expect("built");
    assert_eq!(
        header(&built, "Receipt-Delivery-Option"),
        Some("https://hub.example/as2")
    );
    outbound.mdn = MdnRequest::None;
    outbound.sign = None;
    outbound.encrypt = None;
    let plain = build_message(&PARTS, &outbound, None, &[], "b", 0).expect("built");
    assert!(header(&plain, "Disposition-Notification-To").is_none());
    assert_eq!(plain.message.body, PARTS.payload);
}

#[test]
fn message_ids_are_unique_and_carry_no_header_breaking_characters() {
    let id = Uuid::now_v7();
    let made = message_id(id, "ACME Hub <x>");
    assert_eq!(made, format!("{}@ACME-Hub--x-", id.simple()));
    assert_ne!(
        message_id(Uuid::now_v7(), "H"),
        message_id(Uuid::now_v7(), "H")
    );
    assert!(message_id(id, "").ends_with("@edihub"));
}
