//! The auditor's checks on the real stack (`docs/adr/0006-audit-evidence-and-ledger.md`):
//! an archive of signed, encrypted and plain messages, sealed, verifies without a
//! discrepancy; each way of tampering with it (an object, a row, an entry, a segment) is
//! named precisely; and `edihub audit show|verify|seal` exit as they should.

use crate::smime::{hub_certificates, identity, post, spec};
use chrono::{Duration as Days, Utc};
use edihub_archive::verify::{
    Anchors, CheckContext, PeriodReport, Verdict, check_message, verify_period,
};
use edihub_as2::{Encryption, MicAlg, SecureMessageSpec, build_secure_message};
use edihub_tests::{
    PARTNER, TestApp, fixture_path, numbered_invoic, spawn_app_with, wait_for, with_keys,
};
use std::process::Command;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;
use uuid::Uuid;

static NEXT: AtomicUsize = AtomicUsize::new(1);

/// How a test message is sent.
#[derive(Clone, Copy)]
pub(crate) enum Sent {
    Plain,
    Signed,
    SignedEncrypted,
}

/// Posts one message; returns its hub id.
pub(crate) async fn send(app: &TestApp, how: Sent) -> Uuid {
    let as2_message_id = format!("{}@acme", Uuid::new_v4());
    // A payload of its own: the same signed content twice would be a replay.
    let payload = numbered_invoic(NEXT.fetch_add(1, Ordering::Relaxed));
    match how {
        Sent::Plain => {
            let response = app.post_as2(PARTNER, &as2_message_id, &payload).await;
            assert_eq!(response.status, 200);
        }
        Sent::Signed | Sent::SignedEncrypted => {
            let partner = identity("partner-a");
            let hub = hub_certificates();
            let built = build_secure_message(&SecureMessageSpec {
                plain: spec(&as2_message_id, &payload),
                compress: false,
                sign: Some((&partner, MicAlg::Sha256)),
                encrypt: matches!(how, Sent::SignedEncrypted)
                    .then(|| (&hub[0], Encryption::Aes256Cbc)),
                boundary: "----=_audit_verify",
                now_unix: Utc::now().timestamp(),
            })
            .expect("build");
            let response = post(app, &built.message.headers, built.message.body).await;
            let mdn = edihub_as2::read_mdn(response.content_type(), &response.body, &hub)
                .expect("a signed MDN");
            assert_eq!(mdn.report.disposition, edihub_as2::Disposition::Processed);
        }
    }
    app.journal_id(&as2_message_id).await
}

/// Publishes what waits and waits until `count` ledger entries are stored.
pub(crate) async fn archived(app: &TestApp, count: i64) {
    app.drain_outbox().await;
    wait_for("the archived entries", Duration::from_secs(60), || async {
        let stored = app
            .count("SELECT count(*) FROM ledger_entry WHERE stored_at IS NOT NULL")
            .await;
        (stored >= count).then_some(())
    })
    .await;
}

/// Waits until every entry is in a segment: the archive consumer seals what waits
/// after a second (`edihub_tests::archive_settings`).
pub(crate) async fn sealed(app: &TestApp) {
    wait_for("every entry sealed", Duration::from_secs(30), || async {
        let entries = app.count("SELECT count(*) FROM ledger_entry").await;
        let sealed = app
            .count("SELECT coalesce(max(last_seq), 0) FROM ledger_segment")
            .await;
        (sealed == entries).then_some(())
    })
    .await;
}

/// Four messages, archived and sealed as they come (in one segment or more): a signed
/// and encrypted one, a plain one, a signed one, a plain one. Returns the hub ids in that
/// order. Everything is sealed on return, so the archive consumer's own sealer, which
/// keeps running, has nothing left to change under a test.
async fn archive() -> (TestApp, Vec<Uuid>) {
    let app = spawn_app_with(with_keys(false, false)).await;
    app.start_consumers();
    let mut ids = vec![
        send(&app, Sent::SignedEncrypted).await,
        send(&app, Sent::Plain).await,
    ];
    archived(&app, 2).await;
    sealed(&app).await;
    ids.push(send(&app, Sent::Signed).await);
    archived(&app, 3).await;
    sealed(&app).await;
    ids.push(send(&app, Sent::Plain).await);
    archived(&app, 4).await;
    sealed(&app).await;
    (app, ids)
}

