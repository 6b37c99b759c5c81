//! The audit evidence on a real PostgreSQL: both the single and the batched accept store
//! the signed entity and the security facts, and `load_evidence` reads them back with
//! the message and its MDN. Also the payloads a consumer's batch reads ahead for its
//! claim checks.

use chrono::{DurationRound, TimeDelta, Utc};
use edihub_config::{DatabaseSettings, Secret};
use edihub_events::ClaimCheck;
use edihub_journal::{
    Accept, AcceptQueue, AcceptedMessage, ClaimCheckError, EncryptionFacts, SecurityFacts,
    SignatureFacts, StoredMdn, accept, load_evidence, load_payloads, resolve_claim_check_from,
    sha256_hex,
};
use edihub_outbox::NewEvent;
use sqlx::PgPool;
use uuid::Uuid;

/// A fresh, migrated database, named like every test database so `deploy/test.sh`
/// drops it afterwards.
async fn fresh_database() -> PgPool {
    let base = std::env::var("DATABASE_URL")
        .unwrap_or_else(|_| "postgres://postgres:postgres@127.0.0.1:5432/edihub".into());
    let server = base.rsplit_once('/').map(|(s, _)| s).unwrap_or(&base);
    let suffix = Uuid::new_v4().simple().to_string()[..12].to_owned();
    let settings = DatabaseSettings {
        url: Secret::new(format!("{server}/edihub_test_{suffix}")),
        max_connections: 5,
    };
    edihub_db::create_and_migrate(&settings)
        .await
        .expect("create and migrate the test database (is PostgreSQL up?)");
    edihub_db::pool(&settings).expect("pool")
}

fn security(signed: bool) -> SecurityFacts {
    SecurityFacts {
        signature: signed.then(|| SignatureFacts {
            digest: "sha-256".into(),
            certificate_der_b64: "MIIBdGVzdA==".into(),
            certificate_sha256: "ab".repeat(32),
        }),
        encryption: Some(EncryptionFacts {
            algorithm: "aes256".into(),
        }),
        compressed: true,
        mic: "bWlj, sha-256".into(),
    }
}

fn entry(name: &str, signed: bool) -> Accept {
    let id = Uuid::now_v7();
    let event = NewEvent {
        id: Uuid::now_v7(),
        aggregate_type: "edi_message".into(),
        aggregate_id: id.to_string(),
        event_type: "EdiMessageReceived".into(),
        topic: "edi.inbound.received".into(),
        payload: serde_json::json!({ "message_id": id }),
        headers: serde_json::json!({}),
    };
    let received_at = Utc::now()
        .duration_trunc(TimeDelta::microseconds(1))
        .expect("truncate");
    Accept {
        message: AcceptedMessage {
            id,
            as2_from: "PARTNER".into(),
            as2_to: "HUB".into(),
            as2_message_id: format!("{name}@partner"),
            content_type: "application/edifact".into(),
            as2_headers: serde_json::json!({ "message-id": name }),
            raw_body: format!("raw {name}").into_bytes(),
            payload: format!("UNB+{name}'").into_bytes(),
            unb_sender: Some("SENDER".into()),
            unb_recipient: None,
            unb_reference: Some(name.into()),
            received_at,
            signed_sha256: None,
            replay_until: None,
            signed_entity: signed
                .then(|| format!("Content-Type: multipart/signed\r\n\r\n{name}").into_bytes()),
            security: Some(security(signed)),
        },
        mdn: StoredMdn {
            mdn_message_id: format!("mdn-{name}"),
            disposition: "automatic-action/MDN-sent-automatically; processed".into(),
            content_type: "multipart/report".into(),
            headers: vec![("AS2-From".into(), "HUB".into())],
            body: format!("mdn for {name}").into_bytes(),
        },
        event,
        delivery: None,
    }
}

/// Checks that the journal gives back exactly what `entry` wrote.
async fn assert_loads(pool: &PgPool, entry: &Accept) {
    let mut conn = pool.acquire().await.expect("connection");
    let message = &entry.message;
    let got = load_evidence(&mut conn, message.id)
        .await
        .expect("load")
        .expect("the message is journaled");
    assert_eq!(got.id, message.id);
    assert_eq!(got.as2_message_id, message.as2_message_id);
    assert_eq!(got.as2_headers, message.as2_headers);
    assert_eq!(got.raw_body, message.raw_body);
    assert_eq!(got.payload, message.payload);
    assert_eq!(
        got.payload_sha256,
        edihub_journal::sha256_hex(&message.payload)
    );
    assert_eq!(got.unb_reference, message.unb_reference);
    assert_eq!(got.received_at, message.received_at);
    assert_eq!(got.signed_entity, message.signed_entity);
    assert_eq!(got.security, message.security);
    let (mdn, created_at) = got.mdn.expect("the MDN");
    assert_eq!(mdn, entry.mdn);
    assert_eq!(created_at, message.received_at);
}

