use super::*;
use crate::evidence::{
    EvidenceHub, EvidenceIds, EvidenceLedger, EvidenceMdn, EvidencePartner, EvidenceRetention,
};
use crate::verify::Verdict;
use chrono::Utc;
use edihub_as2::{Disposition, MdnReport, MicAlg, build_mdn};

const PAYLOAD: &[u8] = b"UNA:+.? 'UNB+UNOC:3+A+B'";

/// mdn.eml as the archive writes it: the MDN's headers, a blank line, its body.
fn mdn_eml(mic: &Mic) -> Vec<u8> {
    let report = MdnReport {
        reporting_ua: "edihub".into(),
        original_recipient: "HUB".into(),
        final_recipient: "HUB".into(),
        original_message_id: "m@acme".into(),
        received_content_mic: Some(mic.clone()),
        disposition: Disposition::Processed,
        human_text: "ok".into(),
    };
    let built = build_mdn(&report, "HUB", "ACME", "mdn-1@hub", "b1");
    let mut eml = Vec::new();
    for (name, value) in &built.headers {
        eml.extend_from_slice(format!("{name}: {value}\r\n").as_bytes());
    }
    eml.extend_from_slice(b"\r\n");
    eml.extend_from_slice(&built.body);
    eml
}

fn document(recorded_mic: &Mic) -> EvidenceDocument {
    let now = Utc::now();
    EvidenceDocument {
        version: 1,
        ids: EvidenceIds {
            message_id: uuid::Uuid::new_v4(),
            as2_message_id: "m@acme".into(),
            unb_reference: None,
            invoice_numbers: vec![],
        },
        partner: EvidencePartner {
            as2_name: "ACME".into(),
            unb_sender: None,
        },
        hub: EvidenceHub {
            as2_name: "HUB".into(),
            unb_recipient: None,
        },
        received_at: now,
        signature: None,
        encryption: None,
        compressed: false,
        mdn: Some(EvidenceMdn {
            mdn_message_id: "mdn-1@hub".into(),
            disposition: "processed".into(),
            received_content_mic: recorded_mic.header_value(),
            signed: false,
            created_at: now,
        }),
        objects: vec![],
        ledger: EvidenceLedger {
            seq: 1,
            chained_at: now,
        },
        retention: EvidenceRetention {
            mode: "COMPLIANCE".into(),
            retain_until: now,
        },
        remarks: vec![],
    }
}

#[test]
fn the_mic_of_an_unsigned_message_is_recomputed_over_the_payload() {
    let mic = Mic::compute(MicAlg::Sha256, PAYLOAD);
    let check = check_mdn(
        &document(&mic),
        Some(&mdn_eml(&mic)),
        None,
        Some(PAYLOAD),
        &[],
    );
    assert_eq!(check.verdict, Verdict::Ok);
}

#[test]
fn a_mic_over_other_bytes_is_named_with_both_values() {
    let mic = Mic::compute(MicAlg::Sha256, b"something else");
    let check = check_mdn(
        &document(&mic),
        Some(&mdn_eml(&mic)),
        None,
        Some(PAYLOAD),
        &[],
    );
    let Verdict::Failed(reason) = check.verdict else {
        panic!("expected a failure: {check:?}");
    };
    let expected = Mic::compute(MicAlg::Sha256, PAYLOAD).header_value();
    assert!(reason.contains(&mic.header_value()), "{reason}");
    assert!(reason.contains(&expected), "{reason}");
}

#[test]
fn evidence_json_recording_another_mic_than_the_mdn_is_a_failure() {
    let mic = Mic::compute(MicAlg::Sha256, PAYLOAD);
    let other = Mic::compute(MicAlg::Sha256, b"x");
    let check = check_mdn(
        &document(&other),
        Some(&mdn_eml(&mic)),
        None,
        Some(PAYLOAD),
        &[],
    );
    assert!(
        matches!(&check.verdict, Verdict::Failed(r) if r.contains("evidence.json says")),
        "{check:?}"
    );
}

#[test]
fn the_content_type_is_read_unfolded_and_the_body_follows_the_blank_line() {
    let message = b"AS2-From: HUB\r\nContent-Type: multipart/report;\r\n\
                    \tboundary=\"b1\"\r\nMessage-ID: <m>\r\n\r\n--b1\r\nbody";
    let (content_type, body) = split_message(message).expect("split");
    assert_eq!(content_type, "multipart/report; boundary=\"b1\"");
    assert_eq!(body, b"--b1\r\nbody");
}

#[test]
fn a_message_without_content_type_is_refused() {
    assert!(split_message(b"AS2-From: HUB\r\n\r\nbody").is_none());
}
