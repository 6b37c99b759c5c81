//! The bundle's ledger segments: each verified on its bytes (signature, timestamp,
//! entries against the manifest), linked to the one before, without a gap, and ending
//! where index.json says the export ended.

use super::index::BundleIndex;
use super::paths::SEGMENTS;
use super::read::Bundle;
use edihub_ledger::verify::{ReadEntry, SegmentFiles, verify_segment};
use edihub_ledger::{GENESIS, Manifest, files};
use std::collections::{BTreeSet, HashMap};

/// The trust anchors, DER.
pub(super) struct Anchors<'a> {
    pub sealing: &'a [u8],
    pub tsa: Option<&'a [u8]>,
}

/// An entry as a segment of the bundle holds it.
pub(super) struct SealedEntry {
    pub segment: String,
    pub entry: ReadEntry,
}

#[derive(Default)]
pub(super) struct ChainFindings {
    pub sealed: HashMap<i64, SealedEntry>,
    pub discrepancies: Vec<String>,
    pub notes: Vec<String>,
    pub segments: u64,
}

/// Where the previous segment ended; `head` is `None` when its files were missing.
#[derive(Clone, Copy)]
struct End {
    last_seq: i64,
    head: Option<[u8; 32]>,
}

pub(super) fn check_segments(
    bundle: &Bundle,
    index: &BundleIndex,
    anchors: &Anchors<'_>,
) -> std::io::Result<ChainFindings> {
    let mut findings = ChainFindings::default();
    let mut previous: Option<End> = None;
    for (first, last, prefix) in segment_dirs(bundle, &mut findings) {
        let head = check_one(
            bundle,
            (first, last),
            &prefix,
            previous,
            anchors,
            &mut findings,
        )?;
        findings.segments += 1;
        previous = Some(End {
            last_seq: last,
            head,
        });
    }
    check_against_index(index, bundle, previous, &mut findings);
    Ok(findings)
}

/// The segment directories in the bundle, in order of position.
fn segment_dirs(bundle: &Bundle, findings: &mut ChainFindings) -> Vec<(i64, i64, String)> {
    let dirs: BTreeSet<&str> = bundle
        .paths()
        .filter_map(|p| p.strip_prefix(SEGMENTS))
        .filter_map(|rest| rest.split_once('/').map(|(dir, _)| dir))
        .collect();
    let mut found = Vec::new();
    for dir in dirs {
        let bounds = dir
            .split_once('-')
            .and_then(|(a, b)| Some((a.parse::<i64>().ok()?, b.parse::<i64>().ok()?)));
        match bounds {
            Some((first, last)) => found.push((first, last, format!("{SEGMENTS}{dir}/"))),
            None => findings.discrepancies.push(format!(
                "{SEGMENTS}{dir}/: not a segment directory (<first>-<last>)"
            )),
        }
    }
    found.sort();
    found
}

/// Verifies one segment from `previous`'s head; returns its head (`None` when its files
/// are missing).
fn check_one(
    bundle: &Bundle,
    (first, last): (i64, i64),
    prefix: &str,
    previous: Option<End>,
    anchors: &Anchors<'_>,
    findings: &mut ChainFindings,
) -> std::io::Result<Option<[u8; 32]>> {
    let label = format!("segment {first}-{last}");
    let read = |name: &str| bundle.read(&format!("{prefix}{name}"));
    let (entries, manifest, signature) = (
        read(files::ENTRIES)?,
        read(files::MANIFEST)?,
        read(files::SIGNATURE)?,
    );
    let timestamp = read(files::TIMESTAMP)?;
    let (Some(entries), Some(manifest), Some(signature)) = (entries, manifest, signature) else {
        findings.discrepancies.push(format!(
            "{label}: {prefix} lacks {} (missing from the bundle)",
            [files::ENTRIES, files::MANIFEST, files::SIGNATURE]
                .into_iter()
                .filter(|f| !bundle.contains(&format!("{prefix}{f}")))
                .collect::<Vec<_>>()
                .join(", ")
        ));
        return Ok(None);
    };
    if let Some(previous) = previous {
        gap(previous.last_seq, first, &label, findings);
    }
    let prev_head = match previous {
        Some(End {
            head: Some(head), ..
        }) => head,
        // The first segment of the bundle, or the one after a segment whose files are
        // missing (already a discrepancy): linked from its own signed prev_head.
        _ => first_anchor(first, &manifest, &label, findings),
    };
    let files = SegmentFiles {
        entries: &entries,
        manifest: &manifest,
        signature: &signature,
        timestamp: timestamp.as_deref(),
    };
    let report = verify_segment(files, anchors.sealing, anchors.tsa, prev_head);
    findings
        .discrepancies
        .extend(report.discrepancies.iter().map(|d| format!("{label}: {d}")));
    if (report.first_seq, report.last_seq) != (first, last) {
        findings.discrepancies.push(format!(
            "{label}: its directory says seq {first}-{last}, the signed manifest {}-{}",
            report.first_seq, report.last_seq
        ));
    }
    if timestamp.is_some() && anchors.tsa.is_none() {
        findings.notes.push(format!(
            "{label}: segment.tsr's imprint checked, its signature not (no TSA certificate given)"
        ));
    }
    for entry in report.entries {
        let sealed = SealedEntry {
            segment: label.clone(),
            entry,
        };
        findings.sealed.insert(sealed.entry.seq, sealed);
    }
    Ok(Some(report.head))
}

