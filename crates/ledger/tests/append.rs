//! Appending on a real database: positions from the head, reuse, no gaps.

mod common;

use common::{append, facts, fresh_database, mark_stored, message};
use edihub_ledger::{GENESIS, LedgerError, chain_hash, entries};
use std::collections::HashSet;
use uuid::Uuid;

#[tokio::test]
async fn the_first_entry_links_to_genesis_and_the_next_to_it() {
    let pool = fresh_database().await;
    let (a, b) = (message(&pool).await, message(&pool).await);
    let first = append(&pool, a, 10).await;
    let second = append(&pool, b, 10).await;
    assert_eq!((first.position.seq, second.position.seq), (1, 2));
    assert!(!first.reused && !second.reused);
    assert_eq!(first.hash, chain_hash(&GENESIS, &first.canonical));
    assert_eq!(second.hash, chain_hash(&first.hash, &second.canonical));
    assert!(second.position.chained_at >= first.position.chained_at);
    let stored = entries(&pool, 1, 2).await.expect("entries");
    assert_eq!(stored[0].canonical, first.canonical);
    assert_eq!(stored[1].hash, second.hash);
    assert_eq!(stored[1].message_id, b);
    assert_eq!(stored[0].stored_at, None);
}

#[tokio::test]
async fn a_redelivered_message_gets_its_position_and_time_back() {
    let pool = fresh_database().await;
    let id = message(&pool).await;
    let first = append(&pool, id, 10).await;
    let mut seen = None;
    let again = edihub_ledger::append(&pool, id, |p| {
        seen = Some(p);
        facts(id, p, 10)
    })
    .await
    .expect("append again");
    assert_eq!(seen, Some(first.position));
    assert!(again.reused);
    assert_eq!(again.position, first.position);
    assert_eq!((again.canonical, again.hash), (first.canonical, first.hash));
    assert_eq!(edihub_ledger::head(&pool).await.expect("head").seq, 1);
}

#[tokio::test]
async fn a_redelivered_message_with_other_facts_is_refused() {
    let pool = fresh_database().await;
    let id = message(&pool).await;
    append(&pool, id, 10).await;
    let outcome = edihub_ledger::append(&pool, id, |p| facts(id, p, 11)).await;
    assert!(
        matches!(outcome, Err(LedgerError::EntryMismatch { seq: 1, message_id }) if message_id == id),
        "{outcome:?}"
    );
}

#[tokio::test]
async fn a_rolled_back_append_leaves_no_hole() {
    let pool = fresh_database().await;
    let a = message(&pool).await;
    append(&pool, a, 10).await;
    // No edi_message row: the insert violates the foreign key and the append rolls back.
    let ghost = Uuid::now_v7();
    let failed = edihub_ledger::append(&pool, ghost, |p| facts(ghost, p, 10)).await;
    assert!(
        matches!(failed, Err(LedgerError::Database(_))),
        "{failed:?}"
    );
    let b = message(&pool).await;
    // Bounded: a failed append must release the ledger's lock at once.
    let next = tokio::time::timeout(std::time::Duration::from_secs(10), append(&pool, b, 10))
        .await
        .expect("the lock was released");
    assert_eq!(next.position.seq, 2);
}

#[tokio::test]
async fn concurrent_appends_form_one_chain_without_gaps() {
    const N: usize = 24;
    let pool = fresh_database().await;
    let mut ids = Vec::new();
    for _ in 0..N {
        ids.push(message(&pool).await);
    }
    let tasks: Vec<_> = ids
        .iter()
        .map(|&id| {
            let pool = pool.clone();
            tokio::spawn(async move { append(&pool, id, 10).await })
        })
        .collect();
    for task in tasks {
        task.await.expect("task");
    }
    let chain = entries(&pool, 1, N as i64 + 10).await.expect("entries");
    let seqs: Vec<i64> = chain.iter().map(|e| e.seq).collect();
    assert_eq!(seqs, (1..=N as i64).collect::<Vec<_>>());
    let mut prev = GENESIS;
    for entry in &chain {
        assert_eq!(
            entry.hash,
            chain_hash(&prev, &entry.canonical),
            "link {}",
            entry.seq
        );
        prev = entry.hash;
    }
    let chained: HashSet<Uuid> = chain.iter().map(|e| e.message_id).collect();
    assert_eq!(chained, ids.into_iter().collect::<HashSet<_>>());
    let head = edihub_ledger::head(&pool).await.expect("head");
    assert_eq!((head.seq, head.hash), (N as i64, prev));
}

