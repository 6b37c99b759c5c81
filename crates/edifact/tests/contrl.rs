//! The CONTRL the hub writes: for every interchange it can read (the public corpus, the
//! project sample, interchanges with many faults), the CONTRL is itself an interchange
//! our strict reader accepts, and it reports the faults at the right level.

use std::path::PathBuf;

use edihub_edifact::Interchange;
use edihub_edifact::charset::CharsetPolicy;
use edihub_edifact::check::{Options, Report, evaluate, evaluate_with};
use edihub_edifact::contrl::{Action, Contrl, ContrlParams, Prepared, build};

const SAMPLE: &str = include_str!("../../../fixtures/edifact/invoic-eancom-d96a.edi");

fn params() -> ContrlParams {
    ContrlParams {
        interchange_reference: "0123456789ABCD".into(),
        message_reference: "1".into(),
        prepared: Prepared {
            year: 2026,
            month: 1,
            day: 31,
            hour: 23,
            minute: 59,
        },
    }
}

/// The CONTRL for `input` as if its UNB asked for one, checked against the report.
fn contrl_for(input: &[u8]) -> Option<(Report, Contrl)> {
    let mut report = evaluate(input);
    report.header.as_mut()?.acknowledgement_requested = true;
    let contrl = build(&report, &params())?;
    Some((report, contrl))
}

fn assert_sound(name: &str, report: &Report, contrl: &Contrl) {
    let reread = Interchange::parse(&contrl.bytes)
        .unwrap_or_else(|e| panic!("{name}: the CONTRL does not parse: {e}\n{}", contrl.text));
    let header = report.header.as_ref().expect("header");
    // A character the repertoire cannot carry was reported and is written as `?`: one
    // character for one, so the lengths agree even then.
    let same = |written: &str, read: &str| {
        if report.must_reject() {
            written.chars().count() == read.chars().count()
        } else {
            written == read
        }
    };
    assert!(
        same(&reread.header.sender_id, &header.recipient_id),
        "{name}"
    );
    assert!(
        same(&reread.header.recipient_id, &header.sender_id),
        "{name}"
    );
    assert_eq!(reread.header.syntax_identifier, header.syntax_identifier);
    assert_eq!(reread.header.syntax_version, header.syntax_version);
    assert_eq!(reread.messages.len(), 1, "{name}");
    let message = &reread.messages[0];
    assert_eq!(message.message_type, "CONTRL");
    let uci = message.segments.get(1).expect("UCI");
    assert_eq!(uci.tag, "UCI");
    assert!(same(
        uci.component(0, 0).unwrap_or_default(),
        &header.control_reference
    ));
    let expected = if report.must_reject() {
        Action::Rejected
    } else {
        Action::Accepted
    };
    assert_eq!(contrl.action, expected, "{name}");
    assert_eq!(uci.component(3, 0), Some(expected.code()), "{name}");
    // Every UCS follows a UCM and points inside the message it names.
    let mut last_ucm = None;
    for segment in &message.segments {
        match segment.tag {
            "UCM" => last_ucm = segment.component(0, 0),
            "UCS" => {
                let reference = last_ucm.unwrap_or_else(|| panic!("{name}: UCS before UCM"));
                let position: u32 = segment
                    .component(0, 0)
                    .and_then(|p| p.parse().ok())
                    .expect("numeric UCS position");
                assert!(position >= 1, "{name}");
                assert!(
                    report.messages.iter().any(|m| same(reference, &m.reference)
                        && m.contains(m.header.segment + position - 1)),
                    "{name}: UCS+{position} is in no message named {reference}"
                );
            }
            _ => {}
        }
    }
}

