//! Claim checks: events carry a reference to the journal's payload, and consumers load
//! it here and prove it is the one the event describes.

use crate::sha256_hex;
use chrono::{DateTime, Utc};
use sqlx::PgConnection;
use std::collections::HashMap;
use std::future::Future;
use std::pin::Pin;
use uuid::Uuid;

/// Where the payload of a purged message is read back from: the archive, which keeps it
/// for the whole retention (`edihub_archive::ArchivedPayloads`). Whatever it returns is
/// still checked against the claim check's digest.
pub trait PurgedPayloads: Send + Sync {
    fn payload(
        &self,
        message_id: Uuid,
    ) -> Pin<Box<dyn Future<Output = Result<Vec<u8>, BoxError>> + Send + '_>>;
}

/// The archive's own error, kept as the source.
pub type BoxError = Box<dyn std::error::Error + Send + Sync>;

/// The stored payload a claim check points to, with what the journal knows of it.
#[derive(Debug, Clone)]
pub struct StoredPayload {
    pub payload: Vec<u8>,
    pub sha256: String,
    pub as2_from: String,
    pub received_at: DateTime<Utc>,
}

/// A journal row's payload: its bytes, or `None` once purged (`edihub journal purge`).
type PayloadRow = (Option<Vec<u8>>, String, String, DateTime<Utc>);

/// A journal row's id and payload, read ahead: only rows that hold their bytes.
type HeldPayloadRow = (Uuid, Vec<u8>, String, String, DateTime<Utc>);

/// Loads a journal payload inside the caller's transaction; a purged row's bytes come
/// from `archive` (an error when there is none).
pub async fn load_payload(
    conn: &mut PgConnection,
    message_id: Uuid,
    archive: Option<&dyn PurgedPayloads>,
) -> Result<Option<StoredPayload>, ClaimCheckError> {
    let row: Option<PayloadRow> = sqlx::query_as(
        "SELECT payload, payload_sha256, as2_from, received_at FROM edi_message WHERE id = $1",
    )
    .bind(message_id)
    .fetch_optional(conn)
    .await?;
    let Some((payload, sha256, as2_from, received_at)) = row else {
        return Ok(None);
    };
    let payload = match (payload, archive) {
        (Some(payload), _) => payload,
        (None, Some(archive)) => archive
            .payload(message_id)
            .await
            .map_err(|source| ClaimCheckError::Archive { message_id, source })?,
        (None, None) => return Err(ClaimCheckError::Purged(message_id)),
    };
    Ok(Some(StoredPayload {
        payload,
        sha256,
        as2_from,
        received_at,
    }))
}

/// The stored payloads of several journal rows, in one statement: what
/// [`resolve_claim_check_from`] checks later. A purged row (its bytes gone) and a
/// missing one are left out, so a caller resolves those one at a time, which reads a
/// purged row's bytes from the archive or names the fault.
pub async fn load_payloads(
    conn: &mut PgConnection,
    message_ids: &[Uuid],
) -> Result<HashMap<Uuid, StoredPayload>, sqlx::Error> {
    let rows: Vec<HeldPayloadRow> = sqlx::query_as(
        "SELECT id, payload, payload_sha256, as2_from, received_at FROM edi_message
         WHERE id = ANY($1) AND payload IS NOT NULL",
    )
    .bind(message_ids)
    .fetch_all(conn)
    .await?;
    Ok(rows
        .into_iter()
        .map(|(id, payload, sha256, as2_from, received_at)| {
            let stored = StoredPayload {
                payload,
                sha256,
                as2_from,
                received_at,
            };
            (id, stored)
        })
        .collect())
}

/// Why a claim check could not be resolved. The digest case means the journal and the
/// event disagree: retrying cannot help, an operator must look.
#[derive(Debug, thiserror::Error)]
pub enum ClaimCheckError {
    #[error("claim check {0} does not point into the journal")]
    Foreign(String),
    #[error("claim check {0} points to no journal row")]
    Missing(String),
    #[error("message {0} was purged from the journal and no archive is configured to read it from")]
    Purged(Uuid),
    #[error("message {message_id} was purged from the journal; reading it from the archive failed")]
    Archive {
        message_id: Uuid,
        #[source]
        source: BoxError,
    },
    #[error("claim check digest mismatch: event says {expected}, journal has {actual}")]
    DigestMismatch { expected: String, actual: String },
    #[error("database error: {0}")]
    Database(#[from] sqlx::Error),
}

/// Loads the payload a claim check refers to, inside the caller's transaction, and
/// proves it is the one the event describes: the SHA-256 of the bytes read must equal
/// the event's. Returns the journal message id and the payload (its `sha256` is the
/// digest just verified). A purged message's payload is read from `archive`.
pub async fn resolve_claim_check(
    conn: &mut PgConnection,
    claim: &edihub_events::ClaimCheck,
    archive: Option<&dyn PurgedPayloads>,
) -> Result<(Uuid, StoredPayload), ClaimCheckError> {
    resolve_claim_check_from(conn, claim, archive, &mut HashMap::new()).await
}

/// [`resolve_claim_check`], taking the payload from `loaded` (from [`load_payloads`])
/// when it is there, and reading it otherwise.
pub async fn resolve_claim_check_from(
    conn: &mut PgConnection,
    claim: &edihub_events::ClaimCheck,
    archive: Option<&dyn PurgedPayloads>,
    loaded: &mut HashMap<Uuid, StoredPayload>,
) -> Result<(Uuid, StoredPayload), ClaimCheckError> {
    let message_id = claim
        .journal_message_id()
        .ok_or_else(|| ClaimCheckError::Foreign(claim.reference.clone()))?;
    let stored = match loaded.remove(&message_id) {
        Some(stored) => stored,
        None => load_payload(conn, message_id, archive)
            .await?
            .ok_or_else(|| ClaimCheckError::Missing(claim.reference.clone()))?,
    };
    Ok((message_id, proved(claim, stored)?))
}

/// `stored`, if its bytes are the ones `claim` describes (their SHA-256), with that
/// digest.
fn proved(
    claim: &edihub_events::ClaimCheck,
    mut stored: StoredPayload,
) -> Result<StoredPayload, ClaimCheckError> {
    let actual = sha256_hex(&stored.payload);
    if actual != claim.sha256 {
        return Err(ClaimCheckError::DigestMismatch {
            expected: claim.sha256.clone(),
            actual,
        });
    }
    stored.sha256 = actual;
    Ok(stored)
}
