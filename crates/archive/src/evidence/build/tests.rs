use super::*;
use crate::evidence::{InvoiceNumbers, evidence_key};
use chrono::TimeZone;
use edihub_journal::{EncryptionFacts, SignatureFacts, StoredMdn};
use sha2::{Digest, Sha256};
use uuid::Uuid;

fn time(h: u32) -> DateTime<Utc> {
    Utc.with_ymd_and_hms(2026, 12, 4, h, 0, 0)
        .single()
        .expect("valid time")
}

fn signed_message() -> MessageEvidence {
    MessageEvidence {
        id: Uuid::from_u128(7),
        as2_from: "PARTNER".into(),
        as2_to: "HUB".into(),
        as2_message_id: "abc@partner".into(),
        content_type: "application/pkcs7-mime".into(),
        as2_headers: serde_json::json!({"as2-from": "PARTNER"}),
        raw_body: b"encrypted".to_vec(),
        payload: b"UNB+UNOC:3+S+R+261204:1000+REF1'".to_vec(),
        payload_sha256: edihub_journal::sha256_hex(b"UNB+UNOC:3+S+R+261204:1000+REF1'"),
        unb_sender: Some("S".into()),
        unb_recipient: Some("R".into()),
        unb_reference: Some("REF1".into()),
        received_at: time(10),
        signed_entity: Some(b"Content-Type: multipart/signed\r\n\r\nbody".to_vec()),
        security: Some(SecurityFacts {
            signature: Some(SignatureFacts {
                digest: "sha-256".into(),
                certificate_der_b64: BASE64.encode([0x30u8; 100]),
                certificate_sha256: "ab".repeat(32),
            }),
            encryption: Some(EncryptionFacts {
                algorithm: "aes256-cbc".into(),
            }),
            compressed: false,
            mic: "bWlj, sha-256".into(),
        }),
        mdn: Some((
            StoredMdn {
                mdn_message_id: "mdn@hub".into(),
                disposition: "processed".into(),
                content_type: "multipart/signed; boundary=x".into(),
                headers: vec![
                    ("Content-Type".into(), "multipart/signed; boundary=x".into()),
                    ("AS2-From".into(), "HUB".into()),
                ],
                body: b"--x\r\nreport\r\n--x--\r\n".to_vec(),
            },
            time(11),
        )),
    }
}

fn unsigned_message() -> MessageEvidence {
    MessageEvidence {
        signed_entity: None,
        security: Some(SecurityFacts {
            signature: None,
            encryption: None,
            compressed: false,
            mic: "bWlj, sha-256".into(),
        }),
        ..signed_message()
    }
}

fn position() -> Position {
    Position {
        seq: 42,
        chained_at: time(12),
    }
}

fn build(evidence: &MessageEvidence) -> EvidenceSet {
    let invoices = InvoiceNumbers {
        numbers: vec!["INV-1".into()],
        remark: None,
    };
    EvidenceParts::new(evidence, &invoices, time(13))
        .expect("parts")
        .at(position())
}

fn kinds_of(set: &EvidenceSet) -> Vec<&str> {
    set.objects.iter().map(|o| o.kind).collect()
}

#[test]
fn a_signed_message_has_six_objects_under_the_adrs_keys() {
    let set = build(&signed_message());
    assert_eq!(
        kinds_of(&set),
        [
            "payload",
            "request-body",
            "request-headers",
            "signed-entity",
            "mdn",
            "evidence"
        ]
    );
    let keys: Vec<&str> = set.objects.iter().map(|o| o.key.as_str()).collect();
    let id = "00000000-0000-0000-0000-000000000007";
    assert_eq!(keys[0], format!("originals/2026/12/04/{id}.edi"));
    assert_eq!(
        keys[3],
        format!("evidence/2026/12/04/{id}/signed-entity.eml")
    );
    assert_eq!(keys[5], format!("evidence/2026/12/04/{id}/evidence.json"));
    for object in &set.objects {
        assert_eq!(object.sha256, hex::encode(Sha256::digest(&object.bytes)));
    }
}

