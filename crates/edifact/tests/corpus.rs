//! The public sample corpus (../shared/fixtures/edifact/public, described in SOURCES.tsv):
//! every sound INVOIC parses and maps, every broken file fails where it is broken, and
//! `check` gives each file its outcome in both charset policies: sound messages of any
//! type (DESADV, APERAK) are accepted, ISO 8859-1 letters and lower case outside the
//! declared repertoire are warnings when tolerant and faults when strict.
//!
//! The files are read in place, never copied into the project. When the folder is absent
//! (a checkout without ../shared beside it) every test fails and says so: a corpus test
//! that passed without its corpus would prove nothing.

use std::path::PathBuf;

use edihub_edifact::charset::CharsetPolicy;
use edihub_edifact::check::{
    FaultClass, Options, Report, evaluate, evaluate_each_with, evaluate_with,
};
use edihub_edifact::invoic::{self, CanonicalInvoice, MappingErrorKind};
use edihub_edifact::{Interchange, InterchangeHeader, ParseError, ParseErrorKind, SourcePosition};

fn corpus_dir() -> PathBuf {
    PathBuf::from(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../../shared/fixtures/edifact/public"
    ))
}

/// The file's bytes. Fails the test when the corpus folder is absent, and when a file
/// is missing from it (SOURCES.tsv and the tests disagree).
fn load(name: &str) -> Vec<u8> {
    let dir = corpus_dir();
    assert!(
        dir.is_dir(),
        "the public EDIFACT corpus {} is absent: these tests need ../shared/fixtures beside the checkout",
        dir.display()
    );
    let path = dir.join(name);
    std::fs::read(&path).unwrap_or_else(|e| panic!("{} listed but unreadable: {e}", path.display()))
}

/// Byte offset of the `n`th (0-based) occurrence of `needle`.
fn nth_offset(haystack: &[u8], needle: &[u8], n: usize) -> usize {
    haystack
        .windows(needle.len())
        .enumerate()
        .filter(|(_, w)| *w == needle)
        .map(|(i, _)| i)
        .nth(n)
        .unwrap_or_else(|| {
            panic!(
                "{:?} occurrence {n} not found",
                String::from_utf8_lossy(needle)
            )
        })
}

fn parse_err(bytes: &[u8]) -> ParseError {
    Interchange::parse(bytes).expect_err("file is marked broken")
}

/// Maps a sound file and checks what every canonical invoice must have, including that
/// the recorded source positions point at the right bytes.
fn map_sound(bytes: &[u8]) -> Vec<CanonicalInvoice> {
    let interchange = Interchange::parse(bytes).expect("file is marked sound");
    let invoices = invoic::to_canonical(&interchange).expect("sound INVOIC maps");
    for inv in &invoices {
        assert!(!inv.invoice_number.is_empty());
        assert_eq!(inv.issue_date.len(), 10, "{}", inv.issue_date);
        let bgm = inv.sources["BT-1"].offset;
        assert_eq!(
            &bytes[bgm..bgm + 3],
            b"BGM",
            "BT-1 offset must point at BGM"
        );
        let dtm = inv.sources["BT-2"].offset;
        assert_eq!(&bytes[dtm..dtm + 3], b"DTM");
        for (key, pos) in &inv.sources {
            assert!(
                bytes[pos.offset].is_ascii_uppercase(),
                "{key} points at a tag"
            );
        }
    }
    invoices
}

fn at(bytes: &[u8], needle: &str, n: usize, segment: u32) -> SourcePosition {
    SourcePosition {
        segment,
        offset: nth_offset(bytes, needle.as_bytes(), n),
    }
}

// ---- sound INVOIC files ------------------------------------------------------------

