//! The operator's dead-letter tools on a real database.

use edihub_outbox::NewEvent;
use edihub_outbox::admin::{self, AdminError, Selection};
use edihub_tests::spawn_app;

#[tokio::test]
async fn failed_rows_are_listed_requeued_and_sent_rows_replayed_with_a_dry_run_first() {
    let app = spawn_app().await;
    let mut ids = Vec::new();
    for (n, event_type) in ["Alpha", "Beta", "Alpha"].iter().enumerate() {
        let event = NewEvent {
            event_type: (*event_type).into(),
            ..app.test_event(&format!("agg-{n}"), serde_json::json!({ "n": n }))
        };
        app.commit_event(&event).await;
        ids.push(event.id);
    }
    // Rows 0 and 1 are dead letters, row 2 was sent.
    sqlx::query("UPDATE outbox SET status = 'FAILED', attempts = 10, last_error = 'boom' WHERE id = ANY($1)")
        .bind(&ids[..2])
        .execute(&app.pool)
        .await
        .expect("fail rows");
    sqlx::query("UPDATE outbox SET status = 'SENT', sent_at = now() WHERE id = $1")
        .bind(ids[2])
        .execute(&app.pool)
        .await
        .expect("send row");

    let failed = admin::list(&app.pool, "FAILED", &Selection::default(), 10)
        .await
        .expect("list");
    assert_eq!(failed.iter().map(|r| r.id).collect::<Vec<_>>(), ids[..2]);
    assert_eq!(failed[0].last_error.as_deref(), Some("boom"));

    assert!(matches!(
        admin::reset_to_pending(&app.pool, "FAILED", &Selection::default(), false).await,
        Err(AdminError::NoFilter)
    ));

    let alpha = Selection {
        event_type: Some("Alpha".into()),
        ..Selection::default()
    };
    let would = admin::reset_to_pending(&app.pool, "FAILED", &alpha, true)
        .await
        .expect("dry run");
    assert_eq!(would, vec![ids[0]]);
    assert_eq!(
        app.count("SELECT count(*) FROM outbox WHERE status = 'FAILED'")
            .await,
        2,
        "a dry run changes nothing"
    );
    let requeued = admin::reset_to_pending(&app.pool, "FAILED", &alpha, false)
        .await
        .expect("requeue");
    assert_eq!(requeued, vec![ids[0]]);
    let (status, attempts): (String, i32) =
        sqlx::query_as("SELECT status, attempts FROM outbox WHERE id = $1")
            .bind(ids[0])
            .fetch_one(&app.pool)
            .await
            .expect("row");
    assert_eq!((status.as_str(), attempts), ("PENDING", 0));

    let replayed = admin::reset_to_pending(
        &app.pool,
        "SENT",
        &Selection {
            ids: vec![ids[2]],
            ..Selection::default()
        },
        false,
    )
    .await
    .expect("replay");
    assert_eq!(replayed, vec![ids[2]]);
    // The relay publishes both again.
    assert_eq!(app.drain_outbox().await, 2);
}
