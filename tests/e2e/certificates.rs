//! Certificate lifecycle: `edihub_certificate_expiry_timestamp_seconds` follows the
//! directory a running gateway loaded (partner and hub certificates), and certificates
//! with chosen dates and key sizes for this and the `partner` CLI tests.

use crate::partners::{edihub, edihub_json};
use edihub_tests::{HUB, TestApp, fixture, spawn_app, spawn_app_with, wait_for, with_keys};
use openssl::asn1::Asn1Time;
use openssl::hash::MessageDigest;
use openssl::pkey::PKey;
use openssl::rsa::Rsa;
use openssl::x509::{X509, X509NameBuilder};
use std::path::PathBuf;
use std::time::Duration;
use uuid::Uuid;

pub const DAY: i64 = 86_400;

/// A self-signed certificate made for one test, with its key.
pub struct TestCertificate {
    pub cert: PathBuf,
    pub key: PathBuf,
    /// SHA-256 of the DER, lower-case hex.
    pub sha256: String,
}

impl TestCertificate {
    pub fn cert_arg(&self) -> &str {
        self.cert.to_str().unwrap_or_default()
    }
}

pub fn now_unix() -> i64 {
    chrono::Utc::now().timestamp()
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// A certificate for `cn` valid from `not_before` to `not_after` (Unix seconds) with an
/// RSA key of `bits`, written to fresh files in the temporary directory.
pub fn certificate(cn: &str, not_before: i64, not_after: i64, bits: u32) -> TestCertificate {
    let key = PKey::from_rsa(Rsa::generate(bits).expect("RSA key")).expect("key");
    let mut name = X509NameBuilder::new().expect("name");
    name.append_entry_by_text("CN", cn).expect("CN");
    let name = name.build();
    let mut builder = X509::builder().expect("builder");
    builder.set_version(2).expect("version");
    builder.set_subject_name(&name).expect("subject");
    builder.set_issuer_name(&name).expect("issuer");
    builder.set_pubkey(&key).expect("public key");
    let time = |unix: i64| Asn1Time::from_unix(unix).expect("time");
    builder
        .set_not_before(&time(not_before))
        .expect("not before");
    builder.set_not_after(&time(not_after)).expect("not after");
    builder.sign(&key, MessageDigest::sha256()).expect("sign");
    let x509 = builder.build();
    let stem = std::env::temp_dir().join(format!("edihub-cert-{}", Uuid::new_v4().simple()));
    let (cert, key_path) = (stem.with_extension("crt"), stem.with_extension("key"));
    std::fs::write(&cert, x509.to_pem().expect("PEM")).expect("write certificate");
    let key_pem = key.private_key_to_pem_pkcs8().expect("key PEM");
    std::fs::write(&key_path, key_pem).expect("write key");
    TestCertificate {
        cert,
        key: key_path,
        sha256: hex(&openssl::sha::sha256(&x509.to_der().expect("DER"))),
    }
}

/// The gauge's value for one certificate, as `/metrics` renders it (gathered in this
/// process, where the test's gateway runs).
fn expiry_gauge(kind: &str, owner: &str, fingerprint: &str) -> Option<i64> {
    let labels = [
        format!("kind=\"{kind}\""),
        format!("owner=\"{owner}\""),
        format!("fingerprint=\"{fingerprint}\""),
    ];
    edihub_metrics::render()
        .lines()
        .filter(|line| line.starts_with("edihub_certificate_expiry_timestamp_seconds{"))
        .find(|line| labels.iter().all(|label| line.contains(label.as_str())))
        .and_then(|line| line.rsplit(' ').next()?.parse::<f64>().ok())
        .map(|value| value as i64)
}

#[tokio::test]
async fn the_expiry_gauge_follows_the_directory_the_gateway_loaded() {
    let app = spawn_app_with(with_keys(false, false)).await;
    // Fixed dates, so the gauge must show exactly these.
    let (expiring_at, staying_at) = (2_000_000_000, 2_100_000_000);
    let expiring = certificate("expiring", now_unix() - DAY, expiring_at, 2048);
    let staying = certificate("staying", now_unix() - DAY, staying_at, 2048);
    let (gone, stays) = (
        format!("EXPIRING-{}", app.suffix),
        format!("STAYING-{}", app.suffix),
    );
    for (as2_id, cert) in [(&gone, &expiring), (&stays, &staying)] {
        edihub(&app, &["partner", "add", as2_id, "--cert", cert.cert_arg()]);
    }
    let hub = X509::from_pem(&fixture("as2/hub.crt")).expect("hub certificate");
    let hub_sha256 = hex(&openssl::sha::sha256(&hub.to_der().expect("DER")));
    let hub_not_after = Asn1Time::from_unix(0)
        .and_then(|epoch| epoch.diff(hub.not_after()))
        .map(|d| i64::from(d.days) * DAY + i64::from(d.secs))
        .expect("hub notAfter");

    // Other tests' gateways in this process replace the partner series with their own
    // directory's, so each try asks this gateway to reload again (its NOTIFY channel).
    let reload = || async {
        sqlx::query("SELECT pg_notify('partners_changed', '')")
            .execute(&app.pool)
            .await
            .expect("notify");
    };
    wait_for(
        "both partners' expiries",
        Duration::from_secs(15),
        || async {
            let found = (
                expiry_gauge("partner", &gone, &expiring.sha256),
                expiry_gauge("partner", &stays, &staying.sha256),
                expiry_gauge("hub", HUB, &hub_sha256),
            );
            if found == (Some(expiring_at), Some(staying_at), Some(hub_not_after)) {
                return Some(());
            }
            reload().await;
            None
        },
    )
    .await;

    edihub(&app, &["partner", "remove", &gone]);
    wait_for(
        "the removed partner's expiry to go",
        Duration::from_secs(15),
        || async {
            let found = (
                expiry_gauge("partner", &gone, &expiring.sha256),
                expiry_gauge("partner", &stays, &staying.sha256),
            );
            if found == (None, Some(staying_at)) {
                return Some(());
            }
            reload().await;
            None
        },
    )
    .await;
}

/// `edihub ARGS` on the test database: (success, stdout, stderr).
fn run(app: &TestApp, args: &[&str]) -> (bool, String, String) {
    let output = crate::partners::edihub_status(app, args);
    (
        output.status.success(),
        String::from_utf8_lossy(&output.stdout).into_owned(),
        String::from_utf8_lossy(&output.stderr).into_owned(),
    )
}

/// The `kind`s of a JSON answer's `warnings` about certificates.
fn certificate_warnings(value: &serde_json::Value) -> Vec<String> {
    (value["warnings"].as_array().into_iter().flatten())
        .filter(|w| !w["certificate"].is_null())
        .filter_map(|w| w["kind"].as_str().map(str::to_owned))
        .collect()
}

#[tokio::test]
async fn an_expired_partner_certificate_is_stored_only_when_asked_and_others_are_warned_about() {
    let app = spawn_app().await;
    let now = now_unix();
    let expired = certificate("expired", now - 400 * DAY, now - DAY, 2048);
    let (ok, _, stderr) = run(
        &app,
        &["partner", "add", "OLD", "--cert", expired.cert_arg()],
    );
    assert!(!ok, "an expired certificate stored silently");
    assert!(
        stderr.contains("expired on") && stderr.contains("--store-expired"),
        "{stderr}"
    );
    assert_eq!(app.count("SELECT count(*) FROM partner").await, 0);

    let (ok, _, stderr) = run(
        &app,
        &[
            "partner",
            "add",
            "OLD",
            "--cert",
            expired.cert_arg(),
            "--store-expired",
        ],
    );
    assert!(ok, "{stderr}");
    assert!(
        stderr.contains(&format!("certificate {} expired on", &expired.sha256[..16])),
        "{stderr}"
    );

    let soon = certificate("soon", now - DAY, now + 10 * DAY, 2048);
    let future = certificate("future", now + 5 * DAY, now + 400 * DAY, 2048);
    let weak = certificate("weak", now - DAY, now + 400 * DAY, 1024);
    let added = edihub_json(
        &app,
        &[
            "partner",
            "add",
            "NEW",
            "--cert",
            soon.cert_arg(),
            "--cert",
            future.cert_arg(),
            "--cert",
            weak.cert_arg(),
        ],
    );
    assert_eq!(
        certificate_warnings(&added),
        ["expires_soon", "not_yet_valid", "weak_key"],
        "{added}"
    );
    // An update adding an expired certificate is refused like an add, and changes nothing.
    let (ok, _, stderr) = run(
        &app,
        &["partner", "update", "NEW", "--add-cert", expired.cert_arg()],
    );
    assert!(!ok && stderr.contains("--store-expired"), "{stderr}");
    let shown = edihub_json(&app, &["partner", "show", "NEW"]);
    assert_eq!(shown["certificates"].as_array().map(Vec::len), Some(3));
}

#[tokio::test]
async fn an_expired_hub_certificate_is_stored_only_when_asked() {
    let app = spawn_app().await;
    let now = now_unix();
    let expired = certificate("hub expired", now - 400 * DAY, now - DAY, 2048);
    let set = |extra: &'static [&'static str]| {
        let mut args = vec![
            "identity",
            "set",
            "EDIHUB-OLD",
            "--cert",
            expired.cert_arg(),
        ];
        args.extend(["--key", expired.key.to_str().unwrap_or_default()]);
        args.extend(extra);
        run(&app, &args)
    };
    let (ok, _, stderr) = set(&[]);
    assert!(!ok && stderr.contains("--store-expired"), "{stderr}");
    assert_eq!(app.count("SELECT count(*) FROM hub_identity").await, 0);
    let (ok, stdout, stderr) = set(&["--store-expired", "--json"]);
    assert!(ok, "{stderr}");
    assert!(
        stderr.contains("identity EDIHUB-OLD: certificate"),
        "{stderr}"
    );
    let stored: serde_json::Value = serde_json::from_str(&stdout).expect("JSON");
    assert_eq!(certificate_warnings(&stored), ["expired"], "{stored}");
    assert_eq!(stored["certificate"]["sha256"], expired.sha256);
}