#[test]
fn koha_blsinv_six_eancom_invoices() {
    let b = load("Koha__BLSINV337023.CEI");
    let invoices = map_sound(&b);
    assert_eq!(invoices.len(), 6);
    let first = &invoices[0];
    assert_eq!(first.profile, "EANCOM-D96A");
    assert_eq!(first.invoice_number, "01975489");
    assert_eq!(first.issue_date, "2014-07-29");
    assert_eq!(first.currency.as_deref(), Some("GBP"));
    assert_eq!(first.seller.id.as_deref(), Some("5013546025078"));
    assert_eq!(first.seller.scheme.as_deref(), Some("0088"));
    assert_eq!(first.totals.amount_due.as_deref(), Some("7.4"));
    assert_eq!(
        first.lines[0].description.as_deref(),
        Some("Beukes, Lauren; Broken monsters")
    );
    assert_eq!(first.vat_breakdown[0].category.as_deref(), Some("Z"));
    let last = &invoices[5];
    assert_eq!(last.message_reference, "01975494");
    assert_eq!(last.totals.amount_due.as_deref(), Some("28.4"));
    assert_eq!(last.lines.len(), 10);
}

#[test]
fn underware_d96a_unod_with_release_characters() {
    let b = load("underware.Edifact__D96A_INVOIC.txt");
    let inv = &map_sound(&b)[0];
    assert_eq!(inv.invoice_number, "97301593");
    assert_eq!(inv.issue_date, "2019-03-11");
    assert_eq!(inv.currency.as_deref(), Some("RON"));
    assert_eq!(
        inv.seller.name.as_deref(),
        Some("NOVASERVIS FERRO GROUP SRL")
    );
    assert_eq!(inv.buyer.name.as_deref(), Some("DEDEMAN S.R.L."));
    assert_eq!(inv.lines.len(), 7);
    // `?:` in IMD is a released colon, not a component separator.
    assert!(
        inv.lines[3]
            .description
            .as_deref()
            .unwrap()
            .starts_with("Set 2 in 1 Cordoba: BCD7")
    );
    assert_eq!(inv.lines[0].quantity.as_deref(), Some("6.000"));
    let t = &inv.totals;
    assert_eq!(t.line_extension.as_deref(), Some("4308.15"));
    assert_eq!(t.tax_exclusive.as_deref(), Some("4308.15"));
    assert_eq!(t.tax_total.as_deref(), Some("818.55"));
    assert_eq!(t.amount_due.as_deref(), Some("5126.70"));
    assert_eq!(inv.vat_breakdown[0].rate.as_deref(), Some("19.00"));
}

#[test]
fn bots_to_json_two_invoices_with_crlf() {
    let b = load("bots-plugins__to_json_invoice__invoic01.edi");
    let invoices = map_sound(&b);
    let numbers: Vec<_> = invoices.iter().map(|i| i.invoice_number.as_str()).collect();
    assert_eq!(numbers, ["20051098", "20051099"]);
    for inv in &invoices {
        assert_eq!(inv.profile, "EANCOM-D96A");
        assert_eq!(inv.currency.as_deref(), Some("EUR"));
        assert_eq!(inv.seller.id.as_deref(), Some("8712345678910"));
        assert_eq!(inv.buyer.id.as_deref(), Some("8712345678920"));
        assert_eq!(inv.totals.tax_inclusive.as_deref(), Some("286.2"));
        assert_eq!(inv.totals.line_extension.as_deref(), Some("240.5"));
        assert_eq!(inv.totals.tax_total.as_deref(), Some("45.7"));
        assert_eq!(inv.lines.len(), 3);
    }
    // CRLF between segments must not shift offsets: the second BGM is exactly there.
    assert_eq!(
        invoices[1].sources["BT-1"].offset,
        nth_offset(&b, b"BGM+380", 1)
    );
}

#[test]
fn pydifact_invoice1_syntax_1_credit_note() {
    let b = load("pydifact__invoice1.edi");
    let inv = &map_sound(&b)[0];
    assert_eq!(inv.profile, "UN-D97A");
    assert_eq!(inv.invoice_number, "1060113800026");
    assert_eq!(inv.type_code, "381");
    // DTM+137:199910060000:102 - a time appended to a 102 date is read leniently.
    assert_eq!(inv.issue_date, "1999-10-06");
    assert_eq!(inv.currency.as_deref(), Some("EUR"));
    assert_eq!(inv.seller.id.as_deref(), Some("2002993"));
    assert_eq!(inv.lines[0].net_price.as_deref(), Some("3630.1724"));
    assert_eq!(inv.totals.tax_inclusive.as_deref(), Some("1960.29"));
}

