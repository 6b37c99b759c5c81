//! The journal's group commit (`AcceptQueue`) on a real PostgreSQL: accepts queued
//! together share one transaction, and each still gets its own answer.
//!
//! These run on a current-thread runtime on purpose: every `accept` future queues its
//! message before the writer task first runs, so the batch's make-up is known.

use chrono::{Duration, Utc};
use edihub_journal::{Accept, AcceptQueue, AcceptedMessage, JournalError, StoredMdn};
use edihub_outbox::NewEvent;
use uuid::Uuid;

fn accept(as2_message_id: &str, with_async_mdn: bool) -> Accept {
    let id = Uuid::now_v7();
    let event = |channel_topic: &str| NewEvent {
        id: Uuid::now_v7(),
        aggregate_type: "edi_message".into(),
        aggregate_id: id.to_string(),
        event_type: "EdiMessageReceived".into(),
        topic: channel_topic.into(),
        payload: serde_json::json!({ "message_id": id }),
        headers: serde_json::json!({}),
    };
    Accept {
        message: AcceptedMessage {
            id,
            as2_from: "PARTNER".into(),
            as2_to: "HUB".into(),
            as2_message_id: as2_message_id.into(),
            content_type: "application/edifact".into(),
            as2_headers: serde_json::json!({ "message-id": as2_message_id }),
            raw_body: format!("raw {as2_message_id}").into_bytes(),
            payload: format!("UNB+{as2_message_id}'").into_bytes(),
            unb_sender: Some("SENDER".into()),
            unb_recipient: None,
            unb_reference: Some(as2_message_id.into()),
            received_at: Utc::now(),
            signed_sha256: None,
            replay_until: None,
            signed_entity: None,
            security: None,
        },
        mdn: StoredMdn {
            mdn_message_id: format!("mdn-{as2_message_id}"),
            disposition: "automatic-action/MDN-sent-automatically; processed".into(),
            content_type: "multipart/report".into(),
            headers: vec![("AS2-From".into(), "HUB".into())],
            body: format!("mdn for {as2_message_id}").into_bytes(),
        },
        event: event("edi.inbound.received"),
        delivery: with_async_mdn.then(|| event("as2-mdn")),
    }
}

#[tokio::test(flavor = "current_thread")]
async fn queued_accepts_share_one_commit_and_each_gets_its_own_answer() {
    let pool = edihub_tests::fresh_database().await;
    let queue = AcceptQueue::start(pool.clone(), 1, 64);
    let mut accepts: Vec<Accept> = (0..8)
        .map(|i| accept(&format!("m{i}@partner"), i % 3 == 0))
        .collect();
    // A second copy of m1 in the same batch: the journal lets one in.
    accepts.push(accept("m1@partner", false));
    let expected_ids: Vec<Uuid> = accepts.iter().map(|a| a.message.id).collect();

    let results = futures::future::join_all(accepts.into_iter().map(|a| queue.accept(a))).await;

    for (i, result) in results.iter().enumerate().take(8) {
        assert!(result.is_ok(), "accept {i}: {result:?}");
    }
    assert!(
        matches!(results[8], Err(JournalError::Duplicate)),
        "{:?}",
        results[8]
    );
    let count = |sql: &'static str| {
        let pool = pool.clone();
        async move {
            sqlx::query_scalar::<_, i64>(sql)
                .fetch_one(&pool)
                .await
                .expect(sql)
        }
    };
    assert_eq!(count("SELECT count(*) FROM edi_message").await, 8);
    assert_eq!(count("SELECT count(*) FROM mdn").await, 8);
    assert_eq!(
        count("SELECT count(*) FROM outbox WHERE channel = 'kafka'").await,
        8
    );
    // m0, m3 and m6 asked for an asynchronous MDN.
    assert_eq!(
        count("SELECT count(*) FROM outbox WHERE channel = 'as2-mdn'").await,
        3
    );
    // One transaction wrote all of them.
    assert_eq!(
        count("SELECT count(DISTINCT xmin::text) FROM edi_message").await,
        1
    );
    // The copy that lost is not in the journal; its twin is, with its own MDN.
    let stored: Vec<Uuid> = sqlx::query_scalar("SELECT id FROM edi_message")
        .fetch_all(&pool)
        .await
        .expect("ids");
    assert!(!stored.contains(&expected_ids[8]));
    let mdn = edihub_journal::find_mdn(&pool, "PARTNER", "HUB", "m1@partner")
        .await
        .expect("find_mdn")
        .expect("stored MDN");
    assert_eq!(mdn.0, expected_ids[1]);
    assert_eq!(mdn.1.body, b"mdn for m1@partner");
    // Kafka rows keep the order the requests queued in.
    let aggregates: Vec<String> =
        sqlx::query_scalar("SELECT aggregate_id FROM outbox WHERE channel = 'kafka' ORDER BY seq")
            .fetch_all(&pool)
            .await
            .expect("outbox order");
    let queued: Vec<String> = expected_ids[..8].iter().map(Uuid::to_string).collect();
    assert_eq!(aggregates, queued);
}

