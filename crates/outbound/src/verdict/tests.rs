use super::*;
use edihub_as2::mdn::{Disposition, DispositionError, MdnReport, build_mdn};
use edihub_as2::{Identity, MicAlg};

fn fixture(name: &str) -> Vec<u8> {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../fixtures/as2/");
    std::fs::read(format!("{path}{name}")).expect("fixture")
}

fn identity(name: &str) -> Identity {
    Identity::from_pem(
        &fixture(&format!("{name}.crt")),
        &fixture(&format!("{name}.key")),
    )
    .expect("identity")
}

fn certificates(name: &str) -> Vec<Certificate> {
    edihub_as2::certificates_from_pem(&fixture(&format!("{name}.crt"))).expect("certificate")
}

fn sent(signed_mdn_requested: bool) -> SentMessage {
    let content = b"UNB+UNOC:3'".to_vec();
    SentMessage {
        message_id: "m1@EDIHUB".into(),
        expected_mic: Mic::compute(MicAlg::Sha256, &content),
        mic_content: content,
        signed_mdn_requested,
        message_signed: true,
        accepted_mic_algs: vec![MicAlg::Sha256],
    }
}

fn report(mic: Option<Mic>, disposition: Disposition) -> MdnReport {
    MdnReport {
        reporting_ua: "test".into(),
        original_recipient: "PARTNER".into(),
        final_recipient: "PARTNER".into(),
        original_message_id: "m1@EDIHUB".into(),
        received_content_mic: mic,
        disposition,
        human_text: "test".into(),
    }
}

/// The partner's MDN as its HTTP answer: (content type, body), signed by `signer`.
fn mdn(report: &MdnReport, signer: Option<&str>) -> (String, Vec<u8>) {
    let built = build_mdn(report, "PARTNER", "EDIHUB", "mdn1@PARTNER", "b1");
    let built = match signer {
        Some(name) => {
            edihub_as2::sign_mdn(built, &identity(name), MicAlg::Sha256, "b2", 0).expect("signed")
        }
        None => built,
    };
    (built.content_type, built.body)
}

fn judged(status: u16, (content_type, body): &(String, Vec<u8>), sent: &SentMessage) -> Verdict {
    let answer = Answer {
        status,
        content_type,
        body,
    };
    let request = MdnRequest::Sync {
        signed: Some(MicAlg::Sha256),
    };
    judge(&answer, &request, sent, &certificates("partner-a"))
}

fn good_mic() -> Mic {
    sent(true).expected_mic
}

#[test]
fn a_signed_mdn_with_the_expected_mic_delivers() {
    let answer = mdn(
        &report(Some(good_mic()), Disposition::Processed),
        Some("partner-a"),
    );
    assert_eq!(
        judged(200, &answer, &sent(true)),
        Verdict::Delivered {
            mic: Some(good_mic())
        }
    );
}

#[test]
fn a_mic_mismatch_an_error_mdn_or_a_wrong_signer_fail() {
    let other = Mic::compute(MicAlg::Sha256, b"something else");
    let mismatch = mdn(
        &report(Some(other.clone()), Disposition::Processed),
        Some("partner-a"),
    );
    match judged(200, &mismatch, &sent(true)) {
        Verdict::Failed { reason, mic, class } => {
            assert!(reason.contains("MIC mismatch"), "{reason}");
            assert_eq!(mic, Some(other));
            assert_eq!(class, edihub_metrics::FailureClass::MicMismatch);
        }
        other => panic!("{other:?}"),
    }
    let refused = report(
        Some(good_mic()),
        Disposition::Failed(DispositionError::DecryptionFailed),
    );
    let refused = mdn(&refused, Some("partner-a"));
    assert!(matches!(
        judged(200, &refused, &sent(true)),
        Verdict::Failed { reason, .. } if reason.contains("decryption-failed")
    ));
    let forged = mdn(
        &report(Some(good_mic()), Disposition::Processed),
        Some("partner-b"),
    );
    assert!(matches!(
        judged(200, &forged, &sent(true)),
        Verdict::Failed { reason, .. } if reason.contains("not a usable MDN")
    ));
    let unsigned = mdn(&report(Some(good_mic()), Disposition::Processed), None);
    assert!(matches!(
        judged(200, &unsigned, &sent(true)),
        Verdict::Failed { reason, .. } if reason.contains("not signed")
    ));
}

#[test]
fn server_errors_are_retried_and_client_errors_fail() {
    let body = (
        String::from("text/plain"),
        b"down\r\nfor maintenance".to_vec(),
    );
    assert_eq!(
        judged(503, &body, &sent(true)),
        Verdict::Retry {
            reason: "HTTP 503".into()
        }
    );
    assert!(matches!(
        judged(429, &body, &sent(true)),
        Verdict::Retry { .. }
    ));
    assert_eq!(
        judged(403, &body, &sent(true)),
        Verdict::Failed {
            reason: "HTTP 403: down  for maintenance".into(),
            mic: None,
            class: edihub_metrics::FailureClass::Refused,
        }
    );
    assert!(matches!(
        judged(302, &body, &sent(true)),
        Verdict::Failed { .. }
    ));
}

#[test]
fn without_a_sync_mdn_a_2xx_delivers_or_waits() {
    let answer = Answer {
        status: 200,
        content_type: "",
        body: b"",
    };
    let none = judge(&answer, &MdnRequest::None, &sent(false), &[]);
    assert_eq!(none, Verdict::Delivered { mic: None });
    let request = MdnRequest::Async {
        signed: None,
        return_url: "https://hub/as2".into(),
    };
    assert_eq!(judge(&answer, &request, &sent(false), &[]), Verdict::Sent);
}
