use super::*;

fn at(text: &str) -> DateTime<Utc> {
    DateTime::parse_from_rfc3339(text).unwrap().to_utc()
}

#[test]
fn a_message_alone_is_one_message() {
    let selector = Selector::new(Some("abc@acme".into()), None, None, None).unwrap();
    assert_eq!(selector, Selector::Message("abc@acme".into()));
    let filter = selector.filter();
    assert_eq!(filter.as2_message_id.as_deref(), Some("abc@acme"));
    assert_eq!(filter.limit, None);
}

#[test]
fn a_hub_id_selects_by_message_id() {
    let id = "0190a5b2-0000-7000-8000-000000000001";
    let filter = Selector::new(Some(id.into()), None, None, None)
        .unwrap()
        .filter();
    assert_eq!(filter.message_id, Some(Uuid::parse_str(id).unwrap()));
    assert_eq!(filter.as2_message_id, None);
}

#[test]
fn a_message_does_not_combine_with_other_selectors() {
    let from = Some(at("2026-12-01T00:00:00Z"));
    let to = Some(at("2026-12-02T00:00:00Z"));
    assert_eq!(
        Selector::new(Some("m".into()), Some("ACME".into()), None, None),
        Err(SelectorError::MessageAndMore)
    );
    assert_eq!(
        Selector::new(Some("m".into()), None, from, to),
        Err(SelectorError::MessageAndMore)
    );
}

#[test]
fn a_period_needs_both_ends_in_order() {
    let from = Some(at("2026-12-01T00:00:00Z"));
    let to = Some(at("2026-12-02T00:00:00Z"));
    assert_eq!(
        Selector::new(None, None, from, None),
        Err(SelectorError::HalfPeriod)
    );
    assert_eq!(
        Selector::new(None, Some("ACME".into()), None, to),
        Err(SelectorError::HalfPeriod)
    );
    assert_eq!(
        Selector::new(None, None, to, from),
        Err(SelectorError::EmptyPeriod)
    );
    assert_eq!(
        Selector::new(None, None, None, None),
        Err(SelectorError::Nothing)
    );
}

#[test]
fn partner_and_period_combine() {
    let from = at("2026-12-01T00:00:00Z");
    let to = at("2026-12-02T00:00:00Z");
    let selector = Selector::new(None, Some("ACME".into()), Some(from), Some(to)).unwrap();
    let filter = selector.filter();
    assert_eq!(filter.partner.as_deref(), Some("ACME"));
    assert_eq!((filter.from, filter.to), (Some(from), Some(to)));
    let partner_only = Selector::new(None, Some("ACME".into()), None, None).unwrap();
    assert_eq!(
        partner_only,
        Selector::Messages {
            partner: Some("ACME".into()),
            period: None
        }
    );
    assert!(Selector::new(None, None, Some(from), Some(to)).is_ok());
}
