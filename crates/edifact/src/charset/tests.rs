//! Unit tests of `charset`.

use super::*;

#[test]
fn level_a_rejects_lower_case() {
    assert_eq!(Charset::LevelA.decode(b"ABC 12.5").unwrap(), "ABC 12.5");
    assert_eq!(
        Charset::LevelA.decode(b"Abc").unwrap_err(),
        ParseErrorKind::InvalidCharacter {
            syntax_identifier: "UNOA",
            byte: b'b'
        }
    );
    assert_eq!(Charset::LevelB.decode(b"Abc").unwrap(), "Abc");
}

#[test]
fn latin1_and_utf8() {
    assert_eq!(Charset::Latin1.decode(b"Stra\xDFe").unwrap(), "Straße");
    assert!(Charset::LevelB.decode(b"Stra\xDFe").is_err());
    assert_eq!(
        Charset::Utf8("UNOW").decode("Straße".as_bytes()).unwrap(),
        "Straße"
    );
    assert_eq!(
        Charset::Utf8("UNOW").decode(b"Stra\xDFe").unwrap_err(),
        ParseErrorKind::InvalidUtf8
    );
    assert!(Charset::AsciiPartOf("UNOD").decode(b"\xB1").is_err());
}
