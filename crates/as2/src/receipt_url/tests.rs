use super::*;

fn allowed() -> Vec<String> {
    vec![
        "https://as2.partner.example/mdn".into(),
        "http://10.0.0.5:8080/receipts/".into(),
        "https://as2.partner.example/mdn/in/".into(),
    ]
}

/// The partnership's networks: 10.0.0.5 is an internal receiver it may use.
fn networks() -> Vec<IpNet> {
    vec!["10.0.0.0/24".parse().expect("a network")]
}

#[test]
fn listed_urls_are_used_exactly_or_below_a_trailing_slash_entry() {
    assert!(check("https://as2.partner.example/mdn", &allowed(), &[]).is_ok());
    assert!(check("HTTPS://AS2.Partner.Example:443/mdn", &allowed(), &[]).is_ok());
    assert!(
        check(
            "http://10.0.0.5:8080/receipts/acme/1",
            &allowed(),
            &networks()
        )
        .is_ok()
    );
}

#[test]
fn anything_else_is_refused() {
    for refused in [
        "https://as2.partner.example/mdn2",
        "https://as2.partner.example/mdn?x=1",
        "https://as2.partner.example:8443/mdn",
        "http://as2.partner.example/mdn",
        "https://as2.partner.example.evil.test/mdn",
        "http://10.0.0.5:8080/receipts",
        "http://10.0.0.5:8080/receipts/../admin",
        "http://10.0.0.5:8081/receipts/a",
        "http://10.0.0.5:8080/receipts/a?next=http://169.254.169.254/",
        "http://169.254.169.254/latest/meta-data/",
    ] {
        assert_eq!(
            check(refused, &allowed(), &[]),
            Err(ReceiptUrlError::NotAllowed(refused.into())),
            "{refused}"
        );
    }
}

#[test]
fn schemes_user_info_and_garbage_are_refused_before_the_list_is_consulted() {
    let everything = vec!["file:///".to_string(), "http://u:p@h/".to_string()];
    assert!(matches!(
        check("file:///etc/passwd", &everything, &[]),
        Err(ReceiptUrlError::Scheme(_))
    ));
    assert!(matches!(
        check("http://u:p@h/x", &everything, &[]),
        Err(ReceiptUrlError::UserInfo(_))
    ));
    assert!(matches!(
        check("mailto:as2@partner.example", &everything, &[]),
        Err(ReceiptUrlError::Scheme(_))
    ));
    assert!(matches!(
        check("not a url", &everything, &[]),
        Err(ReceiptUrlError::NotAUrl(_))
    ));
}

#[test]
fn no_entries_means_no_async_mdns() {
    assert!(matches!(
        check("https://as2.partner.example/mdn", &[], &[]),
        Err(ReceiptUrlError::NotAllowed(_))
    ));
}

#[test]
fn encoded_separators_and_dot_segments_do_not_pass_a_prefix() {
    for ambiguous in [
        "https://as2.partner.example/mdn/in/..%2f..%2fadmin",
        "https://as2.partner.example/mdn/in/..%2F..%2Fadmin",
        "https://as2.partner.example/mdn/in/..%5cadmin",
        "https://as2.partner.example/mdn/in/%252e%252e/admin",
        "https://as2.partner.example/mdn/in/..;/admin",
    ] {
        assert_eq!(
            check(ambiguous, &allowed(), &[]),
            Err(ReceiptUrlError::Path(ambiguous.into())),
            "{ambiguous}"
        );
    }
    // The parser resolves %2e dot segments: the result is outside the prefix.
    for escaping in [
        "https://as2.partner.example/mdn/in/%2e%2e/%2e%2e/admin",
        "https://as2.partner.example/mdn/in/.%2E/x",
        "https://as2.partner.example/mdn/in/%2e%2e",
    ] {
        assert_eq!(
            check(escaping, &allowed(), &[]),
            Err(ReceiptUrlError::NotAllowed(escaping.into())),
            "{escaping}"
        );
    }
}

#[test]
fn the_prefix_is_compared_on_the_decoded_path() {
    let url = check("https://as2.partner.example/%6ddn/in/acme", &allowed(), &[]);
    assert!(url.is_ok(), "{url:?}");
    let dotted = check(
        "https://as2.partner.example/mdn/x/../in/./acme",
        &allowed(),
        &[],
    );
    assert_eq!(
        dotted.map(String::from).as_deref(),
        Ok("https://as2.partner.example/mdn/in/acme")
    );
    // An entry whose own path is ambiguous allows nothing.
    let entries = vec!["https://h.example/a%2fb/".to_string()];
    assert!(matches!(
        check("https://h.example/a%2fb/x", &entries, &[]),
        Err(ReceiptUrlError::Path(_))
    ));
}

#[test]
fn ip_literal_hosts_need_the_partnership_to_allow_their_network() {
    let entries = vec![
        "http://127.0.0.1:4080/mdn/".to_string(),
        "http://[::ffff:169.254.169.254]/".to_string(),
        "http://2130706433/x".to_string(),
        "http://93.184.216.34/mdn".to_string(),
    ];
    for (requested, range) in [
        ("http://127.0.0.1:4080/mdn/a", "loopback"),
        ("http://[::ffff:169.254.169.254]/latest", "metadata"),
        ("http://2130706433/x", "loopback"),
    ] {
        match check(requested, &entries, &[]) {
            Err(ReceiptUrlError::Address {
                url, range: name, ..
            }) => {
                assert_eq!(url, requested);
                assert!(name.contains(range), "{requested}: {name}");
            }
            other => panic!("{requested}: {other:?}"),
        }
    }
    assert!(check("http://93.184.216.34/mdn", &entries, &[]).is_ok());
    let loopback: Vec<IpNet> = vec!["127.0.0.0/8".parse().expect("a network")];
    assert!(check("http://127.0.0.1:4080/mdn/a", &entries, &loopback).is_ok());
    assert!(check("http://2130706433/x", &entries, &loopback).is_ok());
    assert!(matches!(
        check(
            "http://[::ffff:169.254.169.254]/latest",
            &entries,
            &loopback
        ),
        Err(ReceiptUrlError::Address { .. })
    ));
}

#[test]
fn host_names_are_left_to_delivery_time() {
    let entries = vec!["http://localhost:4080/mdn/".to_string()];
    assert!(check("http://localhost:4080/mdn/a", &entries, &[]).is_ok());
}

#[test]
fn reasons_never_show_user_info() {
    let everything = vec!["http://u:p@h/".to_string(), "ftp://h/".to_string()];
    for requested in [
        "http://acme:s3cret@h/x",
        "ftp://acme:s3cret@h/x",
        "http://acme:s3cret@[::1/x",
        "http://acme:s3cret@h/x%2f..",
    ] {
        let refused = check(requested, &everything, &[]).expect_err(requested);
        let reason = refused.to_string();
        assert!(!reason.contains("s3cret"), "{reason}");
        assert!(!reason.contains("acme"), "{reason}");
        assert!(reason.contains("***@"), "{reason}");
    }
}
