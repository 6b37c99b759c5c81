//! Deterministic stand-in for a fuzz target: every parser of this crate is run over many
//! truncations and byte mutations of valid input and must return, never panic.

use edihub_as2::{
    As2Headers, Disposition, DispositionError, MdnReport, Mic, MicAlg, build_mdn, parse_mdn,
};

fn sample_mdn() -> (String, Vec<u8>) {
    let report = MdnReport {
        reporting_ua: "edihub".into(),
        original_recipient: "edihub".into(),
        final_recipient: "edihub".into(),
        original_message_id: "m-1@partner".into(),
        received_content_mic: Some(Mic::compute(MicAlg::Sha256, b"x")),
        disposition: Disposition::Failed(DispositionError::AuthenticationFailed),
        human_text: "Grüße, received".into(),
    };
    let built = build_mdn(&report, "edihub", "Partner A", "mdn-1@edihub", "b");
    (built.content_type, built.body)
}

/// Bytes worth substituting: structure characters, line breaks, and non-UTF-8.
const INTERESTING: &[u8] = b"\r\n-:;=<>\"\\ \t/\x00\xff\xc3";

#[test]
fn parse_mdn_never_panics_on_mutations() {
    let (ct, body) = sample_mdn();
    for end in 0..=body.len() {
        let _ = parse_mdn(&ct, &body[..end]);
    }
    for i in 0..body.len() {
        for &b in INTERESTING {
            let mut mutated = body.clone();
            mutated[i] = b;
            let _ = parse_mdn(&ct, &mutated);
            mutated.remove(i);
            let _ = parse_mdn(&ct, &mutated);
        }
    }
    for end in 0..=ct.len() {
        if let Some(prefix) = ct.get(..end) {
            let _ = parse_mdn(prefix, &body);
        }
    }
}

#[test]
fn header_parsers_never_panic_on_mutations() {
    let values: [&[u8]; 5] = [
        b"\"Partner \\\"A\\\"\"",
        b"<m-1@partner>",
        b"signed-receipt-protocol=optional, pkcs7-signature; signed-receipt-micalg=optional, sha-256",
        b"application/edifact",
        "caf\u{e9}".as_bytes(),
    ];
    for value in values {
        for i in 0..=value.len() {
            for &b in INTERESTING {
                let mut mutated = value.to_vec();
                mutated.insert(i, b);
                for name in [
                    "AS2-From",
                    "AS2-To",
                    "Message-ID",
                    "Disposition-Notification-Options",
                    "Content-Type",
                ] {
                    let mut pairs: Vec<(&str, &[u8])> = vec![
                        ("AS2-From", b"a"),
                        ("AS2-To", b"b"),
                        ("Message-ID", b"m"),
                        ("Content-Type", b"application/edifact"),
                    ];
                    pairs.retain(|(n, _)| *n != name);
                    pairs.push((name, &mutated));
                    let _ = As2Headers::from_pairs(pairs);
                }
                if let Ok(s) = std::str::from_utf8(&mutated) {
                    let _ = Mic::parse(s);
                    let _ = MicAlg::parse(s);
                    let _ = Disposition::parse(s);
                }
            }
        }
    }
}

#[test]
fn unwrap_inbound_never_panics_on_mutations() {
    use edihub_as2::{
        Identity, PartnerSecurity, PlainMessageSpec, SecureMessageSpec, build_secure_message,
        unwrap_inbound,
    };
    let hub = Identity::from_pem(
        include_bytes!("../../../fixtures/as2/hub.crt"),
        include_bytes!("../../../fixtures/as2/hub.key"),
    )
    .unwrap();
    let partner = Identity::from_pem(
        include_bytes!("../../../fixtures/as2/partner-a.crt"),
        include_bytes!("../../../fixtures/as2/partner-a.key"),
    )
    .unwrap();
    let built = build_secure_message(&SecureMessageSpec {
        plain: PlainMessageSpec {
            as2_from: "A",
            as2_to: "HUB",
            message_id: "m@a",
            subject: "s",
            content_type: "application/edifact",
            payload: b"UNB+UNOC:3+A+B+240101:1200+1'UNZ+0+1'",
            request_mdn_to: Some("x"),
            request_signed_mdn: Some(MicAlg::Sha256),
        },
        compress: true,
        sign: Some((&partner, MicAlg::Sha256)),
        encrypt: None,
        boundary: "b",
        now_unix: 1_800_000_000,
    })
    .unwrap()
    .message;
    let headers = As2Headers::from_pairs(
        built
            .headers
            .iter()
            .map(|(n, v)| (n.as_str(), v.as_bytes())),
    )
    .unwrap();
    let certificates = [partner.certificate.clone()];
    let security = PartnerSecurity {
        algorithms: &edihub_as2::AlgorithmPolicy::default(),
        certificates: &certificates,
        require_signature: true,
        require_encryption: false,
        allow_expired: false,
        now_unix: 1_800_000_000,
    };
    let run = |headers: &As2Headers, body: &[u8]| {
        let _ = unwrap_inbound(
            headers,
            None,
            body,
            Some(&hub),
            &security,
            edihub_as2::UnwrapLimits::default(),
        );
    };
    run(&headers, &built.body);
    let body = &built.body;
    for end in (0..=body.len()).step_by(13) {
        run(&headers, &body[..end]);
    }
    for i in (0..body.len()).step_by(5) {
        for &b in INTERESTING {
            let mut mutated = body.clone();
            mutated[i] = b;
            run(&headers, &mutated);
        }
    }
    for ct in [
        "multipart/signed",
        "multipart/signed; boundary=\"\"",
        "application/pkcs7-mime",
        "application/pkcs7-mime; smime-type=compressed-data",
        "application/pkcs7-mime; smime-type=enveloped-data",
        "garbage",
    ] {
        let mut h = headers.clone();
        h.content_type = ct.to_string();
        run(&h, body);
        run(&h, b"");
    }
}
