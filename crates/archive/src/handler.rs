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
use tracing::Instrument;
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

/// What one attempt staged inside its transaction, not yet committed.
struct Staged {
    position: Position,
}

/// A claimed message's evidence, chained in the ledger, before its objects are stored.
struct Chained {
    evidence: MessageEvidence,
    invoices: InvoiceNumbers,
    set: EvidenceSet,
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
    /// when the event was seen before (nothing done).
    pub async fn archive(&self, event: &Envelope) -> Result<bool, ArchiveError> {
        let mut tx = self.pool.begin().await?;
        let Some(staged) = self.stage(&mut tx, event).await? else {
            return Ok(false);
        };
        tx.commit().await?;
        tracing::info!(seq = staged.position.seq, "archived");
        Ok(true)
    }

    /// Every step of [`Self::archive`] (the ledger entry appended, the objects stored)
    /// except the commit, which is rolled back: what a crash just before the commit
    /// leaves behind. For tests of the redelivery that follows.
    pub async fn archive_without_commit(
        &self,
        event: &Envelope,
    ) -> Result<Option<Position>, ArchiveError> {
        let mut tx = self.pool.begin().await?;
        let staged = self.stage(&mut tx, event).await?;
        tx.rollback().await?;
        Ok(staged.map(|s| s.position))
    }

    async fn stage(
        &self,
        tx: &mut Transaction<'static, Postgres>,
        event: &Envelope,
    ) -> Result<Option<Staged>, ArchiveError> {
        if event.event_type != event_types::EDI_MESSAGE_RECEIVED {
            return Ok(None);
        }
        let received: EdiMessageReceived = event.decode()?;
        if !edihub_inbox::claim(tx, &self.consumer, event.id, &event.event_type).await? {
            tracing::info!("duplicate event, already archived");
            return Ok(None);
        }
        let chained = self.chain_evidence(tx, &received).await?;
        let versions = self.put_all(&chained.set).await?;
        self.record(tx, &chained, &versions).await?;
        Ok(Some(Staged {
            position: chained.set.position(),
        }))
    }

    /// [`Self::archive`] for several events, in one transaction: one inbox statement,
    /// the claimed messages chained in the ledger in turn, their objects stored
    /// [`PUT_MESSAGES_AT_ONCE`] messages at a time, their rows written, one commit. The ledger entries of a batch that
    /// fails stay, as a crash's would, and a redelivery reuses them.
    pub async fn archive_batch(&self, events: &[Envelope]) -> Result<Vec<Handled>, ArchiveError> {
        let received = |e: &&Envelope| e.event_type == event_types::EDI_MESSAGE_RECEIVED;
        let wanted: Vec<(Uuid, &str)> = (events.iter().filter(received))
            .map(|e| (e.id, e.event_type.as_str()))
            .collect();
        let mut tx = self.pool.begin().await?;
        let mut claimed = edihub_inbox::claim_all(&mut tx, &self.consumer, &wanted).await?;
        let mut handled = Vec::with_capacity(events.len());
        let mut chained = Vec::new();
        for event in events {
            let span = edihub_events::event_span(event);
            if !received(&event) {
                handled.push(Handled::Ignored);
            } else if !claimed.remove(&event.id) {
                span.in_scope(|| tracing::info!("duplicate event, already archived"));
                handled.push(Handled::Duplicate);
            } else {
                let message = event.decode()?;
                let evidence = self
                    .chain_evidence(&mut tx, &message)
                    .instrument(span.clone());
                chained.push((evidence.await?, span));
                handled.push(Handled::Applied);
            }
        }
        let mut versions = Vec::with_capacity(chained.len());
        for some in chained.chunks(PUT_MESSAGES_AT_ONCE) {
            let puts = (some.iter()).map(|(c, span)| self.put_all(&c.set).instrument(span.clone()));
            versions.extend(futures::future::try_join_all(puts).await?);
        }
        for ((chained, _), versions) in chained.iter().zip(&versions) {
            self.record(&mut tx, chained, versions).await?;
        }
        tx.commit().await?;
        for (chained, span) in &chained {
            span.in_scope(|| tracing::info!(seq = chained.set.position().seq, "archived"));
        }
        Ok(handled)
    }

