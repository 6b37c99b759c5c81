//! Relay benchmark (not a test): throughput and commit-to-consumer latency, printed next
//! to their references measured in the same run on the same broker and database.
//!
//!     bash deploy/stack.sh up && cargo bench -p edihub-tests --bench relay
//!
//! Sizes: RELAY_BENCH_EVENTS (default 100000), RELAY_BENCH_RATE (5000/s) and
//! RELAY_BENCH_SECONDS (10) for the latency phase; RELAY_BENCH_LINGER_MS and
//! RELAY_BENCH_MAX_LINGER_MS set the relay's `linger_ms` and `max_linger_ms` (their
//! defaults otherwise). Last, `outbox purge` beside the
//! relay (relay/purge.rs): draining RELAY_BENCH_EVENTS, then at RELAY_BENCH_PURGE_RATE
//! (10000/s) for 10 s; RELAY_BENCH_PURGE_ONLY=1 runs only that last phase.

#[path = "relay/purge.rs"]
mod purge;

use edihub_config::RelaySettings;
use edihub_kafka::KafkaPublisher;
use edihub_outbox::{OutboxRecord, PublishError, Publisher, Relay};
use edihub_tests::outbox_load::sample_payload;
use edihub_tests::spawn_app;
use rdkafka::ClientConfig;
use rdkafka::Message;
use rdkafka::consumer::{Consumer, StreamConsumer};
use rdkafka::message::Headers;
use rdkafka::producer::{FutureProducer, FutureRecord};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use tokio_util::sync::CancellationToken;

async fn fill_outbox(pool: &sqlx::PgPool, topic: &str, events: usize) {
    // Two events per aggregate, as a hub message has (received, then transformed).
    let payload = sample_payload(0);
    sqlx::query(
        "INSERT INTO outbox (id, aggregate_type, aggregate_id, event_type, topic, payload, headers)
         SELECT gen_random_uuid(), 'EdiMessage', 'agg-' || (g / 2), 'EdiMessageReceived', $1, $2, '{}'
         FROM generate_series(0, $3 - 1) AS g ORDER BY g",
    )
    .bind(topic)
    .bind(&payload)
    .bind(events as i64)
    .execute(pool)
    .await
    .expect("fill outbox");
}

fn producer(brokers: &str) -> FutureProducer {
    ClientConfig::new()
        .set("bootstrap.servers", brokers)
        .set("enable.idempotence", "true")
        .set("acks", "all")
        .set("linger.ms", "5")
        .create()
        .expect("producer")
}

/// The reference ceiling: the same records straight from rdkafka, no database.
async fn bare_producer(brokers: &str, topic: &str, events: usize) -> f64 {
    let producer = producer(brokers);
    let payload = sample_payload(0).to_string();
    let start = Instant::now();
    let mut pending = Vec::with_capacity(events);
    for i in 0..events {
        let key = format!("agg-{}", i / 2);
        let record = FutureRecord::to(topic).key(&key).payload(&payload);
        pending.push(
            producer
                .send_result(record)
                .map_err(|(e, _)| e)
                .expect("enqueue"),
        );
    }
    for delivery in pending {
        delivery.await.expect("not cancelled").expect("acked");
    }
    events as f64 / start.elapsed().as_secs_f64()
}

/// The textbook relay: one row per transaction, wait for each ack.
async fn naive_relay(pool: &sqlx::PgPool, brokers: &str, seconds: f64) -> (usize, f64) {
    let producer = producer(brokers);
    let start = Instant::now();
    let mut sent = 0;
    while start.elapsed().as_secs_f64() < seconds {
        let mut tx = pool.begin().await.expect("begin");
        let row: Option<(uuid::Uuid, String, String, serde_json::Value)> = sqlx::query_as(
            "SELECT id, topic, aggregate_id, payload FROM outbox WHERE status = 'PENDING'
             ORDER BY seq LIMIT 1 FOR UPDATE SKIP LOCKED",
        )
        .fetch_optional(&mut *tx)
        .await
        .expect("select");
        let Some((id, topic, key, payload)) = row else {
            break;
        };
        let payload = payload.to_string();
        producer
            .send(
                FutureRecord::to(&topic).key(&key).payload(&payload),
                Duration::from_secs(10),
            )
            .await
            .map_err(|(e, _)| e)
            .expect("acked");
        sqlx::query("UPDATE outbox SET status = 'SENT', sent_at = now() WHERE id = $1")
            .bind(id)
            .execute(&mut *tx)
            .await
            .expect("mark");
        tx.commit().await.expect("commit");
        sent += 1;
    }
    (sent, sent as f64 / start.elapsed().as_secs_f64())
}

/// The relay's publisher, timed: for each record, from its commit (`created_at`, the
/// start of its writing transaction) to the publish call, and the publish call's length.
struct Timed {
    inner: KafkaPublisher,
    samples: Arc<Mutex<Vec<(f64, f64)>>>,
}

