//! The integration-test harness: a hub on the real local stack (PostgreSQL, the tansu
//! broker, moto's S3), made unique per test — its own database, topics, consumer groups
//! and bucket — so tests run in parallel and never depend on a clean machine.
//!
//! The stack must be up (`bash deploy/stack.sh up`); `deploy/test.sh` does that first.

pub mod cpu;
pub mod outbound;
pub mod outbox_load;
pub mod tls;

use edihub_archive::ArchiveStore;
use edihub_config::{DatabaseSettings, KafkaSettings, PartnerSettings, S3Settings, Secret};
use edihub_events::Envelope;
use edihub_kafka::KafkaPublisher;
use edihub_kafka::reader::RecordView;
use edihub_outbox::Relay;
use sqlx::{ConnectOptions as _, Connection as _, PgPool};
use std::future::Future;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::str::FromStr as _;
use std::time::{Duration, Instant};
use tokio_util::sync::CancellationToken;
use uuid::Uuid;

/// The partner every test hub knows.
pub const PARTNER: &str = "ACME-SUPPLIER";
/// More plain-AS2 partners, for tests that ingest from many partners.
pub const EXTRA_PARTNERS: [&str; 3] = ["BETA-TRADING", "GAMMA-FOODS", "DELTA-PARTS"];
/// The hub's AS2 name in tests.
pub const HUB: &str = "EDIHUB";

/// The benches' sizes: `name` from the environment, `default` when unset or unreadable.
pub fn env_number<T: std::str::FromStr>(name: &str, default: T) -> T {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// A binary of the workspace (`edihub`, `outbox-relay`, ...) next to the test or bench
/// binary: `target/debug/deps/e2e-<hash>` -> `target/debug/<name>`, and
/// `target/release/deps/...` -> `target/release/<name>` for benches.
pub fn service_binary(name: &str) -> PathBuf {
    let exe = std::env::current_exe().expect("test binary path");
    let dir = exe
        .parent()
        .and_then(|deps| deps.parent())
        .expect("target dir");
    let path = dir.join(name);
    let build = match dir.file_name().and_then(|n| n.to_str()) {
        Some("release") => "`cargo build --release --bins`",
        _ => "`cargo build --bins` (deploy/test.sh does)",
    };
    assert!(
        path.exists(),
        "{} is missing: run {build} first",
        path.display()
    );
    path
}

/// The Python of the venv `bash deploy/stack.sh up` makes (`$EDIHUB_VENV`, default
/// `~/.cache/edihub/venv`), which holds pyas2lib, boto3 and moto. Panics without it:
/// the tests that need it fail, they never skip.
pub fn venv_python() -> PathBuf {
    let venv = std::env::var_os("EDIHUB_VENV")
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            PathBuf::from(std::env::var_os("HOME").unwrap_or_default()).join(".cache/edihub/venv")
        });
    let python = venv.join("bin/python");
    assert!(
        python.exists(),
        "the venv is missing ({} not found): run `bash deploy/stack.sh up` first",
        python.display()
    );
    python
}

/// A project fixture's path, relative to `fixtures/`.
pub fn fixture_path(relative: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../fixtures")
        .join(relative)
}

/// The archive consumer's `[archive]` settings in tests: the fixture hub key seals the
/// ledger, and segments are due after a second.
pub fn archive_settings() -> edihub_config::ArchiveSettings {
    edihub_config::ArchiveSettings {
        seal_certificate: Some(fixture_path("as2/hub.crt")),
        seal_private_key: Some(fixture_path("as2/hub.key")),
        seal_interval_seconds: 1,
        ..Default::default()
    }
}

/// A project fixture's bytes, by path relative to `fixtures/`.
pub fn fixture(relative: &str) -> Vec<u8> {
    let path = fixture_path(relative);
    std::fs::read(&path).unwrap_or_else(|e| panic!("fixture {}: {e}", path.display()))
}

/// Gives the test hub its identity (`fixtures/as2/hub.*`) and the test partner its
/// certificate (`fixtures/as2/partner-a.crt`), with the requirements given. For
/// [`spawn_app_with`].
pub fn with_keys(
    require_signature: bool,
    require_encryption: bool,
) -> impl FnOnce(&mut edihub_config::GatewaySettings) {
    move |gateway| {
        gateway.hub_certificate = Some(fixture_path("as2/hub.crt"));
        gateway.hub_private_key = Some(fixture_path("as2/hub.key"));
        for partner in &mut gateway.partners {
            partner.certificates = vec![fixture_path("as2/partner-a.crt")];
            partner.require_signature = require_signature;
            partner.require_encryption = require_encryption;
        }
    }
}

