//! Unit tests of the CONTRL writer on the project sample with one fault at a time.

use super::*;
use crate::Interchange;
use crate::check::evaluate;

const SAMPLE: &str = include_str!("../../../../fixtures/edifact/invoic-eancom-d96a.edi");

fn params() -> ContrlParams {
    ContrlParams {
        interchange_reference: "C0000000000001".into(),
        message_reference: "1".into(),
        prepared: Prepared {
            year: 2026,
            month: 12,
            day: 3,
            hour: 9,
            minute: 5,
        },
    }
}

/// The sample with UNB asking for an acknowledgement.
fn acked(input: &str) -> String {
    input.replace("+EH000001++INVOIC'", "+EH000001++INVOIC++1'")
}

fn contrl(input: &str) -> Contrl {
    build(&evaluate(input.as_bytes()), &params()).expect("a CONTRL is due")
}

/// The CONTRL, read back with the crate's own strict parser.
fn reread(c: &Contrl) -> Interchange {
    Interchange::parse(&c.bytes)
        .unwrap_or_else(|e| panic!("the CONTRL does not parse: {e}\n{}", c.text))
}

fn segments_of(c: &Contrl) -> Vec<String> {
    c.text.split_inclusive('\'').map(str::to_owned).collect()
}

#[test]
fn an_accepted_interchange_gets_uci_7_and_the_contrl_parses_back() {
    let c = contrl(&acked(SAMPLE));
    assert_eq!(c.action, Action::Accepted);
    assert_eq!(c.acknowledged_reference, "EH000001");
    assert_eq!(
        c.text,
        "UNA:+.? '\
         UNB+UNOC:3+4012345000094:14+5412345000013:14+261203:0905+C0000000000001'\
         UNH+1+CONTRL:D:3:UN'\
         UCI+EH000001+5412345000013:14+4012345000094:14+7'\
         UNT+3+1'\
         UNZ+1+C0000000000001'"
    );
    let i = reread(&c);
    assert_eq!(i.header.sender_id, "4012345000094");
    assert_eq!(i.header.recipient_id, "5412345000013");
    assert_eq!(i.header.recipient_qualifier.as_deref(), Some("14"));
    assert_eq!(i.header.control_reference, "C0000000000001");
    assert!(!i.header.acknowledgement_requested);
    assert_eq!(i.messages.len(), 1);
    let m = &i.messages[0];
    assert_eq!(
        (m.message_type.as_str(), m.version.as_str()),
        ("CONTRL", "D")
    );
    // The strict parse checked UNT's count; say it once more in numbers.
    assert_eq!(m.segments.len(), 3);
}

#[test]
fn no_acknowledgement_requested_or_no_header_gives_none() {
    assert_eq!(build(&evaluate(SAMPLE.as_bytes()), &params()), None);
    assert_eq!(build(&evaluate(b"not edifact"), &params()), None);
}

#[test]
fn an_interchange_of_contrl_messages_is_not_acknowledged() {
    let c = contrl(&acked(SAMPLE));
    let mut report = evaluate(&c.bytes);
    assert!(report.header.is_some());
    if let Some(h) = report.header.as_mut() {
        h.acknowledgement_requested = true;
    }
    assert_eq!(build(&report, &params()), None);
}

#[test]
fn a_faulty_message_gets_ucm_4_and_ucs_with_its_position_and_code() {
    let input = acked(SAMPLE).replace("MOA+9:267.75", "MOA+9:26O");
    let c = contrl(&input);
    assert_eq!(c.action, Action::Rejected);
    let segments = segments_of(&c);
    assert!(
        segments.contains(&"UCI+EH000001+5412345000013:14+4012345000094:14+4'".to_owned()),
        "{segments:?}"
    );
    // MOA+9 is segment 31 of the interchange and UNH segment 2: position 30.
    assert!(
        segments.contains(&"UCM+1+INVOIC:D:96A:UN:EAN008+4'".to_owned()),
        "{segments:?}"
    );
    // The segment is sound as such; its element 1, component 2 (5004) is not.
    let ucs = segments.iter().position(|s| s == "UCS+30'");
    let ucd = segments.iter().position(|s| s == "UCD+12+1:2'");
    assert!(ucs.is_some() && ucd == ucs.map(|i| i + 1), "{segments:?}");
    let i = reread(&c);
    assert_eq!(i.messages[0].segments.len(), 6);
}

#[test]
fn element_faults_get_a_ucd_each_and_segment_faults_stay_in_ucs() {
    // A character UNOC does not allow in NAD 3036 (element 4, component 1) and an
    // impossible date in DTM+137 2380 (element 1, component 2).
    let input = acked(SAMPLE)
        .replace("Muster Lieferant", "Muster\u{1}Lieferant")
        .replace("DTM+137:20261202:102", "DTM+137:20261332:102");
    let segments = segments_of(&contrl(&input));
    let after = |first: &str| {
        let i = segments
            .iter()
            .position(|s| s == first)
            .unwrap_or_else(|| panic!("{first} in {segments:?}"));
        segments[i + 1].clone()
    };
    // DTM+137 is segment 3 of the message, NAD+SU segment 6.
    assert_eq!(after("UCS+3'"), "UCD+12+1:2'", "{segments:?}");
    assert_eq!(after("UCS+6'"), "UCD+21+4:1'", "{segments:?}");
}

