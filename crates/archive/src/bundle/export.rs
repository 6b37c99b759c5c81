//! A period's evidence exported from the archive into a bundle: the database says which
//! objects and segments (by key and version id), S3 gives their bytes, one object at a
//! time, streamed into the tar (`super::copy`), and the index is spooled to temporary
//! files (`super::spool`).

use super::copy::{Recorded, copy_buffered, copy_streamed};
use super::index::{
    BundleFacts, INDEX_VERSION, IndexCertificates, IndexMessage, IndexObject, IndexSegment,
};
use super::readme::readme;
use super::spool::{IndexHead, IndexSpool, IndexTail, SpooledIndex};
use super::write::BundleWriter;
use super::{BundleError, paths};
use crate::ArchiveStore;
use crate::evidence::{EvidenceDocument, certificate_pem};
use crate::verify::chain::relevant;
use crate::verify::sources::{ObjectRow, objects_of};
use chrono::{DateTime, Utc};
use edihub_as2::{As2Error, Identity};
use edihub_journal::sha256_hex;
use edihub_ledger::{SegmentRow, StoredObject};
use serde::Serialize;
use sqlx::PgPool;
use std::collections::BTreeMap;
use std::io::Write;
use std::ops::Range;
use uuid::Uuid;

/// What to export, and the certificates that go with it.
#[derive(Debug, Clone)]
pub struct ExportRequest<'a> {
    pub period: Range<DateTime<Utc>>,
    pub partner: Option<&'a str>,
    /// The ledger's sealing identity: its certificate goes into the bundle and its key
    /// signs index.json.
    pub sealing: &'a Identity,
    /// The hub's AS2 certificates, DER.
    pub hub_certificates: &'a [Vec<u8>],
    pub exported_at: DateTime<Utc>,
}

#[derive(Debug, Clone, Default, Serialize)]
pub struct ExportSummary {
    pub messages: u64,
    /// Files written (objects, segment files, certificates, index, README).
    pub files: u64,
    /// The messages' objects.
    pub objects: u64,
    /// Bytes of content written.
    pub bytes: u64,
    pub segments: u64,
    /// The last segment exported: what a truncated copy is detected against.
    pub last_segment: Option<IndexSegment>,
    /// What could not be exported as recorded (the bundle says so too: its verification
    /// will fail on it).
    pub problems: Vec<String>,
    /// The messages exported (for the access log).
    #[serde(skip)]
    pub message_ids: Vec<Uuid>,
}

/// Writes the bundle of `request` to `out`; `progress(done, total)` per message.
///
/// Memory stays bounded: messages are read a page at a time, each object is streamed,
/// and the index goes to temporary files (`super::spool`) that are copied in at the end.
/// The ledger's segments are read first: one sealed while the export runs is not in the
/// bundle, and the messages it seals are exported as not sealed yet.
pub async fn export_bundle<W: Write>(
    pool: &PgPool,
    store: &ArchiveStore,
    request: &ExportRequest<'_>,
    out: W,
    progress: &dyn Fn(u64, u64),
) -> Result<(ExportSummary, W), BundleError> {
    let mut writer = BundleWriter::new(out, request.exported_at.timestamp());
    let mut summary = ExportSummary::default();
    let all_segments = edihub_ledger::segments(pool, 0).await?;
    let total = count_records(pool, request).await?;
    progress(0, total);
    let head = IndexHead {
        version: INDEX_VERSION,
        exported_at: request.exported_at,
        from: request.period.start,
        to: request.period.end,
        partner: request.partner,
    };
    let mut spool = IndexSpool::new(&head, request.sealing, request.exported_at.timestamp())?;
    let mut partners = BTreeMap::new();
    let mut sealed_seqs = SealedRange::default();
    // Before the first record: no message id is the nil UUID.
    let mut after = (request.period.start, Uuid::nil());
    loop {
        let page = records_after(pool, request, after).await?;
        let Some(last) = page.last() else { break };
        after = (last.received_at, last.message_id);
        for record in &page {
            let mut message = export_message(
                pool,
                store,
                record,
                &mut writer,
                &mut partners,
                &mut summary,
            )
            .await?;
            message.sealed = sealed_by(&all_segments, message.seq);
            if message.sealed {
                sealed_seqs.add(message.seq);
            }
            summary.message_ids.push(message.message_id);
            spool.push(&message)?;
            progress(spool.messages(), total);
        }
    }
    let run = relevant(&all_segments, &sealed_seqs.ends());
    let mut segments = Vec::new();
    for row in run {
        segments.push(export_segment(store, row, &mut writer, &mut summary).await?);
    }
    let certificates = export_certificates(request, &partners, &mut writer)?;
    let ledger_head = all_segments.last().map(index_segment);
    summary.messages = spool.messages();
    let tail = IndexTail {
        segments: &segments,
        ledger_head: ledger_head.as_ref(),
        certificates: &certificates,
    };
    let spooled = spool.finish(&tail)?;
    let facts = BundleFacts {
        exported_at: head.exported_at,
        from: head.from,
        to: head.to,
        partner: head.partner,
        messages: summary.messages,
        segments: segments.len() as u64,
        last_segment: segments.last(),
        ledger_head: ledger_head.as_ref(),
    };
    write_index(spooled, &facts, &mut writer)?;
    summary.segments = segments.len() as u64;
    summary.last_segment = segments.last().cloned();
    (summary.files, summary.bytes) = writer.written();
    Ok((summary, writer.finish()?))
}

