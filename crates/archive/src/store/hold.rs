//! S3 legal holds on object versions: independent of the COMPLIANCE retention, a hold
//! keeps a version from deletion until it is lifted, whatever its retain-until date.

use super::{ArchiveStore, StoreError, s3_error};
use aws_sdk_s3::error::ProvideErrorMetadata;
use aws_sdk_s3::types::{ObjectLockLegalHold, ObjectLockLegalHoldStatus};

impl ArchiveStore {
    /// Sets (`on`) or lifts the legal hold of one object version.
    pub async fn set_legal_hold(
        &self,
        key: &str,
        version_id: Option<&str>,
        on: bool,
    ) -> Result<(), StoreError> {
        let status = if on {
            ObjectLockLegalHoldStatus::On
        } else {
            ObjectLockLegalHoldStatus::Off
        };
        self.client
            .put_object_legal_hold()
            .bucket(&self.bucket)
            .key(key)
            .set_version_id(version_id.map(str::to_owned))
            .legal_hold(ObjectLockLegalHold::builder().status(status).build())
            // Object Lock requests need an integrity header; the SDK computes it only
            // when asked (the store's checksum setting is `WhenRequired`).
            .checksum_algorithm(aws_sdk_s3::types::ChecksumAlgorithm::Crc32)
            .send()
            .await
            .map_err(|e| s3_error("PutObjectLegalHold", e))?;
        Ok(())
    }

    /// Whether the object version is under legal hold. A version never held has no
    /// legal hold configuration, which S3 reports as an error or an empty answer,
    /// depending on the server: both are "not held".
    pub async fn legal_hold(
        &self,
        key: &str,
        version_id: Option<&str>,
    ) -> Result<bool, StoreError> {
        let answer = self
            .client
            .get_object_legal_hold()
            .bucket(&self.bucket)
            .key(key)
            .set_version_id(version_id.map(str::to_owned))
            .send()
            .await;
        match answer {
            Ok(output) => Ok(output
                .legal_hold()
                .and_then(|h| h.status())
                .is_some_and(|s| *s == ObjectLockLegalHoldStatus::On)),
            Err(error)
                if error
                    .as_service_error()
                    .and_then(ProvideErrorMetadata::code)
                    == Some("NoSuchObjectLockConfiguration") =>
            {
                Ok(false)
            }
            Err(error) => Err(s3_error("GetObjectLegalHold", error)),
        }
    }
}
