//! Asynchronous MDNs (RFC 4130 7.3): POSTed to the partner's URL after the commit,
//! through the outbox (channel `as2-mdn`), retried while the partner's server fails,
//! and only ever to a URL the partnership allows.

use edihub_as2::{Disposition, DispositionError, MicAlg};
use edihub_tests::{MdnReceiver, PARTNER, TestApp, fixture, spawn_app_with, wait_for, with_keys};
use std::time::Duration;
use uuid::Uuid;

const INVOIC: &str = "edifact/invoic-eancom-d96a.edi";

/// A hub whose test partner may ask for async MDNs below `allowed`, retrying fast.
/// The receivers listen on loopback, which the partnership must allow (see ssrf.rs).
async fn hub_allowing(allowed: String, max_attempts: i32) -> TestApp {
    hub_allowing_with(allowed, max_attempts, |_| {}).await
}

/// [`hub_allowing`], with `also` applied to the test partner's settings.
pub(crate) async fn hub_allowing_with(
    allowed: String,
    max_attempts: i32,
    also: impl Fn(&mut edihub_config::PartnerSettings) + Send + 'static,
) -> TestApp {
    spawn_app_with(move |gateway| {
        with_keys(false, false)(gateway);
        for partner in &mut gateway.partners {
            if partner.as2_id == PARTNER {
                partner.async_mdn_urls = vec![allowed.clone()];
                partner.async_mdn_allowed_networks = vec!["127.0.0.0/8".into()];
                also(partner);
            }
        }
        let retry = &mut gateway.async_mdn.retry;
        retry.poll_interval_ms = 100;
        retry.base_backoff_ms = 50;
        retry.max_backoff_ms = 200;
        retry.max_attempts = max_attempts;
    })
    .await
}

async fn delivery_row(app: &TestApp) -> (String, i32, Option<String>) {
    sqlx::query_as(
        "SELECT status, attempts, last_error FROM outbox WHERE channel = 'as2-mdn'
         ORDER BY seq DESC LIMIT 1",
    )
    .fetch_one(&app.pool)
    .await
    .expect("the delivery row")
}

#[tokio::test]
async fn an_async_mdn_is_posted_after_commit_retried_and_posted_again_for_a_resend() {
    let receiver = MdnReceiver::start(1).await;
    let app = hub_allowing(receiver.url("/as2/mdn/"), 10).await;
    let id = format!("{}@acme", Uuid::new_v4());
    let url = receiver.url("/as2/mdn/acme");
    let response = app
        .post_as2_async(PARTNER, &id, &fixture(INVOIC), &url, Some(MicAlg::Sha256))
        .await;
    assert_eq!(response.status, 200);
    assert!(response.body.is_empty(), "no MDN in the response");

    let delivered = receiver.accepted(1).await;
    let posts = receiver.received();
    assert_eq!(
        posts[0].answered, 503,
        "the first attempt met a failing server"
    );
    assert_eq!(delivered[0].path, "/as2/mdn/acme");
    assert_eq!(delivered[0].header("as2-from"), Some("EDIHUB"));
    assert_eq!(delivered[0].header("as2-to"), Some(PARTNER));
    let hub = edihub_as2::certificates_from_pem(&fixture("as2/hub.crt")).expect("hub cert");
    let mdn = edihub_as2::read_mdn(
        delivered[0].header("content-type").unwrap_or_default(),
        &delivered[0].body,
        &hub,
    )
    .expect("a signed MDN that verifies with the hub's certificate");
    assert!(mdn.signed);
    assert_eq!(mdn.report.disposition, Disposition::Processed);
    assert_eq!(mdn.report.original_message_id, id);
    assert!(mdn.report.received_content_mic.is_some());

    let (status, attempts, last_error) = wait_for(
        "the delivery row to be SENT",
        Duration::from_secs(10),
        || async {
            let row = delivery_row(&app).await;
            (row.0 == "SENT").then_some(row)
        },
    )
    .await;
    assert_eq!((status.as_str(), attempts, last_error), ("SENT", 2, None));
    // The Kafka event waits for its own relay (none runs here): the MDN did not.
    assert_eq!(
        app.count("SELECT count(*) FROM outbox WHERE channel = 'kafka' AND status = 'PENDING'")
            .await,
        1
    );

    // A resend asking for an async MDN gets the stored MDN POSTed again, unchanged.
    let again = app
        .post_as2_async(PARTNER, &id, &fixture(INVOIC), &url, Some(MicAlg::Sha256))
        .await;
    assert_eq!(again.status, 200);
    assert!(again.body.is_empty());
    let delivered = receiver.accepted(2).await;
    assert_eq!(delivered[1].body, delivered[0].body);
    assert_eq!(app.count("SELECT count(*) FROM edi_message").await, 1);
}

#[tokio::test]
async fn a_disallowed_async_mdn_url_is_refused_before_anything_is_accepted() {
    let receiver = MdnReceiver::start(0).await;
    let app = hub_allowing(receiver.url("/as2/mdn/"), 10).await;
    for disallowed in [
        "http://169.254.169.254/latest/meta-data/".to_owned(),
        receiver.url("/admin"),
        "file:///etc/passwd".to_owned(),
    ] {
        let id = format!("{}@acme", Uuid::new_v4());
        let response = app
            .post_as2_async(PARTNER, &id, &fixture(INVOIC), &disallowed, None)
            .await;
        assert_eq!(response.status, 200, "{disallowed}");
        let mdn = response.mdn();
        assert_eq!(
            mdn.disposition,
            Disposition::Failed(DispositionError::UnexpectedProcessingError),
            "{disallowed}"
        );
        let reason: String =
            sqlx::query_scalar("SELECT reason FROM as2_refusal WHERE as2_message_id = $1")
                .bind(&id)
                .fetch_one(&app.pool)
                .await
                .expect("refusal recorded");
        assert!(reason.contains("Receipt-Delivery-Option"), "{reason}");
    }
    assert_eq!(app.count("SELECT count(*) FROM edi_message").await, 0);
    assert_eq!(app.count("SELECT count(*) FROM outbox").await, 0);
    assert!(
        receiver.received().is_empty(),
        "nothing was POSTed anywhere"
    );
}

#[tokio::test]
async fn an_async_mdn_the_partner_never_takes_ends_failed_with_the_last_error() {
    let receiver = MdnReceiver::start(usize::MAX).await;
    let app = hub_allowing(receiver.url("/mdn"), 3).await;
    let id = format!("{}@acme", Uuid::new_v4());
    let response = app
        .post_as2_async(PARTNER, &id, &fixture(INVOIC), &receiver.url("/mdn"), None)
        .await;
    assert_eq!(response.status, 200);
    let (_, attempts, last_error) = wait_for(
        "the delivery row to be FAILED",
        Duration::from_secs(20),
        || async {
            let row = delivery_row(&app).await;
            (row.0 == "FAILED").then_some(row)
        },
    )
    .await;
    assert_eq!(attempts, 3);
    let last_error = last_error.unwrap_or_default();
    assert!(last_error.contains("503"), "{last_error}");
    assert_eq!(
        receiver.received().len(),
        3,
        "one POST per attempt, no more"
    );
}
