//! The claims about one message compared with each other: `archive_object` rows,
//! evidence.json, `archive_record` and the ledger entry's canonical bytes.

use super::report::Check;
use super::sources::ObjectRow;
use crate::ArchiveRecord;
use crate::evidence::EvidenceDocument;
use edihub_ledger::ParsedEntry;
use uuid::Uuid;

pub(crate) fn read_canonical(bytes: &[u8]) -> Result<ParsedEntry, String> {
    edihub_ledger::parse_canonical(bytes).map_err(|e| format!("canonical bytes do not read: {e}"))
}

/// evidence.json's objects against the rows (evidence.json names every object but itself).
pub(super) fn evidence_against_rows(
    message_id: Uuid,
    document: &EvidenceDocument,
    rows: &[ObjectRow],
) -> Check {
    let mut problems = Vec::new();
    if document.ids.message_id != message_id {
        problems.push(format!(
            "evidence.json names message {}",
            document.ids.message_id
        ));
    }
    for object in &document.objects {
        match rows.iter().find(|r| r.kind == object.kind) {
            None => problems.push(format!(
                "evidence.json names a {} object ({}) that has no archive_object row",
                object.kind, object.key
            )),
            Some(row) => problems.extend(differences(
                &object.kind,
                (&object.key, &object.sha256, object.size),
                row,
                "evidence.json",
            )),
        }
    }
    for row in rows.iter().filter(|r| r.kind != "evidence") {
        if !document.objects.iter().any(|o| o.kind == row.kind) {
            problems.push(format!(
                "archive_object {} ({}) is not named in evidence.json",
                row.kind, row.object_key
            ));
        }
    }
    for row in rows
        .iter()
        .filter(|r| r.retain_until < document.retention.retain_until)
    {
        problems.push(format!(
            "archive_object {} retain_until {} is before evidence.json's {}",
            row.kind,
            row.retain_until.to_rfc3339(),
            document.retention.retain_until.to_rfc3339()
        ));
    }
    Check::from_problems("evidence.json against archive_object", problems)
}

/// The entry's objects against the rows: exactly the same kinds, keys and digests.
pub(super) fn entry_against_rows(
    name: &str,
    source: &str,
    entry: &ParsedEntry,
    message_id: Uuid,
    rows: &[ObjectRow],
) -> Check {
    let seq = entry.position.seq;
    let mut problems = Vec::new();
    if entry.facts.message_id != message_id {
        problems.push(format!(
            "seq {seq} names message {}",
            entry.facts.message_id
        ));
    }
    for object in &entry.facts.objects {
        match rows.iter().find(|r| r.kind == object.kind) {
            None => problems.push(format!(
                "{source} seq {seq} names a {} object ({}) that has no archive_object row",
                object.kind, object.key
            )),
            Some(row) => problems.extend(differences(
                &object.kind,
                (&object.key, &object.sha256, object.size),
                row,
                &format!("{source} seq {seq}"),
            )),
        }
    }
    for row in rows {
        if !entry.facts.objects.iter().any(|o| o.kind == row.kind) {
            problems.push(format!(
                "archive_object {} ({}) is not named in {source} seq {seq}",
                row.kind, row.object_key
            ));
        }
    }
    Check::from_problems(name, problems)
}

/// What differs between a claim `(key, sha256, size)` about a `kind` and its row.
fn differences(kind: &str, claim: (&str, &str, u64), row: &ObjectRow, source: &str) -> Vec<String> {
    let (key, sha256, size) = claim;
    let mut problems = Vec::new();
    if key != row.object_key {
        problems.push(format!(
            "{kind}: {source} says key {key}, archive_object says {}",
            row.object_key
        ));
    }
    if sha256 != row.sha256 {
        problems.push(format!(
            "{kind} ({key}): {source} says sha256 {sha256}, archive_object says {}",
            row.sha256
        ));
    }
    if i64::try_from(size).ok() != Some(row.size) {
        problems.push(format!(
            "{kind} ({key}): {source} says size {size}, archive_object says {}",
            row.size
        ));
    }
    problems
}

/// `archive_record` (what `audit fetch` checks) against the payload's row.
pub(super) fn record_against_payload(record: Option<&ArchiveRecord>, rows: &[ObjectRow]) -> Check {
    const NAME: &str = "archive_record against the payload";
    let payload = rows.iter().find(|r| r.kind == "payload");
    match (record, payload) {
        (None, _) => Check::failed(NAME, "no archive_record row"),
        (Some(_), None) => Check::failed(NAME, "no payload archive_object row"),
        (Some(record), Some(row)) => {
            let mut problems = Vec::new();
            if record.object_key != row.object_key {
                problems.push(format!(
                    "archive_record key {} but payload object {}",
                    record.object_key, row.object_key
                ));
            }
            if record.sha256 != row.sha256 {
                problems.push(format!(
                    "archive_record sha256 {} but payload object {}",
                    record.sha256, row.sha256
                ));
            }
            Check::from_problems(NAME, problems)
        }
    }
}

#[cfg(test)]
mod tests;
