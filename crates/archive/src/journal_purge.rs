//! `edihub journal purge`: the journal's bytes are removed only for messages whose
//! evidence the archive stored and the ledger sealed; every other message keeps them,
//! however old, so nothing that is not provably archived is ever lost.

use chrono::{DateTime, Utc};
use edihub_journal::PurgeCursor;
use serde::Serialize;
use sqlx::PgPool;

/// Candidates read per round: one round is one short statement per table.
const BATCH: i64 = 500;

#[derive(Debug, Clone, Copy, Default, Serialize)]
pub struct JournalPurgeReport {
    /// Messages received before the cut-off that still held their bytes.
    pub candidates: u64,
    pub purged: u64,
    /// Candidates kept because their evidence is not archived and sealed yet.
    pub kept_unsealed: u64,
    pub bytes_freed: u64,
}

#[derive(Debug, thiserror::Error)]
pub enum JournalPurgeError {
    #[error("database error: {0}")]
    Database(#[from] sqlx::Error),
    #[error(transparent)]
    Ledger(#[from] edihub_ledger::LedgerError),
}

/// Purges the bytes of messages received before `before` whose evidence is sealed.
/// `progress(done, total)` is called after each round.
pub async fn purge_sealed(
    pool: &PgPool,
    before: DateTime<Utc>,
    progress: &dyn Fn(u64, u64),
) -> Result<JournalPurgeReport, JournalPurgeError> {
    let total = edihub_journal::count_unpurged_before(pool, before).await? as u64;
    let mut report = JournalPurgeReport::default();
    let mut cursor: Option<PurgeCursor> = None;
    progress(0, total);
    loop {
        let batch = edihub_journal::unpurged_before(pool, before, cursor, BATCH).await?;
        let Some(last) = batch.last() else { break };
        cursor = Some(*last);
        let ids: Vec<_> = batch.iter().map(|(_, id)| *id).collect();
        let sealed = edihub_ledger::sealed_messages(pool, &ids).await?;
        let purged = edihub_journal::purge_bytes(pool, &sealed).await?;
        report.candidates += ids.len() as u64;
        report.purged += purged.messages;
        report.bytes_freed += purged.bytes;
        report.kept_unsealed += (ids.len() - sealed.len()) as u64;
        progress(report.candidates, total);
    }
    Ok(report)
}
