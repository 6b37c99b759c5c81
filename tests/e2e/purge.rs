//! Purging with an archive: nothing is deleted before it is exported, nothing twice.

use chrono::{DateTime, Utc};
use edihub_outbox::purge::{ExportManifest, PurgeOptions, purge_sent};
use edihub_tests::{TestApp, spawn_app};
use flate2::read::GzDecoder;
use std::io::Read;
use std::time::Duration;

fn options(cutoff: DateTime<Utc>, chunk_size: i64, dry_run: bool) -> PurgeOptions {
    PurgeOptions {
        cutoff,
        chunk_size,
        dry_run,
        max_rows_per_second: None,
    }
}

#[tokio::test]
async fn old_sent_rows_are_exported_locked_then_deleted_once() {
    let app = spawn_app().await;
    for n in 0..5 {
        app.commit_event(&app.test_event(&format!("agg-{n}"), serde_json::json!({ "n": n })))
            .await;
    }
    // Rows 0..3 were sent 40 days ago; row 3 is old but still PENDING; row 4 is recent.
    sqlx::raw_sql(
        "UPDATE outbox SET created_at = now() - interval '40 days' WHERE aggregate_id IN ('agg-0','agg-1','agg-2','agg-3');
         UPDATE outbox SET status = 'SENT', sent_at = now() WHERE aggregate_id IN ('agg-0','agg-1','agg-2','agg-4');",
    )
    .execute(&app.pool)
    .await
    .expect("age rows");
    let cutoff = chrono::Utc::now() - chrono::Duration::days(30);

    let dry = purge_sent(&app.pool, &app.store, options(cutoff, 2, true), &|_, _| {})
        .await
        .expect("dry run");
    assert_eq!(dry.rows_exported, 3);
    assert_eq!(
        app.count("SELECT count(*) FROM outbox").await,
        5,
        "a dry run deletes nothing"
    );

    let report = purge_sent(&app.pool, &app.store, options(cutoff, 2, false), &|_, _| {})
        .await
        .expect("purge");
    assert_eq!(
        (report.chunks, report.rows_exported, report.rows_deleted),
        (2, 3, 3)
    );
    let left: Vec<String> =
        sqlx::query_scalar("SELECT aggregate_id FROM outbox ORDER BY aggregate_id")
            .fetch_all(&app.pool)
            .await
            .expect("rows left");
    assert_eq!(left, ["agg-3", "agg-4"], "pending and recent rows stay");

    // The archive holds two chunks; each manifest matches its locked data object.
    let listing = app
        .store
        .client()
        .list_objects_v2()
        .bucket(app.store.bucket())
        .prefix("outbox-export/")
        .send()
        .await
        .expect("list");
    let mut manifests: Vec<String> = listing
        .contents()
        .iter()
        .filter_map(|o| o.key())
        .filter(|k| k.ends_with(".manifest.json"))
        .map(str::to_owned)
        .collect();
    manifests.sort();
    assert_eq!(manifests.len(), 2);
    let mut exported = 0;
    for key in &manifests {
        let manifest: ExportManifest =
            serde_json::from_slice(&app.store.get(key, None).await.expect("manifest"))
                .expect("manifest json");
        let data = app.store.get(&manifest.data_key, None).await.expect("data");
        assert_eq!(edihub_journal::sha256_hex(&data), manifest.data_sha256);
        let mut lines = String::new();
        GzDecoder::new(&data[..])
            .read_to_string(&mut lines)
            .expect("gzip");
        assert_eq!(lines.lines().count(), manifest.rows);
        exported += manifest.rows;
        let (mode, until) = app
            .store
            .retention(&manifest.data_key, None)
            .await
            .expect("retention");
        assert_eq!(mode.as_deref(), Some("COMPLIANCE"));
        assert!(until.is_some());
    }
    assert_eq!(exported, 3);

    // Running again exports nothing twice.
    let again = purge_sent(&app.pool, &app.store, options(cutoff, 2, false), &|_, _| {})
        .await
        .expect("again");
    assert_eq!((again.chunks, again.rows_exported), (0, 0));
}

#[tokio::test]
async fn old_inbox_rows_are_deleted_in_batches() {
    let app = spawn_app().await;
    sqlx::query(
        "INSERT INTO inbox (consumer, event_id, event_type, received_at)
         SELECT 'c', gen_random_uuid(), 'E', now() - make_interval(days => CASE WHEN g < 25 THEN 40 ELSE 1 END)
         FROM generate_series(0, 29) AS g",
    )
    .execute(&app.pool)
    .await
    .expect("inbox rows");
    let cutoff = chrono::Utc::now() - chrono::Duration::days(30);
    assert_eq!(
        edihub_inbox::purge(&app.pool, cutoff, 10)
            .await
            .expect("purge"),
        25
    );
    assert_eq!(app.count("SELECT count(*) FROM inbox").await, 5);
}

