//! The sender's receipt check (RFC 4130 section 7.3.1) on messages built by
//! `build_secure_message`, received by our own `unwrap_inbound` and answered with MDNs
//! built by our own `build_mdn` / `sign_mdn`, as a peer would.

use edihub_as2::receipt::{Receipt, ReceiptProblem, SentMessage, check_receipt};
use edihub_as2::{
    AlgorithmPolicy, As2Headers, Disposition, DispositionError, DispositionWarning, Encryption,
    Identity, MdnReport, Mic, MicAlg, OutgoingMessage, PartnerSecurity, PlainMessageSpec,
    SecureMessage, SecureMessageSpec, UnwrapLimits, VerifiedMdn, build_mdn, build_secure_message,
    read_mdn, sign_mdn, unwrap_inbound,
};

const HUB_CRT: &[u8] = include_bytes!("../../../fixtures/as2/hub.crt");
const HUB_KEY: &[u8] = include_bytes!("../../../fixtures/as2/hub.key");
const A_CRT: &[u8] = include_bytes!("../../../fixtures/as2/partner-a.crt");
const A_KEY: &[u8] = include_bytes!("../../../fixtures/as2/partner-a.key");
const PAYLOAD: &[u8] = b"UNA:+.? 'UNB+UNOC:3+A+B+240101:1200+1'\nUNZ+0+1'\n";
// Inside the fixture certificates' validity.
const NOW: i64 = 1_800_000_000;
const MESSAGE_ID: &str = "m-1@a";

fn hub() -> Identity {
    Identity::from_pem(HUB_CRT, HUB_KEY).expect("hub fixture")
}
fn partner_a() -> Identity {
    Identity::from_pem(A_CRT, A_KEY).expect("partner fixture")
}

/// What we send (as PARTNER-A, to the hub as peer): signed with `sign`, asking for a
/// signed MDN with `signed_mdn` as micalg.
struct Shape {
    sign: Option<MicAlg>,
    signed_mdn: Option<MicAlg>,
    compress: bool,
    encrypt: bool,
}

const PLAIN: Shape = Shape {
    sign: None,
    signed_mdn: None,
    compress: false,
    encrypt: false,
};

fn build(shape: &Shape) -> SecureMessage {
    let a = partner_a();
    let hub_cert = hub().certificate;
    build_secure_message(&SecureMessageSpec {
        plain: PlainMessageSpec {
            as2_from: "PARTNER-A",
            as2_to: "EDIHUB",
            message_id: MESSAGE_ID,
            subject: "test",
            content_type: "application/edifact",
            payload: PAYLOAD,
            request_mdn_to: Some("mailto:a@example.invalid"),
            request_signed_mdn: shape.signed_mdn,
        },
        compress: shape.compress,
        sign: shape.sign.map(|alg| (&a, alg)),
        encrypt: shape.encrypt.then_some((&hub_cert, Encryption::Aes256Cbc)),
        boundary: "sig-boundary",
        now_unix: NOW,
    })
    .expect("build")
}

/// The MIC the receiving peer computes; `ignore_mdn_options` plays a peer that uses
/// the signature's digest whatever micalg was asked.
fn peer_mic(message: &OutgoingMessage, ignore_mdn_options: bool) -> Mic {
    let pairs = message
        .headers
        .iter()
        .filter(|(n, _)| !(ignore_mdn_options && n == "Disposition-Notification-Options"))
        .map(|(n, v)| (n.as_str(), v.as_bytes()));
    let headers = As2Headers::from_pairs(pairs).expect("headers");
    let cte = message
        .headers
        .iter()
        .find(|(n, _)| n == "Content-Transfer-Encoding")
        .map(|(_, v)| v.as_str());
    let security = PartnerSecurity {
        certificates: &[partner_a().certificate],
        require_signature: false,
        require_encryption: false,
        allow_expired: false,
        now_unix: NOW,
        algorithms: &AlgorithmPolicy::default(),
    };
    let hub = hub();
    unwrap_inbound(
        &headers,
        cte,
        &message.body,
        Some(&hub),
        &security,
        UnwrapLimits::default(),
    )
    .expect("the peer accepts the message")
    .mic
}

fn report(mic: Option<Mic>, disposition: Disposition) -> MdnReport {
    MdnReport {
        reporting_ua: "peer".into(),
        original_recipient: "EDIHUB".into(),
        final_recipient: "EDIHUB".into(),
        original_message_id: MESSAGE_ID.into(),
        received_content_mic: mic,
        disposition,
        human_text: "receipt".into(),
    }
}

/// The MDN as the sender reads it off the wire, signed with sha-256 when `signed`.
fn mdn(report: &MdnReport, signed: bool) -> VerifiedMdn {
    let hub = hub();
    let mut built = build_mdn(report, "EDIHUB", "PARTNER-A", "mdn-1@hub", "r-boundary");
    if signed {
        built = sign_mdn(built, &hub, MicAlg::Sha256, "s-boundary", NOW).expect("sign");
    }
    read_mdn(&built.content_type, &built.body, &[hub.certificate]).expect("read")
}

