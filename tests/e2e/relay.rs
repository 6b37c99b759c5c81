//! The relay's ordering and no-skip promises, on the real database and broker.

use edihub_config::RelaySettings;
use edihub_kafka::KafkaPublisher;
use edihub_outbox::{NewEvent, Relay};
use edihub_tests::{TestApp, spawn_app};
use std::collections::HashMap;
use std::time::Duration;

fn event(app: &TestApp, aggregate: &str, n: usize) -> NewEvent {
    app.test_event(
        aggregate,
        serde_json::json!({ "aggregate": aggregate, "n": n }),
    )
}

async fn commit_event(app: &TestApp, aggregate: &str, n: usize) {
    app.commit_event(&event(app, aggregate, n)).await;
}

fn small_batches() -> RelaySettings {
    RelaySettings {
        batch_size: 7,
        ..RelaySettings::default()
    }
}

/// Steps `relay` until a step finds nothing; returns the rows it sent.
async fn drain(relay: &Relay<KafkaPublisher>) -> usize {
    let mut sent = 0;
    loop {
        let report = relay.step().await.expect("step");
        sent += report.sent;
        if report.claimed == 0 {
            return sent;
        }
    }
}

/// All `aggregates * events` events are on the topic, each aggregate's in commit order.
async fn assert_every_aggregate_in_order(app: &TestApp, aggregates: usize, events: usize) {
    let by_key = sequences_on_topic(app, aggregates * events).await;
    assert_eq!(by_key.len(), aggregates);
    for (key, sequence) in by_key {
        assert_eq!(
            sequence,
            (0..events as u64).collect::<Vec<_>>(),
            "order of {key}"
        );
    }
}

