//! The archive as the outbox purge's destination: its exports are locked like the
//! originals, so a purged row stays readable for the whole retention period.

use crate::store::{ArchiveStore, StoreError};
use chrono::{DateTime, Utc};
use edihub_outbox::purge::Archive;

impl Archive for ArchiveStore {
    type Error = StoreError;

    async fn get(&self, key: &str) -> Result<Vec<u8>, StoreError> {
        ArchiveStore::get(self, key, None).await
    }

    async fn put_locked(
        &self,
        key: &str,
        bytes: Vec<u8>,
        content_type: &str,
        retained_from: DateTime<Utc>,
    ) -> Result<(), StoreError> {
        let retain_until = crate::retain_until(retained_from, self.retention_years())
            .ok_or(StoreError::RetentionOutOfRange)?;
        self.put_locked_as(key, bytes, content_type, retain_until)
            .await?;
        Ok(())
    }
}
