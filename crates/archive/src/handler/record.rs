//! The archive's rows for a batch's messages, written in the consumer's transaction:
//! each message's `archive_record` (which still points to the payload, so `audit fetch`
//! is unchanged) and one `archive_object` per stored object, in one statement.

use super::Chained;
use crate::evidence::kinds;
use sqlx::PgConnection;
use sqlx::types::Json;

/// One message's record row, as the statement's arrays take it.
struct Record<'a> {
    object_key: Option<&'a str>,
    version_id: Option<String>,
    sha256: &'a str,
}

impl<'a> Record<'a> {
    /// Where the payload was stored: the payload object's key, version and digest (the
    /// journal's digest when the set holds no payload object).
    fn of(chained: &'a Chained, versions: &[Option<String>]) -> Self {
        let (set, evidence) = (&chained.set, &chained.evidence);
        let payload = (set.objects.iter().zip(versions)).find(|(o, _)| o.kind == kinds::PAYLOAD);
        Self {
            object_key: payload.map(|(o, _)| o.key.as_str()),
            version_id: payload.and_then(|(_, version)| version.clone()),
            sha256: payload.map_or(evidence.payload_sha256.as_str(), |(o, _)| &o.sha256),
        }
    }
}

/// Inserts the records and objects of `archived`, each with the version ids its
/// objects were stored under (in the set's order).
pub(super) async fn insert_all(
    conn: &mut PgConnection,
    bucket: &str,
    archived: &[&Chained],
    versions: &[Vec<Option<String>>],
) -> Result<(), sqlx::Error> {
    let records: Vec<Record> = (archived.iter().zip(versions))
        .map(|(chained, versions)| Record::of(chained, versions))
        .collect();
    let evidence = || archived.iter().map(|c| &c.evidence);
    let objects = || archived.iter().flat_map(|c| &c.set.objects);
    // Each object's message and retention, beside `objects()`.
    let (mut owners, mut until) = (Vec::new(), Vec::new());
    for chained in archived {
        for _ in &chained.set.objects {
            owners.push(chained.evidence.id);
            until.push(chained.set.retain_until());
        }
    }
    sqlx::query(
        "WITH record AS (
             INSERT INTO archive_record (message_id, bucket, object_key, version_id, sha256,
                                         size, retention_mode, retain_until, as2_from,
                                         as2_message_id, unb_reference, received_at,
                                         invoice_numbers, ledger_seq)
             SELECT r.message_id, $1, r.object_key, r.version_id, r.sha256, r.size,
                    'COMPLIANCE', r.retain_until, r.as2_from, r.as2_message_id,
                    r.unb_reference, r.received_at,
                    ARRAY(SELECT n.number
                          FROM jsonb_array_elements_text(r.invoice_numbers)
                               WITH ORDINALITY AS n(number, position)
                          ORDER BY n.position),
                    r.ledger_seq
             FROM unnest($2::uuid[], $3::text[], $4::text[], $5::text[], $6::bigint[],
                         $7::timestamptz[], $8::text[], $9::text[], $10::text[],
                         $11::timestamptz[], $12::jsonb[], $13::bigint[])
                  AS r(message_id, object_key, version_id, sha256, size, retain_until,
                       as2_from, as2_message_id, unb_reference, received_at,
                       invoice_numbers, ledger_seq))
         INSERT INTO archive_object (message_id, kind, object_key, version_id, sha256, size,
                                     retain_until)
         SELECT * FROM unnest($14::uuid[], $15::text[], $16::text[], $17::text[],
                              $18::text[], $19::bigint[], $20::timestamptz[])",
    )
    .bind(bucket)
    .bind(evidence().map(|e| e.id).collect::<Vec<_>>())
    .bind(records.iter().map(|r| r.object_key).collect::<Vec<_>>())
    .bind(
        records
            .iter()
            .map(|r| r.version_id.as_deref())
            .collect::<Vec<_>>(),
    )
    .bind(records.iter().map(|r| r.sha256).collect::<Vec<_>>())
    .bind(
        evidence()
            .map(|e| e.payload.len() as i64)
            .collect::<Vec<_>>(),
    )
    .bind(
        archived
            .iter()
            .map(|c| c.set.retain_until())
            .collect::<Vec<_>>(),
    )
    .bind(evidence().map(|e| e.as2_from.as_str()).collect::<Vec<_>>())
    .bind(
        evidence()
            .map(|e| e.as2_message_id.as_str())
            .collect::<Vec<_>>(),
    )
    .bind(
        evidence()
            .map(|e| e.unb_reference.as_deref())
            .collect::<Vec<_>>(),
    )
    .bind(evidence().map(|e| e.received_at).collect::<Vec<_>>())
    .bind(
        archived
            .iter()
            .map(|c| Json(&c.invoices.numbers))
            .collect::<Vec<_>>(),
    )
    .bind(
        archived
            .iter()
            .map(|c| c.set.position().seq)
            .collect::<Vec<_>>(),
    )
    .bind(owners)
    .bind(objects().map(|o| o.kind).collect::<Vec<_>>())
    .bind(objects().map(|o| o.key.as_str()).collect::<Vec<_>>())
    .bind(
        versions
            .iter()
            .flatten()
            .map(Option::as_deref)
            .collect::<Vec<_>>(),
    )
    .bind(objects().map(|o| o.sha256.as_str()).collect::<Vec<_>>())
    .bind(objects().map(|o| o.size() as i64).collect::<Vec<_>>())
    .bind(until)
    .execute(&mut *conn)
    .await?;
    Ok(())
}