/// The `n` of each record per key, in topic order.
async fn sequences_on_topic(app: &TestApp, expected: usize) -> HashMap<String, Vec<u64>> {
    let records = edihub_kafka::reader::read_until(
        &app.kafka.brokers,
        &app.kafka.topics.inbound_received,
        Duration::from_secs(60),
        |read| read.len() >= expected,
    )
    .await
    .expect("read");
    assert_eq!(
        records.len(),
        expected,
        "every event published exactly once here"
    );
    let mut by_key: HashMap<String, Vec<u64>> = HashMap::new();
    // Within a partition the reader returns records in offset order; one key maps to
    // one partition, so per-key order is the topic order.
    for record in records {
        let payload: serde_json::Value = serde_json::from_slice(&record.payload).expect("json");
        by_key
            .entry(record.key.expect("key"))
            .or_default()
            .push(payload["n"].as_u64().expect("n"));
    }
    by_key
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_relays_at_once_keep_every_aggregate_in_order() {
    let app = spawn_app().await;
    const AGGREGATES: usize = 6;
    const EVENTS: usize = 12;
    for n in 0..EVENTS {
        for a in 0..AGGREGATES {
            commit_event(&app, &format!("agg-{a}"), n).await;
        }
    }
    let first = Relay::new(
        app.pool.clone(),
        KafkaPublisher::new(&app.kafka).expect("producer"),
        small_batches(),
    );
    let second = Relay::new(
        app.pool.clone(),
        KafkaPublisher::new(&app.kafka).expect("producer"),
        small_batches(),
    );
    // Both relays step concurrently until neither finds anything.
    let mut total = 0;
    loop {
        let (a, b) = tokio::join!(drain(&first), drain(&second));
        total += a + b;
        let pending = app
            .count("SELECT count(*) FROM outbox WHERE status = 'PENDING'")
            .await;
        if pending == 0 {
            break;
        }
    }
    assert_eq!(total, AGGREGATES * EVENTS);
    assert_every_aggregate_in_order(&app, AGGREGATES, EVENTS).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_row_that_commits_late_is_published_not_skipped() {
    let app = spawn_app().await;
    let relay = app.relay();
    // A transaction that stays open while later rows commit and are published.
    let mut late = app.pool.begin().await.expect("begin");
    edihub_outbox::enqueue(&mut late, &event(&app, "late", 0))
        .await
        .expect("enqueue");
    for n in 0..5 {
        commit_event(&app, "busy", n).await;
    }
    assert_eq!(
        drain(&relay).await,
        5,
        "the open transaction blocks nothing"
    );
    late.commit().await.expect("late commit");
    assert_eq!(
        drain(&relay).await,
        1,
        "the late row is published once visible"
    );
    assert_eq!(
        app.count("SELECT count(*) FROM outbox WHERE status <> 'SENT'")
            .await,
        0
    );
    let by_key = sequences_on_topic(&app, 6).await;
    assert_eq!(by_key["late"], vec![0]);
    assert_eq!(by_key["busy"], vec![0, 1, 2, 3, 4]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_pending_retry_holds_back_later_events_of_its_aggregate_only() {
    let app = spawn_app().await;
    commit_event(&app, "held", 0).await;
    commit_event(&app, "held", 1).await;
    commit_event(&app, "free", 0).await;
    // The first event of `held` failed once and waits for its retry.
    sqlx::query(
        "UPDATE outbox SET attempts = 1, next_attempt_at = now() + interval '1 hour'
         WHERE aggregate_id = 'held' AND payload->>'n' = '0'",
    )
    .execute(&app.pool)
    .await
    .expect("schedule retry");
    let relay = app.relay();
    assert_eq!(drain(&relay).await, 1, "only `free` may go");
    let held_sent = app
        .count("SELECT count(*) FROM outbox WHERE aggregate_id = 'held' AND status = 'SENT'")
        .await;
    assert_eq!(held_sent, 0, "event 1 of `held` must wait for event 0");
    // Once the retry is due, both go, in order.
    sqlx::query("UPDATE outbox SET next_attempt_at = now() WHERE aggregate_id = 'held'")
        .execute(&app.pool)
        .await
        .expect("make due");
    assert_eq!(drain(&relay).await, 2);
    let by_key = sequences_on_topic(&app, 3).await;
    assert_eq!(by_key["held"], vec![0, 1]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_row_the_broker_refuses_is_retried_with_backoff_then_failed() {
    let app = spawn_app().await;
    // Larger than librdkafka's message.max.bytes (1 MB): refused on every attempt.
    let mut too_large = event(&app, "big", 0);
    too_large.payload = serde_json::json!({ "blob": "x".repeat(1_100_000) });
    app.commit_event(&too_large).await;
    let relay = Relay::new(
        app.pool.clone(),
        KafkaPublisher::new(&app.kafka).expect("producer"),
        RelaySettings {
            max_attempts: 2,
            base_backoff_ms: 60_000,
            max_backoff_ms: 60_000,
            ..RelaySettings::default()
        },
    );

    let first = relay.step().await.expect("step");
    assert_eq!((first.claimed, first.sent, first.retried), (1, 0, 1));
    let (status, attempts, error, delay): (String, i32, Option<String>, f64) = sqlx::query_as(
        "SELECT status, attempts, last_error,
                extract(epoch FROM next_attempt_at - now())::float8
         FROM outbox WHERE id = $1",
    )
    .bind(too_large.id)
    .fetch_one(&app.pool)
    .await
    .expect("row");
    assert_eq!((status.as_str(), attempts), ("PENDING", 1));
    assert!(error.is_some_and(|e| !e.is_empty()));
    assert!(
        (25.0..=60.0).contains(&delay),
        "backoff with jitter, got {delay}s"
    );
    assert_eq!(relay.step().await.expect("step").claimed, 0, "not due yet");

    sqlx::query("UPDATE outbox SET next_attempt_at = now() WHERE id = $1")
        .bind(too_large.id)
        .execute(&app.pool)
        .await
        .expect("make due");
    let second = relay.step().await.expect("step");
    assert_eq!(second.failed, 1);
    let (status, attempts): (String, i32) =
        sqlx::query_as("SELECT status, attempts FROM outbox WHERE id = $1")
            .bind(too_large.id)
            .fetch_one(&app.pool)
            .await
            .expect("row");
    assert_eq!((status.as_str(), attempts), ("FAILED", 2));
}

/// `drain` claims batch N+1 while batch N is published and marked. With batches of 3,
/// every aggregate's later events are blocked behind an in-flight head most of the time:
/// each must still come out once, in order, from two draining relays at once.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_pipelined_drains_keep_every_aggregate_in_order() {
    let app = spawn_app().await;
    const AGGREGATES: usize = 5;
    const EVENTS: usize = 10;
    for n in 0..EVENTS {
        for a in 0..AGGREGATES {
            commit_event(&app, &format!("agg-{a}"), n).await;
        }
    }
    let settings = RelaySettings {
        batch_size: 3,
        ..RelaySettings::default()
    };
    let first = Relay::new(
        app.pool.clone(),
        KafkaPublisher::new(&app.kafka).expect("producer"),
        settings.clone(),
    );
    let second = Relay::new(
        app.pool.clone(),
        KafkaPublisher::new(&app.kafka).expect("producer"),
        settings,
    );
    let (a, b) = tokio::join!(first.drain(), second.drain());
    let (a, b) = (a.expect("drain"), b.expect("drain"));
    // A drain returns only when its last claim took every claimable row and no row
    // waits behind what it published (`has_follower`), so together they leave nothing
    // behind.
    assert_eq!(a.sent + b.sent, AGGREGATES * EVENTS);
    assert_eq!(
        app.count("SELECT count(*) FROM outbox WHERE status <> 'SENT'")
            .await,
        0
    );
    assert_every_aggregate_in_order(&app, AGGREGATES, EVENTS).await;
}

/// One aggregate with several events: the claim finds only its head (the successors are
/// not heads yet). `drain` must claim again once the batch is done rather than stop at
/// a short batch, or the successors would wait for a NOTIFY that never comes (they
/// committed long ago) until the polling interval.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_drain_does_not_stop_at_an_empty_claim_that_overlapped_a_batch() {
    let app = spawn_app().await;
    for n in 0..4 {
        commit_event(&app, "chain", n).await;
    }
    let relay = app.relay();
    let report = relay.drain().await.expect("drain");
    assert_eq!((report.claimed, report.sent), (4, 4));
    let by_key = sequences_on_topic(&app, 4).await;
    assert_eq!(by_key["chain"], vec![0, 1, 2, 3]);
}

/// The late-commit case, drained: a row whose transaction was open during a drain is
/// published by the next drain, not skipped.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_row_that_commits_late_is_published_by_the_next_drain() {
    let app = spawn_app().await;
    let relay = app.relay();
    let mut late = app.pool.begin().await.expect("begin");
    edihub_outbox::enqueue(&mut late, &event(&app, "late", 0))
        .await
        .expect("enqueue");
    for n in 0..5 {
        commit_event(&app, "busy", n).await;
    }
    assert_eq!(relay.drain().await.expect("drain").sent, 5);
    late.commit().await.expect("late commit");
    assert_eq!(relay.drain().await.expect("drain").sent, 1);
    let by_key = sequences_on_topic(&app, 6).await;
    assert_eq!(by_key["late"], vec![0]);
    assert_eq!(by_key["busy"], vec![0, 1, 2, 3, 4]);
}

/// A relay that has claimed from an empty, vacuumed outbox must still claim a burst with
/// a plan made for it: PostgreSQL would otherwise have cached, after five runs of a
/// prepared claim, a generic plan made for zero rows, which scans the outbox once per
/// pending row (ADR 0002). The claim is therefore never prepared: once the relay is
/// dropped, the one connection it claimed on holds no prepared claim, yet it claimed
/// nine times.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_claim_is_never_run_from_a_cached_generic_plan() {
    let app = spawn_app().await;
    let single = edihub_db::pool(&edihub_config::DatabaseSettings {
        max_connections: 1,
        ..app.database.clone()
    })
    .expect("pool");
    sqlx::query("VACUUM ANALYZE outbox")
        .execute(&app.pool)
        .await
        .expect("vacuum");
    let relay = Relay::new(
        single.clone(),
        KafkaPublisher::new(&app.kafka).expect("producer"),
        small_batches(),
    );
    for _ in 0..8 {
        let report = relay.step().await.expect("step");
        assert_eq!(report.claimed, 0, "the outbox is empty");
    }
    for n in 0..200 {
        commit_event(&app, &format!("burst-{}", n % 50), n).await;
    }
    let report = relay.step().await.expect("step");
    assert_eq!(report.claimed, small_batches().batch_size as usize);
    drop(relay);

    let (backend, prepared_claims): (i32, i64) = sqlx::query_as(
        "SELECT pg_backend_pid(), (SELECT count(*) FROM pg_prepared_statements
                                   WHERE statement LIKE '%FROM outbox ' || 'earlier%')",
    )
    .fetch_one(&single)
    .await
    .expect("the relay's connection, back in its pool of one");
    let claims: i64 = sqlx::query_scalar("SELECT count(*) FROM outbox WHERE status = 'SENT'")
        .fetch_one(&app.pool)
        .await
        .expect("count SENT");
    assert_eq!(claims, small_batches().batch_size, "backend {backend}");
    assert_eq!(
        prepared_claims, 0,
        "the claim was prepared on backend {backend}"
    );
}

/// The relay keeps its connections from one batch to the next. One that the server
/// terminated meanwhile (a restart, an administrator) is replaced at the next claim:
/// the drain neither fails nor loses the row.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_kept_connection_the_server_terminated_is_replaced_at_the_next_claim() {
    let app = spawn_app().await;
    let name = format!("relay-kept-{}", app.suffix);
    let url = app.database.url.expose();
    let separator = if url.contains('?') { '&' } else { '?' };
    let pool = edihub_db::pool(&edihub_config::DatabaseSettings {
        url: edihub_config::Secret::new(format!("{url}{separator}application_name={name}")),
        ..app.database.clone()
    })
    .expect("pool");
    let relay = Relay::new(
        pool,
        KafkaPublisher::new(&app.kafka).expect("producer"),
        small_batches(),
    );
    commit_event(&app, "before", 0).await;
    assert_eq!(relay.drain().await.expect("drain").sent, 1);

    // Waits (up to 5 s) until each backend has exited.
    let terminated: Vec<bool> = sqlx::query_scalar(
        "SELECT pg_terminate_backend(pid, 5000) FROM pg_stat_activity
         WHERE application_name = $1",
    )
    .bind(&name)
    .fetch_all(&app.pool)
    .await
    .expect("terminate the relay's connections");
    assert!(
        !terminated.is_empty() && terminated.iter().all(|done| *done),
        "{terminated:?}"
    );

    commit_event(&app, "after", 0).await;
    let report = relay
        .drain()
        .await
        .expect("a drain after the relay's connection was terminated");
    assert_eq!(report.sent, 1);
    let by_key = sequences_on_topic(&app, 2).await;
    assert_eq!(by_key["after"], vec![0]);
}

