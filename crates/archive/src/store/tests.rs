use super::*;

#[test]
fn key_is_deterministic_and_dated() {
    let id = Uuid::parse_str("0190a5b2-0000-7000-8000-000000000001").unwrap();
    let at = DateTime::parse_from_rfc3339("2026-12-02T10:00:00Z")
        .unwrap()
        .to_utc();
    assert_eq!(
        object_key(id, at),
        "originals/2026/12/02/0190a5b2-0000-7000-8000-000000000001.edi"
    );
}

#[test]
fn retention_is_ten_calendar_years() {
    let at = DateTime::parse_from_rfc3339("2024-02-29T12:00:00Z")
        .unwrap()
        .to_utc();
    let until = retain_until(at, 10).unwrap();
    // 2034 is no leap year: chrono clamps to the last day of February.
    assert_eq!(until.to_rfc3339(), "2034-02-28T12:00:00+00:00");
}
