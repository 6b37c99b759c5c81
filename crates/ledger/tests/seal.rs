//! The sealer on a real database, writing to an in-memory sink.

mod common;

use chrono::Duration as TimeDelta;
use common::{MemorySink, append, fresh_database, identity, mark_stored, message, now};
use edihub_as2::Identity;
use edihub_ledger::verify::{SegmentFiles, SegmentLink, verify_chain, verify_segment};
use edihub_ledger::{GENESIS, SealError, SealPolicy, Sealer, SegmentRow, segments};
use sqlx::PgPool;
use std::time::Duration;
use uuid::Uuid;

fn policy(max_entries: usize, max_wait: Duration) -> SealPolicy {
    SealPolicy {
        max_entries,
        max_wait,
        timestamp_url: None,
    }
}

fn sealer(pool: &PgPool, sink: &MemorySink, policy: SealPolicy) -> (Sealer<MemorySink>, Vec<u8>) {
    let key: Identity = identity("sealer");
    let certificate = key.certificate.to_der().expect("der");
    (
        Sealer::new(pool.clone(), sink.clone(), key, policy),
        certificate,
    )
}

/// `n` messages appended, the ones at `stored` (0-based) marked stored.
async fn appended(pool: &PgPool, n: usize, stored: &[usize]) -> Vec<Uuid> {
    let mut ids = Vec::new();
    for i in 0..n {
        let id = message(pool).await;
        append(pool, id, 30 + i as i64).await;
        if stored.contains(&i) {
            mark_stored(pool, id).await;
        }
        ids.push(id);
    }
    ids
}

fn files<'a>(
    sink: &'a MemorySink,
    row: &SegmentRow,
    keep: &'a mut Vec<Vec<u8>>,
) -> SegmentFiles<'a> {
    for key in [
        &row.objects.entries.key,
        &row.objects.manifest.key,
        &row.objects.signature.key,
    ] {
        keep.push(sink.latest(key).expect("object written").bytes);
    }
    SegmentFiles {
        entries: &keep[0],
        manifest: &keep[1],
        signature: &keep[2],
        timestamp: None,
    }
}

async fn segment_count(pool: &PgPool) -> i64 {
    sqlx::query_scalar("SELECT count(*) FROM ledger_segment")
        .fetch_one(pool)
        .await
        .expect("count")
}

#[tokio::test]
async fn an_unstored_entry_ends_the_run_and_segments_chain() {
    let pool = fresh_database().await;
    let sink = MemorySink::default();
    let (sealer, certificate) = sealer(&pool, &sink, policy(100, Duration::from_secs(3600)));
    assert_eq!(sealer.seal_now(now()).await.expect("seal"), None);
    let ids = appended(&pool, 3, &[0, 2]).await;
    let one = sealer
        .seal_now(now())
        .await
        .expect("seal")
        .expect("a segment");
    assert_eq!((one.first_seq, one.last_seq), (1, 1));
    assert_eq!(one.prefix, "ledger/segments/000000000001-000000000001/");
    assert!(!one.timestamped);
    assert_eq!(
        sealer.seal_now(now()).await.expect("seal"),
        None,
        "entry 2 is not stored"
    );
    mark_stored(&pool, ids[1]).await;
    let two = sealer
        .seal_now(now())
        .await
        .expect("seal")
        .expect("a segment");
    assert_eq!((two.first_seq, two.last_seq), (2, 3));

    let rows = segments(&pool, 0).await.expect("segments");
    assert_eq!(rows.len(), 2);
    assert_eq!((rows[0].prev_head, rows[1].prev_head), (GENESIS, one.head));
    assert_eq!(rows[1].head, two.head);
    let links: Vec<SegmentLink> = rows.iter().map(SegmentLink::from).collect();
    assert!(verify_chain(&links).is_empty());
    let mut prev = GENESIS;
    for row in &rows {
        let mut keep = Vec::new();
        let report = verify_segment(files(&sink, row, &mut keep), &certificate, None, prev);
        assert!(report.is_sound(), "{:?}", report.discrepancies);
        assert_eq!(report.head, row.head);
        prev = report.head;
    }
    let backlog = edihub_ledger::backlog(&pool).await.expect("backlog");
    assert_eq!(
        (backlog.unsealed, backlog.unstored, backlog.oldest_unsealed),
        (0, 0, None)
    );
}

#[tokio::test]
async fn the_row_names_what_the_sink_holds_locked_until_the_latest_retention() {
    let pool = fresh_database().await;
    let sink = MemorySink::default();
    let (sealer, certificate) = sealer(&pool, &sink, policy(100, Duration::ZERO));
    appended(&pool, 2, &[0, 1]).await;
    sealer
        .seal_now(now())
        .await
        .expect("seal")
        .expect("a segment");
    let row = &segments(&pool, 1).await.expect("segments")[0];
    let newest = edihub_ledger::entries(&pool, 2, 2).await.expect("entries")[0].clone();
    let retain = edihub_ledger::parse_canonical(&newest.canonical)
        .expect("entry")
        .facts
        .retain_until;
    let objects = &row.objects;
    let certificate_object = objects.certificate.as_ref().expect("certificate object");
    for object in [
        &objects.entries,
        &objects.manifest,
        &objects.signature,
        certificate_object,
    ] {
        let put = sink.latest(&object.key).expect("written");
        assert_eq!(put.version_id, object.version_id.clone().expect("version"));
        assert_eq!(hex::encode(sha2::Sha256::digest(&put.bytes)), object.sha256);
        assert_eq!(put.bytes.len() as u64, object.size);
        assert_eq!(put.retain_until, retain, "{}", object.key);
    }
    let fingerprint = hex::encode(sha2::Sha256::digest(&certificate));
    assert_eq!(
        certificate_object.key,
        format!("ledger/certificates/{fingerprint}.pem")
    );
    let pem = sink.latest(&certificate_object.key).expect("written").bytes;
    assert_eq!(
        openssl::x509::X509::from_pem(&pem)
            .expect("pem")
            .to_der()
            .expect("der"),
        certificate
    );
    assert!(objects.timestamp.is_none());
    let entries = sink.latest(&objects.entries.key).expect("entries").bytes;
    assert_eq!(entries.iter().filter(|b| **b == b'\n').count(), 2);
    assert!(entries.ends_with(b"\n"));
}

