use super::*;

fn expiry(kind: CertificateKind, fingerprint: &str) -> CertificateExpiry {
    CertificateExpiry {
        kind,
        owner: "owner".into(),
        fingerprint: fingerprint.into(),
        not_after_unix: 1_900_000_000,
    }
}

#[test]
fn setting_a_kind_replaces_its_series_and_keeps_the_other_kinds() {
    set_certificate_expiries(
        CertificateKind::Hub,
        &[expiry(CertificateKind::Hub, "hub-1")],
    );
    set_certificate_expiries(CertificateKind::Tls, &[expiry(CertificateKind::Tls, "old")]);
    set_certificate_expiries(CertificateKind::Tls, &[expiry(CertificateKind::Tls, "new")]);
    let rendered = crate::render();
    assert!(!rendered.contains(r#"fingerprint="old""#), "{rendered}");
    assert!(rendered.contains(r#"fingerprint="new""#), "{rendered}");
    assert!(rendered.contains(r#"fingerprint="hub-1""#), "{rendered}");
}