impl Publisher for Timed {
    async fn publish(&self, records: &[OutboxRecord]) -> Vec<Result<(), PublishError>> {
        let called = chrono::Utc::now();
        let started = Instant::now();
        let outcomes = self.inner.publish(records).await;
        let publish_ms = started.elapsed().as_secs_f64() * 1000.0;
        let mut samples = self.samples.lock().expect("samples");
        for record in records {
            let wait = (called - record.created_at).num_microseconds().unwrap_or(0) as f64 / 1000.0;
            samples.push((wait, publish_ms));
        }
        outcomes
    }
}

fn percentile(sorted: &[f64], p: f64) -> f64 {
    if sorted.is_empty() {
        return f64::NAN;
    }
    let index = ((sorted.len() as f64 - 1.0) * p).round() as usize;
    sorted[index]
}

#[tokio::main]
async fn main() {
    let events = edihub_tests::env_number("RELAY_BENCH_EVENTS", 100_000_usize);
    let rate = edihub_tests::env_number("RELAY_BENCH_RATE", 5_000_usize);
    let seconds = edihub_tests::env_number("RELAY_BENCH_SECONDS", 10_usize);
    let app = spawn_app().await;
    let defaults = RelaySettings::default();
    let settings = RelaySettings {
        batch_size: 5000,
        linger_ms: edihub_tests::env_number("RELAY_BENCH_LINGER_MS", defaults.linger_ms),
        max_linger_ms: edihub_tests::env_number(
            "RELAY_BENCH_MAX_LINGER_MS",
            defaults.max_linger_ms,
        ),
        ..defaults
    };
    if std::env::var_os("RELAY_BENCH_PURGE_ONLY").is_some() {
        purge::purge_beside_relay(&app, &settings, events).await;
        app.drop_database().await;
        return;
    }
    let brokers = app.kafka.brokers.clone();
    let topic = app.kafka.topics.inbound_received.clone();
    println!("relay benchmark: {events} events of ~500 bytes, 2 per aggregate; broker {brokers}");

    // 1. Reference: a bare idempotent rdkafka producer.
    let bare = bare_producer(&brokers, &app.kafka.topics.invoice_canonical, events).await;
    println!("bare rdkafka producer (reference):  {bare:>10.0} events/s");

    // 2. The relay: claim, publish, mark in batches of 5000. First one step at a time,
    //    then as `Relay::run` drains a backlog (the next batch claimed while the
    //    previous one is published and marked).
    fill_outbox(&app.pool, &topic, events).await;
    let relay = Relay::new(
        app.pool.clone(),
        KafkaPublisher::new(&app.kafka).expect("producer"),
        settings.clone(),
    );
    let start = Instant::now();
    let mut sent = 0;
    loop {
        let report = relay.step().await.expect("step");
        sent += report.sent;
        if report.claimed == 0 {
            break;
        }
    }
    let serial_rate = sent as f64 / start.elapsed().as_secs_f64();
    assert_eq!(sent, events, "every row published");
    println!("edihub relay, one step at a time:   {serial_rate:>10.0} events/s");

    fill_outbox(&app.pool, &topic, events).await;
    let start = Instant::now();
    let report = relay.drain().await.expect("drain");
    let relay_rate = report.sent as f64 / start.elapsed().as_secs_f64();
    assert_eq!(report.sent, events, "every row published");
    println!(
        "edihub relay (drain, batch 5000):   {relay_rate:>10.0} events/s   target 25,000+ (DESIGN.md)"
    );
    // A relay keeps its connections until it is dropped, and closing the pool at the
    // end waits for them.
    drop(relay);

    // 3. Reference: the textbook one-row-at-a-time relay, for 5 seconds.
    fill_outbox(&app.pool, &topic, 20_000).await;
    let (naive_sent, naive) = naive_relay(&app.pool, &brokers, 5.0).await;
    println!(
        "naive one-row relay (reference):    {naive:>10.0} events/s   ({naive_sent} events in 5 s)"
    );
    sqlx::query("DELETE FROM outbox WHERE status = 'PENDING'")
        .execute(&app.pool)
        .await
        .expect("clean up");

    // 4. Commit-to-consumer latency at a fixed rate, relay woken by LISTEN/NOTIFY.
    let latency_topic = app.kafka.topics.inbound_rejected.clone();
    let consumer: StreamConsumer = ClientConfig::new()
        .set("bootstrap.servers", &brokers)
        .set("group.id", format!("bench-{}", app.suffix))
        .set("auto.offset.reset", "latest")
        .set("fetch.wait.max.ms", "5")
        .create()
        .expect("consumer");
    consumer.subscribe(&[&latency_topic]).expect("subscribe");
    // Wait for the assignment before writing, so no record is missed.
    let assigned = Instant::now();
    while consumer.assignment().map(|a| a.count()).unwrap_or(0) == 0
        && assigned.elapsed() < Duration::from_secs(20)
    {
        let _ = tokio::time::timeout(Duration::from_millis(100), consumer.recv()).await;
    }
    let shutdown = CancellationToken::new();
    let samples = Arc::new(Mutex::new(Vec::with_capacity(rate * seconds)));
    let running = {
        let samples = samples.clone();
        let pool = app.pool.clone();
        let kafka = app.kafka.clone();
        let shutdown = shutdown.clone();
        let settings = settings.clone();
        tokio::spawn(async move {
            let relay = Relay::new(
                pool,
                Timed {
                    inner: KafkaPublisher::new(&kafka).expect("producer"),
                    samples,
                },
                settings,
            );
            relay.run(shutdown).await.expect("relay run");
        })
    };
    // Warm up: the relay's producer connects and gets its producer id on its first
    // publish (about half a second against tansu), once per process. Measure after it.
    sqlx::query(
        "INSERT INTO outbox (id, aggregate_type, aggregate_id, event_type, topic, payload)
         VALUES (gen_random_uuid(), 'EdiMessage', 'warm-up', 'WarmUp', $1, '{}')",
    )
    .bind(&latency_topic)
    .execute(&app.pool)
    .await
    .expect("warm-up row");
    let warmed = Instant::now();
    while warmed.elapsed() < Duration::from_secs(30) {
        if let Ok(Ok(message)) = tokio::time::timeout(Duration::from_secs(5), consumer.recv()).await
            && message.key() == Some(b"warm-up".as_slice())
        {
            break;
        }
    }
    samples.lock().expect("samples").clear();
    let total = rate * seconds;
    let writer = {
        let pool = app.pool.clone();
        let topic = latency_topic.clone();
        tokio::spawn(async move {
            // 100 transactions a second, each committing rate/100 rows.
            let per_tick = (rate / 100).max(1);
            let mut tick = tokio::time::interval(Duration::from_millis(10));
            let mut written = 0;
            while written < total {
                tick.tick().await;
                sqlx::query(
                    "INSERT INTO outbox (id, aggregate_type, aggregate_id, event_type, topic, payload)
                     SELECT gen_random_uuid(), 'EdiMessage', 'lat-' || g, 'Latency', $1,
                            jsonb_build_object('n', g)
                     FROM generate_series($2::bigint, $3::bigint) AS g",
                )
                .bind(&topic)
                .bind(written as i64)
                .bind((written + per_tick - 1) as i64)
                .execute(&pool)
                .await
                .expect("write");
                written += per_tick;
            }
        })
    };
    let mut latencies = Vec::with_capacity(total);
    let deadline = Instant::now() + Duration::from_secs(seconds as u64 + 30);
    while latencies.len() < total && Instant::now() < deadline {
        let Ok(Ok(message)) = tokio::time::timeout(Duration::from_secs(5), consumer.recv()).await
        else {
            continue;
        };
        let received = chrono::Utc::now();
        let created = message.headers().and_then(|h| {
            h.iter()
                .find(|header| header.key == "ce_time")
                .and_then(|header| header.value)
                .and_then(|v| std::str::from_utf8(v).ok())
                .and_then(|v| chrono::DateTime::parse_from_rfc3339(v).ok())
        });
        if let Some(created) = created {
            let ms = (received - created.to_utc())
                .num_microseconds()
                .unwrap_or(0) as f64
                / 1000.0;
            latencies.push(ms);
        }
    }
    writer.await.expect("writer");
    shutdown.cancel();
    running.await.expect("relay task");
    latencies.sort_by(|a, b| a.total_cmp(b));
    println!(
        "latency at {rate} events/s for {seconds} s ({} of {total} received): p50 {:.1} ms, p99 {:.1} ms, max {:.1} ms   target p99 < 50 ms (DESIGN.md)",
        latencies.len(),
        percentile(&latencies, 0.50),
        percentile(&latencies, 0.99),
        latencies.last().copied().unwrap_or(f64::NAN),
    );
    let (mut claim_wait, mut publish): (Vec<f64>, Vec<f64>) =
        samples.lock().expect("samples").iter().copied().unzip();
    claim_wait.sort_by(|a, b| a.total_cmp(b));
    publish.sort_by(|a, b| a.total_cmp(b));
    println!(
        "  of which commit to publish call: p50 {:.1} ms, p99 {:.1} ms, max {:.1} ms; publish call to acks: p50 {:.1} ms, p99 {:.1} ms",
        percentile(&claim_wait, 0.50),
        percentile(&claim_wait, 0.99),
        claim_wait.last().copied().unwrap_or(f64::NAN),
        percentile(&publish, 0.50),
        percentile(&publish, 0.99),
    );
    purge::purge_beside_relay(&app, &settings, events).await;
    app.drop_database().await;
}
