use super::*;

fn parse(pairs: &[(&str, &[u8])]) -> Result<As2Headers, As2Error> {
    As2Headers::from_pairs(pairs.iter().copied())
}

fn base<'a>(from: &'a [u8], to: &'a [u8], id: &'a [u8]) -> Vec<(&'a str, &'a [u8])> {
    vec![
        ("AS2-From", from),
        ("AS2-To", to),
        ("Message-ID", id),
        ("Content-Type", b"application/edifact"),
    ]
}

#[test]
fn unquoted_names() {
    let h = parse(&base(b"PARTNERA", b"edihub", b"<1@a>")).unwrap();
    assert_eq!(h.as2_from, "PARTNERA");
    assert_eq!(h.as2_to, "edihub");
    // Lenient: an unquoted name with a space is kept as is.
    let h = parse(&base(b"  Partner A ", b"edihub", b"<1@a>")).unwrap();
    assert_eq!(h.as2_from, "Partner A");
}

#[test]
fn quoted_names_and_escapes() {
    let h = parse(&base(br#""Partner A""#, br#""edi\"hub\\x""#, b"1@a")).unwrap();
    assert_eq!(h.as2_from, "Partner A");
    assert_eq!(h.as2_to, r#"edi"hub\x"#);
    for bad in [
        &br#""open"#[..],
        br#""a" b"#,
        br#""""#,
        b"",
        br#"a"b"#,
        br"a\b",
        "caf\u{e9}".as_bytes(),
        &[b'x'; 129],
    ] {
        let err = parse(&base(bad, b"edihub", b"1@a")).unwrap_err();
        assert!(
            matches!(&err, As2Error::InvalidHeader { name, .. } if name == "AS2-From"),
            "{:?} gave {err:?}",
            String::from_utf8_lossy(bad)
        );
    }
    assert!(parse(&base(&[b'x'; 128], b"edihub", b"1@a")).is_ok());
}

#[test]
fn message_id_with_and_without_brackets() {
    let with = parse(&base(b"a", b"b", b"<abc-123@partner.example>")).unwrap();
    let without = parse(&base(b"a", b"b", b"abc-123@partner.example")).unwrap();
    assert_eq!(with.message_id, "abc-123@partner.example");
    assert_eq!(with.message_id, without.message_id);
    let spaced = parse(&base(b"a", b"b", b"  < abc@x >  ")).unwrap();
    assert_eq!(spaced.message_id, "abc@x");
    for bad in [
        &b"<abc"[..],
        b"abc>",
        b"<>",
        b"",
        b"a b",
        b"<a<b>",
        b"<<a>>",
    ] {
        assert!(
            matches!(
                parse(&base(b"a", b"b", bad)),
                Err(As2Error::InvalidHeader { .. })
            ),
            "{:?}",
            String::from_utf8_lossy(bad)
        );
    }
}

#[test]
fn header_names_are_case_insensitive() {
    let pairs: Vec<(&str, &[u8])> = vec![
        ("as2-from", b"a"),
        ("AS2-TO", b"b"),
        ("message-id", b"<m@x>"),
        ("CONTENT-TYPE", b"application/EDIFACT"),
        ("as2-version", b"1.2"),
        ("SUBJECT", b"invoice"),
        ("disposition-notification-to", b"mailto:as2@partner.example"),
        (
            "DISPOSITION-NOTIFICATION-OPTIONS",
            b"signed-receipt-protocol=optional, pkcs7-signature; signed-receipt-micalg=optional, sha-256, sha1",
        ),
        ("receipt-delivery-option", b"https://partner.example/mdn"),
        ("X-Unknown", b"\xff\xfe ignored"),
    ];
    let h = As2Headers::from_pairs(pairs).unwrap();
    assert_eq!(h.as2_from, "a");
    assert_eq!(h.as2_to, "b");
    assert_eq!(h.message_id, "m@x");
    assert_eq!(h.content_type, "application/EDIFACT");
    assert_eq!(h.as2_version.as_deref(), Some("1.2"));
    assert_eq!(h.subject.as_deref(), Some("invoice"));
    assert!(h.mdn_requested());
    assert_eq!(
        h.receipt_delivery_option.as_deref(),
        Some("https://partner.example/mdn")
    );
    assert_eq!(
        h.mdn_options,
        Some(MdnOptions {
            signed_receipt_protocol: Some((Importance::Optional, "pkcs7-signature".into())),
            micalg: vec![MicAlg::Sha256, MicAlg::Sha1],
            micalg_importance: Some(Importance::Optional),
        })
    );
}

#[test]
fn non_utf8_header_value_is_an_error() {
    let err = parse(&base(b"\xffpartner", b"b", b"m@x")).unwrap_err();
    assert!(
        matches!(&err, As2Error::InvalidHeader { name, reason } if name == "AS2-From" && reason.contains("UTF-8")),
        "{err:?}"
    );
    let mut pairs = base(b"a", b"b", b"m@x");
    pairs.push(("Subject", b"caf\xe9"));
    assert!(matches!(parse(&pairs), Err(As2Error::InvalidHeader { .. })));
    let mut pairs = base(b"a", b"b", b"m@x");
    pairs.push(("Disposition-Notification-Options", b"\xc3\x28"));
    assert!(matches!(parse(&pairs), Err(As2Error::InvalidHeader { .. })));
}

#[test]
fn missing_and_repeated_headers() {
    let pairs: Vec<(&str, &[u8])> = vec![("AS2-To", b"b"), ("Message-ID", b"m")];
    assert_eq!(parse(&pairs), Err(As2Error::MissingHeader("AS2-From")));
    let pairs: Vec<(&str, &[u8])> =
        vec![("AS2-From", b"a"), ("AS2-To", b"b"), ("Message-ID", b"m")];
    assert_eq!(parse(&pairs), Err(As2Error::MissingHeader("Content-Type")));
    let mut pairs = base(b"a", b"b", b"m@x");
    pairs.push(("as2-from", b"other"));
    assert!(
        matches!(parse(&pairs), Err(As2Error::InvalidHeader { name, .. }) if name == "AS2-From")
    );
}

#[test]
fn folded_and_control_characters() {
    let mut pairs = base(b"a", b"b", b"m@x");
    pairs.push(("Subject", b"an\r\n invoice"));
    assert_eq!(
        parse(&pairs).unwrap().subject.as_deref(),
        Some("an invoice")
    );
    let mut pairs = base(b"a", b"b", b"m@x");
    pairs.push(("Subject", b"bad\x00"));
    assert!(matches!(parse(&pairs), Err(As2Error::InvalidHeader { .. })));
    let mut pairs = base(b"a", b"b", b"m@x");
    pairs.push(("Subject", b"inject\r\nX-Evil: 1"));
    assert!(matches!(parse(&pairs), Err(As2Error::InvalidHeader { .. })));
}

#[test]
fn mdn_options_variants() {
    let o = MdnOptions::parse(
        "Signed-Receipt-Protocol=REQUIRED, PKCS7-Signature;signed-receipt-micalg=required,md5,SHA256,sha-1;",
    )
    .unwrap();
    assert_eq!(
        o.signed_receipt_protocol,
        Some((Importance::Required, "pkcs7-signature".to_string()))
    );
    assert_eq!(o.micalg, vec![MicAlg::Sha256, MicAlg::Sha1]);
    assert_eq!(o.micalg_importance, Some(Importance::Required));

    // No importance: read as optional; unknown attribute ignored.
    let o = MdnOptions::parse("x-vendor=1; signed-receipt-micalg=sha-512").unwrap();
    assert_eq!(o.micalg, vec![MicAlg::Sha512]);
    assert_eq!(o.micalg_importance, Some(Importance::Optional));
    assert_eq!(o.signed_receipt_protocol, None);

    assert!(MdnOptions::parse("signed-receipt-protocol").is_err());
    assert!(MdnOptions::parse("signed-receipt-protocol=optional").is_err());

    let written = MdnOptions {
        signed_receipt_protocol: Some((Importance::Optional, "pkcs7-signature".into())),
        micalg: vec![MicAlg::Sha256],
        micalg_importance: Some(Importance::Optional),
    };
    assert_eq!(
        written.header_value(),
        "signed-receipt-protocol=optional, pkcs7-signature; signed-receipt-micalg=optional, sha-256"
    );
    assert_eq!(MdnOptions::parse(&written.header_value()), Ok(written));
}

#[test]
fn quoting_names() {
    assert_eq!(quote_as2_name("edihub"), "edihub");
    assert_eq!(quote_as2_name("edihub.example"), "edihub.example");
    assert_eq!(quote_as2_name("Partner A"), "\"Partner A\"");
    assert_eq!(quote_as2_name(r#"a"b\c"#), r#""a\"b\\c""#);
    for name in ["Partner A", r#"a"b\c"#, "x", "A-B_C"] {
        assert_eq!(
            parse_as2_name("AS2-From", &quote_as2_name(name)).unwrap(),
            name
        );
    }
}