#[tokio::test(flavor = "current_thread")]
async fn a_row_that_breaks_the_batch_fails_alone() {
    let pool = edihub_tests::fresh_database().await;
    let queue = AcceptQueue::start(pool.clone(), 1, 64);
    let mut accepts: Vec<Accept> = (0..4)
        .map(|i| accept(&format!("b{i}@partner"), false))
        .collect();
    // Two different messages whose outbox rows share an id: the batched statement
    // fails on the primary key, the one-by-one retry fails only the second.
    accepts[3].event.id = accepts[1].event.id;

    let results = futures::future::join_all(accepts.into_iter().map(|a| queue.accept(a))).await;

    assert!(results[0].is_ok(), "{:?}", results[0]);
    assert!(results[1].is_ok(), "{:?}", results[1]);
    assert!(results[2].is_ok(), "{:?}", results[2]);
    assert!(
        matches!(results[3], Err(JournalError::Database(_))),
        "{:?}",
        results[3]
    );
    let messages: i64 = sqlx::query_scalar("SELECT count(*) FROM edi_message")
        .fetch_one(&pool)
        .await
        .expect("count");
    assert_eq!(messages, 3, "the failed accept left nothing behind");
    let orphans: i64 = sqlx::query_scalar(
        "SELECT count(*) FROM edi_message m WHERE NOT EXISTS
             (SELECT 1 FROM outbox o WHERE o.aggregate_id = m.id::text)",
    )
    .fetch_one(&pool)
    .await
    .expect("count");
    assert_eq!(orphans, 0, "every journalled message has its outbox row");
}

/// `accept(id)` carrying a signed content, replayable until `window` after arrival.
fn signed(as2_message_id: &str, content: &[u8; 32], window: Duration) -> Accept {
    let mut accept = accept(as2_message_id, false);
    accept.message.signed_sha256 = Some(*content);
    accept.message.replay_until = Some(accept.message.received_at + window);
    accept
}

#[tokio::test(flavor = "current_thread")]
async fn the_same_signed_content_under_new_message_ids_is_journaled_once() {
    let pool = edihub_tests::fresh_database().await;
    let queue = AcceptQueue::start(pool.clone(), 1, 64);
    let window = Duration::days(30);
    let content = [7u8; 32];
    // Three copies in one batch (the batched statement), then one alone (the single
    // form), each under its own Message-ID; and other content, which is not a replay.
    let batch = vec![
        signed("r1@partner", &content, window),
        signed("r2@partner", &content, window),
        signed("other@partner", &[8u8; 32], window),
        signed("r3@partner", &content, window),
    ];
    let results = futures::future::join_all(batch.into_iter().map(|a| queue.accept(a))).await;
    assert!(results[0].is_ok(), "{:?}", results[0]);
    assert!(
        matches!(results[1], Err(JournalError::Duplicate)),
        "{:?}",
        results[1]
    );
    assert!(results[2].is_ok(), "{:?}", results[2]);
    assert!(
        matches!(results[3], Err(JournalError::Duplicate)),
        "{:?}",
        results[3]
    );
    let alone = signed("r4@partner", &content, window);
    let (at, until) = (alone.message.received_at, alone.message.replay_until);
    let single =
        edihub_journal::accept(&pool, &alone.message, &alone.mdn, &alone.event, None).await;
    assert!(matches!(single, Err(JournalError::Duplicate)), "{single:?}");

    let original =
        edihub_journal::find_signed_content(&pool, "PARTNER", &content, at, until.expect("window"))
            .await
            .expect("lookup")
            .expect("the first copy");
    assert_eq!(original.as2_message_id, "r1@partner");
    let messages: i64 = sqlx::query_scalar("SELECT count(*) FROM edi_message")
        .fetch_one(&pool)
        .await
        .expect("count");
    assert_eq!(messages, 2);
    let events: i64 = sqlx::query_scalar("SELECT count(*) FROM outbox")
        .fetch_one(&pool)
        .await
        .expect("count");
    assert_eq!(events, 2, "no event for a replay");
}

#[tokio::test(flavor = "current_thread")]
async fn signed_content_is_accepted_again_once_its_window_has_passed() {
    let pool = edihub_tests::fresh_database().await;
    let content = [9u8; 32];
    let mut first = signed("w1@partner", &content, Duration::hours(1));
    first.message.received_at -= Duration::hours(2);
    first.message.replay_until = Some(first.message.received_at + Duration::hours(1));
    let a = &first;
    edihub_journal::accept(&pool, &a.message, &a.mdn, &a.event, None)
        .await
        .expect("first copy");
    let again = signed("w2@partner", &content, Duration::hours(1));
    let a = &again;
    edihub_journal::accept(&pool, &a.message, &a.mdn, &a.event, None)
        .await
        .expect("outside the window the same content is a new message");
    // Another partner's identical content is never a replay of this one.
    let mut elsewhere = signed("w3@partner", &content, Duration::hours(1));
    elsewhere.message.as2_from = "OTHER".into();
    let a = &elsewhere;
    edihub_journal::accept(&pool, &a.message, &a.mdn, &a.event, None)
        .await
        .expect("another partner");
}
