use super::*;
use crate::mic::MicAlg;

fn report(disposition: Disposition) -> MdnReport {
    MdnReport {
        reporting_ua: "edihub AS2 gateway".to_string(),
        original_recipient: "edihub".to_string(),
        final_recipient: "edihub".to_string(),
        original_message_id: "abc-123@partner.example".to_string(),
        received_content_mic: Some(Mic::compute(MicAlg::Sha256, b"payload")),
        disposition,
        human_text: "The message was received.\nThank you.".to_string(),
    }
}

fn build(r: &MdnReport) -> BuiltMdn {
    build_mdn(r, "edihub", "Partner A", "<mdn-1@edihub>", "BOUNDARY-1")
}

#[test]
fn round_trip_processed_warnings_and_every_error() {
    let mut dispositions = vec![
        Disposition::Processed,
        Disposition::Warning(DispositionWarning::DuplicateDocument),
        Disposition::Warning(DispositionWarning::Other("Partly: translated".into())),
    ];
    dispositions.extend(DispositionError::ALL.map(Disposition::Failed));
    for disposition in dispositions {
        let r = report(disposition);
        let built = build(&r);
        let parsed = parse_mdn(&built.content_type, &built.body).unwrap();
        assert_eq!(parsed, r);
    }
}

#[test]
fn round_trip_without_mic_and_with_odd_names() {
    let mut r = report(Disposition::Failed(DispositionError::DecryptionFailed));
    r.received_content_mic = None;
    r.original_recipient = "Our \"Hub\"".to_string();
    r.final_recipient = "Our \"Hub\"".to_string();
    r.human_text = "Grüße\nline two".to_string();
    let built = build(&r);
    let body = String::from_utf8(built.body.clone()).unwrap();
    assert!(!body.contains("Received-Content-MIC"));
    assert!(body.contains("charset=utf-8"));
    assert!(body.contains("Final-Recipient: rfc822; \"Our \\\"Hub\\\"\"\r\n"));
    assert_eq!(parse_mdn(&built.content_type, &built.body).unwrap(), r);
}

#[test]
fn mdn_headers_and_body_structure() {
    let r = report(Disposition::Failed(DispositionError::AuthenticationFailed));
    let built = build(&r);
    let ct = "multipart/report; report-type=disposition-notification; boundary=\"BOUNDARY-1\"";
    assert_eq!(built.content_type, ct);
    let expect_headers: Vec<(String, String)> = [
        ("AS2-Version", "1.2"),
        ("AS2-From", "edihub"),
        ("AS2-To", "\"Partner A\""),
        ("Message-ID", "<mdn-1@edihub>"),
        ("Mime-Version", "1.0"),
        ("Content-Type", ct),
    ]
    .iter()
    .map(|(n, v)| (n.to_string(), v.to_string()))
    .collect();
    assert_eq!(built.headers, expect_headers);

    let mic = Mic::compute(MicAlg::Sha256, b"payload").header_value();
    let expected = format!(
        "--BOUNDARY-1\r\n\
         Content-Type: text/plain; charset=us-ascii\r\n\
         Content-Transfer-Encoding: 7bit\r\n\
         \r\n\
         The message was received.\r\n\
         Thank you.\r\n\
         --BOUNDARY-1\r\n\
         Content-Type: message/disposition-notification\r\n\
         Content-Transfer-Encoding: 7bit\r\n\
         \r\n\
         Reporting-UA: edihub AS2 gateway\r\n\
         Original-Recipient: rfc822; edihub\r\n\
         Final-Recipient: rfc822; edihub\r\n\
         Original-Message-ID: <abc-123@partner.example>\r\n\
         Received-Content-MIC: {mic}\r\n\
         Disposition: automatic-action/MDN-sent-automatically; processed/error: authentication-failed\r\n\
         \r\n\
         --BOUNDARY-1--\r\n"
    );
    assert_eq!(String::from_utf8(built.body).unwrap(), expected);
    // Every line ends in CRLF.
    let processed = build(&report(Disposition::Processed));
    let text = String::from_utf8(processed.body).unwrap();
    assert!(
        text.contains("\r\nDisposition: automatic-action/MDN-sent-automatically; processed\r\n")
    );
    assert!(!text.replace("\r\n", "").contains('\n'));
}