#[tokio::test]
async fn a_purge_interrupted_after_the_export_is_completed_not_repeated() {
    let app = spawn_app().await;
    app.commit_event(&app.test_event("agg", serde_json::json!({})))
        .await;
    sqlx::raw_sql(
        "UPDATE outbox SET status = 'SENT', created_at = now() - interval '40 days';
         CREATE FUNCTION refuse_commit() RETURNS trigger LANGUAGE plpgsql AS $$
         BEGIN RAISE EXCEPTION 'crash before the commit (test)'; END $$;
         -- Deferred: it fires at COMMIT, after the chunk's export, as a crash there would.
         CREATE CONSTRAINT TRIGGER refuse_commit AFTER DELETE ON outbox
             DEFERRABLE INITIALLY DEFERRED
             FOR EACH ROW EXECUTE FUNCTION refuse_commit();",
    )
    .execute(&app.pool)
    .await
    .expect("set up");
    let cutoff = chrono::Utc::now() - chrono::Duration::days(30);
    assert!(
        purge_sent(
            &app.pool,
            &app.store,
            options(cutoff, 10, false),
            &|_, _| {}
        )
        .await
        .is_err()
    );
    assert_eq!(
        app.count("SELECT count(*) FROM outbox").await,
        1,
        "nothing deleted"
    );

    sqlx::raw_sql("DROP TRIGGER refuse_commit ON outbox")
        .execute(&app.pool)
        .await
        .expect("drop trigger");
    let report = purge_sent(
        &app.pool,
        &app.store,
        options(cutoff, 10, false),
        &|_, _| {},
    )
    .await
    .expect("rerun");
    assert_eq!(
        (report.rows_exported, report.rows_deleted),
        (0, 1),
        "found exported, only deleted"
    );
    assert_eq!(
        app.object_versions("outbox-export/").await.len(),
        2,
        "one data object and one manifest, one version each"
    );
}

/// `count` events (aggregates agg-0, agg-1, ...), SENT and created 40 days ago.
async fn aged_sent_events(app: &TestApp, count: usize) {
    for n in 0..count {
        app.commit_event(&app.test_event(&format!("agg-{n}"), serde_json::json!({ "n": n })))
            .await;
    }
    sqlx::query(
        "UPDATE outbox SET status = 'SENT', sent_at = now(), created_at = now() - interval '40 days'",
    )
    .execute(&app.pool)
    .await
    .expect("age rows");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_row_a_concurrent_replay_turns_back_to_pending_is_not_purged() {
    let app = spawn_app().await;
    aged_sent_events(&app, 3).await;
    // A replay of agg-1, not yet committed when the purge reaches its row.
    let mut replay = app.pool.begin().await.expect("begin");
    sqlx::query("UPDATE outbox SET status = 'PENDING' WHERE aggregate_id = 'agg-1'")
        .execute(&mut *replay)
        .await
        .expect("replay");
    let cutoff = chrono::Utc::now() - chrono::Duration::days(30);
    let purging = {
        let (pool, store) = (app.pool.clone(), app.store.clone());
        tokio::spawn(async move {
            purge_sent(&pool, &store, options(cutoff, 10, false), &|_, _| {}).await
        })
    };
    app.wait_for_a_lock_wait("the purge to wait on the replayed row")
        .await;
    replay.commit().await.expect("commit the replay");

    let report = purging.await.expect("purge task").expect("purge");
    assert_eq!((report.rows_exported, report.rows_deleted), (2, 2));
    let left: Vec<(String, String)> = sqlx::query_as("SELECT aggregate_id, status FROM outbox")
        .fetch_all(&app.pool)
        .await
        .expect("rows left");
    assert_eq!(
        left,
        [("agg-1".to_owned(), "PENDING".to_owned())],
        "the replayed row stays, to be published again"
    );
}

#[tokio::test]
async fn a_paced_purge_keeps_to_its_rate() {
    let app = spawn_app().await;
    aged_sent_events(&app, 30).await;
    let cutoff = chrono::Utc::now() - chrono::Duration::days(30);
    let paced = PurgeOptions {
        max_rows_per_second: Some(20),
        ..options(cutoff, 10, false)
    };
    let started = std::time::Instant::now();
    let report = purge_sent(&app.pool, &app.store, paced, &|_, _| {})
        .await
        .expect("purge");
    assert_eq!(report.rows_deleted, 30);
    // 30 rows at 20 a second: the last chunk is due 1.5 s after the start.
    assert!(
        started.elapsed() >= Duration::from_millis(1_500),
        "{:?}",
        started.elapsed()
    );
}