fn context() -> CheckContext {
    CheckContext {
        hub_certificates: hub_certificates(),
    }
}

pub(crate) async fn verify(app: &TestApp) -> PeriodReport {
    let sealing = hub_certificates()[0].to_der().expect("DER");
    let now = Utc::now();
    verify_period(
        &app.pool,
        &app.store,
        &context(),
        now - Days::days(1)..now + Days::days(1),
        Anchors {
            sealing_certificate: &sealing,
            tsa_certificate: None,
        },
        &|_, _| {},
    )
    .await
    .expect("verification runs")
}

/// Asserts that some discrepancy contains every one of `parts`.
fn assert_named(report: &PeriodReport, parts: &[&str]) {
    assert!(
        report
            .discrepancies
            .iter()
            .any(|d| parts.iter().all(|p| d.contains(p))),
        "no discrepancy names {parts:?}; found: {:#?}",
        report.discrepancies
    );
}

/// `(object_key, version_id, sha256)` of a message's object.
async fn object(app: &TestApp, message_id: Uuid, kind: &str) -> (String, String, String) {
    let (key, version, sha256): (String, Option<String>, String) = sqlx::query_as(
        "SELECT object_key, version_id, sha256 FROM archive_object
         WHERE message_id = $1 AND kind = $2",
    )
    .bind(message_id)
    .bind(kind)
    .fetch_one(&app.pool)
    .await
    .expect("archive_object row");
    (key, version.expect("versioned bucket"), sha256)
}

/// Stores `bytes` as a new version under `key`; returns its version id.
async fn put_version(app: &TestApp, key: &str, bytes: Vec<u8>) -> String {
    app.store
        .put_locked_as(
            key,
            bytes,
            "application/octet-stream",
            Utc::now() + Days::days(1),
        )
        .await
        .expect("PUT")
        .expect("version id")
}

async fn fetched(app: &TestApp, key: &str, version: &str) -> Vec<u8> {
    app.store.get(key, Some(version)).await.expect("GET")
}

fn flipped(mut bytes: Vec<u8>) -> Vec<u8> {
    if let Some(byte) = bytes.get_mut(10) {
        *byte ^= 0x01;
    }
    bytes
}

