//! Cleanup beside the relay: does `outbox purge` (export to the locked bucket, then
//! delete) keep up with what the relay publishes, and what does it cost the relay?
//!
//! Two loads, each run alone, with a purge of as many old SENT rows flat out, and with
//! one paced to 1.2 times the relay's rate (`--max-rate`), in turn: the relay at a steady
//! rate, where what a purge may cost is latency (created -> sent, from the rows' own
//! timestamps), then the relay draining a backlog flat out (the worst case on a small
//! machine: both want every core). The steady load goes first: tansu, the broker
//! stand-in, slows down as its memory fills with the records of a run
//! (docs/benchmarks.md). Every run has the same old SENT rows, purged or not, so that
//! only the purge differs. The inbox purge is timed alone after.

use edihub_config::RelaySettings;
use edihub_kafka::KafkaPublisher;
use edihub_outbox::Relay;
use edihub_tests::TestApp;
use edihub_tests::outbox_load::{Beside, fill_old_sent, purge_old_sent, sample_payload};
use std::time::{Duration, Instant};
use tokio_util::sync::CancellationToken;

/// Empties the outbox between runs: a purge scans in `seq` order, and the SENT rows an
/// earlier run published (recent, so not purged) would lie across its path. Then
/// vacuums it, as autovacuum would in production: the local PostgreSQL runs with
/// autovacuum off, and the dead rows of each run made every later one slower
/// (docs/benchmarks.md).
async fn empty_outbox(pool: &sqlx::PgPool) {
    sqlx::query("DELETE FROM outbox")
        .execute(pool)
        .await
        .expect("empty the outbox");
    sqlx::query("VACUUM ANALYZE outbox")
        .execute(pool)
        .await
        .expect("vacuum the outbox");
}

/// One purge over `rows` old rows, at most `max_rate` rows/s: rows/s and how long it
/// took.
async fn purge(app: &TestApp, rows: usize, max_rate: Option<u32>) -> (f64, Duration) {
    let took = purge_old_sent(app, rows, max_rate).await;
    (rows as f64 / took.as_secs_f64(), took)
}

fn print_purge(purged: Option<(f64, Duration)>) -> String {
    purged.map_or(String::new(), |(rate, took)| {
        format!("   purge {rate:>8.0} rows/s ({:.2} s)", took.as_secs_f64())
    })
}

/// The relay draining `events` fresh rows flat out, with `beside` it.
async fn drain(app: &TestApp, relay: &Relay<KafkaPublisher>, events: usize, beside: Beside) {
    let topic = &app.kafka.topics.inbound_received;
    empty_outbox(&app.pool).await;
    fill_old_sent(&app.pool, topic, events).await;
    crate::fill_outbox(&app.pool, topic, events).await;
    let start = Instant::now();
    let drained = async {
        let report = relay.drain().await.expect("drain");
        assert_eq!(report.sent, events, "every row published");
        start.elapsed()
    };
    let (took, purged) = match beside.purge() {
        Some(max_rate) => {
            let (took, purged) = tokio::join!(drained, purge(app, events, max_rate));
            (took, Some(purged))
        }
        None => (drained.await, None),
    };
    println!(
        "  drain, {:<24} {:>8.0} events/s ({:.2} s){}",
        format!("{}:", beside.label()),
        events as f64 / took.as_secs_f64(),
        took.as_secs_f64(),
        print_purge(purged)
    );
}

/// Writes `rate` events/s for `seconds` (100 transactions a second) tagged `tag`.
async fn write_steadily(pool: &sqlx::PgPool, topic: &str, tag: &str, rate: usize, seconds: usize) {
    let per_tick = (rate / 100).max(1);
    let total = rate * seconds;
    let mut tick = tokio::time::interval(Duration::from_millis(10));
    let mut written = 0;
    while written < total {
        tick.tick().await;
        sqlx::query(
            "INSERT INTO outbox (id, aggregate_type, aggregate_id, event_type, topic, payload)
             SELECT gen_random_uuid(), 'EdiMessage', $4 || g, 'Steady', $1, $5
             FROM generate_series($2::bigint, $3::bigint) AS g",
        )
        .bind(topic)
        .bind(written as i64)
        .bind((written + per_tick - 1) as i64)
        .bind(format!("{tag}-"))
        .bind(sample_payload(written))
        .execute(pool)
        .await
        .expect("steady write");
        written += per_tick;
    }
}

