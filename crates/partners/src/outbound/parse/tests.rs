use super::*;
use crate::outbound::OutboundChanges;

fn url_only() -> PartnerOutboundSettings {
    PartnerOutboundSettings {
        url: "https://as2.partner.example/as2".into(),
        ..Default::default()
    }
}

#[test]
fn what_the_settings_leave_out_is_the_secure_default() {
    let parsed = parse(&url_only()).unwrap();
    assert_eq!(
        parsed,
        OutboundPartnership::new("https://as2.partner.example/as2".into())
    );
    assert_eq!(parsed.sign, Some(MicAlg::Sha256));
    assert_eq!(parsed.encrypt, Some(Encryption::Aes256Cbc));
    assert_eq!(
        parsed.mdn,
        MdnRequest::Sync {
            signed: Some(MicAlg::Sha256)
        }
    );
}

#[test]
fn every_field_is_read_in_any_known_spelling() {
    let settings = PartnerOutboundSettings {
        url: " https://AS2.Partner.example:8443/in ".into(),
        hub_as2_id: Some("EDIHUB-EU".into()),
        sign: Some("SHA512".into()),
        encrypt: Some("none".into()),
        compress: true,
        mdn: Some("Async".into()),
        mdn_signed: Some("NONE".into()),
        async_mdn_url: Some("https://hub.example/as2".into()),
        timeout_ms: Some(5_000),
        mdn_timeout_ms: Some(60_000),
        max_attempts: Some(3),
        base_backoff_ms: Some(1_000),
        max_backoff_ms: Some(1_000),
    };
    let parsed = parse(&settings).unwrap();
    assert_eq!(parsed.url, "https://as2.partner.example:8443/in");
    assert_eq!(parsed.hub_as2_id.as_deref(), Some("EDIHUB-EU"));
    assert_eq!(parsed.sign, Some(MicAlg::Sha512));
    assert_eq!(parsed.encrypt, None);
    assert!(parsed.compress);
    assert_eq!(
        parsed.mdn,
        MdnRequest::Async {
            signed: None,
            return_url: "https://hub.example/as2".into()
        }
    );
    assert_eq!(
        (
            parsed.timeout_ms,
            parsed.mdn_timeout_ms,
            parsed.max_attempts
        ),
        (5_000, 60_000, 3)
    );
    assert_eq!(
        (parsed.base_backoff_ms, parsed.max_backoff_ms),
        (1_000, 1_000)
    );
}

#[test]
fn the_normalised_form_reads_back_to_the_same_partnership() {
    let mut unsigned_mdn = url_only();
    unsigned_mdn.mdn_signed = Some("none".into());
    unsigned_mdn.sign = Some("sha-1".into());
    let mut no_mdn = url_only();
    no_mdn.mdn = Some("none".into());
    for settings in [url_only(), unsigned_mdn, no_mdn] {
        let stored = normalized(&settings).unwrap();
        assert_eq!(parse(&stored).unwrap(), parse(&settings).unwrap());
        assert_eq!(normalized(&stored).unwrap(), stored, "stable");
    }
    let stored = normalized(&url_only()).unwrap();
    assert_eq!(stored.sign.as_deref(), Some("sha-256"));
    assert_eq!(stored.encrypt.as_deref(), Some("aes256"));
    assert_eq!(stored.mdn.as_deref(), Some("sync"));
    assert_eq!(stored.max_attempts, Some(10));
}

