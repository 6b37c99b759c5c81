//! Partnerships and hub identities managed with `edihub partner|identity ...` (the real
//! CLI binary, against the test database) and picked up by a running gateway without a
//! restart.

use edihub_as2::{Disposition, DispositionError, MicAlg};
use edihub_tests::{
    As2Response, HUB, TestApp, fixture, fixture_path, spawn_app, spawn_app_with, wait_for,
};
use std::path::Path;
use std::process::Command;
use std::time::Duration;
use uuid::Uuid;

const INVOIC: &str = "edifact/invoic-eancom-d96a.edi";
const NEWCOMER: &str = "NEWCOMER TRADING";

/// Runs `edihub ARGS` on the test database; returns stdout, panics on failure.
pub(crate) fn edihub(app: &TestApp, args: &[&str]) -> String {
    let output = edihub_status(app, args);
    assert!(
        output.status.success(),
        "edihub {args:?} failed: {}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8_lossy(&output.stdout).into_owned()
}

pub(crate) fn edihub_status(app: &TestApp, args: &[&str]) -> std::process::Output {
    edihub_command(app, args).output().expect("run edihub")
}

fn edihub_command(app: &TestApp, args: &[&str]) -> Command {
    let mut command = Command::new(edihub_tests::service_binary("edihub"));
    command
        .args(args)
        .env_remove("EDIHUB_CONFIG")
        .env_remove("EDIHUB_HUB_KEY_PASSPHRASE")
        .env("DATABASE_URL", app.database.url.expose())
        .env("RUST_LOG", "warn");
    command
}

/// `identity set EDIHUB-EU --cert CERT --key KEY`.
fn identity_set<'a>(cert: &'a Path, key: &'a Path) -> [&'a str; 7] {
    [
        "identity",
        "set",
        "EDIHUB-EU",
        "--cert",
        cert.to_str().unwrap_or_default(),
        "--key",
        key.to_str().unwrap_or_default(),
    ]
}

/// A plain message from `from` to `to`, asking for a signed MDN.
async fn post(app: &TestApp, from: &str, to: &str) -> As2Response {
    let message = edihub_as2::build_plain_message(&edihub_as2::PlainMessageSpec {
        as2_from: from,
        as2_to: to,
        message_id: &format!("{}@newcomer", Uuid::new_v4()),
        subject: "onboarding",
        content_type: "application/edifact",
        payload: &fixture(INVOIC),
        request_mdn_to: Some("as2@newcomer.example"),
        request_signed_mdn: Some(MicAlg::Sha256),
    });
    app.post_raw(&message.headers, message.body).await
}

/// The MDN's disposition, signed (checked against the hub's certificate) or not.
fn disposition(response: &As2Response) -> Disposition {
    let hub = edihub_as2::certificates_from_pem(&fixture("as2/hub.crt")).expect("hub cert");
    edihub_as2::read_mdn(response.content_type(), &response.body, &hub)
        .unwrap_or_else(|e| panic!("not an MDN ({e}): {}", response.status))
        .report
        .disposition
}

/// Posts until the MDN's disposition is `expected` (the gateway reloads on NOTIFY, so
/// this takes one or two tries), and returns that answer.
async fn until_disposition(
    app: &TestApp,
    from: &str,
    to: &str,
    expected: Disposition,
) -> As2Response {
    wait_for(
        &format!("{from} -> {to} to get {expected:?}"),
        Duration::from_secs(10),
        || async {
            let response = post(app, from, to).await;
            (disposition(&response) == expected).then_some(response)
        },
    )
    .await
}

/// Posts from the test partner to `to` until the MDN says processed, and checks that
/// it is signed with the hub's key.
async fn until_signed_and_processed(app: &TestApp, to: &str) -> As2Response {
    let response = until_disposition(app, edihub_tests::PARTNER, to, Disposition::Processed).await;
    let hub = edihub_as2::certificates_from_pem(&fixture("as2/hub.crt")).expect("hub cert");
    let mdn = edihub_as2::read_mdn(response.content_type(), &response.body, &hub)
        .expect("an MDN signed with the hub's key");
    assert!(mdn.signed);
    response
}

