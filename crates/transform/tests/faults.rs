//! `map_invoices`, the transform consumer's decision, without a database: what an
//! `EdiMessageRejected` event would carry.

use edihub_transform::map_invoices;

const SAMPLE: &str = include_str!("../../../fixtures/edifact/invoic-eancom-d96a.edi");

#[test]
fn a_sound_invoice_maps() {
    let invoices = map_invoices(SAMPLE.as_bytes()).expect("sound");
    assert_eq!(invoices.len(), 1);
}

/// Every fault reaches the event, each with its segment and byte offset; mapping errors
/// included (they used to lose their position, and only the first fault was reported).
#[test]
fn every_fault_reaches_the_event_with_its_position() {
    let input = SAMPLE
        .replace("UNT+34+1", "UNT+33+1")
        .replace("QTY+47:10:PCE", "QTY+47:1O:PCE")
        .replace("MOA+124:42.75", "MOA+124:42,75");
    let faults = map_invoices(input.as_bytes()).unwrap_err();
    let found: Vec<_> = faults
        .iter()
        .map(|f| {
            (
                f.code.as_deref().unwrap(),
                f.segment.unwrap(),
                f.offset.unwrap(),
            )
        })
        .collect();
    let at = |needle: &str| input.find(needle).unwrap() as u64;
    assert_eq!(
        found,
        [
            ("mapping", 15, at("QTY+47:1O")),
            ("mapping", 34, at("MOA+124:42,75")),
            ("syntax", 35, at("UNT+33")),
        ]
    );
    assert_eq!(faults[0].message_reference.as_deref(), Some("1"));
    assert_eq!(faults[1].message_reference.as_deref(), Some("1"));
}

/// Acceptance is about syntax: an ORDERS is accepted, and maps to no invoice.
#[test]
fn other_message_types_are_accepted_without_an_invoice() {
    let input = SAMPLE.replace("INVOIC:D:96A:UN:EAN008", "ORDERS:D:96A:UN:EAN008");
    let invoices = map_invoices(input.as_bytes()).expect("a sound ORDERS is accepted");
    assert!(invoices.is_empty());
}
