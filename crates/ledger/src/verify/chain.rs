//! The chain of segments: each one starts where the previous ended and links to its head.

use super::Discrepancy;
use crate::GENESIS;
use crate::read::SegmentRow;
use crate::seal::Manifest;

/// What one segment says about its place in the chain.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SegmentLink {
    pub first_seq: i64,
    pub last_seq: i64,
    pub prev_head: [u8; 32],
    pub head: [u8; 32],
}

impl SegmentLink {
    /// A manifest's link; `None` when its hashes are not 32-byte hex.
    pub fn from_manifest(manifest: &Manifest) -> Option<SegmentLink> {
        let hash = |text: &str| hex::decode(text).ok()?.try_into().ok();
        Some(SegmentLink {
            first_seq: manifest.first_seq,
            last_seq: manifest.last_seq,
            prev_head: hash(&manifest.prev_head)?,
            head: hash(&manifest.head)?,
        })
    }
}

impl From<&SegmentRow> for SegmentLink {
    fn from(row: &SegmentRow) -> Self {
        SegmentLink {
            first_seq: row.first_seq,
            last_seq: row.last_seq,
            prev_head: row.prev_head,
            head: row.head,
        }
    }
}

/// Checks a whole chain of segments, in order from the first: it starts at seq 1 from
/// [`GENESIS`], and each segment starts right after the previous one's last position and
/// names its head as `prev_head`. A removed segment shows as a gap, a replaced one
/// (re-sealed, re-signed) as a broken link, a reordered one as both.
pub fn verify_chain(segments: &[SegmentLink]) -> Vec<Discrepancy> {
    let mut found = Vec::new();
    let Some(first) = segments.first() else {
        return found;
    };
    if first.first_seq != 1 {
        found.push(Discrepancy::new(format!(
            "the first segment starts at seq {}, not 1: seq 1 to {} are not sealed in any \
             segment given",
            first.first_seq,
            first.first_seq - 1
        )));
    } else if first.prev_head != GENESIS {
        found.push(Discrepancy::new(format!(
            "segment {}-{}: prev_head is {}, but the first segment's must be zeros",
            first.first_seq,
            first.last_seq,
            hex::encode(first.prev_head)
        )));
    }
    for pair in segments.windows(2) {
        let (before, after) = (&pair[0], &pair[1]);
        let name = format!("segment {}-{}", after.first_seq, after.last_seq);
        let expected = before.last_seq + 1;
        if after.first_seq > expected {
            found.push(Discrepancy::new(format!(
                "{name}: seq {expected} to {} are in no segment (a segment removed?)",
                after.first_seq - 1
            )));
        } else if after.first_seq < expected {
            found.push(Discrepancy::new(format!(
                "{name}: starts at seq {}, inside segment {}-{}",
                after.first_seq, before.first_seq, before.last_seq
            )));
        }
        if after.prev_head != before.head {
            found.push(Discrepancy::new(format!(
                "{name}: prev_head is {}, but segment {}-{}'s head is {} (a segment \
                 replaced or removed?)",
                hex::encode(after.prev_head),
                before.first_seq,
                before.last_seq,
                hex::encode(before.head)
            )));
        }
    }
    found
}
