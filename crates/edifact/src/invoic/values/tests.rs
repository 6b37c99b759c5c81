//! Unit tests of `values`.

use super::*;

#[test]
fn decimal_comma_and_point() {
    assert_eq!(decimal("1234,50", b',').as_deref(), Some("1234.50"));
    assert_eq!(decimal("-0,5", b',').as_deref(), Some("-0.5"));
    assert_eq!(decimal("12.000", b'.').as_deref(), Some("12.000"));
    assert_eq!(decimal("7", b'.').as_deref(), Some("7"));
    assert_eq!(decimal("1.000", b','), None);
    for bad in ["", "-", "X", "1.", ".5", "1,5", "1.2.3", "+1", "1 000"] {
        assert_eq!(decimal(bad, b'.'), None, "{bad:?}");
    }
}

#[test]
fn dates() {
    assert_eq!(
        iso_date("20240229", Some("102")).as_deref(),
        Some("2024-02-29")
    );
    assert_eq!(iso_date("20230229", Some("102")), None);
    assert_eq!(
        iso_date("201508030000", Some("203")).as_deref(),
        Some("2015-08-03")
    );
    assert_eq!(
        iso_date("199910060000", Some("102")).as_deref(),
        Some("1999-10-06")
    );
    assert_eq!(
        iso_date("202504011200+00", Some("303")).as_deref(),
        Some("2025-04-01")
    );
    assert_eq!(iso_date("20250401", None).as_deref(), Some("2025-04-01"));
    assert_eq!(iso_date("250401", Some("101")), None);
    assert_eq!(iso_date("2025041", Some("102")), None);
    assert_eq!(iso_date("20251301", Some("102")), None);
}
