//! A segment's files, built from its entries: pure but for the signature's key.

use super::SealError;
use crate::chain::{chain_hash, format_time, parse_canonical};
use chrono::{DateTime, Utc};
use edihub_as2::{Identity, MicAlg};
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

/// `segment.json`: the field order here is the file's key order.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Manifest {
    pub first_seq: i64,
    pub last_seq: i64,
    pub count: u64,
    /// Hex: the previous segment's head, zeros for the first segment.
    pub prev_head: String,
    /// Hex: the link hash of `last_seq`.
    pub head: String,
    /// Hex: SHA-256 of `entries.jsonl`.
    pub entries_sha256: String,
    pub sealed_at: String,
    /// Hex: SHA-256 of the sealing certificate's DER.
    pub sealing_certificate_sha256: String,
}

/// `ledger/segments/<first>-<last>/`, positions zero-padded so keys sort by position.
pub fn segment_prefix(first_seq: i64, last_seq: i64) -> String {
    format!("ledger/segments/{first_seq:012}-{last_seq:012}/")
}

/// Where the sealing certificate with this fingerprint (hex) is kept, as PEM.
pub fn certificate_key(sha256_hex: &str) -> String {
    format!("ledger/certificates/{sha256_hex}.pem")
}

/// One entry to seal, as read under the sealing lock.
pub(crate) struct Pending {
    pub seq: i64,
    pub canonical: Vec<u8>,
}

/// The files of one segment, signed.
pub(crate) struct Built {
    pub first_seq: i64,
    pub last_seq: i64,
    pub prev_head: [u8; 32],
    pub head: [u8; 32],
    pub entries: Vec<u8>,
    pub manifest: Vec<u8>,
    pub signature: Vec<u8>,
    /// The latest `retain_until` of the entries: the segment is locked as long.
    pub retain_until: DateTime<Utc>,
}

/// Builds and signs the segment of `run` (consecutive, non-empty) after `prev_head`.
pub(crate) fn build(
    run: &[Pending],
    prev_head: [u8; 32],
    key: &Identity,
    sealed_at: DateTime<Utc>,
) -> Result<Built, SealError> {
    let (Some(first), Some(last)) = (run.first(), run.last()) else {
        return Err(SealError::EmptyRun);
    };
    let mut entries = Vec::new();
    let mut head = prev_head;
    let mut retain_until = None;
    for entry in run {
        let parsed = parse_canonical(&entry.canonical).map_err(|source| SealError::Entry {
            seq: entry.seq,
            source,
        })?;
        retain_until = retain_until.max(Some(parsed.facts.retain_until));
        head = chain_hash(&head, &entry.canonical);
        entries.extend_from_slice(&entry.canonical);
        entries.push(b'\n');
    }
    let certificate = key
        .certificate
        .to_der()
        .map_err(|e| SealError::Sign(edihub_as2::As2Error::Crypto(e.to_string())))?;
    let manifest = Manifest {
        first_seq: first.seq,
        last_seq: last.seq,
        count: run.len() as u64,
        prev_head: hex::encode(prev_head),
        head: hex::encode(head),
        entries_sha256: hex::encode(Sha256::digest(&entries)),
        sealed_at: format_time(sealed_at),
        sealing_certificate_sha256: hex::encode(Sha256::digest(&certificate)),
    };
    let manifest = manifest_bytes(&manifest);
    let signature =
        edihub_as2::crypto::sign_detached(key, MicAlg::Sha256, &manifest, sealed_at.timestamp())
            .map_err(SealError::Sign)?;
    Ok(Built {
        first_seq: first.seq,
        last_seq: last.seq,
        prev_head,
        head,
        entries,
        manifest,
        signature,
        retain_until: retain_until.unwrap_or(sealed_at),
    })
}

/// The manifest as written: pretty JSON for people, a final newline.
pub fn manifest_bytes(manifest: &Manifest) -> Vec<u8> {
    // Strings and integers into a Vec cannot fail to serialise; an empty manifest would
    // never verify, so the impossible case stays visible.
    let mut bytes = serde_json::to_vec_pretty(manifest).unwrap_or_default();
    bytes.push(b'\n');
    bytes
}
