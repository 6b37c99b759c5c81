//! The project's own EANCOM D96A sample (fixtures/edifact/invoic-eancom-d96a.edi), mapped
//! end to end with every total checked.

use edihub_edifact::invoic::{self, MappingErrorKind};
use edihub_edifact::{Interchange, InterchangeHeader};

const SAMPLE: &str = include_str!("../../../fixtures/edifact/invoic-eancom-d96a.edi");

#[test]
fn header_is_read_by_peek() {
    let h = InterchangeHeader::peek(SAMPLE.as_bytes()).unwrap();
    assert_eq!(
        (h.syntax_identifier.as_str(), h.syntax_version.as_str()),
        ("UNOC", "3")
    );
    assert_eq!(h.sender_id, "5412345000013");
    assert_eq!(h.sender_qualifier.as_deref(), Some("14"));
    assert_eq!(h.recipient_id, "4012345000094");
    assert_eq!(h.recipient_qualifier.as_deref(), Some("14"));
    assert_eq!(h.control_reference, "EH000001");
    assert!(!h.test_indicator);
}

#[test]
fn maps_every_field_and_total() {
    let interchange = Interchange::parse(SAMPLE.as_bytes()).unwrap();
    let invoices = invoic::to_canonical(&interchange).unwrap();
    assert_eq!(invoices.len(), 1);
    let inv = &invoices[0];
    assert_eq!(inv.profile, "EANCOM-D96A");
    assert_eq!(inv.invoice_number, "INV-2026-0001");
    assert_eq!(inv.issue_date, "2026-12-02");
    assert_eq!(inv.type_code, "380");
    assert_eq!(inv.currency.as_deref(), Some("EUR"));

    assert_eq!(inv.seller.id.as_deref(), Some("5412345000013"));
    assert_eq!(inv.seller.scheme.as_deref(), Some("0088"));
    assert_eq!(inv.seller.name.as_deref(), Some("Muster Lieferant GmbH"));
    assert_eq!(inv.seller.vat_id.as_deref(), Some("DE123456789"));
    assert_eq!(inv.buyer.id.as_deref(), Some("4012345000094"));
    assert_eq!(inv.buyer.vat_id.as_deref(), Some("DE987654321"));

    assert_eq!(inv.lines.len(), 2);
    let l = &inv.lines[0];
    assert_eq!(l.line_id, "1");
    assert_eq!(l.item_id.as_deref(), Some("4000862141404"));
    assert_eq!(l.description.as_deref(), Some("Widget blue: size M"));
    assert_eq!(
        (l.quantity.as_deref(), l.unit_code.as_deref()),
        (Some("10"), Some("PCE"))
    );
    assert_eq!(l.net_price.as_deref(), Some("12.50"));
    assert_eq!(l.net_amount.as_deref(), Some("125.00"));
    assert_eq!(
        inv.lines[1].description.as_deref(),
        Some("Gadget case+stand")
    );
    assert_eq!(inv.lines[1].net_amount.as_deref(), Some("100.00"));

    assert_eq!(inv.vat_breakdown.len(), 1);
    let v = &inv.vat_breakdown[0];
    assert_eq!(
        (v.category.as_deref(), v.rate.as_deref()),
        (Some("S"), Some("19"))
    );
    assert_eq!(v.taxable_amount.as_deref(), Some("225.00"));
    assert_eq!(v.tax_amount.as_deref(), Some("42.75"));

    let t = &inv.totals;
    assert_eq!(t.line_extension.as_deref(), Some("225.00"));
    assert_eq!(t.tax_exclusive.as_deref(), Some("225.00"));
    assert_eq!(t.tax_total.as_deref(), Some("42.75"));
    assert_eq!(t.tax_inclusive.as_deref(), Some("267.75"));
    assert_eq!(t.amount_due.as_deref(), Some("267.75"));

    // Each total points at its own MOA line.
    for (bt, text) in [
        ("BT-106", "MOA+79:225.00"),
        ("BT-109", "MOA+125:225.00"),
        ("BT-110", "MOA+176:42.75"),
        ("BT-112", "MOA+77:267.75"),
        ("BT-115", "MOA+9:267.75"),
    ] {
        let pos = inv.sources[bt];
        assert_eq!(pos.offset, SAMPLE.find(text).unwrap(), "{bt}");
        let line_no = SAMPLE[..pos.offset].matches('\n').count() as u32;
        assert_eq!(
            pos.segment, line_no,
            "{bt}: one segment per line, UNA not counted"
        );
    }
    // Line-level TAX is not part of the canonical line, so it is listed too.
    assert_eq!(inv.unmapped_segments, ["DTM", "RFF", "PAT", "TAX", "CNT"]);
}