#[test]
fn every_corpus_interchange_gets_a_contrl_that_parses() {
    let dir = PathBuf::from(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../../shared/fixtures/edifact/public"
    ));
    let entries = std::fs::read_dir(&dir).unwrap_or_else(|e| {
        panic!(
            "the public EDIFACT corpus {} is absent ({e}): this test needs ../shared/fixtures beside the checkout",
            dir.display()
        )
    });
    let mut built = 0;
    for entry in entries.flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        if name.ends_with(".tsv") {
            continue;
        }
        let bytes = std::fs::read(entry.path()).expect("read corpus file");
        match contrl_for(&bytes) {
            Some((report, contrl)) => {
                assert_sound(&name, &report, &contrl);
                built += 1;
            }
            None => {
                // No CONTRL: only when UNB is unreadable or it is a CONTRL itself.
                let report = evaluate(&bytes);
                assert!(
                    report.header.is_none()
                        || report
                            .messages
                            .iter()
                            .all(|m| m.identifier.message_type == "CONTRL"),
                    "{name}: no CONTRL"
                );
            }
        }
    }
    assert!(built > 10, "only {built} CONTRLs built");
}

#[test]
fn faults_at_every_level_are_reported_where_they_belong() {
    // The eight faults of tests/check.rs (strict): mapping and charset faults in M1's
    // segments, a wrong UNT count and a data segment between messages. M2, a sound
    // DESADV, has none of its own.
    let input = "UNA:+.? '\n\
        UNB+UNOA:3+SENDER:14+RECIP:14+260101:1200+REF1++++1'\n\
        UNH+M1+INVOIC:D:96A:UN:EAN008'\n\
        BGM+380+INV1+9'\n\
        DTM+137:20261302:102'\n\
        FTX+AAI+++lower case'\n\
        '\n\
        LIN+1++4000862141404:EN'\n\
        QTY+47:TEN:PCE'\n\
        MOA+203:12,50'\n\
        UNS+S'\n\
        MOA+77:X'\n\
        UNT+99+M1'\n\
        JNK+1'\n\
        UNH+M2+DESADV:D:96A:UN:EAN005'\n\
        BGM+351+D1'\n\
        UNT+3+M2'\n\
        UNZ+2+REF1'\n";
    let strict = Options {
        charset: CharsetPolicy::Strict,
    };
    let report = evaluate_with(input.as_bytes(), &strict);
    assert!(
        report
            .header
            .as_ref()
            .is_some_and(|h| h.acknowledgement_requested)
    );
    let contrl = build(&report, &params()).expect("acknowledgement requested");
    assert_sound("eight faults", &report, &contrl);
    // UNA, UNB and UNH come first; UNT, UNZ and the empty rest after the last terminator
    // come last.
    let body: Vec<&str> = contrl.text.split('\'').collect();
    assert_eq!(
        body[3..body.len() - 3],
        [
            // JNK between the messages: an interchange-level fault.
            "UCI+REF1+SENDER:14+RECIP:14+4+33",
            // M1's first UNT fault is its own; the data segments follow, each value at
            // fault in a UCD with its element and component.
            "UCM+M1+INVOIC:D:96A:UN:EAN008+4+29+UNT",
            "UCS+3",
            "UCD+12+1:2",
            "UCS+4",
            "UCD+21+4:1",
            "UCS+5+18",
            "UCS+7",
            "UCD+12+1:2",
            "UCS+8",
            "UCD+12+1:2",
            "UCS+10",
            "UCD+12+1:2",
        ]
    );
    assert_eq!(body[body.len() - 3], "UNT+15+1");
    // Tolerant, the lower case is no fault: its UCS and UCD are gone, the rest stays.
    let tolerant = build(&evaluate(input.as_bytes()), &params()).expect("requested");
    assert!(!tolerant.text.contains("UCD+21"), "{}", tolerant.text);
    assert!(tolerant.text.contains("UCS+5+18'"), "{}", tolerant.text);
}

