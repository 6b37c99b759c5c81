//! Every tamper case against a segment built and signed by the sealer's own code.

use super::*;
use crate::seal::segment::{Built, Pending, build};
use crate::{EntryFacts, GENESIS, Position, canonical};
use chrono::TimeZone;
use edihub_as2::Identity;
use openssl::asn1::Asn1Time;
use openssl::hash::MessageDigest;
use openssl::pkey::PKey;
use openssl::rsa::Rsa;
use openssl::x509::{X509Builder, X509NameBuilder};

fn identity(name: &str) -> Identity {
    let key = PKey::from_rsa(Rsa::generate(2048).expect("rsa")).expect("pkey");
    let mut subject = X509NameBuilder::new().expect("name");
    subject.append_entry_by_text("CN", name).expect("cn");
    let subject = subject.build();
    let mut cert = X509Builder::new().expect("builder");
    cert.set_version(2).expect("version");
    cert.set_subject_name(&subject).expect("subject");
    cert.set_issuer_name(&subject).expect("issuer");
    cert.set_pubkey(&key).expect("pubkey");
    cert.set_not_before(&Asn1Time::days_from_now(0).expect("time"))
        .expect("nb");
    cert.set_not_after(&Asn1Time::days_from_now(30).expect("time"))
        .expect("na");
    cert.sign(&key, MessageDigest::sha256()).expect("sign");
    Identity {
        certificate: cert.build(),
        private_key: key,
    }
}

fn at(secs: i64) -> DateTime<Utc> {
    Utc.timestamp_opt(secs, 0).single().expect("time")
}

fn entry(seq: i64) -> Pending {
    let facts = EntryFacts {
        message_id: Uuid::from_u128(seq as u128),
        as2_from: "PARTNER".into(),
        as2_to: "HUB".into(),
        as2_message_id: format!("m{seq}@partner"),
        received_at: at(1_764_806_400 + seq),
        retain_until: at(2_080_425_600 + seq),
        objects: vec![],
    };
    let position = Position {
        seq,
        chained_at: at(1_764_806_500 + seq),
    };
    Pending {
        seq,
        canonical: canonical(position, &facts),
    }
}

struct Fixture {
    key: Identity,
    built: Built,
}

impl Fixture {
    fn new(first: i64, last: i64, prev_head: [u8; 32]) -> Fixture {
        let key = identity("sealer");
        let built = sealed(&key, first, last, prev_head);
        Fixture { key, built }
    }

    fn certificate(&self) -> Vec<u8> {
        self.key.certificate.to_der().expect("der")
    }

    fn verify(&self, entries: &[u8], manifest: &[u8], signature: &[u8]) -> SegmentReport {
        self.verify_with(entries, manifest, signature, None)
    }

    fn verify_with(
        &self,
        entries: &[u8],
        manifest: &[u8],
        signature: &[u8],
        timestamp: Option<&[u8]>,
    ) -> SegmentReport {
        let files = SegmentFiles {
            entries,
            manifest,
            signature,
            timestamp,
        };
        verify_segment(files, &self.certificate(), None, self.built.prev_head)
    }

    fn sound(&self) -> SegmentReport {
        let b = &self.built;
        self.verify(&b.entries, &b.manifest, &b.signature)
    }
}

fn sealed(key: &Identity, first: i64, last: i64, prev_head: [u8; 32]) -> Built {
    let run: Vec<Pending> = (first..=last).map(entry).collect();
    build(&run, prev_head, key, at(1_764_900_000)).expect("build")
}

fn texts(report: &SegmentReport) -> Vec<String> {
    report.discrepancies.iter().map(|d| d.0.clone()).collect()
}

fn has(report: &SegmentReport, needle: &str) -> bool {
    texts(report).iter().any(|t| t.contains(needle))
}

fn lines(entries: &[u8]) -> Vec<Vec<u8>> {
    entries
        .split(|b| *b == b'\n')
        .filter(|l| !l.is_empty())
        .map(<[u8]>::to_vec)
        .collect()
}

fn join(lines: &[Vec<u8>]) -> Vec<u8> {
    lines
        .iter()
        .flat_map(|l| l.iter().copied().chain([b'\n']))
        .collect()
}

