use super::*;

fn allowed() -> Vec<String> {
    vec![
        "https://as2.partner.example/mdn".into(),
        "http://10.0.0.5:8080/receipts/".into(),
    ]
}

#[test]
fn listed_urls_are_used_exactly_or_below_a_trailing_slash_entry() {
    assert!(check("https://as2.partner.example/mdn", &allowed()).is_ok());
    assert!(check("HTTPS://AS2.Partner.Example:443/mdn", &allowed()).is_ok());
    assert!(check("http://10.0.0.5:8080/receipts/acme/1", &allowed()).is_ok());
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
            check(refused, &allowed()),
            Err(ReceiptUrlError::NotAllowed(refused.into())),
            "{refused}"
        );
    }
}

#[test]
fn schemes_user_info_and_garbage_are_refused_before_the_list_is_consulted() {
    let everything = vec!["file:///".to_string(), "http://u:p@h/".to_string()];
    assert!(matches!(
        check("file:///etc/passwd", &everything),
        Err(ReceiptUrlError::Scheme(_))
    ));
    assert!(matches!(
        check("http://u:p@h/x", &everything),
        Err(ReceiptUrlError::UserInfo(_))
    ));
    assert!(matches!(
        check("mailto:as2@partner.example", &everything),
        Err(ReceiptUrlError::Scheme(_))
    ));
    assert!(matches!(
        check("not a url", &everything),
        Err(ReceiptUrlError::NotAUrl(_))
    ));
}

#[test]
fn no_entries_means_no_async_mdns() {
    assert!(matches!(
        check("https://as2.partner.example/mdn", &[]),
        Err(ReceiptUrlError::NotAllowed(_))
    ));
}
