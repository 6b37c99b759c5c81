//! Memory of a gateway under stalled connections (not a test): a real `as2-gateway`
//! process on the local PostgreSQL, its resident set (VmRSS from /proc) printed idle,
//! then with AS2_STALLED_CONNECTIONS (200) connections that never sent a byte, then
//! with as many that each sent the head of a 32 MiB AS2 request and
//! AS2_STALLED_SENT_KIB (1024) KiB of its body, then stopped. Printed next to the
//! gateway's connection cap and the settings that bound it.
//!
//!     cargo build --release --bin as2-gateway
//!     cargo bench -p edihub-tests --bench gateway_stalled

use edihub_tests::{HUB, PARTNER, fixture, service_binary, wait_for};
use std::net::SocketAddr;
use std::process::{Child, Command, Stdio};
use std::time::Duration;
use tokio::io::AsyncWriteExt;
use tokio::net::TcpStream;

const MAX_CONNECTIONS: usize = 1024;
const PER_PARTNER: usize = 16;
const DECLARED_BODY: usize = 32 * 1024 * 1024;

/// A free local port (bound, then released for the gateway to take).
fn free_port() -> u16 {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
    listener.local_addr().expect("address").port()
}

/// The gateway process; killed when dropped.
struct Gateway {
    child: Child,
    address: SocketAddr,
    ops: SocketAddr,
}

impl Drop for Gateway {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Gateway {
    async fn start(database_url: &str) -> Self {
        let address: SocketAddr = ([127, 0, 0, 1], free_port()).into();
        let ops: SocketAddr = ([127, 0, 0, 1], free_port()).into();
        let config = format!(
            r#"[database]
url = "{database_url}"
[gateway]
listen = "{address}"
ops_listen = "{ops}"
plain_http = true
hub_as2_id = "{HUB}"
max_connections = {MAX_CONNECTIONS}
max_concurrent_per_partner = {PER_PARTNER}
[[gateway.partners]]
as2_id = "{PARTNER}"
require_signature = false
require_encryption = false
"#
        );
        let path = std::env::temp_dir().join(format!("edihub-stalled-{}.toml", address.port()));
        std::fs::write(&path, config).expect("write config");
        let mut command = Command::new(service_binary("as2-gateway"));
        for (variable, _) in edihub_config::ENV_OVERRIDES {
            command.env_remove(variable);
        }
        let child = command
            .env("EDIHUB_CONFIG", &path)
            .env("RUST_LOG", "warn")
            .stdout(Stdio::null())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("start as2-gateway");
        let gateway = Self {
            child,
            address,
            ops,
        };
        wait_for("the gateway ready", Duration::from_secs(30), || async {
            let ready = reqwest::get(format!("http://{ops}/ready")).await.ok()?;
            ready.status().is_success().then_some(())
        })
        .await;
        gateway
    }

    fn rss_mib(&self) -> f64 {
        let status = std::fs::read_to_string(format!("/proc/{}/status", self.child.id()))
            .expect("/proc status");
        let kib: f64 = status
            .lines()
            .find_map(|l| l.strip_prefix("VmRSS:"))
            .and_then(|v| v.split_whitespace().next()?.parse().ok())
            .expect("VmRSS");
        kib / 1024.0
    }