/// The relay lingers after a NOTIFY: two commits 200 ms apart, within a 5 s linger, are
/// published by one batch (one transaction, hence one `sent_at`). Without the linger the
/// first is published long before the second commits.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn commits_within_the_linger_share_one_batch() {
    let app = spawn_app().await;
    let relay = run_relay(
        &app,
        RelaySettings {
            linger_ms: 5_000,
            poll_interval_ms: 60_000,
            ..RelaySettings::default()
        },
    );
    // The relay listens before its first drain: once a first row is SENT, it listens.
    commit_event(&app, "warm-up", 0).await;
    wait_until_sent(&app, 1).await;
    commit_event(&app, "first", 0).await;
    // The scenario's spacing, not a synchronisation: the second commit comes later.
    tokio::time::sleep(Duration::from_millis(200)).await;
    commit_event(&app, "second", 0).await;
    wait_until_sent(&app, 3).await;
    let batches = batches_of(&app, "'first', 'second'").await;
    assert_eq!(batches, 1, "both rows published by one batch");
    stop(relay).await;
}

type Running = (
    tokio_util::sync::CancellationToken,
    tokio::task::JoinHandle<Result<(), sqlx::Error>>,
);

/// A Kafka relay with `settings`, running on `app`'s outbox until the token is cancelled.
fn run_relay(app: &TestApp, settings: RelaySettings) -> Running {
    let relay = Relay::new(
        app.pool.clone(),
        KafkaPublisher::new(&app.kafka).expect("producer"),
        settings,
    );
    let shutdown = tokio_util::sync::CancellationToken::new();
    let running = tokio::spawn({
        let shutdown = shutdown.clone();
        async move { relay.run(shutdown).await }
    });
    (shutdown, running)
}