pub struct TestApp {
    /// The partner port.
    pub address: SocketAddr,
    /// `/metrics`, `/health` and `/ready`.
    pub ops_address: SocketAddr,
    /// `http://127.0.0.1:port`, or `https://localhost:port` for [`spawn_tls_app_with`].
    pub base_url: String,
    pub pool: PgPool,
    pub database: DatabaseSettings,
    pub kafka: KafkaSettings,
    pub s3: S3Settings,
    pub store: ArchiveStore,
    pub suffix: String,
    pub http: reqwest::Client,
    shutdown: CancellationToken,
}

impl TestApp {
    /// Stops the gateway and drops this app's database now, rather than leaving it for
    /// `deploy/test.sh`: for benches, which are run again and again, and whose leftover
    /// databases would slow the next runs (autovacuum visits every one).
    pub async fn drop_database(self) {
        self.shutdown.cancel();
        self.pool.close().await;
        // The name and the maintenance connection as `edihub_db::create_and_migrate`
        // derives them from the same URL.
        let options = sqlx::postgres::PgConnectOptions::from_str(self.database.url.expose())
            .expect("test database URL");
        let name = options.get_database().expect("database name").to_owned();
        let mut admin = options
            .database("postgres")
            .connect()
            .await
            .expect("connect to the postgres database");
        // FORCE: the gateway's own connections may still be closing. The name is
        // this module's own `edihub_test_<hex>`, nothing from outside.
        sqlx::query(sqlx::AssertSqlSafe(format!(
            "DROP DATABASE IF EXISTS \"{name}\" WITH (FORCE)"
        )))
        .execute(&mut admin)
        .await
        .expect("drop the bench database");
        let _ = admin.close().await;
    }
}

impl Drop for TestApp {
    fn drop(&mut self) {
        self.shutdown.cancel();
    }
}

/// An HTTP client for the tests. reqwest has rustls without a crypto provider of its
/// own (see `services/edihub/src/main.rs`), so the process's default is set first.
pub fn http_client() -> reqwest::Client {
    let _ = rustls::crypto::aws_lc_rs::default_provider().install_default();
    reqwest::Client::new()
}

/// What the gateway answered.
pub struct As2Response {
    pub status: reqwest::StatusCode,
    pub headers: reqwest::header::HeaderMap,
    pub body: Vec<u8>,
}

impl As2Response {
    pub fn content_type(&self) -> &str {
        self.headers
            .get("content-type")
            .and_then(|v| v.to_str().ok())
            .unwrap_or_default()
    }
    pub fn mdn(&self) -> edihub_as2::MdnReport {
        edihub_as2::parse_mdn(self.content_type(), &self.body).unwrap_or_else(|e| {
            panic!(
                "not an MDN ({e}): {} {}",
                self.status,
                String::from_utf8_lossy(&self.body)
            )
        })
    }
}

fn database_settings(name: &str) -> DatabaseSettings {
    let base = std::env::var("DATABASE_URL")
        .unwrap_or_else(|_| "postgres://postgres:postgres@127.0.0.1:5432/edihub".into());
    let server = base.rsplit_once('/').map(|(s, _)| s).unwrap_or(&base);
    DatabaseSettings {
        url: Secret::new(format!("{server}/{name}")),
        max_connections: 10,
    }
}

/// A fresh, migrated database (named like every test database, so `deploy/test.sh`
/// drops it afterwards).
pub async fn fresh_database() -> PgPool {
    let suffix = Uuid::new_v4().simple().to_string()[..12].to_owned();
    let database = database_settings(&format!("edihub_test_{suffix}"));
    edihub_db::create_and_migrate(&database)
        .await
        .expect("create and migrate the test database (is PostgreSQL up?)");
    edihub_db::pool(&database).expect("pool")
}

/// Starts a gateway on a fresh database, with fresh topics and a fresh bucket.
pub async fn spawn_app() -> TestApp {
    spawn_app_with(|_| {}).await
}

