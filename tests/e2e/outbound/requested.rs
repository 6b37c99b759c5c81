//! Outbound messages asked for on Kafka (issue 16, source 2): a downstream system
//! publishes `OutboundRequested` CloudEvents; the outbox relay, run as the service runs,
//! queues each request once (inline or claim-checked on S3) and sends it to the
//! receiving hub, or answers it with an `OutboundRequestRejected`.

use super::*;
use edihub_events::{OutboundRequestRejected, headers};
use edihub_tests::event_headers;
use rdkafka::ClientConfig;
use rdkafka::message::Header;
use rdkafka::producer::{FutureProducer, FutureRecord};
use sha2::{Digest as _, Sha256};
use tokio_util::sync::CancellationToken;

const SOURCE: &str = "urn:erp:billing";

/// Publishes `payload` as an `OutboundRequested` CloudEvent with id `id`.
async fn request(app: &TestApp, id: Uuid, payload: &serde_json::Value) {
    let producer: FutureProducer = ClientConfig::new()
        .set("bootstrap.servers", &app.kafka.brokers)
        .create()
        .expect("producer");
    let id = id.to_string();
    let headers = event_headers(&id, "OutboundRequested")
        .insert(Header {
            key: headers::SOURCE,
            value: Some(SOURCE),
        })
        .insert(Header {
            key: headers::SPEC_VERSION,
            value: Some("1.0"),
        });
    let payload = payload.to_string();
    let record = FutureRecord::to(&app.kafka.topics.outbound_requested)
        .key(&id)
        .payload(&payload)
        .headers(headers);
    producer
        .send(record, Duration::from_secs(10))
        .await
        .expect("request published");
}

/// A bucket of its own for claim-checked documents, holding `bytes` at `key`.
async fn claim_check_bucket(app: &TestApp, key: &str, bytes: &[u8]) -> String {
    let bucket = format!("edihub-requests-{}", app.suffix);
    let client = app.store.client();
    client
        .create_bucket()
        .bucket(&bucket)
        .send()
        .await
        .expect("create the claim-check bucket");
    client
        .put_object()
        .bucket(&bucket)
        .key(key)
        .body(bytes.to_vec().into())
        .send()
        .await
        .expect("put the claim-checked document");
    bucket
}

/// Outbound messages of `request_id`: (state, source, the payload's SHA-256).
async fn queued_for(app: &TestApp, request_id: Uuid) -> Vec<(String, String, String)> {
    sqlx::query_as("SELECT state, source, sha256 FROM outbound_message WHERE request_id = $1")
        .bind(request_id)
        .fetch_all(&app.pool)
        .await
        .expect("outbound rows")
}

/// The rejections on the status topic once `count` arrived, by request id.
async fn rejections(app: &TestApp, count: usize) -> Vec<OutboundRequestRejected> {
    let records = edihub_kafka::reader::read_until(
        &app.kafka.brokers,
        &app.kafka.topics.outbound_status,
        Duration::from_secs(60),
        |read| {
            read.iter()
                .filter(|r| r.header(headers::TYPE) == Some("OutboundRequestRejected"))
                .count()
                >= count
        },
    )
    .await
    .expect("read the status topic");
    records
        .iter()
        .filter(|r| r.header(headers::TYPE) == Some("OutboundRequestRejected"))
        .map(|r| serde_json::from_slice(&r.payload).expect("OutboundRequestRejected"))
        .collect()
}

