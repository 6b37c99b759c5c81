//! The ledger as a whole: segments verified and linked, the database's entries compared
//! with what the segments signed, no position missing, and the entries after the last
//! segment linked from its head.

use super::period::Anchors;
use super::segments::{self, label};
use crate::ArchiveStore;
use edihub_ledger::verify::{SegmentLink, verify_chain};
use edihub_ledger::{GENESIS, SegmentRow, StoredEntry as EntryRow, chain_hash};
use std::collections::{BTreeMap, HashMap};

/// One entry's bytes as a verified segment signed them.
pub(super) struct SealedLine {
    pub first_seq: i64,
    pub last_seq: i64,
    pub canonical: Vec<u8>,
}

#[derive(Default)]
pub(super) struct ChainFindings {
    pub sealed: HashMap<i64, SealedLine>,
    pub discrepancies: Vec<String>,
    pub notes: Vec<String>,
    pub segments: u64,
}

/// Checks the segments that hold any of `seqs`, those between them and the one before
/// them (whose signed head anchors the first link), every position from 1 to the head,
/// the unsealed tail, and segments in the bucket the rows do not record (a cut tail).
pub(super) async fn check_chain(
    store: &ArchiveStore,
    entries: &[EntryRow],
    segments: &[SegmentRow],
    seqs: &[i64],
    anchors: Anchors<'_>,
) -> ChainFindings {
    let mut findings = ChainFindings::default();
    let by_seq: BTreeMap<i64, &EntryRow> = entries.iter().map(|e| (e.seq, e)).collect();
    coverage(segments, &mut findings);
    gaps(&by_seq, segments, &mut findings);
    let chosen = relevant(segments, seqs);
    let mut head = chosen.first().map(anchor_of).unwrap_or(GENESIS);
    for row in chosen {
        head = verify_one(store, row, head, &by_seq, anchors, &mut findings).await;
        findings.segments += 1;
    }
    tail(&by_seq, segments, &mut findings);
    let head_seq = by_seq.keys().next_back().copied().unwrap_or(0);
    super::unrecorded::check_unrecorded(store, segments, head_seq, &mut findings).await;
    findings
}

/// The run of segments from the first to the last holding any of `seqs`, with the one
/// before it: every link between them is checked.
pub(crate) fn relevant<'a>(segments: &'a [SegmentRow], seqs: &[i64]) -> &'a [SegmentRow] {
    let holds = |s: &SegmentRow| seqs.iter().any(|q| s.first_seq <= *q && *q <= s.last_seq);
    let first = segments.iter().position(holds);
    let last = segments.iter().rposition(holds);
    match (first, last) {
        (Some(first), Some(last)) => segments
            .get(first.saturating_sub(1)..=last)
            .unwrap_or_default(),
        _ => &[],
    }
}

/// The head the first verified segment must link from: zeros before position 1, else
/// the previous segment row's head (whose link the rows' chain check covers).
fn anchor_of(row: &SegmentRow) -> [u8; 32] {
    if row.first_seq == 1 {
        GENESIS
    } else {
        row.prev_head
    }
}

async fn verify_one(
    store: &ArchiveStore,
    row: &SegmentRow,
    prev_head: [u8; 32],
    by_seq: &BTreeMap<i64, &EntryRow>,
    anchors: Anchors<'_>,
    findings: &mut ChainFindings,
) -> [u8; 32] {
    let fetched = match segments::fetch(store, row).await {
        Ok(fetched) => fetched,
        Err(problems) => {
            findings.discrepancies.extend(problems);
            return row.head;
        }
    };
    let report = edihub_ledger::verify::verify_segment(
        fetched.files(),
        anchors.sealing_certificate,
        anchors.tsa_certificate,
        prev_head,
    );
    let name = label(row);
    findings
        .discrepancies
        .extend(report.discrepancies.iter().map(|d| format!("{name}: {d}")));
    if report.first_seq != row.first_seq || report.last_seq != row.last_seq {
        findings.discrepancies.push(format!(
            "{name}: the row says seq {}-{}, the signed manifest {}-{}",
            row.first_seq, row.last_seq, report.first_seq, report.last_seq
        ));
    }
    if row.head != report.head {
        findings.discrepancies.push(format!(
            "{name}: the row records head {}, the signed manifest {}",
            hex(&row.head),
            hex(&report.head)
        ));
    }
    if row.prev_head != prev_head {
        findings.discrepancies.push(format!(
            "{name}: the row records prev_head {}, the previous segment's head is {}",
            hex(&row.prev_head),
            hex(&prev_head)
        ));
    }
    compare_entries(row, &fetched.entries, &report, by_seq, findings);
    report.head
}

