//! CONTRL: UCI, UCF, UCM, UCS and UCD one at a time, the actions, and what is refused.

use super::*;

const D3: &str = "CONTRL:D:3:UN";

#[test]
fn uci_names_the_interchange_its_parties_and_the_action() {
    let ack = read_ok(D3, "UCI+HB000731+5412345000013:14+4012345000094:14+7'");
    assert_eq!(ack.message_type, "CONTRL");
    assert_eq!(ack.message_reference, "ACK1");
    assert_eq!(ack.position.segment, 2);
    assert_eq!(ack.action, Action::Accepted);
    assert_eq!(ack.interchange_reference.as_deref(), Some("HB000731"));
    let sender = ack.interchange_sender.expect("S002");
    assert_eq!(
        (sender.id.as_str(), sender.qualifier.as_deref()),
        ("5412345000013", Some("14"))
    );
    let recipient = ack.interchange_recipient.expect("S003");
    assert_eq!(recipient.id, "4012345000094");
    assert!(ack.errors.is_empty() && ack.messages.is_empty() && ack.groups.is_empty());
    assert_eq!(ack.document, None);
}

#[test]
fn uci_parties_are_optional() {
    let ack = read_ok(D3, "UCI+HB1+++8'");
    assert_eq!(ack.action, Action::Received);
    assert_eq!(ack.interchange_sender, None);
    assert_eq!(ack.interchange_recipient, None);
}

#[test]
fn an_interchange_level_error_has_its_code_meaning_tag_and_element() {
    let ack = read_ok(D3, "UCI+HB1+HUB:14+PARTNER:14+4+29+UNZ'");
    assert_eq!(ack.action, Action::Rejected);
    let [error] = ack.errors.as_slice() else {
        panic!("{:?}", ack.errors)
    };
    assert_eq!(error.code.as_deref(), Some("29"));
    assert_eq!(
        error.meaning.as_deref(),
        Some("control count does not match number of instances received")
    );
    assert_eq!(error.segment_tag.as_deref(), Some("UNZ"));
    assert_eq!(error.element, None);
    assert_eq!(error.position.segment, 3);

    let ack = read_ok(D3, "UCI+HB1+HUB+PARTNER+4+12+UNB+3:1'");
    let element = ack.errors[0].element.expect("S011");
    assert_eq!(
        (element.element, element.component, element.occurrence),
        (3, Some(1), None)
    );
}

#[test]
fn ucm_ucs_and_ucd_are_reported_under_their_message() {
    let ack = read_ok(
        D3,
        "UCI+HB1+HUB+PARTNER+4'\
         UCM+M1+INVOIC:D:96A:UN:EAN008+4'UCS+30'UCD+12+1:2'UCS+6+13'UCD+21+4:1'\
         UCM+M2+INVOIC:D:96A:UN+4+29+UNT'",
    );
    assert_eq!(ack.action, Action::Rejected);
    let [m1, m2] = ack.messages.as_slice() else {
        panic!("{:?}", ack.messages)
    };
    assert_eq!(m1.reference, "M1");
    assert_eq!(
        (
            m1.message_type.as_deref(),
            m1.release.as_deref(),
            m1.association_code.as_deref()
        ),
        (Some("INVOIC"), Some("96A"), Some("EAN008"))
    );
    assert_eq!(
        (m1.action, m1.group_reference.as_deref()),
        (Action::Rejected, None)
    );
    // UCS+30 has no code of its own: only its UCD speaks. UCS+6 has one, and a UCD.
    let found: Vec<_> = m1
        .errors
        .iter()
        .map(|e| {
            (
                e.segment_position,
                e.code.as_deref(),
                e.element.map(|p| (p.element, p.component)),
            )
        })
        .collect();
    assert_eq!(
        found,
        [
            (Some(30), Some("12"), Some((1, Some(2)))),
            (Some(6), Some("13"), None),
            (Some(6), Some("21"), Some((4, Some(1)))),
        ]
    );
    assert_eq!(m1.errors[0].meaning.as_deref(), Some("invalid value"));
    assert_eq!(
        m1.errors[2].meaning.as_deref(),
        Some("invalid character(s)")
    );
    // Each error points at the segment of the CONTRL that reports it: the UCD.
    assert_eq!(m1.errors[0].position.segment, 6);
    let [unt] = m2.errors.as_slice() else {
        panic!("{:?}", m2.errors)
    };
    assert_eq!(
        (unt.code.as_deref(), unt.segment_tag.as_deref()),
        (Some("29"), Some("UNT"))
    );
    assert_eq!(m2.association_code, None);
}