/// The `segment first-last` label of the segment holding `seq`.
async fn segment_label(app: &TestApp, seq: i64) -> String {
    let (first, last): (i64, i64) = sqlx::query_as(
        "SELECT first_seq, last_seq FROM ledger_segment WHERE first_seq <= $1 AND last_seq >= $1",
    )
    .bind(seq)
    .fetch_one(&app.pool)
    .await
    .expect("segment row");
    format!("segment {first}-{last}")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_sealed_archive_verifies_without_discrepancies() {
    let (app, ids) = archive().await;
    let seen = std::sync::Mutex::new(Vec::new());
    let sealing = hub_certificates()[0].to_der().expect("DER");
    let now = Utc::now();
    let report = verify_period(
        &app.pool,
        &app.store,
        &context(),
        now - Days::days(1)..now + Days::days(1),
        Anchors {
            sealing_certificate: &sealing,
            tsa_certificate: None,
        },
        &|done, total| seen.lock().expect("lock").push((done, total)),
    )
    .await
    .expect("verification runs");
    assert!(report.passed(), "{:#?}", report.discrepancies);
    assert_eq!(report.summary.messages, 4);
    // Six objects for each signed message, five for each unsigned one.
    assert_eq!(report.summary.objects, 6 + 5 + 6 + 5);
    assert!(report.summary.segments >= 2, "{:?}", report.summary);
    assert_eq!(seen.lock().expect("lock").last(), Some(&(4, 4)));
    assert!(
        !report.notes.iter().any(|n| n.contains("not sealed yet")),
        "{:#?}",
        report.notes
    );

    // One message's checks, as `audit show` prints them.
    let signed = check_message(&app.pool, &app.store, &context(), ids[0])
        .await
        .expect("check");
    assert!(signed.passed(), "{:#?}", signed.checks);
    assert!(signed.signer.is_some());
    let document = signed.evidence.as_ref().expect("evidence.json");
    assert!(document.signature.is_some() && document.encryption.is_some());
    let place = signed.ledger.as_ref().expect("ledger place");
    assert_eq!(place.seq, document.ledger.seq);
    assert!(place.segment.is_some(), "sealed");
    for object in &signed.objects {
        assert_eq!(object.retention_mode.as_deref(), Some("COMPLIANCE"));
        assert_eq!(object.actual_sha256.as_ref(), Some(&object.recorded_sha256));
    }
    let plain = check_message(&app.pool, &app.store, &context(), ids[1])
        .await
        .expect("check");
    assert!(plain.passed(), "{:#?}", plain.checks);
    let signature = plain
        .checks
        .iter()
        .find(|c| c.name == "partner signature")
        .expect("signature check");
    assert!(matches!(&signature.verdict, Verdict::Note(r) if r.contains("not signed")));
    assert_eq!(plain.objects.len(), 5);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_flipped_sha_in_an_object_row_is_caught_against_s3_and_the_ledger() {
    let (app, ids) = archive().await;
    let (key, _, sha256) = object(&app, ids[1], "payload").await;
    let forged = format!(
        "{}{}",
        if sha256.starts_with('0') { '1' } else { '0' },
        &sha256[1..]
    );
    sqlx::query("UPDATE archive_object SET sha256 = $1 WHERE message_id = $2 AND kind = 'payload'")
        .bind(&forged)
        .bind(ids[1])
        .execute(&app.pool)
        .await
        .expect("tamper");
    let report = verify(&app).await;
    let message = ids[1].to_string();
    assert_named(
        &report,
        &[
            &message,
            &key,
            &format!("sha256 recorded {forged}"),
            &sha256,
        ],
    );
    assert_named(
        &report,
        &[
            &message,
            &format!("says sha256 {sha256}, archive_object says {forged}"),
        ],
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_changed_byte_in_a_new_version_the_row_points_at_is_caught() {
    let (app, ids) = archive().await;
    let (key, version, sha256) = object(&app, ids[0], "signed-entity").await;
    let forged = flipped(fetched(&app, &key, &version).await);
    let new_version = put_version(&app, &key, forged).await;
    sqlx::query(
        "UPDATE archive_object SET version_id = $1 WHERE message_id = $2 AND kind = 'signed-entity'",
    )
    .bind(&new_version)
    .bind(ids[0])
    .execute(&app.pool)
    .await
    .expect("tamper");
    let report = verify(&app).await;
    assert_named(
        &report,
        &[
            &ids[0].to_string(),
            &key,
            &format!("sha256 recorded {sha256} but S3 version {new_version} hashes to"),
        ],
    );
    assert_named(&report, &[&ids[0].to_string(), "partner signature"]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_removed_ledger_entry_is_a_gap() {
    let (app, _) = archive().await;
    sqlx::query("DELETE FROM ledger_entry WHERE seq = 2")
        .execute(&app.pool)
        .await
        .expect("tamper");
    let report = verify(&app).await;
    assert_named(
        &report,
        &["seq 2: no ledger_entry row (a gap in the chain)"],
    );
    let segment = segment_label(&app, 2).await;
    assert_named(
        &report,
        &[&format!(
            "seq 2: sealed in {segment} but the database has no ledger_entry row"
        )],
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_removed_segment_row_is_a_gap_in_the_sealed_chain() {
    let (app, _) = archive().await;
    let (first, last): (i64, i64) =
        sqlx::query_as("SELECT first_seq, last_seq FROM ledger_segment ORDER BY first_seq LIMIT 1")
            .fetch_one(&app.pool)
            .await
            .expect("first segment");
    sqlx::query("DELETE FROM ledger_segment WHERE first_seq = $1")
        .bind(first)
        .execute(&app.pool)
        .await
        .expect("tamper");
    let report = verify(&app).await;
    assert_named(
        &report,
        &["segment rows: ", &format!("seq {first} to {last} are")],
    );
}

/// Cutting the ledger's tail from the database (its last segment row and entries)
/// leaves a chain that is consistent in itself; the signed segment the bucket still holds
/// (object-locked) names the cut.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_tail_cut_from_the_database_is_caught_against_the_bucket() {
    let (app, _) = archive().await;
    let (first, last): (i64, i64) = sqlx::query_as(
        "SELECT first_seq, last_seq FROM ledger_segment ORDER BY first_seq DESC LIMIT 1",
    )
    .fetch_one(&app.pool)
    .await
    .expect("last segment");
    assert!(first > 1, "the archive seals in more than one segment");
    let mut tx = app.pool.begin().await.expect("tx");
    for statement in [
        "DELETE FROM ledger_segment WHERE first_seq >= $1",
        "DELETE FROM ledger_entry WHERE seq >= $1",
    ] {
        sqlx::query(statement)
            .bind(first)
            .execute(&mut *tx)
            .await
            .expect("tamper");
    }
    tx.commit().await.expect("commit");
    let report = verify(&app).await;
    assert_named(
        &report,
        &[
            "truncated: ",
            &format!("segment {first}-{last}"),
            &format!("ends at seq {}", first - 1),
        ],
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn swapped_canonical_bytes_differ_from_the_signed_segment() {
    let (app, _) = archive().await;
    sqlx::query(
        "UPDATE ledger_entry SET canonical = CASE seq
             WHEN 1 THEN (SELECT canonical FROM ledger_entry WHERE seq = 2)
             ELSE (SELECT canonical FROM ledger_entry WHERE seq = 1) END
         WHERE seq IN (1, 2)",
    )
    .execute(&app.pool)
    .await
    .expect("tamper");
    let report = verify(&app).await;
    for seq in [1, 2] {
        let segment = segment_label(&app, seq).await;
        assert_named(
            &report,
            &[&format!(
                "seq {seq}: the database's canonical bytes differ from {segment}'s"
            )],
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_segment_re_signed_with_another_key_is_caught() {
    let (app, _) = archive().await;
    let (first, last, objects): (i64, i64, serde_json::Value) = sqlx::query_as(
        "SELECT first_seq, last_seq, objects FROM ledger_segment ORDER BY first_seq LIMIT 1",
    )
    .fetch_one(&app.pool)
    .await
    .expect("first segment");
    let text = |path: &str| {
        objects
            .pointer(path)
            .and_then(|v| v.as_str())
            .expect(path)
            .to_owned()
    };
    let manifest = fetched(&app, &text("/manifest/key"), &text("/manifest/version_id")).await;
    let forged = edihub_as2::crypto::sign_detached(
        &identity("partner-a"),
        MicAlg::Sha256,
        &manifest,
        Utc::now().timestamp(),
    )
    .expect("sign");
    let sha256 = edihub_journal::sha256_hex(&forged);
    let version = put_version(&app, &text("/signature/key"), forged).await;
    sqlx::query(
        "UPDATE ledger_segment SET objects = jsonb_set(jsonb_set(objects,
             '{signature,version_id}', to_jsonb($1::text)), '{signature,sha256}', to_jsonb($2::text))
         WHERE first_seq = $3",
    )
    .bind(&version)
    .bind(&sha256)
    .bind(first)
    .execute(&app.pool)
    .await
    .expect("tamper");
    let report = verify(&app).await;
    let label = format!("segment {first}-{last}: ");
    assert!(
        report
            .discrepancies
            .iter()
            .any(|d| d.starts_with(&label) && d.contains("segment.p7s")),
        "{:#?}",
        report.discrepancies
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_object_missing_from_s3_is_caught() {
    let (app, ids) = archive().await;
    let (key, _, _) = object(&app, ids[2], "mdn").await;
    let missing = format!("{key}.gone");
    sqlx::query("UPDATE archive_object SET object_key = $1 WHERE message_id = $2 AND kind = 'mdn'")
        .bind(&missing)
        .bind(ids[2])
        .execute(&app.pool)
        .await
        .expect("tamper");
    let report = verify(&app).await;
    assert_named(
        &report,
        &[&ids[2].to_string(), &missing, "cannot be fetched from S3"],
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_newer_version_slipped_in_under_a_key_is_caught() {
    let (app, ids) = archive().await;
    let (key, version, _) = object(&app, ids[3], "request-body").await;
    let forged = flipped(fetched(&app, &key, &version).await);
    let slipped = put_version(&app, &key, forged).await;
    let report = verify(&app).await;
    assert_named(
        &report,
        &[
            &ids[3].to_string(),
            &key,
            &format!("a newer version {slipped}"),
            &format!("after the recorded version {version}"),
        ],
    );
}

/// A config file for the CLI: the hub's certificate (signed MDNs) and the sealing key.
pub(crate) fn cli_config(dir: &std::path::Path) -> std::path::PathBuf {
    let path = dir.join("edihub.toml");
    let file = |name: &str| fixture_path(&format!("as2/{name}")).display().to_string();
    let toml = format!(
        "[gateway]\nhub_certificate = {:?}\n\n[archive]\nseal_certificate = {:?}\nseal_private_key = {:?}\n",
        file("hub.crt"),
        file("hub.crt"),
        file("hub.key")
    );
    std::fs::write(&path, toml).expect("write config");
    path
}

pub(crate) fn cli(app: &TestApp, config: &std::path::Path, args: &[&str]) -> std::process::Output {
    Command::new(edihub_tests::service_binary("edihub"))
        .args(args)
        .env("EDIHUB_CONFIG", config)
        .env_remove("EDIHUB_HUB_KEY_PASSPHRASE")
        .env("DATABASE_URL", app.database.url.expose())
        .env("S3_BUCKET", &app.s3.bucket)
        .env("RUST_LOG", "warn")
        .output()
        .expect("run edihub")
}

fn stdout(output: &std::process::Output) -> String {
    String::from_utf8_lossy(&output.stdout).into_owned()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_cli_shows_verifies_and_seals_with_exit_codes_that_say_so() {
    let (app, ids) = archive().await;
    let dir = std::env::temp_dir().join(format!("edihub-audit-{}", Uuid::new_v4()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let config = cli_config(&dir);

    let sealed = cli(&app, &config, &["audit", "seal"]);
    assert!(sealed.status.success(), "{sealed:?}");
    let again = cli(&app, &config, &["audit", "seal"]);
    assert_eq!(stdout(&again).trim(), "nothing to seal", "{again:?}");

    let show = cli(&app, &config, &["audit", "show", &ids[0].to_string()]);
    assert!(show.status.success(), "{show:?}");
    let text = stdout(&show);
    assert!(text.contains("OK      partner signature"), "{text}");
    assert!(text.contains("OK      MDN MIC"), "{text}");
    assert!(text.contains("sealed in segment"), "{text}");
    let json = cli(
        &app,
        &config,
        &["audit", "show", &ids[1].to_string(), "--json"],
    );
    assert!(json.status.success(), "{json:?}");
    let parsed: serde_json::Value = serde_json::from_slice(&json.stdout).expect("JSON");
    assert_eq!(parsed["message_id"], ids[1].to_string());

    let today = Utc::now().format("%Y-%m-%d").to_string();
    let period = ["audit", "verify", "--from", &today, "--to", &today];
    let verified = cli(&app, &config, &period);
    assert!(verified.status.success(), "{verified:?}");
    assert!(
        stdout(&verified).contains("discrepancies: 0"),
        "{verified:?}"
    );

    sqlx::query("UPDATE archive_object SET sha256 = repeat('0', 64) WHERE message_id = $1 AND kind = 'payload'")
        .bind(ids[1])
        .execute(&app.pool)
        .await
        .expect("tamper");
    let show = cli(&app, &config, &["audit", "show", &ids[1].to_string()]);
    assert!(!show.status.success(), "{show:?}");
    assert!(stdout(&show).contains("FAILED  object payload"), "{show:?}");
    let verified = cli(&app, &config, &period);
    assert_eq!(verified.status.code(), Some(1), "{verified:?}");
    let stderr = String::from_utf8_lossy(&verified.stderr);
    assert!(stderr.contains(&ids[1].to_string()), "{stderr}");
    let _ = std::fs::remove_dir_all(&dir);
}
