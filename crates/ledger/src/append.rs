//! Appending to the chain, and marking an entry's objects stored.

use crate::chain::{GENESIS, canonical, chain_hash};
use crate::{Appended, EntryFacts, LedgerError, Position};
use chrono::{DateTime, Utc};
use sqlx::{PgConnection, PgPool};
use std::collections::HashMap;
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
pub async fn append<F>(
    pool: &PgPool,
    message_id: Uuid,
    mut build: F,
) -> Result<Appended, LedgerError>
where
    F: FnMut(Position) -> EntryFacts,
{
    let mut appended = append_all(pool, &[message_id], |_, position| build(position)).await?;
    appended
        .pop()
        .ok_or(LedgerError::NotAppended { message_id })
}

/// [`append`] for several messages, in their order, in one transaction: one lock, one
/// read, one insert. `build` gets each message's index in `message_ids` and its position.
/// A message named twice gets one entry.
pub async fn append_all<F>(
    pool: &PgPool,
    message_ids: &[Uuid],
    build: F,
) -> Result<Vec<Appended>, LedgerError>
where
    F: FnMut(usize, Position) -> EntryFacts,
{
    // The lock is taken with BEGIN, in one round trip: every statement after it sees
    // the head as the previous holder committed it.
    let mut tx = pool
        .begin_with(sqlx::AssertSqlSafe(format!(
            "BEGIN; SELECT pg_advisory_xact_lock({APPEND_LOCK})"
        )))
        .await?;
    match append_locked(&mut tx, message_ids, build).await {
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

/// The append's statements, inside its transaction, under the lock: reuse or chain each
/// entry from the head, one insert of the new ones.
async fn append_locked<F>(
    conn: &mut PgConnection,
    message_ids: &[Uuid],
    mut build: F,
) -> Result<Vec<Appended>, LedgerError>
where
    F: FnMut(usize, Position) -> EntryFacts,
{
    let Found {
        mut existing,
        mut head,
        now,
    } = find_with_head(conn, message_ids).await?;
    let mut appended = Vec::with_capacity(message_ids.len());
    let mut new = NewEntries::default();
    for (index, &message_id) in message_ids.iter().enumerate() {
        if let Some(entry) = existing.get(&message_id) {
            appended.push(reuse(entry, message_id, |p| build(index, p))?);
            continue;
        }
        let position = Position {
            seq: head.0 + 1,
            chained_at: now,
        };
        let bytes = canonical(position, &build(index, position));
        let hash = chain_hash(&head.1, &bytes);
        head = (position.seq, hash);
        new.push(message_id, position.seq, &bytes, hash);
        existing.insert(
            message_id,
            Existing {
                position,
                canonical: bytes.clone(),
                hash: hash.to_vec(),
            },
        );
        appended.push(Appended {
            position,
            hash,
            canonical: bytes,
            reused: false,
        });
    }
    new.insert(conn, now).await?;
    Ok(appended)
}

/// The entries an append chained, as the columns of one INSERT.
#[derive(Default)]
struct NewEntries {
    seqs: Vec<i64>,
    message_ids: Vec<Uuid>,
    canonicals: Vec<Vec<u8>>,
    hashes: Vec<Vec<u8>>,
}

impl NewEntries {
    fn push(&mut self, message_id: Uuid, seq: i64, canonical: &[u8], hash: [u8; 32]) {
        self.seqs.push(seq);
        self.message_ids.push(message_id);
        self.canonicals.push(canonical.to_vec());
        self.hashes.push(hash.to_vec());
    }

    async fn insert(
        &self,
        conn: &mut PgConnection,
        chained_at: DateTime<Utc>,
    ) -> Result<(), LedgerError> {
        if self.seqs.is_empty() {
            return Ok(());
        }
        sqlx::query(
            "INSERT INTO ledger_entry (seq, message_id, canonical, hash, chained_at) \
             SELECT seq, message_id, canonical, hash, $5 \
             FROM unnest($1::bigint[], $2::uuid[], $3::bytea[], $4::bytea[]) \
                  AS e(seq, message_id, canonical, hash)",
        )
        .bind(&self.seqs)
        .bind(&self.message_ids)
        .bind(&self.canonicals)
        .bind(&self.hashes)
        .bind(chained_at)
        .execute(conn)
        .await?;
        Ok(())
    }
}

/// What the append reads under the lock, in one statement.
struct Found {
    /// The entries earlier attempts appended, by message.
    existing: HashMap<Uuid, Existing>,
    /// The head's position and hash: `(0, GENESIS)` for an empty chain.
    head: (i64, [u8; 32]),
    /// The clock after the lock was granted, so chained_at follows seq.
    now: DateTime<Utc>,
}

async fn find_with_head(
    conn: &mut PgConnection,
    message_ids: &[Uuid],
) -> Result<Found, LedgerError> {
    type Row = (
        Option<i64>,
        Option<Vec<u8>>,
        DateTime<Utc>,
        Option<Uuid>,
        Option<i64>,
        Option<DateTime<Utc>>,
        Option<Vec<u8>>,
        Option<Vec<u8>>,
    );
    // One row per entry found, or one row without an entry.
    let rows: Vec<Row> = sqlx::query_as(
        "SELECT head.seq, head.hash, clock_timestamp(),
                mine.message_id, mine.seq, mine.chained_at, mine.canonical, mine.hash
         FROM (SELECT 1) one
         LEFT JOIN LATERAL (SELECT seq, hash FROM ledger_entry ORDER BY seq DESC LIMIT 1) head
                ON true
         LEFT JOIN ledger_entry mine ON mine.message_id = ANY($1)",
    )
    .bind(message_ids)
    .fetch_all(conn)
    .await?;
    // The head is the same on every row: read it from the first, without copying the
    // entry that row may carry.
    let Some((head_seq, head_hash, now, ..)) = rows.first() else {
        return Err(LedgerError::Database(sqlx::Error::RowNotFound));
    };
    let now = *now;
    let head = match (head_seq, head_hash) {
        (Some(seq), Some(hash)) => (*seq, hash32(hash, *seq)?),
        _ => (0, GENESIS),
    };
    let existing = (rows.into_iter())
        .filter_map(|(.., message_id, seq, chained_at, canonical, hash)| {
            let entry = Existing {
                position: Position {
                    seq: seq?,
                    chained_at: chained_at?,
                },
                canonical: canonical?,
                hash: hash?,
            };
            Some((message_id?, entry))
        })
        .collect();
    Ok(Found {
        existing,
        head,
        now,
    })
}

/// Records, in the archive's transaction, that every object of `message_id`'s entry is
/// in S3: from now on the entry may be sealed. Marking it again keeps the first time.
pub async fn mark_stored(conn: &mut PgConnection, message_id: Uuid) -> Result<(), LedgerError> {
    mark_stored_all(conn, &[message_id]).await
}

/// [`mark_stored`] for several messages, in one statement.
pub async fn mark_stored_all(
    conn: &mut PgConnection,
    message_ids: &[Uuid],
) -> Result<(), LedgerError> {
    if message_ids.is_empty() {
        return Ok(());
    }
    let marked: Vec<Uuid> = sqlx::query_scalar(
        "UPDATE ledger_entry SET stored_at = coalesce(stored_at, now()) \
         WHERE message_id = ANY($1) RETURNING message_id",
    )
    .bind(message_ids)
    .fetch_all(conn)
    .await?;
    match message_ids.iter().find(|id| !marked.contains(id)) {
        Some(&message_id) => Err(LedgerError::NotAppended { message_id }),
        None => Ok(()),
    }
}

struct Existing {
    position: Position,
    canonical: Vec<u8>,
    hash: Vec<u8>,
}

fn reuse<F>(existing: &Existing, message_id: Uuid, build: F) -> Result<Appended, LedgerError>
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
        canonical: existing.canonical.clone(),
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
