//! Envelope-level unit tests on small hand-written interchanges.

use crate::{Interchange, InterchangeHeader, ParseErrorKind, SourcePosition};

const GOOD: &str = "UNA:+.? '\nUNB+UNOC:3+SENDER:14+RECIP:14+260101:1200+REF1++INVOIC++1++1'\nUNH+M1+INVOIC:D:96A:UN:EAN008'\nBGM+380+INV1+9'\nUNT+3+M1'\nUNZ+1+REF1'\n";

#[test]
fn parses_a_minimal_interchange() {
    let i = Interchange::parse(GOOD.as_bytes()).unwrap();
    assert_eq!(i.header.sender_id, "SENDER");
    assert_eq!(i.header.sender_qualifier.as_deref(), Some("14"));
    assert!(i.header.acknowledgement_requested);
    assert!(i.header.test_indicator);
    assert_eq!(i.messages.len(), 1);
    let m = &i.messages[0];
    assert_eq!(
        (
            m.message_type.as_str(),
            m.release.as_str(),
            m.association_code.as_deref()
        ),
        ("INVOIC", "96A", Some("EAN008"))
    );
    assert_eq!(m.segments.len(), 3);
    // UNB is segment 1 (UNA is not counted); BGM is segment 3 at its exact byte.
    let bgm = m.segments.get(1).unwrap();
    assert_eq!(bgm.position.segment, 3);
    assert_eq!(
        &GOOD.as_bytes()[bgm.position.offset..bgm.position.offset + 4],
        b"BGM+"
    );
}

#[test]
fn peek_reads_only_unb() {
    let h =
        InterchangeHeader::peek(b"\xEF\xBB\xBFUNB+UNOA:3+A:14+B+260101:1200+7'UNH+broken").unwrap();
    assert_eq!(h.syntax_identifier, "UNOA");
    assert_eq!(h.control_reference, "7");
    assert_eq!(h.recipient_qualifier, None);
}

#[test]
fn wrong_unt_count_names_the_unt_segment() {
    let bad = GOOD.replace("UNT+3+M1", "UNT+4+M1");
    let e = Interchange::parse(bad.as_bytes()).unwrap_err();
    assert_eq!(
        e.kind,
        ParseErrorKind::SegmentCountMismatch {
            declared: 4,
            actual: 3
        }
    );
    let offset = bad.find("UNT").unwrap();
    assert_eq!(e.position, SourcePosition { segment: 4, offset });
    assert_eq!(
        e.to_string(),
        format!(
            "UNT declares 4 segments but the message has 3 at segment 4 (byte offset {offset})"
        )
    );
    // Tolerant parsing keeps the content and reports the defect.
    let (i, findings) = Interchange::parse_tolerant(bad.as_bytes()).unwrap();
    assert_eq!(i.messages.len(), 1);
    assert_eq!(findings, [e]);
}

#[test]
fn missing_unt_is_unbalanced() {
    let bad = GOOD.replace("UNT+3+M1'\n", "");
    let e = Interchange::parse(bad.as_bytes()).unwrap_err();
    assert_eq!(
        e.kind,
        ParseErrorKind::UnbalancedEnvelope("message not closed by UNT")
    );
    assert_eq!(e.position.segment, 4);
    assert_eq!(e.position.offset, bad.find("UNZ").unwrap());
}

#[test]
fn missing_unz_and_final_terminator_are_truncation() {
    let bad = GOOD.replace("UNZ+1+REF1'\n", "");
    let e = Interchange::parse(bad.as_bytes()).unwrap_err();
    assert_eq!(e.kind, ParseErrorKind::Truncated);
    assert_eq!(
        e.position,
        SourcePosition {
            segment: 5,
            offset: bad.len()
        }
    );
    let bad = GOOD.trim_end().trim_end_matches('\'');
    let e = Interchange::parse(bad.as_bytes()).unwrap_err();
    assert_eq!(e.kind, ParseErrorKind::Truncated);
    assert_eq!(e.position.segment, 5);
}

#[test]
fn references_and_counts_are_checked() {
    let bad = GOOD.replace("UNT+3+M1", "UNT+3+M2");
    let e = Interchange::parse(bad.as_bytes()).unwrap_err();
    assert!(matches!(
        e.kind,
        ParseErrorKind::ReferenceMismatch { trailer: "UNT", .. }
    ));
    let bad = GOOD.replace("UNZ+1+REF1", "UNZ+2+REF1");
    let e = Interchange::parse(bad.as_bytes()).unwrap_err();
    assert_eq!(
        e.kind,
        ParseErrorKind::MessageCountMismatch {
            trailer: "UNZ",
            declared: 2,
            actual: 1
        }
    );
    let bad = GOOD.replace("UNZ+1+REF1", "UNZ+1+REF9");
    let e = Interchange::parse(bad.as_bytes()).unwrap_err();
    assert!(matches!(
        e.kind,
        ParseErrorKind::ReferenceMismatch { trailer: "UNZ", .. }
    ));
    let bad = GOOD.replace("UNZ+1+REF1", "UNZ+one+REF1");
    let e = Interchange::parse(bad.as_bytes()).unwrap_err();
    assert_eq!(e.kind, ParseErrorKind::InvalidControlCount("one".into()));
}