#[test]
fn a_ucs_without_code_or_ucd_still_names_its_segment() {
    let ack = read_ok(D3, "UCI+HB1+HUB+PARTNER+4'UCM+M1+ORDERS:D:96A:UN+4'UCS+12'");
    let error = &ack.messages[0].errors[0];
    assert_eq!(
        (error.segment_position, error.code.as_deref()),
        (Some(12), None)
    );
    assert_eq!(error.meaning, None);
}

#[test]
fn ucf_opens_a_group_and_an_accepting_level_over_a_rejection_is_partial() {
    let ack = read_ok(
        D3,
        "UCI+HB1+HUB+PARTNER+7'\
         UCF+G1+APPS:14+APPR:14+7'UCM+M1+INVOIC:D:96A:UN+4'UCS+3+12'\
         UCF+G2+APPS+APPR+7'UCM+M2+INVOIC:D:96A:UN+7'\
         UCF+G3+APPS+APPR+4+29+UNE'",
    );
    assert_eq!(ack.action, Action::PartiallyAccepted);
    let actions: Vec<_> = ack
        .groups
        .iter()
        .map(|g| (g.reference.as_str(), g.action))
        .collect();
    assert_eq!(
        actions,
        [
            ("G1", Action::PartiallyAccepted),
            ("G2", Action::Accepted),
            ("G3", Action::Rejected),
        ]
    );
    let g1 = &ack.groups[0];
    assert_eq!(
        g1.application_sender.as_ref().map(|p| p.id.as_str()),
        Some("APPS")
    );
    assert_eq!(
        g1.application_recipient
            .as_ref()
            .and_then(|p| p.qualifier.as_deref()),
        Some("14")
    );
    assert_eq!(ack.groups[2].errors[0].segment_tag.as_deref(), Some("UNE"));
    let groups: Vec<_> = ack
        .messages
        .iter()
        .map(|m| m.group_reference.as_deref())
        .collect();
    assert_eq!(groups, [Some("G1"), Some("G2")]);
}

#[test]
fn a_rejected_message_under_an_accepting_uci_is_partial() {
    let ack = read_ok(
        D3,
        "UCI+HB1+HUB+PARTNER+7'UCM+M1+INVOIC:D:96A:UN+4'UCM+M2+INVOIC:D:96A:UN+7'",
    );
    assert_eq!(ack.action, Action::PartiallyAccepted);
    let ack = read_ok(D3, "UCI+HB1+HUB+PARTNER+7'UCM+M2+INVOIC:D:96A:UN+7'");
    assert_eq!(ack.action, Action::Accepted);
    // Rejected and received stay what they are.
    let ack = read_ok(D3, "UCI+HB1+HUB+PARTNER+8'UCM+M1+INVOIC:D:96A:UN+4'");
    assert_eq!(ack.action, Action::Received);
}

#[test]
fn withdrawn_action_codes_are_still_read() {
    let action = |code: &str| read_ok(D3, &format!("UCI+HB1+HUB+PARTNER+{code}'")).action;
    assert_eq!(action("1"), Action::Accepted);
    assert_eq!(action("2"), Action::PartiallyAccepted);
    assert_eq!(action("5"), Action::Received);
    assert_eq!(action("6"), Action::Rejected);
}

#[test]
fn syntax_4_ucd_carries_the_occurrence() {
    let ack = read_ok(
        "CONTRL:4:1:UN",
        "UCI+HB1+HUB+PARTNER+4'UCM+M1+INVOIC:D:01B:UN+4'UCS+5'UCD+12+2:1:3'",
    );
    let element = ack.messages[0].errors[0].element.expect("S011");
    assert_eq!(
        (element.element, element.component, element.occurrence),
        (2, Some(1), Some(3))
    );
}

#[test]
fn a_contrl_without_uci_is_refused_at_unh() {
    let e = read_err(D3, "UCM+M1+INVOIC:D:96A:UN+4'");
    assert_eq!(e.kind, ReadErrorKind::MissingSegment("UCI"));
    assert_eq!(e.position.map(|p| p.segment), Some(2));
    assert_eq!(e.element, None);
}