/// Positions between two segments of the bundle that no segment holds.
fn gap(previous_last: i64, first: i64, label: &str, findings: &mut ChainFindings) {
    let expected = previous_last + 1;
    if first == expected + 1 {
        findings.discrepancies.push(format!(
            "seq {expected} missing: in no segment of the bundle (before {label})"
        ));
    } else if first > expected {
        findings.discrepancies.push(format!(
            "seq {expected} to {} missing: in no segment of the bundle (before {label})",
            first - 1
        ));
    } else if first < expected {
        findings.discrepancies.push(format!(
            "{label}: starts at seq {first}, inside the previous segment (which ends at {previous_last})"
        ));
    }
}

/// The head the bundle's first segment links from: zeros before seq 1, else its own
/// signed `prev_head` (the segment before it is outside the export).
fn first_anchor(
    first: i64,
    manifest: &[u8],
    label: &str,
    findings: &mut ChainFindings,
) -> [u8; 32] {
    if first == 1 {
        return GENESIS;
    }
    let parsed = serde_json::from_slice::<Manifest>(manifest)
        .ok()
        .and_then(|m| edihub_ledger::verify::SegmentLink::from_manifest(&m));
    match parsed {
        Some(link) => {
            findings.notes.push(format!(
                "{label}: linked from its own signed prev_head {} (the segment before it, \
                 to seq {}, is not in the bundle)",
                hex::encode(link.prev_head),
                first - 1
            ));
            link.prev_head
        }
        // verify_segment names the unreadable manifest.
        None => GENESIS,
    }
}

/// The segments must end where index.json says the export ended, and every segment it
/// names must be in the bundle.
fn check_against_index(
    index: &BundleIndex,
    bundle: &Bundle,
    end: Option<End>,
    findings: &mut ChainFindings,
) {
    for segment in &index.segments {
        let manifest = format!("{}{}", segment.prefix, files::MANIFEST);
        if !bundle.contains(&manifest) {
            findings.discrepancies.push(format!(
                "segment {}-{}: named in index.json, missing from the bundle ({manifest})",
                segment.first_seq, segment.last_seq
            ));
        }
    }
    let Some(expected) = index.last_segment() else {
        return;
    };
    let says = format!(
        "index.json says the export ends with segment {}-{} (head {})",
        expected.first_seq, expected.last_seq, expected.head
    );
    let problem = match end {
        None => Some(format!(
            "truncated: {says}, but the bundle holds no segment"
        )),
        Some(end) if end.last_seq < expected.last_seq => Some(format!(
            "truncated: {says}, but the bundle's segments end at seq {}",
            end.last_seq
        )),
        Some(end) if end.last_seq > expected.last_seq => Some(format!(
            "{says}, but the bundle's segments run on to seq {} (a segment added?)",
            end.last_seq
        )),
        Some(End { head: None, .. }) => Some(format!("{says}, but that segment is unreadable")),
        Some(End {
            head: Some(head), ..
        }) if hex::encode(head) != expected.head => Some(format!(
            "{says}, but the bundle's chain ends at head {}",
            hex::encode(head)
        )),
        Some(_) => None,
    };
    findings.discrepancies.extend(problem);
}
