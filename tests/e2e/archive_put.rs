//! The archive's locked PUT, which signs and sends its own requests (ADR 0008).
//!
//! moto, with its request authentication on, checks the signatures the way S3 does: it
//! recomputes each with botocore's signer from the IAM key the request names. A recording
//! HTTP server shows what goes on the wire: the key's encoding beside the SDK's, and
//! which refusals are tried again.

use edihub_archive::{ArchiveStore, PutError, StoreError};
use edihub_config::{S3Settings, Secret};
use edihub_tests::{venv_python, wait_for};
use std::net::TcpListener;
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// A moto server of this test's own, which authenticates every request after set-up.
struct AuthenticatingMoto {
    child: Child,
    endpoint: String,
    access_key_id: String,
    secret: String,
}

impl AuthenticatingMoto {
    async fn start() -> Self {
        let port = TcpListener::bind("127.0.0.1:0")
            .and_then(|listener| listener.local_addr())
            .expect("a free port")
            .port();
        let repo = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..");
        let child = Command::new(venv_python())
            .arg(repo.join("deploy/moto_server.py"))
            .args(["-p", &port.to_string(), "--threads", "2"])
            .stdin(Stdio::null())
            .spawn()
            .expect("start moto");
        let endpoint = format!("http://127.0.0.1:{port}");
        // Held before the set-up, so that its Drop stops moto if the set-up panics; the
        // key is filled in once the IAM user exists.
        let mut moto = Self {
            child,
            endpoint,
            access_key_id: String::new(),
            secret: String::new(),
        };
        wait_for("moto to listen", Duration::from_secs(30), || async {
            tokio::net::TcpStream::connect(("127.0.0.1", port))
                .await
                .ok()
                .map(drop)
        })
        .await;
        let output = Command::new(venv_python())
            .arg(repo.join("tests/e2e/archive_put_iam_user.py"))
            .arg(&moto.endpoint)
            .output()
            .expect("run archive_put_iam_user.py");
        assert!(
            output.status.success(),
            "archive_put_iam_user.py: {}",
            String::from_utf8_lossy(&output.stderr)
        );
        let key: serde_json::Value = serde_json::from_slice(&output.stdout).expect("its JSON");
        moto.access_key_id = key["access_key_id"].as_str().expect("key id").to_owned();
        moto.secret = key["secret"].as_str().expect("secret").to_owned();
        moto
    }

    fn settings(&self, bucket: &str, secret: &str) -> S3Settings {
        S3Settings {
            endpoint: Some(self.endpoint.clone()),
            bucket: bucket.to_owned(),
            region: "us-east-1".into(),
            access_key_id: self.access_key_id.clone(),
            secret_access_key: Secret::new(secret),
            force_path_style: true,
            retention_years: 1,
        }
    }
}

