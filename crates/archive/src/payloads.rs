//! The archive as the source of payloads purged from the journal: a claim check of a
//! purged message resolves to the archived original (`edihub journal purge`).

use crate::{ArchiveStore, StoreError, find_record};
use edihub_journal::{BoxError, PurgedPayloads};
use sqlx::PgPool;
use std::future::Future;
use std::pin::Pin;
use uuid::Uuid;

/// Reads an archived original by the version its archive record names.
pub struct ArchivedPayloads {
    pool: PgPool,
    store: ArchiveStore,
}

#[derive(Debug, thiserror::Error)]
pub enum ArchivedPayloadError {
    #[error("database error: {0}")]
    Database(#[from] sqlx::Error),
    #[error("message {0} has no archive record")]
    NotArchived(Uuid),
    #[error(transparent)]
    Store(#[from] StoreError),
}

impl ArchivedPayloads {
    pub fn new(pool: PgPool, store: ArchiveStore) -> Self {
        Self { pool, store }
    }

    /// The archived original of `message_id`.
    pub async fn original(&self, message_id: Uuid) -> Result<Vec<u8>, ArchivedPayloadError> {
        let record = find_record(&self.pool, message_id)
            .await?
            .ok_or(ArchivedPayloadError::NotArchived(message_id))?;
        Ok(self
            .store
            .get(&record.object_key, record.version_id.as_deref())
            .await?)
    }
}

impl PurgedPayloads for ArchivedPayloads {
    fn payload(
        &self,
        message_id: Uuid,
    ) -> Pin<Box<dyn Future<Output = Result<Vec<u8>, BoxError>> + Send + '_>> {
        Box::pin(async move { self.original(message_id).await.map_err(BoxError::from) })
    }
}
