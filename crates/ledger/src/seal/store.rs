//! Writing a built segment to the sink and recording it, in the sealing transaction.

use super::segment::{Built, certificate_key, segment_prefix};
use super::{SealError, SegmentSink};
use crate::files;
use crate::read::{SegmentObjects, StoredObject};
use chrono::{DateTime, Utc};
use sha2::{Digest, Sha256};
use sqlx::PgConnection;

/// PUTs the segment's files (and the sealing certificate), each locked until the
/// segment's latest `retain_until`. A failure leaves objects without a row; the retry
/// writes the same keys again, so the bucket may hold an extra version, never a row
/// that names a missing object.
pub(crate) async fn put_all<S: SegmentSink>(
    sink: &S,
    built: &Built,
    timestamp: Option<Vec<u8>>,
    certificate_pem: Vec<u8>,
    certificate_sha256: &str,
) -> Result<SegmentObjects, SealError> {
    let prefix = segment_prefix(built.first_seq, built.last_seq);
    let until = built.retain_until;
    // The certificate goes with every segment: its newest version is then locked as
    // long as the newest segment that needs it.
    let certificate = put(
        sink,
        certificate_key(certificate_sha256),
        certificate_pem,
        "application/x-pem-file",
        until,
    )
    .await?;
    let key = |name: &str| format!("{prefix}{name}");
    let entries = put(
        sink,
        key(files::ENTRIES),
        built.entries.clone(),
        "application/x-ndjson",
        until,
    )
    .await?;
    let manifest = put(
        sink,
        key(files::MANIFEST),
        built.manifest.clone(),
        "application/json",
        until,
    )
    .await?;
    let signature = put(
        sink,
        key(files::SIGNATURE),
        built.signature.clone(),
        "application/pkcs7-signature",
        until,
    )
    .await?;
    let timestamp = match timestamp {
        Some(bytes) => Some(
            put(
                sink,
                key(files::TIMESTAMP),
                bytes,
                "application/timestamp-reply",
                until,
            )
            .await?,
        ),
        None => None,
    };
    Ok(SegmentObjects {
        entries,
        manifest,
        signature,
        timestamp,
        certificate: Some(certificate),
    })
}

async fn put<S: SegmentSink>(
    sink: &S,
    key: String,
    bytes: Vec<u8>,
    content_type: &str,
    until: DateTime<Utc>,
) -> Result<StoredObject, SealError> {
    let sha256 = hex::encode(Sha256::digest(&bytes));
    let size = bytes.len() as u64;
    let version_id = sink.put_locked(&key, bytes, content_type, until).await?;
    Ok(StoredObject {
        key,
        version_id,
        sha256,
        size,
    })
}

/// The segment's row.
pub(crate) async fn insert(
    conn: &mut PgConnection,
    built: &Built,
    objects: &SegmentObjects,
    sealed_at: DateTime<Utc>,
) -> Result<(), SealError> {
    let objects =
        serde_json::to_value(objects).map_err(|source| crate::LedgerError::SegmentObjects {
            first_seq: built.first_seq,
            source,
        })?;
    sqlx::query(
        "INSERT INTO ledger_segment (first_seq, last_seq, prev_head, head, objects, sealed_at) \
         VALUES ($1, $2, $3, $4, $5, $6)",
    )
    .bind(built.first_seq)
    .bind(built.last_seq)
    .bind(built.prev_head.as_slice())
    .bind(built.head.as_slice())
    .bind(objects)
    .bind(sealed_at)
    .execute(conn)
    .await
    .map_err(crate::LedgerError::from)?;
    Ok(())
}
