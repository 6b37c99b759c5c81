//! The auditor's export bundle on the real stack (`docs/audit.md`, "Exporting and
//! verifying offline"): a period of signed, encrypted and plain messages, archived and
//! sealed in two segments, exported with `edihub audit export` and checked with
//! `edihub audit verify FILE` without database or S3; each way of tampering with the
//! bundle file (an object's byte, an entry line removed or swapped, a segment's manifest
//! changed, the last segment cut off, with or without index.json rewritten to match, an
//! object removed) fails with a precise message.

use crate::audit_verify::{Sent, archived, cli, cli_config, sealed, send};
use chrono::{Duration as Days, Utc};
use edihub_ledger::SEAL_LOCK_KEY;
use edihub_tests::{TestApp, fixture_path, spawn_app_with, with_keys};
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use uuid::Uuid;

/// Sends `how` with sealing paused (holding the sealer's advisory lock), then lets the archive consumer seal them all in one
/// segment.
async fn one_segment(app: &TestApp, how: &[Sent], ids: &mut Vec<Uuid>) {
    let mut pause = app.pool.acquire().await.expect("connection");
    sqlx::query("SELECT pg_advisory_lock($1)")
        .bind(SEAL_LOCK_KEY)
        .execute(&mut *pause)
        .await
        .expect("pause sealing");
    for sent in how {
        ids.push(send(app, *sent).await);
    }
    archived(app, ids.len() as i64).await;
    sqlx::query("SELECT pg_advisory_unlock($1)")
        .bind(SEAL_LOCK_KEY)
        .execute(&mut *pause)
        .await
        .expect("resume sealing");
    drop(pause);
    sealed(app).await;
}

/// Four messages in two segments, 1-2 (signed and encrypted, plain) and 3-4 (signed,
/// plain). Returns the hub ids in that order.
async fn archive() -> (TestApp, Vec<Uuid>) {
    let app = spawn_app_with(with_keys(false, false)).await;
    app.start_consumers();
    let mut ids = Vec::new();
    one_segment(&app, &[Sent::SignedEncrypted, Sent::Plain], &mut ids).await;
    one_segment(&app, &[Sent::Signed, Sent::Plain], &mut ids).await;
    let segments: Vec<(i64, i64)> =
        sqlx::query_as("SELECT first_seq, last_seq FROM ledger_segment ORDER BY first_seq")
            .fetch_all(&app.pool)
            .await
            .expect("segments");
    assert_eq!(segments, [(1, 2), (3, 4)]);
    (app, ids)
}

