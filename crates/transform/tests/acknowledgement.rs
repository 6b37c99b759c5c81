//! `acknowledgement`, the CONTRL event the transform consumer adds when UNB asks for
//! one, without a database: deterministic per message, accepted or rejected with the
//! interchange.

use chrono::{TimeZone, Utc};
use edihub_edifact::check::evaluate;
use edihub_events::{AcknowledgementAction, ClaimCheck, EdiMessageReceived};
use edihub_transform::{acknowledgement, contrl_reference};
use uuid::Uuid;

const SAMPLE: &str = include_str!("../../../fixtures/edifact/invoic-eancom-d96a.edi");

fn acked() -> String {
    SAMPLE.replace("+EH000001++INVOIC'", "+EH000001++INVOIC++1'")
}

fn received(message_id: Uuid) -> EdiMessageReceived {
    EdiMessageReceived {
        message_id,
        as2_from: "ACME-SUPPLIER".into(),
        as2_to: "EDIHUB".into(),
        as2_message_id: "m1@acme".into(),
        unb_reference: Some("EH000001".into()),
        unb_sender: Some("5412345000013".into()),
        unb_recipient: Some("4012345000094".into()),
        content_type: "application/edifact".into(),
        received_at: Utc.with_ymd_and_hms(2026, 12, 2, 14, 7, 59).unwrap(),
        payload: ClaimCheck::for_journal(message_id, "00".into(), 1),
        charset_policy: None,
        retention_years: None,
        send_contrl: false,
    }
}

#[test]
fn an_accepted_interchange_is_acknowledged_the_same_way_every_time() {
    let id = Uuid::parse_str("0193a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b").unwrap();
    let report = evaluate(acked().as_bytes());
    let ack = acknowledgement(&report, id, &received(id)).expect("UNB asks for a CONTRL");
    assert_eq!(ack.action, AcknowledgementAction::Accepted);
    assert_eq!(ack.contrl_reference, "9B0C1D2E3F4A5B");
    assert_eq!(ack.acknowledged_reference, "EH000001");
    assert_eq!(
        (ack.unb_sender.as_str(), ack.as2_from.as_str()),
        ("5412345000013", "ACME-SUPPLIER")
    );
    assert_eq!(ack.syntax_identifier, "UNOC");
    // Prepared at the time of receipt, not now.
    assert!(
        ack.contrl
            .contains("UNB+UNOC:3+4012345000094:14+5412345000013:14+261202:1407+9B0C1D2E3F4A5B"),
        "{}",
        ack.contrl
    );
    assert!(
        ack.contrl
            .contains("UCI+EH000001+5412345000013:14+4012345000094:14+7'")
    );
    // A redelivery builds the identical CONTRL.
    assert_eq!(acknowledgement(&report, id, &received(id)), Some(ack));
}

#[test]
fn a_rejected_interchange_is_acknowledged_with_its_faults() {
    let id = Uuid::now_v7();
    let input = acked().replace("QTY+47:10:PCE", "QTY+47:1O:PCE");
    let ack = acknowledgement(&evaluate(input.as_bytes()), id, &received(id)).expect("CONTRL");
    assert_eq!(ack.action, AcknowledgementAction::Rejected);
    // QTY is segment 15 of the interchange, 14 of the message; the bad value is
    // component 2 of element 1, so the fault goes in a UCD under the UCS.
    assert!(
        ack.contrl
            .contains("UCM+1+INVOIC:D:96A:UN:EAN008+4'UCS+14'UCD+12+1:2'"),
        "{}",
        ack.contrl
    );
}

#[test]
fn no_acknowledgement_unless_unb_asks() {
    let id = Uuid::now_v7();
    assert_eq!(
        acknowledgement(&evaluate(SAMPLE.as_bytes()), id, &received(id)),
        None
    );
}

#[test]
fn the_contrl_reference_is_fourteen_upper_case_hex_digits_of_the_id() {
    let id = Uuid::now_v7();
    let reference = contrl_reference(id);
    assert_eq!(reference.len(), 14);
    assert!(
        reference
            .bytes()
            .all(|b| b.is_ascii_digit() || b.is_ascii_uppercase())
    );
    assert!(
        id.simple()
            .to_string()
            .to_ascii_uppercase()
            .ends_with(&reference)
    );
}