#[test]
fn smooks_d03b_repetition_and_released_apostrophe() {
    let b = load("smooks-edi-cartridge__edg_invoic.txt");
    let interchange = Interchange::parse(&b).unwrap();
    assert_eq!(interchange.delimiters.repetition, Some(b'*'));
    let cux = interchange.messages[0]
        .segments
        .iter()
        .find(|s| s.tag == "CUX")
        .unwrap();
    let occurrences: Vec<_> = cux.occurrences(0).filter_map(|c| c.get(0)).collect();
    assert_eq!(occurrences, ["3", "1"]);
    let inv = &map_sound(&b)[0];
    assert_eq!(inv.profile, "UN-D03B");
    assert_eq!(inv.invoice_number, "539602");
    assert_eq!(inv.issue_date, "1999-04-20");
    // CUX+3*1 names no currency code at all.
    assert_eq!(inv.currency, None);
    assert_eq!(inv.seller.name.as_deref(), Some("IBM UK"));
    assert!(
        inv.lines[0]
            .description
            .as_deref()
            .unwrap()
            .contains("Tolkien's original")
    );
}

#[test]
fn edifabric_eancom_d01b() {
    let b = load("EdiFabric__Eancom_INVOIC_D01BEAN3.txt");
    let inv = &map_sound(&b)[0];
    assert_eq!(inv.profile, "EANCOM-D01B");
    assert_eq!(inv.invoice_number, "IN432097");
    assert_eq!(inv.issue_date, "2002-03-08");
    assert_eq!(inv.currency.as_deref(), Some("EUR"));
    assert_eq!(inv.lines.len(), 2);
    assert_eq!(inv.lines[1].quantity.as_deref(), Some("12.65"));
    assert_eq!(inv.lines[1].unit_code.as_deref(), Some("KGM"));
    let rates: Vec<_> = inv
        .vat_breakdown
        .iter()
        .map(|v| v.rate.as_deref().unwrap())
        .collect();
    assert_eq!(rates, ["19", "21"]);
    assert_eq!(inv.totals.line_extension.as_deref(), Some("4690"));
    assert_eq!(inv.totals.tax_total.as_deref(), Some("957.10"));
}

// ---- files with envelope or charset defects ---------------------------------------

#[test]
fn cen_example0_unt_count() {
    let b = load("cen-eInvoicing-EN16931__EDIFACT_EXAMPLE0.TXT");
    let e = parse_err(&b);
    assert_eq!(
        e.kind,
        ParseErrorKind::SegmentCountMismatch {
            declared: 171,
            actual: 37
        }
    );
    assert_eq!(e.position, at(&b, "UNT+171", 0, 38));
    // The content is intact: the tolerant parse maps it.
    let (i, findings) = Interchange::parse_tolerant(&b).unwrap();
    assert_eq!(findings, [e]);
    let inv = &invoic::to_canonical(&i).unwrap()[0];
    assert_eq!(inv.totals.tax_inclusive.as_deref(), Some("22.00"));
    assert_eq!(inv.buyer.scheme.as_deref(), Some("0177"));
}

