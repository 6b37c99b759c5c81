//! Sealed segments the bucket holds but the database does not record. Segments are
//! object-locked, so cutting the ledger's tail from the database (its last entries and
//! segment rows) leaves the signed segments behind in S3: that is how a truncated tail is
//! found online. A seal that wrote its objects but did not commit leaves one too; its
//! entries are still in the database and are sealed again later, so it is only a note.

use super::chain::ChainFindings;
use crate::ArchiveStore;
use edihub_ledger::SegmentRow;
use std::collections::BTreeSet;

const SEGMENTS_PREFIX: &str = "ledger/segments/";

/// Compares the segments under `ledger/segments/` with the rows; `head_seq` is the
/// database's last ledger position.
pub(super) async fn check_unrecorded(
    store: &ArchiveStore,
    rows: &[SegmentRow],
    head_seq: i64,
    findings: &mut ChainFindings,
) {
    let keys = match store.list_keys(SEGMENTS_PREFIX).await {
        Ok(keys) => keys,
        Err(error) => {
            findings.discrepancies.push(format!(
                "the bucket's segments could not be listed ({error}): a truncated tail is not checked"
            ));
            return;
        }
    };
    let recorded: BTreeSet<(i64, i64)> = rows.iter().map(|r| (r.first_seq, r.last_seq)).collect();
    for (first, last) in spans(&keys) {
        if recorded.contains(&(first, last)) {
            continue;
        }
        if last > head_seq {
            findings.discrepancies.push(format!(
                "truncated: the bucket holds segment {first}-{last}, sealed by the hub, but the \
                 database's ledger ends at seq {head_seq}"
            ));
        } else {
            findings.notes.push(format!(
                "segment {first}-{last} is in the bucket without a ledger_segment row (a seal \
                 that did not commit; its entries were sealed again)"
            ));
        }
    }
}

/// The distinct `(first, last)` positions named by segment keys
/// (`ledger/segments/<first>-<last>/<file>`).
fn spans(keys: &[String]) -> BTreeSet<(i64, i64)> {
    keys.iter().filter_map(|key| span(key)).collect()
}

fn span(key: &str) -> Option<(i64, i64)> {
    let name = key.strip_prefix(SEGMENTS_PREFIX)?.split('/').next()?;
    let (first, last) = name.split_once('-')?;
    Some((first.parse().ok()?, last.parse().ok()?))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn segment_keys_name_their_positions_once_per_segment() {
        let keys: Vec<String> = [
            "ledger/segments/000000000001-000000000004/segment.json",
            "ledger/segments/000000000001-000000000004/entries.jsonl",
            "ledger/segments/000000000005-000000000009/segment.p7s",
            "ledger/segments/garbage/segment.json",
            "ledger/certificates/ab.pem",
        ]
        .map(String::from)
        .to_vec();
        assert_eq!(spans(&keys), BTreeSet::from([(1, 4), (5, 9)]));
    }
}
