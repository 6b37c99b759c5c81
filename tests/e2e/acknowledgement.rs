//! UNB asks for an acknowledgement (0031 = 1): after the transform consumer's decision,
//! an `EdiAcknowledgementIssued` event with the CONTRL reaches its topic, ordered after
//! the decision's own events.

use edihub_edifact::Interchange;
use edihub_events::{AcknowledgementAction, EdiAcknowledgementIssued, headers};
use edihub_tests::{PARTNER, TestApp, fixture, spawn_app, wait_for};
use std::time::Duration;
use uuid::Uuid;

/// The project sample with UNB 0031 = 1.
pub(crate) fn acked_invoic() -> String {
    let sample = String::from_utf8(fixture("edifact/invoic-eancom-d96a.edi")).expect("ASCII");
    let acked = sample.replace("+EH000001++INVOIC'", "+EH000001++INVOIC++1'");
    assert_ne!(acked, sample, "the fixture's UNB changed");
    acked
}

/// Posts `payload`, runs the consumers and the relay until the message's CONTRL event
/// is on the acknowledgement topic; returns the message id, the event and the outbox
/// event types of the message in `seq` order.
async fn acknowledged(
    app: &TestApp,
    payload: &str,
) -> (Uuid, EdiAcknowledgementIssued, Vec<String>) {
    let (message_id, types) = app
        .through_the_path(payload.as_bytes(), "EdiAcknowledgementIssued")
        .await;
    let aggregate = message_id.to_string();

    let record = app
        .read_record(&app.kafka.topics.acknowledgement_issued, &aggregate)
        .await;
    assert_eq!(
        record.header(headers::TYPE),
        Some("EdiAcknowledgementIssued")
    );
    assert_eq!(
        record.header(headers::CORRELATION_ID),
        Some(aggregate.as_str())
    );
    let event: EdiAcknowledgementIssued = serde_json::from_slice(&record.payload).expect("payload");
    assert_eq!(event.message_id, message_id);
    assert_eq!(event.as2_from, PARTNER);
    assert_eq!(event.acknowledged_reference, "EH000001");
    assert_eq!(
        (event.unb_sender.as_str(), event.unb_recipient.as_str()),
        ("5412345000013", "4012345000094")
    );
    assert_eq!(event.syntax_identifier, "UNOC");
    // The test partnership has no outbound settings: nothing is sent over AS2.
    assert_eq!(event.outbound_id, None);
    assert_eq!(
        app.count("SELECT count(*) FROM outbound_message").await,
        0,
        "no CONTRL queued without outbound settings"
    );
    assert_eq!(
        event.contrl_reference,
        edihub_transform::contrl_reference(message_id)
    );
    // The CONTRL is an interchange our own reader accepts, addressed back to the sender.
    let contrl = Interchange::parse(event.contrl.as_bytes()).expect("the CONTRL parses");
    assert_eq!(contrl.header.recipient_id, "5412345000013");
    assert_eq!(contrl.header.control_reference, event.contrl_reference);
    assert_eq!(contrl.messages[0].message_type, "CONTRL");
    (message_id, event, types)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_accepted_interchange_that_asks_for_it_is_acknowledged_with_uci_7() {
    let app = spawn_app().await;
    let (message_id, event, types) = acknowledged(&app, &acked_invoic()).await;
    assert_eq!(event.action, AcknowledgementAction::Accepted);
    assert!(
        event
            .contrl
            .contains("UCI+EH000001+5412345000013:14+4012345000094:14+7'"),
        "{}",
        event.contrl
    );
    assert!(!event.contrl.contains("UCM"), "{}", event.contrl);
    assert_eq!(
        types,
        [
            "EdiMessageReceived",
            "EdiMessageParsed",
            "InvoiceTransformed",
            "EdiAcknowledgementIssued"
        ]
    );
    assert_eq!(
        app.count(&format!(
            "SELECT count(*) FROM canonical_invoice WHERE message_id = '{message_id}'"
        ))
        .await,
        1
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_rejected_interchange_that_asks_for_it_is_acknowledged_with_its_faults() {
    let app = spawn_app().await;
    let faulty = acked_invoic().replace("QTY+47:10:PCE", "QTY+47:1O:PCE");
    let (message_id, event, types) = acknowledged(&app, &faulty).await;
    assert_eq!(event.action, AcknowledgementAction::Rejected);
    // UCI 4 for the interchange, UCM 4 for message 1, UCS 14 (QTY is the 14th
    // segment of the message) and UCD 12 (invalid value) at element 1, component 2.
    for expected in [
        "UCI+EH000001+5412345000013:14+4012345000094:14+4'",
        "UCM+1+INVOIC:D:96A:UN:EAN008+4'",
        "UCS+14'UCD+12+1:2'",
    ] {
        assert!(
            event.contrl.contains(expected),
            "{expected} in {}",
            event.contrl
        );
    }
    assert_eq!(
        types,
        [
            "EdiMessageReceived",
            "EdiMessageRejected",
            "EdiAcknowledgementIssued"
        ]
    );
    // The rejection itself went out as before.
    let rejected = app
        .read_record(&app.kafka.topics.inbound_rejected, &message_id.to_string())
        .await;
    assert_eq!(rejected.header(headers::TYPE), Some("EdiMessageRejected"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn no_acknowledgement_when_unb_does_not_ask() {
    let app = spawn_app().await;
    let payload = fixture("edifact/invoic-eancom-d96a.edi");
    let as2_message_id = format!("{}@acme", Uuid::new_v4());
    assert_eq!(
        app.post_as2(PARTNER, &as2_message_id, &payload)
            .await
            .status,
        200
    );
    assert_eq!(app.drain_outbox().await, 1);
    app.start_consumers();
    wait_for(
        "the InvoiceTransformed row",
        Duration::from_secs(60),
        || async {
            let n = app
                .count("SELECT count(*) FROM outbox WHERE event_type = 'InvoiceTransformed'")
                .await;
            (n == 1).then_some(())
        },
    )
    .await;
    assert_eq!(
        app.count("SELECT count(*) FROM outbox WHERE event_type = 'EdiAcknowledgementIssued'")
            .await,
        0
    );
}
