//! A period checked (`edihub audit verify`): its segments verified and chained, the
//! database's ledger compared with what they signed, and every message of the period
//! checked.

use super::chain::{ChainFindings, check_chain};
use super::consistency::read_canonical;
use super::message::{CheckContext, SealedEntry, check_against};
use super::report::{MessageCheck, Verdict};
use super::{VerifyError, sources};
use crate::ArchiveStore;
use chrono::{DateTime, Utc};
use edihub_ledger::StoredEntry;
use serde::Serialize;
use sqlx::PgPool;
use std::collections::BTreeSet;
use std::ops::Range;
use uuid::Uuid;

/// The trust anchors of a verification: DER certificates obtained from the hub's
/// operator, not from the bucket under check.
#[derive(Debug, Clone, Copy)]
pub struct Anchors<'a> {
    pub sealing_certificate: &'a [u8],
    pub tsa_certificate: Option<&'a [u8]>,
}

#[derive(Debug, Clone, Default, Serialize)]
pub struct PeriodSummary {
    pub messages: u64,
    pub objects: u64,
    pub bytes: u64,
    pub segments: u64,
    pub discrepancies: u64,
}

#[derive(Debug, Clone, Serialize)]
pub struct PeriodReport {
    pub from: DateTime<Utc>,
    pub to: DateTime<Utc>,
    pub summary: PeriodSummary,
    /// Every discrepancy, each naming its message, position, segment or object.
    pub discrepancies: Vec<String>,
    /// What is not a fault but worth saying ("seq 41-43 not sealed yet").
    pub notes: Vec<String>,
    pub messages: Vec<MessageCheck>,
}

impl PeriodReport {
    pub fn passed(&self) -> bool {
        self.discrepancies.is_empty()
    }
}

/// Verifies the messages received in `period` and the ledger segments that hold them.
/// `progress(done, total)` is called as messages are checked.
pub async fn verify_period(
    pool: &PgPool,
    store: &ArchiveStore,
    context: &CheckContext,
    period: Range<DateTime<Utc>>,
    anchors: Anchors<'_>,
    progress: &dyn Fn(u64, u64),
) -> Result<PeriodReport, VerifyError> {
    let entries = sources::entries(pool).await?;
    let segments = sources::segments(pool).await?;
    let messages = messages_in(pool, &entries, &period).await?;
    let seqs: Vec<i64> = entries
        .iter()
        .filter(|e| messages.contains(&e.message_id))
        .map(|e| e.seq)
        .collect();
    let chain = check_chain(store, &entries, &segments, &seqs, anchors).await;
    let total = messages.len() as u64;
    progress(0, total);
    let mut checked = Vec::new();
    for (done, message_id) in messages.iter().enumerate() {
        checked.push(check_one(pool, store, context, &entries, &chain, *message_id).await?);
        progress(done as u64 + 1, total);
    }
    Ok(report(period, chain, checked))
}

/// The period's messages: those the archive recorded as received in it, and those the
/// ledger's entries say were (so that a removed archive row is still looked at).
async fn messages_in(
    pool: &PgPool,
    entries: &[StoredEntry],
    period: &Range<DateTime<Utc>>,
) -> Result<BTreeSet<Uuid>, VerifyError> {
    let mut messages: BTreeSet<Uuid> = sources::archived_between(pool, period.start, period.end)
        .await?
        .into_iter()
        .collect();
    messages.extend(
        entries
            .iter()
            .filter(|e| {
                read_canonical(&e.canonical).is_ok_and(|c| period.contains(&c.facts.received_at))
            })
            .map(|e| e.message_id),
    );
    Ok(messages)
}

async fn check_one(
    pool: &PgPool,
    store: &ArchiveStore,
    context: &CheckContext,
    entries: &[StoredEntry],
    chain: &ChainFindings,
    message_id: Uuid,
) -> Result<MessageCheck, VerifyError> {
    let sealed = entries
        .iter()
        .find(|e| e.message_id == message_id)
        .and_then(|e| chain.sealed.get(&e.seq))
        .map(|line| SealedEntry {
            first_seq: line.first_seq,
            last_seq: line.last_seq,
            canonical: &line.canonical,
        });
    check_against(pool, store, context, message_id, sealed).await
}

fn report(
    period: Range<DateTime<Utc>>,
    chain: ChainFindings,
    messages: Vec<MessageCheck>,
) -> PeriodReport {
    let mut discrepancies = chain.discrepancies;
    let mut notes = chain.notes;
    let mut summary = PeriodSummary {
        messages: messages.len() as u64,
        segments: chain.segments,
        ..PeriodSummary::default()
    };
    for message in &messages {
        discrepancies.extend(message.discrepancies());
        summary.objects += message.objects.len() as u64;
        summary.bytes += message
            .objects
            .iter()
            .filter_map(|o| o.actual_size)
            .sum::<u64>();
        // "Not sealed yet" is said once for the whole run, by the chain check.
        notes.extend(message.checks.iter().filter_map(|c| match &c.verdict {
            Verdict::Note(reason) if c.name != "sealed" => Some(format!(
                "message {}: {}: {reason}",
                message.message_id, c.name
            )),
            _ => None,
        }));
    }
    summary.discrepancies = discrepancies.len() as u64;
    PeriodReport {
        from: period.start,
        to: period.end,
        summary,
        discrepancies,
        notes,
        messages,
    }
}
