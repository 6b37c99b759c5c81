//! `check::evaluate`, the accept/reject decision shared by the transform consumer and the
//! CLI: every fault with its position, unsupported message types, total-rule warnings.

use edihub_edifact::SourcePosition;
use edihub_edifact::check::{FaultClass, evaluate};

const SAMPLE: &str = include_str!("../../../fixtures/edifact/invoic-eancom-d96a.edi");

/// (class, segment number, byte offset) of every fault, to compare whole lists.
fn located(input: &[u8]) -> Vec<(FaultClass, u32, usize)> {
    let report = evaluate(input);
    assert_eq!(report.must_reject(), !report.faults.is_empty());
    report
        .faults
        .iter()
        .map(|f| {
            let p = f.position.expect("every fault here has a position");
            (f.class, p.segment, p.offset)
        })
        .collect()
}

fn offset_of(haystack: &str, needle: &str) -> usize {
    haystack
        .find(needle)
        .unwrap_or_else(|| panic!("{needle:?} not in input"))
}

/// Nine faults of six kinds in one interchange; the first-fault-only reader reported
/// one of them.
#[test]
fn every_fault_is_reported_with_segment_and_offset() {
    let input = "UNA:+.? '\n\
        UNB+UNOA:3+SENDER:14+RECIP:14+260101:1200+REF1'\n\
        UNH+M1+INVOIC:D:96A:UN:EAN008'\n\
        BGM+380+INV1+9'\n\
        DTM+137:20261302:102'\n\
        FTX+AAI+++lower case'\n\
        '\n\
        LIN+1++4000862141404:EN'\n\
        QTY+47:TEN:PCE'\n\
        MOA+203:12,50'\n\
        UNS+S'\n\
        MOA+77:X'\n\
        UNT+99+M1'\n\
        JNK+1'\n\
        UNH+M2+DESADV:D:96A:UN:EAN005'\n\
        BGM+351+D1'\n\
        UNT+3+M2'\n\
        UNZ+2+REF1'\n";
    let at = |needle| offset_of(input, needle);
    assert_eq!(
        located(input.as_bytes()),
        [
            (FaultClass::Mapping, 4, at("DTM+137")),
            (FaultClass::Syntax, 5, at("FTX+")),
            (FaultClass::Syntax, 6, at("\n'\n") + 1),
            (FaultClass::Mapping, 8, at("QTY+47")),
            (FaultClass::Mapping, 9, at("MOA+203")),
            (FaultClass::Mapping, 11, at("MOA+77")),
            (FaultClass::Syntax, 12, at("UNT+99")),
            (FaultClass::Syntax, 13, at("JNK")),
            (FaultClass::UnsupportedMessageType, 14, at("UNH+M2")),
        ]
    );
    let report = evaluate(input.as_bytes());
    let messages: Vec<&str> = report.faults.iter().map(|f| f.message.as_str()).collect();
    assert!(
        messages[0].contains("invalid date \"20261302\""),
        "{messages:?}"
    );
    assert!(messages[1].contains("0x6C"), "{messages:?}");
    assert_eq!(messages[2], "empty segment");
    assert!(messages[6].contains("UNT declares 99"), "{messages:?}");
    assert!(messages[7].contains("outside a message"), "{messages:?}");
    assert!(messages[8].contains("DESADV"), "{messages:?}");
    assert_eq!(report.faults[0].message_reference.as_deref(), Some("M1"));
    assert_eq!(report.faults[8].message_reference.as_deref(), Some("M2"));
    assert!(report.invoices.is_empty());
}

#[test]
fn an_invalid_tag_is_skipped_to_the_next_segment() {
    let input = SAMPLE.replace("RFF+ON:PO-4711'", "rff+ON:PO-4711'");
    let at = offset_of(&input, "rff+");
    let unt = offset_of(&input, "UNT+34");
    // The bad segment is reported; UNT's count then also (rightly) disagrees by one.
    assert_eq!(
        located(input.as_bytes()),
        [(FaultClass::Syntax, 6, at), (FaultClass::Syntax, 35, unt)]
    );
}

#[test]
fn a_sound_invoice_is_accepted_without_faults_or_warnings() {
    let report = evaluate(SAMPLE.as_bytes());
    assert!(!report.must_reject(), "{:?}", report.faults);
    assert_eq!(report.invoices.len(), 1);
    assert_eq!(report.invoices[0].warnings, []);
    assert_eq!(report.header.unwrap().control_reference, "EH000001");
}

#[test]
fn broken_totals_are_warnings_with_the_position_of_the_total() {
    let input = SAMPLE
        .replace("MOA+79:225.00'", "MOA+79:225.01'")
        .replace("MOA+9:267.75'", "MOA+9:260'");
    let report = evaluate(input.as_bytes());
    assert!(!report.must_reject(), "{:?}", report.faults);
    let w = &report.invoices[0].warnings;
    let rules: Vec<_> = w
        .iter()
        .map(|w| (w.rule.as_str(), w.position.map(|p| p.offset)))
        .collect();
    assert_eq!(
        rules,
        [
            ("BR-CO-10", Some(offset_of(&input, "MOA+79"))),
            ("BR-CO-13", Some(offset_of(&input, "MOA+125"))),
            ("BR-CO-16", Some(offset_of(&input, "MOA+9:"))),
        ]
    );
    assert_eq!(
        w[2].message,
        "BT-115 is 260 but BT-112 - BT-113 + BT-114 gives 267.75"
    );
    assert_eq!(w[2].position.unwrap().segment, 31);
    let json = serde_json::to_value(&report.invoices[0]).unwrap();
    assert_eq!(json["warnings"][0]["rule"], "BR-CO-10");
}

#[test]
fn an_interchange_without_messages_is_rejected() {
    let input = "UNB+UNOC:3+A+B+260101:1200+R'UNZ+0+R'";
    let report = evaluate(input.as_bytes());
    assert!(report.must_reject());
    assert_eq!(report.faults[0].class, FaultClass::Mapping);
}

#[test]
fn a_concatenated_interchange_is_checked_too() {
    let second = SAMPLE.replace("UNT+34+1", "UNT+30+1");
    let input = format!("{SAMPLE}{second}");
    let report = evaluate(input.as_bytes());
    let unt = SAMPLE.len() + offset_of(&second, "UNT+30");
    let positions: Vec<_> = report.faults.iter().map(|f| f.position).collect();
    assert_eq!(
        positions,
        [
            Some(SourcePosition {
                segment: 37,
                offset: SAMPLE.len()
            }),
            Some(SourcePosition {
                segment: 37 - 1 + 35,
                offset: unt
            }),
        ]
    );
    assert_eq!(report.invoices.len(), 2);
}
