//! The auditor's search, access log and legal holds on the real stack, through the
//! `edihub` binary (docs/audit.md): each search key finds its messages and only them,
//! every fetch, show and search is in the access log under the auditor's name, and
//! `audit hold` sets and lifts the S3 legal hold on every object of the messages it
//! selects, as moto's S3 reports it.

use crate::audit_verify::{archived, sealed};
use aws_sdk_s3::types::ObjectLockLegalHoldStatus;
use chrono::Utc;
use edihub_tests::{EXTRA_PARTNERS, PARTNER, TestApp, fixture_path, spawn_app_with, with_keys};
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use uuid::Uuid;

const OTHER: &str = EXTRA_PARTNERS[0];
/// The day the first message is moved to, so that periods tell messages apart.
const EARLIER: &str = "2026-01-15";

/// One archived test message and the keys an auditor would search it by.
struct Sent {
    id: Uuid,
    as2_message_id: String,
    unb_reference: String,
    invoice: String,
}

/// Posts a plain INVOIC from `partner` whose UNB reference and invoice number (BT-1) are
/// its own.
async fn send(app: &TestApp, partner: &str, number: usize) -> Sent {
    let as2_message_id = format!("{}@{}", Uuid::new_v4(), partner.to_lowercase());
    let unb_reference = format!("AS{number:06}");
    let invoice = format!("INV-S-{number:04}");
    let text = String::from_utf8(edihub_tests::fixture("edifact/invoic-eancom-d96a.edi"))
        .expect("UTF-8 fixture");
    assert!(text.contains("BGM+380+INV-2026-0001+"), "fixture's BT-1");
    let payload = text
        .replace("EH000001", &unb_reference)
        .replace("BGM+380+INV-2026-0001+", &format!("BGM+380+{invoice}+"));
    let response = app
        .post_as2(partner, &as2_message_id, payload.as_bytes())
        .await;
    assert_eq!(response.status, 200);
    let id = app.journal_id(&as2_message_id).await;
    Sent {
        id,
        as2_message_id,
        unb_reference,
        invoice,
    }
}

/// Publishes what waits, waits until `count` entries are stored and all are sealed.
async fn archived_and_sealed(app: &TestApp, count: i64) {
    archived(app, count).await;
    sealed(app).await;
}

/// Three messages: two from `PARTNER` (the first moved to `EARLIER` in the archive's
/// record), one from `OTHER`.
async fn archive() -> (TestApp, Vec<Sent>) {
    let app = spawn_app_with(with_keys(false, false)).await;
    app.start_consumers();
    let sent = vec![
        send(&app, PARTNER, 1).await,
        send(&app, PARTNER, 2).await,
        send(&app, OTHER, 3).await,
    ];
    archived_and_sealed(&app, 3).await;
    sqlx::query("UPDATE archive_record SET received_at = ($1 || 'T10:00:00Z')::timestamptz WHERE message_id = $2")
        .bind(EARLIER)
        .bind(sent[0].id)
        .execute(&app.pool)
        .await
        .expect("move the first message back");
    (app, sent)
}

fn cli_config(dir: &Path) -> PathBuf {
    let path = dir.join("edihub.toml");
    let toml = format!(
        "[gateway]\nhub_certificate = {:?}\n",
        fixture_path("as2/hub.crt").display().to_string()
    );
    std::fs::write(&path, toml).expect("write config");
    path
}

/// Runs `edihub` with `args` against the test's database and bucket; `auditor` is put in
/// `EDIHUB_AUDITOR` when given, and the OS user is always `os-user`.
fn cli_as(app: &TestApp, auditor: Option<&str>, args: &[&str]) -> Output {
    let dir = std::env::temp_dir().join(format!("edihub-audit-search-{}", app.suffix));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let mut command = Command::new(edihub_tests::service_binary("edihub"));
    command
        .args(args)
        .env("EDIHUB_CONFIG", cli_config(&dir))
        .env_remove("EDIHUB_HUB_KEY_PASSPHRASE")
        .env_remove("EDIHUB_AUDITOR")
        .env("USER", "os-user")
        .env("DATABASE_URL", app.database.url.expose())
        .env("S3_BUCKET", &app.s3.bucket)
        .env("RUST_LOG", "warn");
    if let Some(auditor) = auditor {
        command.env("EDIHUB_AUDITOR", auditor);
    }
    command.output().expect("run edihub")
}

fn cli(app: &TestApp, args: &[&str]) -> Output {
    cli_as(app, None, args)
}

fn stdout(output: &Output) -> String {
    String::from_utf8_lossy(&output.stdout).into_owned()
}

fn json(output: &Output) -> serde_json::Value {
    assert!(output.status.success(), "{output:?}");
    serde_json::from_slice(&output.stdout)
        .unwrap_or_else(|e| panic!("JSON ({e}): {}", stdout(output)))
}

