//! APERAK: BGM, DTM, RFF, ERC and FTX one at a time, the verdict, and what is refused.

use super::*;

const D96A: &str = "APERAK:D:96A:UN:EAN001";

#[test]
fn an_accepting_aperak_says_what_it_answers() {
    let ack = read_ok(
        D96A,
        "BGM+313+APK1+29'DTM+137:20261203:102'RFF+ACW:M1'DTM+171:20261202:102'\
         NAD+MS+4012345000094::9'",
    );
    assert_eq!(ack.message_type, "APERAK");
    assert_eq!(ack.action, Action::Accepted);
    assert!(ack.errors.is_empty());
    assert_eq!(ack.interchange_reference, None);
    let document = ack.document.as_ref().expect("BGM");
    assert_eq!(document.name_code.as_deref(), Some("313"));
    assert_eq!(document.number.as_deref(), Some("APK1"));
    assert_eq!(document.function_code.as_deref(), Some("29"));
    assert_eq!(document.position.segment, 3);
    let [issued] = document.dates.as_slice() else {
        panic!("{:?}", document.dates)
    };
    assert_eq!(
        (
            issued.qualifier.as_str(),
            issued.value.as_deref(),
            issued.format.as_deref()
        ),
        ("137", Some("20261203"), Some("102"))
    );
    assert_eq!(ack.reference("ACW"), Some("M1"));
    assert_eq!(ack.reference("ON"), None);
    // The DTM after the RFF is the reference's date, not the message's.
    assert_eq!(ack.references[0].dates[0].qualifier, "171");
}

#[test]
fn a_rejecting_aperak_has_its_errors_with_texts_and_references() {
    let ack = read_ok(
        D96A,
        "BGM+313+APK2+27'DTM+137:20261203:102'FTX+AAI+++whole message'RFF+ACW:M1'\
         ERC+12:ZZZ:9'FTX+AAO+++Invoice number:already used'RFF+ON:PO1:3'DTM+171:20261201:102'\
         ERC+13'FTX+AAO++ERR7'",
    );
    assert_eq!(ack.action, Action::Rejected);
    let [first, second] = ack.errors.as_slice() else {
        panic!("{:?}", ack.errors)
    };
    assert_eq!(first.code.as_deref(), Some("12"));
    assert_eq!(
        (first.code_list.as_deref(), first.agency.as_deref()),
        (Some("ZZZ"), Some("9"))
    );
    assert_eq!(first.meaning, None, "APERAK codes are the partner's list");
    assert_eq!(first.position.segment, 7);
    let [text] = first.texts.as_slice() else {
        panic!("{:?}", first.texts)
    };
    assert_eq!(
        (text.subject.as_deref(), text.text.as_str()),
        (Some("AAO"), "Invoice number\nalready used")
    );
    let [line] = first.references.as_slice() else {
        panic!("{:?}", first.references)
    };
    assert_eq!(
        (
            line.qualifier.as_str(),
            line.value.as_deref(),
            line.line.as_deref()
        ),
        ("ON", Some("PO1"), Some("3"))
    );
    assert_eq!(line.dates[0].value.as_deref(), Some("20261201"));
    assert_eq!(second.code.as_deref(), Some("13"));
    // A coded text only.
    assert_eq!(second.texts[0].code.as_deref(), Some("ERR7"));
    assert_eq!(second.texts[0].text, "");
    // The top-level reference stays top level; the message's FTX is the document's.
    assert_eq!(ack.reference("ACW"), Some("M1"));
    assert_eq!(ack.references.len(), 1);
    let document = ack.document.expect("BGM");
    assert_eq!(document.texts[0].text, "whole message");
    assert_eq!(document.dates.len(), 1);
}

#[test]
fn a_coded_text_keeps_its_code() {
    let ack = read_ok(D96A, "BGM+313+APK3+27'ERC+13'FTX+AAO++E17:ZZZ'");
    let text = &ack.errors[0].texts[0];
    assert_eq!(
        (text.code.as_deref(), text.text.as_str()),
        (Some("E17"), "")
    );
}

#[test]
fn the_verdict_comes_from_the_function_then_the_response_type_then_the_errors() {
    let action = |body: &str| read_ok(D96A, body).action;
    assert_eq!(action("BGM+313+A+27'"), Action::Rejected);
    assert_eq!(action("BGM+313+A+48'"), Action::Rejected);
    assert_eq!(action("BGM+313+A+44'"), Action::Accepted);
    // EANCOM 2002: 6 confirms, 27 refuses, whatever the ERC says.
    assert_eq!(action("BGM+305+10012+6'RFF+ON:652'"), Action::Accepted);
    assert_eq!(action("BGM+305+10012+6'ERC+ACK'"), Action::Accepted);
    assert_eq!(
        action("BGM+305+10015+27'RFF+IV:2744'ERC+186::92'"),
        Action::Rejected
    );
    assert_eq!(action("BGM+313+A+34'ERC+W1'"), Action::Accepted);
    assert_eq!(action("BGM+313+A+9+RE'"), Action::Rejected);
    assert_eq!(action("BGM+313+A++AP'ERC+W1'"), Action::Accepted);
    assert_eq!(action("BGM+313+A+9'ERC+Z10'"), Action::Rejected);
    assert_eq!(action("BGM+313+A'"), Action::Accepted);
    // D.01B: the document number is C106/1004, in the same place.
    let ack = read_ok("APERAK:D:01B:UN:EAN004", "BGM+313+APK9:1:2+27'");
    assert_eq!(ack.document.and_then(|d| d.number).as_deref(), Some("APK9"));
}

#[test]
fn an_aperak_without_bgm_is_refused_at_unh() {
    let e = read_err(D96A, "RFF+ACW:M1'ERC+12'");
    assert_eq!(e.kind, ReadErrorKind::MissingSegment("BGM"));
    assert_eq!(e.position.map(|p| p.segment), Some(2));
}

#[test]
fn values_an_aperak_cannot_do_without_are_refused_with_their_position() {
    let e = read_err(D96A, "BGM+313+A+27'ERC+:ZZZ'");
    assert!(
        matches!(
            e.kind,
            ReadErrorKind::MissingValue {
                element: "9321",
                ..
            }
        ),
        "{e:?}"
    );
    assert_eq!(e.position.map(|p| p.segment), Some(4));
    assert_eq!(
        e.element,
        Some(ElementPosition {
            element: 1,
            component: 1
        })
    );
    let e = read_err(D96A, "BGM+313+A+27'RFF+:M1'");
    assert!(
        matches!(
            e.kind,
            ReadErrorKind::MissingValue {
                element: "1153",
                ..
            }
        ),
        "{e:?}"
    );
    let e = read_err(D96A, "BGM+313+A+27'DTM+:20261203:102'");
    assert!(
        matches!(
            e.kind,
            ReadErrorKind::MissingValue {
                element: "2005",
                ..
            }
        ),
        "{e:?}"
    );
    let e = read_err(D96A, "BGM+313+A+27'BGM+313+B+29'");
    assert_eq!(
        e.kind,
        ReadErrorKind::Misplaced {
            tag: "BGM",
            why: "occurs twice"
        }
    );
    assert_eq!(e.position.map(|p| p.segment), Some(4));
}
