//! The JSON Schemas in docs/schema are generated from the Rust types of the published
//! contract and must match them. When this test fails after a deliberate change to an
//! event payload or to the canonical invoice, regenerate the files with
//!
//!     UPDATE_SCHEMAS=1 cargo test -p edihub-events --test json_schema
//!
//! and review the diff: a removed or renamed field is a breaking change for subscribers.

use std::path::PathBuf;

fn schema_dir() -> PathBuf {
    PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../../docs/schema"))
}

/// Every schema the hub documents, as (file stem, pretty JSON with a final newline).
fn generated() -> Vec<(&'static str, String)> {
    let mut schemas = edihub_events::payload_schemas();
    schemas.push((
        "canonical-invoice",
        schemars::schema_for!(edihub_edifact::invoic::CanonicalInvoice),
    ));
    schemas.push((
        "generic-message",
        schemars::schema_for!(edihub_edifact::generic::GenericMessage),
    ));
    schemas.push((
        "received-acknowledgement",
        schemars::schema_for!(edihub_edifact::received::ReceivedAcknowledgement),
    ));
    schemas
        .into_iter()
        .map(|(stem, schema)| {
            let mut text = serde_json::to_string_pretty(&schema).expect("schema serialises");
            text.push('\n');
            (stem, text)
        })
        .collect()
}

#[test]
fn checked_in_schemas_are_current() {
    let dir = schema_dir();
    let update = std::env::var_os("UPDATE_SCHEMAS").is_some();
    let mut stale = Vec::new();
    for (stem, text) in generated() {
        let path = dir.join(format!("{stem}.json"));
        if update {
            std::fs::create_dir_all(&dir).expect("create docs/schema");
            std::fs::write(&path, &text).expect("write schema");
            continue;
        }
        match std::fs::read_to_string(&path) {
            Ok(current) if current == text => {}
            _ => stale.push(path.display().to_string()),
        }
    }
    assert!(
        stale.is_empty(),
        "out of date: {stale:?}\nregenerate with: UPDATE_SCHEMAS=1 cargo test -p edihub-events --test json_schema"
    );
}

/// The schemas describe what is really published: the canonical invoice the hub
/// serialises has every property the schema requires, and nothing the schema lacks.
#[test]
fn schemas_name_the_serialised_fields() {
    let sample = include_str!("../../../fixtures/edifact/invoic-eancom-d96a.edi");
    let report = edihub_edifact::check::evaluate(sample.as_bytes());
    let invoice = serde_json::to_value(&report.invoices[0]).unwrap();
    let schema = serde_json::to_value(schemars::schema_for!(
        edihub_edifact::invoic::CanonicalInvoice
    ))
    .unwrap();
    for required in schema["required"].as_array().unwrap() {
        let key = required.as_str().unwrap();
        assert!(invoice.get(key).is_some(), "canonical invoice lacks {key}");
    }
    let properties = schema["properties"].as_object().unwrap();
    for key in invoice.as_object().unwrap().keys() {
        assert!(properties.contains_key(key), "schema lacks {key}");
    }
    let rejected =
        serde_json::to_value(schemars::schema_for!(edihub_events::EdiMessageRejected)).unwrap();
    assert!(
        rejected["$defs"]["Fault"]["properties"]
            .as_object()
            .unwrap()
            .contains_key("code")
    );
}

/// The acknowledgement event, filled from a real CONTRL, has exactly the schema's
/// properties, and its action is one of the schema's values.
#[test]
fn the_acknowledgement_schema_names_the_serialised_fields() {
    use edihub_edifact::contrl::{ContrlParams, Prepared, build};
    use edihub_events::{AcknowledgementAction, EdiAcknowledgementIssued};

    let sample = include_str!("../../../fixtures/edifact/invoic-eancom-d96a.edi")
        .replace("+EH000001++INVOIC'", "+EH000001++INVOIC++1'");
    let report = edihub_edifact::check::evaluate(sample.as_bytes());
    let params = ContrlParams {
        interchange_reference: "C1".into(),
        message_reference: "1".into(),
        prepared: Prepared {
            year: 2026,
            month: 12,
            day: 2,
            hour: 14,
            minute: 0,
        },
    };
    let contrl = build(&report, &params).expect("UNB asks for a CONTRL");
    let header = report.header.unwrap();
    let event = EdiAcknowledgementIssued {
        message_id: uuid::Uuid::nil(),
        as2_from: "ACME".into(),
        as2_to: "EDIHUB".into(),
        acknowledged_reference: contrl.acknowledged_reference,
        unb_sender: header.sender_id,
        unb_recipient: header.recipient_id,
        action: AcknowledgementAction::Accepted,
        contrl_reference: contrl.interchange_reference,
        syntax_identifier: contrl.syntax_identifier,
        contrl: contrl.text,
        outbound_id: Some(uuid::Uuid::nil()),
    };
    assert_eq!(
        event.contrl_bytes(),
        contrl.bytes,
        "the bytes the builder wrote"
    );
    let json = serde_json::to_value(&event).unwrap();
    let schema = serde_json::to_value(schemars::schema_for!(EdiAcknowledgementIssued)).unwrap();
    let properties = schema["properties"].as_object().unwrap();
    let fields = json.as_object().unwrap();
    assert_eq!(
        properties.keys().collect::<Vec<_>>(),
        fields.keys().collect::<Vec<_>>()
    );
    assert_eq!(json["action"], "accepted");
    let values = serde_json::to_string(&schema["$defs"]["AcknowledgementAction"]).unwrap();
    assert!(
        values.contains("\"accepted\"") && values.contains("\"rejected\""),
        "{values}"
    );
}
