//! `check::evaluate`, the accept/reject decision shared by the transform consumer and the
//! CLI: every fault with its position, messages of every type, charset and total-rule
//! warnings.

use edihub_edifact::SourcePosition;
use edihub_edifact::charset::{CharsetPolicy, CharsetWarnings};
use edihub_edifact::check::{
    FaultClass, Options, WarningKind, evaluate, evaluate_each_with, evaluate_with,
};

const STRICT: Options = Options {
    charset: CharsetPolicy::Strict,
};

const SAMPLE: &str = include_str!("../../../fixtures/edifact/invoic-eancom-d96a.edi");

/// (class, segment number, byte offset) of every fault, to compare whole lists.
fn located(input: &[u8]) -> Vec<(FaultClass, u32, usize)> {
    located_with(input, &Options::default())
}

fn located_with(input: &[u8], options: &Options) -> Vec<(FaultClass, u32, usize)> {
    let report = evaluate_with(input, options);
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

/// Eight faults of five kinds in one interchange (strict); the first-fault-only reader
/// reported one of them. Tolerant, the lower case is a warning instead; the DESADV is
/// sound in both.
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
    let strict = [
        (FaultClass::Mapping, 4, at("DTM+137")),
        (FaultClass::Syntax, 5, at("FTX+")),
        (FaultClass::Syntax, 6, at("\n'\n") + 1),
        (FaultClass::Mapping, 8, at("QTY+47")),
        (FaultClass::Mapping, 9, at("MOA+203")),
        (FaultClass::Mapping, 11, at("MOA+77")),
        (FaultClass::Syntax, 12, at("UNT+99")),
        (FaultClass::Syntax, 13, at("JNK")),
    ];
    assert_eq!(located_with(input.as_bytes(), &STRICT), strict);
    let tolerant: Vec<_> = strict.iter().copied().filter(|f| f.1 != 5).collect();
    assert_eq!(located(input.as_bytes()), tolerant);

    let report = evaluate_with(input.as_bytes(), &STRICT);
    let messages: Vec<&str> = report.faults.iter().map(|f| f.message.as_str()).collect();
    assert!(
        messages[0].contains("invalid date \"20261302\""),
        "{messages:?}"
    );
    assert!(messages[1].contains("0x6C"), "{messages:?}");
    assert_eq!(messages[2], "empty segment");
    assert!(messages[6].contains("UNT declares 99"), "{messages:?}");
    assert!(messages[7].contains("outside a message"), "{messages:?}");
    assert_eq!(report.faults[0].message_reference.as_deref(), Some("M1"));
    assert!(report.invoices.is_empty());
    assert!(report.warnings.is_empty());

    let report = evaluate(input.as_bytes());
    let w = &report.warnings[..];
    assert_eq!(w.len(), 1, "{w:?}");
    assert_eq!(w[0].kind, WarningKind::Charset);
    assert_eq!(w[0].message_reference.as_deref(), Some("M1"));
    assert_eq!(
        w[0].position.map(|p| (p.segment, p.offset)),
        Some((5, at("FTX+")))
    );
    assert_eq!(w[0].byte_offset, Some(at("lower")));
    assert_eq!(w[0].syntax_identifier, "UNOA");
}

#[test]
fn a_warning_is_published_in_kebab_case_with_its_position() {
    let input = SAMPLE.replace("UNOC:3", "UNOA:3");
    let report = evaluate(input.as_bytes());
    assert!(!report.must_reject(), "{:?}", report.faults);
    let json = serde_json::to_value(&report.warnings[0]).unwrap();
    assert_eq!(json["kind"], "charset");
    assert_eq!(json["syntax_identifier"], "UNOA");
    assert_eq!(json["message_reference"], "1");
    assert!(json["position"]["segment"].is_u64() && json["element"]["component"].is_u64());
    let offset = json["byte_offset"].as_u64().unwrap() as usize;
    assert!(input.as_bytes()[offset].is_ascii_lowercase(), "{json}");
}