/// Whether a segment of `segments` (in order, as the ledger lists them) holds `seq`.
fn sealed_by(segments: &[SegmentRow], seq: i64) -> bool {
    let at = segments.partition_point(|s| s.last_seq < seq);
    segments.get(at).is_some_and(|s| s.first_seq <= seq)
}

/// The lowest and highest sealed positions exported: the segments' run goes from the
/// one before the first to the last (`relevant`).
#[derive(Debug, Default)]
struct SealedRange(Option<(i64, i64)>);

impl SealedRange {
    fn add(&mut self, seq: i64) {
        self.0 = Some(match self.0 {
            Some((low, high)) => (low.min(seq), high.max(seq)),
            None => (seq, seq),
        });
    }

    fn ends(&self) -> Vec<i64> {
        self.0
            .map(|(low, high)| vec![low, high])
            .unwrap_or_default()
    }
}

/// What the archive recorded of a message received in the period.
#[derive(sqlx::FromRow)]
struct Record {
    message_id: Uuid,
    as2_from: Option<String>,
    as2_message_id: Option<String>,
    received_at: DateTime<Utc>,
    unb_reference: Option<String>,
    invoice_numbers: Vec<String>,
}

/// Messages read per query: enough to make the round trip cheap, few enough to hold.
const PAGE: i64 = 500;

async fn count_records(pool: &PgPool, request: &ExportRequest<'_>) -> Result<u64, BundleError> {
    let count: i64 = sqlx::query_scalar(
        "SELECT count(*) FROM archive_record
         WHERE received_at >= $1 AND received_at < $2 AND ($3::text IS NULL OR as2_from = $3)",
    )
    .bind(request.period.start)
    .bind(request.period.end)
    .bind(request.partner)
    .fetch_one(pool)
    .await?;
    Ok(u64::try_from(count).unwrap_or_default())
}

/// The next page of the period's messages, in (received_at, message_id) order, after
/// `after` (keyset pagination: no transaction or cursor held through the export).
async fn records_after(
    pool: &PgPool,
    request: &ExportRequest<'_>,
    after: (DateTime<Utc>, Uuid),
) -> Result<Vec<Record>, BundleError> {
    Ok(sqlx::query_as(
        "SELECT message_id, as2_from, as2_message_id, received_at, unb_reference, invoice_numbers
         FROM archive_record
         WHERE received_at >= $1 AND received_at < $2 AND ($3::text IS NULL OR as2_from = $3)
           AND (received_at, message_id) > ($4, $5)
         ORDER BY received_at, message_id
         LIMIT $6",
    )
    .bind(request.period.start)
    .bind(request.period.end)
    .bind(request.partner)
    .bind(after.0)
    .bind(after.1)
    .bind(PAGE)
    .fetch_all(pool)
    .await?)
}

/// Writes one message's objects; returns its index entry (`sealed` set by the caller).
async fn export_message<W: Write>(
    pool: &PgPool,
    store: &ArchiveStore,
    record: &Record,
    writer: &mut BundleWriter<W>,
    partners: &mut BTreeMap<String, String>,
    summary: &mut ExportSummary,
) -> Result<IndexMessage, BundleError> {
    let id = record.message_id;
    let mut objects = Vec::new();
    let mut evidence = None;
    for row in objects_of(pool, id).await? {
        let name = format!("message {id}: object {}", row.object_key);
        let object = Recorded {
            name: &name,
            key: &row.object_key,
            version_id: row.version_id.as_deref(),
            sha256: &row.sha256,
            size: u64::try_from(row.size).unwrap_or_default(),
        };
        let problems = &mut summary.problems;
        let written = if row.kind == "evidence" {
            // evidence.json is small and read for the index: held whole.
            let copied = copy_buffered(store, &object, writer, problems).await?;
            if let Some((_, bytes)) = &copied {
                match serde_json::from_slice::<EvidenceDocument>(bytes) {
                    Ok(document) => evidence = Some(document),
                    Err(e) => problems.push(format!("{name}: does not read: {e}")),
                }
            }
            copied.map(|(written, _)| written)
        } else {
            copy_streamed(store, &object, writer, problems).await?
        };
        let Some(written) = written else {
            objects.push(recorded(&row));
            continue;
        };
        summary.objects += 1;
        objects.push(IndexObject {
            kind: row.kind,
            key: row.object_key,
            sha256: written.sha256,
            size: written.size,
        });
    }
    if let Some(signature) = evidence.as_ref().and_then(|d| d.signature.as_ref()) {
        partners.insert(
            signature.certificate_sha256.clone(),
            signature.certificate_pem.clone(),
        );
    }
    Ok(index_message(record, evidence.as_ref(), objects))
}