#[test]
fn bad_values_are_refused_naming_the_option_and_value() {
    type Change = fn(&mut PartnerOutboundSettings);
    let cases: [(Change, &str); 14] = [
        (
            |s| s.url = "ftp://as2.partner.example/".into(),
            "outbound url \"ftp://as2.partner.example/\": only http and https",
        ),
        (
            |s| s.url = "as2.partner.example".into(),
            "outbound url \"as2.partner.example\": is not a URL",
        ),
        (
            |s| s.url = "https://hub:s3cret@as2.partner.example/".into(),
            "outbound url \"https://***@as2.partner.example/\": user info is not allowed",
        ),
        (
            |s| s.sign = Some("md5".into()),
            "outbound sign \"md5\": unknown digest (known: sha-1,",
        ),
        (
            |s| s.encrypt = Some("rc4".into()),
            "outbound encrypt \"rc4\": unknown cipher (known: 3des,",
        ),
        (
            |s| s.mdn = Some("later".into()),
            "outbound mdn \"later\": not none, sync or async",
        ),
        (
            |s| s.mdn_signed = Some("md5".into()),
            "outbound mdn_signed \"md5\": unknown digest",
        ),
        (
            |s| s.mdn = Some("async".into()),
            "outbound mdn = async needs async_mdn_url",
        ),
        (
            |s| s.async_mdn_url = Some("https://hub.example/as2".into()),
            "outbound async_mdn_url is only for mdn = async (mdn is sync)",
        ),
        (
            |s| {
                s.mdn = Some("async".into());
                s.async_mdn_url = Some("mailto:x@example".into())
            },
            "outbound async_mdn_url \"mailto:***@example\": only http and https",
        ),
        (
            |s| {
                s.mdn = Some("none".into());
                s.mdn_signed = Some("sha256".into())
            },
            "outbound mdn_signed is only for an MDN (mdn is none)",
        ),
        (
            |s| s.max_attempts = Some(0),
            "outbound max_attempts 0: must be at least 1",
        ),
        (
            |s| s.base_backoff_ms = Some(7_200_000),
            "outbound base_backoff_ms 7200000 is more than max_backoff_ms 3600000",
        ),
        (
            |s| s.hub_as2_id = Some(" EDIHUB".into()),
            "outbound hub_as2_id \" EDIHUB\": 1 to 128 printable",
        ),
    ];
    for (change, expected) in cases {
        let mut settings = url_only();
        change(&mut settings);
        let error = parse(&settings).unwrap_err().to_string();
        assert!(error.starts_with(expected), "{error:?} is not {expected:?}");
        assert!(!error.contains("s3cret"), "{error}");
    }
}

#[test]
fn encrypting_needs_a_certificate_and_plain_sending_does_not() {
    let encrypting = parse(&url_only()).unwrap();
    let error = encrypting.check_certificates(0).unwrap_err();
    assert!(
        error
            .to_string()
            .starts_with("outbound encrypt aes256: the partnership has no certificate")
    );
    assert!(encrypting.check_certificates(1).is_ok());
    let mut plain = url_only();
    plain.encrypt = Some("none".into());
    assert!(parse(&plain).unwrap().check_certificates(0).is_ok());
}

#[test]
fn changes_create_a_setting_only_with_a_url_and_keep_what_they_do_not_name() {
    let no_url = OutboundChanges {
        sign: Some("sha512".into()),
        ..Default::default()
    };
    assert!(matches!(
        no_url.apply(None),
        Err(OptionError::OutboundNoUrl)
    ));

    let create = OutboundChanges {
        url: Some("https://as2.partner.example/as2".into()),
        mdn: Some("async".into()),
        async_mdn_url: Some("https://hub.example/as2".into()),
        max_attempts: Some(4),
        ..Default::default()
    };
    let created = create.apply(None).unwrap();
    assert_eq!(created.mdn.as_deref(), Some("async"));
    assert_eq!(created.sign.as_deref(), Some("sha-256"), "default");

    let to_sync = OutboundChanges {
        mdn: Some("sync".into()),
        compress: Some(true),
        ..Default::default()
    };
    let changed = to_sync.apply(Some(&created)).unwrap();
    assert_eq!(changed.async_mdn_url, None, "dropped with the async MDN");
    assert_eq!(changed.mdn_signed.as_deref(), Some("sha-256"), "kept");
    assert_eq!(changed.max_attempts, Some(4), "kept");
    assert!(changed.compress);

    let to_none = OutboundChanges {
        mdn: Some("none".into()),
        ..Default::default()
    };
    let none = to_none.apply(Some(&changed)).unwrap();
    assert_eq!(
        (none.mdn.as_deref(), none.mdn_signed.as_deref()),
        (Some("none"), None)
    );

    let bad = OutboundChanges {
        timeout_ms: Some(0),
        ..Default::default()
    };
    let error = bad.apply(Some(&none)).unwrap_err();
    assert_eq!(
        error.to_string(),
        "outbound timeout_ms 0: must be at least 1"
    );
}
