//! Acknowledgements from partners: a CONTRL as the hub's own writer produces one reads
//! back into exactly what it acknowledges (interchange, groups, messages, segment and
//! value positions), for the project sample with faults and for every project fixture;
//! and the CONTRL and APERAK fixtures decode to their documented outcome.

use std::path::PathBuf;

use edihub_edifact::Interchange;
use edihub_edifact::check::{Report, evaluate};
use edihub_edifact::contrl::{self, ContrlParams, Prepared};
use edihub_edifact::received::{Action, ReadErrorKind, ReceivedAcknowledgement, read};

const SAMPLE: &str = include_str!("../../../fixtures/edifact/invoic-eancom-d96a.edi");
const ACCEPTING: &str = include_str!("../../../fixtures/edifact/contrl-accepting.edi");
const REJECTING: &str = include_str!("../../../fixtures/edifact/contrl-rejecting.edi");

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

/// The hub's CONTRL for `input` (as if UNB asked for one), decoded as a partner's.
fn round_trip(input: &[u8]) -> Option<(Report, contrl::Contrl, ReceivedAcknowledgement)> {
    let mut report = evaluate(input);
    report.header.as_mut()?.acknowledgement_requested = true;
    let written = contrl::build(&report, &params())?;
    let ack = decode(&written.bytes);
    Some((report, written, ack))
}

/// The one message of `bytes`, decoded.
fn decode(bytes: &[u8]) -> ReceivedAcknowledgement {
    let interchange = Interchange::parse(bytes).unwrap_or_else(|e| panic!("{e}"));
    let [message] = interchange.messages.as_slice() else {
        panic!("{} messages", interchange.messages.len())
    };
    match read(message) {
        Some(Ok(ack)) => ack,
        other => panic!("{other:?}"),
    }
}

fn grouped(sample: &str) -> String {
    sample
        .replace(
            "UNH+1+INVOIC",
            "UNG+INVOIC+5412345000013:14+4012345000094:14+261202:1400+G1+UN+D:96A'UNH+1+INVOIC",
        )
        .replace("UNZ+1+", "UNE+1+G1'UNZ+1+")
}

#[test]
fn the_hubs_accepting_contrl_reads_back_as_accepted() {
    let (report, _, ack) = round_trip(SAMPLE.as_bytes()).expect("a CONTRL is due");
    let header = report.header.expect("header");
    assert_eq!(ack.message_type, "CONTRL");
    assert_eq!(ack.action, Action::Accepted);
    assert_eq!(ack.interchange_reference, Some(header.control_reference));
    let sender = ack.interchange_sender.expect("S002");
    assert_eq!(sender.id, header.sender_id);
    assert_eq!(sender.qualifier, header.sender_qualifier);
    let recipient = ack.interchange_recipient.expect("S003");
    assert_eq!(recipient.id, header.recipient_id);
    assert!(ack.errors.is_empty() && ack.messages.is_empty() && ack.groups.is_empty());
}

#[test]
fn the_hubs_rejecting_contrl_reads_back_with_ucm_ucs_and_ucd() {
    // A bad amount (MOA+9 5004, segment 30 of the message) and an impossible date
    // (DTM+137 2380, segment 3).
    let input = SAMPLE
        .replace("MOA+9:267.75", "MOA+9:26O")
        .replace("DTM+137:20261202:102", "DTM+137:20261332:102");
    let (_, _, ack) = round_trip(input.as_bytes()).expect("a CONTRL is due");
    assert_eq!(ack.action, Action::Rejected);
    assert_eq!(ack.interchange_reference.as_deref(), Some("EH000001"));
    let [message] = ack.messages.as_slice() else {
        panic!("{:?}", ack.messages)
    };
    assert_eq!(message.reference, "1");
    assert_eq!(message.message_type.as_deref(), Some("INVOIC"));
    assert_eq!(message.association_code.as_deref(), Some("EAN008"));
    assert_eq!(message.action, Action::Rejected);
    let errors: Vec<_> = message
        .errors
        .iter()
        .map(|e| {
            (
                e.segment_position,
                e.code.as_deref(),
                e.meaning.as_deref(),
                e.element.map(|p| (p.element, p.component)),
            )
        })
        .collect();
    assert_eq!(
        errors,
        [
            (
                Some(3),
                Some("12"),
                Some("invalid value"),
                Some((1, Some(2)))
            ),
            (
                Some(30),
                Some("12"),
                Some("invalid value"),
                Some((1, Some(2)))
            ),
        ]
    );
}

