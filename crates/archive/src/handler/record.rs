//! The archive's rows for one message, written in the consumer's transaction: the
//! `archive_record` (which still points to the payload, so `audit fetch` is unchanged)
//! and one `archive_object` per stored object, in one statement.

use crate::evidence::{EvidenceSet, InvoiceNumbers, kinds};
use edihub_journal::MessageEvidence;
use sqlx::PgConnection;

pub(super) async fn insert(
    conn: &mut PgConnection,
    bucket: &str,
    evidence: &MessageEvidence,
    invoices: &InvoiceNumbers,
    set: &EvidenceSet,
    versions: &[Option<String>],
) -> Result<(), sqlx::Error> {
    let until = set.retain_until();
    let payload_version = set
        .objects
        .iter()
        .zip(versions)
        .find(|(object, _)| object.kind == kinds::PAYLOAD)
        .and_then(|(_, version)| version.clone());
    let payload = set.object(kinds::PAYLOAD);
    let payload_key = payload.map(|o| o.key.as_str());
    let payload_sha256 = payload.map_or(evidence.payload_sha256.as_str(), |o| o.sha256.as_str());
    let objects = &set.objects;
    let kinds: Vec<&str> = objects.iter().map(|o| o.kind).collect();
    let keys: Vec<&str> = objects.iter().map(|o| o.key.as_str()).collect();
    let sha256s: Vec<&str> = objects.iter().map(|o| o.sha256.as_str()).collect();
    let sizes: Vec<i64> = objects.iter().map(|o| o.size() as i64).collect();
    sqlx::query(
        "WITH record AS (
             INSERT INTO archive_record (message_id, bucket, object_key, version_id, sha256,
                                         size, retention_mode, retain_until, as2_from,
                                         as2_message_id, unb_reference, received_at,
                                         invoice_numbers, ledger_seq)
             VALUES ($1, $2, $3, $4, $5, $6, 'COMPLIANCE', $7, $8, $9, $10, $11, $12, $13))
         INSERT INTO archive_object (message_id, kind, object_key, version_id, sha256, size,
                                     retain_until)
         SELECT $1, kind, object_key, version_id, sha256, size, $7
         FROM unnest($14::text[], $15::text[], $16::text[], $17::text[], $18::bigint[])
              AS o(kind, object_key, version_id, sha256, size)",
    )
    .bind(evidence.id)
    .bind(bucket)
    .bind(payload_key)
    .bind(payload_version)
    .bind(payload_sha256)
    .bind(evidence.payload.len() as i64)
    .bind(until)
    .bind(&evidence.as2_from)
    .bind(&evidence.as2_message_id)
    .bind(&evidence.unb_reference)
    .bind(evidence.received_at)
    .bind(&invoices.numbers)
    .bind(set.position().seq)
    .bind(&kinds)
    .bind(&keys)
    .bind(versions)
    .bind(&sha256s)
    .bind(&sizes)
    .execute(&mut *conn)
    .await?;
    Ok(())
}