/// Stops a relay started by [`run_relay`] and waits until it has finished its batch.
async fn stop((shutdown, running): Running) {
    shutdown.cancel();
    running.await.expect("join").expect("relay run");
}

/// A relay that lingers `max_linger_ms` when fewer than two rows were announced by
/// `linger_ms`, and `linger_ms` when two were, started on `app`'s outbox; it has
/// published its first rows.
async fn lingering_relay(app: &TestApp, linger_ms: u64, max_linger_ms: u64) -> Running {
    // Committed before the relay listens, so that no NOTIFY of it can wake the relay
    // later, when its rows are long taken, and start a linger the test does not expect.
    commit_events(app, &["warm-up-a", "warm-up-b"]).await;
    let running = run_relay(
        app,
        RelaySettings {
            linger_ms,
            max_linger_ms,
            linger_rows: 2,
            poll_interval_ms: 60_000,
            ..RelaySettings::default()
        },
    );
    wait_until_sent(app, 2).await;
    running
}

/// One transaction committing one event for each of `aggregates`.
async fn commit_events(app: &TestApp, aggregates: &[&str]) {
    let events: Vec<NewEvent> = aggregates.iter().map(|a| event(app, a, 0)).collect();
    app.commit_events(&events).await;
}

/// One transaction committing `aggregate`'s first two events: the second becomes a
/// head only once the batch that holds the first commits.
async fn commit_first_two(app: &TestApp, aggregate: &str) {
    app.commit_events(&[event(app, aggregate, 0), event(app, aggregate, 1)])
        .await;
}

