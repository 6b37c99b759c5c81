//! What the checks read from the database: the archive's own rows, and the ledger's
//! entries and segment rows through its read API (the claims a verifier compares with S3
//! and the signed segments).

use chrono::{DateTime, Utc};
use edihub_ledger::{LedgerError, SegmentRow, StoredEntry};
use sqlx::PgPool;
use uuid::Uuid;

/// One `archive_object` row.
#[derive(Debug, Clone, sqlx::FromRow)]
pub(crate) struct ObjectRow {
    pub kind: String,
    pub object_key: String,
    pub version_id: Option<String>,
    pub sha256: String,
    pub size: i64,
    pub retain_until: DateTime<Utc>,
}

pub(crate) async fn objects_of(
    pool: &PgPool,
    message_id: Uuid,
) -> Result<Vec<ObjectRow>, sqlx::Error> {
    sqlx::query_as(
        "SELECT kind, object_key, version_id, sha256, size, retain_until
         FROM archive_object WHERE message_id = $1 ORDER BY kind",
    )
    .bind(message_id)
    .fetch_all(pool)
    .await
}

/// The messages the archive recorded as received in `[from, to)`.
pub(super) async fn archived_between(
    pool: &PgPool,
    from: DateTime<Utc>,
    to: DateTime<Utc>,
) -> Result<Vec<Uuid>, sqlx::Error> {
    sqlx::query_scalar(
        "SELECT message_id FROM archive_record
         WHERE received_at >= $1 AND received_at < $2 ORDER BY received_at, message_id",
    )
    .bind(from)
    .bind(to)
    .fetch_all(pool)
    .await
}

/// Every ledger entry, in order.
pub(super) async fn entries(pool: &PgPool) -> Result<Vec<StoredEntry>, LedgerError> {
    let head = edihub_ledger::head(pool).await?;
    edihub_ledger::entries(pool, 1, head.seq).await
}

/// `message_id`'s entry: at `hint` (the position evidence.json records) when it is there,
/// else looked for along the whole chain.
pub(super) async fn entry_of(
    pool: &PgPool,
    message_id: Uuid,
    hint: Option<i64>,
) -> Result<Option<StoredEntry>, LedgerError> {
    if let Some(seq) = hint {
        let found = edihub_ledger::entries(pool, seq, seq).await?;
        if let Some(entry) = found.into_iter().find(|e| e.message_id == message_id) {
            return Ok(Some(entry));
        }
    }
    Ok(entries(pool)
        .await?
        .into_iter()
        .find(|e| e.message_id == message_id))
}

/// Every segment row, in order.
pub(super) async fn segments(pool: &PgPool) -> Result<Vec<SegmentRow>, LedgerError> {
    edihub_ledger::segments(pool, 0).await
}

/// The segment row holding `seq`, if any.
pub(super) async fn segment_of(pool: &PgPool, seq: i64) -> Result<Option<SegmentRow>, LedgerError> {
    Ok(edihub_ledger::segments(pool, seq)
        .await?
        .into_iter()
        .find(|s| s.first_seq <= seq && seq <= s.last_seq))
}
