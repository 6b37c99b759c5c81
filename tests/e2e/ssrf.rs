//! Async MDN URLs cannot make the hub POST into its own network (SSRF): an IP-literal
//! host is judged when the message arrives, a host name by the addresses it resolves
//! to when the MDN is POSTed, and loopback, private, link-local and the other internal
//! ranges are refused unless the partnership allows the network. Redirects are never
//! followed. (No proxy from the environment: crates/mdn-delivery/tests/proxy.rs.)

use edihub_as2::{Disposition, DispositionError};
use edihub_tests::{MdnReceiver, PARTNER, TestApp, fixture, spawn_app_with, wait_for, with_keys};
use std::net::SocketAddr;
use std::time::Duration;
use uuid::Uuid;

const INVOIC: &str = "edifact/invoic-eancom-d96a.edi";

/// A hub whose test partner may ask for async MDNs below `allowed`, within `networks`,
/// retrying fast and often (so that a row FAILED after one attempt was refused, not
/// retried out).
async fn hub(allowed: String, networks: &[&str]) -> TestApp {
    let networks: Vec<String> = networks.iter().map(|n| n.to_string()).collect();
    spawn_app_with(move |gateway| {
        with_keys(false, false)(gateway);
        for partner in &mut gateway.partners {
            if partner.as2_id == PARTNER {
                partner.async_mdn_urls = vec![allowed.clone()];
                partner.async_mdn_allowed_networks = networks.clone();
            }
        }
        let retry = &mut gateway.async_mdn.retry;
        retry.poll_interval_ms = 100;
        retry.base_backoff_ms = 50;
        retry.max_backoff_ms = 200;
        retry.max_attempts = 10;
    })
    .await
}

/// `path` on the receiver, named `localhost` rather than by its address.
fn by_name(receiver: &MdnReceiver, path: &str) -> String {
    format!("http://localhost:{}{path}", receiver.address.port())
}

async fn send_async(app: &TestApp, url: &str) -> (String, edihub_tests::As2Response) {
    let id = format!("{}@acme", Uuid::new_v4());
    let response = app
        .post_as2_async(PARTNER, &id, &fixture(INVOIC), url, None)
        .await;
    (id, response)
}

/// The delivery row once it is no longer PENDING: status, attempts, last error.
async fn settled_delivery(app: &TestApp) -> (String, i32, String) {
    wait_for(
        "the delivery row to settle",
        Duration::from_secs(20),
        || async {
            let row: (String, i32, Option<String>) = sqlx::query_as(
                "SELECT status, attempts, last_error FROM outbox WHERE channel = 'as2-mdn'",
            )
            .fetch_one(&app.pool)
            .await
            .expect("the delivery row");
            (row.0 != "PENDING").then(|| (row.0, row.1, row.2.unwrap_or_default()))
        },
    )
    .await
}

#[tokio::test]
async fn a_host_name_resolving_to_loopback_gets_no_post_and_fails_at_once() {
    let receiver = MdnReceiver::start(0).await;
    let app = hub(by_name(&receiver, "/mdn/"), &[]).await;
    let (_, response) = send_async(&app, &by_name(&receiver, "/mdn/acme")).await;
    assert_eq!(
        response.status, 200,
        "accepted: a host name is judged at delivery"
    );
    assert!(response.body.is_empty(), "the MDN goes asynchronously");

    let (status, attempts, last_error) = settled_delivery(&app).await;
    assert_eq!((status.as_str(), attempts), ("FAILED", 1), "{last_error}");
    assert!(
        last_error.contains("not attempted") && last_error.contains("127.0.0.1 (loopback)"),
        "{last_error}"
    );
    assert!(receiver.received().is_empty(), "nothing was POSTed");
}

#[tokio::test]
async fn the_same_host_name_is_delivered_when_the_partnership_allows_loopback() {
    let receiver = MdnReceiver::start(0).await;
    let app = hub(by_name(&receiver, "/mdn/"), &["127.0.0.0/8"]).await;
    let (id, response) = send_async(&app, &by_name(&receiver, "/mdn/acme")).await;
    assert_eq!(response.status, 200);

    let delivered = receiver.accepted(1).await;
    assert_eq!(delivered[0].path, "/mdn/acme");
    let mdn = edihub_as2::parse_mdn(
        delivered[0].header("content-type").unwrap_or_default(),
        &delivered[0].body,
    )
    .expect("an MDN");
    assert_eq!(mdn.original_message_id, id);
    let (status, attempts, _) = settled_delivery(&app).await;
    assert_eq!((status.as_str(), attempts), ("SENT", 1));
}