#[test]
fn data_after_unz_and_segments_outside_messages() {
    let bad = format!("{GOOD}UNB+UNOC:3'");
    assert_eq!(
        Interchange::parse(bad.as_bytes()).unwrap_err().kind,
        ParseErrorKind::TrailingData
    );
    let bad = GOOD.replace("UNH+M1+INVOIC:D:96A:UN:EAN008'\n", "");
    let e = Interchange::parse(bad.as_bytes()).unwrap_err();
    assert_eq!(
        e.kind,
        ParseErrorKind::UnbalancedEnvelope("data segment outside a message")
    );
    assert_eq!(e.position.segment, 2);
}

#[test]
fn groups_are_counted_by_unz() {
    let grouped = "UNB+UNOA:3+A+B+260101:1200+R'UNG+INVOIC+A+B+260101:1200+G1+UN+D:96A'UNH+1+INVOIC:D:96A:UN'UNT+2+1'UNH+2+INVOIC:D:96A:UN'UNT+2+2'UNE+2+G1'UNZ+1+R'";
    let i = Interchange::parse(grouped.as_bytes()).unwrap();
    assert_eq!(i.messages.len(), 2);
    let bad = grouped.replace("UNE+2+G1", "UNE+3+G1");
    assert!(matches!(
        Interchange::parse(bad.as_bytes()).unwrap_err().kind,
        ParseErrorKind::MessageCountMismatch { trailer: "UNE", .. }
    ));
}

#[test]
fn level_b_information_separators() {
    let input = b"UNB\x1DUNOB\x1F3\x1DA\x1DB\x1D260101\x1F1200\x1DR\x1CUNH\x1D1\x1DINVOIC\x1FD\x1F96A\x1FUN\x1CUNT\x1D2\x1D1\x1CUNZ\x1D1\x1DR\x1C";
    let i = Interchange::parse(input).unwrap();
    assert_eq!(i.messages[0].message_type, "INVOIC");
}

#[test]
fn packages_are_passed_through() {
    let input = "UNA:+.?*'UNB+UNOW:4+A+B+20260101:1200+R'UNH+1+INVOIC:D:16B:UN'UNT+2+1'UNO+P1+1:D+13:application/pdf+5'a'+:bUNP+5+P1'UNZ+2+R'";
    let i = Interchange::parse(input.as_bytes()).unwrap();
    assert_eq!(i.packages[0].object, b"a'+:b");
    // A wrong length lands the tokenizer inside the object.
    let short = input.replace("pdf+5'", "pdf+4'");
    assert!(matches!(
        Interchange::parse(short.as_bytes()).unwrap_err().kind,
        ParseErrorKind::InvalidPackage(_)
    ));
}

#[test]
fn arbitrary_bytes_never_panic() {
    // A cheap stand-in for the fuzz target: every prefix and a few mutations of a valid
    // interchange must give Ok or Err, never a panic.
    let base = GOOD.as_bytes();
    for end in 0..=base.len() {
        let _ = Interchange::parse(&base[..end]);
        let _ = InterchangeHeader::peek(&base[..end]);
    }
    for i in 0..base.len() {
        for b in [b'\'', b'+', b':', b'?', 0xFF, b'\n'] {
            let mut m = base.to_vec();
            m[i] = b;
            let _ = Interchange::parse(&m);
        }
    }
}

#[test]
fn non_default_una_end_to_end() {
    // Component `|`, element `^`, decimal comma, release `!`, terminator `#`; the default
    // characters are then ordinary data.
    let input = "UNA|^,! #UNB^UNOC|3^A^B^260101|1200^R#UNH^1^INVOIC|D|96A|UN#FTX^AAI^^^a+b:c's !# 1,5#UNT^3^1#UNZ^1^R#";
    let i = Interchange::parse(input.as_bytes()).unwrap();
    assert_eq!(i.delimiters.element, b'^');
    let ftx = i.messages[0].segments.get(1).unwrap();
    assert_eq!(ftx.component(3, 0), Some("a+b:c's # 1,5"));
    assert_eq!(ftx.position.offset, input.find("FTX").unwrap());
}
