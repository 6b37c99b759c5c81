//! What the journal keeps as audit evidence of an accepted message, and reading it back
//! for the archive (`docs/adr/0006-audit-evidence-and-ledger.md`).

use crate::StoredMdn;
use chrono::{DateTime, Utc};
use sqlx::PgConnection;
use uuid::Uuid;

/// What the gateway established about a message's security layers: the
/// `edi_message.security` column.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct SecurityFacts {
    /// `None`: the message was not signed.
    pub signature: Option<SignatureFacts>,
    /// `None`: the message was not encrypted.
    pub encryption: Option<EncryptionFacts>,
    pub compressed: bool,
    /// The `Received-Content-MIC` the MDN returned, e.g. `"<base64>, sha-256"`.
    pub mic: String,
}

#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct SignatureFacts {
    /// The signature's digest algorithm, as AS2 names it (`sha-256`).
    pub digest: String,
    /// The partner certificate whose signature verified, DER in standard base64.
    pub certificate_der_b64: String,
    /// Its SHA-256 fingerprint, lower-case hex.
    pub certificate_sha256: String,
}

#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct EncryptionFacts {
    /// The content-encryption algorithm (`aes256`, `aes128-gcm`: `edihub_as2::Encryption::as_str`).
    pub algorithm: String,
}

/// Everything the journal holds of one accepted message that its evidence is made of.
#[derive(Debug, Clone)]
pub struct MessageEvidence {
    pub id: Uuid,
    pub as2_from: String,
    pub as2_to: String,
    pub as2_message_id: String,
    pub content_type: String,
    /// The request's headers as journaled (credentials left out).
    pub as2_headers: serde_json::Value,
    /// The HTTP body as received.
    pub raw_body: Vec<u8>,
    pub payload: Vec<u8>,
    pub payload_sha256: String,
    pub unb_sender: Option<String>,
    pub unb_recipient: Option<String>,
    pub unb_reference: Option<String>,
    pub received_at: DateTime<Utc>,
    /// The multipart/signed entity as received, before verification; `None` unsigned
    /// (or journaled before evidence was kept).
    pub signed_entity: Option<Vec<u8>>,
    /// `None` for messages journaled before evidence was kept.
    pub security: Option<SecurityFacts>,
    /// The MDN as sent, and when it was made.
    pub mdn: Option<(StoredMdn, DateTime<Utc>)>,
}

/// An `edi_message` row joined to its `mdn`, before the JSON columns are decoded.
#[derive(sqlx::FromRow)]
struct EvidenceRow {
    id: Uuid,
    as2_from: String,
    as2_to: String,
    as2_message_id: String,
    content_type: String,
    as2_headers: serde_json::Value,
    raw_body: Vec<u8>,
    payload: Vec<u8>,
    payload_sha256: String,
    unb_sender: Option<String>,
    unb_recipient: Option<String>,
    unb_reference: Option<String>,
    received_at: DateTime<Utc>,
    signed_entity: Option<Vec<u8>>,
    security: Option<serde_json::Value>,
    mdn_message_id: Option<String>,
    mdn_disposition: Option<String>,
    mdn_content_type: Option<String>,
    mdn_headers: Option<serde_json::Value>,
    mdn_body: Option<Vec<u8>>,
    mdn_created_at: Option<DateTime<Utc>>,
}

/// The evidence columns, for the `WHERE` clause each loader adds.
const SELECT_EVIDENCE: &str =
    "SELECT m.id, m.as2_from, m.as2_to, m.as2_message_id, m.content_type, m.as2_headers,
            m.raw_body, m.payload, m.payload_sha256, m.unb_sender, m.unb_recipient,
            m.unb_reference, m.received_at, m.signed_entity, m.security,
            d.mdn_message_id, d.disposition AS mdn_disposition,
            d.content_type AS mdn_content_type, d.headers AS mdn_headers,
            d.body AS mdn_body, d.created_at AS mdn_created_at
     FROM edi_message m LEFT JOIN mdn d ON d.message_id = m.id";

/// Loads `message_id`'s evidence inside the caller's transaction. A `security` value
/// that does not decode is a decoding error: evidence is never silently dropped.
pub async fn load_evidence(
    conn: &mut PgConnection,
    message_id: Uuid,
) -> Result<Option<MessageEvidence>, sqlx::Error> {
    let mut found = load_evidence_all(conn, &[message_id]).await?;
    Ok(found.pop())
}

/// [`load_evidence`] for several messages, in one statement, in no particular order;
/// a message the journal does not hold is left out.
pub async fn load_evidence_all(
    conn: &mut PgConnection,
    message_ids: &[Uuid],
) -> Result<Vec<MessageEvidence>, sqlx::Error> {
    let statement = format!("{SELECT_EVIDENCE} WHERE m.id = ANY($1)");
    let rows: Vec<EvidenceRow> = sqlx::query_as(sqlx::AssertSqlSafe(statement))
        .bind(message_ids)
        .fetch_all(conn)
        .await?;
    rows.into_iter().map(EvidenceRow::into_evidence).collect()
}

impl EvidenceRow {
    fn into_evidence(self) -> Result<MessageEvidence, sqlx::Error> {
        let security = self
            .security
            .map(serde_json::from_value::<SecurityFacts>)
            .transpose()
            .map_err(|e| sqlx::Error::Decode(Box::new(e)))?;
        let mdn = match (
            self.mdn_message_id,
            self.mdn_disposition,
            self.mdn_content_type,
            self.mdn_body,
            self.mdn_created_at,
        ) {
            (Some(mdn_message_id), Some(disposition), Some(content_type), Some(body), Some(at)) => {
                let headers = self
                    .mdn_headers
                    .and_then(|h| serde_json::from_value(h).ok())
                    .unwrap_or_default();
                let stored = StoredMdn {
                    mdn_message_id,
                    disposition,
                    content_type,
                    headers,
                    body,
                };
                Some((stored, at))
            }
            _ => None,
        };
        Ok(MessageEvidence {
            id: self.id,
            as2_from: self.as2_from,
            as2_to: self.as2_to,
            as2_message_id: self.as2_message_id,
            content_type: self.content_type,
            as2_headers: self.as2_headers,
            raw_body: self.raw_body,
            payload: self.payload,
            payload_sha256: self.payload_sha256,
            unb_sender: self.unb_sender,
            unb_recipient: self.unb_recipient,
            unb_reference: self.unb_reference,
            received_at: self.received_at,
            signed_entity: self.signed_entity,
            security,
            mdn,
        })
    }
}