#[tokio::test]
async fn documents_requested_on_kafka_are_delivered_once_and_faulty_requests_rejected() {
    let receiver = receiving_hub("127.0.0.1:0", "as2/hub.crt").await;
    let sender = spawn_app().await;
    // Two interchanges (the receiving hub takes a UNB reference once).
    let invoic = std::fs::read(fixture_path(INVOIC)).expect("INVOIC fixture");
    let other = std::fs::read(fixture_path("edifact/invoic-eancom-d01b.edi")).expect("fixture");
    let digest = |bytes: &[u8]| hex::encode(Sha256::digest(bytes));
    let bucket = claim_check_bucket(&sender, "2026/12/invoic.edi", &other).await;
    let config = sender_config(&sender, &receiver.as2_url());
    let mut text = std::fs::read_to_string(&config).expect("settings");
    text.push_str(&format!(
        "\n[outbound]\nclaim_check_bucket = \"{bucket}\"\n"
    ));
    std::fs::write(&config, text).expect("settings");
    let settings: outbox_relay::Settings =
        edihub_config::load_from(Some(&config), |_| None).expect("relay settings");
    let shutdown = CancellationToken::new();
    let service = tokio::spawn(outbox_relay::run(settings, shutdown.clone()));

    use base64::Engine as _;
    let inline = serde_json::json!({
        "partner": RECEIVER, "filename": "INV-1.edi",
        "document_base64": base64::engine::general_purpose::STANDARD.encode(&invoic),
    });
    let claimed = |sha256: &str| {
        serde_json::json!({ "partner": RECEIVER, "claim_check": {
            "reference": format!("s3://{bucket}/2026/12/invoic.edi"),
            "sha256": sha256, "size": other.len() } })
    };
    let (inline_id, claimed_id, unknown_id, tampered_id) = (
        Uuid::now_v7(),
        Uuid::now_v7(),
        Uuid::now_v7(),
        Uuid::now_v7(),
    );
    request(&sender, inline_id, &inline).await;
    request(&sender, inline_id, &inline).await; // delivered twice by Kafka's rules
    request(&sender, claimed_id, &claimed(&digest(&other))).await;
    let unknown = serde_json::json!({ "partner": "NOBODY", "document_base64": "" });
    request(&sender, unknown_id, &unknown).await;
    request(&sender, tampered_id, &claimed(&"0".repeat(64))).await;

    for (id, document) in [(inline_id, &invoic), (claimed_id, &other)] {
        let delivered = wait_for(
            "the requested message delivered",
            Duration::from_secs(60),
            || async {
                let rows = queued_for(&sender, id).await;
                (rows.first().map(|row| row.0.as_str()) == Some("delivered")).then_some(rows)
            },
        )
        .await;
        assert_eq!(delivered.len(), 1, "one message per request: {delivered:?}");
        assert_eq!(delivered[0].1, "kafka");
        assert_eq!(
            delivered[0].2,
            digest(document),
            "the bytes sent are the document's"
        );
    }
    let mut rejected = rejections(&sender, 2).await;
    rejected.sort_by_key(|r| r.request_id);
    assert_eq!(rejected.len(), 2, "{rejected:?}");
    assert_eq!(rejected[0].request_id, unknown_id);
    assert_eq!(rejected[0].reason, "no partnership NOBODY");
    assert_eq!(rejected[1].request_id, tampered_id);
    assert!(
        rejected[1].reason.contains("SHA-256 is"),
        "{}",
        rejected[1].reason
    );
    assert_eq!(rejected[1].request_source, SOURCE);
    for id in [unknown_id, tampered_id] {
        assert!(queued_for(&sender, id).await.is_empty());
    }
    let received: i64 = sqlx::query_scalar("SELECT count(*) FROM edi_message")
        .fetch_one(&receiver.pool)
        .await
        .expect("count");
    assert_eq!(received, 2, "the receiving hub got each document once");

    // Every status event of a requested message names the request.
    let queued: Uuid = sqlx::query_scalar("SELECT id FROM outbound_message WHERE request_id = $1")
        .bind(inline_id)
        .fetch_one(&sender.pool)
        .await
        .expect("id");
    let events = status_events(&sender, queued, 2).await;
    assert_eq!(
        states(&events),
        [OutboundState::Queued, OutboundState::Delivered]
    );
    assert!(events.iter().all(|e| e.request_id == Some(inline_id)));

    shutdown.cancel();
    service
        .await
        .expect("joined")
        .expect("the relay stops cleanly");
}