#[test]
fn cen_example1_unz_reference_and_d16b_mapping() {
    let b = load("cen-eInvoicing-EN16931__EDIFACT_EXAMPLE1.TXT");
    let e = parse_err(&b);
    assert!(
        matches!(&e.kind, ParseErrorKind::ReferenceMismatch { trailer: "UNZ", expected, found, .. }
        if expected == "87846595" && found == "12115118")
    );
    assert_eq!(e.position, at(&b, "UNZ+", 0, 173));

    let (i, findings) = Interchange::parse_tolerant(&b).unwrap();
    assert_eq!(findings.len(), 1);
    assert_eq!(i.header.syntax_identifier, "UNOW");
    let inv = &invoic::to_canonical(&i).unwrap()[0];
    assert_eq!(inv.profile, "UN-D16B");
    assert_eq!(inv.invoice_number, "12115118");
    assert_eq!(inv.issue_date, "2015-01-09");
    assert_eq!(inv.currency.as_deref(), Some("EUR"));
    assert_eq!(inv.seller.name.as_deref(), Some("De Koksmaat"));
    assert_eq!(inv.seller.vat_id.as_deref(), Some("NL8200.98.395.B.01"));
    assert_eq!(inv.buyer.id.as_deref(), Some("10202"));
    assert_eq!(inv.lines.len(), 20);
    assert_eq!(inv.lines[19].net_amount.as_deref(), Some("-109.98"));
    let t = &inv.totals;
    assert_eq!(t.line_extension.as_deref(), Some("229.6"));
    assert_eq!(t.tax_exclusive.as_deref(), Some("229.6"));
    assert_eq!(t.tax_total.as_deref(), Some("20.73"));
    assert_eq!(t.tax_inclusive.as_deref(), Some("250.33"));
    assert_eq!(t.amount_due.as_deref(), Some("250.33"));
    assert_eq!(inv.vat_breakdown.len(), 2);
    assert_eq!(
        inv.vat_breakdown[1].taxable_amount.as_deref(),
        Some("46.37")
    );
    assert_eq!(inv.vat_breakdown[1].tax_amount.as_deref(), Some("9.74"));
    // The FTX with ?: and ?' is not mapped, but it must have been unescaped correctly.
    let ftx = i.messages[0].segments.get(3).unwrap();
    assert!(
        ftx.component(3, 0)
            .unwrap()
            .ends_with("Amsterdam 25-04-'85.")
    );
    assert!(inv.unmapped_segments.contains(&"FTX".to_owned()));
}

#[test]
fn cen_example2_package_and_unz_defects() {
    let b = load("cen-eInvoicing-EN16931__EDIFACT_EXAMPLE2.TXT");
    // UNZ+1 counts one, but syntax 4 counts messages *and* packages (1 + 1); UNZ also
    // repeats the message reference instead of UNB's.
    let e = parse_err(&b);
    assert_eq!(
        e.kind,
        ParseErrorKind::MessageCountMismatch {
            trailer: "UNZ",
            declared: 1,
            actual: 2
        }
    );
    assert_eq!(e.position, at(&b, "UNZ+", 0, 143));
    let (i, findings) = Interchange::parse_tolerant(&b).unwrap();
    assert_eq!(findings.len(), 2);
    assert!(matches!(
        findings[1].kind,
        ParseErrorKind::ReferenceMismatch { trailer: "UNZ", .. }
    ));
    assert_eq!(i.packages.len(), 1);
    assert_eq!(i.packages[0].reference, "P1");
    assert_eq!(i.packages[0].object.len(), 104);
    let inv = &invoic::to_canonical(&i).unwrap()[0];
    assert_eq!(inv.invoice_number, "TOSL108");
    assert_eq!(inv.currency.as_deref(), Some("NOK"));
    assert_eq!(inv.seller.id.as_deref(), Some("1238764941386"));
    assert_eq!(inv.seller.scheme.as_deref(), Some("0088"));
    assert_eq!(inv.totals.tax_inclusive.as_deref(), Some("1801.78"));
    assert_eq!(inv.totals.amount_due.as_deref(), Some("801.78"));
    assert_eq!(inv.vat_breakdown.len(), 3);
    assert_eq!(inv.vat_breakdown[2].category.as_deref(), Some("E"));
}

#[test]
fn koha_invoice_wrong_counts_and_concatenated_interchange() {
    let b = load("Koha__INVOICE.CEI");
    let e = parse_err(&b);
    assert_eq!(
        e.kind,
        ParseErrorKind::SegmentCountMismatch {
            declared: 15,
            actual: 50
        }
    );
    assert_eq!(e.position, at(&b, "UNT+15", 0, 51));
    // Tolerating the count still leaves data after the first UNZ.
    let e = Interchange::parse_tolerant(&b).unwrap_err();
    assert_eq!(e.kind, ParseErrorKind::TrailingData);
    let second_quote = nth_offset(&b, b"''UNA", 0) + 1;
    assert_eq!(
        e.position,
        SourcePosition {
            segment: 53,
            offset: second_quote
        }
    );
}