use sha2::Digest as _;

#[tokio::test]
async fn sealing_is_due_on_count_or_on_age() {
    let pool = fresh_database().await;
    let sink = MemorySink::default();
    let (sealer, _) = sealer(&pool, &sink, policy(3, Duration::from_secs(3600)));
    appended(&pool, 2, &[0, 1]).await;
    assert_eq!(sealer.seal_due(now()).await.expect("seal"), None);
    let later = now() + TimeDelta::hours(2);
    let aged = sealer
        .seal_due(later)
        .await
        .expect("seal")
        .expect("due by age");
    assert_eq!((aged.first_seq, aged.last_seq), (1, 2));
    appended(&pool, 4, &[0, 1, 2, 3]).await;
    let full = sealer
        .seal_due(now())
        .await
        .expect("seal")
        .expect("due by count");
    assert_eq!(
        (full.first_seq, full.last_seq),
        (3, 5),
        "at most max_entries"
    );
    assert_eq!(
        sealer.seal_due(now()).await.expect("seal"),
        None,
        "one waits, not long"
    );
    let rest = sealer.seal_now(now()).await.expect("seal").expect("forced");
    assert_eq!((rest.first_seq, rest.last_seq), (6, 6));
}

#[tokio::test]
async fn a_failed_put_leaves_no_row_and_the_retry_writes_the_same_keys() {
    let pool = fresh_database().await;
    let sink = MemorySink::default();
    let (sealer, _) = sealer(&pool, &sink, policy(100, Duration::ZERO));
    appended(&pool, 2, &[0, 1]).await;
    sink.fail_on(Some("segment.p7s"));
    let failed = sealer.seal_now(now()).await;
    assert!(matches!(failed, Err(SealError::Sink(_))), "{failed:?}");
    assert_eq!(segment_count(&pool).await, 0);
    sink.fail_on(None);
    let sealed = sealer
        .seal_now(now())
        .await
        .expect("seal")
        .expect("a segment");
    let entries_key = format!("{}entries.jsonl", sealed.prefix);
    assert_eq!(
        sink.versions(&entries_key),
        2,
        "an extra version, never a missing one"
    );
    let puts = sink.puts();
    let versions: Vec<_> = puts.iter().filter(|p| p.key == entries_key).collect();
    assert_eq!(versions[0].bytes, versions[1].bytes);
    assert_eq!(segment_count(&pool).await, 1);
}

#[tokio::test]
async fn another_sealer_holding_the_lock_means_none() {
    let pool = fresh_database().await;
    let sink = MemorySink::default();
    let (sealer, _) = sealer(&pool, &sink, policy(100, Duration::ZERO));
    appended(&pool, 1, &[0]).await;
    let mut other = pool.begin().await.expect("begin");
    sqlx::query("SELECT pg_advisory_xact_lock($1)")
        .bind(edihub_ledger::SEAL_LOCK_KEY)
        .execute(&mut *other)
        .await
        .expect("lock");
    assert_eq!(sealer.seal_now(now()).await.expect("seal"), None);
    other.rollback().await.expect("release");
    assert!(sealer.seal_now(now()).await.expect("seal").is_some());
}

#[tokio::test]
async fn an_altered_entry_is_never_sealed() {
    let pool = fresh_database().await;
    let sink = MemorySink::default();
    let (sealer, _) = sealer(&pool, &sink, policy(100, Duration::ZERO));
    appended(&pool, 2, &[0, 1]).await;
    sqlx::query("UPDATE ledger_entry SET canonical = canonical || ' '::bytea WHERE seq = 2")
        .execute(&pool)
        .await
        .expect("tamper");
    let outcome = sealer.seal_now(now()).await;
    assert!(
        matches!(
            outcome,
            Err(SealError::Ledger(edihub_ledger::LedgerError::ChainBroken {
                seq: 2
            }))
        ),
        "{outcome:?}"
    );
    assert!(sink.puts().is_empty());
}

#[tokio::test]
async fn run_seals_until_shutdown() {
    let pool = fresh_database().await;
    let sink = MemorySink::default();
    let (sealer, _) = sealer(&pool, &sink, policy(100, Duration::ZERO));
    let shutdown = tokio_util::sync::CancellationToken::new();
    let running = {
        let shutdown = shutdown.clone();
        tokio::spawn(async move { sealer.run(Duration::from_millis(20), shutdown).await })
    };
    appended(&pool, 2, &[0, 1]).await;
    let deadline = tokio::time::Instant::now() + Duration::from_secs(10);
    while segment_count(&pool).await == 0 {
        assert!(
            tokio::time::Instant::now() < deadline,
            "no segment sealed in time"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    shutdown.cancel();
    tokio::time::timeout(Duration::from_secs(5), running)
        .await
        .expect("run stops promptly")
        .expect("task");
}