/// Sends an async request for `url` and checks it got a synchronous
/// unexpected-processing-error MDN whose recorded reason contains `expected`.
async fn refused_at_arrival(app: &TestApp, url: &str, expected: &str) -> String {
    let (id, response) = send_async(app, url).await;
    assert_eq!(response.status, 200, "{url}");
    assert_eq!(
        response.mdn().disposition,
        Disposition::Failed(DispositionError::UnexpectedProcessingError),
        "{url}"
    );
    let reason: String =
        sqlx::query_scalar("SELECT reason FROM as2_refusal WHERE as2_message_id = $1")
            .bind(&id)
            .fetch_one(&app.pool)
            .await
            .expect("refusal recorded");
    assert!(reason.contains(expected), "{url}: {reason}");
    let mdn_text = String::from_utf8_lossy(&response.body).into_owned();
    format!("{reason}\n{mdn_text}")
}

#[tokio::test]
async fn an_ip_literal_loopback_url_is_refused_on_arrival_unless_allowed() {
    let receiver = MdnReceiver::start(0).await;
    let url = receiver.url("/mdn/acme");
    let app = hub(receiver.url("/mdn/"), &[]).await;
    refused_at_arrival(&app, &url, "is a loopback address").await;
    // Its decimal spelling is the same address.
    let decimal = format!("http://2130706433:{}/mdn/acme", receiver.address.port());
    refused_at_arrival(&app, &decimal, "is a loopback address").await;
    assert_eq!(app.count("SELECT count(*) FROM edi_message").await, 0);
    assert_eq!(app.count("SELECT count(*) FROM outbox").await, 0);

    let allowed = hub(receiver.url("/mdn/"), &["127.0.0.0/8"]).await;
    let (_, response) = send_async(&allowed, &url).await;
    assert_eq!(response.status, 200);
    assert!(response.body.is_empty());
    assert_eq!(receiver.accepted(1).await[0].path, "/mdn/acme");
}

#[tokio::test]
async fn encoded_traversal_and_user_info_are_refused_on_arrival_without_echoing_credentials() {
    let receiver = MdnReceiver::start(0).await;
    let app = hub(receiver.url("/mdn/"), &["127.0.0.0/8"]).await;
    refused_at_arrival(&app, &receiver.url("/mdn/..%2f..%2fadmin"), "ambiguous").await;
    refused_at_arrival(&app, &receiver.url("/mdn/%2e%2e/admin"), "not among").await;
    let with_credentials = format!("http://acme:s3cret@{}/mdn/acme", receiver.address);
    let shown = refused_at_arrival(&app, &with_credentials, "user info").await;
    assert!(!shown.contains("s3cret"), "{shown}");
    assert!(shown.contains("***@"), "{shown}");
    assert!(receiver.received().is_empty());
}

/// A server that answers every request with a redirect to `to`.
async fn redirecting_to(to: String) -> SocketAddr {
    use axum::http::{StatusCode, header};
    let router = axum::Router::new().fallback(move || {
        let to = to.clone();
        async move { (StatusCode::TEMPORARY_REDIRECT, [(header::LOCATION, to)]) }
    });
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind the redirecting server");
    let address = listener.local_addr().expect("its address");
    tokio::spawn(async move { axum::serve(listener, router).await });
    address
}

#[tokio::test]
async fn a_redirect_is_never_followed() {
    let target = MdnReceiver::start(0).await;
    let redirect = redirecting_to(target.url("/internal")).await;
    let allowed = format!("http://{redirect}/mdn/");
    let app = hub(allowed.clone(), &["127.0.0.0/8"]).await;
    send_async(&app, &format!("{allowed}acme")).await;

    let last_error = wait_for("a failed attempt", Duration::from_secs(20), || async {
        let row: (i32, Option<String>) =
            sqlx::query_as("SELECT attempts, last_error FROM outbox WHERE channel = 'as2-mdn'")
                .fetch_one(&app.pool)
                .await
                .expect("the delivery row");
        (row.0 >= 1).then_some(row.1.unwrap_or_default())
    })
    .await;
    assert!(last_error.contains("HTTP 307"), "{last_error}");
    assert!(
        target.received().is_empty(),
        "the redirect was not followed"
    );
}
