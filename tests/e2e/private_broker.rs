//! A tansu broker of a test's own, on durable `s3://` storage in the stack's moto, so a
//! test can SIGKILL and restart it without disturbing the shared broker on 9092 (which
//! other tests use in parallel and which keeps its data in memory).
//!
//! Started the way `deploy/stack.sh` starts tansu with `EDIHUB_KAFKA_STORAGE=s3`: same
//! binary (`${EDIHUB_TOOLS:-$HOME/.cargo/edihub-tools}/tansu-0.6.0/bin/tansu`), same
//! flags, the object store's `AWS_*` variables, and a bucket created first.

use edihub_config::S3Settings;
use rdkafka::ClientConfig;
use rdkafka::consumer::{BaseConsumer, Consumer};
use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

const TANSU_VERSION: &str = "0.6.0";

/// The cached tansu binary `deploy/stack.sh` installs.
fn tansu_binary() -> PathBuf {
    let tools = std::env::var_os("EDIHUB_TOOLS")
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            PathBuf::from(std::env::var_os("HOME").expect("HOME")).join(".cargo/edihub-tools")
        });
    let path = tools.join(format!("tansu-{TANSU_VERSION}/bin/tansu"));
    assert!(
        path.exists(),
        "{} is missing: run `bash deploy/stack.sh up` first",
        path.display()
    );
    path
}

/// A port nobody listens on right now.
fn free_port() -> u16 {
    let listener = TcpListener::bind("127.0.0.1:0").expect("bind a free port");
    listener.local_addr().expect("local address").port()
}

/// A tansu process of this test, on `s3://<bucket>/`. Killed when dropped.
pub struct PrivateBroker {
    /// `127.0.0.1:<port>`, for `kafka.brokers`.
    pub brokers: String,
    storage: String,
    s3: S3Settings,
    dir: PathBuf,
    child: Option<Child>,
    /// How many times [`PrivateBroker::kill_and_restart`] ran.
    pub restarts: usize,
}

impl Drop for PrivateBroker {
    fn drop(&mut self) {
        if let Some(mut child) = self.child.take() {
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}

impl PrivateBroker {
    /// Creates the bucket `bucket` (plain: no Object Lock, tansu rewrites its metadata
    /// objects) on the S3 server of `s3`, starts tansu on a free port with that bucket as
    /// its storage, and waits until it answers a metadata request. The broker's output
    /// goes to `dir/tansu.log`; `dir` is also its working directory.
    pub async fn start(s3: &S3Settings, bucket: &str, dir: &Path) -> PrivateBroker {
        let store = edihub_archive::ArchiveStore::new(s3);
        store
            .client()
            .create_bucket()
            .bucket(bucket)
            .send()
            .await
            .expect("create the broker's bucket (is the S3 server up?)");
        std::fs::create_dir_all(dir).expect("broker dir");
        let mut broker = PrivateBroker {
            brokers: format!("127.0.0.1:{}", free_port()),
            storage: format!("s3://{bucket}/"),
            s3: s3.clone(),
            dir: dir.to_owned(),
            child: None,
            restarts: 0,
        };
        broker.spawn();
        broker.wait_ready(Duration::from_secs(60)).await;
        broker
    }

    pub fn log_path(&self) -> PathBuf {
        self.dir.join("tansu.log")
    }

    fn spawn(&mut self) {
        let log = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(self.log_path())
            .expect("broker log");
        let url = format!("tcp://{}", self.brokers);
        let endpoint = self
            .s3
            .endpoint
            .clone()
            .unwrap_or_else(|| "http://127.0.0.1:9000".into());
        let mut command = Command::new(tansu_binary());
        // Only what the flags and the variables below say: no profile, session token or
        // endpoint from the caller's environment, no stray `.env` (cwd is `dir`).
        for variable in [
            "AWS_SESSION_TOKEN",
            "AWS_PROFILE",
            "AWS_ENDPOINT_URL",
            "SCHEMA_REGISTRY",
            "OTEL_EXPORTER_OTLP_ENDPOINT",
        ] {
            command.env_remove(variable);
        }
        command
            .current_dir(&self.dir)
            .args(["broker", "--listener-url", &url])
            .args(["--advertised-listener-url", &url])
            .args(["--storage-engine", &self.storage])
            .env("AWS_ENDPOINT", endpoint)
            .env("AWS_ALLOW_HTTP", "true")
            .env("AWS_DEFAULT_REGION", &self.s3.region)
            .env("AWS_REGION", &self.s3.region)
            .env("AWS_ACCESS_KEY_ID", &self.s3.access_key_id)
            .env("AWS_SECRET_ACCESS_KEY", self.s3.secret_access_key.expose())
            .env("RUST_LOG", "warn")
            .stdin(Stdio::null())
            .stdout(Stdio::from(log.try_clone().expect("broker log")))
            .stderr(Stdio::from(log));
        self.child = Some(command.spawn().expect("start tansu"));
    }

    /// SIGKILLs the broker, starts it again on the same port and storage, and waits
    /// until it answers again. Returns how long it was unavailable.
    pub async fn kill_and_restart(&mut self) -> Duration {
        let started = Instant::now();
        if let Some(mut child) = self.child.take() {
            child.kill().expect("SIGKILL tansu"); // Child::kill sends SIGKILL
            let _ = child.wait();
        }
        self.spawn();
        self.wait_ready(Duration::from_secs(60)).await;
        self.restarts += 1;
        started.elapsed()
    }

    /// Polls with a real Kafka round trip (a metadata request) until the broker answers.
    async fn wait_ready(&mut self, timeout: Duration) {
        let deadline = Instant::now() + timeout;
        loop {
            if let Some(status) = self
                .child
                .as_mut()
                .and_then(|child| child.try_wait().expect("tansu status"))
            {
                let log = std::fs::read_to_string(self.log_path()).unwrap_or_default();
                let tail: Vec<&str> = log.lines().rev().take(20).collect();
                panic!(
                    "tansu exited during start-up ({status}); last lines of {}:\n{}",
                    self.log_path().display(),
                    tail.into_iter().rev().collect::<Vec<_>>().join("\n")
                );
            }
            let brokers = self.brokers.clone();
            let answered = tokio::task::spawn_blocking(move || {
                let consumer: BaseConsumer = ClientConfig::new()
                    .set("bootstrap.servers", &brokers)
                    .set("log_level", "0")
                    .create()
                    .expect("metadata client");
                consumer
                    .fetch_metadata(None, Duration::from_secs(2))
                    .is_ok()
            })
            .await
            .expect("metadata probe");
            if answered {
                return;
            }
            assert!(
                Instant::now() < deadline,
                "tansu on {} did not answer within {timeout:?}; see {}",
                self.brokers,
                self.log_path().display()
            );
            tokio::time::sleep(Duration::from_millis(200)).await;
        }
    }
}
