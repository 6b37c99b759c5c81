//! HTTPS on the partner port: real rustls and OpenSSL clients, certificate renewal
//! without a restart, and client certificates pinned per partnership.

use super::{INVOIC, as2_request, metric};
use edihub_as2::{Disposition, DispositionError};
use edihub_tests::tls::{Identity, TestTls};
use edihub_tests::{PARTNER, TestApp, fixture, spawn_tls_app_with, wait_for};
use rustls::pki_types::ServerName;
use sha2::{Digest, Sha256};
use std::io::{Read, Write};
use std::process::{Command, Stdio};
use std::sync::Arc;
use std::time::Duration;
use tokio::net::TcpStream;
use uuid::Uuid;

/// The SHA-256 of the certificate the gateway presents to a new connection.
async fn presented(app: &TestApp, tls: &TestTls) -> [u8; 32] {
    let connector = tokio_rustls::TlsConnector::from(Arc::new(tls.client_config(None)));
    let stream = TcpStream::connect(app.address).await.expect("connect");
    let name = ServerName::try_from("localhost").expect("server name");
    let stream = connector
        .connect(name, stream)
        .await
        .expect("TLS handshake");
    let certificates = stream
        .get_ref()
        .1
        .peer_certificates()
        .expect("server certificate");
    Sha256::digest(certificates[0].as_ref()).into()
}

