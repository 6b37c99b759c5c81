use super::*;

#[test]
fn signed_mdn_round_trips_and_detects_tampering() {
    let hub = hub();
    let report = MdnReport {
        reporting_ua: "edihub".into(),
        original_recipient: "EDIHUB".into(),
        final_recipient: "EDIHUB".into(),
        original_message_id: "m-1@a".into(),
        received_content_mic: Some(Mic::compute(MicAlg::Sha256, b"x")),
        disposition: Disposition::Processed,
        human_text: "ok".into(),
    };
    let unsigned = build_mdn(&report, "EDIHUB", "PARTNER-A", "mdn-1@hub", "r-boundary");
    for alg in MicAlg::ALL {
        let signed = sign_mdn(unsigned.clone(), &hub, alg, "s-boundary", NOW).unwrap();
        assert!(signed.content_type.starts_with("multipart/signed"));
        assert!(
            signed
                .headers
                .contains(&("Content-Type".to_string(), signed.content_type.clone()))
        );
        let read = read_mdn(
            &signed.content_type,
            &signed.body,
            std::slice::from_ref(&hub.certificate),
        )
        .unwrap();
        assert!(read.signed);
        assert_eq!(read.report, report);
        // Deterministic for the same inputs (a resend gets the same bytes anyway, from
        // the database, but tests can compare).
        let again = sign_mdn(unsigned.clone(), &hub, alg, "s-boundary", NOW).unwrap();
        assert_eq!(again.body, signed.body);
    }
    let signed = sign_mdn(unsigned.clone(), &hub, MicAlg::Sha256, "s-boundary", NOW).unwrap();
    let forged = String::from_utf8(signed.body.clone()).unwrap().replacen(
        "processed",
        "processed/error: decryption-failed",
        1,
    );
    assert!(matches!(
        read_mdn(
            &signed.content_type,
            forged.as_bytes(),
            std::slice::from_ref(&hub.certificate)
        ),
        Err(As2Error::Signature(_))
    ));
    assert!(matches!(
        read_mdn(
            &signed.content_type,
            &signed.body,
            &[partner_b().certificate]
        ),
        Err(As2Error::Signature(_))
    ));
    // Unsigned MDNs still read, marked unsigned.
    let read = read_mdn(&unsigned.content_type, &unsigned.body, &[]).unwrap();
    assert!(!read.signed);
}
