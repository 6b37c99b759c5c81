//! The bundle's tar, index and README on bytes alone.

use super::index::{
    BundleIndex, INDEX_VERSION, IndexCertificates, IndexMessage, IndexObject, IndexSegment,
    index_csv,
};
use super::read::Bundle;
use super::readme::readme;
use super::write::BundleWriter;
use chrono::{TimeZone, Utc};
use uuid::Uuid;

fn temp_file(bytes: &[u8]) -> std::path::PathBuf {
    let path = std::env::temp_dir().join(format!("edihub-bundle-{}.tar", Uuid::new_v4()));
    std::fs::write(&path, bytes).expect("write");
    path
}

fn index() -> BundleIndex {
    let at = Utc
        .with_ymd_and_hms(2026, 12, 4, 10, 0, 0)
        .single()
        .expect("time");
    BundleIndex {
        version: INDEX_VERSION,
        exported_at: at,
        from: at,
        to: at,
        partner: None,
        messages: vec![IndexMessage {
            message_id: Uuid::from_u128(7),
            as2_message_id: "a,\"b\"@acme".into(),
            partner: "ACME".into(),
            received_at: at,
            unb_reference: Some("42".into()),
            invoice_numbers: vec!["INV-1".into(), "INV-2".into()],
            seq: 3,
            sealed: true,
            objects: vec![IndexObject {
                kind: "payload".into(),
                key: "originals/2026/12/04/x.edi".into(),
                sha256: "ab".repeat(32),
                size: 5,
            }],
        }],
        segments: vec![IndexSegment {
            first_seq: 1,
            last_seq: 3,
            head: "cd".repeat(32),
            prefix: edihub_ledger::segment_prefix(1, 3),
        }],
        ledger_head: None,
        certificates: IndexCertificates::default(),
    }
}

#[test]
fn a_written_bundle_reads_back_file_by_file() {
    let long = format!("evidence/2026/12/04/{}/{}", Uuid::new_v4(), "x".repeat(120));
    let mut writer = BundleWriter::new(Vec::new(), 1_764_806_400);
    writer
        .append("originals/2026/12/04/x.edi", b"UNA:+.? '")
        .expect("append");
    writer.append(&long, b"").expect("append a long path");
    writer.append("index.json", b"{}\n").expect("append");
    assert_eq!(writer.written(), (3, 12));
    let path = temp_file(&writer.finish().expect("finish"));
    let bundle = Bundle::open(&path).expect("open");
    let expected = [long.as_str(), "index.json", "originals/2026/12/04/x.edi"];
    assert_eq!(bundle.paths().collect::<Vec<_>>(), expected);
    assert_eq!(
        bundle.read("originals/2026/12/04/x.edi").expect("read"),
        Some(b"UNA:+.? '".to_vec())
    );
    assert_eq!(bundle.read(&long).expect("read"), Some(Vec::new()));
    assert_eq!(bundle.read("absent").expect("read"), None);
    assert!(bundle.duplicates().is_empty());
    let _ = std::fs::remove_file(path);
}

#[test]
fn a_path_written_twice_is_reported_and_dot_slash_is_dropped() {
    let mut writer = BundleWriter::new(Vec::new(), 0);
    writer.append("./index.json", b"1").expect("append");
    writer.append("index.json", b"2").expect("append");
    let path = temp_file(&writer.finish().expect("finish"));
    let bundle = Bundle::open(&path).expect("open");
    assert_eq!(bundle.duplicates(), ["index.json"]);
    assert_eq!(
        bundle.read("index.json").expect("read"),
        Some(b"2".to_vec())
    );
    let _ = std::fs::remove_file(path);
}

#[test]
fn the_csv_has_one_row_per_object_quoted_where_needed() {
    let csv = index_csv(&index());
    let lines: Vec<&str> = csv.lines().collect();
    assert_eq!(lines.len(), 2);
    assert!(lines[0].starts_with("message_id,as2_message_id,partner,"));
    assert_eq!(
        lines[1],
        format!(
            "00000000-0000-0000-0000-000000000007,\"a,\"\"b\"\"@acme\",ACME,2026-12-04T10:00:00+00:00,42,INV-1;INV-2,3,payload,originals/2026/12/04/x.edi,{},5",
            "ab".repeat(32)
        )
    );
}

#[test]
fn the_index_round_trips_and_the_readme_names_the_last_head() {
    let index = index();
    let json = serde_json::to_vec(&index).expect("json");
    let back: BundleIndex = serde_json::from_slice(&json).expect("parses");
    assert_eq!(back, index);
    let text = readme(&index.facts());
    assert!(text.contains(&"cd".repeat(32)), "{text}");
    assert!(text.contains("openssl cms -verify"), "{text}");
    assert!(
        text.contains("-in index.json.p7s -content index.json"),
        "{text}"
    );
    assert!(text.contains("sha256sum"), "{text}");
}