#[tokio::test]
async fn partner_list_expiring_within_lists_only_the_partners_whose_certificates_expire() {
    let app = spawn_app().await;
    let now = now_unix();
    let soon = certificate("soon", now - DAY, now + 10 * DAY, 2048);
    let later = certificate("later", now - DAY, now + 400 * DAY, 2048);
    edihub(
        &app,
        &[
            "partner",
            "add",
            "SOON",
            "--cert",
            soon.cert_arg(),
            "--cert",
            later.cert_arg(),
        ],
    );
    edihub(
        &app,
        &["partner", "add", "LATER", "--cert", later.cert_arg()],
    );

    let listed = edihub(&app, &["partner", "list", "--expiring-within", "30d"]);
    let lines: Vec<_> = listed.lines().collect();
    assert_eq!(lines.len(), 1, "{listed}");
    assert!(
        lines[0].starts_with("SOON") && lines[0].contains(&soon.sha256),
        "{listed}"
    );
    assert!(
        lines[0].contains("(in 9 days)") || lines[0].contains("(in 10 days)"),
        "{listed}"
    );

    let listed = edihub_json(&app, &["partner", "list", "--expiring-within", "2w"]);
    let partners = listed.as_array().expect("an array");
    assert_eq!(partners.len(), 1, "{listed}");
    assert_eq!(partners[0]["as2_id"], "SOON");
    let expiring = partners[0]["expiring"].as_array().expect("expiring");
    assert_eq!(expiring.len(), 1, "only the certificate that expires");
    assert_eq!(expiring[0]["sha256"], soon.sha256);
    assert_eq!(expiring[0]["not_after_unix"], now + 10 * DAY);

    assert_eq!(
        edihub(&app, &["partner", "list", "--expiring-within", "12h"]),
        ""
    );
    assert_eq!(
        edihub_json(&app, &["partner", "list", "--expiring-within", "12h"]),
        serde_json::json!([])
    );
    let (ok, _, stderr) = run(&app, &["partner", "list", "--expiring-within", "30y"]);
    assert!(!ok && stderr.contains("one of w, d, h, m, s"), "{stderr}");
}
