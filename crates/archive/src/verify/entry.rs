//! A message's ledger entry checked: against its archived objects, evidence.json's
//! position, and the bytes its segment signed.

use super::VerifyError;
use super::consistency::{entry_against_rows, read_canonical};
use super::message::SealedEntry;
use super::report::{Check, LedgerPlace};
use super::segments::{Sealed, sealed_line};
use super::sources::ObjectRow;
use crate::ArchiveStore;
use crate::evidence::EvidenceDocument;
use edihub_ledger::{ParsedEntry, StoredEntry as EntryRow};
use sqlx::PgPool;
use uuid::Uuid;

pub(super) struct LedgerInputs<'a> {
    pub message_id: Uuid,
    pub entry: Option<&'a EntryRow>,
    pub evidence: Option<&'a EvidenceDocument>,
    pub rows: &'a [ObjectRow],
    pub sealed: Option<SealedEntry<'a>>,
}

/// The entry against the rows and evidence.json, and against its sealed bytes.
pub(super) async fn ledger_checks(
    pool: &PgPool,
    store: &ArchiveStore,
    inputs: LedgerInputs<'_>,
    checks: &mut Vec<Check>,
) -> Result<Option<LedgerPlace>, VerifyError> {
    let Some(entry) = inputs.entry else {
        checks.push(Check::failed(
            "ledger entry",
            "the message has no ledger entry",
        ));
        return Ok(None);
    };
    match read_canonical(&entry.canonical) {
        Ok(canonical) => {
            checks.push(entry_against_rows(
                "ledger entry against archive_object",
                "the database's ledger entry",
                &canonical,
                inputs.message_id,
                inputs.rows,
            ));
            if let Some(document) = inputs.evidence {
                checks.push(position_check(&canonical, document));
            }
        }
        Err(reason) => checks.push(Check::failed(
            "ledger entry",
            format!("seq {}: {reason}", entry.seq),
        )),
    }
    if entry.stored_at.is_none() {
        checks.push(Check::note(
            "ledger entry",
            format!("seq {} is not marked stored", entry.seq),
        ));
    }
    let sealed = match inputs.sealed {
        Some(sealed) => Sealed::Line(sealed.first_seq, sealed.last_seq, sealed.canonical.to_vec()),
        None => sealed_line(pool, store, entry.seq, checks).await?,
    };
    let segment = match &sealed {
        Sealed::No => None,
        Sealed::Line(first, last, _) | Sealed::Unreadable(first, last) => Some((*first, *last)),
    };
    let place = LedgerPlace {
        seq: entry.seq,
        chained_at: read_canonical(&entry.canonical)
            .ok()
            .map(|c| c.position.chained_at),
        segment,
    };
    match sealed {
        Sealed::No => checks.push(Check::note(
            "sealed",
            format!("seq {} not sealed yet", entry.seq),
        )),
        Sealed::Unreadable(..) => {}
        Sealed::Line(first, last, bytes) => {
            checks.push(sealed_check(
                entry,
                first,
                last,
                &bytes,
                inputs.message_id,
                inputs.rows,
            ));
        }
    }
    Ok(Some(place))
}

/// evidence.json records the position its entry has.
fn position_check(entry: &ParsedEntry, document: &EvidenceDocument) -> Check {
    let position = entry.position;
    let mut problems = Vec::new();
    if document.ledger.seq != position.seq {
        problems.push(format!(
            "evidence.json says seq {}, the ledger entry is seq {}",
            document.ledger.seq, position.seq
        ));
    }
    if document.ledger.chained_at != position.chained_at {
        problems.push(format!(
            "evidence.json says chained_at {}, the ledger entry {}",
            document.ledger.chained_at.to_rfc3339(),
            position.chained_at.to_rfc3339()
        ));
    }
    Check::from_problems("ledger position", problems)
}

/// The database entry must be, byte for byte, what the segment signed; and the signed
/// entry must name exactly the archived objects.
fn sealed_check(
    entry: &EntryRow,
    first: i64,
    last: i64,
    sealed: &[u8],
    message_id: Uuid,
    rows: &[ObjectRow],
) -> Check {
    let name = format!("sealed in segment {first}-{last}");
    if sealed != entry.canonical.as_slice() {
        return Check::failed(
            name,
            format!(
                "seq {}: the database's canonical bytes differ from the segment's: {} vs {}",
                entry.seq,
                String::from_utf8_lossy(&entry.canonical),
                String::from_utf8_lossy(sealed)
            ),
        );
    }
    match read_canonical(sealed) {
        Ok(canonical) => {
            entry_against_rows(&name, "the sealed entry", &canonical, message_id, rows)
        }
        Err(reason) => Check::failed(name, reason),
    }
}