/// The index entry: evidence.json's facts, the archive record's when it does not read.
fn index_message(
    record: &Record,
    evidence: Option<&EvidenceDocument>,
    objects: Vec<IndexObject>,
) -> IndexMessage {
    IndexMessage {
        message_id: record.message_id,
        as2_message_id: evidence
            .map(|d| d.ids.as2_message_id.clone())
            .or_else(|| record.as2_message_id.clone())
            .unwrap_or_default(),
        partner: evidence
            .map(|d| d.partner.as2_name.clone())
            .or_else(|| record.as2_from.clone())
            .unwrap_or_default(),
        received_at: evidence
            .map(|d| d.received_at)
            .unwrap_or(record.received_at),
        unb_reference: evidence
            .map(|d| d.ids.unb_reference.clone())
            .unwrap_or_else(|| record.unb_reference.clone()),
        invoice_numbers: evidence
            .map(|d| d.ids.invoice_numbers.clone())
            .unwrap_or_else(|| record.invoice_numbers.clone()),
        // 0: no position known (evidence.json unreadable), which no segment holds.
        seq: evidence.map(|d| d.ledger.seq).unwrap_or(0),
        sealed: false,
        objects,
    }
}

fn recorded(row: &ObjectRow) -> IndexObject {
    IndexObject {
        kind: row.kind.clone(),
        key: row.object_key.clone(),
        sha256: row.sha256.clone(),
        size: u64::try_from(row.size).unwrap_or_default(),
    }
}

async fn export_segment<W: Write>(
    store: &ArchiveStore,
    row: &SegmentRow,
    writer: &mut BundleWriter<W>,
    summary: &mut ExportSummary,
) -> Result<IndexSegment, BundleError> {
    let objects = &row.objects;
    let files = [
        Some(&objects.entries),
        Some(&objects.manifest),
        Some(&objects.signature),
        objects.timestamp.as_ref(),
    ];
    for object in files.into_iter().flatten() {
        export_segment_file(store, row, object, writer, summary).await?;
    }
    Ok(index_segment(row))
}

async fn export_segment_file<W: Write>(
    store: &ArchiveStore,
    row: &SegmentRow,
    object: &StoredObject,
    writer: &mut BundleWriter<W>,
    summary: &mut ExportSummary,
) -> Result<(), BundleError> {
    let name = format!("segment {}-{}: {}", row.first_seq, row.last_seq, object.key);
    let recorded = Recorded {
        name: &name,
        key: &object.key,
        version_id: object.version_id.as_deref(),
        sha256: &object.sha256,
        size: object.size,
    };
    copy_streamed(store, &recorded, writer, &mut summary.problems).await?;
    Ok(())
}

fn index_segment(row: &SegmentRow) -> IndexSegment {
    IndexSegment {
        first_seq: row.first_seq,
        last_seq: row.last_seq,
        head: hex::encode(row.head),
        prefix: edihub_ledger::segment_prefix(row.first_seq, row.last_seq),
    }
}

/// The sealing certificate, the hub's and each partner's that signed, as PEM.
fn export_certificates<W: Write>(
    request: &ExportRequest<'_>,
    partners: &BTreeMap<String, String>,
    writer: &mut BundleWriter<W>,
) -> Result<IndexCertificates, BundleError> {
    let mut certificates = IndexCertificates {
        sealing: paths::SEALING_CERTIFICATE.to_owned(),
        ..IndexCertificates::default()
    };
    let sealing = request
        .sealing
        .certificate
        .to_der()
        .map_err(|e| BundleError::Seal(As2Error::Crypto(format!("certificate: {e}"))))?;
    writer.append(
        paths::SEALING_CERTIFICATE,
        certificate_pem(&sealing).as_bytes(),
    )?;
    for der in request.hub_certificates {
        let path = format!("{}{}.pem", paths::HUB_CERTIFICATES, sha256_hex(der));
        writer.append(&path, certificate_pem(der).as_bytes())?;
        certificates.hub.push(path);
    }
    for (fingerprint, pem) in partners {
        let path = format!("{}{fingerprint}.pem", paths::PARTNER_CERTIFICATES);
        writer.append(&path, pem.as_bytes())?;
        certificates.partners.push(path);
    }
    Ok(certificates)
}

/// index.json with its signature over exactly the bytes written, then index.csv and the
/// README.
fn write_index<W: Write>(
    spooled: SpooledIndex,
    facts: &BundleFacts<'_>,
    writer: &mut BundleWriter<W>,
) -> Result<(), BundleError> {
    writer.append_file(paths::INDEX_JSON, spooled.json)?;
    writer.append(paths::INDEX_SIGNATURE, &spooled.signature)?;
    writer.append_file(paths::INDEX_CSV, spooled.csv)?;
    writer.append(paths::README, readme(facts).as_bytes())?;
    Ok(())
}
