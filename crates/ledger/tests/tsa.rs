//! The sealer against a real RFC 3161 authority: `openssl ts -reply` behind a tiny HTTP
//! server on 127.0.0.1, and the result checked by `verify_segment` and by
//! `openssl ts -verify`.

mod common;

use common::{MemorySink, append, fresh_database, identity, mark_stored, message, now};
use edihub_ledger::verify::{SegmentFiles, verify_segment};
use edihub_ledger::{GENESIS, SealError, SealPolicy, Sealer, segments};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpListener;

/// Runs `openssl` in `dir`, failing loudly when it is missing or refuses.
fn openssl(dir: &Path, args: &[&str]) -> String {
    let output = Command::new("openssl")
        .args(args)
        .current_dir(dir)
        .output()
        .expect("the openssl command is needed for this test: install OpenSSL");
    assert!(
        output.status.success(),
        "openssl {args:?} failed: {}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8_lossy(&output.stdout).into_owned()
}

/// A CA, a TSA certificate it issued (timeStamping, critical) and an openssl.cnf
/// with a `[tsa]` section, in a fresh directory.
struct Authority {
    dir: PathBuf,
}

impl Drop for Authority {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

impl Authority {
    fn new() -> Authority {
        let dir = std::env::temp_dir().join(format!("edihub-tsa-{}", uuid::Uuid::new_v4()));
        std::fs::create_dir_all(&dir).expect("temp dir");
        openssl(
            &dir,
            &[
                "req",
                "-x509",
                "-newkey",
                "rsa:2048",
                "-nodes",
                "-keyout",
                "ca.key",
                "-out",
                "ca.pem",
                "-subj",
                "/CN=edihub test CA",
                "-days",
                "2",
                "-addext",
                "basicConstraints=critical,CA:TRUE",
                "-addext",
                "keyUsage=critical,keyCertSign",
            ],
        );
        openssl(
            &dir,
            &[
                "req",
                "-newkey",
                "rsa:2048",
                "-nodes",
                "-keyout",
                "tsa.key",
                "-out",
                "tsa.csr",
                "-subj",
                "/CN=edihub test TSA",
            ],
        );
        std::fs::write(
            dir.join("tsa-ext.cnf"),
            "basicConstraints=CA:FALSE\nkeyUsage=critical,digitalSignature\n\
             extendedKeyUsage=critical,timeStamping\n",
        )
        .expect("extensions");
        openssl(
            &dir,
            &[
                "x509",
                "-req",
                "-in",
                "tsa.csr",
                "-CA",
                "ca.pem",
                "-CAkey",
                "ca.key",
                "-CAcreateserial",
                "-out",
                "tsa.pem",
                "-days",
                "2",
                "-extfile",
                "tsa-ext.cnf",
            ],
        );
        std::fs::write(dir.join("tsaserial"), "01\n").expect("serial");
        let config = format!(
            "[ tsa ]\ndefault_tsa = tsa_config\n\n[ tsa_config ]\ndir = {}\n\
             serial = $dir/tsaserial\ncrypto_device = builtin\nsigner_cert = $dir/tsa.pem\n\
             signer_key = $dir/tsa.key\nsigner_digest = sha256\ndefault_policy = 1.2.3.4.1\n\
             digests = sha256\naccuracy = secs:1\nordering = no\ntsa_name = yes\n\
             ess_cert_id_chain = no\ness_cert_id_alg = sha256\n",
            dir.display()
        );
        std::fs::write(dir.join("openssl.cnf"), config).expect("config");
        Authority { dir }
    }

    fn der(&self, pem_file: &str) -> Vec<u8> {
        let pem = std::fs::read(self.dir.join(pem_file)).expect("pem");
        openssl::x509::X509::from_pem(&pem)
            .expect("certificate")
            .to_der()
            .expect("der")
    }

    /// `openssl ts -reply` over one request.
    fn reply(&self, query: &[u8]) -> Vec<u8> {
        let name = uuid::Uuid::new_v4().simple().to_string();
        let (query_file, reply_file) = (format!("{name}.tsq"), format!("{name}.tsr"));
        std::fs::write(self.dir.join(&query_file), query).expect("query");
        openssl(
            &self.dir,
            &[
                "ts",
                "-reply",
                "-queryfile",
                &query_file,
                "-config",
                "openssl.cnf",
                "-out",
                &reply_file,
            ],
        );
        std::fs::read(self.dir.join(&reply_file)).expect("reply")
    }
}

/// What the server saw of one request.
#[derive(Debug, Clone)]
struct Seen {
    head: String,
}

/// Serves `answer` (status and body per request body) on 127.0.0.1, one request per
/// connection.
async fn serve<F>(answer: F) -> (url::Url, Arc<Mutex<Vec<Seen>>>)
where
    F: Fn(Vec<u8>) -> (u16, Vec<u8>) + Send + Sync + 'static,
{
    let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind");
    let url = format!("http://{}/tsa", listener.local_addr().expect("address"));
    let seen = Arc::new(Mutex::new(Vec::new()));
    let answer = Arc::new(answer);
    let log = Arc::clone(&seen);
    tokio::spawn(async move {
        while let Ok((mut stream, _)) = listener.accept().await {
            let (answer, log) = (Arc::clone(&answer), Arc::clone(&log));
            tokio::spawn(async move {
                let (head, body) = read_request(&mut stream).await;
                log.lock().expect("log").push(Seen { head });
                let (status, reply) = tokio::task::spawn_blocking(move || answer(body))
                    .await
                    .expect("answer");
                let header = format!(
                    "HTTP/1.1 {status} X\r\nContent-Type: application/timestamp-reply\r\n\
                     Content-Length: {}\r\nConnection: close\r\n\r\n",
                    reply.len()
                );
                stream.write_all(header.as_bytes()).await.expect("write");
                stream.write_all(&reply).await.expect("write");
                stream.shutdown().await.expect("shutdown");
            });
        }
    });
    (url.parse().expect("url"), seen)
}

async fn read_request(stream: &mut tokio::net::TcpStream) -> (String, Vec<u8>) {
    let mut bytes = Vec::new();
    let mut buffer = [0u8; 4096];
    loop {
        if let Some(end) = bytes.windows(4).position(|w| w == b"\r\n\r\n") {
            let head = String::from_utf8_lossy(&bytes[..end]).to_ascii_lowercase();
            let length: usize = head
                .lines()
                .find_map(|l| l.strip_prefix("content-length:"))
                .map(|v| v.trim().parse().expect("length"))
                .unwrap_or(0);
            if bytes.len() >= end + 4 + length {
                return (head, bytes[end + 4..end + 4 + length].to_vec());
            }
        }
        let n = stream.read(&mut buffer).await.expect("read");
        assert!(n > 0, "the client closed before sending its request");
        bytes.extend_from_slice(&buffer[..n]);
    }
}

fn policy(url: url::Url) -> SealPolicy {
    SealPolicy {
        max_entries: 100,
        max_wait: Duration::ZERO,
        timestamp_url: Some(url),
    }
}

async fn stored_entries(pool: &sqlx::PgPool, n: usize) {
    for _ in 0..n {
        let id = message(pool).await;
        append(pool, id, 30).await;
        mark_stored(pool, id).await;
    }
}

#[tokio::test]
async fn a_real_authority_timestamps_the_manifest() {
    let authority = Arc::new(Authority::new());
    let tsa = Arc::clone(&authority);
    let (url, seen) = serve(move |query| (200, tsa.reply(&query))).await;
    let pool = fresh_database().await;
    stored_entries(&pool, 3).await;
    let sink = MemorySink::default();
    let key = identity("sealer");
    let sealing = key.certificate.to_der().expect("der");
    let sealer = Sealer::new(pool.clone(), sink.clone(), key, policy(url));
    let sealed = sealer
        .seal_now(now())
        .await
        .expect("seal")
        .expect("a segment");
    assert!(sealed.timestamped);
    let seen = seen.lock().expect("log").clone();
    assert_eq!(seen.len(), 1);
    assert!(seen[0].head.starts_with("post /tsa "), "{}", seen[0].head);
    assert!(
        seen[0]
            .head
            .contains("content-type: application/timestamp-query")
    );

    let row = &segments(&pool, 1).await.expect("segments")[0];
    let object = |o: &edihub_ledger::StoredObject| sink.latest(&o.key).expect("written").bytes;
    let timestamp = row.objects.timestamp.as_ref().expect("timestamp object");
    assert!(timestamp.key.ends_with("/segment.tsr"));
    let (entries, manifest) = (object(&row.objects.entries), object(&row.objects.manifest));
    let (signature, tsr) = (object(&row.objects.signature), object(timestamp));
    let files = SegmentFiles {
        entries: &entries,
        manifest: &manifest,
        signature: &signature,
        timestamp: Some(&tsr),
    };
    let tsa_der = authority.der("tsa.pem");
    let report = verify_segment(files, &sealing, Some(&tsa_der), GENESIS);
    assert!(report.is_sound(), "{:?}", report.discrepancies);
    assert!(report.timestamped);

    // Signed by someone else than the TSA given: named.
    let report = verify_segment(files, &sealing, Some(&sealing), GENESIS);
    assert!(!report.timestamped);
    assert!(
        report
            .discrepancies
            .iter()
            .any(|d| d.0.contains("segment.tsr: the token's signature")),
        "{:?}",
        report.discrepancies
    );

    // The standard tools agree.
    let dir = &authority.dir;
    std::fs::write(dir.join("segment.json"), &manifest).expect("write");
    std::fs::write(dir.join("segment.tsr"), &tsr).expect("write");
    std::fs::write(dir.join("segment.p7s"), &signature).expect("write");
    std::fs::write(dir.join("sealer.pem"), sealer_pem(&sealing)).expect("write");
    let out = openssl(
        dir,
        &[
            "ts",
            "-verify",
            "-data",
            "segment.json",
            "-in",
            "segment.tsr",
            "-CAfile",
            "ca.pem",
            "-untrusted",
            "tsa.pem",
        ],
    );
    assert!(out.contains("Verification: OK"), "{out}");
    openssl(
        dir,
        &[
            "cms",
            "-verify",
            "-binary",
            "-inform",
            "DER",
            "-in",
            "segment.p7s",
            "-content",
            "segment.json",
            "-certfile",
            "sealer.pem",
            "-nointern",
            "-noverify",
            "-out",
            "/dev/null",
        ],
    );
}

fn sealer_pem(der: &[u8]) -> Vec<u8> {
    openssl::x509::X509::from_der(der)
        .expect("certificate")
        .to_pem()
        .expect("pem")
}

#[tokio::test]
async fn a_refusing_or_foreign_authority_seals_nothing() {
    let authority = Arc::new(Authority::new());
    let pool = fresh_database().await;
    stored_entries(&pool, 1).await;
    let sink = MemorySink::default();

    let (down, _) = serve(|_| (503, b"busy".to_vec())).await;
    let sealer = Sealer::new(pool.clone(), sink.clone(), identity("sealer"), policy(down));
    let outcome = sealer.seal_now(now()).await;
    assert!(
        matches!(outcome, Err(SealError::Timestamp(ref t)) if t.contains("503")),
        "{outcome:?}"
    );

    // A genuine token, but over another request (an old response replayed): refused.
    let tsa = Arc::clone(&authority);
    let other_query = {
        let dir = &authority.dir;
        std::fs::write(dir.join("other.txt"), b"other").expect("write");
        openssl(
            dir,
            &[
                "ts",
                "-query",
                "-data",
                "other.txt",
                "-sha256",
                "-cert",
                "-out",
                "other.tsq",
            ],
        );
        std::fs::read(dir.join("other.tsq")).expect("query")
    };
    let (replaying, _) = serve(move |_| (200, tsa.reply(&other_query))).await;
    let sealer = Sealer::new(
        pool.clone(),
        sink.clone(),
        identity("sealer"),
        policy(replaying),
    );
    let outcome = sealer.seal_now(now()).await;
    assert!(
        matches!(outcome, Err(SealError::Timestamp(ref t)) if t.contains("imprint")),
        "{outcome:?}"
    );

    let rows: i64 = sqlx::query_scalar("SELECT count(*) FROM ledger_segment")
        .fetch_one(&pool)
        .await
        .expect("count");
    assert_eq!(rows, 0);
    assert!(
        sink.puts().is_empty(),
        "nothing is written before the timestamp"
    );
}