#[tokio::test]
async fn marking_stored_is_recorded_once_and_needs_an_entry() {
    let pool = fresh_database().await;
    let id = message(&pool).await;
    let mut conn = pool.acquire().await.expect("connection");
    let missing = edihub_ledger::mark_stored(&mut conn, id).await;
    assert!(matches!(missing, Err(LedgerError::NotAppended { message_id }) if message_id == id));
    drop(conn);
    append(&pool, id, 10).await;
    mark_stored(&pool, id).await;
    let first = entries(&pool, 1, 1).await.expect("entries")[0].stored_at;
    assert!(first.is_some());
    mark_stored(&pool, id).await;
    assert_eq!(
        entries(&pool, 1, 1).await.expect("entries")[0].stored_at,
        first
    );
    let backlog = edihub_ledger::backlog(&pool).await.expect("backlog");
    assert_eq!((backlog.unsealed, backlog.unstored), (1, 0));
}

#[tokio::test]
async fn mark_stored_joins_the_callers_transaction() {
    let pool = fresh_database().await;
    let id = message(&pool).await;
    append(&pool, id, 10).await;
    let mut tx = pool.begin().await.expect("begin");
    edihub_ledger::mark_stored(&mut tx, id).await.expect("mark");
    tx.rollback().await.expect("rollback");
    assert_eq!(
        entries(&pool, 1, 1).await.expect("entries")[0].stored_at,
        None
    );
    let backlog = edihub_ledger::backlog(&pool).await.expect("backlog");
    assert_eq!((backlog.unsealed, backlog.unstored), (1, 1));
    assert!(backlog.oldest_unsealed.is_some());
}

#[tokio::test]
async fn a_batch_chains_new_entries_in_order_and_reuses_those_it_finds() {
    let pool = fresh_database().await;
    let (a, b, c) = (
        message(&pool).await,
        message(&pool).await,
        message(&pool).await,
    );
    let first = append(&pool, a, 10).await;
    // b is named twice: one entry, found again the second time.
    let ids = [b, a, c, b];
    let batch = edihub_ledger::append_all(&pool, &ids, |index, p| facts(ids[index], p, 10))
        .await
        .expect("append all");
    let seqs: Vec<(i64, bool)> = batch.iter().map(|e| (e.position.seq, e.reused)).collect();
    assert_eq!(seqs, [(2, false), (1, true), (3, false), (2, true)]);
    assert_eq!(
        (&batch[1].canonical, batch[1].hash),
        (&first.canonical, first.hash)
    );
    assert_eq!(batch[0].hash, chain_hash(&first.hash, &batch[0].canonical));
    assert_eq!(
        batch[2].hash,
        chain_hash(&batch[0].hash, &batch[2].canonical)
    );
    assert_eq!(
        (&batch[3].canonical, batch[3].hash),
        (&batch[0].canonical, batch[0].hash)
    );
    let chain = entries(&pool, 1, 10).await.expect("entries");
    let stored: Vec<(i64, Uuid)> = chain.iter().map(|e| (e.seq, e.message_id)).collect();
    assert_eq!(stored, [(1, a), (2, b), (3, c)]);
    assert_eq!(chain[2].hash, batch[2].hash);
}

#[tokio::test]
async fn a_batch_with_a_changed_entry_appends_none_of_its_entries() {
    let pool = fresh_database().await;
    let (a, b) = (message(&pool).await, message(&pool).await);
    append(&pool, a, 10).await;
    // b first, so its entry is chained before a's mismatch is found.
    let ids = [b, a];
    let outcome = edihub_ledger::append_all(&pool, &ids, |index, p| facts(ids[index], p, 11)).await;
    assert!(
        matches!(outcome, Err(LedgerError::EntryMismatch { seq: 1, message_id }) if message_id == a),
        "{outcome:?}"
    );
    assert_eq!(edihub_ledger::head(&pool).await.expect("head").seq, 1);
}

#[tokio::test]
async fn marking_a_batch_stored_names_a_message_without_an_entry() {
    let pool = fresh_database().await;
    let (a, b) = (message(&pool).await, message(&pool).await);
    append(&pool, a, 10).await;
    let mut tx = pool.begin().await.expect("begin");
    let missing = edihub_ledger::mark_stored_all(&mut tx, &[a, b]).await;
    assert!(matches!(missing, Err(LedgerError::NotAppended { message_id }) if message_id == b));
    tx.rollback().await.expect("rollback");
    append(&pool, b, 10).await;
    let mut conn = pool.acquire().await.expect("connection");
    edihub_ledger::mark_stored_all(&mut conn, &[a, b])
        .await
        .expect("mark");
    drop(conn);
    let backlog = edihub_ledger::backlog(&pool).await.expect("backlog");
    assert_eq!((backlog.unsealed, backlog.unstored), (2, 0));
}
