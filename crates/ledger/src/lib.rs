//! The archive's tamper-evident ledger (`docs/adr/0006-audit-evidence-and-ledger.md`).
//! It owns the `ledger_entry` and `ledger_segment` tables.
//!
//! Every archived message is one entry of one hash chain:
//! `hash(seq) = SHA-256(hash(seq - 1) || canonical(seq))`, `hash(0)` being 32 zero bytes.
//! `canonical` is the entry's one-line JSON as [`canonical`] writes it; the ledger keeps
//! those exact bytes and segments carry them verbatim, so verifiers hash bytes.
//!
//! Architecture invariant: positions are taken from the head under an advisory lock
//! ([`append`]), so the chain is one total order without gaps whatever the number of
//! archive consumers; only entries whose objects are stored ([`mark_stored`]) are sealed.

mod append;
mod chain;
mod read;
mod seal;
mod tsa;
pub mod verify;

pub use append::{append, append_all, mark_stored, mark_stored_all};
pub use chain::{
    GENESIS, ParseError, ParsedEntry, canonical, chain_hash, format_time, parse_canonical,
};
pub use read::{
    Backlog, Head, SegmentObjects, SegmentRow, StoredEntry, StoredObject, backlog, entries, head,
    sealed_messages, segments,
};
pub use seal::{
    Manifest, SEAL_LOCK_KEY, SealError, SealPolicy, SealedSegment, Sealer, SegmentSink, SinkError,
    certificate_key, manifest_bytes, segment_prefix,
};

use chrono::{DateTime, Utc};
use uuid::Uuid;

/// One object an entry names (an evidence part of the message), in S3.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct ObjectRef {
    /// `payload`, `request-body`, `request-headers`, `signed-entity`, `mdn`, `evidence`.
    pub kind: String,
    pub key: String,
    /// Lower-case hex.
    pub sha256: String,
    pub size: u64,
}

/// What an entry says about its message, besides its position.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EntryFacts {
    pub message_id: Uuid,
    pub as2_from: String,
    pub as2_to: String,
    pub as2_message_id: String,
    pub received_at: DateTime<Utc>,
    /// Until when the message's objects are locked.
    pub retain_until: DateTime<Utc>,
    pub objects: Vec<ObjectRef>,
}

/// Where an entry stands in the chain: what evidence.json records.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Position {
    pub seq: i64,
    pub chained_at: DateTime<Utc>,
}

/// An entry as appended (or found again, for a redelivered message).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Appended {
    pub position: Position,
    pub hash: [u8; 32],
    pub canonical: Vec<u8>,
    /// The entry existed already (an earlier attempt appended it and did not commit the
    /// archive): its position and time were reused.
    pub reused: bool,
}

#[derive(Debug, thiserror::Error)]
pub enum LedgerError {
    #[error("database error: {0}")]
    Database(#[from] sqlx::Error),
    /// A redelivered message's entry names other digests than the ones rebuilt now.
    #[error("ledger entry {seq} of message {message_id} differs from the evidence rebuilt now")]
    EntryMismatch { seq: i64, message_id: Uuid },
    /// `mark_stored` for a message that has no entry: the archive skipped `append`.
    #[error("message {message_id} has no ledger entry")]
    NotAppended { message_id: Uuid },
    /// A stored hash is not 32 bytes (the table's CHECK rules it out).
    #[error("ledger entry {seq} has a malformed hash")]
    BadHash { seq: i64 },
    /// A stored hash is not the link its canonical bytes give: the table was altered.
    #[error("ledger entry {seq}: its stored hash is not SHA-256(previous hash || canonical)")]
    ChainBroken { seq: i64 },
    /// A segment row's objects column does not read as the ledger writes it.
    #[error("ledger segment {first_seq}: objects column: {source}")]
    SegmentObjects {
        first_seq: i64,
        #[source]
        source: serde_json::Error,
    },
}

/// The file names of a segment, under its prefix.
pub mod files {
    pub const ENTRIES: &str = "entries.jsonl";
    pub const MANIFEST: &str = "segment.json";
    pub const SIGNATURE: &str = "segment.p7s";
    pub const TIMESTAMP: &str = "segment.tsr";
}