#[tokio::test]
async fn partners_added_changed_and_removed_with_the_cli_apply_without_a_restart() {
    let app = spawn_app().await;
    let unknown = post(&app, NEWCOMER, HUB).await;
    assert_eq!(
        disposition(&unknown),
        Disposition::Failed(DispositionError::AuthenticationFailed)
    );

    let cert = fixture_path("as2/partner-a.crt");
    let added = edihub(
        &app,
        &[
            "partner",
            "add",
            NEWCOMER,
            "--name",
            "Newcomer Trading Ltd",
            "--cert",
            cert.to_str().unwrap_or_default(),
            "--async-mdn-url",
            "https://as2.newcomer.example/mdn/",
            // Plain AS2 first; signing becomes required below.
            "--require-signature",
            "false",
            "--require-encryption",
            "false",
        ],
    );
    assert!(added.contains("partner NEWCOMER TRADING added"), "{added}");
    until_disposition(&app, NEWCOMER, HUB, Disposition::Processed).await;

    let listed = edihub(&app, &["partner", "list"]);
    assert!(
        listed.contains(NEWCOMER) && listed.contains("certificates=1"),
        "{listed}"
    );
    let shown = edihub(&app, &["partner", "show", NEWCOMER]);
    let fingerprint = shown
        .lines()
        .find_map(|l| l.trim().strip_prefix("sha256 "))
        .map(|f| f.split_whitespace().next().unwrap_or_default().to_owned())
        .expect("a certificate fingerprint in `partner show`");
    assert_eq!(fingerprint.len(), 64, "{shown}");

    // Signing becomes required: the plain message is now refused.
    edihub(
        &app,
        &["partner", "update", NEWCOMER, "--require-signature", "true"],
    );
    until_disposition(
        &app,
        NEWCOMER,
        HUB,
        Disposition::Failed(DispositionError::InsufficientMessageSecurity),
    )
    .await;
    let accepted = app.count("SELECT count(*) FROM edi_message").await;
    assert!(accepted >= 1);
    edihub(
        &app,
        &[
            "partner",
            "update",
            NEWCOMER,
            "--remove-cert",
            &fingerprint[..12],
        ],
    );
    let shown = edihub(&app, &["partner", "show", NEWCOMER]);
    assert!(shown.contains("certificates:               0"), "{shown}");

    // Mistakes are refused with a reason, and change nothing.
    let duplicate = edihub_status(&app, &["partner", "add", NEWCOMER]);
    assert!(!duplicate.status.success());
    assert!(String::from_utf8_lossy(&duplicate.stderr).contains("exists already"));
    let bad_url = edihub_status(
        &app,
        &[
            "partner",
            "update",
            NEWCOMER,
            "--async-mdn-url",
            "file:///etc/",
        ],
    );
    assert!(!bad_url.status.success());

    edihub(&app, &["partner", "remove", NEWCOMER]);
    until_disposition(
        &app,
        NEWCOMER,
        HUB,
        Disposition::Failed(DispositionError::AuthenticationFailed),
    )
    .await;
    assert_eq!(
        app.count("SELECT count(*) FROM edi_message").await,
        accepted,
        "nothing accepted once signing was required"
    );
}

#[tokio::test]
async fn a_hub_identity_added_with_the_cli_receives_and_signs_its_mdns() {
    let app = spawn_app().await;
    let (cert, key) = (fixture_path("as2/hub.crt"), fixture_path("as2/hub.key"));
    let wrong_key = edihub_status(
        &app,
        &identity_set(&cert, &fixture_path("as2/partner-a.key")),
    );
    assert!(
        !wrong_key.status.success(),
        "a key that is not the certificate's"
    );

    edihub(&app, &identity_set(&cert, &key));
    let listed = edihub(&app, &["identity", "list"]);
    assert!(listed.contains("EDIHUB-EU"), "{listed}");
    assert!(!listed.contains("PRIVATE KEY"), "keys are never printed");

    let response = until_signed_and_processed(&app, "EDIHUB-EU").await;
    assert_eq!(
        response
            .headers
            .get("as2-from")
            .and_then(|v| v.to_str().ok()),
        Some("EDIHUB-EU")
    );

    edihub(&app, &["identity", "remove", "EDIHUB-EU"]);
    until_disposition(
        &app,
        edihub_tests::PARTNER,
        "EDIHUB-EU",
        Disposition::Failed(DispositionError::AuthenticationFailed),
    )
    .await;
}