    /// The evidence of the message `received` refers to, built and chained in the ledger
    /// (its entry appended, or found again on a redelivery).
    async fn chain_evidence(
        &self,
        conn: &mut PgConnection,
        received: &EdiMessageReceived,
    ) -> Result<Chained, ArchiveError> {
        let evidence = claimed_evidence(conn, &received.payload).await?;
        let until = retain_until(evidence.received_at, self.retention_years(received))
            .ok_or(ArchiveError::RetentionOutOfRange)?;
        let invoices = read_invoices(&evidence, received).await?;
        let parts = EvidenceParts::new(&evidence, &invoices, until)?;
        let set = self.chain(evidence.id, &parts).await?;
        Ok(Chained {
            evidence,
            invoices,
            set,
        })
    }

    /// The archive's rows for a message whose objects are stored (`versions`, in the
    /// order of its set), and its ledger entry marked stored.
    async fn record(
        &self,
        conn: &mut PgConnection,
        chained: &Chained,
        versions: &[Option<String>],
    ) -> Result<(), ArchiveError> {
        let Chained {
            evidence,
            invoices,
            set,
        } = chained;
        let bucket = self.store.bucket();
        record::insert(conn, bucket, evidence, invoices, set, versions).await?;
        edihub_ledger::mark_stored(conn, evidence.id).await?;
        Ok(())
    }

    /// The partnership's retention the event carries, else the store's default. The
    /// event is the same on every redelivery, so a rebuilt evidence.json is too.
    fn retention_years(&self, received: &EdiMessageReceived) -> u32 {
        (received.retention_years).unwrap_or_else(|| self.store.retention_years())
    }

    /// Appends the message's ledger entry (or finds it again) and returns the evidence
    /// built for its position.
    async fn chain(
        &self,
        message_id: Uuid,
        parts: &EvidenceParts,
    ) -> Result<EvidenceSet, ArchiveError> {
        let mut built = None;
        let appended = edihub_ledger::append(&self.pool, message_id, |position| {
            let set = parts.at(position);
            let facts = set.entry_facts();
            built = Some(set);
            facts
        })
        .await?;
        if appended.reused {
            tracing::info!(seq = appended.position.seq, "ledger entry reused");
        }
        Ok(built.unwrap_or_else(|| parts.at(appended.position)))
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

/// The evidence of the message a claim check points to, proved to be the one the event
/// describes (its payload's SHA-256).
async fn claimed_evidence(
    conn: &mut PgConnection,
    claim: &edihub_events::ClaimCheck,
) -> Result<MessageEvidence, ClaimCheckError> {
    let message_id = claim
        .journal_message_id()
        .ok_or_else(|| ClaimCheckError::Foreign(claim.reference.clone()))?;
    let evidence = edihub_journal::load_evidence(conn, message_id)
        .await?
        .ok_or_else(|| ClaimCheckError::Missing(claim.reference.clone()))?;
    let actual = sha256_hex(&evidence.payload);
    if actual != claim.sha256 {
        return Err(ClaimCheckError::DigestMismatch {
            expected: claim.sha256.clone(),
            actual,
        });
    }
    Ok(evidence)
}

/// The invoice numbers, read on the blocking pool (parsing is CPU work).
async fn read_invoices(
    evidence: &MessageEvidence,
    received: &EdiMessageReceived,
) -> Result<InvoiceNumbers, ArchiveError> {
    let payload = evidence.payload.clone();
    let charset = charset_policy(received.charset_policy);
    tokio::task::spawn_blocking(move || invoice_numbers(&payload, charset))
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
