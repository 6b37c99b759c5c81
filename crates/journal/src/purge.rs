//! Removing the bytes of old messages from the journal (`edihub journal purge`). The
//! caller decides which messages may lose their bytes (those whose evidence the archive
//! stored and the ledger sealed); this module walks the candidates and empties their
//! rows. A purged row keeps its identities, digests and MDN; its payload is then read
//! from the archive ([`crate::PurgedPayloads`]).

use chrono::{DateTime, Utc};
use sqlx::PgPool;
use uuid::Uuid;

/// Where a walk over the candidates stands: the last `(received_at, id)` returned.
pub type PurgeCursor = (DateTime<Utc>, Uuid);

/// Up to `limit` messages received before `before` that still hold their bytes, oldest
/// first, after `cursor`.
pub async fn unpurged_before(
    pool: &PgPool,
    before: DateTime<Utc>,
    cursor: Option<PurgeCursor>,
    limit: i64,
) -> Result<Vec<PurgeCursor>, sqlx::Error> {
    let (after_time, after_id) = cursor.unzip();
    sqlx::query_as(
        "SELECT received_at, id FROM edi_message
         WHERE purged_at IS NULL AND received_at < $1
           AND ($2::timestamptz IS NULL OR (received_at, id) > ($2, $3))
         ORDER BY received_at, id LIMIT $4",
    )
    .bind(before)
    .bind(after_time)
    .bind(after_id)
    .bind(limit)
    .fetch_all(pool)
    .await
}

/// How many messages received before `before` still hold their bytes.
pub async fn count_unpurged_before(
    pool: &PgPool,
    before: DateTime<Utc>,
) -> Result<i64, sqlx::Error> {
    sqlx::query_scalar(
        "SELECT count(*) FROM edi_message WHERE purged_at IS NULL AND received_at < $1",
    )
    .bind(before)
    .fetch_one(pool)
    .await
}

/// What one [`purge_bytes`] removed.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Purged {
    pub messages: u64,
    /// Bytes of body, payload and signed entity no longer held.
    pub bytes: u64,
}

/// Empties the rows of `ids` that still hold bytes, in one statement: the body, the
/// payload and the signed entity go, `purged_at` is set.
pub async fn purge_bytes(pool: &PgPool, ids: &[Uuid]) -> Result<Purged, sqlx::Error> {
    let (messages, bytes): (i64, i64) = sqlx::query_as(
        "WITH target AS (
             SELECT id, coalesce(octet_length(raw_body), 0) + coalesce(octet_length(payload), 0)
                        + coalesce(octet_length(signed_entity), 0) AS bytes
             FROM edi_message WHERE id = ANY($1) AND purged_at IS NULL FOR UPDATE
         ), purged AS (
             UPDATE edi_message m
             SET raw_body = NULL, payload = NULL, signed_entity = NULL, purged_at = now()
             FROM target t WHERE m.id = t.id
             RETURNING t.bytes
         )
         SELECT count(*), coalesce(sum(bytes), 0)::bigint FROM purged",
    )
    .bind(ids)
    .fetch_one(pool)
    .await?;
    Ok(Purged {
        messages: messages as u64,
        bytes: bytes as u64,
    })
}