async fn batches_of(app: &TestApp, aggregates: &str) -> i64 {
    let sql =
        format!("SELECT count(DISTINCT sent_at) FROM outbox WHERE aggregate_id IN ({aggregates})");
    app.count(&sql).await
}

/// Rows announced by several NOTIFYs within `linger_ms` add up: two commits of one row,
/// one after the other, end a linger of up to two minutes at `linger_ms` (1 s), in one
/// batch. Counted as the first NOTIFY's row alone, they would not be SENT within the
/// 30 s the test waits.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn rows_announced_within_the_shortest_linger_add_up() {
    let app = spawn_app().await;
    let relay = lingering_relay(&app, 1_000, 120_000).await;
    commit_event(&app, "first", 0).await;
    commit_event(&app, "second", 0).await;
    wait_until_sent(&app, 4).await;
    assert_eq!(batches_of(&app, "'first', 'second'").await, 1);
    stop(relay).await;
}

/// A commit of fewer rows than `linger_rows` keeps the relay lingering up to
/// `max_linger_ms`: a commit 300 ms later shares its batch, where `linger_ms` alone
/// would have published the first long before. The relay stops hearing NOTIFYs for the
/// rest of such a linger, and hears them again before it claims: a row committed
/// afterwards wakes the relay, well before its 60 s polling interval.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_relay_hears_commits_again_after_a_long_linger() {
    let app = spawn_app().await;
    let relay = lingering_relay(&app, 10, 1_000).await;
    commit_event(&app, "first", 0).await;
    // The scenario's spacing, not a synchronisation: the second commit comes later.
    tokio::time::sleep(Duration::from_millis(300)).await;
    commit_event(&app, "during", 0).await;
    wait_until_sent(&app, 4).await;
    assert_eq!(batches_of(&app, "'first', 'during'").await, 1);
    commit_event(&app, "after", 0).await;
    wait_until_sent(&app, 5).await;
    stop(relay).await;
}