#[test]
fn the_mdn_is_its_headers_a_blank_line_and_its_body() {
    let set = build(&signed_message());
    let mdn = set.object(kinds::MDN).expect("mdn object");
    assert_eq!(
        mdn.bytes,
        b"Content-Type: multipart/signed; boundary=x\r\nAS2-From: HUB\r\n\r\n--x\r\nreport\r\n--x--\r\n"
    );
}

#[test]
fn evidence_json_describes_every_other_object_and_the_position() {
    let set = build(&signed_message());
    let json = set.object(kinds::EVIDENCE).expect("evidence.json");
    let document: EvidenceDocument = serde_json::from_slice(&json.bytes).expect("parses");
    assert_eq!(document, set.document);
    assert_eq!(document.ledger.seq, 42);
    assert_eq!(document.objects.len(), 5);
    for (listed, object) in document.objects.iter().zip(&set.objects) {
        assert_eq!(
            (listed.sha256.as_str(), listed.size),
            (object.sha256.as_str(), object.size())
        );
    }
    let signature = document.signature.expect("signed");
    assert!(
        signature
            .certificate_pem
            .starts_with("-----BEGIN CERTIFICATE-----\n")
    );
    assert_eq!(signature.certificate_sha256, "ab".repeat(32));
    assert_eq!(
        document.encryption.map(|e| e.algorithm).as_deref(),
        Some("aes256-cbc")
    );
    assert_eq!(
        document.mdn.map(|m| m.received_content_mic).as_deref(),
        Some("bWlj, sha-256")
    );
    assert_eq!(document.ids.invoice_numbers, ["INV-1"]);
    assert!(document.remarks.is_empty(), "{:?}", document.remarks);
}

#[test]
fn the_same_inputs_rebuild_the_same_bytes() {
    let first = build(&signed_message());
    let again = build(&signed_message());
    assert_eq!(first.objects, again.objects);
    assert_eq!(first.entry_facts(), again.entry_facts());
}

#[test]
fn the_ledger_entry_names_every_object_including_evidence_json() {
    let set = build(&signed_message());
    let facts = set.entry_facts();
    let kinds: Vec<&str> = facts.objects.iter().map(|o| o.kind.as_str()).collect();
    assert_eq!(kinds, kinds_of(&set));
    assert_eq!(facts.retain_until, time(13));
}

#[test]
fn an_unsigned_message_has_no_signed_entity_and_says_so() {
    let set = build(&unsigned_message());
    assert_eq!(
        kinds_of(&set),
        [
            "payload",
            "request-body",
            "request-headers",
            "mdn",
            "evidence"
        ]
    );
    assert_eq!(set.document.signature, None);
    assert_eq!(set.document.encryption, None);
    assert!(
        set.document
            .remarks
            .iter()
            .any(|r| r.starts_with("not signed"))
    );
    assert!(
        set.document
            .remarks
            .iter()
            .any(|r| r.starts_with("not encrypted"))
    );
}

#[test]
fn a_message_journaled_before_evidence_still_has_evidence_with_remarks() {
    let legacy = MessageEvidence {
        signed_entity: None,
        security: None,
        mdn: None,
        ..signed_message()
    };
    let set = build(&legacy);
    assert_eq!(set.document.signature, None);
    assert_eq!(set.document.mdn, None);
    assert!(
        set.document.remarks.len() >= 3,
        "{:?}",
        set.document.remarks
    );
    assert_eq!(
        set.object(kinds::EVIDENCE).map(|o| o.key.clone()),
        Some(evidence_key(kinds::EVIDENCE, legacy.id, legacy.received_at))
    );
}

#[test]
fn an_old_mdns_mic_is_read_from_its_body() {
    let body = b"--x\r\nDisposition: automatic-action/MDN-sent-automatically; processed\r\nReceived-Content-MIC: AbC=, sha-256\r\n--x--";
    assert_eq!(mic_in_body(body).as_deref(), Some("AbC=, sha-256"));
}
