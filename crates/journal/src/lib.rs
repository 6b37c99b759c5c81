//! The message journal: every accepted AS2 message, byte for byte, with the MDN it got.
//!
//! Architecture invariant: [`accept`] writes the message, its MDN and the
//! `EdiMessageReceived` outbox row in ONE transaction. The gateway sends the MDN only
//! after `accept` returned `Ok`; if the commit fails the partner gets a 5xx and resends.

mod batch;

pub use batch::{Accept, AcceptQueue};

use chrono::{DateTime, Utc};
use edihub_outbox::NewEvent;
use sha2::{Digest, Sha256};
use sqlx::{PgConnection, PgPool};
use uuid::Uuid;

/// A message the gateway decided to accept.
#[derive(Debug, Clone)]
pub struct AcceptedMessage {
    pub id: Uuid,
    pub as2_from: String,
    pub as2_to: String,
    pub as2_message_id: String,
    pub content_type: String,
    pub as2_headers: serde_json::Value,
    pub raw_body: Vec<u8>,
    pub payload: Vec<u8>,
    pub unb_sender: Option<String>,
    pub unb_recipient: Option<String>,
    pub unb_reference: Option<String>,
    pub received_at: DateTime<Utc>,
}

/// An MDN as stored and as sent back (again, on a resend).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StoredMdn {
    pub mdn_message_id: String,
    pub disposition: String,
    pub content_type: String,
    pub headers: Vec<(String, String)>,
    pub body: Vec<u8>,
}

#[derive(Debug, thiserror::Error)]
pub enum JournalError {
    /// The same (AS2-From, AS2-To, Message-ID) was accepted already, possibly by a
    /// concurrent request; the caller answers with [`find_mdn`]'s MDN.
    #[error("message already accepted")]
    Duplicate,
    #[error("database error: {0}")]
    Database(#[from] sqlx::Error),
    /// The [`AcceptQueue`]'s writers have stopped (the gateway is shutting down).
    #[error("the journal writers have stopped")]
    Stopped,
}

/// Lower-case hex SHA-256, the digest format used in events and archive records.
pub fn sha256_hex(bytes: &[u8]) -> String {
    hex::encode(Sha256::digest(bytes))
}

/// Stores the message, its MDN and the outbox event in one transaction, with the
/// delivery of the MDN when the partner asked for it asynchronously (an outbox row on
/// the `as2-mdn` channel, see `edihub-mdn-delivery`).
pub async fn accept(
    pool: &PgPool,
    message: &AcceptedMessage,
    mdn: &StoredMdn,
    event: &NewEvent,
    delivery: Option<&NewEvent>,
) -> Result<(), JournalError> {
    // One statement, so one round trip and one implicit transaction: this is the
    // gateway's hot path (ingest benchmark). Every part inserts only when the message
    // row did (`FROM message`), so a duplicate writes nothing at all. The outbox rows
    // are the ones `edihub_outbox::enqueue_on` writes, channel included.
    let headers = serde_json::to_value(&mdn.headers).unwrap_or(serde_json::Value::Null);
    let inserted: i64 = sqlx::query_scalar(
        "WITH message AS (
             INSERT INTO edi_message (id, as2_from, as2_to, as2_message_id, content_type,
                                      as2_headers, raw_body, payload, payload_sha256,
                                      payload_size, unb_sender, unb_recipient, unb_reference,
                                      received_at)
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14)
             ON CONFLICT ON CONSTRAINT edi_message_as2_identity DO NOTHING
             RETURNING id),
         receipt AS (
             INSERT INTO mdn (message_id, mdn_message_id, disposition, content_type, headers,
                              body, created_at)
             SELECT id, $15, $16, $17, $18, $19, $14 FROM message),
         event AS (
             INSERT INTO outbox (id, aggregate_type, aggregate_id, event_type, topic, payload,
                                 headers, channel)
             SELECT $20, $21, $22, $23, $24, $25, $26, $27 FROM message),
         delivery AS (
             INSERT INTO outbox (id, aggregate_type, aggregate_id, event_type, topic, payload,
                                 headers, channel)
             SELECT $28, $29, $30, $31, $32, $33, $34, $35 FROM message
             WHERE $28::uuid IS NOT NULL)
         SELECT count(*) FROM message",
    )
    .bind(message.id)
    .bind(&message.as2_from)
    .bind(&message.as2_to)
    .bind(&message.as2_message_id)
    .bind(&message.content_type)
    .bind(&message.as2_headers)
    .bind(&message.raw_body)
    .bind(&message.payload)
    .bind(sha256_hex(&message.payload))
    .bind(message.payload.len() as i64)
    .bind(&message.unb_sender)
    .bind(&message.unb_recipient)
    .bind(&message.unb_reference)
    .bind(message.received_at)
    .bind(&mdn.mdn_message_id)
    .bind(&mdn.disposition)
    .bind(&mdn.content_type)
    .bind(headers)
    .bind(&mdn.body)
    .bind(event.id)
    .bind(&event.aggregate_type)
    .bind(&event.aggregate_id)
    .bind(&event.event_type)
    .bind(&event.topic)
    .bind(&event.payload)
    .bind(&event.headers)
    .bind(edihub_outbox::channels::KAFKA)
    .bind(delivery.map(|d| d.id))
    .bind(delivery.map(|d| d.aggregate_type.as_str()))
    .bind(delivery.map(|d| d.aggregate_id.as_str()))
    .bind(delivery.map(|d| d.event_type.as_str()))
    .bind(delivery.map(|d| d.topic.as_str()))
    .bind(delivery.map(|d| &d.payload))
    .bind(delivery.map(|d| &d.headers))
    .bind(edihub_outbox::channels::AS2_MDN)
    .fetch_one(pool)
    .await?;
    if inserted == 0 {
        return Err(JournalError::Duplicate);
    }
    Ok(())
}