#[tokio::test]
async fn a_hub_key_set_under_the_passphrase_is_stored_encrypted_and_still_signs() {
    const PASSPHRASE: &str = "correct horse battery staple";
    let app = spawn_app_with(|gateway| {
        gateway.hub_key_passphrase = Some(edihub_config::Secret::new(PASSPHRASE));
    })
    .await;
    let (cert, key) = (fixture_path("as2/hub.crt"), fixture_path("as2/hub.key"));
    let output = edihub_command(&app, &identity_set(&cert, &key))
        .env("EDIHUB_HUB_KEY_PASSPHRASE", PASSPHRASE)
        .output()
        .expect("run edihub");
    assert!(output.status.success(), "{output:?}");
    assert!(String::from_utf8_lossy(&output.stdout).contains("key encrypted"));

    let stored: String =
        sqlx::query_scalar("SELECT private_key_pem FROM hub_identity WHERE as2_id = 'EDIHUB-EU'")
            .fetch_one(&app.pool)
            .await
            .expect("the stored key");
    assert!(
        stored.starts_with("-----BEGIN ENCRYPTED PRIVATE KEY-----"),
        "{stored:.40}"
    );
    assert!(
        !stored.contains(&String::from_utf8_lossy(&fixture("as2/hub.key"))[40..120]),
        "none of the clear key is stored"
    );
    let listed = edihub(&app, &["identity", "list"]);
    assert!(listed.contains("key encrypted"), "{listed}");

    // The gateway, given the passphrase, decrypts the stored key and signs with it.
    until_signed_and_processed(&app, "EDIHUB-EU").await;
}

/// `edihub ARGS` that must fail; returns its stderr.
fn edihub_refused(app: &TestApp, args: &[&str]) -> String {
    let output = edihub_status(app, args);
    assert!(!output.status.success(), "edihub {args:?} succeeded");
    String::from_utf8_lossy(&output.stderr).into_owned()
}

/// `edihub ARGS --json`, parsed.
pub(crate) fn edihub_json(app: &TestApp, args: &[&str]) -> serde_json::Value {
    let mut args = args.to_vec();
    args.push("--json");
    let stdout = edihub(app, &args);
    serde_json::from_str(&stdout).unwrap_or_else(|e| panic!("not JSON ({e}): {stdout}"))
}

#[tokio::test]
async fn a_partnership_added_without_options_refuses_plain_messages() {
    let app = spawn_app().await;
    let cert = fixture_path("as2/partner-a.crt");
    let output = edihub_status(
        &app,
        &[
            "partner",
            "add",
            NEWCOMER,
            "--cert",
            cert.to_str().unwrap_or_default(),
        ],
    );
    assert!(output.status.success(), "{output:?}");
    let shown = edihub(&app, &["partner", "show", NEWCOMER]);
    assert!(
        shown.contains("signature:                  required"),
        "{shown}"
    );
    assert!(
        shown.contains("encryption:                 required"),
        "{shown}"
    );
    until_disposition(
        &app,
        NEWCOMER,
        HUB,
        Disposition::Failed(DispositionError::InsufficientMessageSecurity),
    )
    .await;

    // Opting out is explicit, and said on stderr and in the JSON.
    let output = edihub_status(
        &app,
        &[
            "partner",
            "update",
            NEWCOMER,
            "--require-signature",
            "false",
        ],
    );
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("accepts unsigned messages"), "{stderr}");
    let shown = edihub_json(&app, &["partner", "show", NEWCOMER]);
    let kinds: Vec<_> = shown["warnings"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|w| w["kind"].as_str())
        .collect();
    assert!(kinds.contains(&"unsigned_accepted"), "{shown}");
    assert!(!kinds.contains(&"unencrypted_accepted"), "{shown}");
}