/// A commit whose NOTIFY announces `linger_rows` rows (the count rides on the payload,
/// migration 0025) ends the linger at `linger_ms`: a commit a second later has a batch
/// of its own. Counted as one row each, the two would share one.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_commit_of_enough_rows_lingers_only_the_shortest() {
    let app = spawn_app().await;
    let relay = lingering_relay(&app, 10, 5_000).await;
    commit_events(&app, &["first-a", "first-b"]).await;
    // The scenario's spacing, not a synchronisation: the second commit comes later.
    tokio::time::sleep(Duration::from_secs(1)).await;
    commit_events(&app, &["second-a", "second-b"]).await;
    wait_until_sent(&app, 6).await;
    let both = "'first-a', 'first-b', 'second-a', 'second-b'";
    assert_eq!(batches_of(&app, both).await, 2);
    stop(relay).await;
}

/// A message's later events commit together, one transaction after its first, and
/// become heads only when the batch that holds the one before them commits. Fewer than
/// `linger_rows` of them wait for the next linger instead of a batch of their own: a
/// commit 300 ms later shares their batch. Claimed at once, they would have been
/// published long before it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_few_followers_wait_for_the_next_linger() {
    let app = spawn_app().await;
    let relay = lingering_relay(&app, 10, 5_000).await;
    commit_first_two(&app, "chain").await;
    // The scenario's spacing, not a synchronisation: the second commit comes later.
    tokio::time::sleep(Duration::from_millis(300)).await;
    commit_event(&app, "later", 0).await;
    wait_until_sent(&app, 5).await;
    let sql = "SELECT count(DISTINCT sent_at) FROM outbox
               WHERE aggregate_id = 'later' OR (aggregate_id = 'chain' AND payload->>'n' = '1')";
    assert_eq!(app.count(sql).await, 1, "the follower and the later row");
    assert_eq!(batches_of(&app, "'chain'").await, 2);
    assert_eq!(sequences_on_topic(&app, 5).await["chain"], [0, 1]);
    stop(relay).await;
}

/// Deferred followers are published even when nothing else commits: the linger they
/// wait for needs no NOTIFY (none comes for them) and ends at `max_linger_ms`.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn deferred_followers_are_published_without_a_later_commit() {
    let app = spawn_app().await;
    let relay = lingering_relay(&app, 10, 5_000).await;
    commit_first_two(&app, "alone").await;
    wait_until_sent(&app, 4).await;
    assert_eq!(batches_of(&app, "'alone'").await, 2);
    stop(relay).await;
}

/// A record librdkafka refuses at once (larger than `message.max.bytes`) fails alone,
/// in its place in the batch: the rows before and after it are sent, it waits for a
/// retry with librdkafka's reason as its `last_error`.
#[tokio::test]
async fn a_refused_record_fails_alone_in_its_batch() {
    let app = spawn_app().await;
    let oversized = "x".repeat(1_200_000);
    let events = [
        event(&app, "before", 0),
        app.test_event("oversized", serde_json::json!({ "filler": oversized })),
        event(&app, "after", 0),
    ];
    app.commit_events(&events).await;
    let relay = Relay::new(
        app.pool.clone(),
        KafkaPublisher::new(&app.kafka).expect("producer"),
        RelaySettings::default(),
    );
    let report = relay.step().await.expect("step");
    assert_eq!((report.sent, report.retried), (2, 1), "{report:?}");
    let (status, last_error): (String, Option<String>) =
        sqlx::query_as("SELECT status, last_error FROM outbox WHERE aggregate_id = 'oversized'")
            .fetch_one(&app.pool)
            .await
            .expect("the refused row");
    assert_eq!(status, "PENDING");
    let last_error = last_error.unwrap_or_default();
    assert!(last_error.contains("too large"), "{last_error}");
    let by_key = sequences_on_topic(&app, 2).await;
    assert_eq!((by_key["before"].len(), by_key["after"].len()), (1, 1));
}

