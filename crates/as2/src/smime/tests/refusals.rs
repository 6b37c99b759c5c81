use super::*;

/// A signature made by the `openssl cms` CLI with RSASSA-PSS (SHA-256, MGF1-SHA-256,
/// salt 32; see fixtures/as2/README.md), wrapped in multipart/signed.
#[test]
fn rsassa_pss_signatures_verify() {
    let content = include_bytes!("../../../../../fixtures/as2/pss-content.txt");
    let signature = include_bytes!("../../../../../fixtures/as2/pss-signature.der");
    let mut body = b"--pss\r\n".to_vec();
    body.extend_from_slice(content);
    body.extend_from_slice(
        b"\r\n--pss\r\nContent-Type: application/pkcs7-signature\r\n\
          Content-Transfer-Encoding: base64\r\n\r\n",
    );
    body.extend_from_slice(base64_lines(signature).as_bytes());
    body.extend_from_slice(b"--pss--\r\n");
    let mut message = build_plain_message(&plain(Some(MicAlg::Sha256)));
    for (name, value) in &mut message.headers {
        if name.eq_ignore_ascii_case("Content-Type") {
            *value = "multipart/signed; protocol=\"application/pkcs7-signature\"; micalg=sha-256; boundary=pss".into();
        }
    }
    message.body = body.clone();
    let a = partner_a();
    let got = receive(
        &message,
        std::slice::from_ref(&a.certificate),
        (true, false),
    )
    .unwrap();
    assert!(got.signed);
    assert_eq!(got.mic, Mic::compute(MicAlg::Sha256, content));
    assert_eq!(got.payload, b"UNB+UNOC:3+A+B+261202:1400+1'UNZ+0+1'");
    // Someone else's certificate does not make it verify.
    let b = partner_b();
    assert_eq!(
        refused(receive(&message, &[b.certificate], (true, false))),
        DispositionError::AuthenticationFailed
    );
}

#[test]
fn refusals_map_to_rfc_dispositions() {
    let a = partner_a();
    let b = partner_b();
    let certs_a = [a.certificate.clone()];
    let signed_by = |who: &Identity| {
        build_secure_message(&SecureMessageSpec {
            plain: plain(None),
            compress: false,
            sign: Some((who, MicAlg::Sha256)),
            encrypt: None,
            boundary: "b2",
            now_unix: NOW,
        })
        .unwrap()
        .message
    };
    // Signed by a stranger.
    assert_eq!(
        refused(receive(&signed_by(&b), &certs_a, (false, false))),
        DispositionError::AuthenticationFailed
    );
    // Signed, but the partner has no certificate configured.
    assert_eq!(
        refused(receive(&signed_by(&a), &[], (false, false))),
        DispositionError::AuthenticationFailed
    );
    // Tampered content.
    let mut tampered = signed_by(&a);
    let at = tampered.body.windows(3).position(|w| w == b"UNB").unwrap();
    tampered.body[at] = b'X';
    assert_eq!(
        refused(receive(&tampered, &certs_a, (false, false))),
        DispositionError::IntegrityCheckFailed
    );
    // Encrypted to someone else.
    let to_b = build_secure_message(&SecureMessageSpec {
        plain: plain(None),
        compress: false,
        sign: None,
        encrypt: Some((&b.certificate, Encryption::Aes128Cbc)),
        boundary: "b3",
        now_unix: NOW,
    })
    .unwrap()
    .message;
    assert_eq!(
        refused(receive(&to_b, &certs_a, (false, false))),
        DispositionError::DecryptionFailed
    );
    // Requirements.
    let unsigned = build_plain_message(&plain(None));
    assert_eq!(
        refused(receive(&unsigned, &certs_a, (true, false))),
        DispositionError::InsufficientMessageSecurity
    );
    assert_eq!(
        refused(receive(&signed_by(&a), &certs_a, (true, true))),
        DispositionError::InsufficientMessageSecurity
    );
    // Garbage where CMS should be.
    let mut garbage = to_b.clone();
    garbage.body = b"\x30\x03\x02\x01\x00".to_vec();
    assert_eq!(
        refused(receive(&garbage, &certs_a, (false, false))),
        DispositionError::DecryptionFailed
    );
}

#[test]
fn rollover_accepts_any_configured_certificate() {
    let a = partner_a();
    let b = partner_b();
    let message = build_secure_message(&SecureMessageSpec {
        plain: plain(None),
        compress: false,
        sign: Some((&b, MicAlg::Sha512)),
        encrypt: None,
        boundary: "b4",
        now_unix: NOW,
    })
    .unwrap()
    .message;
    let both = [a.certificate.clone(), b.certificate.clone()];
    assert!(receive(&message, &both, (true, false)).unwrap().signed);
}

#[test]
fn expired_certificates_are_refused_unless_allowed() {
    let a = partner_a();
    let message = build_secure_message(&SecureMessageSpec {
        plain: plain(None),
        compress: false,
        sign: Some((&a, MicAlg::Sha256)),
        encrypt: None,
        boundary: "b7",
        now_unix: NOW,
    })
    .unwrap()
    .message;
    let (h, cte) = headers_of(&message);
    let certs = [a.certificate.clone()];
    let at = |now_unix: i64, allow_expired: bool| {
        unwrap_inbound(
            &h,
            cte.as_deref(),
            &message.body,
            None,
            &PartnerSecurity {
                algorithms: &crate::AlgorithmPolicy::default(),
                certificates: &certs,
                require_signature: true,
                require_encryption: false,
                allow_expired,
                now_unix,
            },
            UnwrapLimits::default(),
        )
    };
    // The fixture certificates were made in 2026 for 100 years.
    let year_2200 = 7_258_118_400;
    let year_2000 = 946_684_800;
    for now in [year_2200, year_2000] {
        let refusal = at(now, false).expect_err("outside the validity period");
        assert_eq!(refusal.disposition, DispositionError::AuthenticationFailed);
        assert!(refusal.reason.contains("expired"), "{}", refusal.reason);
        assert!(at(now, true).is_ok());
    }
    assert!(at(NOW, false).is_ok());
}
