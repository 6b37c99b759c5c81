//! Listing keys: what the bucket holds, whatever the database records (the verifier's
//! look for sealed segments the database no longer knows).

use super::{ArchiveStore, StoreError, s3_error};

impl ArchiveStore {
    /// Every key under `prefix` (current versions), page by page.
    pub async fn list_keys(&self, prefix: &str) -> Result<Vec<String>, StoreError> {
        let mut keys = Vec::new();
        let mut token: Option<String> = None;
        loop {
            let page = self
                .client
                .list_objects_v2()
                .bucket(&self.bucket)
                .prefix(prefix)
                .set_continuation_token(token.take())
                .send()
                .await
                .map_err(|e| s3_error("ListObjectsV2", e))?;
            keys.extend(
                page.contents()
                    .iter()
                    .filter_map(|o| o.key().map(str::to_owned)),
            );
            match page.next_continuation_token() {
                Some(next) if page.is_truncated() == Some(true) => token = Some(next.to_owned()),
                _ => return Ok(keys),
            }
        }
    }
}