/// The MDN the hub returned for an accepted message, looked up by its AS2 identity.
pub async fn find_mdn(
    pool: &PgPool,
    as2_from: &str,
    as2_to: &str,
    as2_message_id: &str,
) -> Result<Option<(Uuid, StoredMdn)>, sqlx::Error> {
    let row: Option<(Uuid, String, String, String, serde_json::Value, Vec<u8>)> = sqlx::query_as(
        "SELECT m.id, d.mdn_message_id, d.disposition, d.content_type, d.headers, d.body
         FROM edi_message m JOIN mdn d ON d.message_id = m.id
         WHERE m.as2_from = $1 AND m.as2_to = $2 AND m.as2_message_id = $3",
    )
    .bind(as2_from)
    .bind(as2_to)
    .bind(as2_message_id)
    .fetch_optional(pool)
    .await?;
    Ok(row.map(
        |(id, mdn_message_id, disposition, content_type, headers, body)| {
            let headers = serde_json::from_value(headers).unwrap_or_default();
            (
                id,
                StoredMdn {
                    mdn_message_id,
                    disposition,
                    content_type,
                    headers,
                    body,
                },
            )
        },
    ))
}

/// A refused message, kept for operators (never published).
#[derive(Debug, Clone)]
pub struct Refusal<'a> {
    pub as2_from: Option<&'a str>,
    pub as2_to: Option<&'a str>,
    pub as2_message_id: Option<&'a str>,
    pub disposition: &'a str,
    pub reason: &'a str,
    pub body_size: usize,
    pub refused_at: DateTime<Utc>,
}

pub async fn record_refusal(pool: &PgPool, refusal: &Refusal<'_>) -> Result<(), sqlx::Error> {
    sqlx::query(
        "INSERT INTO as2_refusal (id, as2_from, as2_to, as2_message_id, disposition, reason,
                                  body_size, refused_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8)",
    )
    .bind(Uuid::now_v7())
    .bind(refusal.as2_from)
    .bind(refusal.as2_to)
    .bind(refusal.as2_message_id)
    .bind(refusal.disposition)
    .bind(refusal.reason)
    .bind(refusal.body_size as i64)
    .bind(refusal.refused_at)
    .execute(pool)
    .await?;
    Ok(())
}

/// The stored payload a claim check points to, with what the journal knows of it.
#[derive(Debug, Clone)]
pub struct StoredPayload {
    pub payload: Vec<u8>,
    pub sha256: String,
    pub as2_from: String,
    pub received_at: DateTime<Utc>,
}

/// Loads a journal payload inside the caller's transaction.
pub async fn load_payload(
    conn: &mut PgConnection,
    message_id: Uuid,
) -> Result<Option<StoredPayload>, sqlx::Error> {
    let row: Option<(Vec<u8>, String, String, DateTime<Utc>)> = sqlx::query_as(
        "SELECT payload, payload_sha256, as2_from, received_at FROM edi_message WHERE id = $1",
    )
    .bind(message_id)
    .fetch_optional(conn)
    .await?;
    Ok(
        row.map(|(payload, sha256, as2_from, received_at)| StoredPayload {
            payload,
            sha256,
            as2_from,
            received_at,
        }),
    )
}

/// Why a claim check could not be resolved. The digest case means the journal and the
/// event disagree: retrying cannot help, an operator must look.
#[derive(Debug, thiserror::Error)]
pub enum ClaimCheckError {
    #[error("claim check {0} does not point into the journal")]
    Foreign(String),
    #[error("claim check {0} points to no journal row")]
    Missing(String),
    #[error("claim check digest mismatch: event says {expected}, journal has {actual}")]
    DigestMismatch { expected: String, actual: String },
    #[error("database error: {0}")]
    Database(#[from] sqlx::Error),
    /// The [`AcceptQueue`]'s writers have stopped (the gateway is shutting down).
    #[error("the journal writers have stopped")]
    Stopped,
}

/// Loads the payload a claim check refers to, inside the caller's transaction, and
/// proves it is the one the event describes: the SHA-256 of the bytes read must equal
/// the event's. Returns the journal message id and the payload (its `sha256` is the
/// digest just verified).
pub async fn resolve_claim_check(
    conn: &mut PgConnection,
    claim: &edihub_events::ClaimCheck,
) -> Result<(Uuid, StoredPayload), ClaimCheckError> {
    let message_id = claim
        .journal_message_id()
        .ok_or_else(|| ClaimCheckError::Foreign(claim.reference.clone()))?;
    let mut stored = load_payload(conn, message_id)
        .await?
        .ok_or_else(|| ClaimCheckError::Missing(claim.reference.clone()))?;
    let actual = sha256_hex(&stored.payload);
    if actual != claim.sha256 {
        return Err(ClaimCheckError::DigestMismatch {
            expected: claim.sha256.clone(),
            actual,
        });
    }
    stored.sha256 = actual;
    Ok((message_id, stored))
}