/// [`spawn_app`], with the gateway settings adjusted by `configure` first (keys,
/// partner certificates, requirements: see [`with_keys`]). The partner port serves
/// plain HTTP, as behind a TLS-terminating proxy.
pub async fn spawn_app_with(
    configure: impl FnOnce(&mut edihub_config::GatewaySettings),
) -> TestApp {
    spawn_gateway(configure).await
}

/// [`spawn_app_with`], serving HTTPS with `tls`'s server certificate; `app.http`
/// trusts its CA and `app.as2_url()` is `https://localhost:port/as2`.
pub async fn spawn_tls_app_with(
    tls: &tls::TestTls,
    configure: impl FnOnce(&mut edihub_config::GatewaySettings),
) -> TestApp {
    let settings = tls.settings();
    let mut app = spawn_gateway(move |gateway| {
        gateway.plain_http = false;
        gateway.tls = Some(settings);
        configure(gateway);
    })
    .await;
    app.http = tls.http_client(None);
    app.base_url = format!("https://localhost:{}", app.address.port());
    app
}

async fn spawn_gateway(configure: impl FnOnce(&mut edihub_config::GatewaySettings)) -> TestApp {
    let suffix = Uuid::new_v4().simple().to_string()[..12].to_owned();
    let database = database_settings(&format!("edihub_test_{suffix}"));
    edihub_db::create_and_migrate(&database)
        .await
        .expect("create and migrate the test database (is PostgreSQL up?)");
    let pool = edihub_db::pool(&database).expect("pool");

    let mut kafka = KafkaSettings::default();
    if let Ok(brokers) = std::env::var("KAFKA_BROKERS") {
        kafka.brokers = brokers;
    }
    kafka.partitions = 3;
    kafka.topics.inbound_received = format!("edi.inbound.received.{suffix}");
    kafka.topics.invoice_canonical = format!("edi.invoice.canonical.{suffix}");
    kafka.topics.inbound_rejected = format!("edi.inbound.rejected.{suffix}");
    kafka.topics.acknowledgement_issued = format!("edi.acknowledgement.issued.{suffix}");
    kafka.topics.message_parsed = format!("edi.message.parsed.{suffix}");
    kafka.topics.outbound_status = format!("edi.outbound.status.{suffix}");
    kafka.topics.outbound_requested = format!("edi.outbound.requested.{suffix}");
    kafka.topics.dead_letter = format!("edi.dead-letter.{suffix}");
    edihub_kafka::ensure_topics(&kafka, &kafka.topics.all())
        .await
        .expect("create test topics (is the broker up?)");

    let mut s3 = S3Settings::default();
    if let Ok(endpoint) = std::env::var("S3_ENDPOINT") {
        s3.endpoint = Some(endpoint);
    }
    s3.bucket = format!("edihub-test-{suffix}");
    let store = ArchiveStore::new(&s3);
    store
        .ensure_bucket()
        .await
        .expect("create test bucket (is the S3 server up?)");

    let mut gateway = edihub_config::GatewaySettings {
        listen: "127.0.0.1:0".into(),
        plain_http: true,
        ops_listen: "127.0.0.1:0".into(),
        hub_as2_id: HUB.into(),
        partners: std::iter::once(PARTNER)
            .chain(EXTRA_PARTNERS)
            .map(|as2_id| PartnerSettings {
                as2_id: as2_id.into(),
                name: Some(format!("{as2_id} (test partner)")),
                ..Default::default()
            })
            .collect(),
        ..Default::default()
    };
    configure(&mut gateway);
    let settings = as2_gateway::Settings {
        database: database.clone(),
        kafka: kafka.clone(),
        gateway,
    };
    let app = as2_gateway::Application::build_with_pool(settings, pool.clone())
        .await
        .expect("build gateway");
    let address = app.address();
    let ops_address = app.ops_address().expect("operations address");
    let shutdown = CancellationToken::new();
    tokio::spawn(app.run_until_stopped(shutdown.clone()));
    TestApp {
        address,
        ops_address,
        base_url: format!("http://{address}"),
        pool,
        database,
        kafka,
        s3,
        store,
        suffix,
        http: http_client(),
        shutdown,
    }
}

impl TestApp {
    pub fn as2_url(&self) -> String {
        format!("{}/as2", self.base_url)
    }

