//! Appending to the chain, and marking an entry's objects stored.

use crate::chain::{GENESIS, canonical, chain_hash};
use crate::{Appended, EntryFacts, LedgerError, Position};
use chrono::{DateTime, Utc};
use sqlx::{PgConnection, PgPool};
use uuid::Uuid;

/// The advisory lock key appends serialise on (ASCII "edihub-l"). Sealing takes another.
pub(crate) const APPEND_LOCK: i64 = 0x6564_6968_7562_2d6c;

/// Appends `message_id`'s entry in a short transaction of its own, under the ledger's
/// advisory lock: the position is the head's plus one. `build` gets the position and
/// returns the facts (evidence.json, which records the position, is among the objects).
///
/// When the message has an entry already (an earlier attempt appended it and did not
/// commit the archive), `build` gets that entry's position and `chained_at`, and the
/// rebuilt canonical bytes must equal the stored ones, else [`LedgerError::EntryMismatch`].
pub async fn append<F>(pool: &PgPool, message_id: Uuid, build: F) -> Result<Appended, LedgerError>
where
    F: FnOnce(Position) -> EntryFacts,
{
    let mut tx = pool.begin().await?;
    match append_locked(&mut tx, message_id, build).await {
        Ok(appended) => {
            tx.commit().await?;
            Ok(appended)
        }
        Err(error) => {
            // Rolled back now, not on drop: the lock must not wait for the pool to use
            // this connection again. The append's own error is the one to report.
            let _ = tx.rollback().await;
            Err(error)
        }
    }
}

/// The append's statements, inside its transaction: lock, reuse or head, insert.
async fn append_locked<F>(
    conn: &mut PgConnection,
    message_id: Uuid,
    build: F,
) -> Result<Appended, LedgerError>
where
    F: FnOnce(Position) -> EntryFacts,
{
    sqlx::query("SELECT pg_advisory_xact_lock($1)")
        .bind(APPEND_LOCK)
        .execute(&mut *conn)
        .await?;
    if let Some(existing) = find(conn, message_id).await? {
        return reuse(existing, message_id, build);
    }
    let (head_seq, head_hash) = read_head(conn).await?;
    // The clock after the lock was granted, so chained_at follows seq.
    let chained_at: DateTime<Utc> = sqlx::query_scalar("SELECT clock_timestamp()")
        .fetch_one(&mut *conn)
        .await?;
    let position = Position {
        seq: head_seq + 1,
        chained_at,
    };
    let bytes = canonical(position, &build(position));
    let hash = chain_hash(&head_hash, &bytes);
    sqlx::query(
        "INSERT INTO ledger_entry (seq, message_id, canonical, hash, chained_at) \
         VALUES ($1, $2, $3, $4, $5)",
    )
    .bind(position.seq)
    .bind(message_id)
    .bind(&bytes)
    .bind(hash.as_slice())
    .bind(position.chained_at)
    .execute(conn)
    .await?;
    Ok(Appended {
        position,
        hash,
        canonical: bytes,
        reused: false,
    })
}

/// Records, in the archive's transaction, that every object of `message_id`'s entry is
/// in S3: from now on the entry may be sealed. Marking it again keeps the first time.
pub async fn mark_stored(conn: &mut PgConnection, message_id: Uuid) -> Result<(), LedgerError> {
    let done = sqlx::query(
        "UPDATE ledger_entry SET stored_at = coalesce(stored_at, now()) WHERE message_id = $1",
    )
    .bind(message_id)
    .execute(conn)
    .await?;
    if done.rows_affected() == 0 {
        return Err(LedgerError::NotAppended { message_id });
    }
    Ok(())
}

struct Existing {
    position: Position,
    canonical: Vec<u8>,
    hash: Vec<u8>,
}

async fn find(conn: &mut PgConnection, message_id: Uuid) -> Result<Option<Existing>, LedgerError> {
    type Row = (i64, DateTime<Utc>, Vec<u8>, Vec<u8>);
    let row: Option<Row> = sqlx::query_as(
        "SELECT seq, chained_at, canonical, hash FROM ledger_entry WHERE message_id = $1",
    )
    .bind(message_id)
    .fetch_optional(conn)
    .await?;
    Ok(row.map(|(seq, chained_at, canonical, hash)| Existing {
        position: Position { seq, chained_at },
        canonical,
        hash,
    }))
}

fn reuse<F>(existing: Existing, message_id: Uuid, build: F) -> Result<Appended, LedgerError>
where
    F: FnOnce(Position) -> EntryFacts,
{
    let rebuilt = canonical(existing.position, &build(existing.position));
    let hash = hash32(&existing.hash, existing.position.seq)?;
    if rebuilt != existing.canonical {
        return Err(LedgerError::EntryMismatch {
            seq: existing.position.seq,
            message_id,
        });
    }
    Ok(Appended {
        position: existing.position,
        hash,
        canonical: existing.canonical,
        reused: true,
    })
}

/// The head's position and hash: `(0, GENESIS)` for an empty chain.
pub(crate) async fn read_head(conn: &mut PgConnection) -> Result<(i64, [u8; 32]), LedgerError> {
    let row: Option<(i64, Vec<u8>)> =
        sqlx::query_as("SELECT seq, hash FROM ledger_entry ORDER BY seq DESC LIMIT 1")
            .fetch_optional(conn)
            .await?;
    match row {
        None => Ok((0, GENESIS)),
        Some((seq, hash)) => Ok((seq, hash32(&hash, seq)?)),
    }
}

/// A stored hash as the array it is (the table's CHECK keeps it 32 bytes).
pub(crate) fn hash32(bytes: &[u8], seq: i64) -> Result<[u8; 32], LedgerError> {
    bytes.try_into().map_err(|_| LedgerError::BadHash { seq })
}
