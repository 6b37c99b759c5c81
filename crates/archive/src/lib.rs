//! The audit archive: each accepted message's evidence (the original, the request as
//! received, the signed entity, the MDN and `evidence.json`, [`evidence`]), stored
//! immutably in S3 with Object Lock (COMPLIANCE mode, retained from receipt), chained in
//! the audit ledger (`edihub_ledger`), and recorded (`archive_record`, which points to the
//! original, and one `archive_object` per object). The store is also where the outbox
//! purge exports to (`edihub_outbox::purge::Archive`) and where the ledger seals its
//! segments (`edihub_ledger::SegmentSink`).
//!
//! Architecture invariant: the records commit in the same transaction as the archive
//! consumer's inbox row and the ledger entry's `stored_at`, so an event is archived once
//! per consumer; the entry is appended before the PUTs (its position is in
//! evidence.json), and a crash before the commit leaves extra identical object
//! *versions* under the same deterministic keys and an entry its redelivery reuses,
//! never a missing object (docs/adr/0006-audit-evidence-and-ledger.md).

pub mod access;
pub mod bundle;
pub mod evidence;
mod export;
mod handler;
pub mod hold;
pub mod journal_purge;
mod payloads;
pub mod search;
mod store;
pub mod verify;

pub use handler::{ArchiveError, Archiver};
pub use payloads::{ArchivedPayloadError, ArchivedPayloads};
pub use store::{
    AddressError, ArchiveStore, PutError, PutSetupError, Rejection, SignError, StoreError,
    object_key, retain_until,
};

use chrono::{DateTime, Utc};
use sqlx::PgPool;
use uuid::Uuid;

/// What the archive record says about one message.
#[derive(Debug, Clone, sqlx::FromRow)]
pub struct ArchiveRecord {
    pub message_id: Uuid,
    pub bucket: String,
    pub object_key: String,
    pub version_id: Option<String>,
    pub sha256: String,
    pub size: i64,
    pub retention_mode: String,
    pub retain_until: DateTime<Utc>,
    pub archived_at: DateTime<Utc>,
}

pub async fn find_record(
    pool: &PgPool,
    message_id: Uuid,
) -> Result<Option<ArchiveRecord>, sqlx::Error> {
    sqlx::query_as(
        "SELECT message_id, bucket, object_key, version_id, sha256, size, retention_mode,
                retain_until, archived_at
         FROM archive_record WHERE message_id = $1",
    )
    .bind(message_id)
    .fetch_optional(pool)
    .await
}

/// The result of an audit: the original fetched back from S3 and checked.
#[derive(Debug, Clone)]
pub struct AuditReport {
    pub record: ArchiveRecord,
    pub bytes: Vec<u8>,
    /// SHA-256 of the bytes S3 returned.
    pub actual_sha256: String,
    /// Retention as S3 reports it now (not as we recorded it).
    pub retention_mode: Option<String>,
    pub retain_until: Option<DateTime<Utc>>,
}

impl AuditReport {
    pub fn digest_matches(&self) -> bool {
        self.actual_sha256 == self.record.sha256
    }
}

#[derive(Debug, thiserror::Error)]
pub enum AuditError {
    #[error("no archive record for message {0}")]
    NotArchived(Uuid),
    #[error("database error: {0}")]
    Database(#[from] sqlx::Error),
    #[error(transparent)]
    Store(#[from] StoreError),
}

/// Fetches the archived original of `message_id` and checks it against its record.
pub async fn audit(
    pool: &PgPool,
    store: &ArchiveStore,
    message_id: Uuid,
) -> Result<AuditReport, AuditError> {
    let record = find_record(pool, message_id)
        .await?
        .ok_or(AuditError::NotArchived(message_id))?;
    let bytes = store
        .get(&record.object_key, record.version_id.as_deref())
        .await?;
    let (retention_mode, retain_until) = store
        .retention(&record.object_key, record.version_id.as_deref())
        .await?;
    Ok(AuditReport {
        actual_sha256: edihub_journal::sha256_hex(&bytes),
        bytes,
        record,
        retention_mode,
        retain_until,
    })
}
