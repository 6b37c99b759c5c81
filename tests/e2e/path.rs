//! One INVOIC through the whole hub: AS2 POST -> journal + outbox -> relay -> Kafka ->
//! transform (canonical invoice) and archive (object-locked S3 original).

use chrono::{DateTime, Datelike, Utc};
use edihub_archive::Archiver;
use edihub_as2::{Disposition, Mic, MicAlg};
use edihub_events::trace::TraceParent;
use edihub_events::{EdiMessageReceived, headers};
use edihub_tests::{HUB, PARTNER, envelope, fixture, spawn_app, wait_for};
use edihub_transform::{Outcome, Transformer};
use std::time::Duration;
use uuid::Uuid;

const INVOIC: &str = "edifact/invoic-eancom-d96a.edi";

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_invoic_travels_from_as2_to_the_archive() {
    let app = spawn_app().await;
    let payload = fixture(INVOIC);
    let as2_message_id = format!("{}@acme", Uuid::new_v4());

    // 1. The partner gets a processed MDN with the MIC of what it sent.
    let response = app.post_as2(PARTNER, &as2_message_id, &payload).await;
    assert_eq!(response.status, 200);
    let mdn = response.mdn();
    assert_eq!(mdn.disposition, Disposition::Processed);
    assert_eq!(mdn.original_message_id, as2_message_id);
    assert_eq!(
        mdn.received_content_mic,
        Some(Mic::compute(MicAlg::Sha256, &payload))
    );

    // 2. The message is journalled byte for byte, with one pending outbox row.
    let (message_id, stored, unb_reference, received_at): (
        Uuid,
        Vec<u8>,
        Option<String>,
        DateTime<Utc>,
    ) = sqlx::query_as(
        "SELECT id, payload, unb_reference, received_at FROM edi_message WHERE as2_message_id = $1",
    )
    .bind(&as2_message_id)
    .fetch_one(&app.pool)
    .await
    .expect("journalled message");
    assert_eq!(stored, payload);
    assert_eq!(unb_reference.as_deref(), Some("EH000001"));
    assert_eq!(
        app.count("SELECT count(*) FROM outbox WHERE status = 'PENDING'")
            .await,
        1
    );

    // 3. The relay publishes it and marks it SENT.
    assert_eq!(app.drain_outbox().await, 1);
    let (outbox_id, status, sent_at): (Uuid, String, Option<DateTime<Utc>>) =
        sqlx::query_as("SELECT id, status, sent_at FROM outbox WHERE aggregate_id = $1")
            .bind(message_id.to_string())
            .fetch_one(&app.pool)
            .await
            .expect("outbox row");
    assert_eq!(status, "SENT");
    assert!(sent_at.is_some());

    // 4. The Kafka record: key, CloudEvents headers, claim-check payload.
    let key = message_id.to_string();
    let record = app
        .read_record(&app.kafka.topics.inbound_received, &key)
        .await;
    assert_eq!(
        record.header(headers::ID),
        Some(outbox_id.to_string().as_str())
    );
    assert_eq!(record.header(headers::TYPE), Some("EdiMessageReceived"));
    assert_eq!(record.header(headers::SOURCE), Some("urn:edihub"));
    assert_eq!(record.header(headers::SPEC_VERSION), Some("1.0"));
    assert!(
        record
            .header(headers::TIME)
            .is_some_and(|t| DateTime::parse_from_rfc3339(t).is_ok())
    );
    assert_eq!(record.header(headers::CORRELATION_ID), Some(key.as_str()));
    // The request carried no traceparent: the hub started the trace, named after the message.
    let trace = record
        .header(headers::TRACEPARENT)
        .and_then(|v| TraceParent::parse(v).ok())
        .expect("a valid traceparent header");
    assert_eq!(
        trace.trace_id().to_string(),
        message_id.simple().to_string()
    );
    let event: EdiMessageReceived = serde_json::from_slice(&record.payload).expect("payload");
    assert_eq!(event.message_id, message_id);
    assert_eq!(event.as2_from, PARTNER);
    assert_eq!(event.as2_message_id, as2_message_id);
    assert_eq!(event.unb_reference.as_deref(), Some("EH000001"));
    assert_eq!(event.unb_sender.as_deref(), Some("5412345000013"));
    assert_eq!(event.unb_recipient.as_deref(), Some("4012345000094"));
    assert_eq!(event.payload.sha256, edihub_journal::sha256_hex(&payload));
    assert_eq!(event.payload.size, payload.len() as u64);
    assert_eq!(event.payload.journal_message_id(), Some(message_id));

    // 5. Both consumers, running as the services run them, do their work.
    app.start_consumers();
    let canonical: serde_json::Value =
        wait_for("the canonical invoice", Duration::from_secs(60), || async {
            sqlx::query_scalar("SELECT canonical FROM canonical_invoice WHERE message_id = $1")
                .bind(message_id)
                .fetch_optional(&app.pool)
                .await
                .expect("query")
        })
        .await;
    assert_eq!(canonical["invoice_number"], "INV-2026-0001");
    assert_eq!(canonical["issue_date"], "2026-12-02");
    assert_eq!(canonical["currency"], "EUR");
    assert_eq!(canonical["seller"]["id"], "5412345000013");
    assert_eq!(canonical["buyer"]["id"], "4012345000094");
    assert!(canonical["totals"]["amount_due"].is_string());

    let record = wait_for("the archive record", Duration::from_secs(60), || async {
        edihub_archive::find_record(&app.pool, message_id)
            .await
            .expect("query")
    })
    .await;
    assert_eq!(record.sha256, edihub_journal::sha256_hex(&payload));
    assert_eq!(record.retention_mode, "COMPLIANCE");

    // 6. The S3 object: same bytes, COMPLIANCE retention for 10 years, not deletable.
    let audit = edihub_archive::audit(&app.pool, &app.store, message_id)
        .await
        .expect("audit");
    assert_eq!(audit.bytes, payload);
    assert!(audit.digest_matches());
    assert_eq!(audit.retention_mode.as_deref(), Some("COMPLIANCE"));
    let until = audit.retain_until.expect("retain-until date");
    assert_eq!(until.year(), received_at.year() + 10);
    assert_eq!(
        (until.month(), until.day()),
        (received_at.month(), received_at.day())
    );
    let version = record.version_id.clone().expect("versioned bucket");
    let delete = app
        .store
        .client()
        .delete_object()
        .bucket(app.store.bucket())
        .key(&record.object_key)
        .version_id(&version)
        .send()
        .await;
    assert!(delete.is_err(), "a locked version must not be deletable");
    let again = app
        .store
        .get(&record.object_key, Some(&version))
        .await
        .expect("still there");
    assert_eq!(again, payload);

    // 7. Outbox rows written by the transform consumer exist for its own events.
    wait_for("the InvoiceTransformed outbox row", Duration::from_secs(30), || async {
        let n = app
            .count(&format!(
                "SELECT count(*) FROM outbox WHERE aggregate_id = '{message_id}' AND event_type = 'InvoiceTransformed'"
            ))
            .await;
        (n == 1).then_some(())
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_partners_trace_continues_through_kafka_into_the_canonical_invoice_event() {
    let app = spawn_app().await;
    let incoming = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01";
    let as2_message_id = format!("{}@acme", Uuid::new_v4());
    let message = edihub_as2::build_plain_message(&edihub_as2::PlainMessageSpec {
        as2_from: PARTNER,
        as2_to: HUB,
        message_id: &as2_message_id,
        subject: "traced",
        content_type: "application/edifact",
        payload: &fixture(INVOIC),
        request_mdn_to: Some("test@example.invalid"),
        request_signed_mdn: None,
    });
    let mut request_headers = message.headers.clone();
    request_headers.push(("traceparent".into(), incoming.into()));
    // Two header lines form one list; blank members go, the rest travel unchanged.
    request_headers.push(("tracestate".into(), "congo=t61rcWkgMzE, ".into()));
    request_headers.push(("tracestate".into(), "rojo=00f067aa0ba902b7".into()));
    let tracestate = "congo=t61rcWkgMzE,rojo=00f067aa0ba902b7";
    let response = app.post_raw(&request_headers, message.body).await;
    assert_eq!(response.status, 200);
    assert_eq!(response.mdn().disposition, Disposition::Processed);
    let message_id: Uuid = app.journal_id(&as2_message_id).await;
    let key = message_id.to_string();
    let trace_of = |record: &edihub_kafka::reader::RecordView| {
        record
            .header(headers::TRACEPARENT)
            .and_then(|v| TraceParent::parse(v).ok())
            .unwrap_or_else(|| panic!("no valid traceparent on {}", record.topic))
    };

    // The gateway continues the partner's trace, as a span of its own.
    app.drain_outbox().await;
    let received = app
        .read_record(&app.kafka.topics.inbound_received, &key)
        .await;
    let gateway = trace_of(&received);
    let partner = TraceParent::parse(incoming).expect("valid");
    assert_eq!(gateway.trace_id(), partner.trace_id());
    assert_ne!(gateway.parent_id(), partner.parent_id());
    assert!(gateway.sampled());
    assert_eq!(received.header(headers::TRACESTATE), Some(tracestate));

    // The transform consumer continues it into the event it publishes.
    app.start_consumers();
    wait_for("the InvoiceTransformed outbox row", Duration::from_secs(60), || async {
        let n = app
            .count(&format!(
                "SELECT count(*) FROM outbox WHERE aggregate_id = '{message_id}' AND event_type = 'InvoiceTransformed'"
            ))
            .await;
        (n == 1).then_some(())
    })
    .await;
    app.drain_outbox().await;
    let canonical = app
        .read_record(&app.kafka.topics.invoice_canonical, &key)
        .await;
    assert_eq!(canonical.header(headers::TYPE), Some("InvoiceTransformed"));
    assert_eq!(
        canonical.header(headers::CORRELATION_ID),
        Some(key.as_str())
    );
    let transform = trace_of(&canonical);
    assert_eq!(transform.trace_id(), partner.trace_id());
    assert_ne!(transform.parent_id(), gateway.parent_id());
    assert_ne!(transform.parent_id(), partner.parent_id());
    assert_eq!(canonical.header(headers::TRACESTATE), Some(tracestate));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_same_event_twice_has_one_effect_in_each_consumer() {
    let app = spawn_app().await;
    let payload = fixture(INVOIC);
    let as2_message_id = format!("{}@acme", Uuid::new_v4());
    assert_eq!(
        app.post_as2(PARTNER, &as2_message_id, &payload)
            .await
            .status,
        200
    );
    assert_eq!(app.drain_outbox().await, 1);
    let message_id: Uuid = app.journal_id(&as2_message_id).await;
    let record = app
        .read_record(&app.kafka.topics.inbound_received, &message_id.to_string())
        .await;
    let event = envelope(&record);

    // The consumers' handlers, stepped by the test, given the same record twice.
    let transformer =
        Transformer::new(app.pool.clone(), app.kafka.topics.clone(), "transform-test");
    assert_eq!(
        transformer.transform(&event).await.expect("first delivery"),
        Outcome::Transformed {
            messages: 1,
            invoices: 1
        }
    );
    assert_eq!(
        transformer
            .transform(&event)
            .await
            .expect("second delivery"),
        Outcome::Duplicate
    );
    let archiver = Archiver::new(app.pool.clone(), app.store.clone(), "archive-test");
    assert!(archiver.archive(&event).await.expect("first delivery"));
    assert!(!archiver.archive(&event).await.expect("second delivery"));

    assert_eq!(app.count("SELECT count(*) FROM canonical_invoice").await, 1);
    assert_eq!(
        app.count("SELECT count(*) FROM outbox WHERE event_type = 'InvoiceTransformed'")
            .await,
        1
    );
    assert_eq!(app.count("SELECT count(*) FROM archive_record").await, 1);
    // One version of each of the message's evidence objects only: the second delivery
    // did not PUT again.
    let objects = app.count("SELECT count(*) FROM archive_object").await;
    assert_eq!(
        objects, 5,
        "payload, request body and headers, MDN, evidence.json"
    );
    assert_eq!(app.object_versions("").await.len() as i64, objects);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_poison_event_goes_to_the_dead_letter_topic_and_the_consumer_moves_on() {
    let app = spawn_app().await;
    let payload = fixture(INVOIC);
    let poisoned_id = format!("{}@acme", Uuid::new_v4());
    assert_eq!(
        app.post_as2(PARTNER, &poisoned_id, &payload).await.status,
        200
    );
    // Corrupt the claim check of the first event: its digest no longer matches the
    // journal, so every handling attempt fails.
    sqlx::query(
        "UPDATE outbox SET payload = jsonb_set(payload, '{payload,sha256}', '\"00\"')
         WHERE payload->>'as2_message_id' = $1",
    )
    .bind(&poisoned_id)
    .execute(&app.pool)
    .await
    .expect("corrupt event");
    let good_id = format!("{}@acme", Uuid::new_v4());
    assert_eq!(app.post_as2(PARTNER, &good_id, &payload).await.status, 200);
    assert_eq!(app.drain_outbox().await, 2);

    app.start_consumers();
    let good: Uuid = app.journal_id(&good_id).await;
    // The good message behind the poisoned one is transformed and archived.
    wait_for(
        "the good message's invoice and archive",
        Duration::from_secs(60),
        || async {
            let invoices = app
                .count(&format!(
                    "SELECT count(*) FROM canonical_invoice WHERE message_id = '{good}'"
                ))
                .await;
            let archived = app
                .count(&format!(
                    "SELECT count(*) FROM archive_record WHERE message_id = '{good}'"
                ))
                .await;
            (invoices == 1 && archived == 1).then_some(())
        },
    )
    .await;
    // The poisoned one is on the dead-letter topic, once per consumer, with the error.
    let poisoned: Uuid = app.journal_id(&poisoned_id).await;
    let key = poisoned.to_string();
    let records = edihub_kafka::reader::read_until(
        &app.kafka.brokers,
        &app.kafka.topics.dead_letter,
        Duration::from_secs(60),
        |read| {
            read.iter()
                .filter(|r| r.key.as_deref() == Some(key.as_str()))
                .count()
                >= 2
        },
    )
    .await
    .expect("read dead letters");
    let mut consumers: Vec<&str> = records
        .iter()
        .filter(|r| r.key.as_deref() == Some(key.as_str()))
        .map(|r| {
            assert!(
                r.header("edihub_error")
                    .is_some_and(|e| e.contains("digest mismatch"))
            );
            assert_eq!(r.header("edihub_attempts"), Some("3"));
            assert_eq!(r.header(headers::TYPE), Some("EdiMessageReceived"));
            r.header("edihub_consumer").expect("consumer header")
        })
        .collect();
    consumers.sort();
    assert_eq!(consumers.len(), 2);
    assert!(consumers[0].starts_with("archive-") && consumers[1].starts_with("transform-"));
    assert_eq!(
        app.count(&format!(
            "SELECT count(*) FROM canonical_invoice WHERE message_id = '{poisoned}'"
        ))
        .await,
        0
    );
}
