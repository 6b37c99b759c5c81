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

#[test]
fn tolerant_reads_level_a_and_b_strays_as_latin1() {
    let mut out = String::new();
    let t = Charset::LevelA
        .decode_tolerant_into(b"Stra\xDFe", &mut out)
        .unwrap();
    assert_eq!(out, "Straße");
    // `t`, `r`, `a`, `ß`, `e`: five bytes outside level A, the first at index 1.
    assert_eq!((t.first, t.bytes), (1, 5));
    out.clear();
    let t = Charset::LevelB
        .decode_tolerant_into(b"Caf\xE9", &mut out)
        .unwrap();
    assert_eq!((out.as_str(), t.first, t.bytes), ("Café", 3, 1));
}

#[test]
fn tolerant_keeps_controls_and_undecodable_bytes_as_faults() {
    let mut out = String::new();
    let invalid = |syntax_identifier, byte| ParseErrorKind::InvalidCharacter {
        syntax_identifier,
        byte,
    };
    for (charset, bytes, fault) in [
        (Charset::LevelA, &b"ab\x07"[..], invalid("UNOA", 0x07)),
        (Charset::LevelB, b"a\x7F", invalid("UNOB", 0x7F)),
        (Charset::LevelB, b"\x85", invalid("UNOB", 0x85)),
        (Charset::Latin1, b"\x1B", invalid("UNOC", 0x1B)),
        (Charset::AsciiPartOf("UNOD"), b"\xB1", invalid("UNOD", 0xB1)),
        (Charset::Utf8("UNOW"), b"\xDF", ParseErrorKind::InvalidUtf8),
    ] {
        assert_eq!(
            charset.decode_tolerant_into(bytes, &mut out),
            Err(fault),
            "{bytes:?}"
        );
        assert_eq!(out, "", "nothing is written on error");
    }
}

#[test]
fn policy_names_parse_and_print() {
    assert_eq!(CharsetPolicy::default(), CharsetPolicy::Tolerant);
    for policy in [CharsetPolicy::Strict, CharsetPolicy::Tolerant] {
        assert_eq!(policy.to_string().parse::<CharsetPolicy>(), Ok(policy));
        let json = serde_json::to_string(&policy).unwrap();
        assert_eq!(json, format!("\"{policy}\""));
    }
    assert!("lenient".parse::<CharsetPolicy>().is_err());
}
