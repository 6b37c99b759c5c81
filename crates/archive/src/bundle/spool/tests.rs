//! The spooled index read back: what `BundleIndex` reads, one message per line, and a
//! signature over exactly the bytes spooled.

use super::{IndexHead, IndexSpool, IndexTail};
use crate::bundle::index::{
    BundleIndex, INDEX_VERSION, IndexCertificates, IndexMessage, IndexObject, IndexSegment,
    index_csv,
};
use chrono::{DateTime, TimeZone, Utc};
use edihub_as2::Identity;
use edihub_as2::crypto::verify_detached;
use std::io::Read;
use uuid::Uuid;

fn fixture(name: &str) -> Vec<u8> {
    let path = format!("{}/../../fixtures/as2/{name}", env!("CARGO_MANIFEST_DIR"));
    std::fs::read(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

fn message(n: u128) -> IndexMessage {
    IndexMessage {
        message_id: Uuid::from_u128(n),
        as2_message_id: format!("<{n},\"x\"@acme>"),
        partner: "ACME".into(),
        received_at: Utc.timestamp_opt(1_800_000_000 + n as i64, 0).unwrap(),
        unb_reference: n.is_multiple_of(2).then(|| n.to_string()),
        invoice_numbers: vec![format!("INV-{n}")],
        seq: n as i64,
        sealed: n < 3,
        objects: vec![IndexObject {
            kind: "payload".into(),
            key: format!("originals/2027/01/15/{n}.edi"),
            sha256: "ab".repeat(32),
            size: n as u64,
        }],
    }
}

/// The signing identity, and the instant every field of the index is set to.
fn hub_and_time() -> (Identity, DateTime<Utc>) {
    let hub = Identity::from_pem(&fixture("hub.crt"), &fixture("hub.key")).expect("key");
    (hub, Utc.timestamp_opt(1_800_000_000, 0).unwrap())
}

fn head(at: DateTime<Utc>, partner: Option<&str>) -> IndexHead<'_> {
    IndexHead {
        version: INDEX_VERSION,
        exported_at: at,
        from: at,
        to: at,
        partner,
    }
}

fn read_all(mut file: std::fs::File) -> Vec<u8> {
    let mut bytes = Vec::new();
    file.read_to_end(&mut bytes).expect("read");
    bytes
}

#[test]
fn the_spooled_index_reads_as_the_index_and_its_signature_covers_it() {
    let (hub, at) = hub_and_time();
    let head = head(at, Some("ACME"));
    let segment = IndexSegment {
        first_seq: 1,
        last_seq: 2,
        head: "cd".repeat(32),
        prefix: edihub_ledger::segment_prefix(1, 2),
    };
    let certificates = IndexCertificates {
        sealing: "certificates/sealing.pem".into(),
        ..IndexCertificates::default()
    };
    let messages: Vec<IndexMessage> = (1..=3).map(message).collect();
    let mut spool = IndexSpool::new(&head, &hub, 1_800_000_000).expect("spool");
    for m in &messages {
        spool.push(m).expect("push");
    }
    assert_eq!(spool.messages(), 3);
    let segments = [segment.clone()];
    let tail = IndexTail {
        segments: &segments,
        ledger_head: Some(&segment),
        certificates: &certificates,
    };
    let spooled = spool.finish(&tail).expect("finish");
    let json = read_all(spooled.json);

    let index: BundleIndex = serde_json::from_slice(&json).expect("index.json parses");
    let expected = BundleIndex {
        version: INDEX_VERSION,
        exported_at: at,
        from: at,
        to: at,
        partner: Some("ACME".into()),
        messages,
        segments: vec![segment.clone()],
        ledger_head: Some(segment),
        certificates,
    };
    assert_eq!(index, expected);
    // One message per line, between the head's line and the tail's.
    let text = String::from_utf8(json.clone()).expect("UTF-8");
    assert_eq!(text.lines().count(), 5, "{text}");
    assert!(text.lines().nth(2).unwrap().contains("INV-2"), "{text}");

    assert_eq!(read_all(spooled.csv), index_csv(&expected).into_bytes());
    let pinned = [hub.certificate.clone()];
    assert_eq!(verify_detached(&spooled.signature, &json, &pinned), Ok(()));
    assert!(verify_detached(&spooled.signature, &json[1..], &pinned).is_err());
}

#[test]
fn an_empty_period_spools_an_index_with_no_messages() {
    let (hub, at) = hub_and_time();
    let head = head(at, None);
    let certificates = IndexCertificates::default();
    let spool = IndexSpool::new(&head, &hub, 1_800_000_000).expect("spool");
    let tail = IndexTail {
        segments: &[],
        ledger_head: None,
        certificates: &certificates,
    };
    let json = read_all(spool.finish(&tail).expect("finish").json);
    let index: BundleIndex = serde_json::from_slice(&json).expect("index.json parses");
    assert!(index.messages.is_empty() && index.segments.is_empty());
    assert_eq!(index.partner, None);
}
