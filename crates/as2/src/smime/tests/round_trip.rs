use super::*;

#[test]
fn every_combination_round_trips_with_the_expected_mic() {
    let a = partner_a();
    let hub_cert = hub().certificate;
    let certs = [a.certificate.clone()];
    let signs = [
        None,
        Some(MicAlg::Sha1),
        Some(MicAlg::Sha224),
        Some(MicAlg::Sha256),
        Some(MicAlg::Sha384),
        Some(MicAlg::Sha512),
    ];
    let encryptions = [None]
        .into_iter()
        .chain(Encryption::ALL.map(Some))
        .collect::<Vec<_>>();
    for sign in signs {
        for encryption in &encryptions {
            for compress in [false, true] {
                for mdn_alg in [None, Some(MicAlg::Sha384)] {
                    let label = format!("{sign:?} {encryption:?} {compress} {mdn_alg:?}");
                    let built = build_secure_message(&SecureMessageSpec {
                        plain: plain(mdn_alg),
                        compress,
                        sign: sign.map(|alg| (&a, alg)),
                        encrypt: encryption.map(|e| (&hub_cert, e)),
                        boundary: "sig-boundary",
                        now_unix: NOW,
                    })
                    .unwrap();
                    let got = receive(&built.message, &certs, (false, false))
                        .unwrap_or_else(|e| panic!("{label}: {e}"));
                    assert_eq!(got.payload, PAYLOAD, "{label}");
                    assert_eq!(got.content_type, "application/edifact", "{label}");
                    assert_eq!(got.signed, sign.is_some(), "{label}");
                    assert_eq!(got.encrypted, encryption.is_some(), "{label}");
                    assert_eq!(got.compressed, compress, "{label}");
                    assert_eq!(got.mic, built.expected_mic, "{label}");
                }
            }
        }
    }
}

#[test]
fn bare_documents_inside_a_layer_are_kept_whole() {
    let hub = hub();
    for document in [
        &b"UNA:+.? 'UNB+UNOC:3+A+B+240101:1200+1'UNZ+0+1'"[..],
        b"\x00\x01binary",
    ] {
        let der = crypto::encrypt(&hub.certificate, Encryption::Aes128Cbc, document).unwrap();
        let mut message = build_plain_message(&plain(None));
        for (name, value) in &mut message.headers {
            if name.eq_ignore_ascii_case("Content-Type") {
                *value = "application/pkcs7-mime; smime-type=enveloped-data".into();
            }
        }
        message.body = der;
        let got = receive(&message, &[], (false, true)).unwrap();
        assert_eq!(got.payload, document);
        assert_eq!(got.content_type, "application/octet-stream");
        assert_eq!(got.mic, Mic::compute(MicAlg::Sha256, document));
    }
}

#[test]
fn gcm_makes_auth_enveloped_data() {
    let hub_cert = hub().certificate;
    let built = build_secure_message(&SecureMessageSpec {
        plain: plain(None),
        compress: false,
        sign: None,
        encrypt: Some((&hub_cert, Encryption::Aes256Gcm)),
        boundary: "b",
        now_unix: NOW,
    })
    .unwrap();
    let (h, _) = headers_of(&built.message);
    assert!(h.content_type.contains("smime-type=authEnveloped-data"));
    // id-ct-authEnvelopedData, 1.2.840.113549.1.9.16.1.23, DER-encoded.
    let oid = [
        0x06, 0x0b, 0x2a, 0x86, 0x48, 0x86, 0xf7, 0x0d, 0x01, 0x09, 0x10, 0x01, 0x17,
    ];
    assert!(built.message.body.windows(oid.len()).any(|w| w == oid));
    let got = receive(&built.message, &[], (false, true)).unwrap();
    assert_eq!(got.payload, PAYLOAD);
}

#[test]
fn signed_mic_covers_the_signed_entity_with_its_headers() {
    let a = partner_a();
    let built = build_secure_message(&SecureMessageSpec {
        plain: plain(Some(MicAlg::Sha256)),
        compress: false,
        sign: Some((&a, MicAlg::Sha256)),
        encrypt: None,
        boundary: "b1",
        now_unix: NOW,
    })
    .unwrap();
    let mut entity =
        b"Content-Type: application/edifact\r\nContent-Transfer-Encoding: binary\r\n\r\n".to_vec();
    entity.extend_from_slice(PAYLOAD);
    assert_eq!(built.expected_mic, Mic::compute(MicAlg::Sha256, &entity));
    let got = receive(
        &built.message,
        std::slice::from_ref(&a.certificate),
        (true, false),
    )
    .unwrap();
    assert_eq!(got.mic, built.expected_mic);
}

#[test]
fn lf_only_signed_entity_verifies_in_canonical_form() {
    let a = partner_a();
    let crlf_payload = b"UNB+UNOC:3+A+B+240101:1200+1'\r\nUNZ+0+1'\r\n";
    let built = build_secure_message(&SecureMessageSpec {
        plain: PlainMessageSpec {
            payload: crlf_payload,
            ..plain(None)
        },
        compress: false,
        sign: Some((&a, MicAlg::Sha256)),
        encrypt: None,
        boundary: "b5",
        now_unix: NOW,
    })
    .unwrap();
    // A transport turned every CRLF into LF.
    let mut message = built.message.clone();
    let text = String::from_utf8(message.body.clone()).unwrap();
    message.body = text.replace("\r\n", "\n").into_bytes();
    let got = receive(
        &message,
        std::slice::from_ref(&a.certificate),
        (true, false),
    )
    .unwrap();
    assert_eq!(got.mic, built.expected_mic);
    // The payload is taken from the form that verified: what the sender signed.
    assert_eq!(got.payload, crlf_payload);
}

#[test]
fn decompression_bomb_is_refused() {
    let big = vec![b'A'; 4 << 20];
    let built = build_secure_message(&SecureMessageSpec {
        plain: PlainMessageSpec {
            payload: &big,
            ..plain(None)
        },
        compress: true,
        sign: None,
        encrypt: None,
        boundary: "b6",
        now_unix: NOW,
    })
    .unwrap();
    assert!(built.message.body.len() < 64 * 1024);
    assert_eq!(
        refused(receive(&built.message, &[], (false, false))),
        DispositionError::UnexpectedProcessingError
    );
}