#[tokio::test]
async fn the_single_accept_stores_the_evidence() {
    let pool = fresh_database().await;
    for (name, signed) in [("single-signed", true), ("single-unsigned", false)] {
        let entry = entry(name, signed);
        accept(&pool, &entry.message, &entry.mdn, &entry.event, None)
            .await
            .expect("accept");
        assert_loads(&pool, &entry).await;
    }
    let unsigned: (Option<Vec<u8>>, serde_json::Value) =
        sqlx::query_as("SELECT signed_entity, security FROM edi_message WHERE as2_message_id = $1")
            .bind("single-unsigned@partner")
            .fetch_one(&pool)
            .await
            .expect("row");
    assert_eq!(unsigned.0, None);
    assert_eq!(unsigned.1["signature"], serde_json::Value::Null);
    assert_eq!(unsigned.1["encryption"]["algorithm"], "aes256");
}

/// On a current-thread runtime every accept is queued before the writer first runs, so
/// the three share one batched statement.
#[tokio::test(flavor = "current_thread")]
async fn the_batched_accept_stores_the_evidence() {
    let pool = fresh_database().await;
    let queue = AcceptQueue::start(pool.clone(), 1, 64);
    let entries = [
        entry("batch-1", true),
        entry("batch-2", false),
        entry("batch-3", true),
    ];
    let results = futures::future::join_all(entries.iter().map(|e| queue.accept(e.clone()))).await;
    assert!(results.iter().all(Result::is_ok), "{results:?}");
    // One transaction wrote them all: the batched statement, not the one-by-one retry.
    let transactions: i64 =
        sqlx::query_scalar("SELECT count(DISTINCT xmin::text) FROM edi_message")
            .fetch_one(&pool)
            .await
            .expect("count");
    assert_eq!(transactions, 1);
    for entry in &entries {
        assert_loads(&pool, entry).await;
    }
}

#[tokio::test]
async fn an_unknown_message_has_no_evidence() {
    let pool = fresh_database().await;
    let mut conn = pool.acquire().await.expect("connection");
    let got = load_evidence(&mut conn, Uuid::now_v7())
        .await
        .expect("load");
    assert!(got.is_none());
}

/// Payloads read ahead in one statement leave out purged and unknown rows (resolved one
/// at a time, as before), and are still proved by the claim check's digest.
#[tokio::test]
async fn payloads_read_ahead_are_proved_like_those_read_alone() {
    let pool = fresh_database().await;
    let (held, purged) = (entry("ahead-held", false), entry("ahead-purged", false));
    for e in [&held, &purged] {
        (accept(&pool, &e.message, &e.mdn, &e.event, None))
            .await
            .expect("accept");
    }
    sqlx::query(
        "UPDATE edi_message SET payload = NULL, raw_body = NULL, purged_at = now() WHERE id = $1",
    )
    .bind(purged.message.id)
    .execute(&pool)
    .await
    .expect("purge");
    let claim = |e: &Accept, sha256: String| {
        ClaimCheck::for_journal(e.message.id, sha256, e.message.payload.len() as u64)
    };
    let mut conn = pool.acquire().await.expect("connection");

    let ids = [held.message.id, purged.message.id, Uuid::now_v7()];
    let mut loaded = load_payloads(&mut conn, &ids).await.expect("read ahead");
    assert_eq!(loaded.keys().collect::<Vec<_>>(), [&held.message.id]);

    let forged = claim(&held, "00".repeat(32));
    let refused = resolve_claim_check_from(&mut conn, &forged, None, &mut loaded.clone()).await;
    assert!(
        matches!(refused, Err(ClaimCheckError::DigestMismatch { .. })),
        "{refused:?}"
    );
    let proper = claim(&held, sha256_hex(&held.message.payload));
    let (id, stored) = resolve_claim_check_from(&mut conn, &proper, None, &mut loaded)
        .await
        .expect("resolved from what was read ahead");
    assert_eq!(
        (id, stored.payload),
        (held.message.id, held.message.payload)
    );
    assert!(loaded.is_empty(), "a payload read ahead is used once");

    let purged_claim = claim(&purged, sha256_hex(&purged.message.payload));
    let alone = resolve_claim_check_from(&mut conn, &purged_claim, None, &mut loaded).await;
    assert!(
        matches!(alone, Err(ClaimCheckError::Purged(id)) if id == purged.message.id),
        "{alone:?}"
    );
}
