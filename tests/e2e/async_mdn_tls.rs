//! Asynchronous MDNs over HTTPS: the partnership says which server certificates the hub
//! trusts (the platform's roots, an extra CA, or a pinned certificate) and which client
//! certificate it presents; the receivers are real rustls servers.

use edihub_config::PartnerSettings;
use edihub_tests::tls::TestTls;
use edihub_tests::{MdnReceiver, PARTNER, TestApp, fixture, spawn_app_with, wait_for};
use std::time::Duration;
use uuid::Uuid;

const INVOIC: &str = "edifact/invoic-eancom-d96a.edi";

/// A hub whose test partner asks for async MDNs at `receiver`, with `tls` applied to
/// its partnership, trying each MDN `max_attempts` times, fast.
async fn hub_for(
    receiver: &MdnReceiver,
    max_attempts: i32,
    tls: impl Fn(&mut PartnerSettings) + Send + 'static,
) -> TestApp {
    crate::async_mdn::hub_allowing_with(receiver.url("/mdn/"), max_attempts, tls).await
}

/// Posts a message asking for its MDN at `receiver` and waits until the delivery row
/// is SENT or FAILED; returns the status and the last error.
async fn deliver(app: &TestApp, receiver: &MdnReceiver) -> (String, Option<String>) {
    let id = format!("{}@acme", Uuid::new_v4());
    let url = receiver.url("/mdn/acme");
    let response = app
        .post_as2_async(PARTNER, &id, &fixture(INVOIC), &url, None)
        .await;
    assert_eq!(response.status, 200, "accepted, MDN to follow");
    wait_for(
        "the delivery row to end SENT or FAILED",
        Duration::from_secs(30),
        || async {
            let (status, last_error): (String, Option<String>) = sqlx::query_as(
                "SELECT status, last_error FROM outbox WHERE channel = 'as2-mdn'
                 ORDER BY seq DESC LIMIT 1",
            )
            .fetch_one(&app.pool)
            .await
            .expect("the delivery row");
            matches!(status.as_str(), "SENT" | "FAILED").then_some((status, last_error))
        },
    )
    .await
}

#[tokio::test]
async fn the_platform_roots_do_not_trust_a_partners_own_ca_and_an_extra_ca_does() {
    let tls = TestTls::new();
    let receiver = MdnReceiver::start_https(0, &tls, false).await;

    let by_default = hub_for(&receiver, 2, |_| {}).await;
    let (status, last_error) = deliver(&by_default, &receiver).await;
    assert_eq!(status, "FAILED");
    let last_error = last_error.unwrap_or_default();
    assert!(
        last_error.contains("UnknownIssuer"),
        "the certificate was refused: {last_error}"
    );
    assert!(receiver.received().is_empty(), "nothing reached the server");
    // The server counts a refused handshake when the client's alert reaches it, which
    // can be after the hub recorded the attempt: wait for the count, then check it.
    let refused = &receiver.failed_handshakes;
    let count = || refused.load(std::sync::atomic::Ordering::SeqCst);
    wait_for(
        "the server to count both refused handshakes",
        Duration::from_secs(10),
        || async { (count() >= 2).then_some(()) },
    )
    .await;
    assert_eq!(count(), 2, "one refused handshake per attempt");

    let ca = tls.ca_path();
    let with_ca = hub_for(&receiver, 2, move |p| p.outbound_tls_ca = Some(ca.clone())).await;
    let (status, last_error) = deliver(&with_ca, &receiver).await;
    assert_eq!(status, "SENT", "{last_error:?}");
    let delivered = receiver.accepted(1).await;
    assert_eq!(delivered[0].path, "/mdn/acme");
    assert_eq!(delivered[0].header("as2-to"), Some(PARTNER));
}

#[tokio::test]
async fn a_pinned_server_certificate_is_trusted_and_any_other_refused() {
    let tls = TestTls::new();
    let receiver = MdnReceiver::start_https(0, &tls, false).await;

    let pin = hex::encode(tls.server_sha256());
    let pinned = hub_for(&receiver, 2, move |p| {
        p.outbound_tls_fingerprints = vec![pin.clone()];
    })
    .await;
    let (status, last_error) = deliver(&pinned, &receiver).await;
    assert_eq!(status, "SENT", "{last_error:?}");

    let other = hex::encode([7u8; 32]);
    let wrong_pin = hub_for(&receiver, 2, move |p| {
        p.outbound_tls_fingerprints = vec![other.clone()];
        // The CA would vouch for the server: a pin replaces it, it does not add to it.
    })
    .await;
    let (status, last_error) = deliver(&wrong_pin, &receiver).await;
    assert_eq!(status, "FAILED");
    let last_error = last_error.unwrap_or_default();
    assert!(
        last_error.contains("ApplicationVerificationFailure"),
        "{last_error}"
    );
    assert_eq!(receiver.accepted(1).await.len(), 1, "only the pinned hub's");
}