#[tokio::test]
async fn partnership_options_are_stored_normalised_and_shown() {
    let app = spawn_app().await;
    let tls = fixture_path("as2/partner-b.crt");
    let colons = (0..32).map(|_| "AB").collect::<Vec<_>>().join(":");
    let added = edihub_json(
        &app,
        &[
            "partner",
            "add",
            NEWCOMER,
            "--async-mdn-allow-network",
            "10.20.0.0/16",
            "--async-mdn-allow-network",
            "192.0.2.7",
            "--tls-client-fingerprint",
            &colons,
            "--tls-client-certificate",
            tls.to_str().unwrap_or_default(),
            "--min-rsa-bits",
            "3072",
            "--digest",
            "SHA256",
            "--cipher",
            "AES-256-GCM",
            "--cipher",
            "aes128",
            "--edifact-charset",
            "strict",
        ],
    );
    assert_eq!(added["edifact_charset"], "strict");
    assert_eq!(
        added["async_mdn_allowed_networks"],
        serde_json::json!(["10.20.0.0/16", "192.0.2.7/32"])
    );
    let fingerprints = added["tls_client_fingerprints"]
        .as_array()
        .expect("fingerprints");
    assert_eq!(fingerprints.len(), 2, "{added}");
    assert_eq!(fingerprints[0], "ab".repeat(32));
    assert_eq!(fingerprints[1].as_str().map(str::len), Some(64));
    assert_eq!(added["min_rsa_bits"], 3072);
    assert_eq!(added["digests"], serde_json::json!(["sha-256"]));
    assert_eq!(
        added["ciphers"],
        serde_json::json!(["aes256-gcm", "aes128"])
    );
    // What `add` printed is what the database holds.
    assert_eq!(edihub_json(&app, &["partner", "show", NEWCOMER]), added);
    let listed = edihub_json(&app, &["partner", "list"]);
    assert_eq!(listed, serde_json::json!([added]));

    let updated = edihub_json(
        &app,
        &[
            "partner",
            "update",
            NEWCOMER,
            "--no-tls-client-certificates",
            "--all-digests",
            "--min-rsa-bits",
            "2048",
        ],
    );
    assert_eq!(updated["tls_client_fingerprints"], serde_json::json!([]));
    assert_eq!(
        updated["digests"].as_array().map(Vec::len),
        Some(5),
        "every digest"
    );
    assert_eq!(updated["min_rsa_bits"], 2048);
    assert_eq!(updated["ciphers"], added["ciphers"], "unchanged");
    assert_eq!(updated["edifact_charset"], "strict", "unchanged");
    assert_eq!(
        updated["async_mdn_allowed_networks"],
        added["async_mdn_allowed_networks"]
    );
}

#[tokio::test]
async fn bad_partnership_options_are_refused_precisely_and_store_nothing() {
    let app = spawn_app().await;
    let refusals = [
        (
            ["--async-mdn-allow-network", "10.0.0.0/33"],
            "async MDN network \"10.0.0.0/33\"",
        ),
        (
            ["--tls-client-fingerprint", "abcd"],
            "has 2 bytes, not 32 (SHA-256)",
        ),
        (
            ["--tls-client-fingerprint", "not-hex"],
            "\"not-hex\" is not hex",
        ),
        (
            ["--min-rsa-bits", "512"],
            "min_rsa_bits 512 is outside 1024 ..= 16384",
        ),
        (["--digest", "md5"], "unknown digest \"md5\" (known: sha-1,"),
        (["--cipher", "rc4"], "unknown cipher \"rc4\" (known: 3des,"),
        (
            ["--edifact-charset", "lenient"],
            "unknown charset policy \"lenient\"",
        ),
    ];
    for (option, expected) in refusals {
        let mut args = vec!["partner", "add", NEWCOMER];
        args.extend(option);
        let stderr = edihub_refused(&app, &args);
        assert!(stderr.contains(expected), "{option:?}: {stderr}");
    }
    assert_eq!(app.count("SELECT count(*) FROM partner").await, 0);

    edihub(&app, &["partner", "add", NEWCOMER, "--digest", "sha-256"]);
    let stderr = edihub_refused(&app, &["partner", "update", NEWCOMER, "--cipher", "rc4"]);
    assert!(stderr.contains("unknown cipher \"rc4\""), "{stderr}");
    let shown = edihub_json(&app, &["partner", "show", NEWCOMER]);
    assert_eq!(
        shown["digests"],
        serde_json::json!(["sha-256"]),
        "unchanged"
    );
}