#[test]
fn charset_warnings_are_listed_up_to_the_limit_and_counted_beyond() {
    let ftx = "FTX+AAI+++lower case'\n".repeat(CharsetWarnings::LIMIT + 20);
    let input = SAMPLE
        .replace("UNOC:3", "UNOB:3")
        .replace("UNS+S'", &format!("{ftx}UNS+S'"))
        .replace(
            "UNT+34+1",
            &format!("UNT+{}+1", 34 + CharsetWarnings::LIMIT + 20),
        )
        .replace("lower case", "l\u{7f}wer"); // not one: DEL stays a fault
    let report = evaluate(input.as_bytes());
    assert_eq!(report.faults.len(), CharsetWarnings::LIMIT + 20);
    let input = input.replace("l\u{7f}wer", "Stra\u{df}e");
    let bytes: Vec<u8> = input.chars().map(|c| c as u8).collect();
    let report = evaluate(&bytes);
    assert!(!report.must_reject(), "{:?}", report.faults);
    assert_eq!(report.warnings.len(), CharsetWarnings::LIMIT + 1);
    let last = report.warnings.last().unwrap();
    assert_eq!(last.kind, WarningKind::CharsetOmitted);
    assert!(last.message.starts_with("20 further values"), "{last:?}");
}

#[test]
fn each_message_of_any_type_is_handed_out_rendered() {
    let desadv = "UNH+M2+DESADV:D:96A:UN:EAN005'BGM+351+D1'UNT+3+M2'";
    let input = SAMPLE
        .replace("UNZ+1+EH000001", "UNZ+2+EH000001")
        .replace("UNZ+", &format!("{desadv}UNZ+"));
    let mut out = Vec::new();
    let report = evaluate_each_with(input.as_bytes(), &Options::default(), &mut |m| out.push(m));
    assert!(!report.must_reject(), "{:?}", report.faults);
    assert_eq!(out.len(), 2);
    assert_eq!(out[0].generic.message_type(), "INVOIC");
    assert!(out[0].invoice.is_some());
    let d = &out[1];
    assert_eq!(
        (d.generic.message_type(), d.generic.reference.as_str()),
        ("DESADV", "M2")
    );
    assert!(d.invoice.is_none() && d.acknowledgement.is_none());
    let bgm = &d.generic.segments[1];
    assert_eq!(bgm.position.offset, offset_of(&input, "BGM+351"));
    assert_eq!(bgm.elements, [vec!["351"], vec!["D1"]]);
    assert_eq!(report.messages.len(), 2);
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

    // The second interchange's messages are rendered with positions in the whole input.
    let mut unh = Vec::new();
    evaluate_each_with(input.as_bytes(), &Options::default(), &mut |m| {
        unh.push(m.generic.segments[0].position);
    });
    assert_eq!(unh[1].offset, SAMPLE.len() + offset_of(&second, "UNH+"));
    assert_eq!(unh[1].segment, 37 - 1 + 2);
}

/// Every charset warning of the report travels with exactly one message: the first
/// message after it (UNB's with the first message), its own segments' with it.
#[test]
fn each_message_carries_the_warnings_found_since_the_one_before() {
    let input = "UNB+UNOA:2+sender:14+RECIPIENT:14+261203:0900+REF1'\
                 UNH+1+DESADV:D:96A:UN'BGM+351+first+9'UNT+3+1'\
                 UNH+2+DESADV:D:96A:UN'BGM+351+CLEAN+9'UNT+3+2'\
                 UNH+3+DESADV:D:96A:UN'BGM+351+third+9'UNT+3+3'\
                 UNZ+3+REF1'";
    let mut per_message = Vec::new();
    let report = evaluate_each_with(input.as_bytes(), &Options::default(), &mut |m| {
        per_message.push((m.generic.reference.clone(), m.warnings));
    });
    assert!(!report.must_reject(), "{:?}", report.faults);
    let segments = |warnings: &[edihub_edifact::check::Warning]| -> Vec<u32> {
        warnings
            .iter()
            .map(|w| w.position.expect("a position").segment)
            .collect()
    };
    assert_eq!(per_message.len(), 3);
    assert_eq!(segments(&per_message[0].1), vec![1, 3], "UNB's and its own");
    assert_eq!(
        per_message[0].1[0].message_reference, None,
        "UNB is in no message"
    );
    assert_eq!(per_message[0].1[1].message_reference.as_deref(), Some("1"));
    assert!(per_message[1].1.is_empty(), "nothing new in the second");
    assert_eq!(segments(&per_message[2].1), vec![9]);
    let handed_out: Vec<_> = per_message.into_iter().flat_map(|(_, w)| w).collect();
    assert_eq!(handed_out, report.warnings, "none lost, none twice");
}