#[test]
fn a_concatenated_interchange_is_acknowledged_as_the_first_one() {
    let second = SAMPLE.replace("UNT+34+1", "UNT+30+1");
    let input = format!("{SAMPLE}{second}");
    let (report, contrl) = contrl_for(input.as_bytes()).expect("header");
    assert_sound("concatenated", &report, &contrl);
    // The second interchange's faults belong to no message of the first: "data after
    // UNZ" speaks for them at the interchange level.
    assert!(contrl.text.contains("+4+18'"), "{}", contrl.text);
    assert!(!contrl.text.contains("UCM"), "{}", contrl.text);
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
fn faults_of_grouped_messages_are_reported_under_their_group() {
    let input = grouped(SAMPLE).replace("MOA+9:267.75", "MOA+9:26O");
    let (report, contrl) = contrl_for(input.as_bytes()).expect("header");
    assert!(report.messages[0].group_reference.is_some());
    assert_eq!(report.groups.len(), 1);
    assert_sound("grouped", &report, &contrl);
    // UCI rejects, the UCF names the group with UNG's application sender and
    // recipient, and the message's UCM and UCS follow it.
    let text = &contrl.text;
    let ucf = text
        .find("UCF+G1+5412345000013:14+4012345000094:14+4'")
        .unwrap_or_else(|| panic!("{text}"));
    let ucm = text
        .find("UCM+1+INVOIC:D:96A:UN:EAN008+4'")
        .unwrap_or_else(|| panic!("{text}"));
    let ucs = text
        .find("UCS+30'UCD+12+1:2'")
        .unwrap_or_else(|| panic!("{text}"));
    assert!(ucf < ucm && ucm < ucs, "{text}");
    let uci = text.find("UCI+").unwrap_or_else(|| panic!("{text}"));
    assert!(
        text[uci..].starts_with("UCI+EH000001+5412345000013:14+4012345000094:14+4'"),
        "{text}"
    );
}

#[test]
fn a_fault_on_une_goes_in_the_ucf() {
    let input = grouped(SAMPLE).replace("UNE+1+G1'", "UNE+2+G1'");
    let (report, contrl) = contrl_for(input.as_bytes()).expect("header");
    assert!(report.must_reject());
    assert_sound("une count", &report, &contrl);
    let text = &contrl.text;
    assert!(
        text.contains("UCF+G1+5412345000013:14+4012345000094:14+4+29+UNE'"),
        "{text}"
    );
    assert!(!text.contains("UCM"), "{text}");
}

#[test]
fn a_sound_grouped_interchange_gets_no_ucf() {
    let input = grouped(SAMPLE);
    let (report, contrl) = contrl_for(input.as_bytes()).expect("header");
    assert!(!report.must_reject(), "{:?}", report.faults);
    assert_eq!(contrl.action, Action::Accepted);
    assert!(!contrl.text.contains("UCF"), "{}", contrl.text);
}

/// What the fuzz target checks, on a deterministic neighbourhood of the sample: every
/// truncation and every single-byte change to a service character, a letter or a byte
/// outside the repertoire still yields a CONTRL our reader accepts.
#[test]
fn damaged_interchanges_still_get_a_contrl_that_parses() {
    let sound = SAMPLE.replace("+EH000001++INVOIC'", "+EH000001++INVOIC++1'");
    let sound = sound.as_bytes();
    let mut checked = 0;
    let mut check = |input: &[u8]| {
        if let Some((report, contrl)) = contrl_for(input) {
            assert_sound(&String::from_utf8_lossy(input), &report, &contrl);
            checked += 1;
        }
    };
    for end in 0..sound.len() {
        check(&sound[..end]);
    }
    for at in 0..sound.len() {
        for b in [b'\'', b'+', b':', b'?', b'*', b'x', b'\n', 0xFC] {
            let mut damaged = sound.to_vec();
            damaged[at] = b;
            check(&damaged);
        }
    }
    assert!(checked > sound.len() * 4, "only {checked} CONTRLs built");
}

/// A tolerant acceptance with charset warnings is a positive CONTRL; strict, the same
/// interchange is rejected.
#[test]
fn a_tolerant_acceptance_with_charset_warnings_is_acknowledged_positively() {
    let input = include_str!("../../../fixtures/edifact/charset-unoa-lower-case.edi")
        .replace("+EH000414'", "+EH000414++++1'");
    let report = evaluate(input.as_bytes());
    assert!(!report.warnings.is_empty());
    let tolerant = build(&report, &params()).expect("UNB asks for one");
    assert_eq!(tolerant.action, Action::Accepted, "{}", tolerant.text);
    let strict = Options {
        charset: CharsetPolicy::Strict,
    };
    let rejected = build(&evaluate_with(input.as_bytes(), &strict), &params()).expect("asked");
    assert_eq!(rejected.action, Action::Rejected, "{}", rejected.text);
}
