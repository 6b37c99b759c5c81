//! The archive's audit evidence on the real stack (ADR 0006): the objects of each message
//! in the locked bucket, evidence.json, the ledger entry each archived message becomes,
//! redelivery and crash safety, concurrent archivers, and sealing into the bucket.

use crate::smime::{hub_certificates, identity, post, spec};
use chrono::{DateTime, Months, Utc};
use edihub_archive::evidence::EvidenceDocument;
use edihub_archive::{ArchiveStore, Archiver};
use edihub_as2::{Encryption, Mic, MicAlg, SecureMessageSpec, build_secure_message};
use edihub_events::Envelope;
use edihub_ledger::{GENESIS, SealPolicy, Sealer, chain_hash};
use edihub_tests::{PARTNER, TestApp, fixture, fixture_path, spawn_app, spawn_app_with, with_keys};
use sha2::{Digest, Sha256};
use std::process::Command;
use std::time::Duration;
use uuid::Uuid;

const INVOIC: &str = "edifact/invoic-eancom-d96a.edi";

/// One `archive_object` row.
#[derive(Debug, sqlx::FromRow)]
struct ObjectRow {
    kind: String,
    object_key: String,
    version_id: Option<String>,
    sha256: String,
    size: i64,
    retain_until: DateTime<Utc>,
}

/// The `EdiMessageReceived` event of `message_id` as a consumer decodes it, read from
/// the outbox (the relay publishes its payload as the record's value).
pub(crate) async fn received_event(app: &TestApp, message_id: Uuid) -> Envelope {
    let (id, event_type, payload): (Uuid, String, serde_json::Value) = sqlx::query_as(
        "SELECT id, event_type, payload FROM outbox
         WHERE aggregate_id = $1 AND event_type = 'EdiMessageReceived'",
    )
    .bind(message_id.to_string())
    .fetch_one(&app.pool)
    .await
    .expect("the message's event");
    Envelope {
        id,
        event_type,
        source: "test".into(),
        time: None,
        correlation_id: None,
        traceparent: None,
        tracestate: None,
        key: Some(message_id.to_string()),
        data: serde_json::to_vec(&payload).expect("payload"),
    }
}

async fn objects(app: &TestApp, message_id: Uuid) -> Vec<ObjectRow> {
    sqlx::query_as(
        "SELECT kind, object_key, version_id, sha256, size, retain_until FROM archive_object
         WHERE message_id = $1 ORDER BY kind",
    )
    .bind(message_id)
    .fetch_all(&app.pool)
    .await
    .expect("archive objects")
}

fn kinds(rows: &[ObjectRow]) -> Vec<&str> {
    rows.iter().map(|r| r.kind.as_str()).collect()
}

async fn fetch(app: &TestApp, row: &ObjectRow) -> Vec<u8> {
    app.store
        .get(&row.object_key, row.version_id.as_deref())
        .await
        .expect("object in S3")
}

async fn document(app: &TestApp, rows: &[ObjectRow]) -> (Vec<u8>, EvidenceDocument) {
    let row = rows
        .iter()
        .find(|r| r.kind == "evidence")
        .expect("evidence.json");
    let bytes = fetch(app, row).await;
    let document = serde_json::from_slice(&bytes).expect("evidence.json parses");
    (bytes, document)
}

fn sha256_hex(bytes: &[u8]) -> String {
    hex::encode(Sha256::digest(bytes))
}

/// Posts a signed and encrypted message from the test partner; returns its AS2
/// Message-ID and the MIC its MDN must report.
async fn post_secure(app: &TestApp, payload: &[u8]) -> (String, Mic) {
    let partner = identity("partner-a");
    let hub = hub_certificates();
    let id = format!("{}@acme", Uuid::new_v4());
    let built = build_secure_message(&SecureMessageSpec {
        plain: spec(&id, payload),
        compress: false,
        sign: Some((&partner, MicAlg::Sha256)),
        encrypt: Some((&hub[0], Encryption::Aes256Cbc)),
        boundary: "----=_evidence_signed",
        now_unix: 1_800_000_000,
    })
    .expect("build");
    post(app, &built.message.headers, built.message.body).await;
    (id, built.expected_mic)
}