    /// The gateway's `/metrics` text.
    pub async fn metrics(&self) -> String {
        self.http
            .get(format!("http://{}/metrics", self.ops_address))
            .send()
            .await
            .expect("GET /metrics")
            .text()
            .await
            .expect("metrics body")
    }

    /// Posts `payload` as a plain AS2 message from `from`, asking for a sync MDN.
    pub async fn post_as2(&self, from: &str, message_id: &str, payload: &[u8]) -> As2Response {
        let message = edihub_as2::build_plain_message(&edihub_as2::PlainMessageSpec {
            as2_from: from,
            as2_to: HUB,
            message_id,
            subject: "test",
            content_type: "application/edifact",
            payload,
            request_mdn_to: Some("test@example.invalid"),
            request_signed_mdn: None,
        });
        let mut request = self.http.post(self.as2_url());
        for (name, value) in &message.headers {
            request = request.header(name, value);
        }
        let response = request.body(message.body).send().await.expect("POST /as2");
        As2Response {
            status: response.status(),
            headers: response.headers().clone(),
            body: response.bytes().await.expect("body").to_vec(),
        }
    }

    /// Posts `payload` as a plain AS2 message from `from` that asks for an asynchronous
    /// MDN at `receipt_url`, signed with `signed_mic` when given.
    pub async fn post_as2_async(
        &self,
        from: &str,
        message_id: &str,
        payload: &[u8],
        receipt_url: &str,
        signed_mic: Option<edihub_as2::MicAlg>,
    ) -> As2Response {
        let message = edihub_as2::build_plain_message(&edihub_as2::PlainMessageSpec {
            as2_from: from,
            as2_to: HUB,
            message_id,
            subject: "test",
            content_type: "application/edifact",
            payload,
            request_mdn_to: Some(receipt_url),
            request_signed_mdn: signed_mic,
        });
        let mut headers = message.headers;
        headers.push(("Receipt-Delivery-Option".into(), receipt_url.into()));
        self.post_raw(&headers, message.body).await
    }

    /// Posts a ready-made AS2 request (headers and body, e.g. built by another AS2
    /// implementation) to the gateway.
    pub async fn post_raw(&self, headers: &[(String, String)], body: Vec<u8>) -> As2Response {
        let mut request = self.http.post(self.as2_url());
        for (name, value) in headers {
            request = request.header(name, value);
        }
        let response = request.body(body).send().await.expect("POST /as2");
        As2Response {
            status: response.status(),
            headers: response.headers().clone(),
            body: response.bytes().await.expect("body").to_vec(),
        }
    }

    /// A relay on this test's database and broker, to be stepped by the test.
    pub fn relay(&self) -> Relay<KafkaPublisher> {
        Relay::new(
            self.pool.clone(),
            KafkaPublisher::new(&self.kafka).expect("producer"),
            edihub_config::RelaySettings::default(),
        )
    }

    /// Steps the relay until the outbox has no due PENDING row.
    pub async fn drain_outbox(&self) -> usize {
        let relay = self.relay();
        let mut sent = 0;
        loop {
            let report = relay.step().await.expect("relay step");
            sent += report.sent;
            if report.claimed == 0 {
                return sent;
            }
        }
    }

    /// Runs both consumers as the services run them, until the app is dropped.
    pub fn start_consumers(&self) {
        let consumer = |group: &str| edihub_config::ConsumerSettings {
            group_id: format!("{group}-{}", self.suffix),
            max_attempts: 3,
            retry_base_ms: 50,
            instance_id: String::new(),
            ..Default::default()
        };
        let transform = transform_consumer::Settings {
            database: self.database.clone(),
            kafka: self.kafka.clone(),
            consumer: consumer("transform"),
            s3: self.s3.clone(),
            ops_listen: "127.0.0.1:0".into(),
        };
        let archive = archive_consumer::Settings {
            database: self.database.clone(),
            kafka: self.kafka.clone(),
            s3: self.s3.clone(),
            consumer: consumer("archive"),
            archive: archive_settings(),
            ops_listen: "127.0.0.1:0".into(),
        };
        let shutdown = self.shutdown.clone();
        tokio::spawn(transform_consumer::run(transform, shutdown.clone()));
        tokio::spawn(archive_consumer::run(archive, shutdown));
    }

