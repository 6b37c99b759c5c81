//! Unit tests of `tokenizer`.

use super::*;

fn tokens(input: &[u8]) -> Result<Segments, ParseError> {
    let mut t = Tokenizer::new(input, 0, Delimiters::default(), Charset::Latin1);
    let mut segments = Segments::default();
    while let Some(read) = t.next_segment(&mut segments) {
        read?;
    }
    Ok(segments)
}

fn nth(segments: &Segments, i: usize) -> crate::Segment<'_> {
    segments.get(i).expect("segment")
}

#[test]
fn release_character_escapes_every_delimiter() {
    let s = tokens(b"FTX+AAI+++it?'s 1?+1?:2 ??'").unwrap();
    assert_eq!(nth(&s, 0).tag, "FTX");
    assert_eq!(nth(&s, 0).component(3, 0), Some("it's 1+1:2 ?"));
    assert_eq!(nth(&s, 0).to_vecs()[1], [String::new()]);
}

#[test]
fn components_and_empty_values() {
    let s = tokens(b"NAD+BY+5412345000013::9++Name'UNS+S'").unwrap();
    let nad = nth(&s, 0);
    assert_eq!(nad.component(1, 0), Some("5412345000013"));
    assert_eq!(nad.component(1, 1), None);
    assert_eq!(nad.component(1, 2), Some("9"));
    assert_eq!(nad.component(3, 0), Some("Name"));
    assert_eq!(nad.component(9, 0), None);
    assert_eq!(nad.element(2).map(|e| e.len()), Some(1));
    assert_eq!(nth(&s, 1).tag, "UNS");
    assert_eq!(
        nth(&s, 1).position,
        SourcePosition {
            segment: 2,
            offset: 30
        }
    );
}

#[test]
fn offsets_are_exact_with_lf_and_crlf() {
    let lf = tokens(b"UNB+UNOC:3'\nUNH+1'\nUNT+2+1'\n").unwrap();
    let offsets: Vec<_> = lf.iter().map(|s| s.position.offset).collect();
    assert_eq!(offsets, [0, 12, 19]);
    let crlf = tokens(b"UNB+UNOC:3'\r\nUNH+1'\r\nUNT+2+1'\r\n").unwrap();
    let offsets: Vec<_> = crlf.iter().map(|s| s.position.offset).collect();
    assert_eq!(offsets, [0, 13, 21]);
    let numbers: Vec<_> = crlf.iter().map(|s| s.position.segment).collect();
    assert_eq!(numbers, [1, 2, 3]);
}

#[test]
fn repetition_separator_keeps_first_occurrence_in_place() {
    let d = Delimiters {
        repetition: Some(b'*'),
        ..Delimiters::default()
    };
    let mut t = Tokenizer::new(b"CUX+2:EUR:4*3:USD:7+1.1'", 0, d, Charset::LevelA);
    let mut segments = Segments::default();
    t.next_segment(&mut segments).unwrap().unwrap();
    let s = nth(&segments, 0);
    assert_eq!(s.component(0, 1), Some("EUR"));
    assert_eq!(s.component(1, 0), Some("1.1"));
    assert_eq!(s.element_count(), 2);
    let all: Vec<_> = s.occurrences(0).filter_map(|c| c.get(1)).collect();
    assert_eq!(all, ["EUR", "USD"]);
    assert_eq!(s.occurrences(1).count(), 1);
}

#[test]
fn truncated_and_empty_and_bad_tags() {
    let e = tokens(b"UNB+UNOC:3'UNH+1").unwrap_err();
    assert_eq!(e.kind, ParseErrorKind::Truncated);
    assert_eq!(
        e.position,
        SourcePosition {
            segment: 2,
            offset: 11
        }
    );
    let e = tokens(b"UNB+X?").unwrap_err();
    assert_eq!(e.kind, ParseErrorKind::Truncated);
    let e = tokens(b"UNB+X''").unwrap_err();
    assert_eq!(e.kind, ParseErrorKind::EmptySegment);
    assert_eq!(e.position.segment, 2);
    let e = tokens(b"bgm+1'").unwrap_err();
    assert_eq!(e.kind, ParseErrorKind::InvalidTag("bgm".into()));
    let e = tokens(b"BG:1+1'").unwrap_err();
    assert_eq!(e.kind, ParseErrorKind::InvalidTag("BG".into()));
    let e = tokens(b"BGM:1+1'").unwrap_err();
    assert_eq!(e.kind, ParseErrorKind::InvalidTag("BGM:".into()));
}

#[test]
fn charset_errors_are_located() {
    let mut t = Tokenizer::new(b"UNB+A'\nFTX+a'", 0, Delimiters::default(), Charset::LevelA);
    let mut segments = Segments::default();
    assert!(t.next_segment(&mut segments).unwrap().is_ok());
    let e = t.next_segment(&mut segments).unwrap().unwrap_err();
    // The defective segment left nothing behind.
    assert_eq!(segments.len(), 1);
    assert_eq!(nth(&segments, 0).component(0, 0), Some("A"));
    assert_eq!(
        e.position,
        SourcePosition {
            segment: 2,
            offset: 7
        }
    );
}

#[test]
fn tolerant_values_are_warned_with_the_byte_offset_even_when_released() {
    let input = b"NAD+BY+Ma?+yer:Stra\xDFe'";
    let mut t = Tokenizer::new(input, 0, Delimiters::default(), Charset::LevelA)
        .with_policy(CharsetPolicy::Tolerant);
    let mut segments = Segments::default();
    t.next_segment(&mut segments).unwrap().unwrap();
    assert_eq!(nth(&segments, 0).component(1, 0), Some("Ma+yer"));
    assert_eq!(nth(&segments, 0).component(1, 1), Some("Straße"));
    let mut warnings = CharsetWarnings::default();
    t.take_warnings(&mut warnings);
    let found: Vec<_> = warnings
        .listed
        .iter()
        .map(|w| (w.element, w.byte_offset, w.byte, w.bytes))
        .collect();
    assert_eq!(
        found,
        [
            // `a` after `M`, in the released value.
            (ElementPosition::at(1, 0), 8, b'a', 4),
            (ElementPosition::at(1, 1), 16, b't', 5),
        ]
    );
    // Strict, the same segment is an error.
    let mut strict = Tokenizer::new(input, 0, Delimiters::default(), Charset::LevelA);
    assert!(
        strict
            .next_segment(&mut Segments::default())
            .unwrap()
            .is_err()
    );
}
