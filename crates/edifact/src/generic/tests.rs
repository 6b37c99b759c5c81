//! Unit tests of `generic`.

use super::*;
use crate::Interchange;

fn rendered(input: &str) -> Vec<GenericMessage> {
    let interchange = Interchange::parse(input.as_bytes()).expect("sound interchange");
    interchange
        .messages
        .iter()
        .map(GenericMessage::of)
        .collect()
}

#[test]
fn keeps_empty_values_and_released_characters() {
    let input = "UNB+UNOC:3+S:14+R:14+261203:0900+R1'\
        UNH+7+DESADV:D:96A:UN:EAN005'NAD+DP+4012345000094::9++Lager ?+ Hof'UNT+3+7'UNZ+1+R1'";
    let messages = rendered(input);
    let m = &messages[0];
    assert_eq!(m.reference, "7");
    assert_eq!(m.message_type(), "DESADV");
    assert_eq!(m.identifier.association_code.as_deref(), Some("EAN005"));
    let nad = &m.segments[1];
    assert_eq!(nad.tag, "NAD");
    assert_eq!(nad.position.segment, 3);
    assert_eq!(nad.position.offset, input.find("NAD").unwrap());
    assert_eq!(
        nad.elements,
        [
            vec!["DP".to_owned()],
            vec!["4012345000094".to_owned(), String::new(), "9".to_owned()],
            vec![String::new()],
            vec!["Lager + Hof".to_owned()],
        ]
    );
    assert_eq!(m.segments.last().map(|s| s.tag.as_str()), Some("UNT"));
}

#[test]
fn keeps_repetitions_apart_and_round_trips_through_json() {
    let input = "UNA:+.?*'UNB+UNOC:4+S:14+R:14+20261203:0900+R1'\
        UNH+1+ORDERS:D:01B:UN'RFF+ON:1*ON:2+X'UNT+3+1'UNZ+1+R1'";
    let m = &rendered(input)[0];
    let rff = &m.segments[1];
    assert_eq!(rff.elements, [vec!["ON", "1"], vec!["X"]]);
    assert_eq!(
        rff.repetitions,
        [GenericRepetition {
            element: 1,
            components: vec!["ON".into(), "2".into()]
        }]
    );
    let json = serde_json::to_string(m).unwrap();
    let back: GenericMessage = serde_json::from_str(&json).unwrap();
    assert_eq!(&back, m);
}
