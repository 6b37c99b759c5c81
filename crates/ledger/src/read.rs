//! What the verifier and the metrics read back: entries, segments, the head, the backlog.

use crate::LedgerError;
use crate::append::hash32;
use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use sqlx::PgPool;
use uuid::Uuid;

/// The last entry of the chain.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Head {
    /// 0 for an empty chain.
    pub seq: i64,
    /// [`crate::GENESIS`] for an empty chain.
    pub hash: [u8; 32],
}

/// The chain's head (entries, sealed or not).
pub async fn head(pool: &PgPool) -> Result<Head, LedgerError> {
    let mut conn = pool.acquire().await?;
    let (seq, hash) = crate::append::read_head(&mut conn).await?;
    Ok(Head { seq, hash })
}

/// Entries not sealed yet: what `edihub_ledger_unsealed_entries` reports.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Backlog {
    pub unsealed: i64,
    /// Of the unsealed ones, those whose objects are not all stored yet.
    pub unstored: i64,
    pub oldest_unsealed: Option<DateTime<Utc>>,
}

pub async fn backlog(pool: &PgPool) -> Result<Backlog, LedgerError> {
    let (unsealed, unstored, oldest_unsealed): (i64, i64, Option<DateTime<Utc>>) = sqlx::query_as(
        "SELECT count(*), count(*) FILTER (WHERE stored_at IS NULL), min(chained_at) \
             FROM ledger_entry \
             WHERE seq > coalesce((SELECT max(last_seq) FROM ledger_segment), 0)",
    )
    .fetch_one(pool)
    .await?;
    Ok(Backlog {
        unsealed,
        unstored,
        oldest_unsealed,
    })
}

/// One entry as the table holds it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StoredEntry {
    pub seq: i64,
    pub message_id: Uuid,
    pub canonical: Vec<u8>,
    pub hash: [u8; 32],
    pub stored_at: Option<DateTime<Utc>>,
}

/// The entries `from..=to`, in order.
pub async fn entries(pool: &PgPool, from: i64, to: i64) -> Result<Vec<StoredEntry>, LedgerError> {
    type Row = (i64, Uuid, Vec<u8>, Vec<u8>, Option<DateTime<Utc>>);
    let rows: Vec<Row> = sqlx::query_as(
        "SELECT seq, message_id, canonical, hash, stored_at FROM ledger_entry \
         WHERE seq BETWEEN $1 AND $2 ORDER BY seq",
    )
    .bind(from)
    .bind(to)
    .fetch_all(pool)
    .await?;
    rows.into_iter()
        .map(|(seq, message_id, canonical, hash, stored_at)| {
            Ok(StoredEntry {
                seq,
                message_id,
                canonical,
                hash: hash32(&hash, seq)?,
                stored_at,
            })
        })
        .collect()
}

/// One object of a segment in the bucket.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct StoredObject {
    pub key: String,
    pub version_id: Option<String>,
    /// Lower-case hex.
    pub sha256: String,
    pub size: u64,
}

/// `ledger_segment.objects`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SegmentObjects {
    pub entries: StoredObject,
    pub manifest: StoredObject,
    pub signature: StoredObject,
    pub timestamp: Option<StoredObject>,
    /// The sealing certificate (PEM) under `ledger/certificates/`.
    #[serde(default)]
    pub certificate: Option<StoredObject>,
}

/// One `ledger_segment` row.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SegmentRow {
    pub first_seq: i64,
    pub last_seq: i64,
    pub prev_head: [u8; 32],
    pub head: [u8; 32],
    pub objects: SegmentObjects,
    pub sealed_at: DateTime<Utc>,
}

/// The segments that end at or after `from_seq`, in order.
pub async fn segments(pool: &PgPool, from_seq: i64) -> Result<Vec<SegmentRow>, LedgerError> {
    type Row = (i64, i64, Vec<u8>, Vec<u8>, serde_json::Value, DateTime<Utc>);
    let rows: Vec<Row> = sqlx::query_as(
        "SELECT first_seq, last_seq, prev_head, head, objects, sealed_at FROM ledger_segment \
         WHERE last_seq >= $1 ORDER BY first_seq",
    )
    .bind(from_seq)
    .fetch_all(pool)
    .await?;
    rows.into_iter()
        .map(
            |(first_seq, last_seq, prev_head, head, objects, sealed_at)| {
                let objects = serde_json::from_value(objects)
                    .map_err(|source| LedgerError::SegmentObjects { first_seq, source })?;
                Ok(SegmentRow {
                    first_seq,
                    last_seq,
                    prev_head: hash32(&prev_head, first_seq)?,
                    head: hash32(&head, last_seq)?,
                    objects,
                    sealed_at,
                })
            },
        )
        .collect()
}

/// Of `message_ids`, those whose entry is stored and inside a sealed segment: the
/// messages whose evidence no longer depends on the journal (`edihub journal purge`).
pub async fn sealed_messages(
    pool: &PgPool,
    message_ids: &[Uuid],
) -> Result<Vec<Uuid>, LedgerError> {
    Ok(sqlx::query_scalar(
        "SELECT message_id FROM ledger_entry
         WHERE message_id = ANY($1) AND stored_at IS NOT NULL
           AND seq <= coalesce((SELECT max(last_seq) FROM ledger_segment), 0)",
    )
    .bind(message_ids)
    .fetch_all(pool)
    .await?)
}