/// The signed entity's two parts: the signed content (the first part, headers and body,
/// byte for byte) and the signature (DER).
fn split_signed(entity: &[u8]) -> (Vec<u8>, Vec<u8>) {
    use base64::Engine;
    let text = String::from_utf8_lossy(entity);
    let boundary = text
        .split("boundary=\"")
        .nth(1)
        .and_then(|rest| rest.split('"').next())
        .expect("a quoted boundary");
    let delimiter = format!("\r\n--{boundary}");
    let opening = format!("--{boundary}\r\n");
    let start = find(entity, opening.as_bytes()) + opening.len();
    let end = start + find(&entity[start..], delimiter.as_bytes());
    let content = entity[start..end].to_vec();
    let rest = &entity[end + delimiter.len()..];
    let body = &rest[find(rest, b"\r\n\r\n") + 4..];
    let body = &body[..find(body, delimiter.as_bytes())];
    let base64: Vec<u8> = body
        .iter()
        .copied()
        .filter(|b| !b.is_ascii_whitespace())
        .collect();
    let signature = base64::engine::general_purpose::STANDARD
        .decode(base64)
        .expect("base64 signature");
    (content, signature)
}

fn find(haystack: &[u8], needle: &[u8]) -> usize {
    haystack
        .windows(needle.len())
        .position(|w| w == needle)
        .expect("delimiter present")
}