#[tokio::test]
async fn an_as2_message_over_https_is_accepted_and_plain_http_on_that_port_is_not() {
    let tls = TestTls::new();
    let app = spawn_tls_app_with(&tls, |_| {}).await;
    let id = format!("{}@acme", Uuid::new_v4());
    let response = app.post_as2(PARTNER, &id, &fixture(INVOIC)).await;
    assert_eq!(response.status, 200);
    assert_eq!(response.mdn().disposition, Disposition::Processed);

    // Plain HTTP to the TLS port: no HTTP answer, nothing stored, a failed handshake.
    let plain = format!("http://{}/as2", app.address);
    let attempt = app.http.post(plain).body("hello").send().await;
    assert!(attempt.is_err(), "{attempt:?}");
    assert_eq!(app.count("SELECT count(*) FROM edi_message").await, 1);
    wait_for(
        "the failed handshake counted",
        Duration::from_secs(5),
        || async {
            (metric(&app, "edihub_gateway_tls_handshake_failures_total").await >= 1).then_some(())
        },
    )
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn openssl_s_client_posts_an_as2_message() {
    let tls = TestTls::new();
    let app = spawn_tls_app_with(&tls, |_| {}).await;
    let id = format!("{}@acme", Uuid::new_v4());
    let (head, body) = as2_request(&id, &["Connection: close"]);
    let (address, ca) = (app.address.to_string(), tls.ca_path());
    let output = tokio::task::spawn_blocking(move || {
        let mut client = Command::new("openssl")
            .args(["s_client", "-quiet", "-ign_eof", "-verify_return_error"])
            .args(["-connect", &address, "-servername", "localhost", "-CAfile"])
            .arg(ca)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("openssl s_client");
        let mut stdin = client.stdin.take().expect("stdin");
        stdin.write_all(&head).expect("send head");
        stdin.write_all(&body).expect("send body");
        drop(stdin);
        let mut answer = Vec::new();
        client
            .stdout
            .take()
            .expect("stdout")
            .read_to_end(&mut answer)
            .expect("read");
        let _ = client.wait();
        String::from_utf8_lossy(&answer).into_owned()
    })
    .await
    .expect("s_client task");
    assert!(output.starts_with("HTTP/1.1 200"), "{output}");
    assert!(output.contains("processed"), "{output}");
    assert_eq!(app.count("SELECT count(*) FROM edi_message").await, 1);
}

#[tokio::test]
async fn a_renewed_certificate_is_presented_to_new_connections_without_a_restart() {
    let tls = TestTls::new();
    let app = spawn_tls_app_with(&tls, |_| {}).await;
    let first = presented(&app, &tls).await;
    let expiry = |sha256: [u8; 32]| {
        format!(
            r#"edihub_certificate_expiry_timestamp_seconds{{fingerprint="{}",kind="tls",owner="gateway"}}"#,
            hex::encode(sha256)
        )
    };
    assert!(
        metric(&app, &expiry(first)).await > 0,
        "expiry of the first certificate"
    );

    let renewed = tls.renew_server();
    assert_ne!(renewed, first);
    wait_for(
        "the renewed certificate",
        Duration::from_secs(10),
        || async { (presented(&app, &tls).await == renewed).then_some(()) },
    )
    .await;
    assert!(
        metric(&app, &expiry(renewed)).await > 0,
        "expiry of the renewed one"
    );
    assert_eq!(
        metric(&app, &expiry(first)).await,
        0,
        "the old one is not reported"
    );

    // A broken renewal is refused, and the certificate in use stays.
    let failed = r#"edihub_gateway_tls_reloads_total{outcome="failed"}"#;
    let failed_before = metric(&app, failed).await;
    std::fs::write(tls.certificate_path(), b"not a certificate").expect("break the file");
    wait_for(
        "the broken file noticed",
        Duration::from_secs(10),
        || async { (metric(&app, failed).await > failed_before).then_some(()) },
    )
    .await;
    assert_eq!(presented(&app, &tls).await, renewed);
    let response = app
        .post_as2(
            PARTNER,
            &format!("{}@acme", Uuid::new_v4()),
            &fixture(INVOIC),
        )
        .await;
    assert_eq!(response.status, 200);
}

/// Posts a message over a connection presenting `identity`; the MDN's disposition.
async fn post_with(app: &TestApp, tls: &TestTls, identity: Option<&Identity>) -> Disposition {
    let message = edihub_as2::build_plain_message(&edihub_as2::PlainMessageSpec {
        as2_from: PARTNER,
        as2_to: edihub_tests::HUB,
        message_id: &format!("{}@acme", Uuid::new_v4()),
        subject: "mTLS test",
        content_type: "application/edifact",
        payload: &fixture(INVOIC),
        request_mdn_to: Some("test@example.invalid"),
        request_signed_mdn: None,
    });
    let mut request = tls.http_client(identity).post(app.as2_url());
    for (name, value) in &message.headers {
        request = request.header(name, value);
    }
    let response = request
        .body(message.body)
        .send()
        .await
        .expect("POST over HTTPS");
    assert_eq!(response.status(), 200);
    let content_type = response.headers()["content-type"]
        .to_str()
        .expect("type")
        .to_owned();
    let body = response.bytes().await.expect("MDN");
    edihub_as2::parse_mdn(&content_type, &body)
        .expect("an MDN")
        .disposition
}

#[tokio::test]
async fn a_partnership_pinning_a_client_certificate_takes_messages_only_over_a_connection_with_it()
{
    let tls = TestTls::new();
    // From a CA the gateway never heard of: the pin is the fingerprint, not the issuer.
    let pinned = TestTls::self_signed_client("acme-supplier");
    let other = tls.client("someone-else");
    let fingerprint = hex::encode(pinned.sha256);
    let app = spawn_tls_app_with(&tls, move |gateway| {
        gateway.partners[0].tls_client_fingerprints = vec![fingerprint];
    })
    .await;

    assert_eq!(
        post_with(&app, &tls, Some(&pinned)).await,
        Disposition::Processed
    );
    let refused = Disposition::Failed(DispositionError::AuthenticationFailed);
    assert_eq!(post_with(&app, &tls, Some(&other)).await, refused);
    assert_eq!(post_with(&app, &tls, None).await, refused);
    assert_eq!(app.count("SELECT count(*) FROM edi_message").await, 1);
}

#[tokio::test]
async fn over_the_connection_cap_a_tls_connection_is_closed_before_its_handshake() {
    let tls = TestTls::new();
    let app = spawn_tls_app_with(&tls, |gateway| gateway.max_connections = 1).await;
    // The one connection allowed, handshake done and kept open.
    let connector = tokio_rustls::TlsConnector::from(Arc::new(tls.client_config(None)));
    let name = ServerName::try_from("localhost").expect("server name");
    let held = TcpStream::connect(app.address).await.expect("connect");
    let held = connector
        .connect(name.clone(), held)
        .await
        .expect("first handshake");

    let extra = TcpStream::connect(app.address).await.expect("connect");
    let handshake =
        tokio::time::timeout(Duration::from_secs(5), connector.connect(name, extra)).await;
    assert!(
        matches!(handshake, Ok(Err(_))),
        "the extra connection is closed: {handshake:?}"
    );
    let refused = r#"edihub_gateway_connections_refused_total{transport="tls"}"#;
    assert_eq!(metric(&app, refused).await, 1);
    assert_eq!(metric(&app, "edihub_gateway_connections").await, 1);
    drop(held);
}
