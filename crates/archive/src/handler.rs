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
        let evidence = claimed_evidence(tx, &received.payload).await?;
        let until = retain_until(evidence.received_at, self.retention_years(&received))
            .ok_or(ArchiveError::RetentionOutOfRange)?;
        let invoices = read_invoices(&evidence, &received).await?;
        let parts = EvidenceParts::new(&evidence, &invoices, until)?;
        let set = self.chain(evidence.id, &parts).await?;
        let versions = self.put_all(&set).await?;
        record::insert(
            tx,
            self.store.bucket(),
            &evidence,
            &invoices,
            &set,
            &versions,
        )
        .await?;
        edihub_ledger::mark_stored(tx, evidence.id).await?;
        Ok(Some(Staged {
            position: set.position(),
        }))
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
}