/// Each signed line against the database's entry at its position.
fn compare_entries(
    row: &SegmentRow,
    entries: &[u8],
    report: &edihub_ledger::verify::SegmentReport,
    by_seq: &BTreeMap<i64, &EntryRow>,
    findings: &mut ChainFindings,
) {
    let name = label(row);
    for (seq, line) in segments::lines(entries) {
        let Some(seq) = seq else { continue };
        match by_seq.get(&seq) {
            None => findings.discrepancies.push(format!(
                "seq {seq}: sealed in {name} but the database has no ledger_entry row"
            )),
            Some(entry) if entry.canonical != line => findings.discrepancies.push(format!(
                "seq {seq}: the database's canonical bytes differ from {name}'s: {} vs {}",
                String::from_utf8_lossy(&entry.canonical),
                String::from_utf8_lossy(line)
            )),
            Some(entry) => {
                let signed = report.entries.iter().find(|e| e.seq == seq).map(|e| e.hash);
                if signed.is_some_and(|h| h != entry.hash) {
                    findings.discrepancies.push(format!(
                        "seq {seq}: the database's hash {} differs from {name}'s chain",
                        hex(&entry.hash)
                    ));
                }
            }
        }
        findings.sealed.insert(
            seq,
            SealedLine {
                first_seq: row.first_seq,
                last_seq: row.last_seq,
                canonical: line.to_vec(),
            },
        );
    }
}

/// The segment rows must chain from position 1 without a hole, each naming the previous
/// one's head (the ledger's own chain check, on what the database claims).
fn coverage(segments: &[SegmentRow], findings: &mut ChainFindings) {
    let links: Vec<SegmentLink> = segments.iter().map(SegmentLink::from).collect();
    findings.discrepancies.extend(
        verify_chain(&links)
            .into_iter()
            .map(|d| format!("segment rows: {d}")),
    );
}

/// Every position from 1 to the highest (entries or sealed) must have its entry row.
fn gaps(by_seq: &BTreeMap<i64, &EntryRow>, segments: &[SegmentRow], findings: &mut ChainFindings) {
    let sealed = segments.iter().map(|s| s.last_seq).max().unwrap_or(0);
    let head = by_seq.keys().next_back().copied().unwrap_or(0).max(sealed);
    let missing: Vec<i64> = (1..=head).filter(|s| !by_seq.contains_key(s)).collect();
    for seq in missing {
        findings.discrepancies.push(format!(
            "seq {seq}: no ledger_entry row (a gap in the chain)"
        ));
    }
}

/// The entries after the last segment: each must link from the one before, starting at
/// the last segment's head; they are noted as not sealed yet.
fn tail(by_seq: &BTreeMap<i64, &EntryRow>, segments: &[SegmentRow], findings: &mut ChainFindings) {
    let last = segments.last();
    let after = last.map(|s| s.last_seq).unwrap_or(0);
    let mut prev = last.map(|s| s.head).unwrap_or(GENESIS);
    let unsealed: Vec<&&EntryRow> = by_seq.range(after + 1..).map(|(_, e)| e).collect();
    for entry in &unsealed {
        let expected = chain_hash(&prev, &entry.canonical);
        if expected != entry.hash {
            findings.discrepancies.push(format!(
                "seq {}: its hash {} does not follow from the previous entry (expected {})",
                entry.seq,
                hex(&entry.hash),
                hex(&expected)
            ));
        }
        prev = expected;
    }
    if let (Some(first), Some(last)) = (unsealed.first(), unsealed.last()) {
        findings.notes.push(format!(
            "seq {}-{}: not sealed yet (the database's chain links)",
            first.seq, last.seq
        ));
    }
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

#[cfg(test)]
mod tests;
