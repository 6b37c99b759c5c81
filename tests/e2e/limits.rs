//! The gateway's limits, each with a clear answer and nothing stored: body size (413),
//! header size (431) and requests in progress per partner (429 with Retry-After).

use edihub_tests::{EXTRA_PARTNERS, PARTNER, TestApp, fixture, spawn_app_with};
use uuid::Uuid;

const INVOIC: &str = "edifact/invoic-eancom-d96a.edi";

async fn nothing_stored(app: &TestApp) {
    assert_eq!(app.count("SELECT count(*) FROM edi_message").await, 0);
    assert_eq!(app.count("SELECT count(*) FROM outbox").await, 0);
}

#[tokio::test]
async fn an_oversized_body_gets_413() {
    let app = spawn_app_with(|gateway| gateway.max_body_bytes = 1024).await;
    let id = format!("{}@acme", Uuid::new_v4());
    let response = app.post_as2(PARTNER, &id, &vec![b'A'; 4096]).await;
    assert_eq!(response.status, 413);
    nothing_stored(&app).await;
    // Under the limit the same partner is served.
    let ok = app.post_as2(PARTNER, &id, &fixture(INVOIC)).await;
    assert_eq!(ok.status, 200);
}

#[tokio::test]
async fn oversized_headers_get_431() {
    let app = spawn_app_with(|gateway| gateway.max_header_bytes = 2048).await;
    let message = edihub_as2::build_plain_message(&edihub_as2::PlainMessageSpec {
        as2_from: PARTNER,
        as2_to: edihub_tests::HUB,
        message_id: &format!("{}@acme", Uuid::new_v4()),
        subject: &"x".repeat(3000),
        content_type: "application/edifact",
        payload: &fixture(INVOIC),
        request_mdn_to: Some("test@example.invalid"),
        request_signed_mdn: None,
    });
    let response = app.post_raw(&message.headers, message.body).await;
    assert_eq!(response.status, 431);
    let text = String::from_utf8_lossy(&response.body);
    assert!(text.contains("exceed the limit of 2048 bytes"), "{text}");
    nothing_stored(&app).await;
}

/// POSTs a plain message from `from` in a task of its own; the task yields the status.
fn spawn_post(app: &TestApp, from: &str, payload: &[u8]) -> tokio::task::JoinHandle<u16> {
    let message = edihub_as2::build_plain_message(&edihub_as2::PlainMessageSpec {
        as2_from: from,
        as2_to: edihub_tests::HUB,
        message_id: &format!("{}@{from}", Uuid::new_v4()),
        subject: "concurrent",
        content_type: "application/edifact",
        payload,
        request_mdn_to: Some("test@example.invalid"),
        request_signed_mdn: None,
    });
    let request = message
        .headers
        .iter()
        .fold(app.http.post(app.as2_url()), |request, (name, value)| {
            request.header(name, value)
        })
        .body(message.body);
    tokio::spawn(async move { request.send().await.expect("POST").status().as_u16() })
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_partner_over_its_concurrency_gets_429_and_others_are_not_held_back() {
    let app = spawn_app_with(|gateway| gateway.max_concurrent_per_partner = 1).await;
    let payload = fixture(INVOIC);

    // Hold the partner's one request inside the gateway: its first query waits for a
    // table lock this test holds.
    let mut blocker = app.pool.begin().await.expect("begin");
    sqlx::query("LOCK TABLE edi_message IN ACCESS EXCLUSIVE MODE")
        .execute(&mut *blocker)
        .await
        .expect("lock");
    let first = spawn_post(&app, PARTNER, &payload);
    app.wait_for_a_lock_wait("the first request to wait on the lock")
        .await;

    let second = app
        .post_as2(PARTNER, &format!("{}@acme", Uuid::new_v4()), &payload)
        .await;
    assert_eq!(second.status, 429);
    assert_eq!(
        second
            .headers
            .get("retry-after")
            .and_then(|v| v.to_str().ok()),
        Some("5")
    );

    // Another partner has its own allowance: admitted (and held by the same lock).
    let other = spawn_post(&app, EXTRA_PARTNERS[0], &payload);

    blocker.rollback().await.expect("release the lock");
    assert_eq!(first.await.expect("first request"), 200);
    assert_eq!(other.await.expect("other partner's request"), 200);
    assert_eq!(app.count("SELECT count(*) FROM edi_message").await, 2);
    // The slot is free again.
    let third = app
        .post_as2(PARTNER, &format!("{}@acme", Uuid::new_v4()), &payload)
        .await;
    assert_eq!(third.status, 200);
}