#[test]
fn mdn_message_id_without_brackets_and_bad_boundary() {
    let built = build_mdn(
        &report(Disposition::Processed),
        "edihub",
        "p",
        "mdn-2@edihub",
        "\"\r\n",
    );
    assert!(
        built
            .headers
            .contains(&("Message-ID".to_string(), "<mdn-2@edihub>".to_string()))
    );
    assert!(
        built
            .content_type
            .ends_with("boundary=\"edihub-mdn-boundary\"")
    );
    assert!(parse_mdn(&built.content_type, &built.body).is_ok());
}

#[test]
fn human_text_cannot_break_structure() {
    let mut r = report(Disposition::Processed);
    r.human_text = "a\r\n--BOUNDARY-1--\r\nDisposition: x\r\nb".to_string();
    r.reporting_ua = "ua\r\nDisposition: forged".to_string();
    let built = build(&r);
    let parsed = parse_mdn(&built.content_type, &built.body).unwrap();
    assert_eq!(parsed.disposition, Disposition::Processed);
    assert_eq!(parsed.human_text, "a\n --BOUNDARY-1--\nDisposition: x\nb");
    assert_eq!(parsed.reporting_ua, "ua  Disposition: forged");
}

#[test]
fn parses_lf_only_body() {
    let r = report(Disposition::Failed(DispositionError::IntegrityCheckFailed));
    let built = build(&r);
    let lf = String::from_utf8(built.body).unwrap().replace("\r\n", "\n");
    assert!(!lf.contains('\r'));
    assert_eq!(parse_mdn(&built.content_type, lf.as_bytes()).unwrap(), r);
}

#[test]
fn parses_folded_fields_and_foreign_formatting() {
    // Shaped like MDNs from other AS2 stacks: bare boundary, preamble, folded fields,
    // mixed case, per-recipient block after a blank line, the old MIC spelling.
    let mic = Mic::compute(MicAlg::Sha1, b"x");
    let body = format!(
        "This is a MIME message.\r\n\
         --=_b0\r\n\
         content-type: text/plain\r\n\
         \r\n\
         Thanks\r\n\
         \r\n\
         --=_b0\r\n\
         Content-Type: message/disposition-notification\r\n\
         \r\n\
         reporting-ua: OtherAS2\r\n\
         \x20(version 9)\r\n\
         \r\n\
         ORIGINAL-RECIPIENT: rfc822;\r\n\
         \t\"Partner Hub\"\r\n\
         Final-Recipient: rfc822; \"Partner Hub\"\r\n\
         Original-Message-ID:\r\n\
         \x20<id-9@sender>\r\n\
         Received-content-MIC: {},\r\n\
         \x20sha1\r\n\
         Disposition: automatic-action/MDN-sent-automatically;\r\n\
         \x20processed/Error: Decryption-Failed\r\n\
         \r\n\
         --=_b0--\r\n",
        mic.digest_base64
    );
    let parsed = parse_mdn(
        "Multipart/Report; Report-Type=Disposition-Notification;\r\n boundary==_b0",
        body.as_bytes(),
    )
    .unwrap();
    assert_eq!(parsed.reporting_ua, "OtherAS2 (version 9)");
    assert_eq!(parsed.original_recipient, "Partner Hub");
    assert_eq!(parsed.final_recipient, "Partner Hub");
    assert_eq!(parsed.original_message_id, "id-9@sender");
    assert_eq!(parsed.received_content_mic, Some(mic));
    assert_eq!(
        parsed.disposition,
        Disposition::Failed(DispositionError::DecryptionFailed)
    );
    assert_eq!(parsed.human_text, "Thanks");
}