    /// Reads `topic` until a record with `key` arrives.
    pub async fn read_record(&self, topic: &str, key: &str) -> RecordView {
        let records = edihub_kafka::reader::read_until(
            &self.kafka.brokers,
            topic,
            Duration::from_secs(30),
            |read| read.iter().any(|r| r.key.as_deref() == Some(key)),
        )
        .await
        .expect("read topic");
        records
            .into_iter()
            .find(|r| r.key.as_deref() == Some(key))
            .unwrap_or_else(|| panic!("no record with key {key} on {topic}"))
    }

    /// The journal id of the message received with `as2_message_id`.
    pub async fn journal_id(&self, as2_message_id: &str) -> Uuid {
        sqlx::query_scalar("SELECT id FROM edi_message WHERE as2_message_id = $1")
            .bind(as2_message_id)
            .fetch_one(&self.pool)
            .await
            .unwrap_or_else(|e| panic!("no journalled message {as2_message_id}: {e}"))
    }

    /// Posts `payload` from the test partner, runs the consumers and the relay until the
    /// message has an outbox event of type `last`; returns the message id and its outbox
    /// event types in `seq` order.
    pub async fn through_the_path(&self, payload: &[u8], last: &str) -> (Uuid, Vec<String>) {
        let as2_message_id = format!("{}@acme", Uuid::new_v4());
        let response = self.post_as2(PARTNER, &as2_message_id, payload).await;
        assert_eq!(response.status, 200);
        let message_id: Uuid = self.journal_id(&as2_message_id).await;
        assert_eq!(self.drain_outbox().await, 1);
        self.start_consumers();
        let aggregate = message_id.to_string();
        let types = wait_for(
            &format!("the {last} outbox row"),
            Duration::from_secs(60),
            || async {
                let types: Vec<String> = sqlx::query_scalar(
                    "SELECT event_type FROM outbox WHERE aggregate_id = $1 ORDER BY seq",
                )
                .bind(&aggregate)
                .fetch_all(&self.pool)
                .await
                .expect("query");
                types.iter().any(|t| t == last).then_some(types)
            },
        )
        .await;
        self.drain_outbox().await;
        (message_id, types)
    }

    /// An outbox event of `aggregate` (type `TestEvent`) for this test's inbound topic.
    pub fn test_event(
        &self,
        aggregate: &str,
        payload: serde_json::Value,
    ) -> edihub_outbox::NewEvent {
        edihub_outbox::NewEvent {
            id: Uuid::now_v7(),
            aggregate_type: "Test".into(),
            aggregate_id: aggregate.into(),
            event_type: "TestEvent".into(),
            topic: self.kafka.topics.inbound_received.clone(),
            payload,
            headers: serde_json::json!({}),
        }
    }

    /// Writes `event` to the outbox in a transaction of its own, committed.
    pub async fn commit_event(&self, event: &edihub_outbox::NewEvent) {
        let mut tx = self.pool.begin().await.expect("begin");
        edihub_outbox::enqueue(&mut tx, event)
            .await
            .expect("enqueue");
        tx.commit().await.expect("commit");
    }

    /// Writes `events` to the outbox in one transaction (one statement), committed.
    pub async fn commit_events(&self, events: &[edihub_outbox::NewEvent]) {
        commit_events(&self.pool, events).await;
    }

    /// Every version of every object under `prefix` in the test bucket ("" for all).
    pub async fn object_versions(&self, prefix: &str) -> Vec<aws_sdk_s3::types::ObjectVersion> {
        let listed = (self.store.client().list_object_versions())
            .bucket(self.store.bucket())
            .prefix(prefix)
            .send()
            .await
            .expect("list object versions");
        listed.versions().to_vec()
    }

    pub async fn count(&self, sql: &str) -> i64 {
        sqlx::query_scalar(sqlx::AssertSqlSafe(sql.to_owned()))
            .fetch_one(&self.pool)
            .await
            .unwrap_or_else(|e| panic!("{sql}: {e}"))
    }

    /// Waits until a session of this app's database waits on a lock (`what` names it
    /// for the timeout's message): the test has made it block and goes on from there.
    pub async fn wait_for_a_lock_wait(&self, what: &str) {
        let database = format!("edihub_test_{}", self.suffix);
        wait_for(what, Duration::from_secs(10), || async {
            let waiting: i64 = sqlx::query_scalar(
                "SELECT count(*) FROM pg_stat_activity
                 WHERE datname = $1 AND wait_event_type = 'Lock'",
            )
            .bind(&database)
            .fetch_one(&self.pool)
            .await
            .expect("pg_stat_activity");
            (waiting > 0).then_some(())
        })
        .await;
    }
}

