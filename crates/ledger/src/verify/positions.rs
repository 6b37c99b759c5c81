//! Which positions entries.jsonl holds against the manifest's first..last: each
//! missing, duplicated, foreign or misplaced line named.

use super::Discrepancy;
use crate::files::ENTRIES;
use std::collections::BTreeMap;

/// `seqs` is each line's position, `None` for a line that does not read as an entry.
pub(super) fn check(first: i64, last: i64, seqs: &[Option<i64>]) -> Vec<Discrepancy> {
    let mut found = Vec::new();
    let mut lines_of: BTreeMap<i64, Vec<usize>> = BTreeMap::new();
    for (index, seq) in seqs.iter().enumerate() {
        let Some(seq) = *seq else { continue };
        if seq < first || seq > last {
            found.push(Discrepancy::new(format!(
                "{ENTRIES} line {}: seq {seq} is outside the segment's {first}..{last}",
                index + 1
            )));
            continue;
        }
        lines_of.entry(seq).or_default().push(index + 1);
    }
    let duplicated = report_duplicates(&lines_of, &mut found);
    let missing = report_missing(first, last, &lines_of, &mut found);
    if !duplicated && !missing {
        report_order(first, last, seqs, &mut found);
    }
    found
}

fn report_duplicates(lines_of: &BTreeMap<i64, Vec<usize>>, found: &mut Vec<Discrepancy>) -> bool {
    let mut any = false;
    for (seq, lines) in lines_of.iter().filter(|(_, lines)| lines.len() > 1) {
        let lines: Vec<String> = lines.iter().map(usize::to_string).collect();
        found.push(Discrepancy::new(format!(
            "{ENTRIES}: seq {seq} appears more than once, on lines {}",
            lines.join(", ")
        )));
        any = true;
    }
    any
}

/// Gaps between the positions present, as ranges (a forged manifest may name a vast
/// range: its size is never iterated).
fn report_missing(
    first: i64,
    last: i64,
    lines_of: &BTreeMap<i64, Vec<usize>>,
    found: &mut Vec<Discrepancy>,
) -> bool {
    let mut any = false;
    let mut expected = first;
    let ends = lines_of
        .keys()
        .copied()
        .chain(std::iter::once(last.saturating_add(1)));
    for present in ends {
        if present > expected {
            let text = if present - 1 == expected {
                format!("{ENTRIES}: seq {expected} is missing")
            } else {
                format!("{ENTRIES}: seq {expected} to {} are missing", present - 1)
            };
            found.push(Discrepancy::new(text));
            any = true;
        }
        expected = present.saturating_add(1);
    }
    any
}

/// Every position once: which lines are out of place (swapped pairs named as such).
fn report_order(first: i64, last: i64, seqs: &[Option<i64>], found: &mut Vec<Discrepancy>) {
    // Positions outside first..last are reported already.
    let slot = |seq: i64| {
        (seq <= last)
            .then(|| usize::try_from(seq - first).ok())
            .flatten()
    };
    let mut reported = vec![false; seqs.len()];
    for (index, seq) in seqs.iter().enumerate() {
        let Some(seq) = *seq else { continue };
        let Some(home) = slot(seq).filter(|home| *home != index) else {
            continue;
        };
        if reported[index] {
            continue;
        }
        let back = seqs.get(home).copied().flatten().and_then(slot);
        if back == Some(index) {
            found.push(Discrepancy::new(format!(
                "{ENTRIES}: lines {} and {} are swapped (seq {seq} and seq {})",
                index.min(home) + 1,
                index.max(home) + 1,
                first + index as i64
            )));
            reported[home] = true;
        } else {
            found.push(Discrepancy::new(format!(
                "{ENTRIES} line {}: seq {seq}, where seq {} belongs",
                index + 1,
                first + index as i64
            )));
        }
        reported[index] = true;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn texts(first: i64, last: i64, seqs: &[i64]) -> Vec<String> {
        let seqs: Vec<Option<i64>> = seqs.iter().copied().map(Some).collect();
        check(first, last, &seqs).into_iter().map(|d| d.0).collect()
    }

    #[test]
    fn consecutive_positions_are_sound() {
        assert!(texts(5, 8, &[5, 6, 7, 8]).is_empty());
    }

    #[test]
    fn a_missing_line_is_named() {
        assert_eq!(texts(5, 8, &[5, 6, 8]), ["entries.jsonl: seq 7 is missing"]);
        assert_eq!(texts(5, 8, &[5]), ["entries.jsonl: seq 6 to 8 are missing"]);
    }

    #[test]
    fn swapped_lines_are_named_as_a_pair() {
        assert_eq!(
            texts(5, 8, &[5, 7, 6, 8]),
            ["entries.jsonl: lines 2 and 3 are swapped (seq 7 and seq 6)"]
        );
    }

    #[test]
    fn a_duplicated_line_is_named() {
        assert_eq!(
            texts(5, 7, &[5, 6, 6, 7]),
            ["entries.jsonl: seq 6 appears more than once, on lines 2, 3"]
        );
    }

    #[test]
    fn foreign_positions_and_rotations_are_named() {
        assert_eq!(
            texts(5, 6, &[5, 6, 9]),
            ["entries.jsonl line 3: seq 9 is outside the segment's 5..6"]
        );
        assert_eq!(
            texts(1, 3, &[2, 3, 1]),
            [
                "entries.jsonl line 1: seq 2, where seq 1 belongs",
                "entries.jsonl line 2: seq 3, where seq 2 belongs",
                "entries.jsonl line 3: seq 1, where seq 3 belongs",
            ]
        );
    }

    #[test]
    fn a_vast_forged_range_is_one_message() {
        assert_eq!(
            texts(1, i64::MAX - 1, &[1]),
            [format!(
                "entries.jsonl: seq 2 to {} are missing",
                i64::MAX - 1
            )]
        );
    }
}
