//! Verification of segments and chains, on bytes alone: the same code checks an export
//! offline and the bucket online.

mod chain;
mod positions;
mod timestamp;

pub use chain::{SegmentLink, verify_chain};

use crate::chain::{chain_hash, parse_canonical};
use crate::seal::Manifest;
use crate::{ObjectRef, files};
use chrono::{DateTime, Utc};
use edihub_as2::crypto::{VerifyError, verify_detached};
use openssl::x509::X509;
use sha2::{Digest, Sha256};
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

impl Discrepancy {
    fn new(text: impl Into<String>) -> Self {
        Discrepancy(text.into())
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

impl SegmentReport {
    pub fn is_sound(&self) -> bool {
        self.discrepancies.is_empty()
    }
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
    let mut found = Vec::new();
    let manifest = match serde_json::from_slice::<Manifest>(files.manifest) {
        Ok(manifest) => Some(manifest),
        Err(e) => {
            found.push(Discrepancy::new(format!(
                "{}: does not read as a segment manifest: {e}",
                files::MANIFEST
            )));
            None
        }
    };
    check_signature(files, sealing_certificate, manifest.as_ref(), &mut found);
    let lines = read_lines(files.entries, prev_head, &mut found);
    let head = lines.last().map_or(prev_head, |line| line.hash);
    let (first_seq, last_seq) = match &manifest {
        Some(m) => (m.first_seq, m.last_seq),
        None => bounds(&lines),
    };
    let seqs: Vec<Option<i64>> = lines
        .iter()
        .map(|l| l.entry.as_ref().map(|e| e.seq))
        .collect();
    found.extend(positions::check(first_seq, last_seq, &seqs));
    if let Some(manifest) = &manifest {
        check_manifest(
            manifest,
            files.entries,
            lines.len(),
            head,
            prev_head,
            &mut found,
        );
    }
    let timestamped = match files.timestamp {
        Some(tsr) => timestamp::check(tsr, files.manifest, tsa_certificate, &mut found),
        None => false,
    };
    SegmentReport {
        first_seq,
        last_seq,
        head,
        entries: lines.into_iter().filter_map(|l| l.entry).collect(),
        timestamped,
        discrepancies: found,
    }
}

fn check_signature(
    files: SegmentFiles<'_>,
    sealing_certificate: &[u8],
    manifest: Option<&Manifest>,
    found: &mut Vec<Discrepancy>,
) {
    let certificate = match X509::from_der(sealing_certificate) {
        Ok(certificate) => certificate,
        Err(e) => {
            found.push(Discrepancy::new(format!(
                "the sealing certificate is not a DER X.509 certificate: {e}"
            )));
            return;
        }
    };
    match verify_detached(files.signature, files.manifest, &[certificate]) {
        Ok(()) => {}
        Err(VerifyError::UnknownSigner(e)) => found.push(Discrepancy::new(format!(
            "{}: not signed by the sealing certificate ({e})",
            files::SIGNATURE
        ))),
        Err(VerifyError::Invalid(e)) => found.push(Discrepancy::new(format!(
            "{}: the signature over {} does not verify ({e})",
            files::SIGNATURE,
            files::MANIFEST
        ))),
    }
    let fingerprint = hex::encode(Sha256::digest(sealing_certificate));
    if let Some(m) = manifest
        && m.sealing_certificate_sha256 != fingerprint
    {
        found.push(mismatch(
            "sealing_certificate_sha256",
            &m.sealing_certificate_sha256,
            &format!("the given sealing certificate's {fingerprint}"),
        ));
    }
}

fn check_manifest(
    manifest: &Manifest,
    entries: &[u8],
    lines: usize,
    head: [u8; 32],
    prev_head: [u8; 32],
    found: &mut Vec<Discrepancy>,
) {
    let digest = hex::encode(Sha256::digest(entries));
    if manifest.entries_sha256 != digest {
        found.push(mismatch(
            "entries_sha256",
            &manifest.entries_sha256,
            &format!("SHA-256 of {} {digest}", files::ENTRIES),
        ));
    }
    if manifest.prev_head != hex::encode(prev_head) {
        found.push(mismatch(
            "prev_head",
            &manifest.prev_head,
            &format!("the previous segment's head {}", hex::encode(prev_head)),
        ));
    }
    if manifest.head != hex::encode(head) {
        found.push(mismatch(
            "head",
            &manifest.head,
            &format!(
                "{} chained from prev_head gives {}",
                files::ENTRIES,
                hex::encode(head)
            ),
        ));
    }
    if manifest.count != lines as u64 {
        found.push(mismatch(
            "count",
            &manifest.count.to_string(),
            &format!("{} has {lines} lines", files::ENTRIES),
        ));
    }
    let span = manifest.last_seq - manifest.first_seq + 1;
    if u64::try_from(span).ok() != Some(manifest.count) {
        found.push(mismatch(
            "count",
            &manifest.count.to_string(),
            &format!(
                "first_seq {} to last_seq {} is {span} positions",
                manifest.first_seq, manifest.last_seq
            ),
        ));
    }
}

fn mismatch(field: &str, says: &str, but: &str) -> Discrepancy {
    Discrepancy::new(format!("{}: {field} is {says}, but {but}", files::MANIFEST))
}

/// One line of entries.jsonl: its entry when it reads as one, and its link hash.
struct Line {
    entry: Option<ReadEntry>,
    hash: [u8; 32],
}

/// Splits entries.jsonl into lines, reads each and chains them in file order.
fn read_lines(entries: &[u8], prev_head: [u8; 32], found: &mut Vec<Discrepancy>) -> Vec<Line> {
    let body = match entries.strip_suffix(b"\n") {
        Some(body) => body,
        None if entries.is_empty() => entries,
        None => {
            found.push(Discrepancy::new(format!(
                "{}: the last line does not end with a newline (truncated?)",
                files::ENTRIES
            )));
            entries
        }
    };
    if body.is_empty() {
        return Vec::new();
    }
    let mut prev = prev_head;
    let mut lines = Vec::new();
    for (index, bytes) in body.split(|b| *b == b'\n').enumerate() {
        prev = chain_hash(&prev, bytes);
        let entry = match parse_canonical(bytes) {
            Ok(parsed) => Some(read_entry(parsed, prev)),
            Err(e) => {
                found.push(Discrepancy::new(format!(
                    "{} line {}: not an entry: {e}",
                    files::ENTRIES,
                    index + 1
                )));
                None
            }
        };
        lines.push(Line { entry, hash: prev });
    }
    lines
}

fn read_entry(parsed: crate::ParsedEntry, hash: [u8; 32]) -> ReadEntry {
    let facts = parsed.facts;
    ReadEntry {
        seq: parsed.position.seq,
        message_id: facts.message_id,
        as2_from: facts.as2_from,
        as2_to: facts.as2_to,
        as2_message_id: facts.as2_message_id,
        received_at: facts.received_at,
        chained_at: parsed.position.chained_at,
        retain_until: facts.retain_until,
        objects: facts.objects,
        hash,
    }
}

/// The positions the lines name, when the manifest cannot say.
fn bounds(lines: &[Line]) -> (i64, i64) {
    let seqs = lines.iter().filter_map(|l| l.entry.as_ref().map(|e| e.seq));
    let first = seqs.clone().min().unwrap_or(0);
    let last = seqs.max().unwrap_or(0);
    (first, last)
}

#[cfg(test)]
mod tests;
