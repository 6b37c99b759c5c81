//! `evidence.json`: the published format auditors read (documented in `docs/audit.md`).
//! Fields are added, never renamed or removed; `version` says which fields exist.

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use uuid::Uuid;

pub const DOCUMENT_VERSION: u32 = 1;

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct EvidenceDocument {
    pub version: u32,
    pub ids: EvidenceIds,
    pub partner: EvidencePartner,
    pub hub: EvidenceHub,
    pub received_at: DateTime<Utc>,
    /// `None`: the message was not signed (and no signed-entity object exists).
    pub signature: Option<EvidenceSignature>,
    /// `None`: the message was not encrypted.
    pub encryption: Option<EvidenceEncryption>,
    pub compressed: bool,
    pub mdn: Option<EvidenceMdn>,
    /// Every other object of this message (not evidence.json itself), in a fixed order.
    pub objects: Vec<EvidenceObject>,
    pub ledger: EvidenceLedger,
    pub retention: EvidenceRetention,
    /// What this evidence lacks and why, in sentences (e.g. "not signed: no partner
    /// signature to re-verify"), so an absent part is said, not silent.
    pub remarks: Vec<String>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct EvidenceIds {
    /// The hub's message id.
    pub message_id: Uuid,
    /// The AS2 Message-ID, without angle brackets.
    pub as2_message_id: String,
    /// UNB 0020, when the payload has a readable UNB.
    pub unb_reference: Option<String>,
    /// BT-1 of each INVOIC in the interchange, in order.
    pub invoice_numbers: Vec<String>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct EvidencePartner {
    /// AS2-From.
    pub as2_name: String,
    /// UNB sender identification, when readable.
    pub unb_sender: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct EvidenceHub {
    /// AS2-To.
    pub as2_name: String,
    /// UNB recipient identification, when readable.
    pub unb_recipient: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct EvidenceSignature {
    /// The digest the signature used, as AS2 names it (`sha-256`).
    pub digest: String,
    /// The gateway verified it on receipt with `certificate` (it refuses what fails).
    pub verified_on_receipt: bool,
    /// The partner certificate whose signature verified, PEM.
    pub certificate_pem: String,
    /// Its SHA-256 fingerprint, lower-case hex.
    pub certificate_sha256: String,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct EvidenceEncryption {
    /// The content-encryption algorithm (`aes256`, `aes128-gcm`: `edihub_as2::Encryption::as_str`).
    pub algorithm: String,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct EvidenceMdn {
    pub mdn_message_id: String,
    /// `processed`, or the disposition as sent.
    pub disposition: String,
    /// The `Received-Content-MIC` the MDN returned (`<base64>, sha-256`): over the signed
    /// entity's content for a signed message (RFC 4130 section 7.3.1).
    pub received_content_mic: String,
    pub signed: bool,
    pub created_at: DateTime<Utc>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct EvidenceObject {
    /// `payload`, `request-body`, `request-headers`, `signed-entity`, `mdn`.
    pub kind: String,
    pub key: String,
    pub content_type: String,
    /// Lower-case hex.
    pub sha256: String,
    pub size: u64,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct EvidenceLedger {
    /// The message's position in the ledger's hash chain.
    pub seq: i64,
    pub chained_at: DateTime<Utc>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct EvidenceRetention {
    /// S3 Object Lock mode of every object: `COMPLIANCE`.
    pub mode: String,
    pub retain_until: DateTime<Utc>,
}
