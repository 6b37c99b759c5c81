//! The consumer loop against a broker that answers a fetch inside a record batch from the
//! next batch on, as tansu 0.6 does (ADR 0003): a group whose committed offset falls
//! inside a producer's batch still gets every record after it.

use edihub_events::{Envelope, EventHandler, Handled};
use edihub_tests::{event_headers, spawn_app};
use rdkafka::ClientConfig;
use rdkafka::consumer::{BaseConsumer, CommitMode, Consumer};
use rdkafka::producer::{BaseProducer, BaseRecord, Producer};
use rdkafka::{Offset, TopicPartitionList};
use std::collections::BTreeSet;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use tokio_util::sync::CancellationToken;
use uuid::Uuid;

/// Records the `n` of each event it is handed.
#[derive(Clone, Default)]
struct Numbers(Arc<Mutex<Vec<i64>>>);

impl Numbers {
    fn seen(&self) -> BTreeSet<i64> {
        self.0.lock().expect("lock").iter().copied().collect()
    }
}

impl EventHandler for Numbers {
    type Error = String;
    async fn handle(&self, event: &Envelope) -> Result<Handled, String> {
        let data: serde_json::Value =
            serde_json::from_slice(&event.data).map_err(|e| e.to_string())?;
        let n = data["n"].as_i64().ok_or("no n")?;
        self.0.lock().expect("lock").push(n);
        Ok(Handled::Applied)
    }
}

/// Sends events `numbers` to partition 0 of `topic` and waits for them: one record
/// batch, since the producer lingers longer than the sends take.
fn produce(producer: &BaseProducer, topic: &str, numbers: std::ops::Range<i64>) {
    for n in numbers {
        let id = Uuid::new_v4().to_string();
        let headers = event_headers(&id, "ContinuityTest");
        let payload = serde_json::json!({ "n": n }).to_string();
        producer
            .send(
                BaseRecord::to(topic)
                    .partition(0)
                    .key("continuity")
                    .payload(&payload)
                    .headers(headers),
            )
            .map_err(|(error, _)| error)
            .expect("enqueue");
    }
    producer.flush(Duration::from_secs(30)).expect("flush");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_group_committed_inside_a_batch_gets_the_rest_of_that_batch() {
    let app = spawn_app().await;
    let brokers = &app.kafka.brokers;
    let topic = app.kafka.topics.inbound_received.clone();
    let group = format!("continuity-{}", app.suffix);

    let producer: BaseProducer = ClientConfig::new()
        .set("bootstrap.servers", brokers)
        .set("enable.idempotence", "true")
        .set("linger.ms", "1000")
        .create()
        .expect("producer");
    produce(&producer, &topic, 0..20); // offsets 0-19, one batch
    for n in 20..25 {
        produce(&producer, &topic, n..n + 1); // one batch each
    }
    // The group handled 0-4: its committed offset is inside the first batch.
    let committer: BaseConsumer = ClientConfig::new()
        .set("bootstrap.servers", brokers)
        .set("group.id", &group)
        .create()
        .expect("consumer");
    let mut committed = TopicPartitionList::new();
    committed
        .add_partition_offset(&topic, 0, Offset::Offset(5))
        .expect("offset");
    committer
        .commit(&committed, CommitMode::Sync)
        .expect("commit offset 5");
    drop(committer);

    let numbers = Numbers::default();
    let settings = edihub_config::ConsumerSettings {
        group_id: group,
        ..Default::default()
    };
    let shutdown = CancellationToken::new();
    let consumer = tokio::spawn({
        let (kafka, handler, shutdown) = (app.kafka.clone(), numbers.clone(), shutdown.clone());
        async move { edihub_kafka::run_consumer(&kafka, &settings, &topic, handler, shutdown).await }
    });
    let wanted: BTreeSet<i64> = (5..25).collect();
    // Polled rather than `wait_for`, so that a failure still stops the consumer and
    // says which records are missing.
    let deadline = Instant::now() + Duration::from_secs(60);
    while !numbers.seen().is_superset(&wanted) && Instant::now() < deadline {
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    shutdown.cancel();
    consumer.await.expect("join").expect("consumer");
    let seen = numbers.seen();
    assert!(
        seen.is_superset(&wanted),
        "records handled: {seen:?}; missing: {:?}",
        wanted.difference(&seen).collect::<Vec<_>>()
    );
}
