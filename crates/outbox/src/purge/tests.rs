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
