//! `EdiMessageParsed` and the warnings, as the transform consumer publishes them, built
//! from real fixtures without a database.

use edihub_edifact::InterchangeHeader;
use edihub_edifact::charset::CharsetPolicy;
use edihub_edifact::check::{MessageOutput, Options, evaluate_each_with};
use edihub_events::EdiMessageParsed;
use edihub_transform::{charset_policy, parsed_event};
use uuid::Uuid;

fn fixture(name: &str) -> Vec<u8> {
    let path = format!(
        "{}/../../fixtures/edifact/{name}",
        env!("CARGO_MANIFEST_DIR")
    );
    std::fs::read(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

/// Every message's event, and whether the interchange was accepted.
fn parsed(input: &[u8], charset: CharsetPolicy) -> (Vec<EdiMessageParsed>, bool) {
    let options = Options { charset };
    let header = InterchangeHeader::peek_with(input, charset).expect("UNB");
    let mut outputs: Vec<MessageOutput> = Vec::new();
    let report = evaluate_each_with(input, &options, &mut |m| outputs.push(m));
    let events = outputs
        .iter()
        .map(|o| parsed_event(Uuid::nil(), &header, o).expect("serialises"))
        .collect();
    (events, !report.must_reject())
}

#[test]
fn a_desadv_is_published_whole_with_the_schemas_fields() {
    let (events, accepted) = parsed(&fixture("desadv-eancom-d96a.edi"), CharsetPolicy::Tolerant);
    assert!(accepted);
    assert_eq!(events.len(), 1);
    let event = &events[0];
    assert_eq!(event.message_type, "DESADV");
    assert!(event.acknowledgement.is_none());
    let segments = event.message["segments"].as_array().expect("segments");
    assert_eq!(segments[0]["tag"], "UNH");
    assert_eq!(segments.last().map(|s| &s["tag"]), Some(&"UNT".into()));

    let json = serde_json::to_value(event).expect("json");
    let schema = serde_json::to_value(schemars::schema_for!(EdiMessageParsed)).expect("schema");
    let properties = schema["properties"].as_object().expect("properties");
    for key in json.as_object().expect("object").keys() {
        assert!(properties.contains_key(key), "schema lacks {key}");
    }
    for required in schema["required"].as_array().expect("required") {
        let key = required.as_str().expect("name");
        assert!(json.get(key).is_some(), "event lacks {key}");
    }
}

#[test]
fn an_inbound_contrl_is_published_with_what_it_acknowledges() {
    let (events, accepted) = parsed(&fixture("contrl-rejecting.edi"), CharsetPolicy::Tolerant);
    assert!(accepted, "a CONTRL that rejects is itself a sound message");
    let acknowledgement = events[0].acknowledgement.as_ref().expect("decoded");
    assert_eq!(acknowledgement["action"], "rejected");
    assert!(acknowledgement["interchange_reference"].is_string());
}

#[test]
fn charset_warnings_ride_on_the_event_and_strict_rejects() {
    let input = fixture("charset-unoa-lower-case.edi");
    let (events, accepted) = parsed(&input, CharsetPolicy::Tolerant);
    assert!(accepted);
    let warnings = &events[0].warnings;
    assert!(!warnings.is_empty());
    assert!(warnings.iter().all(|w| w.code == "charset"));
    assert!(warnings.iter().all(|w| w.syntax_identifier == "UNOA"));
    let first = &warnings[0];
    let offset = first.byte_offset.expect("byte offset") as usize;
    assert!(input[offset].is_ascii_lowercase(), "points at the byte");

    let (_, accepted) = parsed(&input, CharsetPolicy::Strict);
    assert!(!accepted, "strict: a fault");
}

#[test]
fn an_event_without_a_policy_means_tolerant() {
    assert_eq!(charset_policy(None), CharsetPolicy::Tolerant);
    assert_eq!(
        charset_policy(Some(edihub_events::CharsetPolicy::Strict)),
        CharsetPolicy::Strict
    );
}
