//! The consumers' batches: several records applied in one transaction, all or nothing,
//! each event at most once.

use edihub_archive::Archiver;
use edihub_events::{Envelope, EventHandler, Handled};
use edihub_tests::{PARTNER, TestApp, envelope, fixture, spawn_app, wait_for};
use edihub_transform::{Outcome, Transformer};
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio_util::sync::CancellationToken;
use uuid::Uuid;

const INVOIC: &str = "edifact/invoic-eancom-d96a.edi";
const TRANSFORMED: Outcome = Outcome::Transformed {
    messages: 1,
    invoices: 1,
};

/// Posts `n` messages, publishes their events and reads them back.
async fn received_events(app: &TestApp, n: usize) -> Vec<Envelope> {
    let payload = fixture(INVOIC);
    let mut events = Vec::with_capacity(n);
    for _ in 0..n {
        events.push(received_event(app, &payload).await);
    }
    events
}

/// Posts one message, publishes its event and reads it back.
async fn received_event(app: &TestApp, payload: &[u8]) -> Envelope {
    let as2_message_id = format!("{}@acme", Uuid::new_v4());
    let response = app.post_as2(PARTNER, &as2_message_id, payload).await;
    assert_eq!(response.status, 200);
    let message_id: Uuid = app.journal_id(&as2_message_id).await;
    assert_eq!(app.drain_outbox().await, 1);
    let topic = &app.kafka.topics.inbound_received;
    envelope(&app.read_record(topic, &message_id.to_string()).await)
}

/// The fixture's interchange with a second INVOIC after its first, numbered
/// INV-2026-0002.
fn two_invoices() -> Vec<u8> {
    let text = String::from_utf8(fixture(INVOIC)).expect("UTF-8 fixture");
    let (unh, unz) = (
        text.find("UNH+").expect("UNH"),
        text.find("UNZ+").expect("UNZ"),
    );
    let second = (text[unh..unz].replace("UNH+1+", "UNH+2+"))
        .replace("UNT+34+1'", "UNT+34+2'")
        .replace("INV-2026-0001", "INV-2026-0002");
    let rest = text[unz..].replace("UNZ+1+", "UNZ+2+");
    format!("{}{second}{rest}", &text[..unz]).into_bytes()
}

/// The same event, with a claim check whose digest no longer matches the journal: every
/// attempt at it fails.
fn poisoned(event: &Envelope) -> Envelope {
    let mut data: serde_json::Value = serde_json::from_slice(&event.data).expect("json");
    data["payload"]["sha256"] = "00".into();
    Envelope {
        id: Uuid::new_v4(),
        data: serde_json::to_vec(&data).expect("json"),
        ..event.clone()
    }
}

/// An event neither consumer acts on.
fn foreign(event: &Envelope) -> Envelope {
    Envelope {
        id: Uuid::new_v4(),
        event_type: "SomethingElse".into(),
        ..event.clone()
    }
}

