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
    /// The content-encryption algorithm (`aes256-cbc`), or its dotted OID when unnamed.
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

/// Loads `message_id`'s evidence inside the caller's transaction.
pub async fn load_evidence(
    conn: &mut PgConnection,
    message_id: Uuid,
) -> Result<Option<MessageEvidence>, sqlx::Error> {
    let _ = (conn, message_id);
    unimplemented!("interface stub: the evidence-capture helper writes this")
}
