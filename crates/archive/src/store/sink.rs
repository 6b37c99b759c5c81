//! The ledger seals its segments into the archive's locked bucket.

use super::ArchiveStore;
use chrono::{DateTime, Utc};
use edihub_ledger::{SegmentSink, SinkError};

impl SegmentSink for ArchiveStore {
    async fn put_locked(
        &self,
        key: &str,
        bytes: Vec<u8>,
        content_type: &str,
        retain_until: DateTime<Utc>,
    ) -> Result<Option<String>, SinkError> {
        self.put_locked_as(key, bytes, content_type, retain_until)
            .await
            .map_err(|error| SinkError(Box::new(error)))
    }
}
