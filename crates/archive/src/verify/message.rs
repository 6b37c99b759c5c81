//! Every check on one message (`edihub audit show`).

use super::VerifyError;
use super::consistency::{evidence_against_rows, record_against_payload};
use super::entry::{LedgerInputs, ledger_checks};
use super::mdn::check_mdn;
use super::objects::{FetchedObject, fetch_and_check};
use super::report::{Check, MessageCheck};
use super::signature::check_signature;
use super::sources;
use crate::evidence::EvidenceDocument;
use crate::{ArchiveStore, find_record};
use edihub_as2::Certificate;
use sqlx::PgPool;
use uuid::Uuid;

/// What the checks trust besides S3 and the signed segments.
#[derive(Debug, Clone, Default)]
pub struct CheckContext {
    /// The hub's own certificates, to verify the MDNs it signed.
    pub hub_certificates: Vec<Certificate>,
}

/// An entry's bytes as a verified segment holds them.
pub(super) struct SealedEntry<'a> {
    pub first_seq: i64,
    pub last_seq: i64,
    pub canonical: &'a [u8],
}

/// Checks one message: every object fetched by its recorded version and hashed,
/// evidence.json against the rows, the partner's signature re-verified, the MDN's MIC
/// recomputed, the ledger entry against the rows, its segment, and the retention S3 holds.
pub async fn check_message(
    pool: &PgPool,
    store: &ArchiveStore,
    context: &CheckContext,
    message_id: Uuid,
) -> Result<MessageCheck, VerifyError> {
    check_against(pool, store, context, message_id, None).await
}

/// [`check_message`], comparing the database entry with `sealed` when the caller has
/// verified its segment already; else the entry's segment (if any) is fetched here.
pub(super) async fn check_against(
    pool: &PgPool,
    store: &ArchiveStore,
    context: &CheckContext,
    message_id: Uuid,
    sealed: Option<SealedEntry<'_>>,
) -> Result<MessageCheck, VerifyError> {
    let rows = sources::objects_of(pool, message_id).await?;
    let record = find_record(pool, message_id).await?;
    let mut checks = Vec::new();
    if rows.is_empty() {
        checks.push(Check::failed("archive_object", "no archive_object rows"));
    }
    checks.push(record_against_payload(record.as_ref(), &rows));
    let mut fetched = Vec::new();
    for row in &rows {
        let object = fetch_and_check(store, row).await;
        checks.extend(object.checks.iter().cloned());
        fetched.push(object);
    }
    let evidence = read_evidence(&fetched, &mut checks);
    let hint = evidence.as_ref().map(|d| d.ledger.seq);
    let entry = sources::entry_of(pool, message_id, hint).await?;
    if rows.is_empty() && entry.is_none() && record.is_none() {
        return Err(VerifyError::Unknown(message_id));
    }
    if let Some(document) = &evidence {
        checks.push(evidence_against_rows(message_id, document, &rows));
    }
    let signer = evidence
        .as_ref()
        .map(|document| evidence_checks(document, &fetched, context, &mut checks))
        .unwrap_or_default();
    let ledger = ledger_checks(
        pool,
        store,
        LedgerInputs {
            message_id,
            entry: entry.as_ref(),
            evidence: evidence.as_ref(),
            rows: &rows,
            sealed,
        },
        &mut checks,
    )
    .await?;
    Ok(MessageCheck {
        message_id,
        evidence,
        objects: fetched.into_iter().map(|f| f.check).collect(),
        ledger,
        signer,
        checks,
    })
}

fn bytes_of<'a>(fetched: &'a [FetchedObject], kind: &str) -> Option<&'a [u8]> {
    fetched
        .iter()
        .find(|f| f.check.kind == kind)
        .and_then(|f| f.bytes.as_deref())
}

fn read_evidence(fetched: &[FetchedObject], checks: &mut Vec<Check>) -> Option<EvidenceDocument> {
    const NAME: &str = "evidence.json";
    let Some(bytes) = bytes_of(fetched, "evidence") else {
        checks.push(Check::failed(NAME, "no evidence object can be read"));
        return None;
    };
    match serde_json::from_slice(bytes) {
        Ok(document) => {
            checks.push(Check::ok(NAME));
            Some(document)
        }
        Err(error) => {
            checks.push(Check::failed(NAME, format!("does not parse: {error}")));
            None
        }
    }
}

/// The signature and MDN checks; returns the signer when the signature re-verified.
fn evidence_checks(
    document: &EvidenceDocument,
    fetched: &[FetchedObject],
    context: &CheckContext,
    checks: &mut Vec<Check>,
) -> Option<String> {
    let signature = check_signature(
        document.signature.as_ref(),
        bytes_of(fetched, "signed-entity"),
    );
    checks.push(signature.check);
    checks.push(check_mdn(
        document,
        bytes_of(fetched, "mdn"),
        signature.content.as_deref(),
        bytes_of(fetched, "payload"),
        &context.hub_certificates,
    ));
    signature.signer
}
