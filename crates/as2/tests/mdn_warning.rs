//! `processed/warning` MDNs as a sender reads them: the partner took the message, and
//! its remark reaches `Receipt.warning` (RFC 4130 section 7.4.3: a warning is not a
//! failure).

use edihub_as2::receipt::{Receipt, SentMessage, check_receipt};
use edihub_as2::{
    Disposition, DispositionWarning, Identity, MdnReport, Mic, MicAlg, SecureMessageSpec,
    VerifiedMdn, build_mdn, build_secure_message, parse_mdn, read_mdn, sign_mdn,
};

const HUB_CRT: &[u8] = include_bytes!("../../../fixtures/as2/hub.crt");
const HUB_KEY: &[u8] = include_bytes!("../../../fixtures/as2/hub.key");
const A_CRT: &[u8] = include_bytes!("../../../fixtures/as2/partner-a.crt");
const A_KEY: &[u8] = include_bytes!("../../../fixtures/as2/partner-a.key");
// Inside the fixture certificates' validity.
const NOW: i64 = 1_800_000_000;
const MESSAGE_ID: &str = "warned-1@partner-a";

fn identity(crt: &[u8], key: &[u8]) -> Identity {
    Identity::from_pem(crt, key).expect("fixture identity")
}

/// A message PARTNER-A signs with sha-256 and sends to the hub, asking for a signed MDN.
fn sent() -> SentMessage {
    let a = identity(A_CRT, A_KEY);
    let spec = SecureMessageSpec {
        plain: edihub_as2::PlainMessageSpec {
            as2_from: "PARTNER-A",
            as2_to: "EDIHUB",
            message_id: MESSAGE_ID,
            subject: "invoice",
            content_type: "application/edifact",
            payload: b"UNB+UNOC:3+A+B+261204:0300+7'UNZ+0+7'",
            request_mdn_to: Some("mailto:a@example.invalid"),
            request_signed_mdn: Some(MicAlg::Sha256),
        },
        compress: false,
        sign: Some((&a, MicAlg::Sha256)),
        encrypt: None,
        boundary: "warn-sig",
        now_unix: NOW,
    };
    build_secure_message(&spec).expect("build").sent_message()
}

fn report(mic: Mic, disposition: Disposition) -> MdnReport {
    MdnReport {
        reporting_ua: "edihub AS2 gateway".into(),
        original_recipient: "EDIHUB".into(),
        final_recipient: "EDIHUB".into(),
        original_message_id: MESSAGE_ID.into(),
        received_content_mic: Some(mic),
        disposition,
        human_text: "Received, with a remark.".into(),
    }
}

/// The hub's signed MDN for `report`, as the sender reads it off the wire.
fn signed_mdn(report: &MdnReport) -> VerifiedMdn {
    let hub = identity(HUB_CRT, HUB_KEY);
    let built = build_mdn(report, "EDIHUB", "PARTNER-A", "mdn-9@hub", "warn-report");
    let built = sign_mdn(built, &hub, MicAlg::Sha256, "warn-signed", NOW).expect("sign");
    read_mdn(&built.content_type, &built.body, &[hub.certificate]).expect("read")
}

#[test]
fn our_signed_warning_mdn_reads_back_as_a_receipt_with_the_warning() {
    let sent = sent();
    for warning in [
        DispositionWarning::DuplicateDocument,
        DispositionWarning::Other("translated with defaults".into()),
    ] {
        let disposition = Disposition::Warning(warning.clone());
        let read = signed_mdn(&report(sent.expected_mic.clone(), disposition.clone()));
        assert!(read.signed);
        assert_eq!(read.report.disposition, disposition);
        assert_eq!(
            check_receipt(&sent, &read),
            Ok(Receipt {
                mic: Some(sent.expected_mic.clone()),
                warning: Some(warning),
            })
        );
    }
}

/// An unsigned MDN laid out as pyas2lib writes one (Python's email package: its
/// boundary, quoted charset, `Received-content-MIC`, the capitalised `Warning`).
fn pyas2lib_style(disposition: &str, mic: &Mic) -> (String, Vec<u8>) {
    let boundary = "===============4242424242424242424==";
    let content_type = format!(
        "multipart/report; report-type=\"disposition-notification\"; boundary=\"{boundary}\""
    );
    let body = format!(
        "--{boundary}\r\n\
         Content-Type: text/plain; charset=\"us-ascii\"\r\n\
         Content-Transfer-Encoding: 7bit\r\n\
         \r\n\
         The AS2 message has been received.\r\n\
         \r\n\
         --{boundary}\r\n\
         Content-Type: message/disposition-notification\r\n\
         Content-Transfer-Encoding: 7bit\r\n\
         \r\n\
         Reporting-UA: pyAS2 Open Source AS2 Software\r\n\
         Original-Recipient: rfc822; EDIHUB\r\n\
         Final-Recipient: rfc822; EDIHUB\r\n\
         Original-Message-ID: <{MESSAGE_ID}>\r\n\
         Disposition: automatic-action/MDN-sent-automatically; {disposition}\r\n\
         Received-content-MIC: {}\r\n\
         \r\n\
         --{boundary}--\r\n",
        mic.header_value()
    );
    (content_type, body.into_bytes())
}

/// What `check_receipt` makes of a pyas2lib-style unsigned MDN (no signed MDN asked).
fn pyas2lib_receipt(disposition: &str) -> Receipt {
    let mut sent = sent();
    sent.signed_mdn_requested = false;
    let (content_type, body) = pyas2lib_style(disposition, &sent.expected_mic);
    let report = parse_mdn(&content_type, &body).expect("parse");
    let read = VerifiedMdn {
        report,
        signed: false,
    };
    check_receipt(&sent, &read).expect("a warning is a receipt")
}

#[test]
fn a_pyas2lib_duplicate_document_warning_is_known() {
    let receipt = pyas2lib_receipt("processed/Warning: duplicate-document");
    assert_eq!(receipt.warning, Some(DispositionWarning::DuplicateDocument));
    assert!(receipt.mic.is_some());
}

#[test]
fn an_unknown_warning_keeps_the_partners_text() {
    let receipt = pyas2lib_receipt("processed/Warning:  Message Integrity check failed. ");
    let warning = receipt.warning.expect("the warning");
    assert_eq!(
        warning,
        DispositionWarning::Other("Message Integrity check failed.".into())
    );
    assert_eq!(warning.as_str(), "Message Integrity check failed.");
    assert_eq!(
        Disposition::Warning(warning).outcome(),
        "processed/warning: Message Integrity check failed."
    );
}

#[test]
fn a_plain_processed_mdn_has_no_warning() {
    assert_eq!(pyas2lib_receipt("processed").warning, None);
}
