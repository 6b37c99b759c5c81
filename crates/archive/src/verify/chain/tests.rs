use super::*;
use chrono::Utc;
use edihub_ledger::{SegmentObjects, StoredObject};
use uuid::Uuid;

fn object() -> StoredObject {
    StoredObject {
        key: "ledger/segments/x".into(),
        version_id: None,
        sha256: String::new(),
        size: 0,
    }
}

fn segment(first_seq: i64, last_seq: i64, head: [u8; 32]) -> SegmentRow {
    SegmentRow {
        first_seq,
        last_seq,
        prev_head: GENESIS,
        head,
        objects: SegmentObjects {
            entries: object(),
            manifest: object(),
            signature: object(),
            timestamp: None,
            certificate: None,
        },
        sealed_at: Utc::now(),
    }
}

/// A valid chain of `n` entries.
fn chain(n: i64) -> Vec<EntryRow> {
    let mut prev = GENESIS;
    (1..=n)
        .map(|seq| {
            let canonical = format!("{{\"seq\":{seq}}}").into_bytes();
            let hash = chain_hash(&prev, &canonical);
            prev = hash;
            EntryRow {
                seq,
                message_id: Uuid::new_v4(),
                canonical,
                hash,
                stored_at: Some(Utc::now()),
            }
        })
        .collect()
}

fn by_seq(entries: &[EntryRow]) -> BTreeMap<i64, &EntryRow> {
    entries.iter().map(|e| (e.seq, e)).collect()
}

#[test]
fn a_missing_segment_row_before_a_sealed_one_is_named_with_its_positions() {
    let mut findings = ChainFindings::default();
    coverage(
        &[segment(1, 2, GENESIS), segment(5, 6, GENESIS)],
        &mut findings,
    );
    assert_eq!(
        findings.discrepancies,
        ["segment rows: segment 5-6: seq 3 to 4 are in no segment (a segment removed?)"]
    );
}

#[test]
fn a_missing_entry_row_is_a_gap_even_at_the_sealed_end() {
    let entries = chain(4);
    let kept: Vec<EntryRow> = entries.into_iter().filter(|e| e.seq != 2).collect();
    let mut findings = ChainFindings::default();
    gaps(&by_seq(&kept), &[segment(1, 5, GENESIS)], &mut findings);
    assert_eq!(
        findings.discrepancies,
        [
            "seq 2: no ledger_entry row (a gap in the chain)",
            "seq 5: no ledger_entry row (a gap in the chain)"
        ]
    );
}

#[test]
fn the_unsealed_tail_links_from_the_last_head_and_is_noted() {
    let entries = chain(4);
    let head = entries[1].hash;
    let mut findings = ChainFindings::default();
    tail(&by_seq(&entries), &[segment(1, 2, head)], &mut findings);
    assert!(
        findings.discrepancies.is_empty(),
        "{:?}",
        findings.discrepancies
    );
    assert_eq!(
        findings.notes,
        ["seq 3-4: not sealed yet (the database's chain links)"]
    );
}

#[test]
fn an_altered_unsealed_entry_breaks_its_link() {
    let mut entries = chain(3);
    entries[2].canonical = b"{\"seq\":3,\"x\":1}".to_vec();
    let mut findings = ChainFindings::default();
    tail(&by_seq(&entries), &[], &mut findings);
    assert_eq!(
        findings.discrepancies.len(),
        1,
        "{:?}",
        findings.discrepancies
    );
    assert!(findings.discrepancies[0].starts_with("seq 3: its hash"));
}

#[test]
fn the_segments_checked_run_from_the_one_before_the_first_holding_to_the_last() {
    let segments = [
        segment(1, 2, GENESIS),
        segment(3, 4, GENESIS),
        segment(5, 6, GENESIS),
        segment(7, 8, GENESIS),
    ];
    let chosen: Vec<i64> = relevant(&segments, &[6, 4])
        .iter()
        .map(|s| s.first_seq)
        .collect();
    assert_eq!(chosen, [1, 3, 5]);
    assert!(relevant(&segments, &[9]).is_empty());
}