#[test]
fn unknown_or_missing_values_are_refused_with_their_element() {
    let e = read_err(D3, "UCI+HB1+HUB+PARTNER+9'");
    assert_eq!(e.kind, ReadErrorKind::UnknownAction("9".into()));
    assert_eq!(e.position.map(|p| p.segment), Some(3));
    assert_eq!(
        e.element,
        Some(ElementPosition {
            element: 4,
            component: 1
        })
    );

    let e = read_err(D3, "UCI++HUB+PARTNER+7'");
    assert!(
        matches!(&e.kind, ReadErrorKind::MissingValue { tag, element: "0020", .. } if tag == "UCI"),
        "{e:?}"
    );
    assert_eq!(
        e.element,
        Some(ElementPosition {
            element: 1,
            component: 1
        })
    );

    let e = read_err(D3, "UCI+HB1+HUB+PARTNER'");
    assert!(
        matches!(
            e.kind,
            ReadErrorKind::MissingValue {
                element: "0083",
                ..
            }
        ),
        "{e:?}"
    );

    let e = read_err(D3, "UCI+HB1+HUB+PARTNER+4'UCM++INVOIC:D:96A:UN+4'");
    assert!(
        matches!(
            e.kind,
            ReadErrorKind::MissingValue {
                element: "0062",
                ..
            }
        ),
        "{e:?}"
    );
    assert_eq!(e.position.map(|p| p.segment), Some(4));

    let e = read_err(
        D3,
        "UCI+HB1+HUB+PARTNER+4'UCM+M1+INVOIC:D:96A:UN+4'UCS+3'UCD++1:2'",
    );
    assert!(
        matches!(
            e.kind,
            ReadErrorKind::MissingValue {
                element: "0085",
                ..
            }
        ),
        "{e:?}"
    );
    assert_eq!(e.position.map(|p| p.segment), Some(6));
}

#[test]
fn positions_must_be_numbers() {
    let e = read_err(D3, "UCI+HB1+HUB+PARTNER+4'UCM+M1+INVOIC:D:96A:UN+4'UCS+3X'");
    assert_eq!(
        e.kind,
        ReadErrorKind::NotANumber {
            element: "0096",
            value: "3X".into()
        }
    );
    assert_eq!(e.position.map(|p| p.segment), Some(5));
    let e = read_err(
        D3,
        "UCI+HB1+HUB+PARTNER+4'UCM+M1+INVOIC:D:96A:UN+4'UCS+3'UCD+12+1:B'",
    );
    assert!(
        matches!(
            e.kind,
            ReadErrorKind::NotANumber {
                element: "0104",
                ..
            }
        ),
        "{e:?}"
    );
    assert_eq!(
        e.element,
        Some(ElementPosition {
            element: 2,
            component: 2
        })
    );
}

#[test]
fn misplaced_segments_are_refused() {
    let e = read_err(D3, "UCI+HB1+HUB+PARTNER+4'UCS+3+12'");
    assert_eq!(
        e.kind,
        ReadErrorKind::Misplaced {
            tag: "UCS",
            why: "is not under a UCM"
        }
    );
    let e = read_err(
        D3,
        "UCI+HB1+HUB+PARTNER+4'UCM+M1+INVOIC:D:96A:UN+4'UCD+12+1:2'",
    );
    assert_eq!(
        e.kind,
        ReadErrorKind::Misplaced {
            tag: "UCD",
            why: "is not under a UCS"
        }
    );
    // A UCF closes the message before it: a UCS right after it has no message.
    let e = read_err(
        D3,
        "UCI+HB1+HUB+PARTNER+4'UCM+M1+INVOIC:D:96A:UN+4'UCF+G1+A+B+4'UCS+3'",
    );
    assert!(
        matches!(e.kind, ReadErrorKind::Misplaced { tag: "UCS", .. }),
        "{e:?}"
    );
    let e = read_err(D3, "UCI+HB1+HUB+PARTNER+7'UCI+HB2+HUB+PARTNER+7'");
    assert_eq!(
        e.kind,
        ReadErrorKind::Misplaced {
            tag: "UCI",
            why: "occurs twice"
        }
    );
    assert_eq!(e.position.map(|p| p.segment), Some(4));
}

#[test]
fn unknown_segments_are_passed_over() {
    let ack = read_ok(D3, "UCI+HB1+HUB+PARTNER+7'FTX+AAI+++note'");
    assert_eq!(ack.action, Action::Accepted);
}