impl Drop for AuthenticatingMoto {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn retain_until() -> chrono::DateTime<chrono::Utc> {
    chrono::DateTime::from_timestamp(chrono::Utc::now().timestamp() + 86_400, 0).unwrap()
}

#[tokio::test]
async fn a_server_that_checks_signatures_takes_the_locked_put_and_locks_it() {
    let moto = AuthenticatingMoto::start().await;
    let store = ArchiveStore::new(&moto.settings("signed", &moto.secret));
    store
        .ensure_bucket()
        .await
        .expect("bucket, through the SDK");
    let until = retain_until();
    // moto's verifier fails a key with bytes to encode, for the SDK's PUT as for ours:
    // the encoding is compared with the SDK's below instead.
    let key = "originals/2026/12/07/0190a5b2-0000-7000-8000-000000000001.edi";
    let bytes = b"UNA:+.? 'UNB+UNOC:3+SENDER+HUB'".to_vec();
    let version = store
        .put_locked(key, bytes.clone(), until)
        .await
        .expect("a PUT the server authenticates")
        .expect("a version id");
    assert_eq!(store.get(key, Some(&version)).await.unwrap(), bytes);
    let (mode, held_until) = store.retention(key, Some(&version)).await.unwrap();
    assert_eq!(mode.as_deref(), Some("COMPLIANCE"));
    assert_eq!(held_until, Some(until));
}

#[tokio::test]
async fn a_put_signed_with_another_secret_is_refused_with_s3s_code() {
    let moto = AuthenticatingMoto::start().await;
    let bucket = "refused";
    ArchiveStore::new(&moto.settings(bucket, &moto.secret))
        .ensure_bucket()
        .await
        .expect("bucket, through the SDK");
    let forged = ArchiveStore::new(&moto.settings(bucket, "not-the-secret"));
    let error = forged
        .put_locked("originals/x.edi", b"UNA".to_vec(), retain_until())
        .await
        .expect_err("a signature of another secret");
    let StoreError::Put {
        source: PutError::Rejected(rejection),
        ..
    } = &error
    else {
        panic!("not a refusal: {error}");
    };
    assert_eq!(rejection.status, 403, "{error}");
    assert_eq!(
        rejection.code.as_deref(),
        Some("SignatureDoesNotMatch"),
        "{error}"
    );
    assert!(
        error.to_string().contains("SignatureDoesNotMatch"),
        "{error}"
    );
}

/// One request as it arrived: method, path (still encoded) and headers.
#[derive(Debug, Clone)]
struct Arrived {
    method: String,
    path: String,
    headers: axum::http::HeaderMap,
}

/// An HTTP server that answers the first requests with `refusals` (status and S3 error
/// code), every later one with 200 and a version id, and records each request.
struct WireRecorder {
    endpoint: String,
    arrived: Arc<Mutex<Vec<Arrived>>>,
}

impl WireRecorder {
    async fn start(refusals: Vec<(u16, &'static str)>) -> Self {
        use axum::http::{HeaderMap, Method, StatusCode, Uri};
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let endpoint = format!("http://{}", listener.local_addr().unwrap());
        let arrived: Arc<Mutex<Vec<Arrived>>> = Arc::default();
        let refusals = Arc::new(Mutex::new(refusals.into_iter()));
        let log = Arc::clone(&arrived);
        let answer = move |method: Method, uri: Uri, headers: HeaderMap| {
            let log = Arc::clone(&log);
            let refusals = Arc::clone(&refusals);
            async move {
                log.lock().unwrap().push(Arrived {
                    method: method.to_string(),
                    path: uri.path().to_owned(),
                    headers,
                });
                match refusals.lock().unwrap().next() {
                    Some((status, code)) => (
                        StatusCode::from_u16(status).unwrap(),
                        [("x-amz-version-id", "")],
                        format!("<Error><Code>{code}</Code><Message>test</Message></Error>"),
                    ),
                    None => (StatusCode::OK, [("x-amz-version-id", "v1")], String::new()),
                }
            }
        };
        let router = axum::Router::new().fallback(axum::routing::any(answer));
        tokio::spawn(async move { axum::serve(listener, router).await });
        Self { endpoint, arrived }
    }

    fn store(&self) -> ArchiveStore {
        ArchiveStore::new(&S3Settings {
            endpoint: Some(self.endpoint.clone()),
            bucket: "wire".into(),
            ..S3Settings::default()
        })
    }

    fn arrived(&self) -> Vec<Arrived> {
        self.arrived.lock().unwrap().clone()
    }
}

#[tokio::test]
async fn a_key_is_encoded_on_the_wire_as_the_sdk_encodes_it() {
    let wire = WireRecorder::start(Vec::new()).await;
    let store = wire.store();
    let key = "originals/2026/12/07/a b+c=d,é~(x)&y'z.edi";
    store
        .client()
        .put_object()
        .bucket("wire")
        .key(key)
        .body(b"UNA".to_vec().into())
        .send()
        .await
        .expect("the SDK's PUT");
    let version = store
        .put_locked(key, b"UNA".to_vec(), retain_until())
        .await
        .expect("our PUT");
    assert_eq!(version.as_deref(), Some("v1"));
    let arrived = wire.arrived();
    let [sdk, ours] = arrived.as_slice() else {
        panic!("two requests, not {arrived:?}");
    };
    assert_eq!(
        (ours.method.as_str(), ours.path.as_str()),
        ("PUT", sdk.path.as_str())
    );
    let header = |name: &str| ours.headers.get(name).and_then(|v| v.to_str().ok());
    assert_eq!(header("x-amz-object-lock-mode"), Some("COMPLIANCE"));
    assert_eq!(header("content-md5"), Some("fJt1Q3P+SMXg7jzHPqIg9w=="));
    assert!(
        header("authorization").is_some_and(|a| a.starts_with("AWS4-HMAC-SHA256 Credential=")),
        "{ours:?}"
    );
}

#[tokio::test]
async fn slow_down_and_server_faults_are_tried_again() {
    let wire = WireRecorder::start(vec![(503, "SlowDown"), (500, "InternalError")]).await;
    let version = wire
        .store()
        .put_locked("k.edi", b"UNA".to_vec(), retain_until())
        .await
        .expect("the third attempt passes");
    assert_eq!(version.as_deref(), Some("v1"));
    let arrived = wire.arrived();
    assert_eq!(arrived.len(), 3, "{arrived:?}");
    // Every attempt is signed, over the same body.
    assert!(
        arrived
            .iter()
            .all(|a| a.headers.contains_key("authorization")),
        "{arrived:?}"
    );
    let digests: Vec<_> = arrived
        .iter()
        .map(|a| a.headers.get("x-amz-content-sha256").cloned())
        .collect();
    assert!(
        digests.iter().all(|d| d.is_some() && *d == digests[0]),
        "{digests:?}"
    );
}

#[tokio::test]
async fn a_refusal_of_the_request_itself_is_not_tried_again() {
    let wire = WireRecorder::start(vec![(400, "InvalidRequest"), (200, "")]).await;
    let error = wire
        .store()
        .put_locked("k.edi", b"UNA".to_vec(), retain_until())
        .await
        .expect_err("a request S3 refuses");
    assert!(
        error.to_string().contains("HTTP 400 InvalidRequest: test"),
        "{error}"
    );
    assert_eq!(wire.arrived().len(), 1);
}
