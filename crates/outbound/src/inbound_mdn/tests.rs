use super::*;
use edihub_as2::mdn::{Disposition, DispositionError, MdnReport, build_mdn};
use edihub_as2::{Identity, MicAlg};
use edihub_config::{GatewaySettings, PartnerOutboundSettings, PartnerSettings};
use std::path::PathBuf;

fn fixture_path(name: &str) -> PathBuf {
    PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../../fixtures/as2/")).join(name)
}

fn identity(name: &str) -> Identity {
    let read = |ext: &str| std::fs::read(fixture_path(&format!("{name}.{ext}"))).expect("fixture");
    Identity::from_pem(&read("crt"), &read("key")).expect("identity")
}

/// The hub `EDIHUB` (no key) and `PARTNER` (partner-a's certificate), which the hub
/// sends to when `outbound`.
fn directory(outbound: bool) -> Directory {
    let settings = GatewaySettings {
        hub_as2_id: "EDIHUB".into(),
        partners: vec![PartnerSettings {
            as2_id: "PARTNER".into(),
            certificates: vec![fixture_path("partner-a.crt")],
            outbound: outbound.then(|| PartnerOutboundSettings {
                url: "https://partner.example/as2".into(),
                sign: Some("none".into()),
                ..Default::default()
            }),
            ..Default::default()
        }],
        ..Default::default()
    };
    Directory::from_settings(&settings).expect("directory")
}

fn sent(signed_mdn_requested: bool) -> SentMessage {
    let content = b"UNB+UNOC:3'".to_vec();
    SentMessage {
        message_id: "m1@EDIHUB".into(),
        expected_mic: Mic::compute(MicAlg::Sha256, &content),
        mic_content: content,
        signed_mdn_requested,
        message_signed: true,
        accepted_mic_algs: vec![MicAlg::Sha256, MicAlg::Sha1],
    }
}

fn report(mic: Option<Mic>, disposition: Disposition) -> MdnReport {
    MdnReport {
        reporting_ua: "test".into(),
        original_recipient: "PARTNER".into(),
        final_recipient: "PARTNER".into(),
        original_message_id: "m1@EDIHUB".into(),
        received_content_mic: mic,
        disposition,
        human_text: "test".into(),
    }
}

/// The partner's MDN as POSTed: (content type, body), signed by `signer`.
fn mdn(report: &MdnReport, signer: Option<&str>) -> (String, Vec<u8>) {
    let built = build_mdn(report, "PARTNER", "EDIHUB", "mdn1@PARTNER", "b1");
    let built = match signer {
        Some(name) => {
            edihub_as2::sign_mdn(built, &identity(name), MicAlg::Sha256, "b2", 0).expect("signed")
        }
        None => built,
    };
    (built.content_type, built.body)
}

fn good_mic() -> Option<Mic> {
    Some(sent(true).expected_mic)
}

#[test]
fn reports_and_signed_reports_are_mdns_and_signed_documents_are_not() {
    let (report_type, report_body) = mdn(&report(good_mic(), Disposition::Processed), None);
    assert!(is_mdn(&report_type, &report_body));
    let (signed_type, signed_body) = mdn(
        &report(good_mic(), Disposition::Processed),
        Some("partner-a"),
    );
    assert!(signed_type.starts_with("multipart/signed"));
    assert!(is_mdn(&signed_type, &signed_body));
    let document = b"--b\r\nContent-Type: application/edifact\r\n\r\nUNB+'\r\n--b--\r\n";
    assert!(!is_mdn(
        "multipart/signed; protocol=\"application/pkcs7-signature\"; boundary=\"b\"",
        document
    ));
    assert!(!is_mdn(
        "application/pkcs7-mime; smime-type=enveloped-data",
        b""
    ));
    assert!(!is_mdn("multipart/signed", &signed_body), "no boundary");
    assert!(is_mdn(
        "Multipart/Report; report-type=disposition-notification",
        b""
    ));
}

#[test]
fn an_mdn_from_a_partner_the_hub_sends_to_is_verified_against_its_certificates() {
    let (ct, body) = mdn(
        &report(good_mic(), Disposition::Processed),
        Some("partner-a"),
    );
    let read_mdn = read(&directory(true), "PARTNER", "EDIHUB", &ct, &body).expect("read");
    assert!(read_mdn.signed);
    assert_eq!(read_mdn.report.original_message_id, "m1@EDIHUB");

    let (forged_ct, forged) = mdn(
        &report(good_mic(), Disposition::Processed),
        Some("partner-b"),
    );
    let forged = read(&directory(true), "PARTNER", "EDIHUB", &forged_ct, &forged);
    assert!(matches!(forged, Err(Ignored::Unreadable(_))), "{forged:?}");
}

#[test]
fn an_mdn_from_no_outbound_partner_or_to_no_identity_is_ignored_unread() {
    let (ct, body) = mdn(
        &report(good_mic(), Disposition::Processed),
        Some("partner-a"),
    );
    assert_eq!(
        read(&directory(false), "PARTNER", "EDIHUB", &ct, &body).err(),
        Some(Ignored::NotOurPartner("PARTNER".into()))
    );
    assert_eq!(
        read(&directory(true), "STRANGER", "EDIHUB", &ct, &body).err(),
        Some(Ignored::NotOurPartner("STRANGER".into()))
    );
    assert_eq!(
        read(&directory(true), "PARTNER", "OTHER", &ct, &body).err(),
        Some(Ignored::NotOurIdentity("OTHER".into()))
    );
}

fn judged(report: &MdnReport, signer: Option<&str>, sent: &SentMessage) -> Result<Judged, Ignored> {
    let (ct, body) = mdn(report, signer);
    let read_mdn = read(&directory(true), "PARTNER", "EDIHUB", &ct, &body).expect("read");
    judge(sent, &read_mdn)
}

#[test]
fn a_processed_mdn_with_our_mic_delivers_and_a_refusal_or_mismatch_fails() {
    let ok = judged(
        &report(good_mic(), Disposition::Processed),
        Some("partner-a"),
        &sent(true),
    );
    assert_eq!(ok, Ok(Judged::Delivered { mic: good_mic() }));

    let other = Some(Mic::compute(MicAlg::Sha256, b"something else"));
    let mismatch = judged(
        &report(other.clone(), Disposition::Processed),
        Some("partner-a"),
        &sent(true),
    );
    match mismatch {
        Ok(Judged::Failed { reason, mic, .. }) => {
            assert!(reason.contains("MIC mismatch"), "{reason}");
            assert_eq!(mic, other);
        }
        other => panic!("{other:?}"),
    }
    let refused = report(
        None,
        Disposition::Failed(DispositionError::DecryptionFailed),
    );
    let refused = judged(&refused, Some("partner-a"), &sent(true));
    assert!(matches!(refused, Ok(Judged::Failed { .. })), "{refused:?}");
}

#[test]
fn an_unsigned_mdn_when_a_signed_one_was_asked_changes_nothing() {
    let processed = report(good_mic(), Disposition::Processed);
    assert_eq!(
        judged(&processed, None, &sent(true)),
        Err(Ignored::Unsigned)
    );
    assert_eq!(
        judged(&processed, None, &sent(false)),
        Ok(Judged::Delivered { mic: good_mic() })
    );
}

#[test]
fn the_stored_receipt_gives_back_what_was_sent() {
    let original = sent(true);
    let stored = serde_json::to_value(SentReceipt::of(&original)).expect("json");
    let receipt: SentReceipt = serde_json::from_value(stored).expect("read back");
    let again = receipt.sent_message(original.message_id.clone(), original.mic_content.clone());
    assert_eq!(again, Some(original));
}