fn processed(mic: Option<Mic>, signed: bool) -> VerifiedMdn {
    mdn(&report(mic, Disposition::Processed), signed)
}

#[test]
fn every_shape_our_receiver_answers_is_a_good_receipt() {
    for sign in [None, Some(MicAlg::Sha1), Some(MicAlg::Sha256)] {
        for signed_mdn in [None, Some(MicAlg::Sha384)] {
            for (compress, encrypt) in [(false, false), (true, false), (false, true), (true, true)]
            {
                let shape = Shape {
                    sign,
                    signed_mdn,
                    compress,
                    encrypt,
                };
                let label = format!("{sign:?} {signed_mdn:?} {compress} {encrypt}");
                let built = build(&shape);
                let mic = peer_mic(&built.message, false);
                let got = check_receipt(
                    &built.sent_message(),
                    &processed(Some(mic.clone()), signed_mdn.is_some()),
                );
                let want = Receipt {
                    mic: Some(mic),
                    warning: None,
                };
                assert_eq!(got, Ok(want), "{label}");
            }
        }
    }
}

#[test]
fn the_sent_message_names_the_message_and_what_was_asked() {
    let sent = build(&Shape {
        sign: Some(MicAlg::Sha1),
        signed_mdn: Some(MicAlg::Sha256),
        ..PLAIN
    })
    .sent_message();
    assert_eq!(sent.message_id, MESSAGE_ID);
    assert!(sent.signed_mdn_requested);
    assert_eq!(sent.expected_mic.alg, MicAlg::Sha256);
    assert_eq!(sent.accepted_mic_algs, [MicAlg::Sha256, MicAlg::Sha1]);
    let plain = build(&PLAIN).sent_message();
    assert!(!plain.signed_mdn_requested);
    assert_eq!(plain.mic_content, PAYLOAD);
    assert_eq!(plain.accepted_mic_algs, [MicAlg::Sha256]);
}

/// Bug: `edihub send` refused this receipt with "the MDN carries no Received-Content-MIC".
#[test]
fn an_unsigned_mdn_without_a_mic_answers_an_unsigned_request() {
    let built = build(&PLAIN);
    let got = check_receipt(&built.sent_message(), &processed(None, false));
    assert_eq!(
        got,
        Ok(Receipt {
            mic: None,
            warning: None
        })
    );
}

/// Bug: a sha-1 signed message asking for a sha-256 receipt got a "MIC mismatch" from a
/// peer that computes the MIC with the signature's digest (pyas2lib).
#[test]
fn a_mic_with_the_signatures_digest_is_accepted() {
    let built = build(&Shape {
        sign: Some(MicAlg::Sha1),
        signed_mdn: Some(MicAlg::Sha256),
        ..PLAIN
    });
    let mic = peer_mic(&built.message, true);
    assert_eq!(mic.alg, MicAlg::Sha1);
    let got = check_receipt(&built.sent_message(), &processed(Some(mic.clone()), true));
    assert_eq!(got.map(|r| r.mic), Ok(Some(mic)));
}

#[test]
fn a_mic_of_other_content_is_a_mismatch_in_any_accepted_algorithm() {
    let built = build(&Shape {
        sign: Some(MicAlg::Sha1),
        signed_mdn: Some(MicAlg::Sha256),
        ..PLAIN
    });
    let sent = built.sent_message();
    for alg in [MicAlg::Sha256, MicAlg::Sha1] {
        let wrong = Mic::compute(alg, PAYLOAD);
        let got = check_receipt(&sent, &processed(Some(wrong.clone()), true));
        assert_eq!(
            got,
            Err(ReceiptProblem::MicMismatch {
                reported: wrong.header_value(),
                expected: Mic::compute(alg, &built.mic_content).header_value(),
            }),
            "{alg}"
        );
    }
}

#[test]
fn a_mic_in_an_algorithm_not_accepted_is_a_mismatch_that_says_so() {
    let built = build(&Shape {
        sign: Some(MicAlg::Sha256),
        signed_mdn: Some(MicAlg::Sha256),
        ..PLAIN
    });
    // Right content, but a digest we neither asked for nor signed with.
    let mic = Mic::compute(MicAlg::Sha512, &built.mic_content);
    let error = check_receipt(&built.sent_message(), &processed(Some(mic), true)).unwrap_err();
    assert_eq!(
        error,
        ReceiptProblem::MicAlgNotAccepted {
            reported: "sha-512".into(),
            accepted: "sha-256".into(),
        }
    );
    let text = error.to_string();
    assert!(
        text.contains("MIC mismatch") && text.contains("sha-512"),
        "{text}"
    );
    assert!(text.contains("do not accept"), "{text}");
}

