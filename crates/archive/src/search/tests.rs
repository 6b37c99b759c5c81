use super::*;

fn at(text: &str) -> DateTime<Utc> {
    DateTime::parse_from_rfc3339(text).unwrap().to_utc()
}

#[test]
fn no_criterion_selects_everything_in_order() {
    let (sql, params) = statement(&SearchFilter::default());
    assert!(!sql.contains("WHERE"), "{sql}");
    assert!(sql.ends_with("ORDER BY received_at, message_id"), "{sql}");
    assert!(params.is_empty());
    assert!(SearchFilter::default().is_empty());
}

#[test]
fn criteria_are_anded_and_numbered_in_order_with_the_limit_last() {
    let filter = SearchFilter {
        partner: Some("ACME".into()),
        from: Some(at("2026-12-01T00:00:00Z")),
        to: Some(at("2026-12-02T00:00:00Z")),
        invoice: Some("INV-1".into()),
        as2_message_id: Some("<abc@acme>".into()),
        unb_reference: Some("EH000001".into()),
        limit: Some(100),
        ..Default::default()
    };
    let (sql, params) = statement(&filter);
    assert!(
        sql.contains(
            "WHERE as2_from = $1 AND received_at >= $2 AND received_at < $3 \
             AND invoice_numbers @> ARRAY[$4]::text[] AND as2_message_id = $5 \
             AND unb_reference = $6 ORDER BY"
        ),
        "{sql}"
    );
    assert!(sql.ends_with("LIMIT $7"), "{sql}");
    assert_eq!(
        params,
        vec![
            Param::Text("ACME".into()),
            Param::Time(at("2026-12-01T00:00:00Z")),
            Param::Time(at("2026-12-02T00:00:00Z")),
            Param::Text("INV-1".into()),
            // Angle brackets dropped, as the journal keeps the id.
            Param::Text("abc@acme".into()),
            Param::Text("EH000001".into()),
            Param::Count(100),
        ]
    );
}

#[test]
fn one_criterion_alone_has_no_stray_and() {
    let id = Uuid::parse_str("0190a5b2-0000-7000-8000-000000000001").unwrap();
    let filter = SearchFilter {
        message_id: Some(id),
        ..Default::default()
    };
    let (sql, params) = statement(&filter);
    assert!(sql.contains("WHERE message_id = $1 ORDER BY"), "{sql}");
    assert_eq!(params, vec![Param::Id(id)]);
    assert!(!filter.is_empty());
}