    async fn connections(&self) -> i64 {
        let text = reqwest::get(format!("http://{}/metrics", self.ops))
            .await
            .expect("metrics")
            .text()
            .await
            .expect("metrics text");
        text.lines()
            .find_map(|l| l.strip_prefix("edihub_gateway_connections "))
            .and_then(|v| v.trim().parse().ok())
            .unwrap_or(0)
    }
}

/// The head of a plain AS2 request announcing a `DECLARED_BODY` body.
fn stalled_head() -> Vec<u8> {
    let message = edihub_as2::build_plain_message(&edihub_as2::PlainMessageSpec {
        as2_from: PARTNER,
        as2_to: HUB,
        message_id: &format!("{}@stalled", uuid::Uuid::new_v4()),
        subject: "stalled",
        content_type: "application/edifact",
        payload: &fixture("edifact/invoic-eancom-d96a.edi"),
        request_mdn_to: Some("test@example.invalid"),
        request_signed_mdn: None,
    });
    let mut head = String::from("POST /as2 HTTP/1.1\r\nHost: localhost\r\n");
    for (name, value) in &message.headers {
        head.push_str(&format!("{name}: {value}\r\n"));
    }
    head.push_str(&format!("Content-Length: {DECLARED_BODY}\r\n\r\n"));
    head.into_bytes()
}

/// Opens a connection that sends `head` and `sent` body bytes, then nothing more.
async fn stall(address: SocketAddr, head: &[u8], sent: usize) -> TcpStream {
    let mut stream = TcpStream::connect(address).await.expect("connect");
    if !head.is_empty() {
        stream.write_all(head).await.expect("head");
        // The gateway may answer (429) and stop reading: the rest is dropped.
        let _ =
            tokio::time::timeout(Duration::from_secs(2), stream.write_all(&vec![b'x'; sent])).await;
    }
    stream
}

/// How many of `streams` got an answer already (a 429), without waiting.
async fn answered(streams: &mut [TcpStream]) -> usize {
    let mut count = 0;
    for stream in streams {
        let mut byte = [0u8; 1];
        if let Ok(Ok(n)) =
            tokio::time::timeout(Duration::from_millis(5), stream.peek(&mut byte)).await
        {
            count += usize::from(n > 0);
        }
    }
    count
}

async fn fresh_database_url() -> String {
    let base = std::env::var("DATABASE_URL")
        .unwrap_or_else(|_| "postgres://postgres:postgres@127.0.0.1:5432/edihub".into());
    let server = base.rsplit_once('/').map_or(base.as_str(), |(s, _)| s);
    let name = format!(
        "edihub_test_{}",
        &uuid::Uuid::new_v4().simple().to_string()[..12]
    );
    let settings = edihub_config::DatabaseSettings {
        url: edihub_config::Secret::new(format!("{server}/{name}")),
        max_connections: 10,
    };
    edihub_db::create_and_migrate(&settings)
        .await
        .expect("create the bench database (is PostgreSQL up?)");
    settings.url.expose().to_owned()
}

#[tokio::main(flavor = "multi_thread")]
async fn main() {
    let _ = rustls::crypto::aws_lc_rs::default_provider().install_default();
    let count = edihub_tests::env_number("AS2_STALLED_CONNECTIONS", 200_usize);
    let sent = edihub_tests::env_number("AS2_STALLED_SENT_KIB", 1024_usize) * 1024;
    let gateway = Gateway::start(&fresh_database_url().await).await;
    let idle = gateway.rss_mib();

    // Silent connections first: memory the bodies' buffers leave behind is not
    // returned to the system at once, and would be counted for them.
    let mut silent = Vec::new();
    for _ in 0..count {
        silent.push(stall(gateway.address, &[], 0).await);
    }
    wait_for(
        "the silent connections counted",
        Duration::from_secs(10),
        || async { (gateway.connections().await == count as i64).then_some(()) },
    )
    .await;
    let with_silent = gateway.rss_mib();
    drop(silent);
    wait_for(
        "the silent connections closed",
        Duration::from_secs(10),
        || async { (gateway.connections().await == 0).then_some(()) },
    )
    .await;

    let head = stalled_head();
    let mut bodies = Vec::new();
    for _ in 0..count {
        bodies.push(stall(gateway.address, &head, sent).await);
    }
    let refused = answered(&mut bodies).await;
    let with_bodies = gateway.rss_mib();
    let open_then = gateway.connections().await;

    println!("gateway memory under stalled connections (VmRSS of the as2-gateway process):");
    println!("  idle                                   {idle:>7.1} MiB");
    println!("  {count} x connected, nothing sent          {with_silent:>7.1} MiB");
    println!(
        "  {count} x head of a 32 MiB body + {} KiB    {with_bodies:>7.1} MiB  ({open_then} open, {refused} already answered 429: per-partner slots {PER_PARTNER}, taken before the body)",
        sent / 1024
    );
    println!(
        "  connection cap (gateway.max_connections) {MAX_CONNECTIONS}; body read deadline 30 s + 1 s per 64 KiB; idle timeout 30 s"
    );
}
