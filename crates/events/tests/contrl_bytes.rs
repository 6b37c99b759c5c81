//! `EdiAcknowledgementIssued::contrl_bytes`: the CONTRL's text as the bytes its syntax
//! identifier says.

use edihub_events::{AcknowledgementAction, EdiAcknowledgementIssued};

fn issued(syntax_identifier: &str, contrl: &str) -> EdiAcknowledgementIssued {
    EdiAcknowledgementIssued {
        message_id: uuid::Uuid::nil(),
        as2_from: "ACME".into(),
        as2_to: "EDIHUB".into(),
        acknowledged_reference: "R1".into(),
        unb_sender: "S".into(),
        unb_recipient: "R".into(),
        action: AcknowledgementAction::Accepted,
        contrl_reference: "C1".into(),
        syntax_identifier: syntax_identifier.into(),
        contrl: contrl.into(),
        outbound_id: None,
    }
}

#[test]
fn unoc_is_one_byte_per_character_and_the_others_are_utf8() {
    assert_eq!(
        issued("UNOC", "NAD+Müller'").contrl_bytes(),
        b"NAD+M\xfcller'"
    );
    assert_eq!(
        issued("UNOW", "NAD+Müller'").contrl_bytes(),
        "NAD+Müller'".as_bytes()
    );
    assert_eq!(issued("UNOA", "UNB+UNOA'").contrl_bytes(), b"UNB+UNOA'");
}

#[test]
fn a_character_latin1_cannot_carry_becomes_a_question_mark() {
    assert_eq!(issued("UNOC", "NAD+€'").contrl_bytes(), b"NAD+?'");
}