async fn inbox_rows(app: &TestApp, consumer: &str) -> i64 {
    app.count(&format!(
        "SELECT count(*) FROM inbox WHERE consumer = '{consumer}'"
    ))
    .await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_transform_batch_applies_each_new_event_once_and_skips_the_rest() {
    let app = spawn_app().await;
    let events = received_events(&app, 3).await;
    let transformer = Transformer::new(app.pool.clone(), app.kafka.topics.clone(), "batch");
    assert_eq!(
        transformer.transform(&events[0]).await.expect("alone"),
        TRANSFORMED
    );

    let batch = [
        events[0].clone(), // handled before
        events[1].clone(),
        foreign(&events[1]),
        events[2].clone(),
        events[1].clone(), // twice in one batch
    ];
    let outcomes = transformer.transform_batch(&batch).await.expect("batch");
    assert_eq!(
        outcomes,
        [
            Outcome::Duplicate,
            TRANSFORMED,
            Outcome::Ignored,
            TRANSFORMED,
            Outcome::Duplicate
        ]
    );
    assert_eq!(app.count("SELECT count(*) FROM canonical_invoice").await, 3);
    assert_eq!(
        app.count("SELECT count(*) FROM outbox WHERE event_type = 'InvoiceTransformed'")
            .await,
        3
    );
    assert_eq!(inbox_rows(&app, "batch").await, 3);
}

/// The accepted effects of a batch's small interchanges are written together: one
/// statement per table (one command id, `cmin`, in the transaction), and the outbox
/// keeps the events' order, each message's parsed event before its invoice's.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_transform_batch_writes_its_accepted_effects_in_one_statement_per_table_in_order() {
    let app = spawn_app().await;
    let events = received_events(&app, 3).await;
    let transformer = Transformer::new(app.pool.clone(), app.kafka.topics.clone(), "batch");
    let outcomes = transformer.transform_batch(&events).await.expect("batch");
    assert_eq!(outcomes, [TRANSFORMED, TRANSFORMED, TRANSFORMED]);

    let statements = |table: &str, filter: &str| {
        format!("SELECT count(DISTINCT cmin::text) FROM {table} {filter}")
    };
    assert_eq!(app.count(&statements("canonical_invoice", "")).await, 1);
    let written = "WHERE event_type IN ('EdiMessageParsed', 'InvoiceTransformed')";
    assert_eq!(app.count(&statements("outbox", written)).await, 1);

    let rows: Vec<(String, String)> = sqlx::query_as(sqlx::AssertSqlSafe(format!(
        "SELECT aggregate_id, event_type FROM outbox {written} ORDER BY seq"
    )))
    .fetch_all(&app.pool)
    .await
    .expect("outbox rows");
    let mut expected = Vec::new();
    for event in &events {
        let received: edihub_events::EdiMessageReceived = event.decode().expect("event");
        let aggregate = received.message_id.to_string();
        expected.push((aggregate.clone(), "EdiMessageParsed".to_owned()));
        expected.push((aggregate, "InvoiceTransformed".to_owned()));
    }
    assert_eq!(rows, expected);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_transform_batch_with_a_failing_event_leaves_nothing_behind() {
    let app = spawn_app().await;
    let events = received_events(&app, 2).await;
    let transformer = Transformer::new(app.pool.clone(), app.kafka.topics.clone(), "batch");
    let batch = [events[0].clone(), poisoned(&events[1]), events[1].clone()];
    let error = transformer
        .transform_batch(&batch)
        .await
        .expect_err("poisoned");
    assert!(error.to_string().contains("digest mismatch"), "{error}");
    assert_eq!(app.count("SELECT count(*) FROM canonical_invoice").await, 0);
    assert_eq!(inbox_rows(&app, "batch").await, 0);

    // Handled again without the poisoned event, the others are applied.
    let outcomes = (transformer.transform_batch(&[events[0].clone(), events[1].clone()]))
        .await
        .expect("batch");
    assert_eq!(outcomes, [TRANSFORMED, TRANSFORMED]);
    assert_eq!(app.count("SELECT count(*) FROM canonical_invoice").await, 2);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_archive_batch_stores_each_new_message_once_and_all_or_nothing() {
    let app = spawn_app().await;
    let events = received_events(&app, 3).await;
    let archiver = Archiver::new(app.pool.clone(), app.store.clone(), "batch");
    assert!(archiver.archive(&events[0]).await.expect("alone"));

    // A failing event fails the batch: no rows. Its evidence is read for the whole batch
    // before anything is chained, so a digest mismatch leaves no ledger entry either.
    let failing = [events[1].clone(), poisoned(&events[2])];
    let error = archiver
        .archive_batch(&failing)
        .await
        .expect_err("poisoned");
    assert!(error.to_string().contains("digest mismatch"), "{error}");
    assert_eq!(app.count("SELECT count(*) FROM archive_record").await, 1);
    assert_eq!(app.count("SELECT count(*) FROM ledger_entry").await, 1);
    assert_eq!(inbox_rows(&app, "batch").await, 1);

    let batch = [
        events[0].clone(),
        events[1].clone(),
        foreign(&events[1]),
        events[2].clone(),
        events[2].clone(),
    ];
    let handled = archiver.archive_batch(&batch).await.expect("batch");
    assert_eq!(
        handled,
        [
            Handled::Duplicate,
            Handled::Applied,
            Handled::Ignored,
            Handled::Applied,
            Handled::Duplicate
        ]
    );
    assert_eq!(app.count("SELECT count(*) FROM archive_record").await, 3);
    assert_eq!(app.count("SELECT count(*) FROM ledger_entry").await, 3);
    assert_eq!(
        app.count("SELECT count(*) FROM ledger_entry WHERE stored_at IS NOT NULL")
            .await,
        3
    );
    assert_eq!(inbox_rows(&app, "batch").await, 3);
    // One version of each object: the failed batch stopped before storing any.
    let objects = app.count("SELECT count(*) FROM archive_object").await;
    assert_eq!(objects, 15);
    assert_eq!(app.object_versions("").await.len() as i64, objects);
}

/// A batch's archive rows are written together: its records and their objects in one
/// statement (one command id, `cmin`), each record with its own invoice numbers, in the
/// interchange's order.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_archive_batch_writes_its_rows_in_one_statement() {
    let app = spawn_app().await;
    let mut events = received_events(&app, 2).await;
    events.push(received_event(&app, &two_invoices()).await);
    let archiver = Archiver::new(app.pool.clone(), app.store.clone(), "batch");
    let handled = archiver.archive_batch(&events).await.expect("batch");
    assert_eq!(
        handled,
        [Handled::Applied, Handled::Applied, Handled::Applied]
    );

    let commands = "SELECT count(DISTINCT cmin::text) FROM
                    (SELECT cmin FROM archive_record UNION ALL SELECT cmin FROM archive_object) c";
    assert_eq!(app.count(commands).await, 1);
    assert_eq!(app.count("SELECT count(*) FROM archive_object").await, 15);
    let mut numbers: Vec<Vec<String>> =
        sqlx::query_scalar("SELECT invoice_numbers FROM archive_record")
            .fetch_all(&app.pool)
            .await
            .expect("records");
    numbers.sort();
    assert_eq!(
        numbers,
        [
            vec!["INV-2026-0001"],
            vec!["INV-2026-0001"],
            vec!["INV-2026-0001", "INV-2026-0002"]
        ]
    );
}

/// A handler that records what the loop hands it, and fails every attempt at an event
/// whose payload says `poison`, alone or in a batch.
#[derive(Clone, Default)]
struct Recording {
    batch_sizes: Arc<Mutex<Vec<usize>>>,
    applied: Arc<Mutex<Vec<i64>>>,
}

fn number(event: &Envelope) -> Result<i64, String> {
    let data: serde_json::Value = serde_json::from_slice(&event.data).map_err(|e| e.to_string())?;
    if data["poison"] == true {
        return Err("poisoned".into());
    }
    data["n"].as_i64().ok_or_else(|| "no n".into())
}

impl EventHandler for Recording {
    type Error = String;
    async fn handle(&self, event: &Envelope) -> Result<Handled, String> {
        let n = number(event)?;
        self.applied.lock().expect("lock").push(n);
        Ok(Handled::Applied)
    }
    async fn handle_batch(&self, events: &[Envelope]) -> Result<Vec<Handled>, String> {
        self.batch_sizes.lock().expect("lock").push(events.len());
        let numbers = events.iter().map(number).collect::<Result<Vec<_>, _>>()?;
        self.applied.lock().expect("lock").extend(numbers);
        Ok(vec![Handled::Applied; events.len()])
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_loop_hands_over_fetched_records_together_and_splits_a_failing_batch() {
    const RECORDS: i64 = 12;
    let app = spawn_app().await;
    // One aggregate: one partition, in order; the records wait before the consumer starts.
    for n in 0..RECORDS {
        let payload = serde_json::json!({ "n": n, "poison": n == 5 });
        app.commit_event(&app.test_event("batch", payload)).await;
    }
    assert_eq!(app.drain_outbox().await, RECORDS as usize);

    let recording = Recording::default();
    let settings = edihub_config::ConsumerSettings {
        group_id: format!("batch-{}", app.suffix),
        max_attempts: 2,
        retry_base_ms: 10,
        ..Default::default()
    };
    let shutdown = CancellationToken::new();
    let consumer = tokio::spawn({
        let (kafka, handler, shutdown) = (app.kafka.clone(), recording.clone(), shutdown.clone());
        let topic = app.kafka.topics.inbound_received.clone();
        async move { edihub_kafka::run_consumer(&kafka, &settings, &topic, handler, shutdown).await }
    });
    wait_for(
        "every good record applied",
        Duration::from_secs(60),
        || async {
            let applied = recording.applied.lock().expect("lock").len() as i64;
            (applied == RECORDS - 1).then_some(())
        },
    )
    .await;
    // Dead-lettered after its own attempts, once the loop split its batch.
    let key = "batch".to_owned();
    let dead = edihub_kafka::reader::read_until(
        &app.kafka.brokers,
        &app.kafka.topics.dead_letter,
        Duration::from_secs(60),
        |read| read.iter().any(|r| r.key.as_deref() == Some(key.as_str())),
    )
    .await
    .expect("read dead letters");
    let dead = dead.iter().find(|r| r.key.as_deref() == Some(key.as_str()));
    assert_eq!(dead.and_then(|r| r.header("edihub_attempts")), Some("2"));
    shutdown.cancel();
    consumer.await.expect("join").expect("consumer");

    let applied = recording.applied.lock().expect("lock").clone();
    let expected: Vec<i64> = (0..RECORDS).filter(|n| *n != 5).collect();
    assert_eq!(applied, expected, "each good record once, in order");
    let sizes = recording.batch_sizes.lock().expect("lock").clone();
    assert!(sizes.iter().any(|size| *size > 1), "batch sizes {sizes:?}");
    assert!(
        sizes.iter().all(|size| *size <= 32),
        "batch sizes {sizes:?}"
    );
}
