//! Housekeeping that never loses audit data: SENT rows older than a cutoff are exported
//! to an [`Archive`] (gzip JSON lines and a manifest, locked against deletion) and
//! deleted only after the export is confirmed.
//!
//! The archive is a trait so that this crate, which the archive's own crates depend on,
//! does not depend on the object store: `edihub_archive` implements it for its S3 store.

use chrono::{DateTime, Utc};
use flate2::Compression;
use flate2::write::GzEncoder;
use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;
use sha2::{Digest, Sha256};
use sqlx::PgPool;
use std::future::Future;
use std::io::Write;
use uuid::Uuid;

/// Where exported rows go: an object store that keeps what it is given for the audit
/// retention, whatever anyone asks later.
pub trait Archive: Sync {
    type Error: std::error::Error + Send + Sync + 'static;

    /// The object stored under `key`; an error when there is none.
    fn get(&self, key: &str) -> impl Future<Output = Result<Vec<u8>, Self::Error>> + Send;

    /// Stores `bytes` under `key`, locked for the retention period counted from
    /// `retained_from` (the start of the purge, the same for all its objects).
    fn put_locked(
        &self,
        key: &str,
        bytes: Vec<u8>,
        content_type: &str,
        retained_from: DateTime<Utc>,
    ) -> impl Future<Output = Result<(), Self::Error>> + Send;
}

#[derive(Debug, thiserror::Error)]
pub enum PurgeError {
    #[error("database error: {0}")]
    Database(#[from] sqlx::Error),
    #[error(transparent)]
    Archive(Box<dyn std::error::Error + Send + Sync>),
    #[error("cannot encode the export: {0}")]
    Encode(#[from] std::io::Error),
}

impl PurgeError {
    fn archive(error: impl std::error::Error + Send + Sync + 'static) -> Self {
        Self::Archive(Box::new(error))
    }
}

/// One exported chunk of the outbox, as recorded in its manifest.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
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
    // Copied as PostgreSQL renders them, not parsed into a tree and written again.
    payload: Box<RawValue>,
    headers: Box<RawValue>,
    created_at: DateTime<Utc>,
    sent_at: Option<DateTime<Utc>>,
    attempts: i32,
}

/// The deterministic keys of a chunk: the same rows always give the same keys, so a run
/// that crashed after the PUT and before the DELETE is completed, not duplicated, by
/// the next run.
fn chunk_keys(first_seq: i64, last_seq: i64) -> (String, String) {
    let base = format!("outbox-export/{first_seq:020}-{last_seq:020}");
    (format!("{base}.jsonl.gz"), format!("{base}.manifest.json"))
}

/// What a purge takes: SENT rows created before `cutoff`, `chunk_size` rows per chunk.
#[derive(Debug, Clone, Copy)]
pub struct PurgeOptions {
    pub cutoff: DateTime<Utc>,
    pub chunk_size: i64,
    /// Count what would be exported and change nothing.
    pub dry_run: bool,
    /// At most this many rows per second, averaged from the start: a purge beside a busy
    /// relay on a small machine is paced so that it takes its CPU evenly rather than in
    /// bursts. `None`: as fast as it can.
    pub max_rows_per_second: Option<u32>,
}

/// Exports and deletes the rows `options` select; `progress(done, total)` after each
/// chunk (`total` counted once, at the start).
pub async fn purge_sent(
    pool: &PgPool,
    archive: &impl Archive,
    options: PurgeOptions,
    progress: &(dyn Fn(u64, u64) + Sync),
) -> Result<PurgeReport, PurgeError> {
    let mut report = PurgeReport::default();
    let total: i64 =
        sqlx::query_scalar("SELECT count(*) FROM outbox WHERE status = 'SENT' AND created_at < $1")
            .bind(options.cutoff)
            .fetch_one(pool)
            .await?;
    if options.dry_run {
        report.rows_exported = total as usize;
        return Ok(report);
    }
    let total = total as u64;
    progress(0, total);
    let started = Utc::now();
    let pace = Pace::new(options.max_rows_per_second);
    // Each chunk starts after the last one: rescanning from the start would walk every
    // row this run already deleted (dead until vacuumed) once per chunk.
    let mut after_seq = 0;
    loop {
        let mut tx = pool.begin().await?;
        let rows = delete_chunk(&mut tx, options.cutoff, after_seq, options.chunk_size).await?;
        let Some(chunk) = Chunk::new(rows, options.cutoff) else {
            tx.commit().await?;
            return Ok(report);
        };
        after_seq = chunk.last_seq;
        let rows = chunk.rows.len();
        let (manifest_key, exported) = export(archive, chunk, started).await?;
        // The deletion becomes visible only now that the archive holds the chunk.
        tx.commit().await?;
        report.rows_exported += exported;
        report.rows_deleted += rows;
        report.chunks += 1;
        progress(
            report.rows_deleted as u64,
            total.max(report.rows_deleted as u64),
        );
        tracing::info!(%manifest_key, rows, "outbox chunk exported and deleted");
        pace.wait(report.rows_deleted).await;
    }
}

/// Paces a purge to an average rate since it started.
struct Pace {
    started: tokio::time::Instant,
    rows_per_second: Option<u32>,
}

impl Pace {
    fn new(rows_per_second: Option<u32>) -> Self {
        Self {
            started: tokio::time::Instant::now(),
            rows_per_second,
        }
    }