/// The CloudEvents headers a consumer needs on a record a test publishes itself.
pub fn event_headers(id: &str, event_type: &str) -> rdkafka::message::OwnedHeaders {
    use rdkafka::message::{Header, OwnedHeaders};
    OwnedHeaders::new()
        .insert(Header {
            key: edihub_events::headers::ID,
            value: Some(id),
        })
        .insert(Header {
            key: edihub_events::headers::TYPE,
            value: Some(event_type),
        })
}

/// The envelope a consumer would decode from `record`.
pub fn envelope(record: &RecordView) -> Envelope {
    Envelope {
        id: record
            .header(edihub_events::headers::ID)
            .and_then(|v| Uuid::parse_str(v).ok())
            .expect("ce_id"),
        event_type: record
            .header(edihub_events::headers::TYPE)
            .expect("ce_type")
            .to_owned(),
        source: record
            .header(edihub_events::headers::SOURCE)
            .unwrap_or_default()
            .to_owned(),
        time: None,
        correlation_id: record
            .header(edihub_events::headers::CORRELATION_ID)
            .map(str::to_owned),
        traceparent: record
            .header(edihub_events::headers::TRACEPARENT)
            .and_then(|v| edihub_events::trace::TraceParent::parse(v).ok()),
        tracestate: record
            .header(edihub_events::headers::TRACESTATE)
            .map(str::to_owned),
        key: record.key.clone(),
        data: record.payload.clone(),
    }
}

/// Writes `events` to `pool`'s outbox in one transaction (one statement), committed, as
/// a service's transaction leaves them.
pub async fn commit_events(pool: &PgPool, events: &[edihub_outbox::NewEvent]) {
    let mut tx = pool.begin().await.expect("begin");
    edihub_outbox::enqueue_all(&mut tx, events)
        .await
        .expect("enqueue");
    tx.commit().await.expect("commit");
}

