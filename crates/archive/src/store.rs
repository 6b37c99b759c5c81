//! The S3 side of the archive. Works against AWS S3, MinIO and moto: the endpoint and
//! path-style addressing come from settings.

use aws_sdk_s3::Client;
use aws_sdk_s3::config::{
    BehaviorVersion, Credentials, Region, RequestChecksumCalculation, ResponseChecksumValidation,
};
use aws_sdk_s3::error::DisplayErrorContext;
use chrono::{DateTime, Months, Utc};
use edihub_config::S3Settings;
use put::LockedPut;
pub use put::{AddressError, PutError, PutSetupError, Rejection, SignError};
use std::sync::Arc;
use uuid::Uuid;

#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    /// `message` is the whole chain as the SDK renders it (its own `Display` says only
    /// "service error"); `source` keeps the error itself.
    #[error("S3 {operation} failed: {message}")]
    S3 {
        operation: &'static str,
        message: String,
        source: Box<dyn std::error::Error + Send + Sync>,
    },
    #[error("S3 PutObject {key} failed: {source}")]
    Put {
        key: String,
        #[source]
        source: PutError,
    },
    #[error("retention date out of range")]
    RetentionOutOfRange,
    #[error("S3 GetObject {0}: no Content-Length")]
    NoContentLength(String),
}

fn s3_error(
    operation: &'static str,
    error: impl std::error::Error + Send + Sync + 'static,
) -> StoreError {
    StoreError::S3 {
        operation,
        message: DisplayErrorContext(&error).to_string(),
        source: Box::new(error),
    }
}

/// A GetObject answer's body, read whole.
async fn body(
    output: aws_sdk_s3::operation::get_object::GetObjectOutput,
) -> Result<Vec<u8>, StoreError> {
    let bytes = output
        .body
        .collect()
        .await
        .map_err(|e| s3_error("GetObject body", e))?;
    Ok(bytes.into_bytes().to_vec())
}

/// The deterministic key of an original: by receipt date, then the hub's message id, so
/// a redelivered event writes to the same key and an auditor can browse by day.
pub fn object_key(message_id: Uuid, received_at: DateTime<Utc>) -> String {
    format!(
        "originals/{}/{message_id}.edi",
        received_at.format("%Y/%m/%d")
    )
}

/// `received_at` plus the retention period.
pub fn retain_until(received_at: DateTime<Utc>, years: u32) -> Option<DateTime<Utc>> {
    received_at.checked_add_months(Months::new(years.checked_mul(12)?))
}

#[derive(Clone, Debug)]
pub struct ArchiveStore {
    client: Client,
    puts: Arc<LockedPut>,
    bucket: String,
    retention_years: u32,
}

impl ArchiveStore {
    pub fn new(settings: &S3Settings) -> Self {
        let credentials = Credentials::new(
            &settings.access_key_id,
            settings.secret_access_key.expose(),
            None,
            None,
            "edihub-settings",
        );
        let mut builder = aws_sdk_s3::Config::builder()
            .behavior_version(BehaviorVersion::latest())
            .region(Region::new(settings.region.clone()))
            .credentials_provider(credentials.clone())
            .force_path_style(settings.force_path_style)
            // We send Content-MD5 ourselves (Object Lock requires an integrity header);
            // the SDK's streaming trailer checksums are not understood by every S3 server.
            .request_checksum_calculation(RequestChecksumCalculation::WhenRequired)
            .response_checksum_validation(ResponseChecksumValidation::WhenRequired);
        if let Some(endpoint) = &settings.endpoint {
            builder = builder.endpoint_url(endpoint);
        }
        Self {
            client: Client::from_conf(builder.build()),
            puts: Arc::new(LockedPut::new(settings, credentials)),
            bucket: settings.bucket.clone(),
            retention_years: settings.retention_years,
        }
    }

    pub fn bucket(&self) -> &str {
        &self.bucket
    }

    pub fn retention_years(&self) -> u32 {
        self.retention_years
    }

