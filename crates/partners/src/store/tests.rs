use super::*;

#[test]
fn as2_ids_follow_rfc_4130() {
    assert!(check_as2_id("ACME SUPPLIER").is_ok());
    assert!(check_as2_id("").is_err());
    assert!(check_as2_id(" ACME").is_err());
    assert!(check_as2_id("ACME\u{e9}").is_err());
    assert!(check_as2_id(&"A".repeat(129)).is_err());
}

#[test]
fn async_mdn_url_entries_must_be_plain_http_urls() {
    assert!(check_async_mdn_url("https://as2.acme.example/mdn/").is_ok());
    assert!(check_async_mdn_url("ftp://as2.acme.example/").is_err());
    assert!(check_async_mdn_url("http://user:pw@as2.acme.example/").is_err());
    assert!(check_async_mdn_url("as2.acme.example").is_err());
}

#[test]
fn certificates_are_described_with_their_fingerprint() {
    let pem = std::fs::read(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/as2/partner-a.crt"),
    )
    .unwrap();
    let described = read_certificates(&pem).unwrap();
    assert_eq!(described.len(), 1);
    assert_eq!(described[0].sha256.len(), 64);
    assert!(described[0].pem.starts_with("-----BEGIN CERTIFICATE-----"));
    assert!(read_certificates(b"no pem here").is_err());
}
