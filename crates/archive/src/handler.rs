//! The archive consumer's handler: one event in, the message's evidence locked in S3,
//! chained in the ledger and recorded (ADR 0006, "Crash safety" gives the order).

mod record;

use crate::evidence::{
    EvidenceError, EvidenceParts, EvidenceSet, InvoiceNumbers, charset_policy, invoice_numbers,
};
use crate::store::{ArchiveStore, StoreError, retain_until};
use edihub_events::{EdiMessageReceived, Envelope, EventHandler, Handled, event_types};
use edihub_journal::{ClaimCheckError, MessageEvidence, sha256_hex};
use edihub_ledger::{LedgerError, Position};
use sqlx::{PgConnection, PgPool, Postgres, Transaction};
use std::collections::HashMap;
use tracing::{Instrument, Span};
use uuid::Uuid;

#[derive(Debug, thiserror::Error)]
pub enum ArchiveError {
    #[error("event payload is not an EdiMessageReceived: {0}")]
    Payload(#[from] serde_json::Error),
    #[error(transparent)]
    ClaimCheck(#[from] ClaimCheckError),
    #[error("retention date out of range")]
    RetentionOutOfRange,
    #[error(transparent)]
    Evidence(#[from] EvidenceError),
    /// Includes a redelivery whose rebuilt evidence differs from its entry: a bug, which
    /// the dead-letter topic keeps for an operator.
    #[error(transparent)]
    Ledger(#[from] LedgerError),
    #[error("reading the payload's invoice numbers: {0}")]
    Invoices(#[source] tokio::task::JoinError),
    #[error(transparent)]
    Store(#[from] StoreError),
    #[error("database error: {0}")]
    Database(#[from] sqlx::Error),
}

/// Messages of a batch whose objects are PUT at the same time (each message's objects
/// are PUT together). More is no faster against one S3 server process, and makes it
/// spend more per request (docs/benchmarks.md).
const PUT_MESSAGES_AT_ONCE: usize = 4;

pub struct Archiver {
    pool: PgPool,
    store: ArchiveStore,
    /// Name in the inbox table (the consumer group).
    consumer: String,
}

/// A claimed message's evidence, chained in the ledger, before its objects are stored.
struct Chained {
    evidence: MessageEvidence,
    invoices: InvoiceNumbers,
    set: EvidenceSet,
}

/// What a batch staged inside its transaction, not yet committed: each event's outcome,
/// and the messages archived with the span of their event.
struct Staged {
    handled: Vec<Handled>,
    archived: Vec<(Chained, Span)>,
}

impl Archiver {
    pub fn new(pool: PgPool, store: ArchiveStore, consumer: impl Into<String>) -> Self {
        Self {
            pool,
            store,
            consumer: consumer.into(),
        }
    }

    /// Archives the message an `EdiMessageReceived` event refers to. Returns `false`
    /// when the event was seen before, or is of another type (nothing done).
    pub async fn archive(&self, event: &Envelope) -> Result<bool, ArchiveError> {
        let handled = self.archive_batch(std::slice::from_ref(event)).await?;
        Ok(handled.first() == Some(&Handled::Applied))
    }

    /// Every step of [`Self::archive`] (the ledger entry appended, the objects stored)
    /// except the commit, which is rolled back: what a crash just before the commit
    /// leaves behind. For tests of the redelivery that follows.
    pub async fn archive_without_commit(
        &self,
        event: &Envelope,
    ) -> Result<Option<Position>, ArchiveError> {
        let mut tx = self.pool.begin().await?;
        let staged = self.stage(&mut tx, std::slice::from_ref(event)).await?;
        tx.rollback().await?;
        Ok((staged.archived.first()).map(|(chained, _)| chained.set.position()))
    }

    /// [`Self::archive`] for several events, in one transaction: one inbox statement,
    /// the claimed messages' evidence read in one statement and chained in the ledger in
    /// one transaction of its own, their objects stored [`PUT_MESSAGES_AT_ONCE`] messages
    /// at a time, their rows written in one statement, one commit. Ledger entries of a
    /// batch that fails after chaining stay, as a crash's would, and a redelivery reuses
    /// them.
    pub async fn archive_batch(&self, events: &[Envelope]) -> Result<Vec<Handled>, ArchiveError> {
        let mut tx = self.pool.begin().await?;
        let staged = self.stage(&mut tx, events).await?;
        tx.commit().await?;
        for (chained, span) in &staged.archived {
            span.in_scope(|| tracing::info!(seq = chained.set.position().seq, "archived"));
        }
        Ok(staged.handled)
    }

    /// Every step of [`Self::archive_batch`] but the commit.
    async fn stage(
        &self,
        tx: &mut Transaction<'static, Postgres>,
        events: &[Envelope],
    ) -> Result<Staged, ArchiveError> {
        let received = |e: &&Envelope| e.event_type == event_types::EDI_MESSAGE_RECEIVED;
        let wanted: Vec<(Uuid, &str)> = (events.iter().filter(received))
            .map(|e| (e.id, e.event_type.as_str()))
            .collect();
        let mut claimed = edihub_inbox::claim_all(tx, &self.consumer, &wanted).await?;
        let mut handled = Vec::with_capacity(events.len());
        let mut messages = Vec::new();
        for event in events {
            let span = edihub_events::event_span(event);
            if !received(&event) {
                handled.push(Handled::Ignored);
            } else if !claimed.remove(&event.id) {
                span.in_scope(|| tracing::info!("duplicate event, already archived"));
                handled.push(Handled::Duplicate);
            } else {
                messages.push((event.decode::<EdiMessageReceived>()?, span));
                handled.push(Handled::Applied);
            }
        }
        let archived = self.chain_all(tx, messages).await?;
        let mut versions = Vec::with_capacity(archived.len());
        for some in archived.chunks(PUT_MESSAGES_AT_ONCE) {
            let puts = (some.iter()).map(|(c, span)| self.put_all(&c.set).instrument(span.clone()));
            versions.extend(futures::future::try_join_all(puts).await?);
        }
        if !archived.is_empty() {
            let chained: Vec<&Chained> = archived.iter().map(|(c, _)| c).collect();
            record::insert_all(tx, self.store.bucket(), &chained, &versions).await?;
        }
        let ids: Vec<Uuid> = archived.iter().map(|(c, _)| c.evidence.id).collect();
        edihub_ledger::mark_stored_all(tx, &ids).await?;
        Ok(Staged { handled, archived })
    }

    /// The evidence of the messages `received` refers to, built and chained in the
    /// ledger, in their order (each entry appended, or found again on a redelivery).
    async fn chain_all(
        &self,
        conn: &mut PgConnection,
        received: Vec<(EdiMessageReceived, Span)>,
    ) -> Result<Vec<(Chained, Span)>, ArchiveError> {
        if received.is_empty() {
            return Ok(Vec::new());
        }
        let claims: Vec<_> = received.iter().map(|(r, _)| &r.payload).collect();
        let evidences = claimed_evidence(conn, &claims).await?;
        let invoices = read_invoices(&evidences, &received).await?;
        let mut parts = Vec::with_capacity(evidences.len());
        for ((evidence, invoices), (message, _)) in evidences.iter().zip(&invoices).zip(&received) {
            let until = retain_until(evidence.received_at, self.retention_years(message))
                .ok_or(ArchiveError::RetentionOutOfRange)?;
            parts.push(EvidenceParts::new(evidence, invoices, until)?);
        }
        let ids: Vec<Uuid> = evidences.iter().map(|e| e.id).collect();
        let sets = self.chain(&ids, &parts, &received).await?;
        let chained =
            (evidences.into_iter().zip(invoices).zip(sets)).map(|((evidence, invoices), set)| {
                Chained {
                    evidence,
                    invoices,
                    set,
                }
            });
        Ok(chained
            .zip(received.into_iter().map(|(_, span)| span))
            .collect())
    }

    /// The partnership's retention the event carries, else the store's default. The
    /// event is the same on every redelivery, so a rebuilt evidence.json is too.
    fn retention_years(&self, received: &EdiMessageReceived) -> u32 {
        (received.retention_years).unwrap_or_else(|| self.store.retention_years())
    }

    /// Appends the messages' ledger entries (or finds them again), in one transaction,
    /// and returns the evidence built for each position.
    async fn chain(
        &self,
        ids: &[Uuid],
        parts: &[EvidenceParts],
        received: &[(EdiMessageReceived, Span)],
    ) -> Result<Vec<EvidenceSet>, ArchiveError> {
        let mut built: Vec<Option<EvidenceSet>> = parts.iter().map(|_| None).collect();
        let appended = edihub_ledger::append_all(&self.pool, ids, |index, position| {
            let set = parts[index].at(position);
            let facts = set.entry_facts();
            built[index] = Some(set);
            facts
        })
        .await?;
        let sets = (built.into_iter().zip(parts).zip(&appended).zip(received)).map(
            |(((built, parts), appended), (_, span))| {
                if appended.reused {
                    let seq = appended.position.seq;
                    span.in_scope(|| tracing::info!(seq, "ledger entry reused"));
                }
                built.unwrap_or_else(|| parts.at(appended.position))
            },
        );
        Ok(sets.collect())
    }

    /// PUTs every object, locked, concurrently; their version ids in the same order.
    async fn put_all(&self, set: &EvidenceSet) -> Result<Vec<Option<String>>, StoreError> {
        let until = set.retain_until();
        futures::future::try_join_all(set.objects.iter().map(|object| {
            self.store.put_locked_as(
                &object.key,
                object.bytes.clone(),
                &object.content_type,
                until,
            )
        }))
        .await
    }
}

/// The evidence of the messages the claim checks point to, in their order, each proved
/// to be the one its event describes (its payload's SHA-256). One statement.
async fn claimed_evidence(
    conn: &mut PgConnection,
    claims: &[&edihub_events::ClaimCheck],
) -> Result<Vec<MessageEvidence>, ClaimCheckError> {
    let mut ids = Vec::with_capacity(claims.len());
    for claim in claims {
        let id = claim.journal_message_id();
        ids.push(id.ok_or_else(|| ClaimCheckError::Foreign(claim.reference.clone()))?);
    }
    let loaded = edihub_journal::load_evidence_all(conn, &ids).await?;
    let mut by_id: HashMap<Uuid, MessageEvidence> = loaded.into_iter().map(|e| (e.id, e)).collect();
    let mut evidences = Vec::with_capacity(claims.len());
    for (claim, id) in claims.iter().zip(&ids) {
        // A message named twice (two events of one message) is loaded once.
        let evidence = match by_id.remove(id) {
            Some(evidence) => evidence,
            None => (evidences
                .iter()
                .find(|e: &&MessageEvidence| e.id == *id)
                .cloned())
            .ok_or_else(|| ClaimCheckError::Missing(claim.reference.clone()))?,
        };
        let actual = sha256_hex(&evidence.payload);
        if actual != claim.sha256 {
            return Err(ClaimCheckError::DigestMismatch {
                expected: claim.sha256.clone(),
                actual,
            });
        }
        evidences.push(evidence);
    }
    Ok(evidences)
}

/// The invoice numbers of each message, read on the blocking pool in one task (parsing
/// is CPU work).
async fn read_invoices(
    evidences: &[MessageEvidence],
    received: &[(EdiMessageReceived, Span)],
) -> Result<Vec<InvoiceNumbers>, ArchiveError> {
    let inputs: Vec<_> = (evidences.iter().zip(received))
        .map(|(e, (r, _))| (e.payload.clone(), charset_policy(r.charset_policy)))
        .collect();
    tokio::task::spawn_blocking(move || {
        (inputs.iter())
            .map(|(payload, charset)| invoice_numbers(payload, *charset))
            .collect()
    })
    .await
    .map_err(ArchiveError::Invoices)
}

impl EventHandler for Archiver {
    type Error = ArchiveError;
    async fn handle(&self, event: &Envelope) -> Result<Handled, ArchiveError> {
        if event.event_type != event_types::EDI_MESSAGE_RECEIVED {
            return Ok(Handled::Ignored);
        }
        Ok(if self.archive(event).await? {
            Handled::Applied
        } else {
            Handled::Duplicate
        })
    }
    async fn handle_batch(&self, events: &[Envelope]) -> Result<Vec<Handled>, ArchiveError> {
        self.archive_batch(events).await
    }
}
