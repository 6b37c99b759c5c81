//! Unit tests of `syntax`.

use super::*;

#[test]
fn una_with_non_default_characters() {
    let p = read_preamble(b"UNA|^,! #\nUNB^UNOC|3^A^B^260101|1200^1#").unwrap();
    let d = p.delimiters;
    assert_eq!(
        (
            d.component,
            d.element,
            d.decimal_mark,
            d.release,
            d.repetition
        ),
        (b'|', b'^', b',', Some(b'!'), None)
    );
    assert_eq!(d.segment_terminator, b'#');
    assert_eq!(p.body_start, 9);
    assert_eq!(&p.syntax_identifier, b"UNOC");
}

#[test]
fn una_after_bom_and_blank_lines() {
    let p = read_preamble(b"\xEF\xBB\xBF\r\n  UNA:+.?*'UNB+UNOW:4+A+B+1:1+1'").unwrap();
    assert_eq!(p.body_start, 3 + 4 + 9);
    assert_eq!(p.delimiters.repetition, Some(b'*'));
}

#[test]
fn syntax_4_without_una_gets_repetition_separator() {
    let p = read_preamble(b"UNB+UNOC:4+A+B+1:1+1'").unwrap();
    assert_eq!(p.delimiters.repetition, Some(b'*'));
    let p = read_preamble(b"UNB+UNOC:3+A+B+1:1+1'").unwrap();
    assert_eq!(p.delimiters.repetition, None);
}

#[test]
fn una_rejects_duplicate_and_short() {
    let e = read_preamble(b"UNA::.? 'UNB").unwrap_err();
    assert!(matches!(e.kind, ParseErrorKind::InvalidUna(_)));
    assert_eq!(e.position.segment, 0);
    let e = read_preamble(b"UNA:+").unwrap_err();
    assert_eq!(e.kind, ParseErrorKind::Truncated);
}

#[test]
fn missing_unb() {
    let e = read_preamble(b"\nBGM+380+1'").unwrap_err();
    assert_eq!(e.kind, ParseErrorKind::MissingUnb);
    assert_eq!(
        e.position,
        SourcePosition {
            segment: 1,
            offset: 1
        }
    );
    assert_eq!(
        read_preamble(b"").unwrap_err().kind,
        ParseErrorKind::MissingUnb
    );
}
