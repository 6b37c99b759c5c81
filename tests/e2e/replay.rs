//! Replays: the AS2 Message-ID is outside the signature, so whoever captured a signed
//! message can send it again under another Message-ID, or send a forged request under a
//! known one. Neither may book an invoice twice or get the partner's MDN.

use crate::smime::{hub_certificates, identity, post, spec};
use edihub_as2::{
    Disposition, DispositionError, Encryption, SecureMessageSpec, build_secure_message,
};
use edihub_as2::{MicAlg, PlainMessageSpec};
use edihub_tests::{HUB, PARTNER, TestApp, fixture, spawn_app_with, with_keys};
use uuid::Uuid;

const INVOIC: &str = "edifact/invoic-eancom-d96a.edi";

/// A signed and encrypted INVOIC under `message_id`; the signed entity depends only on
/// the payload, as with every AS2 client.
fn signed_message(message_id: &str, payload: &[u8]) -> edihub_as2::SecureMessage {
    let partner = identity("partner-a");
    let hub = hub_certificates();
    build_secure_message(&SecureMessageSpec {
        plain: spec(message_id, payload),
        compress: false,
        sign: Some((&partner, MicAlg::Sha256)),
        encrypt: Some((&hub[0], Encryption::Aes256Cbc)),
        boundary: &format!("----=_replay_{}", Uuid::new_v4().simple()),
        now_unix: chrono::Utc::now().timestamp(),
    })
    .expect("build")
}

async fn accepted_once(app: &TestApp) {
    assert_eq!(app.count("SELECT count(*) FROM edi_message").await, 1);
    assert_eq!(
        app.count("SELECT count(*) FROM outbox WHERE channel = 'kafka'")
            .await,
        1,
        "one EdiMessageReceived, not two"
    );
}

#[tokio::test]
async fn a_signed_message_replayed_under_a_new_message_id_is_a_duplicate_document() {
    let app = spawn_app_with(with_keys(true, true)).await;
    let payload = fixture(INVOIC);
    let first_id = format!("{}@acme", Uuid::new_v4());
    let first = signed_message(&first_id, &payload);
    let answer = post(&app, &first.message.headers, first.message.body).await;
    let read = edihub_as2::read_mdn(answer.content_type(), &answer.body, &hub_certificates())
        .expect("MDN");
    assert_eq!(read.report.disposition, Disposition::Processed);

    // The same signed entity, wrapped again (new encryption) under a new Message-ID.
    let replay_id = format!("{}@replay", Uuid::new_v4());
    let replay = signed_message(&replay_id, &payload);
    let answer = post(&app, &replay.message.headers, replay.message.body).await;
    let read = edihub_as2::read_mdn(answer.content_type(), &answer.body, &hub_certificates())
        .expect("a signed MDN for the replay");
    assert_eq!(read.report.original_message_id, replay_id);
    assert_eq!(read.report.received_content_mic, Some(replay.expected_mic));
    let text = String::from_utf8_lossy(&answer.body);
    assert!(
        text.contains("processed/warning: duplicate-document"),
        "{text}"
    );
    assert!(
        text.contains(&first_id),
        "the MDN names the original: {text}"
    );
    accepted_once(&app).await;
    let recorded: String =
        sqlx::query_scalar("SELECT disposition FROM as2_refusal WHERE as2_message_id = $1")
            .bind(&replay_id)
            .fetch_one(&app.pool)
            .await
            .expect("the replay is recorded for operators");
    assert_eq!(recorded, "duplicate-document");

    // Other content from the same partner is a new message.
    let mut other = payload.clone();
    other.extend_from_slice(b"\n");
    let fresh = signed_message(&format!("{}@acme", Uuid::new_v4()), &other);
    post(&app, &fresh.message.headers, fresh.message.body).await;
    assert_eq!(app.count("SELECT count(*) FROM edi_message").await, 2);
}

#[tokio::test]
async fn with_the_window_off_the_same_content_is_accepted_again() {
    let app = spawn_app_with(|gateway| {
        with_keys(true, true)(gateway);
        gateway.replay_window_hours = 0;
    })
    .await;
    let payload = fixture(INVOIC);
    for _ in 0..2 {
        let message = signed_message(&format!("{}@acme", Uuid::new_v4()), &payload);
        post(&app, &message.message.headers, message.message.body).await;
    }
    assert_eq!(app.count("SELECT count(*) FROM edi_message").await, 2);
}

/// An unsigned request under the Message-ID of an accepted signed message.
fn forged(message_id: &str, receipt_url: Option<&str>) -> (Vec<(String, String)>, Vec<u8>) {
    let message = edihub_as2::build_plain_message(&PlainMessageSpec {
        as2_from: PARTNER,
        as2_to: HUB,
        message_id,
        subject: "forged",
        content_type: "application/edifact",
        payload: b"UNB+UNOC:3+FORGED'",
        request_mdn_to: Some(receipt_url.unwrap_or("forger@example.invalid")),
        request_signed_mdn: None,
    });
    let mut headers = message.headers;
    if let Some(url) = receipt_url {
        headers.push(("Receipt-Delivery-Option".into(), url.into()));
    }
    (headers, message.body)
}

#[tokio::test]
async fn a_forged_resend_of_a_known_message_id_gets_a_refusal_not_the_original_mdn() {
    let app = spawn_app_with(with_keys(true, true)).await;
    let id = format!("{}@acme", Uuid::new_v4());
    let original = signed_message(&id, &fixture(INVOIC));
    let first = post(&app, &original.message.headers, original.message.body).await;

    let (headers, body) = forged(&id, None);
    let answer = post(&app, &headers, body).await;
    assert_ne!(
        answer.body, first.body,
        "the partner's MDN is not handed out"
    );
    let read = edihub_as2::read_mdn(answer.content_type(), &answer.body, &hub_certificates())
        .expect("an MDN");
    assert_eq!(
        read.report.disposition,
        Disposition::Failed(DispositionError::InsufficientMessageSecurity)
    );
    accepted_once(&app).await;
}

#[tokio::test]
async fn a_forged_async_resend_queues_no_mdn_delivery() {
    let receiver = edihub_tests::MdnReceiver::start(0).await;
    let url = receiver.url("/mdn/");
    let app = spawn_app_with(|gateway| {
        with_keys(true, true)(gateway);
        for partner in &mut gateway.partners {
            partner.async_mdn_urls = vec![url.clone()];
            partner.async_mdn_allowed_networks = vec!["127.0.0.0/8".into()];
        }
    })
    .await;
    let id = format!("{}@acme", Uuid::new_v4());
    let original = signed_message(&id, &fixture(INVOIC));
    post(&app, &original.message.headers, original.message.body).await;

    for _ in 0..3 {
        let (headers, body) = forged(&id, Some(&url));
        let answer = post(&app, &headers, body).await;
        assert!(!answer.body.is_empty(), "a refusal MDN in the response");
    }
    assert_eq!(
        app.count("SELECT count(*) FROM outbox WHERE channel = 'as2-mdn'")
            .await,
        0,
        "nothing is POSTed for a forged request"
    );
    accepted_once(&app).await;
}
