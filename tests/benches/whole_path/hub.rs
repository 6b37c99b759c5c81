//! The bench's own hub on the local stack: a fresh database, topics and bucket with a
//! unique suffix, and the one settings file all four services read.

use edihub_archive::ArchiveStore;
use edihub_config::{DatabaseSettings, KafkaSettings, S3Settings, Secret};
use sqlx::{ConnectOptions as _, Connection as _, PgPool};
use std::net::TcpListener;
use std::path::PathBuf;
use std::str::FromStr as _;
use uuid::Uuid;

/// What the services share: where the database, broker and bucket are, and the
/// gateway's addresses.
pub struct Hub {
    pub suffix: String,
    pub database: DatabaseSettings,
    pub kafka: KafkaSettings,
    pub s3: S3Settings,
    /// For the bench's own queries (progress, latencies, PostgreSQL's CPU).
    pub pool: PgPool,
    /// `http://127.0.0.1:port/as2`.
    pub as2_url: String,
    /// Ops (`/ready`) address of each service, by name.
    pub ops: Vec<(&'static str, String)>,
}

impl Hub {
    /// Creates the database (migrated), the topics and the bucket. Panics with the
    /// reason when the stack is not up: a bench has no one to report an error to.
    pub async fn create(services: &[&'static str]) -> Hub {
        let suffix = Uuid::new_v4().simple().to_string()[..12].to_owned();
        // Named like every test database, so deploy/test.sh drops it if this run dies.
        let database = database_settings(&format!("edihub_test_{suffix}"));
        edihub_db::create_and_migrate(&database)
            .await
            .expect("create and migrate the bench database (is PostgreSQL up?)");
        let pool = edihub_db::pool(&DatabaseSettings {
            max_connections: 2,
            ..database.clone()
        })
        .expect("pool");

        let mut kafka = KafkaSettings::default();
        if let Ok(brokers) = std::env::var("KAFKA_BROKERS") {
            kafka.brokers = brokers;
        }
        kafka.partitions = 3;
        let topics = &mut kafka.topics;
        topics.inbound_received = format!("edi.inbound.received.{suffix}");
        topics.invoice_canonical = format!("edi.invoice.canonical.{suffix}");
        topics.inbound_rejected = format!("edi.inbound.rejected.{suffix}");
        topics.acknowledgement_issued = format!("edi.acknowledgement.issued.{suffix}");
        topics.outbound_requested = format!("edi.outbound.requested.{suffix}");
        topics.dead_letter = format!("edi.dead-letter.{suffix}");
        edihub_kafka::ensure_topics(&kafka, &kafka.topics.all())
            .await
            .expect("create the bench topics (is the broker up?)");

        let mut s3 = S3Settings::default();
        if let Ok(endpoint) = std::env::var("S3_ENDPOINT") {
            s3.endpoint = Some(endpoint);
        }
        s3.bucket = format!("edihub-test-{suffix}");
        ArchiveStore::new(&s3)
            .ensure_bucket()
            .await
            .expect("create the bench bucket (is the S3 server up?)");

        let as2_url = format!("http://{}/as2", free_address());
        let ops = services.iter().map(|s| (*s, free_address())).collect();
        Hub {
            suffix,
            database,
            kafka,
            s3,
            pool,
            as2_url,
            ops,
        }
    }

    /// The ops address given to `service`.
    pub fn ops_of(&self, service: &str) -> &str {
        self.ops
            .iter()
            .find(|(name, _)| *name == service)
            .map_or("127.0.0.1:0", |(_, address)| address)
    }

    /// Writes the settings file of `service` (each reads the sections it needs) and
    /// returns its path. `concurrency` is how many requests the gateway must take from
    /// the one partner at once.
    pub fn settings_file(&self, service: &str, concurrency: usize) -> PathBuf {
        let topics = &self.kafka.topics;
        let fixture = |path: &str| quoted(&edihub_tests::fixture_path(path).to_string_lossy());
        let listen = self
            .as2_url
            .trim_start_matches("http://")
            .trim_end_matches("/as2");
        let text = format!(
            r#"ops_listen = {ops}
[database]
url = {db}
[kafka]
brokers = {brokers}
partitions = 3
[kafka.topics]
inbound_received = {received}
invoice_canonical = {canonical}
inbound_rejected = {rejected}
acknowledgement_issued = {acknowledged}
outbound_requested = {requested}
dead_letter = {dead}
[s3]
endpoint = {endpoint}
bucket = {bucket}
[gateway]
listen = {listen}
plain_http = true
ops_listen = {ops}
hub_as2_id = {hub}
hub_certificate = {hub_cert}
hub_private_key = {hub_key}
max_concurrent_per_partner = {concurrency}
[[gateway.partners]]
as2_id = {partner}
certificates = [{partner_cert}]
require_signature = true
require_encryption = true
[archive]
seal_certificate = {hub_cert}
seal_private_key = {hub_key}
"#,
            ops = quoted(self.ops_of(service)),
            db = quoted(self.database.url.expose()),
            brokers = quoted(&self.kafka.brokers),
            received = quoted(&topics.inbound_received),
            canonical = quoted(&topics.invoice_canonical),
            rejected = quoted(&topics.inbound_rejected),
            acknowledged = quoted(&topics.acknowledgement_issued),
            requested = quoted(&topics.outbound_requested),
            dead = quoted(&topics.dead_letter),
            endpoint = quoted(self.s3.endpoint.as_deref().unwrap_or_default()),
            bucket = quoted(&self.s3.bucket),
            listen = quoted(listen),
            hub = quoted(edihub_tests::HUB),
            hub_cert = fixture("as2/hub.crt"),
            hub_key = fixture("as2/hub.key"),
            partner = quoted(edihub_tests::PARTNER),
            partner_cert = fixture("as2/partner-a.crt"),
        );
        let mut text = text;
        // To measure the relay's linger (builds that know the setting only).
        if let Ok(linger) = std::env::var("EDIHUB_BENCH_RELAY_LINGER_MS") {
            text.push_str(&format!("[relay]\nlinger_ms = {linger}\n"));
        }
        if let Ok(extra) = std::env::var("EDIHUB_BENCH_EXTRA_SETTINGS") {
            text.push_str(&extra.replace("\\n", "\n"));
            text.push('\n');
        }
        let path =
            std::env::temp_dir().join(format!("edihub-whole-path-{}-{service}.toml", self.suffix));
        std::fs::write(&path, text).expect("write the settings file");
        path
    }

    /// Drops the bench's database (autovacuum would visit it on every later run).
    pub async fn drop_database(&self) {
        self.pool.close().await;
        let options = sqlx::postgres::PgConnectOptions::from_str(self.database.url.expose())
            .expect("bench database URL");
        let Some(name) = options.get_database().map(str::to_owned) else {
            return;
        };
        let Ok(mut admin) = options.database("postgres").connect().await else {
            eprintln!("whole_path: cannot connect to drop database {name}");
            return;
        };
        // The name is this module's own `edihub_test_<hex>`, nothing from outside.
        let drop = format!("DROP DATABASE IF EXISTS \"{name}\" WITH (FORCE)");
        if let Err(e) = sqlx::query(sqlx::AssertSqlSafe(drop))
            .execute(&mut admin)
            .await
        {
            eprintln!("whole_path: dropping database {name}: {e}");
        }
        let _ = admin.close().await;
    }
}

/// As the test harness derives it (tests/src/lib.rs): the server of `DATABASE_URL` (or
/// the local default), database `name`.
fn database_settings(name: &str) -> DatabaseSettings {
    let base = std::env::var("DATABASE_URL")
        .unwrap_or_else(|_| "postgres://postgres:postgres@127.0.0.1:5432/edihub".into());
    let server = base.rsplit_once('/').map_or(base.as_str(), |(s, _)| s);
    DatabaseSettings {
        url: Secret::new(format!("{server}/{name}")),
        max_connections: 10,
    }
}

/// A loopback address no one listened on a moment ago. A process may take it between
/// now and the service's bind; the service then fails to start, and says so.
fn free_address() -> String {
    TcpListener::bind("127.0.0.1:0")
        .and_then(|listener| listener.local_addr())
        .map(|address| address.to_string())
        .expect("a free loopback port")
}

/// `value` as a TOML basic string (JSON's escapes are TOML's).
fn quoted(value: &str) -> String {
    serde_json::Value::String(value.to_owned()).to_string()
}