#[test]
fn a_wrong_unt_count_is_reported_in_ucm() {
    let input = acked(SAMPLE).replace("UNT+34+1", "UNT+33+1");
    let segments = segments_of(&contrl(&input));
    assert!(
        segments.contains(&"UCM+1+INVOIC:D:96A:UN:EAN008+4+29+UNT'".to_owned()),
        "{segments:?}"
    );
}

#[test]
fn interchange_level_faults_go_in_uci() {
    let input = acked(SAMPLE).replace("UNZ+1+EH000001", "UNZ+2+EH000001");
    let segments = segments_of(&contrl(&input));
    assert!(
        segments.contains(&"UCI+EH000001+5412345000013:14+4012345000094:14+4+29+UNZ'".to_owned()),
        "{segments:?}"
    );
    assert!(!segments.iter().any(|s| s.starts_with("UCM")));

    // A truncated interchange: no message could be read, UCI carries "missing".
    let cut = &acked(SAMPLE)[..acked(SAMPLE).find("UNT+").unwrap_or(0)];
    let c = contrl(cut);
    assert_eq!(c.action, Action::Rejected);
    assert!(c.text.contains("+4+13'"), "{}", c.text);
    reread(&c);
}

#[test]
fn a_sound_message_of_any_type_is_acknowledged_as_accepted() {
    let input = acked(SAMPLE).replace("UNH+1+INVOIC", "UNH+1+DESADV");
    let c = contrl(&input);
    assert_eq!(c.action, Action::Accepted, "{}", c.text);
    assert!(!c.text.contains("UCM"), "{}", c.text);
}

#[test]
fn a_tolerated_character_gives_a_positive_contrl() {
    // The sample writes names in lower case, which level A does not have.
    let input = acked(SAMPLE).replace("UNOC:3", "UNOA:3");
    let report = crate::check::evaluate(input.as_bytes());
    assert!(!report.warnings.is_empty(), "{:?}", report.faults);
    let c = contrl(&input);
    assert_eq!(c.action, Action::Accepted, "{}", c.text);
    // The CONTRL is written in the subject's repertoire: no lower case under UNOA.
    reread(&c);
}

#[test]
fn values_with_service_characters_are_released() {
    assert_eq!(escape("A?B+C:D'E*F", false), "A??B?+C?:D?'E*F");
    assert_eq!(escape("A*B", true), "A?*B");
    assert_eq!(escape("plain", true), "plain");

    let input = acked(SAMPLE)
        .replace("UNB+UNOC:3+5412345000013:14", "UNB+UNOC:3+ACME?+CO?:1:14")
        .replace("+EH000001+", "+REF?'??1+")
        .replace("UNZ+1+EH000001", "UNZ+1+REF?'??1");
    let c = contrl(&input);
    assert!(
        c.text
            .contains("UCI+REF?'??1+ACME?+CO?:1:14+4012345000094:14+7'"),
        "{}",
        c.text
    );
    let i = reread(&c);
    assert_eq!(i.header.recipient_id, "ACME+CO:1");
}

#[test]
fn syntax_4_writes_the_century_the_repetition_separator_and_contrl_4_1() {
    let input = acked(SAMPLE)
        .replace("UNA:+.? '", "UNA:+.?*'")
        .replace("UNOC:3", "UNOC:4")
        .replace("261202:1400", "20261202:1400")
        .replace("+EH000001++INVOIC++1'", "+EH?*1++INVOIC++1++1'")
        .replace("UNZ+1+EH000001", "UNZ+1+EH?*1");
    let c = contrl(&input);
    assert!(c.text.starts_with("UNA:+.?*'UNB+UNOC:4+"), "{}", c.text);
    assert!(
        c.text.contains("+20261203:0905+C0000000000001++++++1'"),
        "{}",
        c.text
    );
    assert!(c.text.contains("UNH+1+CONTRL:4:1:UN'"), "{}", c.text);
    assert!(c.text.contains("UCI+EH?*1+"), "{}", c.text);
    let i = reread(&c);
    assert!(i.header.test_indicator);
}

#[test]
fn values_outside_the_repertoire_are_replaced_and_latin1_is_encoded() {
    // UNOC is ISO 8859-1: the sender's u-umlaut is the single byte 0xFC.
    let input = acked(SAMPLE).replacen("5412345000013:14+", "M\u{1}ller:14+", 1);
    let bytes: Vec<u8> = input
        .bytes()
        .map(|b| if b == 1 { 0xFC } else { b })
        .collect();
    let c = build(&evaluate(&bytes), &params()).expect("a CONTRL is due");
    assert!(c.text.contains("UCI+EH000001+Müller:14+"), "{}", c.text);
    // UNOC: one byte per character.
    assert!(c.bytes.windows(6).any(|w| w == b"M\xFCller"));
    reread(&c);

    // UNOA has neither the u-umlaut nor lower case: the reader reported both and
    // decoded lossily; the CONTRL upper-cases and writes `?` (released) instead.
    let mut raw = bytes.clone();
    let at = raw
        .windows(6)
        .position(|w| w == b"UNOC:3")
        .expect("syntax identifier");
    raw[at + 3] = b'A';
    let c = build(&evaluate(&raw), &params()).expect("a CONTRL is due");
    assert!(c.text.contains("UCI+EH000001+M??LLER:14+"), "{}", c.text);
    reread(&c);
    assert_eq!(Charset::LevelA.writable('a'), Some('A'));
    assert_eq!(Charset::LevelA.writable('\u{fc}'), None);
    assert_eq!(Charset::AsciiPartOf("UNOD").writable('\u{fc}'), None);
}
