use super::*;

const INVOIC: &[u8] = include_bytes!("../../../../../fixtures/edifact/invoic-eancom-d96a.edi");

#[test]
fn an_invoic_gives_its_bt1() {
    let found = invoice_numbers(INVOIC, CharsetPolicy::Tolerant);
    assert_eq!(found.numbers, vec!["INV-2026-0001".to_owned()]);
    assert_eq!(found.remark, None);
}

#[test]
fn a_payload_that_does_not_parse_gives_none_and_says_so() {
    let found = invoice_numbers(b"not an interchange at all", CharsetPolicy::Tolerant);
    assert!(found.numbers.is_empty());
    assert!(found.remark.is_some_and(|r| r.contains("not a readable")));
}
