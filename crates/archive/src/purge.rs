//! Housekeeping that never loses audit data: SENT outbox rows older than a cutoff are
//! exported to the object-locked archive (gzip JSON lines + a manifest) and deleted only
//! after the export is confirmed; inbox rows past their retention are deleted in bounded
//! batches so consumers are never blocked for long.

use crate::store::{ArchiveStore, StoreError};
use chrono::{DateTime, Utc};
use flate2::Compression;
use flate2::write::GzEncoder;
use serde::Serialize;
use sqlx::PgPool;
use std::io::Write;
use uuid::Uuid;

#[derive(Debug, thiserror::Error)]
pub enum PurgeError {
    #[error("database error: {0}")]
    Database(#[from] sqlx::Error),
    #[error(transparent)]
    Store(#[from] StoreError),
    #[error("cannot encode the export: {0}")]
    Encode(#[from] std::io::Error),
    #[error("retention date out of range")]
    RetentionOutOfRange,
}

/// One exported chunk of the outbox, as recorded in its manifest.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, serde::Deserialize)]
pub struct ExportManifest {
    pub first_seq: i64,
    pub last_seq: i64,
    pub rows: usize,
    /// Object key of the gzip JSON-lines file.
    pub data_key: String,
    /// Lower-case hex SHA-256 of the gzip file as stored.
    pub data_sha256: String,
    pub exported_before: DateTime<Utc>,
}

#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct PurgeReport {
    pub chunks: usize,
    pub rows_exported: usize,
    pub rows_deleted: usize,
}

#[derive(sqlx::FromRow, Serialize)]
struct ExportedRow {
    id: Uuid,
    seq: i64,
    aggregate_type: String,
    aggregate_id: String,
    event_type: String,
    topic: String,
    payload: serde_json::Value,
    headers: serde_json::Value,
    created_at: DateTime<Utc>,
    sent_at: Option<DateTime<Utc>>,
    attempts: i32,
}

/// The deterministic key of a chunk: the same rows always give the same key, so a run
/// that crashed after the PUT and before the DELETE is completed, not duplicated, by
/// the next run.
fn chunk_keys(first_seq: i64, last_seq: i64) -> (String, String) {
    let base = format!("outbox-export/{first_seq:020}-{last_seq:020}");
    (format!("{base}.jsonl.gz"), format!("{base}.manifest.json"))
}

/// Exports and deletes SENT rows created before `cutoff`, `chunk_size` rows per chunk.
/// With `dry_run`, counts what would be exported and changes nothing.
pub async fn purge_outbox(
    pool: &PgPool,
    store: &ArchiveStore,
    cutoff: DateTime<Utc>,
    chunk_size: i64,
    dry_run: bool,
) -> Result<PurgeReport, PurgeError> {
    let mut report = PurgeReport::default();
    if dry_run {
        let count: i64 = sqlx::query_scalar(
            "SELECT count(*) FROM outbox WHERE status = 'SENT' AND created_at < $1",
        )
        .bind(cutoff)
        .fetch_one(pool)
        .await?;
        report.rows_exported = count as usize;
        return Ok(report);
    }
    let retain_until = crate::retain_until(Utc::now(), store.retention_years())
        .ok_or(PurgeError::RetentionOutOfRange)?;
    loop {
        let mut tx = pool.begin().await?;
        // Locked so that a concurrent replay cannot flip a row back to PENDING between
        // its export and its deletion.
        let rows: Vec<ExportedRow> = sqlx::query_as(
            "SELECT id, seq, aggregate_type, aggregate_id, event_type, topic, payload, headers,
                    created_at, sent_at, attempts
             FROM outbox WHERE status = 'SENT' AND created_at < $1
             ORDER BY seq LIMIT $2 FOR UPDATE SKIP LOCKED",
        )
        .bind(cutoff)
        .bind(chunk_size)
        .fetch_all(&mut *tx)
        .await?;
        let (Some(first), Some(last)) = (rows.first(), rows.last()) else {
            tx.commit().await?;
            return Ok(report);
        };
        let (data_key, manifest_key) = chunk_keys(first.seq, last.seq);

        let mut gzip = GzEncoder::new(Vec::new(), Compression::default());
        for row in &rows {
            serde_json::to_writer(&mut gzip, row).map_err(std::io::Error::other)?;
            gzip.write_all(b"\n")?;
        }
        let data = gzip.finish()?;
        let manifest = ExportManifest {
            first_seq: first.seq,
            last_seq: last.seq,
            rows: rows.len(),
            data_key: data_key.clone(),
            data_sha256: crate::sha256_hex(&data),
            exported_before: cutoff,
        };
        // Completed earlier but not deleted (a crash between the PUT and the commit):
        // the manifest is there and matches, so only the deletion is left to do.
        let already = match store.get(&manifest_key, None).await {
            Ok(bytes) => serde_json::from_slice::<ExportManifest>(&bytes).is_ok_and(|stored| {
                stored.rows == manifest.rows
                    && stored.first_seq == manifest.first_seq
                    && stored.last_seq == manifest.last_seq
            }),
            Err(_) => false,
        };
        if !already {
            store
                .put_locked_as(&data_key, data, "application/gzip", retain_until)
                .await?;
            let manifest_bytes =
                serde_json::to_vec_pretty(&manifest).map_err(std::io::Error::other)?;
            // The manifest goes last: its presence means the data object is complete.
            store
                .put_locked_as(
                    &manifest_key,
                    manifest_bytes,
                    "application/json",
                    retain_until,
                )
                .await?;
            report.rows_exported += rows.len();
        }
        let ids: Vec<Uuid> = rows.iter().map(|r| r.id).collect();
        let deleted = sqlx::query("DELETE FROM outbox WHERE id = ANY($1)")
            .bind(&ids)
            .execute(&mut *tx)
            .await?;
        tx.commit().await?;
        report.rows_deleted += deleted.rows_affected() as usize;
        report.chunks += 1;
        tracing::info!(%manifest_key, rows = rows.len(), "outbox chunk exported and deleted");
    }
}

/// Deletes inbox rows received before `cutoff`, at most `batch` rows per transaction.
/// Returns how many were deleted.
pub async fn purge_inbox(
    pool: &PgPool,
    cutoff: DateTime<Utc>,
    batch: i64,
) -> Result<u64, sqlx::Error> {
    let mut total = 0;
    loop {
        let deleted = sqlx::query(
            "DELETE FROM inbox WHERE ctid = ANY(ARRAY(
                 SELECT ctid FROM inbox WHERE received_at < $1 LIMIT $2 FOR UPDATE SKIP LOCKED))",
        )
        .bind(cutoff)
        .bind(batch)
        .execute(pool)
        .await?
        .rows_affected();
        total += deleted;
        if deleted == 0 {
            return Ok(total);
        }
    }
}