#[test]
fn a_sealed_segment_verifies() {
    let fixture = Fixture::new(1, 4, GENESIS);
    let report = fixture.sound();
    assert!(report.is_sound(), "{:?}", texts(&report));
    assert_eq!((report.first_seq, report.last_seq), (1, 4));
    assert_eq!(report.head, fixture.built.head);
    assert_eq!(report.entries.len(), 4);
    assert_eq!(report.entries[2].seq, 3);
    assert_eq!(report.entries[2].as2_message_id, "m3@partner");
    assert!(!report.timestamped);
}

#[test]
fn a_flipped_byte_in_entries_breaks_digest_and_head() {
    let fixture = Fixture::new(1, 3, GENESIS);
    let mut entries = fixture.built.entries.clone();
    let at = entries.iter().position(|b| *b == b'P').expect("a P");
    entries[at] = b'Q';
    let report = fixture.verify(&entries, &fixture.built.manifest, &fixture.built.signature);
    assert!(
        has(&report, "segment.json: entries_sha256 is"),
        "{:?}",
        texts(&report)
    );
    assert!(
        has(&report, "segment.json: head is"),
        "{:?}",
        texts(&report)
    );
}

#[test]
fn a_flipped_byte_in_the_manifest_breaks_its_signature() {
    let fixture = Fixture::new(1, 3, GENESIS);
    let mut manifest = fixture.built.manifest.clone();
    let at = manifest.iter().position(|b| *b == b'"').expect("a quote") + 1;
    manifest[at] ^= 0x01;
    let report = fixture.verify(&fixture.built.entries, &manifest, &fixture.built.signature);
    assert!(has(
        &report,
        "segment.p7s: the signature over segment.json does not verify"
    ));
}

#[test]
fn a_flipped_byte_in_the_signature_is_found() {
    let fixture = Fixture::new(1, 3, GENESIS);
    let mut signature = fixture.built.signature.clone();
    let len = signature.len();
    signature[len - 10] ^= 0xff;
    let report = fixture.verify(&fixture.built.entries, &fixture.built.manifest, &signature);
    assert!(has(&report, "segment.p7s"), "{:?}", texts(&report));
}

#[test]
fn a_removed_line_is_named() {
    let fixture = Fixture::new(10, 13, [3; 32]);
    let mut all = lines(&fixture.built.entries);
    all.remove(1);
    let report = fixture.verify(
        &join(&all),
        &fixture.built.manifest,
        &fixture.built.signature,
    );
    assert!(
        has(&report, "entries.jsonl: seq 11 is missing"),
        "{:?}",
        texts(&report)
    );
    assert!(has(
        &report,
        "segment.json: count is 4, but entries.jsonl has 3 lines"
    ));
}

#[test]
fn swapped_lines_are_named() {
    let fixture = Fixture::new(1, 4, GENESIS);
    let mut all = lines(&fixture.built.entries);
    all.swap(1, 2);
    let report = fixture.verify(
        &join(&all),
        &fixture.built.manifest,
        &fixture.built.signature,
    );
    assert!(
        has(
            &report,
            "entries.jsonl: lines 2 and 3 are swapped (seq 3 and seq 2)"
        ),
        "{:?}",
        texts(&report)
    );
    assert!(has(&report, "segment.json: head is"));
}

#[test]
fn a_duplicated_line_is_named() {
    let fixture = Fixture::new(1, 3, GENESIS);
    let mut all = lines(&fixture.built.entries);
    all.insert(2, all[1].clone());
    let report = fixture.verify(
        &join(&all),
        &fixture.built.manifest,
        &fixture.built.signature,
    );
    assert!(has(
        &report,
        "entries.jsonl: seq 2 appears more than once, on lines 2, 3"
    ));
}

#[test]
fn a_segment_resealed_by_another_key_is_refused() {
    let fixture = Fixture::new(1, 3, GENESIS);
    let other = sealed(&identity("forger"), 1, 3, GENESIS);
    let report = fixture.verify(&other.entries, &other.manifest, &other.signature);
    assert!(
        has(
            &report,
            "segment.p7s: not signed by the sealing certificate"
        ),
        "{:?}",
        texts(&report)
    );
    assert!(has(&report, "sealing_certificate_sha256"));
}

