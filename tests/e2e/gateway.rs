//! The gateway's promises to partners: resends, unknown partners, and no MDN without a
//! commit.

use edihub_as2::{Disposition, DispositionError};
use edihub_tests::{HUB, PARTNER, fixture, spawn_app};
use uuid::Uuid;

const INVOIC: &str = "edifact/invoic-eancom-d96a.edi";

#[tokio::test]
async fn a_resend_gets_the_original_mdn_and_adds_no_outbox_row() {
    let app = spawn_app().await;
    let payload = fixture(INVOIC);
    let id = format!("{}@acme", Uuid::new_v4());
    let first = app.post_as2(PARTNER, &id, &payload).await;
    assert_eq!(first.status, 200);
    // The same Message-ID, this time in angle brackets: the same message.
    let second = app.post_as2(PARTNER, &format!("<{id}>"), &payload).await;
    assert_eq!(second.status, 200);
    assert_eq!(second.body, first.body, "the stored MDN, byte for byte");
    assert_eq!(second.mdn().disposition, Disposition::Processed);
    assert_eq!(app.count("SELECT count(*) FROM edi_message").await, 1);
    assert_eq!(app.count("SELECT count(*) FROM outbox").await, 1);
}

#[tokio::test]
async fn an_unauthenticated_copy_under_a_known_message_id_is_refused_not_answered_as_a_resend() {
    let app = spawn_app().await;
    // A copy whose body no longer unwraps (mangled on the way, or forged): nothing
    // proves it comes from the partner, and the Message-ID is not signed.
    let mangled = |id: &str| {
        edihub_as2::build_plain_message(&edihub_as2::PlainMessageSpec {
            as2_from: PARTNER,
            as2_to: HUB,
            message_id: id,
            subject: "test",
            content_type: "multipart/signed; protocol=\"application/pkcs7-signature\"; boundary=x",
            payload: b"not MIME at all",
            request_mdn_to: Some("test@example.invalid"),
            request_signed_mdn: None,
        })
    };
    let id = format!("{}@acme", Uuid::new_v4());
    let first = app.post_as2(PARTNER, &id, &fixture(INVOIC)).await;
    assert_eq!(first.mdn().disposition, Disposition::Processed);

    let copy = mangled(&id);
    let second = app.post_raw(&copy.headers, copy.body).await;
    assert_eq!(second.status, 200);
    assert_ne!(second.body, first.body, "the stored MDN is not handed out");
    let disposition = second.mdn().disposition;
    assert!(
        matches!(disposition, Disposition::Failed(_)),
        "{disposition:?}"
    );
    assert_eq!(app.count("SELECT count(*) FROM as2_refusal").await, 1);
    assert_eq!(app.count("SELECT count(*) FROM outbox").await, 1);
}

