//! Claim checks of `OutboundRequested` events, read from `[outbound] claim_check_bucket`
//! on `[s3]`'s endpoint with `[s3]`'s credentials.

use edihub_archive::ArchiveStore;
use edihub_config::S3Settings;
use edihub_outbound::{ClaimCheckError, ClaimChecks};

pub struct S3ClaimChecks {
    store: ArchiveStore,
}

impl S3ClaimChecks {
    pub fn new(s3: &S3Settings, bucket: &str) -> Self {
        let settings = S3Settings {
            bucket: bucket.to_owned(),
            ..s3.clone()
        };
        Self {
            store: ArchiveStore::new(&settings),
        }
    }
}

impl ClaimChecks for S3ClaimChecks {
    async fn fetch(&self, key: &str) -> Result<Option<Vec<u8>>, ClaimCheckError> {
        self.store
            .get_if_exists(key)
            .await
            .map_err(|error| ClaimCheckError {
                key: key.to_owned(),
                source: Box::new(error),
            })
    }
}