#[test]
fn service_segment_faults_read_back_with_their_tag() {
    let input = SAMPLE.replace("UNT+34+1", "UNT+33+1");
    let (_, _, ack) = round_trip(input.as_bytes()).expect("a CONTRL is due");
    let error = &ack.messages[0].errors[0];
    assert_eq!(
        (error.code.as_deref(), error.segment_tag.as_deref()),
        (Some("29"), Some("UNT"))
    );

    let input = SAMPLE.replace("UNZ+1+EH000001", "UNZ+2+EH000001");
    let (_, _, ack) = round_trip(input.as_bytes()).expect("a CONTRL is due");
    assert_eq!(ack.action, Action::Rejected);
    assert!(ack.messages.is_empty());
    let [error] = ack.errors.as_slice() else {
        panic!("{:?}", ack.errors)
    };
    assert_eq!(error.segment_tag.as_deref(), Some("UNZ"));
    assert_eq!(error.code.as_deref(), Some("29"));
}

#[test]
fn grouped_faults_read_back_under_their_group() {
    let input = grouped(SAMPLE).replace("MOA+9:267.75", "MOA+9:26O");
    let (_, _, ack) = round_trip(input.as_bytes()).expect("a CONTRL is due");
    assert_eq!(ack.action, Action::Rejected);
    let [group] = ack.groups.as_slice() else {
        panic!("{:?}", ack.groups)
    };
    assert_eq!(group.reference, "G1");
    assert_eq!(group.action, Action::Rejected);
    assert_eq!(
        group.application_sender.as_ref().map(|p| p.id.as_str()),
        Some("5412345000013")
    );
    assert_eq!(ack.messages[0].group_reference.as_deref(), Some("G1"));
    assert_eq!(ack.messages[0].errors[0].segment_position, Some(30));

    let input = grouped(SAMPLE).replace("UNE+1+G1'", "UNE+2+G1'");
    let (_, _, ack) = round_trip(input.as_bytes()).expect("a CONTRL is due");
    assert_eq!(ack.groups[0].errors[0].segment_tag.as_deref(), Some("UNE"));
    assert!(ack.messages.is_empty());
}

#[test]
fn syntax_4_contrl_reads_back() {
    let input = SAMPLE
        .replace("UNA:+.? '", "UNA:+.?*'")
        .replace("UNOC:3", "UNOC:4")
        .replace("261202:1400", "20261202:1400")
        .replace("+EH000001+", "+EH?*1+")
        .replace("UNZ+1+EH000001", "UNZ+1+EH?*1")
        .replace("MOA+9:267.75", "MOA+9:26O");
    let (_, written, ack) = round_trip(input.as_bytes()).expect("a CONTRL is due");
    assert!(written.text.contains("CONTRL:4:1:UN"), "{}", written.text);
    assert_eq!(ack.interchange_reference.as_deref(), Some("EH*1"));
    assert_eq!(ack.messages[0].errors[0].segment_position, Some(30));
}

/// Every project fixture's CONTRL decodes into the verdict the writer gave, names the
/// acknowledged interchange, and names only messages and groups the interchange has.
#[test]
fn every_fixtures_contrl_names_what_it_acknowledges() {
    let dir = PathBuf::from(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../fixtures/edifact"
    ));
    let mut decoded = 0;
    for entry in std::fs::read_dir(&dir).expect("fixtures").flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        let bytes = std::fs::read(entry.path()).expect("read fixture");
        let Some((report, written, ack)) = round_trip(&bytes) else {
            continue;
        };
        assert_eq!(ack.action, Action::from(written.action), "{name}");
        // Values the repertoire cannot carry are written as `?`: compare lengths then.
        let reference = ack.interchange_reference.unwrap_or_default();
        assert_eq!(
            reference.chars().count(),
            written.acknowledged_reference.chars().count(),
            "{name}"
        );
        assert_eq!(
            ack.messages.len(),
            written.text.matches("UCM+").count(),
            "{name}"
        );
        for message in &ack.messages {
            assert!(
                report
                    .messages
                    .iter()
                    .any(|m| m.reference == message.reference
                        && m.group_reference.as_deref() == message.group_reference.as_deref()),
                "{name}: {message:?}"
            );
            assert!(!message.errors.is_empty(), "{name}: {message:?}");
        }
        for group in &ack.groups {
            assert!(
                report.groups.iter().any(|g| g.reference == group.reference),
                "{name}"
            );
        }
        decoded += 1;
    }
    assert!(decoded >= 25, "only {decoded} fixtures got a CONTRL");
}