/// Polls `condition` until it returns `Some` or `timeout` passes (then panics with
/// `what`). The bounded wait replaces sleeps-as-synchronisation.
pub async fn wait_for<T, F, Fut>(what: &str, timeout: Duration, mut condition: F) -> T
where
    F: FnMut() -> Fut,
    Fut: Future<Output = Option<T>>,
{
    let deadline = Instant::now() + timeout;
    loop {
        if let Some(value) = condition().await {
            return value;
        }
        if Instant::now() >= deadline {
            panic!("timed out after {timeout:?} waiting for {what}");
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

/// One request an [`MdnReceiver`] got, with the status it answered.
#[derive(Debug, Clone)]
pub struct ReceivedPost {
    pub path: String,
    pub headers: Vec<(String, String)>,
    pub body: Vec<u8>,
    pub answered: u16,
}

impl ReceivedPost {
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }
}

/// A partner's asynchronous MDN endpoint: a real HTTP server on a free port that records
/// every POST, answering 503 to the first `failures` of them and 200 afterwards.
pub struct MdnReceiver {
    pub address: SocketAddr,
    scheme: &'static str,
    received: std::sync::Arc<std::sync::Mutex<Vec<ReceivedPost>>>,
    /// Over HTTPS: the client certificate of each connection (see [`tls::TlsListener`]).
    pub client_certificates: std::sync::Arc<std::sync::Mutex<Vec<Option<[u8; 32]>>>>,
    pub failed_handshakes: std::sync::Arc<std::sync::atomic::AtomicUsize>,
    shutdown: CancellationToken,
}

impl Drop for MdnReceiver {
    fn drop(&mut self) {
        self.shutdown.cancel();
    }
}

impl MdnReceiver {
    pub async fn start(failures: usize) -> MdnReceiver {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
            .await
            .expect("bind the MDN receiver");
        let address = listener.local_addr().expect("receiver address");
        let receiver = MdnReceiver::new(address, "http");
        let router = receiver.router(failures);
        receiver.serve(listener, router);
        receiver
    }

    /// Over HTTPS with `tls`'s server certificate (for 127.0.0.1 and localhost, issued
    /// by its CA), requiring a client certificate from that CA when told to.
    pub async fn start_https(
        failures: usize,
        tls: &tls::TestTls,
        require_client_certificate: bool,
    ) -> MdnReceiver {
        let tcp = tokio::net::TcpListener::bind("127.0.0.1:0")
            .await
            .expect("bind the MDN receiver");
        let address = tcp.local_addr().expect("receiver address");
        let receiver = MdnReceiver::new(address, "https");
        let config = tls.server_config(require_client_certificate);
        let listener = tls::TlsListener {
            tcp,
            acceptor: tokio_rustls::TlsAcceptor::from(std::sync::Arc::new(config)),
            client_certificates: std::sync::Arc::clone(&receiver.client_certificates),
            failed_handshakes: std::sync::Arc::clone(&receiver.failed_handshakes),
        };
        let router = receiver.router(failures);
        receiver.serve(listener, router);
        receiver
    }

    fn new(address: SocketAddr, scheme: &'static str) -> MdnReceiver {
        MdnReceiver {
            address,
            scheme,
            received: Default::default(),
            client_certificates: Default::default(),
            failed_handshakes: Default::default(),
            shutdown: CancellationToken::new(),
        }
    }

    fn serve<L: axum::serve::Listener>(&self, listener: L, router: axum::Router)
    where
        L::Addr: std::fmt::Debug,
    {
        let stop = self.shutdown.clone();
        tokio::spawn(async move {
            axum::serve(listener, router)
                .with_graceful_shutdown(async move { stop.cancelled().await })
                .await
        });
    }

    fn router(&self, failures: usize) -> axum::Router {
        use axum::http::{HeaderMap, StatusCode, Uri};
        use std::sync::Arc;
        use std::sync::atomic::{AtomicUsize, Ordering};

        let failures_left = Arc::new(AtomicUsize::new(failures));
        let record = {
            let received = Arc::clone(&self.received);
            move |uri: Uri, headers: HeaderMap, body: axum::body::Bytes| {
                let received = Arc::clone(&received);
                let failures_left = Arc::clone(&failures_left);
                async move {
                    let fail = failures_left
                        .fetch_update(Ordering::SeqCst, Ordering::SeqCst, |n| n.checked_sub(1))
                        .is_ok();
                    let status = if fail {
                        StatusCode::SERVICE_UNAVAILABLE
                    } else {
                        StatusCode::OK
                    };
                    let post = ReceivedPost {
                        path: uri.path().to_owned(),
                        headers: headers
                            .iter()
                            .map(|(n, v)| {
                                (
                                    n.as_str().to_owned(),
                                    String::from_utf8_lossy(v.as_bytes()).into_owned(),
                                )
                            })
                            .collect(),
                        body: body.to_vec(),
                        answered: status.as_u16(),
                    };
                    received.lock().expect("receiver lock").push(post);
                    status
                }
            }
        };
        axum::Router::new().fallback(axum::routing::post(record))
    }

    /// The URL of `path` on this receiver.
    pub fn url(&self, path: &str) -> String {
        format!("{}://{}{path}", self.scheme, self.address)
    }

    /// Everything received so far.
    pub fn received(&self) -> Vec<ReceivedPost> {
        self.received.lock().expect("receiver lock").clone()
    }

    /// Waits until `count` POSTs were answered 200, and returns those.
    pub async fn accepted(&self, count: usize) -> Vec<ReceivedPost> {
        wait_for(
            &format!("{count} MDN(s) accepted at {}", self.address),
            Duration::from_secs(30),
            || async {
                let accepted: Vec<ReceivedPost> = self
                    .received()
                    .into_iter()
                    .filter(|p| p.answered == 200)
                    .collect();
                (accepted.len() >= count).then_some(accepted)
            },
        )
        .await
    }
}

/// The INVOIC fixture with its interchange reference (UNB and UNZ) set to `number`, so
/// that each message of a test is a different document. The same signed content twice
/// from one partner is a replay to the gateway (`gateway.replay_window_hours`).
pub fn numbered_invoic(number: usize) -> Vec<u8> {
    let text = String::from_utf8(fixture("edifact/invoic-eancom-d96a.edi")).expect("UTF-8 fixture");
    let reference = format!("EH{:06}", number % 1_000_000);
    text.replace("EH000001", &reference).into_bytes()
}