#[test]
fn bots_xml_enveloping_duplicate_message_reference() {
    let b = load("bots-plugins__xml_enveloping__invoic01.edi");
    let e = parse_err(&b);
    assert_eq!(
        e.kind,
        ParseErrorKind::DuplicateMessageReference("111425".into())
    );
    assert_eq!(e.position, at(&b, "UNH+111425", 1, 83));
    let (i, _) = Interchange::parse_tolerant(&b).unwrap();
    let invoices = invoic::to_canonical(&i).unwrap();
    assert_eq!(invoices[0].invoice_number, "XML003");
    // DTM+XXX (empty, bad qualifier) is not the issue date and is left unmapped.
    assert_eq!(invoices[0].issue_date, "2005-08-29");
}

#[test]
fn edifabric_d00a_latin1_byte_in_unob() {
    for (name, loc) in [
        ("EdiFabric__Edifact_INVOIC_D00A.txt", ("LOC+11", 32)),
        (
            "EdiFabric__Edifact_INVOIC_D00A_GroupMultipleMessages.txt",
            ("LOC+11", 33),
        ),
        (
            "EdiFabric__Edifact_INVOIC_D00A_NonDefaultSeparators.txt",
            ("LOC|11", 32),
        ),
    ] {
        let b = load(name);
        let e = parse_err(&b);
        assert_eq!(
            e.kind,
            ParseErrorKind::InvalidCharacter {
                syntax_identifier: "UNOB",
                byte: 0xDF
            },
            "{name}"
        );
        assert_eq!(e.position, at(&b, loc.0, 0, loc.1), "{name}");
        // UNB itself is clean, so the gateway can still route it.
        let h = InterchangeHeader::peek(&b).unwrap();
        assert_eq!(h.sender_id, "102096559TEST");
        assert!(h.acknowledgement_requested && h.test_indicator);
    }
}

#[test]
fn pydifact_aperak_lower_case_in_unoa() {
    let b = load("pydifact__v3_aperak.edi");
    // UNOA (level A) has no lower-case letters; this is reported before the UNT count
    // (8 declared, 7 present) because it comes first in the file.
    let e = parse_err(&b);
    assert_eq!(
        e.kind,
        ParseErrorKind::InvalidCharacter {
            syntax_identifier: "UNOA",
            byte: b'e'
        }
    );
    assert_eq!(e.position, at(&b, "FTX+", 0, 7));
}

#[test]
fn pydifact_order_truncated_without_unz() {
    let b = load("pydifact__order.edi");
    let e = parse_err(&b);
    assert_eq!(e.kind, ParseErrorKind::Truncated);
    assert_eq!(
        e.position,
        SourcePosition {
            segment: 18,
            offset: b.len()
        }
    );
    let h = InterchangeHeader::peek(&b).unwrap();
    assert_eq!(
        (h.syntax_identifier.as_str(), h.syntax_version.as_str()),
        ("UNOA", "4")
    );
}

#[test]
fn smooks_fragment_without_unb() {
    let b = load("smooks-edi-cartridge__ect_d96a-invoic-1_input.edi");
    let e = parse_err(&b);
    assert_eq!(e.kind, ParseErrorKind::MissingUnb);
    assert_eq!(
        e.position,
        SourcePosition {
            segment: 1,
            offset: 0
        }
    );
}

// ---- sound interchanges that are not (mappable) invoices --------------------------

#[test]
fn dutchic_desadv_is_not_an_invoice() {
    let b = load("bots-plugins__dutchic_desadv1.edi");
    let i = Interchange::parse(&b).unwrap();
    assert_eq!(i.messages.len(), 8);
    let e = invoic::to_canonical(&i).unwrap_err();
    assert_eq!(e.kind, MappingErrorKind::NotAnInvoice("DESADV".into()));
}

#[test]
fn fv2504_contrl_is_not_an_invoice() {
    let b = load("edifact_mapper__fv2504_contrl.edi");
    let i = Interchange::parse(&b).unwrap();
    assert_eq!(i.messages[0].message_type, "CONTRL");
    assert!(matches!(
        invoic::to_canonical(&i).unwrap_err().kind,
        MappingErrorKind::NotAnInvoice(_)
    ));
}

