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
    // The lock is taken with BEGIN, in one round trip: every statement after it sees
    // the head as the previous holder committed it.
    let mut tx = pool
        .begin_with(sqlx::AssertSqlSafe(format!(
            "BEGIN; SELECT pg_advisory_xact_lock({APPEND_LOCK})"
        )))
        .await?;
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

/// The append's statements, inside its transaction, under the lock: reuse or head,
/// insert.
async fn append_locked<F>(
    conn: &mut PgConnection,
    message_id: Uuid,
    build: F,
) -> Result<Appended, LedgerError>
where
    F: FnOnce(Position) -> EntryFacts,
{
    let found = find_with_head(conn, message_id).await?;
    if let Some(existing) = found.existing {
        return reuse(existing, message_id, build);
    }
    let (head_seq, head_hash) = found.head;
    let position = Position {
        seq: head_seq + 1,
        chained_at: found.now,
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

/// What the append reads under the lock, in one statement.
struct Found {
    /// The message's entry, when an earlier attempt appended it.
    existing: Option<Existing>,
    /// The head's position and hash: `(0, GENESIS)` for an empty chain.
    head: (i64, [u8; 32]),
    /// The clock after the lock was granted, so chained_at follows seq.
    now: DateTime<Utc>,
}

async fn find_with_head(conn: &mut PgConnection, message_id: Uuid) -> Result<Found, LedgerError> {
    type Row = (
        Option<i64>,
        Option<DateTime<Utc>>,
        Option<Vec<u8>>,
        Option<Vec<u8>>,
        Option<i64>,
        Option<Vec<u8>>,
        DateTime<Utc>,
    );
    let (seq, chained_at, canonical, hash, head_seq, head_hash, now): Row = sqlx::query_as(
        "SELECT mine.seq, mine.chained_at, mine.canonical, mine.hash,
                head.seq, head.hash, clock_timestamp()
         FROM (SELECT 1) one
         LEFT JOIN ledger_entry mine ON mine.message_id = $1
         LEFT JOIN LATERAL (SELECT seq, hash FROM ledger_entry ORDER BY seq DESC LIMIT 1) head
                ON true",
    )
    .bind(message_id)
    .fetch_one(conn)
    .await?;
    let existing = match (seq, chained_at, canonical, hash) {
        (Some(seq), Some(chained_at), Some(canonical), Some(hash)) => Some(Existing {
            position: Position { seq, chained_at },
            canonical,
            hash,
        }),
        _ => None,
    };
    let head = match (head_seq, head_hash) {
        (Some(seq), Some(hash)) => (seq, hash32(&hash, seq)?),
        _ => (0, GENESIS),
    };
    Ok(Found {
        existing,
        head,
        now,
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