#[test]
fn an_accepted_algorithm_added_by_the_caller_is_recomputed_over_the_content() {
    let built = build(&PLAIN);
    let mut sent = built.sent_message();
    sent.accepted_mic_algs.push(MicAlg::Sha512);
    let mic = Mic::compute(MicAlg::Sha512, PAYLOAD);
    let got = check_receipt(&sent, &processed(Some(mic.clone()), false));
    assert_eq!(got.map(|r| r.mic), Ok(Some(mic)));
}

#[test]
fn a_signed_mdn_for_a_signed_message_must_carry_a_mic() {
    let signed = Shape {
        sign: Some(MicAlg::Sha256),
        ..PLAIN
    };
    let asked = build(&Shape {
        signed_mdn: Some(MicAlg::Sha256),
        ..signed
    });
    let got = check_receipt(&asked.sent_message(), &processed(None, true));
    assert_eq!(got, Err(ReceiptProblem::NoMic));
    // Signed though nobody asked: it still vouches for nothing without its MIC.
    let got = check_receipt(&build(&signed).sent_message(), &processed(None, true));
    assert_eq!(got, Err(ReceiptProblem::NoMic));
    // A message we did not sign: pyas2lib sends a signed MDN without a MIC, and a MIC
    // would bind nothing of ours.
    let unsigned = build(&Shape {
        signed_mdn: Some(MicAlg::Sha256),
        ..PLAIN
    });
    let got = check_receipt(&unsigned.sent_message(), &processed(None, true));
    assert_eq!(got.map(|r| r.mic), Ok(None));
}

#[test]
fn an_unsigned_mdn_answers_no_request_for_a_signed_one() {
    let built = build(&Shape {
        sign: Some(MicAlg::Sha256),
        signed_mdn: Some(MicAlg::Sha256),
        ..PLAIN
    });
    let mic = peer_mic(&built.message, false);
    let got = check_receipt(&built.sent_message(), &processed(Some(mic), false));
    assert_eq!(got, Err(ReceiptProblem::Unsigned));
    let got = check_receipt(&built.sent_message(), &processed(None, false));
    assert_eq!(got, Err(ReceiptProblem::Unsigned));
}

#[test]
fn a_warning_is_a_receipt_that_keeps_the_warning() {
    let built = build(&PLAIN);
    let mic = peer_mic(&built.message, false);
    // Built directly; tests/mdn_warning.rs reads one from an MDN.
    let warned = VerifiedMdn {
        report: report(
            Some(mic.clone()),
            Disposition::Warning(DispositionWarning::DuplicateDocument),
        ),
        signed: false,
    };
    let got = check_receipt(&built.sent_message(), &warned);
    assert_eq!(
        got,
        Ok(Receipt {
            mic: Some(mic),
            warning: Some(DispositionWarning::DuplicateDocument),
        })
    );
}

#[test]
fn a_refusal_or_another_messages_receipt_is_no_receipt() {
    let built = build(&PLAIN);
    let sent = built.sent_message();
    let mic = peer_mic(&built.message, false);
    let refused = mdn(
        &report(
            Some(mic.clone()),
            Disposition::Failed(DispositionError::DecryptionFailed),
        ),
        false,
    );
    assert_eq!(
        check_receipt(&sent, &refused),
        Err(ReceiptProblem::Refused("decryption-failed".into()))
    );
    let mut other = report(Some(mic), Disposition::Processed);
    other.original_message_id = "m-2@a".into();
    assert_eq!(
        check_receipt(&sent, &mdn(&other, false)),
        Err(ReceiptProblem::OtherMessage("m-2@a".into()))
    );
}

#[test]
fn the_expected_mic_is_what_the_sender_stored() {
    // A caller that kept only `expected_mic` (and no content) still checks the asked
    // algorithm.
    let built = build(&PLAIN);
    let sent = SentMessage {
        mic_content: Vec::new(),
        ..built.sent_message()
    };
    let got = check_receipt(&sent, &processed(Some(built.expected_mic.clone()), false));
    assert_eq!(got.map(|r| r.mic), Ok(Some(built.expected_mic)));
}

#[test]
fn without_an_mdn_request_the_mic_uses_the_signatures_digest() {
    let a = partner_a();
    let built = build_secure_message(&SecureMessageSpec {
        plain: PlainMessageSpec {
            as2_from: "PARTNER-A",
            as2_to: "EDIHUB",
            message_id: MESSAGE_ID,
            subject: "test",
            content_type: "application/edifact",
            payload: PAYLOAD,
            // A micalg without a Disposition-Notification-To is never sent.
            request_mdn_to: None,
            request_signed_mdn: Some(MicAlg::Sha384),
        },
        compress: false,
        sign: Some((&a, MicAlg::Sha256)),
        encrypt: None,
        boundary: "sig-boundary",
        now_unix: NOW,
    })
    .expect("build");
    assert_eq!(built.expected_mic, peer_mic(&built.message, false));
    assert_eq!(built.expected_mic.alg, MicAlg::Sha256);
    assert!(!built.sent_message().signed_mdn_requested);
}