#[test]
fn fv2504_invoic_placeholder_amount_is_rejected_with_position() {
    let b = load("edifact_mapper__fv2504_invoic_31002.edi");
    let i = Interchange::parse(&b).unwrap();
    let e = invoic::to_canonical(&i).unwrap_err();
    assert_eq!(e.kind, MappingErrorKind::InvalidAmount("X".into()));
    assert_eq!(e.position, Some(at(&b, "MOA+203:X", 0, 30)));
}

// ---- the corpus as a whole --------------------------------------------------------

/// Every file SOURCES.tsv lists has a test above, and `peek` agrees with its
/// syntax_id column (the cheap path must read the same UNB as the full parse).
#[test]
fn sources_tsv_is_covered_and_peek_agrees() {
    let tsv = load("SOURCES.tsv");
    let tsv = String::from_utf8(tsv).unwrap();
    let covered = [
        "Koha__BLSINV337023.CEI",
        "underware.Edifact__D96A_INVOIC.txt",
        "bots-plugins__to_json_invoice__invoic01.edi",
        "pydifact__invoice1.edi",
        "smooks-edi-cartridge__edg_invoic.txt",
        "EdiFabric__Eancom_INVOIC_D01BEAN3.txt",
        "cen-eInvoicing-EN16931__EDIFACT_EXAMPLE0.TXT",
        "cen-eInvoicing-EN16931__EDIFACT_EXAMPLE1.TXT",
        "cen-eInvoicing-EN16931__EDIFACT_EXAMPLE2.TXT",
        "Koha__INVOICE.CEI",
        "bots-plugins__xml_enveloping__invoic01.edi",
        "EdiFabric__Edifact_INVOIC_D00A.txt",
        "EdiFabric__Edifact_INVOIC_D00A_GroupMultipleMessages.txt",
        "EdiFabric__Edifact_INVOIC_D00A_NonDefaultSeparators.txt",
        "pydifact__v3_aperak.edi",
        "pydifact__order.edi",
        "smooks-edi-cartridge__ect_d96a-invoic-1_input.edi",
        "bots-plugins__dutchic_desadv1.edi",
        "edifact_mapper__fv2504_contrl.edi",
        "edifact_mapper__fv2504_invoic_31002.edi",
    ];
    let mut rows = tsv.lines();
    let header: Vec<_> = rows.next().unwrap().split('\t').collect();
    let col = |name| header.iter().position(|h| *h == name).unwrap();
    let (file_col, syntax_col) = (col("file"), col("syntax_id"));
    for row in rows.filter(|r| !r.trim().is_empty()) {
        let fields: Vec<_> = row.split('\t').collect();
        let name = fields[file_col];
        assert!(
            covered.contains(&name),
            "{name} is in SOURCES.tsv but has no test"
        );
        let b = load(name);
        match (fields[syntax_col], InterchangeHeader::peek(&b)) {
            ("None", Err(e)) => assert_eq!(e.kind, ParseErrorKind::MissingUnb),
            (expected, Ok(h)) => assert_eq!(h.syntax_identifier, expected, "{name}"),
            (expected, Err(e)) => panic!("{name}: peek failed ({e}), expected {expected}"),
        }
    }
}

// ---- the accept/reject decision over the whole corpus ------------------------------

