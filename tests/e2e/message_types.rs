//! EDIFACT as partners really send it, through the whole path: a message of a type the
//! hub does not map is accepted and published on the generic topic, and the
//! partnership's charset policy decides whether stray bytes are warnings or faults.

use edihub_events::{AcknowledgementAction, EdiAcknowledgementIssued, EdiMessageParsed};
use edihub_events::{InvoiceTransformed, headers};
use edihub_tests::{PARTNER, fixture, spawn_app, spawn_app_with};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_desadv_is_accepted_published_generically_and_acknowledged_positively() {
    let app = spawn_app().await;
    // UNB 0031 = 1: the partner asks for a CONTRL. (The fixture is ISO 8859-1.)
    let desadv = fixture("edifact/desadv-eancom-d96a.edi");
    let unb_end = b"+EH000601'";
    let at = desadv
        .windows(unb_end.len())
        .position(|w| w == unb_end)
        .expect("the fixture's UNB reference");
    let asking = [
        &desadv[..at],
        b"+EH000601++++1'".as_slice(),
        &desadv[at + unb_end.len()..],
    ]
    .concat();
    let (message_id, types) = app
        .through_the_path(&asking, "EdiAcknowledgementIssued")
        .await;
    assert_eq!(
        types,
        [
            "EdiMessageReceived",
            "EdiMessageParsed",
            "EdiAcknowledgementIssued"
        ],
        "no rejection, no invoice"
    );
    let key = message_id.to_string();
    let record = app
        .read_record(&app.kafka.topics.message_parsed, &key)
        .await;
    assert_eq!(record.header(headers::TYPE), Some("EdiMessageParsed"));
    let parsed: EdiMessageParsed = serde_json::from_slice(&record.payload).expect("payload");
    assert_eq!(parsed.message_type, "DESADV");
    assert_eq!(parsed.unb_reference, "EH000601");
    let segments = parsed.message["segments"].as_array().expect("segments");
    assert_eq!(segments[1]["tag"], "BGM");
    assert_eq!(segments[1]["elements"][1], serde_json::json!(["DN-0601"]));

    let record = app
        .read_record(&app.kafka.topics.acknowledgement_issued, &key)
        .await;
    let ack: EdiAcknowledgementIssued = serde_json::from_slice(&record.payload).expect("payload");
    assert_eq!(ack.action, AcknowledgementAction::Accepted);
    assert_eq!(
        app.count(&format!(
            "SELECT count(*) FROM canonical_invoice WHERE message_id = '{message_id}'"
        ))
        .await,
        0
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn lower_case_under_unoa_is_a_warning_by_default_and_a_fault_when_strict() {
    let invoic = fixture("edifact/charset-unoa-lower-case.edi");

    let tolerant = spawn_app().await;
    let (message_id, types) = tolerant
        .through_the_path(&invoic, "InvoiceTransformed")
        .await;
    assert!(
        !types.iter().any(|t| t == "EdiMessageRejected"),
        "{types:?}"
    );
    let record = tolerant
        .read_record(
            &tolerant.kafka.topics.invoice_canonical,
            &message_id.to_string(),
        )
        .await;
    let invoice: InvoiceTransformed = serde_json::from_slice(&record.payload).expect("payload");
    assert!(!invoice.warnings.is_empty());
    let warning = &invoice.warnings[0];
    assert_eq!(warning.code, "charset");
    assert_eq!(warning.syntax_identifier, "UNOA");
    let at = warning.byte_offset.expect("byte offset") as usize;
    assert!(invoic[at].is_ascii_lowercase(), "the offset names the byte");

    let strict = spawn_app_with(|gateway| {
        for partner in &mut gateway.partners {
            if partner.as2_id == PARTNER {
                partner.edifact_charset = Some("strict".into());
            }
        }
    })
    .await;
    let (_, types) = strict.through_the_path(&invoic, "EdiMessageRejected").await;
    assert!(
        !types
            .iter()
            .any(|t| t == "InvoiceTransformed" || t == "EdiMessageParsed"),
        "{types:?}"
    );
}
