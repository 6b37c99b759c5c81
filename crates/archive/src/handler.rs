//! The archive consumer's handler: one event in, one locked object and one record out.

use crate::store::{ArchiveStore, StoreError, object_key, retain_until};
use edihub_events::{EdiMessageReceived, Envelope, EventHandler, Handled, event_types};
use sqlx::PgPool;

#[derive(Debug, thiserror::Error)]
pub enum ArchiveError {
    #[error("event payload is not an EdiMessageReceived: {0}")]
    Payload(#[from] serde_json::Error),
    #[error(transparent)]
    ClaimCheck(#[from] edihub_journal::ClaimCheckError),
    #[error("retention date out of range")]
    RetentionOutOfRange,
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
        if event.event_type != event_types::EDI_MESSAGE_RECEIVED {
            return Ok(false);
        }
        let received: EdiMessageReceived = event.decode()?;
        let mut tx = self.pool.begin().await?;
        if !edihub_inbox::claim(&mut tx, &self.consumer, event.id, &event.event_type).await? {
            tracing::info!("duplicate event, already archived");
            return Ok(false);
        }
        let (message_id, stored) =
            edihub_journal::resolve_claim_check(&mut tx, &received.payload).await?;
        let key = object_key(message_id, stored.received_at);
        let until = retain_until(stored.received_at, self.store.retention_years())
            .ok_or(ArchiveError::RetentionOutOfRange)?;
        let size = stored.payload.len() as i64;
        let version_id = self.store.put_locked(&key, stored.payload, until).await?;
        sqlx::query(
            "INSERT INTO archive_record (message_id, bucket, object_key, version_id, sha256, size,
                                         retention_mode, retain_until)
             VALUES ($1, $2, $3, $4, $5, $6, 'COMPLIANCE', $7)",
        )
        .bind(message_id)
        .bind(self.store.bucket())
        .bind(&key)
        .bind(&version_id)
        .bind(&stored.sha256)
        .bind(size)
        .bind(until)
        .execute(&mut *tx)
        .await?;
        tx.commit().await?;
        tracing::info!(%key, version_id = version_id.as_deref().unwrap_or(""), "archived");
        Ok(true)
    }
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