/// A scratch directory of the test's own.
fn scratch() -> PathBuf {
    let dir = std::env::temp_dir().join(format!("edihub-export-{}", Uuid::new_v4()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    dir
}

/// `edihub audit verify FILE ARGS` with no usable database or bucket: offline.
fn verify_offline(dir: &Path, bundle: &Path, args: &[&str]) -> Output {
    let config = dir.join("empty.toml");
    std::fs::write(&config, "").expect("write config");
    Command::new(edihub_tests::service_binary("edihub"))
        .args(["audit", "verify"])
        .arg(bundle)
        .args(args)
        .env("EDIHUB_CONFIG", &config)
        .env("DATABASE_URL", "postgres://nobody@127.0.0.1:1/none")
        .env("S3_BUCKET", "no-such-bucket")
        .env("S3_ENDPOINT", "http://127.0.0.1:1")
        .env("RUST_LOG", "warn")
        .output()
        .expect("run edihub")
}

fn text(output: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    )
}

/// Exports the whole of today (and a day either side) to `dir/bundle.tar`.
fn export(app: &TestApp, dir: &Path) -> PathBuf {
    let config = cli_config(dir);
    let bundle = dir.join("bundle.tar");
    let now = Utc::now();
    let (from, to) = (
        (now - Days::days(1)).to_rfc3339(),
        (now + Days::days(1)).to_rfc3339(),
    );
    let args = ["audit", "export", "--from", &from, "--to", &to, "--output"];
    let mut args: Vec<&str> = args.to_vec();
    let path = bundle.display().to_string();
    args.push(&path);
    let output = cli(app, &config, &args);
    assert!(output.status.success(), "{}", text(&output));
    bundle
}

fn sealing_pem() -> String {
    fixture_path("as2/hub.crt").display().to_string()
}

/// The bundle unpacked with plain tar, changed by `tamper`, packed again; then checked
/// offline, which must fail with, for each of `expected`, a discrepancy line naming all
/// its parts. Returns the verification's output.
fn assert_tampering_named(
    dir: &Path,
    bundle: &Path,
    tamper: impl FnOnce(&Path),
    expected: &[&[&str]],
) -> String {
    let unpacked = unpack(bundle, &dir.join(format!("unpacked-{}", Uuid::new_v4())));
    tamper(&unpacked);
    let forged = dir.join(format!("forged-{}.tar", Uuid::new_v4()));
    run_tar(&[
        "-cf",
        &forged.display().to_string(),
        "-C",
        &unpacked.display().to_string(),
        ".",
    ]);
    let output = verify_offline(dir, &forged, &["--seal-certificate", &sealing_pem()]);
    let all = text(&output);
    assert_eq!(output.status.code(), Some(1), "{all}");
    for parts in expected {
        assert!(
            all.lines().any(|line| {
                line.contains("DISCREPANCY") && parts.iter().all(|p| line.contains(p))
            }),
            "no discrepancy names {parts:?}:\n{all}"
        );
    }
    all
}

/// `bundle` extracted with plain tar into `into` (created); returns `into`.
fn unpack(bundle: &Path, into: &Path) -> PathBuf {
    std::fs::create_dir_all(into).expect("dir");
    run_tar(&[
        "-xf",
        &bundle.display().to_string(),
        "-C",
        &into.display().to_string(),
    ]);
    into.to_path_buf()
}

fn run_tar(args: &[&str]) -> String {
    let output = Command::new("tar").args(args).output().expect("run tar");
    assert!(output.status.success(), "tar {args:?}: {}", text(&output));
    String::from_utf8_lossy(&output.stdout).into_owned()
}

/// The directory of segment `first-last` in an unpacked bundle.
fn segment_dir(root: &Path, first: i64, last: i64) -> PathBuf {
    root.join(edihub_ledger::segment_prefix(first, last))
}

/// `(object_key, sha256)` of a message's object, as archived.
async fn object(app: &TestApp, message_id: Uuid, kind: &str) -> (String, String) {
    sqlx::query_as(
        "SELECT object_key, sha256 FROM archive_object WHERE message_id = $1 AND kind = $2",
    )
    .bind(message_id)
    .bind(kind)
    .fetch_one(&app.pool)
    .await
    .expect("archive_object row")
}

/// The message at ledger position `seq` (the archive consumer chains the messages of one
/// segment in whatever order it archives them).
async fn message_at(app: &TestApp, seq: i64) -> Uuid {
    sqlx::query_scalar("SELECT message_id FROM ledger_entry WHERE seq = $1")
        .bind(seq)
        .fetch_one(&app.pool)
        .await
        .expect("ledger entry")
}

fn edit_lines(path: &Path, edit: impl FnOnce(&mut Vec<String>)) {
    let text = std::fs::read_to_string(path).expect("read");
    let mut lines: Vec<String> = text.lines().map(str::to_owned).collect();
    edit(&mut lines);
    let mut out = lines.join("\n");
    out.push('\n');
    std::fs::write(path, out).expect("write");
}

/// README.txt's command for the index, run as written on the unpacked bundle with the
/// sealing certificate, prints "Verification successful".
fn readme_verifies_the_index(dir: &Path, bundle: &Path) {
    let unpacked = unpack(bundle, &dir.join("readme"));
    let readme = std::fs::read_to_string(unpacked.join("README.txt")).expect("README");
    let command = "openssl cms -verify -binary -inform DER -in index.json.p7s -content index.json \\\n       -nointern -certfile seal.pem -noverify -out /dev/null";
    assert!(readme.contains(command), "{readme}");
    std::fs::copy(fixture_path("as2/hub.crt"), unpacked.join("seal.pem")).expect("seal.pem");
    let output = Command::new("sh")
        .arg("-c")
        .arg(command)
        .current_dir(&unpacked)
        .output()
        .expect("run openssl");
    assert!(output.status.success(), "{}", text(&output));
    assert!(
        text(&output).contains("Verification successful"),
        "{}",
        text(&output)
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_exported_period_verifies_offline_and_lists_with_plain_tar() {
    let (app, ids) = archive().await;
    let dir = scratch();
    let bundle = export(&app, &dir);

    let listing = run_tar(&["-tf", &bundle.display().to_string()]);
    let files: Vec<&str> = listing.lines().collect();
    for name in [
        "README.txt",
        "index.json",
        "index.csv",
        "index.json.p7s",
        "certificates/sealing.pem",
    ] {
        assert!(files.contains(&name), "{name} not in {files:#?}");
    }
    for (id, kind) in [
        (ids[0], "signed-entity"),
        (ids[1], "payload"),
        (ids[3], "evidence"),
    ] {
        let (key, _) = object(&app, id, kind).await;
        assert!(files.contains(&key.as_str()), "{key} not in {files:#?}");
    }
    for segment in ["000000000001-000000000002", "000000000003-000000000004"] {
        for file in ["entries.jsonl", "segment.json", "segment.p7s"] {
            let path = format!("ledger/segments/{segment}/{file}");
            assert!(files.contains(&path.as_str()), "{path} not in {files:#?}");
        }
    }
    assert!(
        files
            .iter()
            .any(|f| f.starts_with("certificates/partners/")),
        "{files:#?}"
    );
    // Six objects per signed message, five per plain one.
    let objects = files
        .iter()
        .filter(|f| f.starts_with("originals/") || f.starts_with("evidence/"))
        .count();
    assert_eq!(objects, 6 + 5 + 6 + 5);

    let verified = verify_offline(&dir, &bundle, &["--seal-certificate", &sealing_pem()]);
    let all = text(&verified);
    assert!(verified.status.success(), "{all}");
    assert!(all.contains("messages:      4"), "{all}");
    assert!(all.contains("segments:      2"), "{all}");
    assert!(all.contains("discrepancies: 0"), "{all}");
    assert!(!all.contains("WARNING"), "{all}");

    // Without a certificate of the auditor's own, the bundle's is used, and said loudly.
    let anchored = verify_offline(&dir, &bundle, &["--json"]);
    assert!(anchored.status.success(), "{}", text(&anchored));
    let report: serde_json::Value = serde_json::from_slice(&anchored.stdout).expect("JSON");
    assert_eq!(report["anchor_from_bundle"], true);
    assert!(
        report["sealing_anchor"]
            .as_str()
            .is_some_and(|a| a.contains("TAKEN FROM THE BUNDLE ITSELF")),
        "{report:#}"
    );
    assert_eq!(report["summary"]["messages"], 4);
    assert_eq!(report["summary"]["objects"], 22);

    readme_verifies_the_index(&dir, &bundle);

    let listed = run_tar(&["-xOf", &bundle.display().to_string(), "index.json"]);
    let index: serde_json::Value = serde_json::from_str(&listed).expect("index JSON");
    assert_eq!(index["messages"].as_array().map(Vec::len), Some(4));
    assert_eq!(index["segments"][1]["last_seq"], 4);

    // --partner selects; --json prints the summary.
    let config = cli_config(&dir);
    let other = dir.join("other.tar");
    let today = Utc::now().format("%Y-%m-%d").to_string();
    let output = cli(
        &app,
        &config,
        &[
            "audit",
            "export",
            "--from",
            &today,
            "--to",
            &today,
            "--partner",
            "NOBODY",
            "--output",
            &other.display().to_string(),
            "--json",
        ],
    );
    assert!(output.status.success(), "{}", text(&output));
    let summary: serde_json::Value = serde_json::from_slice(&output.stdout).expect("JSON");
    assert_eq!(summary["messages"], 0);
    let _ = std::fs::remove_dir_all(&dir);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_flipped_byte_in_an_object_is_named_with_both_digests() {
    let (app, ids) = archive().await;
    let dir = scratch();
    let bundle = export(&app, &dir);
    let (key, sha256) = object(&app, ids[1], "payload").await;
    let flip = key.clone();
    assert_tampering_named(
        &dir,
        &bundle,
        move |root| {
            let path = root.join(&flip);
            let mut bytes = std::fs::read(&path).expect("read");
            bytes[10] ^= 0x01;
            std::fs::write(&path, bytes).expect("write");
        },
        &[&[
            &format!(
                "message {}: object {key}: sha256 expected {sha256}, found ",
                ids[1]
            ),
            "(evidence.json)",
        ]],
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_removed_or_swapped_entry_line_is_named() {
    let (app, _) = archive().await;
    let dir = scratch();
    let bundle = export(&app, &dir);
    let second = message_at(&app, 2).await;
    assert_tampering_named(
        &dir,
        &bundle,
        |root| {
            edit_lines(&segment_dir(root, 1, 2).join("entries.jsonl"), |l| {
                l.remove(1);
            })
        },
        &[
            &["segment 1-2: entries.jsonl: seq 2 is missing"],
            &[&format!(
                "message {second}: ledger entry: seq 2 is in no segment of the bundle"
            )],
        ],
    );
    assert_tampering_named(
        &dir,
        &bundle,
        |root| {
            edit_lines(&segment_dir(root, 3, 4).join("entries.jsonl"), |l| {
                l.swap(0, 1)
            })
        },
        &[&["segment 3-4: entries.jsonl: lines 1 and 2 are swapped (seq 4 and seq 3)"]],
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_replaced_segment_manifest_fails_its_signature() {
    let (app, _) = archive().await;
    let dir = scratch();
    let bundle = export(&app, &dir);
    assert_tampering_named(
        &dir,
        &bundle,
        |root| {
            let path = segment_dir(root, 1, 2).join("segment.json");
            let text = std::fs::read_to_string(&path).expect("read");
            let forged = text.replacen("\"sealed_at\": \"2", "\"sealed_at\": \"1", 1);
            assert_ne!(forged, text);
            std::fs::write(&path, forged).expect("write");
        },
        &[&["segment 1-2: segment.p7s: the signature over segment.json does not verify"]],
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_truncated_tail_is_detected_against_the_index() {
    let (app, _) = archive().await;
    let fourth = message_at(&app, 4).await;
    let dir = scratch();
    let bundle = export(&app, &dir);
    let head: Vec<u8> = sqlx::query_scalar("SELECT head FROM ledger_segment WHERE last_seq = 4")
        .fetch_one(&app.pool)
        .await
        .expect("head");
    let head = head.iter().map(|b| format!("{b:02x}")).collect::<String>();
    assert_tampering_named(
        &dir,
        &bundle,
        |root| std::fs::remove_dir_all(segment_dir(root, 3, 4)).expect("remove"),
        &[
            &[&format!(
                "truncated: index.json says the export ends with segment 3-4 (head {head}), \
                 but the bundle's segments end at seq 2"
            )],
            // The cut messages' evidence names positions no segment of the bundle holds.
            &[&format!(
                "message {fourth}: ledger entry: seq 4 is in no segment of the bundle"
            )],
        ],
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// A bundle cut after segment 1-2, its messages at seq 3 and 4 removed and index.json
/// rewritten to match (messages, segments, ledger_head): consistent on its own, so only
/// the index's signature names it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_truncated_tail_with_its_index_rewritten_fails_the_index_signature() {
    let (app, _) = archive().await;
    let cut = [message_at(&app, 3).await, message_at(&app, 4).await];
    let dir = scratch();
    let bundle = export(&app, &dir);
    let all = assert_tampering_named(
        &dir,
        &bundle,
        move |root| {
            std::fs::remove_dir_all(segment_dir(root, 3, 4)).expect("remove segment");
            let path = root.join("index.json");
            let mut index: serde_json::Value =
                serde_json::from_slice(&std::fs::read(&path).expect("read")).expect("JSON");
            let messages = index["messages"].as_array_mut().expect("messages");
            for message in messages
                .iter()
                .filter(|m| cut.iter().any(|c| m["message_id"] == c.to_string()))
            {
                for object in message["objects"].as_array().expect("objects") {
                    let key = object["key"].as_str().expect("key");
                    std::fs::remove_file(root.join(key)).expect("remove object");
                }
            }
            messages.retain(|m| !cut.iter().any(|c| m["message_id"] == c.to_string()));
            assert_eq!(messages.len(), 2);
            let segments = index["segments"].as_array_mut().expect("segments");
            segments.retain(|s| s["last_seq"] == 2);
            let first = segments[0].clone();
            index["ledger_head"] = first;
            let mut json = serde_json::to_vec_pretty(&index).expect("JSON");
            json.push(b'\n');
            std::fs::write(&path, json).expect("write");
        },
        &[&["index.json.p7s: the signature over index.json does not verify"]],
    );
    // Nothing else gives the cut away: without the signature it would pass.
    let discrepancies = all.lines().filter(|l| l.contains("DISCREPANCY")).count();
    assert_eq!(discrepancies, 1, "{all}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_object_or_a_whole_message_missing_from_the_bundle_is_named() {
    let (app, ids) = archive().await;
    let dir = scratch();
    let bundle = export(&app, &dir);
    let (key, _) = object(&app, ids[2], "mdn").await;
    let gone = key.clone();
    assert_tampering_named(
        &dir,
        &bundle,
        move |root| std::fs::remove_file(root.join(&gone)).expect("remove"),
        &[&[&format!(
            "message {}: object {key}: missing from the bundle",
            ids[2]
        )]],
    );
    // A message removed with its objects and its index entry: its sealed entry says so.
    let third = message_at(&app, 3).await;
    assert_tampering_named(
        &dir,
        &bundle,
        move |root| {
            let path = root.join("index.json");
            let mut index: serde_json::Value =
                serde_json::from_slice(&std::fs::read(&path).expect("read")).expect("JSON");
            let messages = index["messages"].as_array_mut().expect("messages");
            messages.retain(|m| m["message_id"] != third.to_string());
            std::fs::write(&path, serde_json::to_vec(&index).expect("JSON")).expect("write");
            let prefix = format!("evidence/{}", Utc::now().format("%Y/%m/%d"));
            let _ = std::fs::remove_dir_all(root.join(prefix).join(third.to_string()));
        },
        &[&[
            &format!("seq 3: message {third} (received "),
            "is sealed in segment 3-4 within the period, but not in index.json",
        ]],
    );
    let _ = std::fs::remove_dir_all(&dir);
}
