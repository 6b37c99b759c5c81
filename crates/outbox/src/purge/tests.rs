use super::*;

#[test]
fn chunk_keys_are_deterministic_and_sort_by_seq() {
    let (data, manifest) = chunk_keys(7, 1234);
    assert_eq!(
        data,
        "outbox-export/00000000000000000007-00000000000000001234.jsonl.gz"
    );
    assert_eq!(
        manifest,
        "outbox-export/00000000000000000007-00000000000000001234.manifest.json"
    );
    assert!(chunk_keys(9, 10).0 < chunk_keys(10, 11).0);
}

#[test]
fn gzip_json_lines_keeps_each_row_and_its_json_as_stored() {
    use flate2::read::GzDecoder;
    use std::io::Read;
    let row = |seq: i64, payload: &str| ExportedRow {
        id: Uuid::nil(),
        seq,
        aggregate_type: "EdiMessage".into(),
        aggregate_id: format!("agg-{seq}"),
        event_type: "EdiMessageReceived".into(),
        topic: "edi.inbound.received".into(),
        payload: RawValue::from_string(payload.into()).expect("raw json"),
        headers: RawValue::from_string("{}".into()).expect("raw json"),
        created_at: DateTime::UNIX_EPOCH,
        sent_at: None,
        attempts: 1,
    };
    let rows = [row(1, r#"{"b": 2, "a": [1.50, "x"]}"#), row(2, "null")];
    let data = gzip_json_lines(&rows).expect("gzip");
    let mut text = String::new();
    GzDecoder::new(data.as_slice())
        .read_to_string(&mut text)
        .expect("gunzip");
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 2);
    let first: serde_json::Value = serde_json::from_str(lines[0]).expect("line 1 is JSON");
    assert_eq!(first["seq"], 1);
    // The payload's bytes as PostgreSQL rendered them: key order and 1.50 kept.
    assert!(
        lines[0].contains(r#""payload":{"b": 2, "a": [1.50, "x"]}"#),
        "{}",
        lines[0]
    );
    assert!(lines[1].contains(r#""payload":null"#), "{}", lines[1]);
    assert!(text.ends_with('\n'));
}

#[test]
fn a_paced_purge_is_due_at_its_rate_and_an_unpaced_one_never_waits() {
    assert_eq!(
        due_after(25_000, 10_000),
        Some(std::time::Duration::from_millis(2_500))
    );
    assert_eq!(due_after(0, 10_000), Some(std::time::Duration::ZERO));
    assert_eq!(due_after(25_000, 0), None);
}