#[tokio::test]
async fn an_unknown_partner_gets_authentication_failed_and_nothing_is_accepted() {
    let app = spawn_app().await;
    let id = format!("{}@stranger", Uuid::new_v4());
    let response = app.post_as2("STRANGER", &id, &fixture(INVOIC)).await;
    assert_eq!(response.status, 200, "an error MDN is still an MDN");
    let mdn = response.mdn();
    assert_eq!(
        mdn.disposition,
        Disposition::Failed(DispositionError::AuthenticationFailed)
    );
    assert_eq!(mdn.original_message_id, id);
    assert_eq!(mdn.received_content_mic, None);
    assert_eq!(app.count("SELECT count(*) FROM edi_message").await, 0);
    assert_eq!(app.count("SELECT count(*) FROM mdn").await, 0);
    assert_eq!(app.count("SELECT count(*) FROM outbox").await, 0);
    // Kept for operators, with the reason.
    let (disposition, reason): (String, String) =
        sqlx::query_as("SELECT disposition, reason FROM as2_refusal WHERE as2_message_id = $1")
            .bind(&id)
            .fetch_one(&app.pool)
            .await
            .expect("refusal recorded");
    assert_eq!(disposition, "authentication-failed");
    assert!(reason.contains("STRANGER"), "{reason}");
    // Counted for operators (nextest runs each test in its own process).
    let metrics = app.metrics().await;
    assert!(
        metrics.contains(r#"edihub_as2_messages_total{disposition="authentication-failed"} 1"#),
        "{metrics}"
    );
}

#[tokio::test]
async fn a_failed_commit_returns_5xx_without_mdn_and_leaves_nothing_half_written() {
    let app = spawn_app().await;
    // Make the outbox insert fail inside the gateway's transaction, after the
    // journal and MDN inserts succeeded.
    sqlx::raw_sql(
        "CREATE FUNCTION fail_outbox() RETURNS trigger LANGUAGE plpgsql AS $$
         BEGIN RAISE EXCEPTION 'outbox unavailable (test)'; END $$;
         CREATE TRIGGER fail_outbox BEFORE INSERT ON outbox
             FOR EACH ROW EXECUTE FUNCTION fail_outbox();",
    )
    .execute(&app.pool)
    .await
    .expect("install failing trigger");
    let payload = fixture(INVOIC);
    let id = format!("{}@acme", Uuid::new_v4());
    let response = app.post_as2(PARTNER, &id, &payload).await;
    assert_eq!(response.status, 503);
    assert!(edihub_as2::parse_mdn(response.content_type(), &response.body).is_err());
    assert_eq!(app.count("SELECT count(*) FROM edi_message").await, 0);
    assert_eq!(app.count("SELECT count(*) FROM mdn").await, 0);
    assert_eq!(app.count("SELECT count(*) FROM outbox").await, 0);

    // The partner resends once the database is healthy again, and is accepted.
    sqlx::raw_sql("DROP TRIGGER fail_outbox ON outbox")
        .execute(&app.pool)
        .await
        .expect("drop trigger");
    let resend = app.post_as2(PARTNER, &id, &payload).await;
    assert_eq!(resend.status, 200);
    assert_eq!(resend.mdn().disposition, Disposition::Processed);
    assert_eq!(app.count("SELECT count(*) FROM outbox").await, 1);
}

#[tokio::test]
async fn an_unreachable_database_returns_5xx() {
    let app = spawn_app().await;
    // A second gateway whose database does not answer.
    let mut settings = as2_gateway::Settings::default();
    settings.gateway.listen = "127.0.0.1:0".into();
    settings.gateway.plain_http = true;
    settings.gateway.ops_listen = "127.0.0.1:0".into();
    settings.gateway.partners = vec![edihub_config::PartnerSettings {
        as2_id: PARTNER.into(),
        ..Default::default()
    }];
    settings.database.url = edihub_config::Secret::new("postgres://postgres@127.0.0.1:1/none");
    let broken = as2_gateway::Application::build(settings)
        .await
        .expect("build");
    let url = format!("http://{}/as2", broken.address());
    let shutdown = tokio_util::sync::CancellationToken::new();
    tokio::spawn(broken.run_until_stopped(shutdown.clone()));
    let message = edihub_as2::build_plain_message(&edihub_as2::PlainMessageSpec {
        as2_from: PARTNER,
        as2_to: edihub_tests::HUB,
        message_id: "down@acme",
        subject: "test",
        content_type: "application/edifact",
        payload: &fixture(INVOIC),
        request_mdn_to: Some("x"),
        request_signed_mdn: None,
    });
    let mut request = app.http.post(url);
    for (name, value) in &message.headers {
        request = request.header(name, value);
    }
    let response = request.body(message.body).send().await.expect("post");
    assert_eq!(response.status(), 503);
    shutdown.cancel();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn concurrent_copies_of_one_message_are_accepted_once_and_get_the_same_mdn() {
    let app = spawn_app().await;
    let payload = fixture(INVOIC);
    let id = format!("{}@acme", Uuid::new_v4());
    // Sent at once, they race past the resend check; the journal's unique identity
    // lets one in and the others get its MDN.
    let responses =
        futures::future::join_all((0..6).map(|_| app.post_as2(PARTNER, &id, &payload))).await;
    for response in &responses {
        assert_eq!(response.status, 200);
        assert_eq!(response.body, responses[0].body, "one MDN for every copy");
        assert_eq!(response.mdn().disposition, Disposition::Processed);
    }
    assert_eq!(app.count("SELECT count(*) FROM edi_message").await, 1);
    assert_eq!(app.count("SELECT count(*) FROM mdn").await, 1);
    assert_eq!(app.count("SELECT count(*) FROM outbox").await, 1);
}

/// The operator CLI as a partner onboarding team runs it: `edihub send` posts a file
/// and checks the MDN (this also proves the CLI's HTTP client can be built).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn edihub_send_posts_a_file_and_reads_its_mdn() {
    let app = spawn_app().await;
    let url = app.as2_url();
    // The CLI blocks on its own runtime; run it off this test's workers.
    let output = tokio::task::spawn_blocking(move || {
        std::process::Command::new(edihub_tests::service_binary("edihub"))
            .arg("send")
            .arg(edihub_tests::fixture_path(INVOIC))
            .args(["--url", &url, "--from", PARTNER, "--to", edihub_tests::HUB])
            .env_remove("EDIHUB_CONFIG")
            .env("RUST_LOG", "warn")
            .output()
    })
    .await
    .expect("join")
    .expect("run edihub send");
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.success(),
        "{stdout}{}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert!(stdout.contains("processed"), "{stdout}");
    assert_eq!(app.count("SELECT count(*) FROM edi_message").await, 1);
}
