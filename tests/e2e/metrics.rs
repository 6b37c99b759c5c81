//! The operations endpoint: backlog gauges read from the database at scrape time, and
//! the consumer lag gauge the consumer loop keeps.

use edihub_events::{Envelope, EventHandler, Handled};
use edihub_metrics::OpsServer;
use edihub_tests::{spawn_app, wait_for};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;
use tokio::sync::Semaphore;
use tokio_util::sync::CancellationToken;

#[tokio::test]
async fn metrics_report_the_outbox_backlog_and_ready_follows_the_database() {
    let app = spawn_app().await;
    for n in 0..4 {
        app.commit_event(&app.test_event(&format!("agg-{n}"), serde_json::json!({ "n": n })))
            .await;
    }
    sqlx::raw_sql(
        "UPDATE outbox SET status = 'FAILED' WHERE aggregate_id = 'agg-0';
         UPDATE outbox SET created_at = now() - interval '10 minutes' WHERE aggregate_id = 'agg-1'",
    )
    .execute(&app.pool)
    .await
    .expect("shape backlog");

    let server = OpsServer::bind("127.0.0.1:0").await.expect("bind");
    let address = server.address().expect("address");
    let pool = app.pool.clone();
    let probe = edihub_metrics::probe(move || {
        let pool = pool.clone();
        async move { edihub_outbox::admin::refresh_gauges(&pool).await }
    });
    let shutdown = tokio_util::sync::CancellationToken::new();
    tokio::spawn(server.run(probe, shutdown.clone()));

    let metrics = app
        .http
        .get(format!("http://{address}/metrics"))
        .send()
        .await
        .expect("GET /metrics")
        .text()
        .await
        .expect("body");
    assert!(metrics.contains("edihub_outbox_pending 3"), "{metrics}");
    assert!(metrics.contains("edihub_outbox_failed 1"), "{metrics}");
    let oldest: i64 = metrics
        .lines()
        .find_map(|l| l.strip_prefix("edihub_outbox_oldest_pending_seconds "))
        .and_then(|v| v.trim().parse().ok())
        .expect("oldest pending gauge");
    assert!((600..700).contains(&oldest), "{oldest}");
    let ready = app
        .http
        .get(format!("http://{address}/ready"))
        .send()
        .await
        .expect("GET /ready");
    assert_eq!(ready.status(), 200);
    shutdown.cancel();
}

/// A handler that takes one event per permit the test hands out: a consumer exactly as
/// slow as the test wants it.
struct Gated {
    gate: Arc<Semaphore>,
    handled: Arc<AtomicUsize>,
}

impl EventHandler for Gated {
    type Error = std::convert::Infallible;
    async fn handle(&self, _event: &Envelope) -> Result<Handled, Self::Error> {
        if let Ok(permit) = self.gate.acquire().await {
            permit.forget();
        }
        self.handled.fetch_add(1, Ordering::SeqCst);
        Ok(Handled::Applied)
    }
}

/// The summed `edihub_consumer_lag` of `group` on `topic`, as `/metrics` renders it;
/// `None` while no partition reports one.
fn consumer_lag(group: &str, topic: &str) -> Option<i64> {
    let (consumer, topic) = (
        format!("consumer=\"{group}\""),
        format!("topic=\"{topic}\""),
    );
    edihub_metrics::render()
        .lines()
        .filter(|line| line.starts_with("edihub_consumer_lag{"))
        .filter(|line| line.contains(&consumer) && line.contains(&topic))
        .map(|line| {
            line.rsplit(' ')
                .next()
                .and_then(|v| v.parse::<i64>().ok())
                .unwrap_or_else(|| panic!("not a gauge sample: {line}"))
        })
        .fold(None, |sum, lag| Some(sum.unwrap_or(0) + lag))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn consumer_lag_shows_the_backlog_and_returns_to_zero_once_consumed() {
    const RECORDS: usize = 20;
    let app = spawn_app().await;
    // One aggregate: every record goes to the same partition, in order.
    for n in 0..RECORDS {
        app.commit_event(&app.test_event("backlog", serde_json::json!({ "n": n })))
            .await;
    }
    assert_eq!(app.drain_outbox().await, RECORDS);

    let topic = app.kafka.topics.inbound_received.clone();
    let group = format!("lag-{}", app.suffix);
    let settings = edihub_config::ConsumerSettings {
        group_id: group.clone(),
        lag_interval_ms: 100,
        // One record handed over at a time, so the lag counts all the others.
        batch_max: 1,
        ..Default::default()
    };
    let gate = Arc::new(Semaphore::new(0));
    let handled = Arc::new(AtomicUsize::new(0));
    let handler = Gated {
        gate: gate.clone(),
        handled: handled.clone(),
    };
    let shutdown = CancellationToken::new();
    let consumer = tokio::spawn({
        let (kafka, topic, shutdown) = (app.kafka.clone(), topic.clone(), shutdown.clone());
        async move { edihub_kafka::run_consumer(&kafka, &settings, &topic, handler, shutdown).await }
    });

    // A stalled consumer: its handler holds the first event, and the lag shows the rest.
    let lag = wait_for(
        "the lag of the backlog",
        Duration::from_secs(60),
        || async { consumer_lag(&group, &topic).filter(|lag| *lag == RECORDS as i64 - 1) },
    )
    .await;
    assert_eq!(lag, RECORDS as i64 - 1);
    assert_eq!(handled.load(Ordering::SeqCst), 0);

    // Caught up: the lag goes back to 0.
    gate.add_permits(RECORDS);
    wait_for("the lag back at 0", Duration::from_secs(60), || async {
        let done = handled.load(Ordering::SeqCst) == RECORDS;
        (done && consumer_lag(&group, &topic) == Some(0)).then_some(())
    })
    .await;

    // A stopped consumer reports no lag rather than a frozen one.
    shutdown.cancel();
    consumer.await.expect("join").expect("consumer");
    assert_eq!(consumer_lag(&group, &topic), None);
}
