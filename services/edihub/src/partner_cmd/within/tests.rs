use super::*;

#[test]
fn weeks_days_hours_minutes_and_seconds() {
    assert_eq!(parse_span("30d"), Ok(30 * 86_400));
    assert_eq!(parse_span("12h"), Ok(12 * 3_600));
    assert_eq!(parse_span("2w"), Ok(14 * 86_400));
    assert_eq!(parse_span("90m"), Ok(5_400));
    assert_eq!(parse_span(" 45s "), Ok(45));
}

#[test]
fn a_span_without_a_known_unit_or_number_is_refused() {
    assert!(parse_span("30").unwrap_err().contains("give a unit"));
    assert!(
        parse_span("30y")
            .unwrap_err()
            .contains("one of w, d, h, m, s")
    );
    assert!(parse_span("d").unwrap_err().contains("whole number"));
    assert!(parse_span("-3d").is_err());
    assert!(parse_span("99999999999999999999w").is_err());
}
