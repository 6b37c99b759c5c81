//! The message journal: every accepted AS2 message, byte for byte, with the MDN it got.
//! It owns the `edi_message`, `mdn` and `as2_refusal` tables.
//!
//! A signed message is journaled once per signed content and partner within a replay
//! window, whatever its Message-ID ([`find_signed_content`]).
//!
//! Architecture invariant: [`accept`] writes the message, its MDN and the
//! `EdiMessageReceived` outbox row in ONE transaction. The gateway sends the MDN only
//! after `accept` returned `Ok`; if the commit fails the partner gets a 5xx and resends.

mod accept;
mod batch;
mod evidence;
mod lookup;
mod mdn;
mod payload;
mod purge;
mod refusal;
mod replay;

pub use accept::accept;
pub use batch::{Accept, AcceptQueue};
pub use evidence::{
    EncryptionFacts, MessageEvidence, SecurityFacts, SignatureFacts, load_evidence,
    load_evidence_all,
};
pub use lookup::{find_by_as2_message_id, message_json};
pub use mdn::{find_mdn, load_mdns};
pub use payload::{
    BoxError, ClaimCheckError, PurgedPayloads, StoredPayload, load_payload, load_payloads,
    resolve_claim_check, resolve_claim_check_from,
};
pub use purge::{PurgeCursor, Purged, count_unpurged_before, purge_bytes, unpurged_before};
pub use refusal::{Refusal, record_refusal};
pub use replay::{SignedOriginal, find_signed_content};

use chrono::{DateTime, Utc};
use sha2::{Digest, Sha256};
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
    /// SHA-256 of the signed entity, for a signed message: the same content from the same
    /// partner is not accepted again until `replay_until`.
    pub signed_sha256: Option<[u8; 32]>,
    pub replay_until: Option<DateTime<Utc>>,
    /// The multipart/signed entity as received, before verification (audit evidence);
    /// `None` unsigned.
    pub signed_entity: Option<Vec<u8>>,
    /// What the gateway established about the security layers (audit evidence).
    pub security: Option<SecurityFacts>,
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
    /// concurrent request, and the caller answers with [`find_mdn`]'s MDN; or the same
    /// signed content was, within its replay window ([`find_signed_content`]).
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
