//! Verification of segments and chains, on bytes alone: the same code checks an export
//! offline and the bucket online.

use crate::ObjectRef;
use chrono::{DateTime, Utc};
use uuid::Uuid;

/// One entry as a verifier reads it back from its canonical bytes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReadEntry {
    pub seq: i64,
    pub message_id: Uuid,
    pub as2_from: String,
    pub as2_to: String,
    pub as2_message_id: String,
    pub received_at: DateTime<Utc>,
    pub chained_at: DateTime<Utc>,
    pub retain_until: DateTime<Utc>,
    pub objects: Vec<ObjectRef>,
    /// The link hash this entry's bytes give after the previous one's.
    pub hash: [u8; 32],
}

/// A segment's files as fetched (from S3 or from an export).
#[derive(Debug, Clone, Copy)]
pub struct SegmentFiles<'a> {
    pub entries: &'a [u8],
    pub manifest: &'a [u8],
    pub signature: &'a [u8],
    pub timestamp: Option<&'a [u8]>,
}

/// What is wrong, precisely enough for an auditor to find it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Discrepancy(pub String);

impl std::fmt::Display for Discrepancy {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

/// A checked segment: its entries (read back, hashes recomputed) and what did not hold.
#[derive(Debug, Clone)]
pub struct SegmentReport {
    pub first_seq: i64,
    pub last_seq: i64,
    pub head: [u8; 32],
    pub entries: Vec<ReadEntry>,
    pub timestamped: bool,
    pub discrepancies: Vec<Discrepancy>,
}

/// Checks one segment: the manifest's signature by `sealing_certificate` (DER), the
/// entries' digest, each link from `prev_head` (the previous segment's head, or
/// [`crate::GENESIS`]), consecutive positions from the manifest's first to its last, the
/// head, and the timestamp token when there is one (its imprint; its signature against
/// `tsa_certificate` when given).
pub fn verify_segment(
    files: SegmentFiles<'_>,
    sealing_certificate: &[u8],
    tsa_certificate: Option<&[u8]>,
    prev_head: [u8; 32],
) -> SegmentReport {
    let _ = (files, sealing_certificate, tsa_certificate, prev_head);
    unimplemented!("interface stub: the ledger helper writes this")
}
