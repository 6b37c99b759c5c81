//! Unit tests of the acknowledgement reader, on small hand-written messages: one file
//! per message type, the code lists and the published form here.

mod aperak;
mod contrl;

use super::codes::{self, syntax_error_meaning};
use super::*;
use crate::{ElementPosition, Interchange};

/// The one message of an interchange around `body`, a message of type `identifier`.
/// Counts are not checked (the tolerant parse), so bodies can be edited freely.
fn message(identifier: &str, body: &str) -> Message {
    let text = format!(
        "UNB+UNOC:3+PARTNER:14+HUB:14+261203:1015+PA1'UNH+ACK1+{identifier}'{body}UNT+9+ACK1'UNZ+1+PA1'"
    );
    let (mut interchange, _) =
        Interchange::parse_tolerant(text.as_bytes()).unwrap_or_else(|e| panic!("{e}\n{text}"));
    interchange.messages.remove(0)
}

fn read_ok(identifier: &str, body: &str) -> ReceivedAcknowledgement {
    match read(&message(identifier, body)) {
        Some(Ok(ack)) => ack,
        other => panic!("{other:?}"),
    }
}

fn read_err(identifier: &str, body: &str) -> ReadError {
    match read(&message(identifier, body)) {
        Some(Err(e)) => e,
        other => panic!("{other:?}"),
    }
}

#[test]
fn other_message_types_are_not_acknowledgements() {
    assert_eq!(read(&message("INVOIC:D:96A:UN", "BGM+380+1'")), None);
    assert_eq!(read(&message("DESADV:D:96A:UN", "BGM+351+1'")), None);
}

#[test]
fn every_code_the_hub_writes_has_its_iso_name() {
    let written = [
        "2", "12", "13", "17", "18", "19", "20", "21", "26", "28", "29", "30", "32", "33", "37",
    ];
    for code in written {
        assert!(syntax_error_meaning(code).is_some(), "{code}");
    }
    assert_eq!(syntax_error_meaning("12"), Some("invalid value"));
    assert_eq!(
        syntax_error_meaning("29"),
        Some("control count does not match number of instances received")
    );
    // Not written by the hub, sent by partners.
    assert_eq!(
        syntax_error_meaning("23"),
        Some("unknown interchange sender")
    );
    assert_eq!(syntax_error_meaning("99"), None);
    assert_eq!(syntax_error_meaning(""), None);
}

#[test]
fn action_codes_follow_0083_and_the_hub_writer() {
    use crate::contrl::Action as Written;
    for written in [Written::Accepted, Written::Rejected] {
        assert_eq!(codes::action(written.code()), Some(Action::from(written)));
        assert_eq!(Action::from(written).as_str(), written.as_str());
    }
    assert_eq!(codes::action("8"), Some(Action::Received));
    assert_eq!(codes::action("3"), Some(Action::PartiallyAccepted));
    assert_eq!(codes::action("6"), Some(Action::Rejected));
    assert_eq!(codes::action("9"), None);
    assert_eq!(codes::action("07"), None);
}

#[test]
fn the_published_form_is_kebab_case_and_round_trips() {
    let ack = read_ok(
        "CONTRL:D:3:UN",
        "UCI+HB1+HUB:14+PARTNER:14+7'UCM+M1+INVOIC:D:96A:UN+4'UCS+3'UCD+12+1:2'",
    );
    let json = serde_json::to_value(&ack).expect("serialises");
    assert_eq!(json["action"], "partially-accepted");
    assert_eq!(json["messages"][0]["action"], "rejected");
    assert_eq!(json["messages"][0]["errors"][0]["element"]["component"], 2);
    let back: ReceivedAcknowledgement = serde_json::from_value(json).expect("deserialises");
    assert_eq!(back, ack);
    for action in [
        Action::Accepted,
        Action::Rejected,
        Action::Received,
        Action::PartiallyAccepted,
    ] {
        let name = serde_json::to_value(action).expect("serialises");
        assert_eq!(name, action.as_str());
    }
}

#[test]
fn the_schema_names_every_action() {
    let schema = schemars::schema_for!(ReceivedAcknowledgement);
    let text = serde_json::to_string(&schema).expect("serialises");
    for name in [
        "partially-accepted",
        "received",
        "interchange_reference",
        "segment_position",
    ] {
        assert!(text.contains(name), "{name} in {text}");
    }
}

#[test]
fn a_read_error_names_the_segment_and_byte() {
    let e = read_err("CONTRL:D:3:UN", "UCI+HB1+HUB+PARTNER+9'");
    let text = e.to_string();
    assert!(text.starts_with("action code \"9\" (0083)"), "{text}");
    assert!(text.ends_with("at segment 3 (byte offset 68)"), "{text}");
}
