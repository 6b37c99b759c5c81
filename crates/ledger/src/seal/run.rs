//! What a seal reads under its lock: where the last segment ended, and the run of
//! stored entries after it, their links checked.

use crate::LedgerError;
use crate::append::hash32;
use crate::chain::{GENESIS, chain_hash};
use chrono::{DateTime, Utc};
use sqlx::PgConnection;

/// The last segment's last position and head: `(0, GENESIS)` before the first.
pub(super) async fn last_segment(conn: &mut PgConnection) -> Result<(i64, [u8; 32]), LedgerError> {
    let row: Option<(i64, Vec<u8>)> =
        sqlx::query_as("SELECT last_seq, head FROM ledger_segment ORDER BY last_seq DESC LIMIT 1")
            .fetch_optional(conn)
            .await?;
    match row {
        None => Ok((0, GENESIS)),
        Some((seq, head)) => Ok((seq, hash32(&head, seq)?)),
    }
}

/// An entry to seal, with the hash the table holds for it.
pub(super) struct Checked {
    pub seq: i64,
    pub canonical: Vec<u8>,
    pub hash: [u8; 32],
}

/// The run of stored entries right after `after`, and when the first was chained.
pub(super) struct Run {
    pub entries: Vec<Checked>,
    pub oldest: Option<DateTime<Utc>>,
}

impl Run {
    pub(super) fn range(&self) -> (i64, i64) {
        let first = self.entries.first().map_or(0, |e| e.seq);
        let last = self.entries.last().map_or(0, |e| e.seq);
        (first, last)
    }
}

/// The longest run of consecutive stored entries after `after`, at most `limit`: the
/// first unstored entry (or a missing position) ends it.
pub(super) async fn stored_run(
    conn: &mut PgConnection,
    after: i64,
    limit: usize,
) -> Result<Run, LedgerError> {
    type Row = (i64, Vec<u8>, Vec<u8>, bool, DateTime<Utc>);
    let rows: Vec<Row> = sqlx::query_as(
        "SELECT seq, canonical, hash, stored_at IS NOT NULL, chained_at FROM ledger_entry \
         WHERE seq > $1 ORDER BY seq LIMIT $2",
    )
    .bind(after)
    .bind(i64::try_from(limit).unwrap_or(i64::MAX))
    .fetch_all(conn)
    .await?;
    let oldest = rows.first().map(|row| row.4);
    let mut entries = Vec::with_capacity(rows.len());
    for (expected, (seq, canonical, hash, stored, _)) in (after + 1..).zip(rows) {
        if seq != expected || !stored {
            break;
        }
        let hash = hash32(&hash, seq)?;
        entries.push(Checked {
            seq,
            canonical,
            hash,
        });
    }
    Ok(Run { entries, oldest })
}

/// Each stored hash must be the link its bytes give: a segment never signs an altered
/// table.
pub(super) fn check_links(prev_head: [u8; 32], entries: &[Checked]) -> Result<(), LedgerError> {
    let mut prev = prev_head;
    for entry in entries {
        prev = chain_hash(&prev, &entry.canonical);
        if prev != entry.hash {
            return Err(LedgerError::ChainBroken { seq: entry.seq });
        }
    }
    Ok(())
}