/// `check::evaluate` (the transform consumer's and the CLI's code path, tolerant charset
/// policy) on every file: sound files of any type are accepted and the totals of their
/// invoices satisfy the EN 16931 rules (the one known exception is listed); every file
/// with recorded defects is rejected with *all* of them, each at the segment and byte
/// where it is; the values outside the declared repertoire are warnings where recorded.
/// Strict, the files `strict_faults` lists are rejected with those faults instead.
#[test]
fn evaluate_reports_every_recorded_fault() {
    for (name, faults) in recorded_faults() {
        let b = load(name);
        let report = evaluate(&b);
        assert_faults(name, &b, &report, faults);
        assert_eq!(report.must_reject(), !faults.is_empty(), "{name}");
        let warned: Vec<_> = report
            .warnings
            .iter()
            .map(|w| w.position.map(|p| p.segment))
            .collect();
        let want = recorded_warnings()
            .iter()
            .find(|(n, _)| n == name)
            .map_or(&[][..], |(_, w)| w);
        let want: Vec<_> = want.iter().map(|s| Some(*s)).collect();
        assert_eq!(warned, want, "{name}: {:#?}", report.warnings);
        let strict = evaluate_with(
            &b,
            &Options {
                charset: CharsetPolicy::Strict,
            },
        );
        let strict_faults = strict_faults()
            .iter()
            .find(|(n, _)| n == name)
            .map_or(*faults, |(_, f)| f);
        assert_faults(name, &b, &strict, strict_faults);
        assert!(strict.warnings.is_empty(), "{name}");
        for invoice in &report.invoices {
            let warned: Vec<_> = invoice.warnings.iter().map(|w| w.rule.as_str()).collect();
            // The bots sample's lines (MOA+203: 13 + 6.5 + 13) do not add up to its
            // MOA+79 of 240.5, and its one VAT breakdown (MOA+124:11.11) does not add
            // up to its MOA+176 of 45.7: genuine inconsistencies in that file, reported
            // as such.
            let known: &[&str] = if name.starts_with("bots-plugins__") {
                &["BR-CO-10", "BR-CO-14"]
            } else {
                &[]
            };
            assert_eq!(warned, known, "{name} {}", invoice.message_reference);
        }
    }
    // The DESADV interchange: accepted on its syntax, each of its eight messages
    // rendered generically, none mapped, none dropped.
    let b = load("bots-plugins__dutchic_desadv1.edi");
    let mut rendered = Vec::new();
    let report = evaluate_each_with(&b, &Options::default(), &mut |m| {
        assert!(m.invoice.is_none());
        let unh = m.generic.segments[0].position.offset;
        assert!(b[unh..].starts_with(b"UNH+"));
        rendered.push(m.generic.message_type().to_owned());
    });
    assert!(!report.must_reject(), "{:?}", report.faults);
    assert_eq!(rendered, ["DESADV"; 8]);
}

/// The charset warnings recorded for each file under the tolerant policy, as segment
/// numbers; none for a file not listed.
fn recorded_warnings() -> &'static [(&'static str, &'static [u32])] {
    &[
        // `ß` (0xDF) in a street name under UNOB, once per message.
        ("EdiFabric__Edifact_INVOIC_D00A.txt", &[32]),
        (
            "EdiFabric__Edifact_INVOIC_D00A_GroupMultipleMessages.txt",
            &[33, 74],
        ),
        (
            "EdiFabric__Edifact_INVOIC_D00A_NonDefaultSeparators.txt",
            &[32],
        ),
        // Free text in lower case under UNOA.
        ("pydifact__v3_aperak.edi", &[7]),
    ]
}

/// The faults of the files that the strict charset policy rejects for their characters:
/// each tolerated value becomes a syntax fault at its segment.
fn strict_faults() -> &'static [(&'static str, Expected)] {
    use FaultClass::Syntax;
    &[
        (
            "EdiFabric__Edifact_INVOIC_D00A.txt",
            &[(Syntax, 32, "LOC+11")],
        ),
        (
            "EdiFabric__Edifact_INVOIC_D00A_GroupMultipleMessages.txt",
            &[
                (Syntax, 33, "LOC+11"),
                (Syntax, 44, "UNH+509010117"),
                (Syntax, 74, "LOC+11"),
            ],
        ),
        (
            "EdiFabric__Edifact_INVOIC_D00A_NonDefaultSeparators.txt",
            &[(Syntax, 32, "LOC|11")],
        ),
        (
            "pydifact__v3_aperak.edi",
            &[(Syntax, 7, "FTX+"), (Syntax, 8, "UNT+8")],
        ),
    ]
}

/// Every fault of a file as (class, segment, the bytes at its offset).
type Expected = &'static [(FaultClass, u32, &'static str)];