#[test]
fn the_accepting_fixture_acknowledges_hb000731() {
    let ack = decode(ACCEPTING.as_bytes());
    assert_eq!(ack.action, Action::Accepted);
    assert_eq!(ack.message_reference, "C501");
    assert_eq!(ack.interchange_reference.as_deref(), Some("HB000731"));
    assert_eq!(
        ack.interchange_sender.map(|p| p.id).as_deref(),
        Some("5412345000013")
    );
}

#[test]
fn the_rejecting_fixture_rejects_two_messages_of_hb000732() {
    let ack = decode(REJECTING.as_bytes());
    assert_eq!(ack.action, Action::Rejected);
    assert_eq!(ack.interchange_reference.as_deref(), Some("HB000732"));
    let references: Vec<_> = ack.messages.iter().map(|m| m.reference.as_str()).collect();
    assert_eq!(references, ["M1", "M2"]);
    assert!(ack.messages.iter().all(|m| m.action == Action::Rejected));
    // M1: UCS+4 with code 12 of its own, and a UCD for element 1, component 2.
    let m1: Vec<_> = ack.messages[0]
        .errors
        .iter()
        .map(|e| (e.segment_position, e.code.as_deref(), e.element.is_some()))
        .collect();
    assert_eq!(
        m1,
        [(Some(4), Some("12"), false), (Some(4), Some("12"), true)]
    );
    let m2 = &ack.messages[1].errors[0];
    assert_eq!(
        (m2.code.as_deref(), m2.segment_tag.as_deref()),
        (Some("29"), Some("UNT"))
    );
}

fn corpus(name: &str) -> Vec<u8> {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../../shared/fixtures/edifact/public/"
    );
    std::fs::read(format!("{path}{name}"))
        .unwrap_or_else(|e| panic!("the public corpus file {name} is absent ({e})"))
}

/// Public files: a CONTRL shape reference with placeholder `X` positions, and a
/// pydifact APERAK.
#[test]
fn public_contrl_and_aperak_files_get_their_documented_outcome() {
    // S011 "X:X" in UCI is not a position: refused there, at element 7.
    let bytes = corpus("edifact_mapper__fv2504_contrl.edi");
    let interchange = Interchange::parse(&bytes).expect("parses");
    let error = match read(&interchange.messages[0]) {
        Some(Err(e)) => e,
        other => panic!("{other:?}"),
    };
    assert!(
        matches!(&error.kind, ReadErrorKind::NotANumber { element: "0098", value } if value == "X"),
        "{error:?}"
    );
    assert_eq!(error.position.map(|p| p.segment), Some(3));
    assert_eq!(error.element.map(|e| e.element), Some(7));

    // UNT miscounts and the FTX has lower case under UNOA: faults the reader reports,
    // the text decoded as it can. 1225 = 9 (original) is no verdict, so the ERC
    // decides: rejected, whatever its free text says.
    let bytes = corpus("pydifact__v3_aperak.edi");
    let (interchange, _) = Interchange::parse_collecting(&bytes).expect("parses");
    let ack = match read(&interchange.messages[0]) {
        Some(Ok(ack)) => ack,
        other => panic!("{other:?}"),
    };
    assert_eq!(ack.reference("ACW"), Some("PO123456"));
    assert_eq!(ack.action, Action::Rejected);
    assert_eq!(ack.errors[0].code.as_deref(), Some("1"));
    let text = &ack.errors[0].texts[0];
    assert_eq!(text.subject.as_deref(), Some("AAI"));
    assert_eq!(
        text.text.chars().count(),
        "Message accepted without errors".len()
    );
    let document = ack.document.expect("BGM");
    assert_eq!(document.number.as_deref(), Some("APERAK001"));
}