    /// Waits until `done` rows are no more than the rate allows.
    async fn wait(&self, done: usize) {
        if let Some(due) = self.rows_per_second.and_then(|rate| due_after(done, rate)) {
            tokio::time::sleep_until(self.started + due).await;
        }
    }
}

/// When, counted from the start, `done` rows are due at `rate` rows per second; `None`
/// for no limit (a rate of 0).
fn due_after(done: usize, rate: u32) -> Option<std::time::Duration> {
    (rate > 0).then(|| std::time::Duration::from_secs_f64(done as f64 / f64::from(rate)))
}

/// Deletes the next `limit` SENT rows after `after_seq` in `tx` and returns them, in
/// `seq` order. Deleting first, rather than locking with `FOR UPDATE` and deleting
/// after the export, writes each row once instead of twice; the caller commits only
/// after the export. A row a concurrent replay turned back to PENDING is skipped:
/// PostgreSQL checks `status` again on the row's latest version.
async fn delete_chunk(
    tx: &mut sqlx::PgConnection,
    cutoff: DateTime<Utc>,
    after_seq: i64,
    limit: i64,
) -> Result<Vec<ExportedRow>, sqlx::Error> {
    let mut rows: Vec<ExportedRow> = sqlx::query_as(
        "DELETE FROM outbox
         WHERE ctid = ANY(ARRAY(
                   SELECT ctid FROM outbox
                   WHERE status = 'SENT' AND created_at < $1 AND seq > $2
                   ORDER BY seq LIMIT $3))
           AND status = 'SENT'
         RETURNING id, seq, aggregate_type, aggregate_id, event_type, topic, payload, headers,
                   created_at, sent_at, attempts",
    )
    .bind(cutoff)
    .bind(after_seq)
    .bind(limit)
    .fetch_all(tx)
    .await?;
    rows.sort_unstable_by_key(|row| row.seq);
    Ok(rows)
}

/// The rows of one chunk, deleted in the purge's open transaction.
struct Chunk {
    rows: Vec<ExportedRow>,
    first_seq: i64,
    last_seq: i64,
    exported_before: DateTime<Utc>,
}

impl Chunk {
    /// `None` when there are no rows left.
    fn new(rows: Vec<ExportedRow>, exported_before: DateTime<Utc>) -> Option<Self> {
        let (first_seq, last_seq) = (rows.first()?.seq, rows.last()?.seq);
        Some(Self {
            rows,
            first_seq,
            last_seq,
            exported_before,
        })
    }
}

/// Puts a chunk into the archive, unless a run before this one did. Returns the
/// manifest's key and how many rows this call exported.
async fn export(
    archive: &impl Archive,
    chunk: Chunk,
    retained_from: DateTime<Utc>,
) -> Result<(String, usize), PurgeError> {
    let Chunk {
        rows: chunk_rows,
        first_seq,
        last_seq,
        exported_before,
    } = chunk;
    let (data_key, manifest_key) = chunk_keys(first_seq, last_seq);
    let rows = chunk_rows.len();
    // Completed earlier but not committed (a crash between the PUT and the commit): the
    // manifest is there and matches, so only the deletion is left to do.
    let already = match archive.get(&manifest_key).await {
        Ok(bytes) => serde_json::from_slice::<ExportManifest>(&bytes).is_ok_and(|stored| {
            stored.rows == rows && stored.first_seq == first_seq && stored.last_seq == last_seq
        }),
        Err(_) => false,
    };
    if already {
        return Ok((manifest_key, 0));
    }
    // Rendering and deflating take milliseconds of CPU per chunk: off the async
    // workers, which may be serving others (a relay in the same process, in the bench).
    let data = tokio::task::spawn_blocking(move || gzip_json_lines(&chunk_rows))
        .await
        .map_err(std::io::Error::other)??;
    let manifest = ExportManifest {
        first_seq,
        last_seq,
        rows,
        data_key: data_key.clone(),
        data_sha256: hex::encode(Sha256::digest(&data)),
        exported_before,
    };
    archive
        .put_locked(&data_key, data, "application/gzip", retained_from)
        .await
        .map_err(PurgeError::archive)?;
    let manifest_bytes = serde_json::to_vec_pretty(&manifest).map_err(std::io::Error::other)?;
    // The manifest goes last: its presence means the data object is complete.
    archive
        .put_locked(
            &manifest_key,
            manifest_bytes,
            "application/json",
            retained_from,
        )
        .await
        .map_err(PurgeError::archive)?;
    Ok((manifest_key, rows))
}

/// The rows as gzip JSON lines. The lines are rendered first and compressed in one
/// write: flate2 zero-fills its 32 KiB output buffer on every write it is given, and
/// serde_json writes each token apart, so writing rows straight into the encoder spent
/// half the purge in memset. The fastest level: deflate was then most of the purge's
/// CPU, and level 6 saves only a tenth of the bytes (docs/adr/0007).
fn gzip_json_lines(rows: &[ExportedRow]) -> Result<Vec<u8>, PurgeError> {
    let mut lines = Vec::with_capacity(rows.len() * 512);
    for row in rows {
        serde_json::to_writer(&mut lines, row).map_err(std::io::Error::other)?;
        lines.push(b'\n');
    }
    let mut gzip = GzEncoder::new(Vec::with_capacity(lines.len() / 4), Compression::fast());
    gzip.write_all(&lines)?;
    Ok(gzip.finish()?)
}

#[cfg(test)]
mod tests;