#[test]
fn parses_base64_notification_part() {
    use base64::Engine as _;
    let notification = "Final-Recipient: rfc822; hub\r\nOriginal-Message-ID: <m@x>\r\nDisposition: automatic-action/MDN-sent-automatically; processed\r\n";
    let body = format!(
        "--b\r\nContent-Type: message/disposition-notification\r\nContent-Transfer-Encoding: base64\r\n\r\n{}\r\n--b--\r\n",
        base64::engine::general_purpose::STANDARD.encode(notification)
    );
    let parsed = parse_mdn("multipart/report; boundary=b", body.as_bytes()).unwrap();
    assert_eq!(parsed.final_recipient, "hub");
    assert_eq!(parsed.original_recipient, "");
    assert_eq!(parsed.reporting_ua, "");
    assert_eq!(parsed.human_text, "");
    assert_eq!(parsed.received_content_mic, None);
    assert_eq!(parsed.disposition, Disposition::Processed);
    // And what we parsed without the optional fields builds and parses back the same.
    let rebuilt = build_mdn(&parsed, "hub", "x", "m2@hub", "b");
    assert_eq!(
        parse_mdn(&rebuilt.content_type, &rebuilt.body).unwrap(),
        parsed
    );
}

#[test]
fn disposition_mapping() {
    let p = |s: &str| Disposition::parse(s);
    assert_eq!(
        p("automatic-action/MDN-sent-automatically; processed"),
        Ok(Disposition::Processed)
    );
    assert_eq!(
        p("automatic-action/MDN-sent-automatically; processed/warning: duplicate-document"),
        Ok(Disposition::Warning(DispositionWarning::DuplicateDocument))
    );
    assert_eq!(
        p("automatic-action/MDN-sent-automatically; processed/Warning: DUPLICATE-DOCUMENT (seen)"),
        Ok(Disposition::Warning(DispositionWarning::DuplicateDocument))
    );
    assert_eq!(
        p("automatic-action/MDN-sent-automatically; processed/warning: partly translated "),
        Ok(Disposition::Warning(DispositionWarning::Other(
            "partly translated".into()
        )))
    );
    assert_eq!(
        p("automatic-action/MDN-sent-automatically; processed/warning"),
        Ok(Disposition::Warning(DispositionWarning::Other(
            String::new()
        )))
    );
    assert_eq!(
        p("manual-action/MDN-sent-manually; PROCESSED/ERROR: INSUFFICIENT-MESSAGE-SECURITY"),
        Ok(Disposition::Failed(
            DispositionError::InsufficientMessageSecurity
        ))
    );
    assert_eq!(
        p("automatic-action/MDN-sent-automatically; processed/error: decryption-failed (bad key)"),
        Ok(Disposition::Failed(DispositionError::DecryptionFailed))
    );
    assert_eq!(
        p("automatic-action/MDN-sent-automatically; processed/error: something-new"),
        Ok(Disposition::Failed(
            DispositionError::UnexpectedProcessingError
        ))
    );
    assert_eq!(
        p("automatic-action/MDN-sent-automatically; failed/Failure: unsupported format"),
        Ok(Disposition::Failed(
            DispositionError::UnexpectedProcessingError
        ))
    );
    for bad in ["processed", "automatic-action; displayed", ""] {
        assert!(matches!(p(bad), Err(As2Error::MalformedMdn(_))), "{bad:?}");
    }
}

#[test]
fn parse_mdn_rejects_malformed_input() {
    let good = build(&report(Disposition::Processed));
    let body = &good.body;
    assert!(matches!(
        parse_mdn("multipart/signed; boundary=x", body),
        Err(As2Error::Unsupported(_))
    ));
    for ct in [
        "text/plain",
        "multipart/report",
        "multipart/report; report-type=delivery-status; boundary=\"BOUNDARY-1\"",
        "multipart/report; boundary=\"OTHER\"",
        "",
    ] {
        assert!(
            matches!(parse_mdn(ct, body), Err(As2Error::MalformedMdn(_))),
            "{ct:?}"
        );
    }
    let text = String::from_utf8(body.clone()).unwrap();
    for (from, to) in [
        ("Final-Recipient", "X-Final-Recipient"),
        ("Original-Message-ID", "X-Original-Message-ID"),
        ("Disposition:", "X-Disposition:"),
        ("message/disposition-notification", "text/plain"),
        ("Received-Content-MIC: ", "Received-Content-MIC: x"),
        ("<abc-123@partner.example>", "<>"),
    ] {
        let broken = text.replacen(from, to, 1);
        assert!(
            matches!(
                parse_mdn(&good.content_type, broken.as_bytes()),
                Err(As2Error::MalformedMdn(_))
            ),
            "{from} -> {to}"
        );
    }
}
