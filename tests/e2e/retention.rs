//! Archive retention per partnership (issue 14): `edihub partner --retention-years` sets
//! how long the archive locks a partner's messages, the event carries it to the archive
//! consumer, every object of the message is locked until receipt plus those years, and a
//! shorter retention is refused.

use crate::partners::{edihub, edihub_status};
use chrono::{DateTime, Datelike, Utc};
use edihub_tests::{HUB, TestApp, fixture, fixture_path, spawn_app, wait_for};
use std::time::Duration;
use uuid::Uuid;

const KEEPER: &str = "LONG KEEPER";

/// Posts a plain INVOIC from `from` until the gateway, reloaded on NOTIFY, accepts it;
/// returns the journaled message's id.
async fn accepted_from(app: &TestApp, from: &str) -> Uuid {
    let as2_message_id = format!("{}@keeper", Uuid::new_v4());
    wait_for(
        "the new partner accepted",
        Duration::from_secs(10),
        || async {
            let message = edihub_as2::build_plain_message(&edihub_as2::PlainMessageSpec {
                as2_from: from,
                as2_to: HUB,
                message_id: &as2_message_id,
                subject: "retention",
                content_type: "application/edifact",
                payload: &fixture("edifact/invoic-eancom-d96a.edi"),
                request_mdn_to: Some("as2@keeper.example"),
                request_signed_mdn: None,
            });
            let response = app.post_raw(&message.headers, message.body).await;
            (response.status == 200
                && response.mdn().disposition == edihub_as2::Disposition::Processed)
                .then_some(())
        },
    )
    .await;
    app.journal_id(&as2_message_id).await
}

/// Every archived object of `message_id`: key, version and the retention recorded.
async fn objects(app: &TestApp, message_id: Uuid) -> Vec<(String, Option<String>, DateTime<Utc>)> {
    sqlx::query_as(
        "SELECT object_key, version_id, retain_until FROM archive_object WHERE message_id = $1",
    )
    .bind(message_id)
    .fetch_all(&app.pool)
    .await
    .expect("archive objects")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_partners_retention_locks_its_messages_that_long_and_is_never_shortened() {
    let app = spawn_app().await;
    app.start_consumers();
    let cert = fixture_path("as2/partner-a.crt");
    let cert = cert.to_str().unwrap_or_default();
    let plain = [
        "--require-signature",
        "false",
        "--require-encryption",
        "false",
    ];
    let mut add = vec![
        "partner",
        "add",
        KEEPER,
        "--cert",
        cert,
        "--retention-years",
        "12",
    ];
    add.extend(plain);
    edihub(&app, &add);
    let shown = edihub(&app, &["partner", "show", KEEPER, "--json"]);
    let shown: serde_json::Value = serde_json::from_str(&shown).expect("json");
    assert_eq!(shown["retention_years"], 12);

    let message_id = accepted_from(&app, KEEPER).await;
    app.drain_outbox().await;
    let objects = wait_for("the message archived", Duration::from_secs(60), || async {
        let found = objects(&app, message_id).await;
        (!found.is_empty()).then_some(found)
    })
    .await;
    let received_at: DateTime<Utc> =
        sqlx::query_scalar("SELECT received_at FROM edi_message WHERE id = $1")
            .bind(message_id)
            .fetch_one(&app.pool)
            .await
            .expect("received_at");
    for (key, version, recorded) in &objects {
        assert_eq!(recorded.year(), received_at.year() + 12, "{key}");
        let (mode, until) = app
            .store
            .retention(key, version.as_deref())
            .await
            .expect("S3 retention");
        assert_eq!(mode.as_deref(), Some("COMPLIANCE"), "{key}");
        assert_eq!(
            until.map(|t| t.timestamp()),
            Some(recorded.timestamp()),
            "{key}"
        );
    }

    let shorter = edihub_status(
        &app,
        &["partner", "update", KEEPER, "--retention-years", "8"],
    );
    assert!(!shorter.status.success());
    let stderr = String::from_utf8_lossy(&shorter.stderr);
    assert!(
        stderr.contains("retention_years 8 is shorter than the current 12"),
        "{stderr}"
    );
    // A partner that sets none is judged against the hub's default (10).
    let mut add = vec!["partner", "add", "DEFAULT KEEPER", "--cert", cert];
    add.extend(plain);
    edihub(&app, &add);
    let below_default = edihub_status(
        &app,
        &[
            "partner",
            "update",
            "DEFAULT KEEPER",
            "--retention-years",
            "9",
        ],
    );
    let stderr = String::from_utf8_lossy(&below_default.stderr);
    assert!(
        stderr.contains("retention_years 9 is shorter than the current 10"),
        "{stderr}"
    );
    edihub(
        &app,
        &["partner", "update", KEEPER, "--retention-years", "15"],
    );
    let shown = edihub(&app, &["partner", "show", KEEPER, "--json"]);
    let shown: serde_json::Value = serde_json::from_str(&shown).expect("json");
    assert_eq!(shown["retention_years"], 15);
}