#[test]
fn a_wrong_prev_head_is_named() {
    let fixture = Fixture::new(5, 6, [1; 32]);
    let b = &fixture.built;
    let files = SegmentFiles {
        entries: &b.entries,
        manifest: &b.manifest,
        signature: &b.signature,
        timestamp: None,
    };
    let report = verify_segment(files, &fixture.certificate(), None, [2; 32]);
    assert!(
        has(&report, "segment.json: prev_head is 0101"),
        "{:?}",
        texts(&report)
    );
    assert!(has(&report, "segment.json: head is"));
}

#[test]
fn a_truncated_entries_file_is_named() {
    let fixture = Fixture::new(1, 2, GENESIS);
    let entries = &fixture.built.entries[..fixture.built.entries.len() - 5];
    let report = fixture.verify(entries, &fixture.built.manifest, &fixture.built.signature);
    assert!(has(&report, "the last line does not end with a newline"));
    assert!(
        has(&report, "entries.jsonl line 2: not an entry"),
        "{:?}",
        texts(&report)
    );
}

#[test]
fn a_timestamp_over_the_manifest_is_accepted_and_a_truncated_one_is_not() {
    let fixture = Fixture::new(1, 2, GENESIS);
    let b = &fixture.built;
    let digest = Sha256::digest(&b.manifest);
    let tsr = crate::tsa::fake_response(&digest, &[1, 2, 3]);
    let report = fixture.verify_with(&b.entries, &b.manifest, &b.signature, Some(&tsr));
    assert!(report.is_sound(), "{:?}", texts(&report));
    assert!(report.timestamped);
    let cut = &tsr[..tsr.len() - 3];
    let report = fixture.verify_with(&b.entries, &b.manifest, &b.signature, Some(cut));
    assert!(!report.timestamped);
    assert!(has(
        &report,
        "segment.tsr: the response is not a TimeStampResp: truncated DER"
    ));
}

#[test]
fn a_timestamp_over_another_manifest_is_named() {
    let fixture = Fixture::new(1, 2, GENESIS);
    let b = &fixture.built;
    let tsr = crate::tsa::fake_response(&[0; 32], &[1]);
    let report = fixture.verify_with(&b.entries, &b.manifest, &b.signature, Some(&tsr));
    assert!(!report.timestamped);
    assert!(has(&report, "segment.tsr: the token's imprint is 0000"));
}

#[test]
fn chains_of_segments_find_gaps_and_replacements() {
    let link = |first, last, prev: u8, head: u8| SegmentLink {
        first_seq: first,
        last_seq: last,
        prev_head: if prev == 0 { GENESIS } else { [prev; 32] },
        head: [head; 32],
    };
    let sound = [link(1, 3, 0, 1), link(4, 9, 1, 2), link(10, 10, 2, 3)];
    assert!(verify_chain(&sound).is_empty());
    let gap = [link(1, 3, 0, 1), link(10, 10, 2, 3)];
    let found = verify_chain(&gap);
    assert_eq!(found.len(), 2, "{found:?}");
    assert!(found[0].0.contains("seq 4 to 9 are in no segment"));
    assert!(found[1].0.contains("prev_head is 0202"));
    let replaced = [link(1, 3, 0, 1), link(4, 9, 1, 7), link(10, 10, 2, 3)];
    let found = verify_chain(&replaced);
    assert_eq!(found.len(), 1, "{found:?}");
    assert!(found[0].0.starts_with("segment 10-10: prev_head is"));
    let headless = [link(4, 9, 1, 2)];
    assert!(
        verify_chain(&headless)[0]
            .0
            .contains("starts at seq 4, not 1")
    );
}

#[test]
fn segments_built_in_a_row_chain() {
    let key = identity("sealer");
    let one = sealed(&key, 1, 2, GENESIS);
    let two = sealed(&key, 3, 5, one.head);
    let manifests: Vec<SegmentLink> = [&one, &two]
        .iter()
        .map(|b| {
            let m: Manifest = serde_json::from_slice(&b.manifest).expect("manifest");
            SegmentLink::from_manifest(&m).expect("link")
        })
        .collect();
    assert!(verify_chain(&manifests).is_empty());
}
