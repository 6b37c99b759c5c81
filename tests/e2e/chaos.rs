//! Chaos: the relay (two of them) and both consumers run as real processes and are
//! killed with SIGKILL and restarted at random while partners send messages. Afterwards
//! every accepted message must be transformed once and archived once.
//!
//! Size: CHAOS_MESSAGES (default 120, sized for CI); try 2000 by hand.
//! The service binaries must be built first (`cargo build --bins`; deploy/test.sh does).
//! Not covered yet: a broker restart during the run (needs tansu on durable storage).

use edihub_tests::{EXTRA_PARTNERS, PARTNER, TestApp, fixture, spawn_app, wait_for};
use rand::Rng;
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::Duration;
use uuid::Uuid;

const SERVICES: [&str; 4] = [
    "outbox-relay",
    "outbox-relay",
    "transform-consumer",
    "archive-consumer",
];

/// The services' settings for this test's database, topics and groups.
fn config_file(app: &TestApp) -> PathBuf {
    let topics = &app.kafka.topics;
    let text = format!(
        r#"ops_listen = "127.0.0.1:0"
[database]
url = "{db}"
[kafka]
brokers = "{brokers}"
[kafka.topics]
inbound_received = "{received}"
invoice_canonical = "{canonical}"
inbound_rejected = "{rejected}"
acknowledgement_issued = "{acknowledged}"
dead_letter = "{dead}"
[s3]
bucket = "{bucket}"
[relay]
batch_size = 50
poll_interval_ms = 200
[consumer]
max_attempts = 1000
retry_base_ms = 100
"#,
        db = app.database.url.expose(),
        brokers = app.kafka.brokers,
        received = topics.inbound_received,
        canonical = topics.invoice_canonical,
        rejected = topics.inbound_rejected,
        acknowledged = topics.acknowledgement_issued,
        dead = topics.dead_letter,
        bucket = app.store.bucket(),
    );
    let path = std::env::temp_dir().join(format!("edihub-chaos-{}.toml", app.suffix));
    std::fs::write(&path, text).expect("write config");
    path
}

/// Starts `service`, its output appended to `<tmp>/edihub-chaos-<suffix>/<service>.log`.
fn start(service: &str, config: &PathBuf, app: &TestApp) -> Child {
    let logs = std::env::temp_dir().join(format!("edihub-chaos-{}", app.suffix));
    std::fs::create_dir_all(&logs).expect("log dir");
    let log = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(logs.join(format!("{service}.log")))
        .expect("log file");
    let mut command = Command::new(edihub_tests::service_binary(service));
    // The config file must win: environment variables (DATABASE_URL, exported by
    // deploy/test.sh, ...) would otherwise point the services at another database.
    for (variable, _) in edihub_config::ENV_OVERRIDES {
        command.env_remove(variable);
    }
    command
        .env("EDIHUB_CONFIG", config)
        .env("RUST_LOG", "info,sqlx=warn")
        .env("NO_COLOR", "1")
        .stdout(Stdio::from(log.try_clone().expect("log file")))
        .stderr(Stdio::from(log));
    // Consumers keep one group per role across restarts, and a stable static member
    // id, so a restarted process replaces its killed predecessor at once (tansu does
    // not expire a dead dynamic member, which would keep its partitions unassigned).
    if service.ends_with("consumer") {
        command.env("EDIHUB_CONSUMER_GROUP", format!("{service}-{}", app.suffix));
        command.env("EDIHUB_CONSUMER_INSTANCE", format!("{service}-1"));
    }
    command.spawn().expect("start service")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn killing_relays_and_consumers_loses_nothing_and_doubles_nothing() {
    let messages: usize = std::env::var("CHAOS_MESSAGES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(120);
    let app = spawn_app().await;
    let config = config_file(&app);
    let mut children: Vec<Child> = SERVICES.iter().map(|s| start(s, &config, &app)).collect();
    eprintln!(
        "service logs: {}",
        std::env::temp_dir()
            .join(format!("edihub-chaos-{}", app.suffix))
            .display()
    );
    let payload = fixture("edifact/invoic-eancom-d96a.edi");
    let partners: Vec<&str> = std::iter::once(PARTNER).chain(EXTRA_PARTNERS).collect();

    // Partners send while processes die.
    let mut kills = 0;
    let mut rng = rand::rng();
    for i in 0..messages {
        let partner = partners[i % partners.len()];
        let id = format!("{}@{partner}", Uuid::new_v4());
        let response = app.post_as2(partner, &id, &payload).await;
        assert_eq!(response.status, 200, "message {i} accepted");
        if rng.random_ratio(1, 8) {
            let victim = rng.random_range(0..children.len());
            eprintln!("chaos: SIGKILL {} after message {i}", SERVICES[victim]);
            children[victim].kill().expect("SIGKILL"); // Child::kill sends SIGKILL
            let _ = children[victim].wait();
            children[victim] = start(SERVICES[victim], &config, &app);
            kills += 1;
        }
    }

    let accepted = app.count("SELECT count(*) FROM edi_message").await;
    assert_eq!(accepted, messages as i64);
    let expected = accepted;
    wait_for(
        "every message transformed and archived",
        Duration::from_secs(180),
        || async {
            let invoices = app.count("SELECT count(*) FROM canonical_invoice").await;
            let archived = app.count("SELECT count(*) FROM archive_record").await;
            (invoices >= expected && archived >= expected).then_some(())
        },
    )
    .await;
    for child in &mut children {
        let _ = child.kill();
        let _ = child.wait();
    }
    let _ = std::fs::remove_file(&config);

    let invoices = app.count("SELECT count(*) FROM canonical_invoice").await;
    let distinct_invoices = app
        .count("SELECT count(DISTINCT message_id) FROM canonical_invoice")
        .await;
    let archived = app.count("SELECT count(*) FROM archive_record").await;
    let transformed_events = app
        .count("SELECT count(*) FROM outbox WHERE event_type = 'InvoiceTransformed'")
        .await;
    let inbox = app.count("SELECT count(*) FROM inbox").await;
    println!(
        "chaos: {messages} messages, {kills} SIGKILLs; {invoices} invoices for {distinct_invoices} messages, \
         {archived} archive records, {transformed_events} InvoiceTransformed events, {inbox} inbox rows"
    );
    assert_eq!(distinct_invoices, expected, "every message transformed");
    assert_eq!(invoices, expected, "no message transformed twice");
    assert_eq!(archived, expected, "every message archived once");
    assert_eq!(
        transformed_events, expected,
        "one InvoiceTransformed event per invoice"
    );
    assert_eq!(inbox, 2 * expected, "one inbox row per consumer and event");
    assert!(kills > 0, "the run killed something");
}
