//! Sealed segments fetched back from S3 by the keys and versions their rows record.

use super::VerifyError;
use super::report::Check;
use super::sources;
use crate::ArchiveStore;
use edihub_journal::sha256_hex;
use edihub_ledger::{SegmentRow, StoredObject};
use sqlx::PgPool;

/// A segment's files as S3 returned them.
pub(super) struct FetchedSegment {
    pub entries: Vec<u8>,
    pub manifest: Vec<u8>,
    pub signature: Vec<u8>,
    pub timestamp: Option<Vec<u8>>,
}

impl FetchedSegment {
    pub fn files(&self) -> edihub_ledger::verify::SegmentFiles<'_> {
        edihub_ledger::verify::SegmentFiles {
            entries: &self.entries,
            manifest: &self.manifest,
            signature: &self.signature,
            timestamp: self.timestamp.as_deref(),
        }
    }
}

pub(super) fn label(row: &SegmentRow) -> String {
    format!("segment {}-{}", row.first_seq, row.last_seq)
}

/// Fetches the segment's files; each must hash to what the row recorded.
pub(super) async fn fetch(
    store: &ArchiveStore,
    row: &SegmentRow,
) -> Result<FetchedSegment, Vec<String>> {
    let objects = &row.objects;
    let mut problems = Vec::new();
    let entries = fetch_one(store, row, "entries", &objects.entries, &mut problems).await;
    let manifest = fetch_one(store, row, "manifest", &objects.manifest, &mut problems).await;
    let signature = fetch_one(store, row, "signature", &objects.signature, &mut problems).await;
    let timestamp = match &objects.timestamp {
        Some(object) => fetch_one(store, row, "timestamp", object, &mut problems).await,
        None => None,
    };
    match (entries, manifest, signature) {
        (Some(entries), Some(manifest), Some(signature)) if problems.is_empty() => {
            Ok(FetchedSegment {
                entries,
                manifest,
                signature,
                timestamp,
            })
        }
        _ => Err(problems),
    }
}

async fn fetch_one(
    store: &ArchiveStore,
    row: &SegmentRow,
    what: &str,
    object: &StoredObject,
    problems: &mut Vec<String>,
) -> Option<Vec<u8>> {
    let version = object.version_id.as_deref();
    match store.get(&object.key, version).await {
        Ok(bytes) => {
            let actual = sha256_hex(&bytes);
            if actual != object.sha256 {
                problems.push(format!(
                    "{}: {what} {} (version {}) hashes to {actual}, the row records {}",
                    label(row),
                    object.key,
                    version.unwrap_or("-"),
                    object.sha256
                ));
            }
            Some(bytes)
        }
        Err(error) => {
            problems.push(format!(
                "{}: {what} {} (version {}) cannot be fetched: {error}",
                label(row),
                object.key,
                version.unwrap_or("-")
            ));
            None
        }
    }
}

/// The lines of entries.jsonl, each with the position it claims (`None`: unreadable).
pub(crate) fn lines(entries: &[u8]) -> Vec<(Option<i64>, &[u8])> {
    #[derive(serde::Deserialize)]
    struct Seq {
        seq: i64,
    }
    entries
        .split(|b| *b == b'\n')
        .filter(|line| !line.is_empty())
        .map(|line| {
            let seq = serde_json::from_slice::<Seq>(line).ok().map(|s| s.seq);
            (seq, line)
        })
        .collect()
}

/// Whether and how an entry is sealed, as its segment row and entries.jsonl say.
pub(super) enum Sealed {
    No,
    /// `(first_seq, last_seq, the entry's line)`.
    Line(i64, i64, Vec<u8>),
    /// A segment row covers it but its line could not be read (a failed check says why).
    Unreadable(i64, i64),
}

/// The sealed bytes of `seq`'s entry, from the segment row that covers it (fetched, not
/// signature-checked: `audit verify` does that). Failures to fetch become checks.
pub(super) async fn sealed_line(
    pool: &PgPool,
    store: &ArchiveStore,
    seq: i64,
    checks: &mut Vec<Check>,
) -> Result<Sealed, VerifyError> {
    let Some(row) = sources::segment_of(pool, seq).await? else {
        return Ok(Sealed::No);
    };
    let name = format!("sealed in {}", label(&row));
    let segment = match fetch(store, &row).await {
        Ok(segment) => segment,
        Err(problems) => {
            checks.push(Check::failed(name, problems.join("; ")));
            return Ok(Sealed::Unreadable(row.first_seq, row.last_seq));
        }
    };
    let found = lines(&segment.entries)
        .into_iter()
        .find(|(line_seq, _)| *line_seq == Some(seq))
        .map(|(_, line)| line.to_vec());
    match found {
        Some(line) => Ok(Sealed::Line(row.first_seq, row.last_seq, line)),
        None => {
            checks.push(Check::failed(
                name,
                format!("entries.jsonl has no line for seq {seq}"),
            ));
            Ok(Sealed::Unreadable(row.first_seq, row.last_seq))
        }
    }
}