/// The faults recorded for each corpus file, in input order; none for a sound file.
fn recorded_faults() -> &'static [(&'static str, Expected)] {
    use FaultClass::{Mapping, Syntax};
    &[
        ("Koha__BLSINV337023.CEI", &[]),
        ("underware.Edifact__D96A_INVOIC.txt", &[]),
        ("bots-plugins__to_json_invoice__invoic01.edi", &[]),
        ("pydifact__invoice1.edi", &[]),
        ("smooks-edi-cartridge__edg_invoic.txt", &[]),
        ("EdiFabric__Eancom_INVOIC_D01BEAN3.txt", &[]),
        (
            "cen-eInvoicing-EN16931__EDIFACT_EXAMPLE0.TXT",
            &[(Syntax, 38, "UNT+171")],
        ),
        (
            "cen-eInvoicing-EN16931__EDIFACT_EXAMPLE1.TXT",
            &[(Syntax, 173, "UNZ+1+12115118")],
        ),
        (
            "cen-eInvoicing-EN16931__EDIFACT_EXAMPLE2.TXT",
            &[(Syntax, 143, "UNZ+1"), (Syntax, 143, "UNZ+1")],
        ),
        (
            // Two interchanges concatenated: both UNT counts, the data after the first
            // UNZ, the empty segments and the missing UNZ of the second.
            "Koha__INVOICE.CEI",
            &[
                (Syntax, 51, "UNT+15"),
                (Syntax, 53, "'UNA"),
                (Syntax, 61, "UNT+11"),
                (Syntax, 62, "'"),
                (Syntax, 63, "'"),
                (Syntax, 64, ""),
            ],
        ),
        (
            "bots-plugins__xml_enveloping__invoic01.edi",
            &[(Syntax, 83, "UNH+111425")],
        ),
        // Tolerant, the byte 0xDF under UNOB is a warning (`recorded_warnings`): the
        // single-message files are accepted; the two messages here share a reference.
        ("EdiFabric__Edifact_INVOIC_D00A.txt", &[]),
        (
            "EdiFabric__Edifact_INVOIC_D00A_GroupMultipleMessages.txt",
            &[(Syntax, 44, "UNH+509010117")],
        ),
        (
            "EdiFabric__Edifact_INVOIC_D00A_NonDefaultSeparators.txt",
            &[],
        ),
        // An APERAK is accepted on its syntax (and read as an acknowledgement); its
        // lower case under UNOA is a warning; its UNT count is wrong (8 declared, 7).
        ("pydifact__v3_aperak.edi", &[(Syntax, 8, "UNT+8")]),
        ("pydifact__order.edi", &[(Syntax, 18, "")]),
        (
            "smooks-edi-cartridge__ect_d96a-invoic-1_input.edi",
            &[(Syntax, 1, "BGM")],
        ),
        (
            // The generated skeleton has `X` for every number: the line amount and the
            // percentage and base amount of its line allowance and charge.
            "edifact_mapper__fv2504_invoic_31002.edi",
            &[
                (Mapping, 30, "MOA+203:X"),
                (Mapping, 35, "PCD+3:X"),
                (Mapping, 36, "MOA+25:X"),
                (Mapping, 39, "PCD+3:X"),
            ],
        ),
        (
            // A generated CONTRL skeleton: syntactically sound, but its UCI has `X` for
            // the element position, so it cannot be read as an acknowledgement.
            "edifact_mapper__fv2504_contrl.edi",
            &[(Mapping, 3, "UCI+")],
        ),
    ]
}

/// `report` has exactly the faults `faults` records for file `name` (content `b`).
fn assert_faults(name: &str, b: &[u8], report: &Report, faults: Expected) {
    let found: Vec<_> = report
        .faults
        .iter()
        .map(|f| {
            let p = f.position.expect("positioned");
            (f.class, p.segment, p.offset)
        })
        .collect();
    assert_eq!(found.len(), faults.len(), "{name}: {:#?}", report.faults);
    for ((class, segment, offset), (want_class, want_segment, bytes)) in found.iter().zip(faults) {
        assert_eq!((class, segment), (want_class, want_segment), "{name}");
        assert!(
            b[*offset..].starts_with(bytes.as_bytes()),
            "{name}: fault at segment {segment} points at {:?}, not {bytes:?}",
            String::from_utf8_lossy(&b[*offset..(*offset + 12).min(b.len())])
        );
    }
}