    /// The raw client, for operator tools and tests.
    pub fn client(&self) -> &Client {
        &self.client
    }

    /// Creates the bucket with Object Lock enabled (which also enables versioning).
    /// Idempotent.
    pub async fn ensure_bucket(&self) -> Result<(), StoreError> {
        match self
            .client
            .create_bucket()
            .bucket(&self.bucket)
            .object_lock_enabled_for_bucket(true)
            .send()
            .await
        {
            Ok(_) => Ok(()),
            Err(error)
                if error
                    .as_service_error()
                    .is_some_and(|e| e.is_bucket_already_owned_by_you()) =>
            {
                Ok(())
            }
            Err(error) => Err(s3_error("CreateBucket", error)),
        }
    }

    /// Stores an EDI original under `key`, locked in COMPLIANCE mode until
    /// `retain_until`. Returns the object version id.
    pub async fn put_locked(
        &self,
        key: &str,
        bytes: Vec<u8>,
        retain_until: DateTime<Utc>,
    ) -> Result<Option<String>, StoreError> {
        self.put_locked_as(key, bytes, "application/edifact", retain_until)
            .await
    }

    /// Stores `bytes` of `content_type` under `key`, locked in COMPLIANCE mode until
    /// `retain_until`. Returns the object version id.
    pub async fn put_locked_as(
        &self,
        key: &str,
        bytes: Vec<u8>,
        content_type: &str,
        retain_until: DateTime<Utc>,
    ) -> Result<Option<String>, StoreError> {
        self.puts
            .put(key, bytes, content_type, retain_until)
            .await
            .map_err(|source| StoreError::Put {
                key: key.to_owned(),
                source,
            })
    }

    pub async fn get(&self, key: &str, version_id: Option<&str>) -> Result<Vec<u8>, StoreError> {
        body(self.get_object(key, version_id).await?).await
    }

    /// The latest version of `key`, or `None` when the bucket has no such key.
    pub async fn get_if_exists(&self, key: &str) -> Result<Option<Vec<u8>>, StoreError> {
        let output = match self
            .client
            .get_object()
            .bucket(&self.bucket)
            .key(key)
            .send()
            .await
        {
            Ok(output) => output,
            Err(error) if error.as_service_error().is_some_and(|e| e.is_no_such_key()) => {
                return Ok(None);
            }
            Err(error) => return Err(s3_error("GetObject", error)),
        };
        Ok(Some(body(output).await?))
    }

    /// GetObject of one version (the latest when `version_id` is `None`).
    async fn get_object(
        &self,
        key: &str,
        version_id: Option<&str>,
    ) -> Result<aws_sdk_s3::operation::get_object::GetObjectOutput, StoreError> {
        self.client
            .get_object()
            .bucket(&self.bucket)
            .key(key)
            .set_version_id(version_id.map(str::to_owned))
            .send()
            .await
            .map_err(|e| s3_error("GetObject", e))
    }

    /// The retention mode and date S3 holds for the object version, read from
    /// HeadObject's lock headers (moto answers GetObjectRetention with a version id as
    /// a plain GET; HeadObject carries the same facts on every server).
    pub async fn retention(
        &self,
        key: &str,
        version_id: Option<&str>,
    ) -> Result<(Option<String>, Option<DateTime<Utc>>), StoreError> {
        let output = self
            .client
            .head_object()
            .bucket(&self.bucket)
            .key(key)
            .set_version_id(version_id.map(str::to_owned))
            .send()
            .await
            .map_err(|e| s3_error("HeadObject", e))?;
        let mode = output.object_lock_mode().map(|m| m.as_str().to_owned());
        let until = output
            .object_lock_retain_until_date()
            .and_then(|d| DateTime::from_timestamp(d.secs(), d.subsec_nanos()));
        Ok((mode, until))
    }
}

mod hold;
mod list;
mod put;
mod sink;
mod stream;
#[cfg(test)]
mod tests;