#[tokio::test]
async fn outbound_settings_set_with_the_cli_are_stored_normalised_changed_and_removed() {
    let app = spawn_app().await;
    let cert = fixture_path("as2/partner-a.crt");
    let cert = cert.to_str().unwrap_or_default();
    // Refused precisely, and nothing stored.
    let refusals: [(&[&str], &str); 5] = [
        (
            &[
                "--cert",
                cert,
                "--outbound-url",
                "ftp://as2.newcomer.example/",
            ],
            "outbound url \"ftp://as2.newcomer.example/\": only http and https",
        ),
        (
            &[
                "--cert",
                cert,
                "--outbound-url",
                "https://as2.newcomer.example/",
                "--outbound-sign",
                "md5",
            ],
            "outbound sign \"md5\": unknown digest",
        ),
        (
            &[
                "--cert",
                cert,
                "--outbound-url",
                "https://as2.newcomer.example/",
                "--outbound-mdn",
                "async",
            ],
            "outbound mdn = async needs async_mdn_url",
        ),
        (
            &["--outbound-url", "https://as2.newcomer.example/"],
            "outbound encrypt aes256: the partnership has no certificate",
        ),
        (
            &["--cert", cert, "--outbound-sign", "none"],
            "outbound settings need a url",
        ),
    ];
    for (flags, expected) in refusals {
        let mut args = vec!["partner", "add", NEWCOMER];
        args.extend(flags);
        let stderr = edihub_refused(&app, &args);
        assert!(stderr.contains(expected), "{flags:?}: {stderr}");
    }
    assert_eq!(app.count("SELECT count(*) FROM partner").await, 0);

    let added = edihub_json(
        &app,
        &[
            "partner",
            "add",
            NEWCOMER,
            "--cert",
            cert,
            "--outbound-url",
            "https://AS2.newcomer.example/in",
            "--outbound-sign",
            "SHA512",
            "--outbound-mdn",
            "async",
            "--outbound-async-mdn-url",
            "https://hub.example/as2",
            "--outbound-max-attempts",
            "3",
        ],
    );
    assert_eq!(
        added["outbound"],
        serde_json::json!({
            "url": "https://as2.newcomer.example/in", "hub_as2_id": null,
            "sign": "sha-512", "encrypt": "aes256", "compress": false,
            "mdn": "async", "mdn_signed": "sha-256", "async_mdn_url": "https://hub.example/as2",
            "timeout_ms": 30000, "mdn_timeout_ms": 1200000, "max_attempts": 3,
            "base_backoff_ms": 30000, "max_backoff_ms": 3600000,
        })
    );
    assert_eq!(edihub_json(&app, &["partner", "show", NEWCOMER]), added);
    let shown = edihub(&app, &["partner", "show", NEWCOMER]);
    assert!(
        shown.contains("outbound URL:               https://as2.newcomer.example/in"),
        "{shown}"
    );

    // Changing some fields keeps the others; a bad change leaves the row as it was.
    let stderr = edihub_refused(
        &app,
        &["partner", "update", NEWCOMER, "--outbound-timeout-ms", "0"],
    );
    assert!(
        stderr.contains("outbound timeout_ms 0: must be at least 1"),
        "{stderr}"
    );
    let stderr = edihub_refused(
        &app,
        &[
            "partner",
            "update",
            NEWCOMER,
            "--remove-cert",
            &added["certificates"][0]["sha256"]
                .as_str()
                .unwrap_or_default()[..16],
        ],
    );
    assert!(stderr.contains("no certificate to encrypt to"), "{stderr}");
    assert_eq!(
        edihub_json(&app, &["partner", "show", NEWCOMER]),
        added,
        "unchanged"
    );
    let updated = edihub_json(
        &app,
        &[
            "partner",
            "update",
            NEWCOMER,
            "--outbound-mdn",
            "sync",
            "--outbound-compress",
            "true",
        ],
    );
    let outbound = &updated["outbound"];
    assert_eq!(outbound["mdn"], "sync");
    assert_eq!(outbound["async_mdn_url"], serde_json::Value::Null);
    assert_eq!(outbound["compress"], true);
    assert_eq!(outbound["sign"], "sha-512", "kept");
    assert_eq!(outbound["max_attempts"], 3, "kept");

    let plain = edihub_json(
        &app,
        &[
            "partner",
            "update",
            NEWCOMER,
            "--outbound-mdn",
            "none",
            "--outbound-encrypt",
            "none",
        ],
    );
    assert_eq!(plain["outbound"]["mdn_signed"], serde_json::Value::Null);
    let kinds: Vec<_> = plain["warnings"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|w| w["kind"].as_str())
        .collect();
    assert!(kinds.contains(&"outbound_no_mdn"), "{plain}");
    assert!(kinds.contains(&"outbound_unencrypted"), "{plain}");
    assert!(!kinds.contains(&"outbound_unsigned"), "{plain}");

    let removed = edihub_json(&app, &["partner", "update", NEWCOMER, "--no-outbound"]);
    assert_eq!(removed["outbound"], serde_json::Value::Null);
    let shown = edihub(&app, &["partner", "show", NEWCOMER]);
    assert!(
        shown.contains("outbound:                   - (the hub sends nothing)"),
        "{shown}"
    );
    let stderr = edihub_refused(
        &app,
        &["partner", "update", NEWCOMER, "--outbound-sign", "none"],
    );
    assert!(stderr.contains("outbound settings need a url"), "{stderr}");
}
