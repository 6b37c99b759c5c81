//! `edihub journal purge` on the real stack (issue 14): bytes leave the journal only for
//! messages whose evidence is archived and sealed, the archive still verifies, and a
//! purged message's claim check resolves from the archive.

use crate::audit_evidence::received_event;
use crate::audit_verify::{Sent, archived, sealed, send, verify};
use crate::partners::edihub;
use edihub_archive::{ArchiveStore, ArchivedPayloads};
use edihub_journal::{ClaimCheckError, resolve_claim_check, sha256_hex};
use edihub_tests::{TestApp, spawn_app};
use edihub_transform::{TransformError, Transformer};
use uuid::Uuid;

/// Whether `message_id`'s row still holds its bytes, and whether it is marked purged.
async fn bytes_held(app: &TestApp, message_id: Uuid) -> (bool, bool) {
    sqlx::query_as(
        "SELECT raw_body IS NOT NULL AND payload IS NOT NULL, purged_at IS NOT NULL
         FROM edi_message WHERE id = $1",
    )
    .bind(message_id)
    .fetch_one(&app.pool)
    .await
    .expect("journal row")
}

fn purge(app: &TestApp) -> serde_json::Value {
    let out = edihub(
        app,
        &["journal", "purge", "--older-than-days", "0", "--json"],
    );
    serde_json::from_str(&out).unwrap_or_else(|e| panic!("{e}: {out}"))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn only_sealed_messages_lose_their_bytes_and_their_claim_checks_resolve_from_the_archive() {
    let app = spawn_app().await;
    app.start_consumers();
    let sealed_ids = [send(&app, Sent::Plain).await, send(&app, Sent::Plain).await];
    archived(&app, 2).await;
    sealed(&app).await;
    // Journaled, but its event is not published: not archived, so it must keep its bytes.
    let waiting = send(&app, Sent::Plain).await;

    let report = purge(&app);
    assert_eq!(report["purged"], 2, "{report}");
    assert_eq!(report["kept_unsealed"], 1, "{report}");
    assert!(report["bytes_freed"].as_u64().unwrap_or(0) > 0, "{report}");
    for id in sealed_ids {
        assert_eq!(bytes_held(&app, id).await, (false, true), "{id}");
    }
    assert_eq!(bytes_held(&app, waiting).await, (true, false));
    let again = purge(&app);
    assert_eq!(again["purged"], 0, "idempotent: {again}");

    // The archive's evidence never depended on the journal's bytes.
    let report = verify(&app).await;
    assert!(report.passed(), "{:?}", report.discrepancies);

    // A consumer meeting the event again (a new group, a replay) reads the archive.
    let event = received_event(&app, sealed_ids[0]).await;
    let without = Transformer::new(app.pool.clone(), app.kafka.topics.clone(), "late-reader");
    match without.transform(&event).await {
        Err(TransformError::ClaimCheck(ClaimCheckError::Purged(id))) => {
            assert_eq!(id, sealed_ids[0])
        }
        other => panic!("expected the purge named, got {other:?}"),
    }
    // In a batch, beside a message whose payload the journal still holds (read ahead),
    // the purged one is resolved alone, as above.
    let batch = [received_event(&app, waiting).await, event.clone()];
    match without.transform_batch(&batch).await {
        Err(TransformError::ClaimCheck(ClaimCheckError::Purged(id))) => {
            assert_eq!(id, sealed_ids[0])
        }
        other => panic!("expected the purge named in the batch, got {other:?}"),
    }
    // The claim check resolves to the archived original, still proven by its digest.
    let received: edihub_events::EdiMessageReceived = event.decode().expect("event");
    let archive = ArchivedPayloads::new(app.pool.clone(), ArchiveStore::new(&app.s3));
    let mut conn = app.pool.acquire().await.expect("connection");
    let (id, stored) = resolve_claim_check(&mut conn, &received.payload, Some(&archive))
        .await
        .expect("resolved from the archive");
    assert_eq!(id, sealed_ids[0]);
    assert_eq!(sha256_hex(&stored.payload), received.payload.sha256);
    assert_eq!(stored.payload.len() as u64, received.payload.size);
    let mut forged = received.payload.clone();
    forged.sha256 = "00".repeat(32);
    let refused = resolve_claim_check(&mut conn, &forged, Some(&archive)).await;
    assert!(
        matches!(refused, Err(ClaimCheckError::DigestMismatch { .. })),
        "{refused:?}"
    );
}
