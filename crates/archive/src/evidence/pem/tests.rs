use super::certificate_pem;

const PARTNER: &str = include_str!("../../../../../fixtures/as2/partner-a.crt");

#[test]
fn the_armour_is_what_openssl_writes() {
    let x509 = openssl::x509::X509::from_pem(PARTNER.as_bytes()).expect("fixture certificate");
    let der = x509.to_der().expect("der");
    let ours = certificate_pem(&der);
    let theirs = String::from_utf8(x509.to_pem().expect("pem")).expect("ascii");
    assert_eq!(ours, theirs);
}