/// `openssl cms -verify` of the archived signature over the archived signed content,
/// against the partner's certificate only (no chain: `-noverify`; no embedded
/// certificates: `-nointern`). Detached, because OpenSSL's S/MIME reader rewrites bare
/// LF line ends of a binary part to CRLF, which breaks the digest of such a payload when
/// the whole entity is given with `-in` (the ADR's one-command form works only for
/// CRLF content).
fn openssl_verify(content: &[u8], signature: &[u8]) -> Result<(), String> {
    let dir = std::env::temp_dir().join(format!("edihub-evidence-{}", Uuid::new_v4()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let (content_file, signature_file) = (dir.join("content"), dir.join("signature.der"));
    std::fs::write(&content_file, content).expect("write content");
    std::fs::write(&signature_file, signature).expect("write signature");
    let output = Command::new("openssl")
        .args([
            "cms",
            "-verify",
            "-binary",
            "-inform",
            "DER",
            "-nointern",
            "-noverify",
        ])
        .arg("-certfile")
        .arg(fixture_path("as2/partner-a.crt"))
        .arg("-in")
        .arg(&signature_file)
        .arg("-content")
        .arg(&content_file)
        .args(["-out", "/dev/null"])
        .output()
        .expect("run openssl");
    let _ = std::fs::remove_dir_all(&dir);
    if output.status.success() {
        Ok(())
    } else {
        Err(String::from_utf8_lossy(&output.stderr).into_owned())
    }
}

fn partner_fingerprint() -> String {
    let x509 = openssl::x509::X509::from_pem(&fixture("as2/partner-a.crt")).expect("partner");
    sha256_hex(&x509.to_der().expect("der"))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_signed_encrypted_message_leaves_six_locked_objects_that_prove_it() {
    let app = spawn_app_with(with_keys(true, true)).await;
    let (as2_id, expected_mic) = post_secure(&app, &fixture(INVOIC)).await;
    let id = app.journal_id(&as2_id).await;
    let archiver = Archiver::new(app.pool.clone(), app.store.clone(), "archive-test");
    assert!(
        archiver
            .archive(&received_event(&app, id).await)
            .await
            .expect("archive")
    );

    let rows = objects(&app, id).await;
    assert_eq!(
        kinds(&rows),
        [
            "evidence",
            "mdn",
            "payload",
            "request-body",
            "request-headers",
            "signed-entity"
        ]
    );
    let received_at: DateTime<Utc> =
        sqlx::query_scalar("SELECT received_at FROM edi_message WHERE id = $1")
            .bind(id)
            .fetch_one(&app.pool)
            .await
            .expect("received_at");
    let until = received_at
        .checked_add_months(Months::new(120))
        .expect("date");
    let day = received_at.format("%Y/%m/%d");
    let (json, document) = document(&app, &rows).await;
    for row in &rows {
        let expected_key = match row.kind.as_str() {
            "payload" => format!("originals/{day}/{id}.edi"),
            kind => {
                let file = edihub_archive::evidence::file_name(kind).expect("a known kind");
                format!("evidence/{day}/{id}/{file}")
            }
        };
        assert_eq!(row.object_key, expected_key);
        let (mode, locked_until) = app
            .store
            .retention(&row.object_key, row.version_id.as_deref())
            .await
            .expect("HeadObject");
        assert_eq!(mode.as_deref(), Some("COMPLIANCE"), "{}", row.kind);
        assert_eq!(locked_until.map(|t| t.timestamp()), Some(until.timestamp()));
        assert_eq!(row.retain_until.timestamp(), until.timestamp());
        let bytes = fetch(&app, row).await;
        assert_eq!(sha256_hex(&bytes), row.sha256, "{}", row.kind);
        assert_eq!(bytes.len() as i64, row.size);
        if row.kind != "evidence" {
            let listed = document
                .objects
                .iter()
                .find(|o| o.kind == row.kind)
                .expect("listed in evidence.json");
            assert_eq!(
                (&listed.sha256, listed.size),
                (&row.sha256, row.size as u64)
            );
        }
    }

    let signature = document.signature.as_ref().expect("signed");
    assert_eq!(signature.certificate_sha256, partner_fingerprint());
    assert_eq!(signature.digest, "sha-256");
    assert_eq!(
        document.encryption.as_ref().map(|e| e.algorithm.as_str()),
        Some(Encryption::Aes256Cbc.as_str())
    );
    let mdn = document.mdn.as_ref().expect("an MDN");
    assert_eq!(mdn.received_content_mic, expected_mic.header_value());
    assert_eq!(document.ids.invoice_numbers, ["INV-2026-0001"]);
    let seq: i64 = sqlx::query_scalar("SELECT seq FROM ledger_entry WHERE message_id = $1")
        .bind(id)
        .fetch_one(&app.pool)
        .await
        .expect("ledger entry");
    assert_eq!(document.ledger.seq, seq);
    let record: (Option<String>, Vec<String>) = sqlx::query_as(
        "SELECT as2_message_id, invoice_numbers FROM archive_record WHERE message_id = $1",
    )
    .bind(id)
    .fetch_one(&app.pool)
    .await
    .expect("archive record");
    assert_eq!(record, (Some(as2_id), vec!["INV-2026-0001".to_owned()]));
    assert!(!json.is_empty());

    // Anyone re-verifies the partner's signature with a standard tool, and the MIC the
    // hub acknowledged is the one over the content so verified.
    let entity = rows
        .iter()
        .find(|r| r.kind == "signed-entity")
        .expect("entity");
    let (content, signature) = split_signed(&fetch(&app, entity).await);
    openssl_verify(&content, &signature).expect("openssl verifies the partner's signature");
    let mut altered = content.clone();
    let last = altered.len() - 2;
    altered[last] ^= 1;
    assert!(
        openssl_verify(&altered, &signature).is_err(),
        "the check can fail"
    );
    assert_eq!(
        Mic::compute(MicAlg::Sha256, &content).header_value(),
        mdn.received_content_mic
    );
    let mdn_row = rows.iter().find(|r| r.kind == "mdn").expect("mdn.eml");
    let eml = String::from_utf8(fetch(&app, mdn_row).await).expect("text MDN");
    assert!(eml.contains("\r\n\r\n"), "headers, a blank line, the body");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_unsigned_unencrypted_message_has_no_signed_entity_and_says_so() {
    let app = spawn_app().await;
    let as2_id = format!("{}@acme", Uuid::new_v4());
    assert_eq!(
        app.post_as2(PARTNER, &as2_id, &fixture(INVOIC))
            .await
            .status,
        200
    );
    let id = app.journal_id(&as2_id).await;
    let archiver = Archiver::new(app.pool.clone(), app.store.clone(), "archive-test");
    assert!(
        archiver
            .archive(&received_event(&app, id).await)
            .await
            .expect("archive")
    );

    let rows = objects(&app, id).await;
    assert_eq!(
        kinds(&rows),
        [
            "evidence",
            "mdn",
            "payload",
            "request-body",
            "request-headers"
        ]
    );
    let (json, document) = document(&app, &rows).await;
    let raw: serde_json::Value = serde_json::from_slice(&json).expect("json");
    assert_eq!(raw["signature"], serde_json::Value::Null);
    assert_eq!(raw["encryption"], serde_json::Value::Null);
    assert!(document.remarks.iter().any(|r| r.starts_with("not signed")));
    assert!(
        document
            .remarks
            .iter()
            .any(|r| r.starts_with("not encrypted"))
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_redelivery_archives_once_and_a_crash_before_the_commit_keeps_the_position() {
    let app = spawn_app().await;
    let mut events = Vec::new();
    for _ in 0..2 {
        let as2_id = format!("{}@acme", Uuid::new_v4());
        assert_eq!(
            app.post_as2(PARTNER, &as2_id, &fixture(INVOIC))
                .await
                .status,
            200
        );
        events.push(received_event(&app, app.journal_id(&as2_id).await).await);
    }
    let archiver = Archiver::new(app.pool.clone(), app.store.clone(), "archive-test");

    // The same event twice: one record, one entry.
    assert!(archiver.archive(&events[0]).await.expect("first delivery"));
    assert!(!archiver.archive(&events[0]).await.expect("redelivery"));
    assert_eq!(app.count("SELECT count(*) FROM archive_record").await, 1);
    assert_eq!(app.count("SELECT count(*) FROM ledger_entry").await, 1);

    // A crash after the append and the PUTs, before the commit: the entry stays,
    // unstored; the redelivery reuses its position and rebuilds the same evidence.
    let crashed = archiver
        .archive_without_commit(&events[1])
        .await
        .expect("staged")
        .expect("not a duplicate");
    assert_eq!(crashed.seq, 2);
    assert_eq!(app.count("SELECT count(*) FROM archive_record").await, 1);
    assert_eq!(
        app.count("SELECT count(*) FROM ledger_entry WHERE stored_at IS NULL")
            .await,
        1
    );
    assert!(archiver.archive(&events[1]).await.expect("redelivered"));
    assert_eq!(app.count("SELECT count(*) FROM ledger_entry").await, 2);
    assert_eq!(
        app.count("SELECT count(*) FROM ledger_entry WHERE stored_at IS NULL")
            .await,
        0
    );
    let second = events[1]
        .key
        .as_deref()
        .expect("key")
        .parse()
        .expect("uuid");
    let rows = objects(&app, second).await;
    let (_, document) = document(&app, &rows).await;
    assert_eq!(document.ledger.seq, crashed.seq);
    assert_eq!(document.ledger.chained_at, crashed.chained_at);
    // The evidence.json PUT twice has the same bytes in both versions.
    let evidence = rows
        .iter()
        .find(|r| r.kind == "evidence")
        .expect("evidence");
    let versions = app.object_versions(&evidence.object_key).await;
    assert_eq!(versions.len(), 2);
    for version in &versions {
        let bytes = app
            .store
            .get(&evidence.object_key, version.version_id())
            .await
            .expect("version");
        assert_eq!(sha256_hex(&bytes), evidence.sha256);
    }
}

/// Archives `events` with `archiver`, a few at a time.
async fn archive_all(archiver: &Archiver, events: &[Envelope]) {
    use futures::StreamExt;
    let results: Vec<bool> = futures::stream::iter(events)
        .map(|event| async move { archiver.archive(event).await.expect("archive") })
        .buffer_unordered(4)
        .collect()
        .await;
    assert!(results.into_iter().all(|archived| archived));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_archivers_at_once_make_one_gapless_chain_that_seals_into_the_bucket() {
    const MESSAGES: usize = 32;
    let app = spawn_app().await;
    let mut events = Vec::new();
    for _ in 0..MESSAGES {
        let as2_id = format!("{}@acme", Uuid::new_v4());
        assert_eq!(
            app.post_as2(PARTNER, &as2_id, &fixture(INVOIC))
                .await
                .status,
            200
        );
        events.push(received_event(&app, app.journal_id(&as2_id).await).await);
    }
    let pool = || async { edihub_db::pool(&app.database).expect("pool") };
    let first = Archiver::new(pool().await, ArchiveStore::new(&app.s3), "archive-test");
    let second = Archiver::new(pool().await, ArchiveStore::new(&app.s3), "archive-test");
    let (odd, even): (Vec<_>, Vec<_>) = events
        .iter()
        .cloned()
        .enumerate()
        .partition(|(i, _)| i % 2 == 1);
    let odd: Vec<Envelope> = odd.into_iter().map(|(_, e)| e).collect();
    let even: Vec<Envelope> = even.into_iter().map(|(_, e)| e).collect();
    tokio::join!(archive_all(&first, &odd), archive_all(&second, &even));

    let entries = edihub_ledger::entries(&app.pool, 1, MESSAGES as i64)
        .await
        .expect("entries");
    let seqs: Vec<i64> = entries.iter().map(|e| e.seq).collect();
    assert_eq!(seqs, (1..=MESSAGES as i64).collect::<Vec<_>>());
    let mut previous = GENESIS;
    for entry in &entries {
        assert_eq!(
            entry.hash,
            chain_hash(&previous, &entry.canonical),
            "link {}",
            entry.seq
        );
        assert!(entry.stored_at.is_some());
        previous = entry.hash;
    }

    let key = edihub_as2::Identity::from_pem(&fixture("as2/hub.crt"), &fixture("as2/hub.key"))
        .expect("sealing key");
    let policy = SealPolicy {
        max_entries: 1000,
        max_wait: Duration::from_secs(3600),
        timestamp_url: None,
    };
    let sealer = Sealer::new(app.pool.clone(), app.store.clone(), key, policy);
    let sealed = sealer
        .seal_now(Utc::now())
        .await
        .expect("seal")
        .expect("a segment");
    assert_eq!((sealed.first_seq, sealed.last_seq), (1, MESSAGES as i64));
    assert_eq!(sealed.head, previous);
    let segments = edihub_ledger::segments(&app.pool, 1)
        .await
        .expect("segments");
    assert_eq!(segments.len(), 1);
    let objects = &segments[0].objects;
    for object in [&objects.entries, &objects.manifest, &objects.signature] {
        assert!(object.key.starts_with(&sealed.prefix), "{}", object.key);
        let bytes = app
            .store
            .get(&object.key, object.version_id.as_deref())
            .await
            .expect("segment object");
        assert_eq!(sha256_hex(&bytes), object.sha256);
        let (mode, until) = app
            .store
            .retention(&object.key, object.version_id.as_deref())
            .await
            .expect("HeadObject");
        assert_eq!(mode.as_deref(), Some("COMPLIANCE"));
        assert!(until.is_some_and(|t| t > Utc::now()));
    }
    let lines = app
        .store
        .get(&objects.entries.key, objects.entries.version_id.as_deref())
        .await
        .expect("entries.jsonl");
    let lines: Vec<&[u8]> = lines
        .split(|b| *b == b'\n')
        .filter(|l| !l.is_empty())
        .collect();
    let expected: Vec<&[u8]> = entries.iter().map(|e| e.canonical.as_slice()).collect();
    assert_eq!(
        lines, expected,
        "entries.jsonl carries the canonical bytes verbatim"
    );
}
