use super::*;
use crate::verify::Verdict;
use chrono::{TimeZone, Utc};
use edihub_ledger::ObjectRef;

fn row(kind: &str, sha256: &str) -> ObjectRow {
    ObjectRow {
        kind: kind.into(),
        object_key: format!("evidence/2026/12/04/m/{kind}"),
        version_id: Some("v1".into()),
        sha256: sha256.into(),
        size: 3,
        retain_until: Utc
            .with_ymd_and_hms(2036, 12, 4, 0, 0, 0)
            .single()
            .expect("date"),
    }
}

fn entry(message_id: Uuid, objects: &[(&str, &str)]) -> ParsedEntry {
    let at = Utc
        .with_ymd_and_hms(2026, 12, 4, 0, 0, 0)
        .single()
        .expect("date");
    let facts = edihub_ledger::EntryFacts {
        message_id,
        as2_from: "ACME".into(),
        as2_to: "HUB".into(),
        as2_message_id: "m@acme".into(),
        received_at: at,
        retain_until: at,
        objects: objects
            .iter()
            .map(|(kind, sha256)| ObjectRef {
                kind: (*kind).into(),
                key: format!("evidence/2026/12/04/m/{kind}"),
                sha256: (*sha256).into(),
                size: 3,
            })
            .collect(),
    };
    ParsedEntry {
        position: edihub_ledger::Position {
            seq: 7,
            chained_at: at,
        },
        facts,
    }
}

#[test]
fn an_entry_naming_exactly_the_rows_passes() {
    let id = Uuid::new_v4();
    let rows = [row("payload", "aa"), row("evidence", "bb")];
    let check = entry_against_rows(
        "e",
        "entry",
        &entry(id, &[("payload", "aa"), ("evidence", "bb")]),
        id,
        &rows,
    );
    assert_eq!(check, Check::ok("e"));
}

#[test]
fn a_row_whose_digest_differs_from_the_entry_is_named_with_both_digests() {
    let id = Uuid::new_v4();
    let rows = [row("payload", "ff"), row("evidence", "bb")];
    let check = entry_against_rows(
        "e",
        "entry",
        &entry(id, &[("payload", "aa"), ("evidence", "bb")]),
        id,
        &rows,
    );
    let Verdict::Failed(reason) = check.verdict else {
        panic!("expected a failure, got {check:?}");
    };
    assert!(
        reason.contains("entry seq 7 says sha256 aa, archive_object says ff"),
        "{reason}"
    );
}

#[test]
fn a_row_the_entry_does_not_name_and_an_object_without_row_are_both_reported() {
    let id = Uuid::new_v4();
    let rows = [row("payload", "aa"), row("mdn", "cc")];
    let check = entry_against_rows(
        "e",
        "entry",
        &entry(id, &[("payload", "aa"), ("evidence", "bb")]),
        id,
        &rows,
    );
    let Verdict::Failed(reason) = check.verdict else {
        panic!("expected a failure, got {check:?}");
    };
    assert!(reason.contains("names a evidence object"), "{reason}");
    assert!(reason.contains("archive_object mdn"), "{reason}");
}

#[test]
fn canonical_bytes_read_back_their_position_and_objects() {
    let id = Uuid::new_v4();
    let written = entry(id, &[("payload", "aa")]);
    let bytes = edihub_ledger::canonical(written.position, &written.facts);
    let read = read_canonical(&bytes).expect("reads");
    assert_eq!(read, written);
    assert!(read_canonical(b"{\"seq\":1}").is_err());
}
