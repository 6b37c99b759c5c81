//! Interchanges of many messages: the transform consumer maps and writes them one at a
//! time (bounded memory), and still decides for the interchange as a whole.

use edihub_tests::{PARTNER, TestApp, envelope, fixture, spawn_app};
use edihub_transform::{Outcome, Transformer};
use uuid::Uuid;

const INVOIC: &str = "edifact/invoic-eancom-d96a.edi";

/// The fixture's one message repeated `messages` times under new references, with UNZ
/// declaring `declared` messages.
fn interchange(messages: usize, declared: usize) -> Vec<u8> {
    let text = String::from_utf8(fixture(INVOIC)).expect("UTF-8 fixture");
    let lines: Vec<&str> = text.lines().collect();
    let unh = lines
        .iter()
        .position(|l| l.starts_with("UNH"))
        .expect("UNH");
    let unz = lines
        .iter()
        .position(|l| l.starts_with("UNZ"))
        .expect("UNZ");
    let mut out: Vec<String> = lines[..unh].iter().map(|l| l.to_string()).collect();
    for n in 1..=messages {
        for line in &lines[unh..unz] {
            out.push(if line.starts_with("UNH+1+") {
                line.replacen("UNH+1+", &format!("UNH+{n}+"), 1)
            } else if line.starts_with("UNT+") {
                line.replacen("+1'", &format!("+{n}'"), 1)
            } else {
                line.to_string()
            });
        }
    }
    out.push(format!("UNZ+{declared}+EH000001'"));
    (out.join("\n") + "\n").into_bytes()
}

/// Posts `payload`, publishes it, and runs the transform handler on the event.
async fn transform(app: &TestApp, payload: &[u8]) -> Outcome {
    let as2_message_id = format!("{}@acme", Uuid::new_v4());
    let response = app.post_as2(PARTNER, &as2_message_id, payload).await;
    assert_eq!(response.status, 200);
    app.drain_outbox().await;
    let message_id: Uuid = app.journal_id(&as2_message_id).await;
    let record = app
        .read_record(&app.kafka.topics.inbound_received, &message_id.to_string())
        .await;
    Transformer::new(
        app.pool.clone(),
        app.kafka.topics.clone(),
        "transform-large",
    )
    .transform(&envelope(&record))
    .await
    .expect("transform")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_message_of_a_large_interchange_becomes_an_invoice() {
    let app = spawn_app().await;
    let messages = 1500;
    let outcome = transform(&app, &interchange(messages, messages)).await;
    assert_eq!(
        outcome,
        Outcome::Transformed {
            messages,
            invoices: messages
        }
    );
    assert_eq!(
        app.count("SELECT count(*) FROM canonical_invoice").await,
        messages as i64
    );
    assert_eq!(
        app.count("SELECT count(DISTINCT message_reference) FROM canonical_invoice")
            .await,
        messages as i64
    );
    assert_eq!(
        app.count("SELECT count(*) FROM outbox WHERE event_type = 'InvoiceTransformed'")
            .await,
        messages as i64
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_fault_found_after_invoices_were_written_takes_them_all_back() {
    let app = spawn_app().await;
    // Three sound messages, then an UNZ that counts four: the fault comes last, after
    // every invoice has been mapped and written.
    let outcome = transform(&app, &interchange(3, 4)).await;
    assert_eq!(outcome, Outcome::Rejected { faults: 1 });
    assert_eq!(app.count("SELECT count(*) FROM canonical_invoice").await, 0);
    assert_eq!(
        app.count("SELECT count(*) FROM outbox WHERE event_type = 'InvoiceTransformed'")
            .await,
        0
    );
    assert_eq!(
        app.count("SELECT count(*) FROM outbox WHERE event_type = 'EdiMessageRejected'")
            .await,
        1
    );
    // The rejection itself is recorded once (inbox), so a redelivery does nothing.
    assert_eq!(
        app.count("SELECT count(*) FROM inbox WHERE consumer = 'transform-large'")
            .await,
        1
    );
}
