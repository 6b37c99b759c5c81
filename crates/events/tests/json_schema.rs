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