/// Waits until every row tagged `tag` is SENT; returns created -> sent p50 and p99 (ms),
/// or how many rows are still not sent a minute after the last write.
async fn sent_latency(pool: &sqlx::PgPool, tag: &str) -> Result<(f64, f64), i64> {
    let pattern = format!("{tag}-%");
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        let pending: i64 = sqlx::query_scalar(
            "SELECT count(*) FROM outbox WHERE aggregate_id LIKE $1 AND status <> 'SENT'",
        )
        .bind(&pattern)
        .fetch_one(pool)
        .await
        .expect("pending count");
        if pending == 0 {
            break;
        }
        if Instant::now() >= deadline {
            return Err(pending);
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    Ok(sqlx::query_as(
        "SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY extract(epoch FROM sent_at - created_at)::float8) * 1e3,
                percentile_cont(0.99) WITHIN GROUP (ORDER BY extract(epoch FROM sent_at - created_at)::float8) * 1e3
           FROM outbox WHERE aggregate_id LIKE $1",
    )
    .bind(&pattern)
    .fetch_one(pool)
    .await
    .expect("latency"))
}

/// The relay (running, woken by NOTIFY) at `rate` events/s for `seconds`, with `beside`
/// it started at the same time; the line to print.
async fn steady(app: &TestApp, load: (usize, usize), run: usize, beside: Beside) -> String {
    let (rate, seconds) = load;
    let topic = &app.kafka.topics.acknowledgement_issued;
    let rows = rate * seconds;
    empty_outbox(&app.pool).await;
    fill_old_sent(&app.pool, topic, rows).await;
    let tag = format!("steady-{run}");
    let writing = write_steadily(&app.pool, topic, &tag, rate, seconds);
    let purged = match beside.purge() {
        Some(max_rate) => {
            let ((), purged) = tokio::join!(writing, purge(app, rows, max_rate));
            Some(purged)
        }
        None => {
            writing.await;
            None
        }
    };
    let latency = match sent_latency(&app.pool, &tag).await {
        Ok((p50, p99)) => format!("created -> sent p50 {p50:>5.1} ms, p99 {p99:>5.1} ms"),
        Err(behind) => format!("FELL BEHIND: {behind} rows not sent a minute after the last write"),
    };
    format!(
        "  {rate} events/s, {:<24} {latency}{}",
        format!("{}:", beside.label()),
        print_purge(purged)
    )
}

/// Runs the phase: both loads alone and with a purge, in turn; then the purges alone.
pub async fn purge_beside_relay(app: &TestApp, settings: &RelaySettings, events: usize) {
    println!(
        "purge beside the relay (each purge exports and deletes as many old SENT rows as the relay publishes):"
    );
    let shutdown = CancellationToken::new();
    let running = {
        let relay = Relay::new(
            app.pool.clone(),
            KafkaPublisher::new(&app.kafka).expect("producer"),
            settings.clone(),
        );
        let shutdown = shutdown.clone();
        tokio::spawn(async move { relay.run(shutdown).await.expect("relay run") })
    };
    // The first publish of a new producer waits for its producer id: not measured.
    steady(app, (100, 1), 0, Beside::Nothing).await;
    let rate = edihub_tests::env_number("RELAY_BENCH_PURGE_RATE", 10_000_usize);
    let paced = (rate as u32).saturating_mul(6) / 5;
    for (run, beside) in Beside::rounds(paced).into_iter().enumerate() {
        println!("{}", steady(app, (rate, 10), run + 1, beside).await);
    }
    shutdown.cancel();
    running.await.expect("relay task");
    let relay = Relay::new(
        app.pool.clone(),
        KafkaPublisher::new(&app.kafka).expect("producer"),
        settings.clone(),
    );
    // Paced to the steady load's 1.2 times: a drain is a burst the purge need not match.
    for beside in Beside::rounds(paced) {
        drain(app, &relay, events, beside).await;
    }

    empty_outbox(&app.pool).await;
    fill_old_sent(&app.pool, &app.kafka.topics.inbound_received, events).await;
    let (rate, took) = purge(app, events, None).await;
    println!(
        "  outbox purge alone:   {rate:>8.0} rows/s ({events} rows in {:.2} s)",
        took.as_secs_f64()
    );
    inbox_purge(app, events).await;
}

async fn inbox_purge(app: &TestApp, rows: usize) {
    sqlx::query(
        "INSERT INTO inbox (consumer, event_id, event_type, received_at)
         SELECT 'bench', gen_random_uuid(), 'EdiMessageReceived', now() - interval '30 days'
         FROM generate_series(1, $1)",
    )
    .bind(rows as i64)
    .execute(&app.pool)
    .await
    .expect("fill inbox");
    let start = Instant::now();
    let cutoff = chrono::Utc::now() - chrono::Duration::days(7);
    let deleted = edihub_inbox::purge(&app.pool, cutoff, 10_000)
        .await
        .expect("inbox purge");
    assert_eq!(deleted as usize, rows, "every old inbox row purged");
    println!(
        "  inbox purge alone:    {:>8.0} rows/s ({rows} rows in {:.2} s)",
        rows as f64 / start.elapsed().as_secs_f64(),
        start.elapsed().as_secs_f64()
    );
}