#[tokio::test]
async fn the_hub_presents_the_partnerships_client_certificate_to_a_server_that_requires_one() {
    let tls = TestTls::new();
    let receiver = MdnReceiver::start_https(0, &tls, true).await;
    let hub_client = tls.client("edihub outbound");
    let certificate = tls.dir.join("hub-client.crt");
    let key = tls.dir.join("hub-client.key");
    std::fs::write(&certificate, &hub_client.certificate_pem).expect("write certificate");
    std::fs::write(&key, &hub_client.key_pem).expect("write key");

    let ca = tls.ca_path();
    let without = {
        let ca = ca.clone();
        hub_for(&receiver, 2, move |p| p.outbound_tls_ca = Some(ca.clone())).await
    };
    let (status, _) = deliver(&without, &receiver).await;
    assert_eq!(status, "FAILED", "the server requires a client certificate");

    let with = hub_for(&receiver, 2, move |p| {
        p.outbound_tls_ca = Some(ca.clone());
        p.outbound_tls_client_certificate = Some(certificate.clone());
        p.outbound_tls_client_key = Some(key.clone());
    })
    .await;
    let (status, last_error) = deliver(&with, &receiver).await;
    assert_eq!(status, "SENT", "{last_error:?}");
    receiver.accepted(1).await;
    let presented = receiver.client_certificates.lock().expect("lock").clone();
    assert_eq!(presented, vec![Some(hub_client.sha256)]);
}

#[tokio::test]
async fn outbound_tls_set_with_the_cli_is_stored_checked_and_used() {
    use crate::partners::{edihub, edihub_json, edihub_status};
    let tls = TestTls::new();
    let receiver = MdnReceiver::start_https(0, &tls, false).await;
    let app = spawn_app_with(|_| {}).await;

    let bad = edihub_status(
        &app,
        &[
            "partner",
            "add",
            PARTNER,
            "--outbound-tls-fingerprint",
            "abcd",
        ],
    );
    let stderr = String::from_utf8_lossy(&bad.stderr);
    assert!(
        stderr.contains("\"abcd\" is not a SHA-256 fingerprint"),
        "{stderr}"
    );
    assert_eq!(app.count("SELECT count(*) FROM partner").await, 0);

    let pin = hex::encode(tls.server_sha256()).to_uppercase();
    let url = receiver.url("/mdn/");
    let added = edihub_json(
        &app,
        &[
            "partner",
            "add",
            PARTNER,
            "--require-signature",
            "false",
            "--require-encryption",
            "false",
            "--async-mdn-url",
            &url,
            "--async-mdn-allow-network",
            "127.0.0.0/8",
            "--outbound-tls-fingerprint",
            &pin,
        ],
    );
    assert_eq!(
        added["outbound_tls"],
        serde_json::json!({"server": {"trust": "pinned", "sha256": [pin.to_lowercase()]}})
    );
    let shown = edihub(&app, &["partner", "show", PARTNER]);
    assert!(
        shown.contains("outbound TLS server:        pinned sha256"),
        "{shown}"
    );

    // The gateway picks the row up on NOTIFY: post until the partnership allows the URL.
    let mdn_url = receiver.url("/mdn/acme");
    wait_for(
        "the database partnership to take the message",
        Duration::from_secs(10),
        || async {
            let id = format!("{}@acme", Uuid::new_v4());
            let response = app
                .post_as2_async(PARTNER, &id, &fixture(INVOIC), &mdn_url, None)
                .await;
            (response.status == 200 && response.body.is_empty()).then_some(())
        },
    )
    .await;
    assert_eq!(receiver.accepted(1).await.len(), 1, "pinned, so delivered");

    let reset = edihub_json(
        &app,
        &["partner", "update", PARTNER, "--outbound-tls-defaults"],
    );
    assert_eq!(
        reset["outbound_tls"],
        serde_json::json!({"server": {"trust": "system"}})
    );
}
