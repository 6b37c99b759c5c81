//! `index.json` and `index.csv`: what the bundle holds, message by message, and where
//! its ledger run ends (what a truncated bundle is detected against).

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use uuid::Uuid;

/// The index's format; fields are only ever added.
pub const INDEX_VERSION: u32 = 1;

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct BundleIndex {
    pub version: u32,
    pub exported_at: DateTime<Utc>,
    /// The period exported: messages received in `[from, to)`.
    pub from: DateTime<Utc>,
    pub to: DateTime<Utc>,
    /// Only this partner's messages (AS2-From), when asked for.
    pub partner: Option<String>,
    pub messages: Vec<IndexMessage>,
    /// The segments exported, in order: the run from the one before the first that holds
    /// a message of the period to the last that does.
    pub segments: Vec<IndexSegment>,
    /// The ledger's last sealed segment when the bundle was made (beyond the period's):
    /// the signed head an auditor can compare with the hub's later ones.
    pub ledger_head: Option<IndexSegment>,
    pub certificates: IndexCertificates,
}

impl BundleIndex {
    /// The last segment exported: a bundle whose segments end before it was truncated.
    pub fn last_segment(&self) -> Option<&IndexSegment> {
        self.segments.last()
    }

    /// What the README says of the bundle.
    pub fn facts(&self) -> BundleFacts<'_> {
        BundleFacts {
            exported_at: self.exported_at,
            from: self.from,
            to: self.to,
            partner: self.partner.as_deref(),
            messages: self.messages.len() as u64,
            segments: self.segments.len() as u64,
            last_segment: self.last_segment(),
            ledger_head: self.ledger_head.as_ref(),
        }
    }
}

/// The index's facts without its messages: what the README is written from.
#[derive(Debug, Clone, Copy)]
pub struct BundleFacts<'a> {
    pub exported_at: DateTime<Utc>,
    pub from: DateTime<Utc>,
    pub to: DateTime<Utc>,
    pub partner: Option<&'a str>,
    pub messages: u64,
    pub segments: u64,
    pub last_segment: Option<&'a IndexSegment>,
    pub ledger_head: Option<&'a IndexSegment>,
}

/// One message: what an auditor searches by, and its objects.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct IndexMessage {
    pub message_id: Uuid,
    pub as2_message_id: String,
    pub partner: String,
    pub received_at: DateTime<Utc>,
    pub unb_reference: Option<String>,
    pub invoice_numbers: Vec<String>,
    /// Its position in the ledger.
    pub seq: i64,
    /// Whether a segment of the bundle seals its entry (else it was not sealed yet).
    pub sealed: bool,
    pub objects: Vec<IndexObject>,
}

/// One file of the bundle: its path (the S3 key) and the SHA-256 and size it had when
/// exported.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct IndexObject {
    pub kind: String,
    pub key: String,
    pub sha256: String,
    pub size: u64,
}

/// One segment: its positions and its signed head (hex).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct IndexSegment {
    pub first_seq: i64,
    pub last_seq: i64,
    pub head: String,
    /// `ledger/segments/<first>-<last>/`.
    pub prefix: String,
}

/// The certificates' paths in the bundle.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct IndexCertificates {
    /// The hub's sealing certificate, as the exporting hub's settings name it.
    pub sealing: String,
    /// The hub's AS2 certificates (signed MDNs are verified with them).
    pub hub: Vec<String>,
    /// Each partner certificate whose signature the evidence records.
    pub partners: Vec<String>,
}

/// The CSV's columns; one row per object, the message's columns repeated.
pub(super) const CSV_HEADER: &str = "message_id,as2_message_id,partner,received_at,unb_reference,\
                          invoice_numbers,seq,kind,key,sha256,size\n";

/// `index.csv`: the index flattened for a spreadsheet.
pub fn index_csv(index: &BundleIndex) -> String {
    let mut csv = String::from(CSV_HEADER);
    for message in &index.messages {
        csv.push_str(&csv_rows(message));
    }
    csv
}

/// A message's rows of `index.csv`, one per object.
pub(super) fn csv_rows(message: &IndexMessage) -> String {
    let mut rows = String::new();
    for object in &message.objects {
        let fields = [
            message.message_id.to_string(),
            message.as2_message_id.clone(),
            message.partner.clone(),
            message.received_at.to_rfc3339(),
            message.unb_reference.clone().unwrap_or_default(),
            message.invoice_numbers.join(";"),
            message.seq.to_string(),
            object.kind.clone(),
            object.key.clone(),
            object.sha256.clone(),
            object.size.to_string(),
        ];
        let quoted: Vec<String> = fields.iter().map(|f| quote(f)).collect();
        rows.push_str(&quoted.join(","));
        rows.push('\n');
    }
    rows
}

/// RFC 4180 quoting, only where a field needs it.
fn quote(field: &str) -> String {
    if field.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", field.replace('"', "\"\""))
    } else {
        field.to_owned()
    }
}