/// The message ids of `audit search ... --json`.
fn found(app: &TestApp, args: &[&str]) -> BTreeSet<Uuid> {
    let mut all = vec!["audit", "search", "--json"];
    all.extend_from_slice(args);
    let value = json(&cli(app, &all));
    value
        .as_array()
        .expect("one JSON array")
        .iter()
        .map(|row| {
            row["message_id"]
                .as_str()
                .and_then(|s| Uuid::parse_str(s).ok())
                .expect("message_id")
        })
        .collect()
}

fn ids(sent: &[&Sent]) -> BTreeSet<Uuid> {
    sent.iter().map(|s| s.id).collect()
}

fn today() -> String {
    Utc::now().format("%Y-%m-%d").to_string()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn each_search_key_finds_its_messages_and_only_them() {
    let (app, sent) = archive().await;
    let [a1, a2, b] = [&sent[0], &sent[1], &sent[2]];
    let today = today();

    assert_eq!(found(&app, &["--partner", PARTNER]), ids(&[a1, a2]));
    assert_eq!(found(&app, &["--partner", OTHER]), ids(&[b]));
    assert_eq!(
        found(&app, &["--from", EARLIER, "--to", EARLIER]),
        ids(&[a1])
    );
    assert_eq!(
        found(&app, &["--from", &today, "--to", &today]),
        ids(&[a2, b])
    );
    assert_eq!(found(&app, &["--invoice", &a2.invoice]), ids(&[a2]));
    assert_eq!(found(&app, &["--invoice", &b.invoice]), ids(&[b]));
    let bracketed = format!("<{}>", b.as2_message_id);
    assert_eq!(found(&app, &["--as2-message-id", &bracketed]), ids(&[b]));
    assert_eq!(
        found(&app, &["--as2-message-id", &a1.as2_message_id]),
        ids(&[a1])
    );
    assert_eq!(
        found(&app, &["--unb-reference", &a1.unb_reference]),
        ids(&[a1])
    );
    // Criteria are ANDed.
    assert_eq!(
        found(
            &app,
            &["--partner", PARTNER, "--from", &today, "--to", &today]
        ),
        ids(&[a2])
    );
    assert_eq!(
        found(&app, &["--partner", OTHER, "--invoice", &a1.invoice]),
        ids(&[])
    );
    assert_eq!(found(&app, &["--invoice", "INV-NOWHERE"]), ids(&[]));
    // The earliest received first, cut at the limit.
    assert_eq!(
        found(&app, &["--partner", PARTNER, "--limit", "1"]),
        ids(&[a1])
    );

    // JSON rows carry the keys, the ledger position and the seal.
    let rows = json(&cli(
        &app,
        &["audit", "search", "--json", "--invoice", &a2.invoice],
    ));
    let row = &rows[0];
    assert_eq!(row["partner"], PARTNER);
    assert_eq!(row["as2_message_id"], a2.as2_message_id);
    assert_eq!(row["unb_reference"], a2.unb_reference);
    assert_eq!(row["invoice_numbers"], serde_json::json!([a2.invoice]));
    assert!(row["ledger_seq"].as_i64().is_some_and(|s| s >= 1), "{row}");
    assert_eq!(row["sealed"], true);

    // The table: one line per message with its keys, and only the matching ones.
    let table = cli(&app, &["audit", "search", "--partner", PARTNER]);
    assert!(table.status.success(), "{table:?}");
    let text = stdout(&table);
    for s in [a1, a2] {
        let line = text
            .lines()
            .find(|l| l.starts_with(&s.id.to_string()))
            .unwrap_or_else(|| panic!("no line for {} in\n{text}", s.id));
        for part in [
            PARTNER,
            &s.as2_message_id,
            &s.unb_reference,
            &s.invoice,
            "sealed",
        ] {
            assert!(line.contains(part), "{part} missing from {line}");
        }
    }
    assert!(!text.contains(&b.id.to_string()), "{text}");
    assert!(text.contains("2 message(s)"), "{text}");
    assert!(text.contains(&format!("{EARLIER}T10:00:00Z")), "{text}");
    let none = cli(&app, &["audit", "search", "--invoice", "INV-NOWHERE"]);
    assert!(none.status.success(), "{none:?}");
    assert!(
        stdout(&none).contains("no archived message matches"),
        "{none:?}"
    );

    // A period that ends before it starts is refused.
    let backwards = cli(
        &app,
        &["audit", "search", "--from", &today, "--to", EARLIER],
    );
    assert!(!backwards.status.success(), "{backwards:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_access_log_lists_each_fetch_show_and_search_with_its_auditor() {
    let (app, sent) = archive().await;
    let message = &sent[1];
    let id = message.id.to_string();

    let fetch = cli(&app, &["audit", "fetch", &id, "--auditor", "alice"]);
    assert!(fetch.status.success(), "{fetch:?}");
    let show = cli(
        &app,
        &[
            "audit",
            "show",
            &message.as2_message_id,
            "--json",
            "--auditor",
            "alice",
        ],
    );
    let shown = json(&show);
    assert_eq!(shown["message_id"], id);
    let holds = shown["legal_holds"].as_array().expect("legal_holds");
    assert_eq!(holds.len(), 5, "{holds:?}");
    assert!(holds.iter().all(|h| h["held"] == false), "{holds:?}");
    // The environment names the auditor when --auditor is not given.
    let search = cli_as(
        &app,
        Some("bob"),
        &["audit", "search", "--partner", PARTNER],
    );
    assert!(search.status.success(), "{search:?}");
    // Without either, the OS user.
    let fetch_os = cli(&app, &["audit", "fetch", &sent[2].as2_message_id]);
    assert!(fetch_os.status.success(), "{fetch_os:?}");
    // A failed access is recorded with its outcome.
    let missing = cli(
        &app,
        &[
            "audit",
            "fetch",
            "no-such-message@nowhere",
            "--auditor",
            "alice",
        ],
    );
    assert!(!missing.status.success(), "{missing:?}");

    let log = json(&cli(&app, &["audit", "access", "--json"]));
    let rows = log.as_array().expect("one JSON array");
    let summary: Vec<(String, String, String, i64)> = rows
        .iter()
        .map(|r| {
            (
                r["auditor"].as_str().unwrap_or_default().to_owned(),
                r["command"].as_str().unwrap_or_default().to_owned(),
                r["outcome"].as_str().unwrap_or_default().to_owned(),
                r["messages"].as_i64().unwrap_or(-1),
            )
        })
        .collect();
    let row = |a: &str, c: &str, o: &str, m: i64| (a.to_owned(), c.to_owned(), o.to_owned(), m);
    assert_eq!(
        summary,
        vec![
            row("alice", "fetch", "ok", 1),
            row("alice", "show", "ok", 1),
            row("bob", "search", "ok", 2),
            row("os-user", "fetch", "ok", 1),
            row("alice", "fetch", "failed", 0),
        ]
    );
    assert_eq!(rows[0]["message_ids"], serde_json::json!([id]));
    assert_eq!(rows[0]["arguments"]["id"], id);
    assert_eq!(rows[1]["arguments"]["id"], message.as2_message_id);
    assert_eq!(rows[2]["arguments"]["partner"], PARTNER);
    assert_eq!(
        rows[2]["message_ids"],
        serde_json::json!([sent[0].id.to_string(), sent[1].id.to_string()])
    );
    assert!(
        rows[4]["result"]["error"]
            .as_str()
            .is_some_and(|e| e.contains("no-such-message@nowhere")),
        "{}",
        rows[4]
    );
    assert!(rows.iter().all(|r| !r["finished_at"].is_null()), "{log}");

    // Filtered by auditor, as text.
    let bob = cli(&app, &["audit", "access", "--auditor", "bob"]);
    assert!(bob.status.success(), "{bob:?}");
    let text = stdout(&bob);
    assert!(text.contains("bob") && text.contains("search"), "{text}");
    assert!(!text.contains("alice") && !text.contains("fetch"), "{text}");
    // And by period: today's accesses are not tomorrow's.
    let tomorrow = (Utc::now() + chrono::Duration::days(1))
        .format("%Y-%m-%d")
        .to_string();
    let later = json(&cli(
        &app,
        &["audit", "access", "--json", "--from", &tomorrow],
    ));
    assert_eq!(later, serde_json::json!([]));
}

/// The legal hold status S3 reports for each object version of `message` (the
/// `archive_object` rows and the record's original).
async fn holds(app: &TestApp, message: Uuid) -> Vec<(String, bool)> {
    let objects: Vec<(String, Option<String>)> = sqlx::query_as(
        "SELECT object_key, version_id FROM archive_object WHERE message_id = $1
         UNION SELECT object_key, version_id FROM archive_record WHERE message_id = $1",
    )
    .bind(message)
    .fetch_all(&app.pool)
    .await
    .expect("objects");
    assert_eq!(objects.len(), 5, "a plain message's objects");
    let mut holds = Vec::new();
    for (key, version) in objects {
        let answer = app
            .store
            .client()
            .get_object_legal_hold()
            .bucket(&app.s3.bucket)
            .key(&key)
            .set_version_id(version)
            .send()
            .await
            .expect("GetObjectLegalHold");
        let on = answer
            .legal_hold()
            .and_then(|h| h.status())
            .is_some_and(|s| *s == ObjectLockLegalHoldStatus::On);
        holds.push((key, on));
    }
    holds
}

/// Asserts that every object of each message in `on` is held and none of the others'.
async fn assert_held(app: &TestApp, sent: &[Sent], on: &[Uuid]) {
    for message in sent {
        let expected = on.contains(&message.id);
        for (key, held) in holds(app, message.id).await {
            assert_eq!(held, expected, "{key} of {}", message.id);
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn legal_holds_are_set_and_lifted_on_every_object_of_the_selected_messages() {
    let (app, sent) = archive().await;
    let [a1, a2, b] = [sent[0].id, sent[1].id, sent[2].id];
    let today = today();
    assert_held(&app, &sent, &[]).await;

    // One message, by its AS2 Message-ID.
    let on = cli(
        &app,
        &[
            "audit",
            "hold",
            "--on",
            "--message",
            &sent[1].as2_message_id,
            "--auditor",
            "carol",
        ],
    );
    assert!(on.status.success(), "{on:?}");
    assert!(
        stdout(&on).contains("legal hold ON: 5 object(s) of 1 message(s)"),
        "{on:?}"
    );
    assert_held(&app, &sent, &[a2]).await;
    let show = cli(&app, &["audit", "show", &a2.to_string()]);
    assert!(show.status.success(), "{show:?}");
    assert!(
        stdout(&show).contains("legal hold:      ON for all 5 objects"),
        "{show:?}"
    );
    // Lifted again, by the hub's id.
    let off = cli(
        &app,
        &["audit", "hold", "--off", "--message", &a2.to_string()],
    );
    assert!(off.status.success(), "{off:?}");
    assert_held(&app, &sent, &[]).await;

    // A partner's messages.
    let report = json(&cli(
        &app,
        &["audit", "hold", "--on", "--partner", PARTNER, "--json"],
    ));
    assert_eq!(report["status"], "ON");
    assert_eq!(
        report["messages"],
        serde_json::json!([a1.to_string(), a2.to_string()])
    );
    assert_eq!(report["objects"].as_array().map(Vec::len), Some(10));
    assert_held(&app, &sent, &[a1, a2]).await;
    let off = cli(&app, &["audit", "hold", "--off", "--partner", PARTNER]);
    assert!(off.status.success(), "{off:?}");
    assert_held(&app, &sent, &[]).await;

    // A period, and a partner within a period.
    let period = cli(
        &app,
        &["audit", "hold", "--on", "--from", EARLIER, "--to", EARLIER],
    );
    assert!(period.status.success(), "{period:?}");
    assert_held(&app, &sent, &[a1]).await;
    let both = cli(
        &app,
        &[
            "audit",
            "hold",
            "--on",
            "--partner",
            OTHER,
            "--from",
            &today,
            "--to",
            &today,
        ],
    );
    assert!(both.status.success(), "{both:?}");
    assert_held(&app, &sent, &[a1, b]).await;

    // Selectors that select nothing sensible are refused, and change nothing.
    for args in [
        vec!["audit", "hold", "--on"],
        vec![
            "audit",
            "hold",
            "--on",
            "--message",
            &sent[1].as2_message_id,
            "--partner",
            PARTNER,
        ],
        vec!["audit", "hold", "--on", "--from", &today],
        vec!["audit", "hold", "--message", &sent[1].as2_message_id],
        vec!["audit", "hold", "--on", "--off", "--partner", PARTNER],
        vec![
            "audit",
            "hold",
            "--on",
            "--message",
            "no-such-message@nowhere",
        ],
    ] {
        let refused = cli(&app, &args);
        assert!(!refused.status.success(), "{args:?}: {refused:?}");
    }
    assert_held(&app, &sent, &[a1, b]).await;

    // Every change is in the access log, with the objects it changed.
    let log = json(&cli(
        &app,
        &["audit", "access", "--json", "--command", "hold"],
    ));
    let rows = log.as_array().expect("rows");
    let changes: Vec<(String, String, i64)> = rows
        .iter()
        .filter(|r| r["outcome"] == "ok")
        .map(|r| {
            (
                r["auditor"].as_str().unwrap_or_default().to_owned(),
                r["arguments"]["status"]
                    .as_str()
                    .unwrap_or_default()
                    .to_owned(),
                r["result"]["objects"].as_i64().unwrap_or(-1),
            )
        })
        .collect();
    let change = |a: &str, s: &str, n: i64| (a.to_owned(), s.to_owned(), n);
    assert_eq!(
        changes,
        vec![
            change("carol", "ON", 5),
            change("os-user", "OFF", 5),
            change("os-user", "ON", 10),
            change("os-user", "OFF", 10),
            change("os-user", "ON", 5),
            change("os-user", "ON", 5),
        ]
    );
    // The unknown message was an access too, and a failed one.
    assert!(
        rows.iter()
            .any(|r| r["outcome"] == "failed"
                && r["arguments"]["message"] == "no-such-message@nowhere"),
        "{log}"
    );
}