/// Each outbox channel has a NOTIFY channel of its own, whose payload is the rows a
/// statement committed (migration 0026): a relay hears its own channel's commits and
/// not another's. The MDN row commits first, so its NOTIFY, were it heard, would come
/// first.
#[tokio::test]
async fn a_relay_hears_only_its_own_channels_commits() {
    let app = spawn_app().await;
    let mut listener = sqlx::postgres::PgListener::connect_with(&app.pool)
        .await
        .expect("listener");
    let kafka = edihub_outbox::notify_channel(edihub_outbox::channels::KAFKA);
    listener.listen(&kafka).await.expect("listen");
    let mut conn = app.pool.acquire().await.expect("connection");
    let mdn = event(&app, "mdn", 0);
    edihub_outbox::enqueue_on(&mut conn, edihub_outbox::channels::AS2_MDN, &mdn)
        .await
        .expect("an MDN row");
    commit_events(&app, &["kafka-a", "kafka-b"]).await;
    let heard = tokio::time::timeout(Duration::from_secs(10), listener.recv())
        .await
        .expect("a NOTIFY within 10 s")
        .expect("a NOTIFY");
    assert_eq!((heard.channel(), heard.payload()), (kafka.as_str(), "2"));
}

/// A relay keeps its connections between batches, and hands them back when it stops:
/// the pool can then be closed (closing waits for every connection handed out).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_stopped_relay_hands_its_connections_back() {
    let app = spawn_app().await;
    let pool = edihub_db::pool(&app.database).expect("pool");
    let relay = Relay::new(
        pool.clone(),
        KafkaPublisher::new(&app.kafka).expect("producer"),
        small_batches(),
    );
    let shutdown = tokio_util::sync::CancellationToken::new();
    let stopped = shutdown.clone();
    let running = async move {
        relay.run(stopped).await.expect("relay run");
        relay // alive after `run`, as in a service until it exits
    };
    let running = tokio::spawn(running);
    commit_event(&app, "kept", 0).await;
    wait_until_sent(&app, 1).await;
    shutdown.cancel();
    let relay = running.await.expect("join");
    tokio::time::timeout(Duration::from_secs(10), pool.close())
        .await
        .expect("the pool closed while the stopped relay still exists");
    drop(relay);
}

async fn wait_until_sent(app: &TestApp, rows: i64) {
    let deadline = std::time::Instant::now() + Duration::from_secs(30);
    loop {
        let sent = app
            .count("SELECT count(*) FROM outbox WHERE status = 'SENT'")
            .await;
        if sent >= rows {
            return;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "{sent} of {rows} rows SENT after 30 s"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

/// A fresh outbox has no statistics (as after a restore, or before autoanalyze comes
/// by). The claim must still look up each claimed row's follower through the aggregate
/// index: a plan that walked the pending index by `seq` once per claimed row took 62 s
/// per claim over a backlog of 90,000 rows.
#[tokio::test]
async fn the_claim_finds_followers_by_aggregate_without_statistics() {
    let app = spawn_app().await;
    sqlx::query(
        "INSERT INTO outbox (id, aggregate_type, aggregate_id, event_type, topic, payload)
         SELECT gen_random_uuid(), 'EdiMessage', 'agg-' || (g / 2), 'Backlog', 'backlog', '{}'
         FROM generate_series(0, 1999) AS g",
    )
    .execute(&app.pool)
    .await
    .expect("backlog");
    let plan: Vec<String> = sqlx::query_scalar(sqlx::AssertSqlSafe(format!(
        "EXPLAIN {}",
        edihub_outbox::CLAIM
    )))
    .bind(500_i64)
    .bind("kafka")
    .fetch_all(&app.pool)
    .await
    .expect("explain the claim");
    let plan = plan.join("\n");
    let follower_lookup = plan
        .split_once("SubPlan")
        .map(|(_, subplan)| subplan)
        .expect("the has_follower subplan");
    assert!(
        follower_lookup.contains("outbox_pending_aggregate")
            && follower_lookup.contains("Index Cond: (aggregate_id = c.aggregate_id)"),
        "{plan}"
    );
}
