//! The operations endpoint: backlog gauges read from the database at scrape time.

use edihub_metrics::OpsServer;
use edihub_tests::spawn_app;

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