#[test]
fn canonical_json_round_trips() {
    let interchange = Interchange::parse(SAMPLE.as_bytes()).unwrap();
    let inv = &invoic::to_canonical(&interchange).unwrap()[0];
    let json = serde_json::to_string(inv).unwrap();
    let back: invoic::CanonicalInvoice = serde_json::from_str(&json).unwrap();
    assert_eq!(&back, inv);
    let value: serde_json::Value = serde_json::from_str(&json).unwrap();
    assert_eq!(value["totals"]["tax_inclusive"], "267.75");
    assert_eq!(value["sources"]["BT-1"]["segment"], 3);
}

#[test]
fn decimal_comma_is_normalised() {
    // Every point between two digits becomes a comma; UNA then declares the comma.
    let bytes = SAMPLE.as_bytes();
    let comma: String = SAMPLE
        .char_indices()
        .map(|(i, c)| {
            let between_digits = i > 0
                && bytes.get(i - 1).is_some_and(u8::is_ascii_digit)
                && bytes.get(i + 1).is_some_and(u8::is_ascii_digit);
            if c == '.' && between_digits { ',' } else { c }
        })
        .collect::<String>()
        .replacen("UNA:+.? '", "UNA:+,? '", 1);
    let interchange = Interchange::parse(comma.as_bytes()).unwrap();
    assert_eq!(interchange.delimiters.decimal_mark, b',');
    let inv = &invoic::to_canonical(&interchange).unwrap()[0];
    assert_eq!(inv.lines[0].net_amount.as_deref(), Some("125.00"));
    assert_eq!(inv.lines[0].net_price.as_deref(), Some("12.50"));
    assert_eq!(inv.totals.tax_inclusive.as_deref(), Some("267.75"));
    // A point is not a decimal mark once UNA declared a comma: reject, don't guess.
    let e = invoic::to_canonical(
        &Interchange::parse(comma.replace("100,00", "100.000").as_bytes()).unwrap(),
    )
    .unwrap_err();
    assert_eq!(e.kind, MappingErrorKind::InvalidAmount("100.000".into()));
}

#[test]
fn crlf_variant_keeps_offsets_exact() {
    let crlf = SAMPLE.replace('\n', "\r\n");
    let interchange = Interchange::parse(crlf.as_bytes()).unwrap();
    let inv = &invoic::to_canonical(&interchange).unwrap()[0];
    assert_eq!(inv.sources["BT-112"].offset, crlf.find("MOA+77").unwrap());
    assert_eq!(inv.sources["BT-112"].segment, 30);
}

#[test]
fn missing_pieces_are_mapping_errors() {
    let no_date = SAMPLE
        .replace("DTM+137:20261202:102'\n", "")
        .replace("UNT+34", "UNT+33");
    let e = invoic::to_canonical(&Interchange::parse(no_date.as_bytes()).unwrap()).unwrap_err();
    assert_eq!(e.kind, MappingErrorKind::MissingSegment("DTM+137"));
    let bad_date = SAMPLE.replace("20261202:102", "20261302:102");
    let e = invoic::to_canonical(&Interchange::parse(bad_date.as_bytes()).unwrap()).unwrap_err();
    assert!(matches!(e.kind, MappingErrorKind::InvalidDate { .. }));
    assert_eq!(
        e.position.unwrap().offset,
        bad_date.find("DTM+137").unwrap()
    );
    let no_number = SAMPLE.replace("BGM+380+INV-2026-0001+9", "BGM+380++9");
    let e = invoic::to_canonical(&Interchange::parse(no_number.as_bytes()).unwrap()).unwrap_err();
    assert_eq!(e.kind, MappingErrorKind::MissingDocumentNumber);
}

/// EANCOM's summary ALC groups (after UNS+S) restate allowance and charge amounts per
/// type; their MOAs are not the document totals, even where a qualifier (131) is one
/// the totals use. They stay unmapped, and the totals come from the summary MOAs.
#[test]
fn summary_alc_groups_are_not_read_as_document_totals() {
    let input = SAMPLE.replace("UNT+34+1", "ALC+C++++FC'MOA+131:7.50'MOA+8:7.50'UNT+37+1");
    let interchange = Interchange::parse(input.as_bytes()).unwrap();
    let invoices = invoic::to_canonical(&interchange).unwrap();
    let inv = &invoices[0];
    assert_eq!(
        inv.totals.charge_total, None,
        "MOA+131 of a summary ALC group"
    );
    assert!(inv.charges.is_empty());
    assert!(
        inv.warnings.is_empty(),
        "the sample's totals still add up: {:?}",
        inv.warnings
    );
    assert!(
        inv.unmapped_segments.iter().any(|t| t == "ALC"),
        "{:?}",
        inv.unmapped_segments
    );
}
