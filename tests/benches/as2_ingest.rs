//! AS2 ingest benchmark (not a test): signed and encrypted messages posted concurrently
//! to a gateway on the real local stack, every MDN verified, with the RSA-2048
//! private-key ceiling `openssl speed rsa2048` measures on this machine in the same run
//! printed next to the result.
//!
//!     bash deploy/stack.sh up && cargo bench -p edihub-tests --bench as2_ingest
//!
//! Sizes: AS2_BENCH_MESSAGES (default 3000) and AS2_BENCH_CONCURRENCY (32). The
//! gateway's group commit: AS2_BENCH_JOURNAL_WRITERS (2) and AS2_BENCH_JOURNAL_BATCH
//! (64; 1 turns batching off, for comparison). `OPENSSL_ia32cap`, when set, applies to
//! the gateway (it runs in this process) and to the ceiling's `openssl speed` alike;
//! unset, the ceiling is also measured with OpenSSL's AVX2 RSA code, which is faster on
//! some CPUs (docs/benchmarks.md, "Tuning").
//!
//! Each message costs the gateway one RSA private-key operation to decrypt and one to
//! sign its MDN (plus a signature verification, a public-key operation about twenty
//! times cheaper, and one database commit), so `cores x sign/s / 2` is the ceiling.
//!
//! AS2_BENCH_PLAIN=1 sends the same payload without S/MIME (unsigned, unencrypted,
//! unsigned MDN) through the same path, for comparison: what HTTP, parsing and the
//! journal cost on their own. The target does not apply to it.
//!
//! Two gateways run side by side, one serving plain HTTP and one HTTPS (TLS 1.3, an
//! RSA-2048 server certificate), each sent AS2_BENCH_MESSAGES messages over kept-alive
//! connections, in AS2_BENCH_ROUNDS (4) alternating rounds, so that both see the same
//! machine; their rates are printed next to each other.
//!
//! Last (signed + encrypted only), the gateway beside `outbox purge` (as2_ingest/purge.rs):
//! AS2_BENCH_PURGE_MESSAGES (3000) in six plain-HTTP rounds: alone, with a purge flat
//! out, with one paced, twice.

#[path = "as2_ingest/purge.rs"]
mod purge;

use edihub_as2::{
    Encryption, MicAlg, PlainMessageSpec, SecureMessage, SecureMessageSpec, build_secure_message,
};
use edihub_tests::cpu::{CpuSample, thread_cpu_time};
use edihub_tests::tls::TestTls;
use edihub_tests::{PARTNER, TestApp, fixture, spawn_app_with, spawn_tls_app_with, with_keys};
use futures::StreamExt as _;
use std::process::Command;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

// The allocator the gateway binary runs with (the gateway runs in this process).
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// `openssl speed rsa2048`'s private-key operations per second on one core. `ia32cap`
/// overrides `OPENSSL_ia32cap` (the CPU features OpenSSL may use) for that run; `None`
/// keeps this process's environment, which is what the gateway in it runs with.
fn openssl_rsa2048_sign_per_second(ia32cap: Option<&str>) -> Option<f64> {
    let mut command = Command::new("openssl");
    command.args(["speed", "-seconds", "3", "rsa2048"]);
    if let Some(mask) = ia32cap {
        command.env(IA32CAP, mask);
    }
    let output = command.output().ok()?;
    let text = String::from_utf8_lossy(&output.stdout);
    // "rsa 2048 bits 0.000283s 0.000018s   3536.5  55133.3": sign/s is the third number.
    text.lines()
        .find(|line| line.starts_with("rsa") && line.contains("2048 bits"))
        .and_then(|line| line.split_whitespace().nth(5))
        .and_then(|sign| sign.parse().ok())
}

/// DESIGN.md's performance target for this benchmark, on a 2-core machine.
const TARGET_MESSAGES_PER_SECOND: f64 = 1500.0;

/// OpenSSL reads this when libcrypto loads: a mask over the CPUID bits it may use.
const IA32CAP: &str = "OPENSSL_ia32cap";
/// Hides ADX and BMI2 from OpenSSL, so RSA's modular exponentiation takes its AVX2 code
/// instead of its MULX/ADCX code. On some CPUs (the AMD EPYC this was measured on) that
/// is about 1.5 times faster; on others slower. The bench measures both when it is unset.
const AVX2_INSTEAD_OF_ADX: &str = ":~0x80100";

fn percentile(sorted: &[Duration], p: f64) -> Duration {
    let index = ((sorted.len() as f64 - 1.0) * p).round() as usize;
    sorted[index.min(sorted.len() - 1)]
}

#[tokio::main(flavor = "multi_thread")]
async fn main() {
    let messages = edihub_tests::env_number("AS2_BENCH_MESSAGES", 3000_usize);
    let concurrency = edihub_tests::env_number("AS2_BENCH_CONCURRENCY", 32_usize);
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let secured = edihub_tests::env_number("AS2_BENCH_PLAIN", 0_usize) == 0;

    let configure = |gateway: &mut edihub_config::GatewaySettings| {
        with_keys(secured, secured)(gateway);
        gateway.max_concurrent_per_partner = concurrency;
        gateway.journal_writers = edihub_tests::env_number("AS2_BENCH_JOURNAL_WRITERS", 2_usize);
        gateway.journal_batch = edihub_tests::env_number("AS2_BENCH_JOURNAL_BATCH", 64_usize);
    };
    let tls = TestTls::new();
    let app = spawn_app_with(configure).await;
    let https = spawn_tls_app_with(&tls, configure).await;
    let hub_cert = edihub_as2::certificates_from_pem(&fixture("as2/hub.crt"))
        .expect("hub certificate")
        .remove(0);
    let partner = edihub_as2::Identity::from_pem(
        &fixture("as2/partner-a.crt"),
        &fixture("as2/partner-a.key"),
    )
    .expect("partner identity");
    let payload = fixture("edifact/invoic-eancom-d96a.edi");

    // Built before the clock starts: the client's RSA work is not the gateway's.
    let built_at = Instant::now();
    let now = chrono::Utc::now().timestamp();
    // Messages `first..first + n`: the number is the interchange's reference.
    let prepare = |first: usize, n: usize| -> Vec<(String, SecureMessage)> {
        (first..first + n)
            .map(|i| {
                let id = format!("bench-{i}-{}@acme", uuid::Uuid::new_v4());
                let boundary = format!("----=_bench_{i}");
                // Each its own interchange (UNB/UNZ reference): the same signed content
                // twice would be answered as a replay, and not journaled again.
                let payload = String::from_utf8_lossy(&payload)
                    .replace("EH000001", &format!("{i:08}"))
                    .into_bytes();
                let message = build_secure_message(&SecureMessageSpec {
                    plain: PlainMessageSpec {
                        as2_from: PARTNER,
                        as2_to: edihub_tests::HUB,
                        message_id: &id,
                        subject: "bench",
                        content_type: "application/edifact",
                        payload: &payload,
                        request_mdn_to: Some("as2@acme.example"),
                        request_signed_mdn: secured.then_some(MicAlg::Sha256),
                    },
                    compress: false,
                    sign: secured.then_some((&partner, MicAlg::Sha256)),
                    encrypt: secured.then_some((&hub_cert, Encryption::Aes256Cbc)),
                    boundary: &boundary,
                    now_unix: now,
                })
                .expect("build message");
                (id, message)
            })
            .collect()
    };
    let (plain_messages, https_messages) = (prepare(0, messages), prepare(0, messages));
    let kind = if secured {
        "signed (SHA-256) + encrypted (AES-256-CBC, RSA-2048)"
    } else {
        "plain (AS2_BENCH_PLAIN: no S/MIME, unsigned MDNs)"
    };
    println!(
        "prepared 2 x {messages} {kind} messages in {:.1} s",
        built_at.elapsed().as_secs_f64()
    );

    // The load generator's own MDN checks, so they can be told apart from the gateway.
    let mdn_check_nanos = AtomicU64::new(0);
    let sender = Sender {
        hub_cert: &hub_cert,
        secured,
        concurrency,
        mdn_check_nanos: &mdn_check_nanos,
    };
    let rounds = edihub_tests::env_number("AS2_BENCH_ROUNDS", 4_usize).max(1);
    let chunk = messages.div_ceil(rounds).max(1);
    let cpu_before = CpuSample::take(&app.pool).await;
    let mut plain_run = Run::default();
    let mut https_run = Run::default();
    let mut plain_left = plain_messages.into_iter();
    let mut https_left = https_messages.into_iter();
    for _ in 0..rounds {
        plain_run.add(
            sender
                .send(&app, plain_left.by_ref().take(chunk).collect())
                .await,
        );
        https_run.add(
            sender
                .send(&https, https_left.by_ref().take(chunk).collect())
                .await,
        );
    }
    let elapsed = plain_run.elapsed + https_run.elapsed;
    let cpu = CpuSample::take(&app.pool).await.since(&cpu_before);
    let accepted = app.count("SELECT count(*) FROM edi_message").await
        + https.count("SELECT count(*) FROM edi_message").await;
    assert_eq!(
        accepted,
        2 * messages as i64,
        "every message journaled once"
    );
    let per_gateway = messages;
    let messages = 2 * messages;

    let rate = messages as f64 / elapsed.as_secs_f64();
    println!();
    println!("AS2 ingest ({messages} messages, {concurrency} concurrent, {cores} cores):");
    let checked = if secured {
        "every MDN signed, verified, MIC matched"
    } else {
        "plain: every MDN read, MIC matched"
    };
    let plain_rate = plain_run.print("gateway, plain HTTP", checked);
    let https_rate = https_run.print("gateway, HTTPS", "kept-alive TLS 1.3 connections");
    println!(
        "  HTTPS / plain HTTP    {:>8.1} % of the plain rate (interleaved, {rounds} rounds each)",
        https_rate / plain_rate * 100.0
    );
    println!("  both                  {rate:>9.0} messages/s over the two runs");
    let per_message = |d: Duration| d.as_secs_f64() * 1e3 / messages as f64;
    let mdn_check = Duration::from_nanos(mdn_check_nanos.load(Ordering::Relaxed));
    let postgres = cpu.postgres.map_or("not visible from here".into(), |pg| {
        format!("{:.2} ms", per_message(pg))
    });
    println!(
        "  CPU per message       {:>9.2} ms in this process (gateway and load generator; the generator's MDN checks {:.2} ms), PostgreSQL {postgres}; machine {:.0} % busy",
        per_message(cpu.process),
        per_message(mdn_check),
        cpu.machine_busy_share() * 100.0,
    );
    if secured {
        print_rsa_reference(rate, cores, per_message(mdn_check));
    } else {
        println!(
            "  (plain messages: no RSA work, so no ceiling; the target is for signed + encrypted ones)"
        );
    }
    if secured {
        let beside = edihub_tests::env_number("AS2_BENCH_PURGE_MESSAGES", 3000_usize);
        // Numbered after those each gateway has seen, so that none is a replay.
        purge::ingest_beside_purge(&app, &sender, prepare(per_gateway, beside)).await;
    }
    app.drop_database().await;
    https.drop_database().await;
}

/// Posts messages and checks their MDNs, `concurrency` at a time.
struct Sender<'a> {
    hub_cert: &'a edihub_as2::Certificate,
    secured: bool,
    concurrency: usize,
    mdn_check_nanos: &'a AtomicU64,
}

impl Sender<'_> {
    /// Sends `batch` to `app`; each message's latency, and the time the batch took.
    async fn send(
        &self,
        app: &TestApp,
        batch: Vec<(String, SecureMessage)>,
    ) -> (Vec<Duration>, Duration) {
        let started = Instant::now();
        let latencies = futures::stream::iter(batch)
            .map(|(id, secure)| self.send_one(app, id, secure))
            .buffer_unordered(self.concurrency)
            .collect()
            .await;
        (latencies, started.elapsed())
    }

    async fn send_one(&self, app: &TestApp, id: String, secure: SecureMessage) -> Duration {
        let sent = Instant::now();
        let response = app
            .post_raw(&secure.message.headers, secure.message.body)
            .await;
        let latency = sent.elapsed();
        assert_eq!(response.status, 200, "{id}");
        let checking = thread_cpu_time();
        let mdn = edihub_as2::read_mdn(
            response.content_type(),
            &response.body,
            std::slice::from_ref(self.hub_cert),
        )
        .unwrap_or_else(|e| panic!("{id}: {e}"));
        let spent = thread_cpu_time().saturating_sub(checking);
        self.mdn_check_nanos
            .fetch_add(spent.as_nanos() as u64, Ordering::Relaxed);
        assert_eq!(mdn.signed, self.secured, "{id}: MDN signed or not as asked");
        assert_eq!(
            mdn.report.disposition,
            edihub_as2::Disposition::Processed,
            "{id}"
        );
        assert_eq!(
            mdn.report.received_content_mic.as_ref(),
            Some(&secure.expected_mic),
            "{id}: MIC"
        );
        latency
    }
}

/// One transport's rounds, added up.
#[derive(Default)]
struct Run {
    latencies: Vec<Duration>,
    elapsed: Duration,
}

impl Run {
    fn add(&mut self, (latencies, elapsed): (Vec<Duration>, Duration)) {
        self.latencies.extend(latencies);
        self.elapsed += elapsed;
    }

    /// Prints the rate and latencies; returns the rate.
    fn print(&mut self, name: &str, note: &str) -> f64 {
        self.latencies.sort();
        let rate = self.latencies.len() as f64 / self.elapsed.as_secs_f64();
        println!(
            "  {name:<21} {rate:>9.0} messages/s   p50 {:>6.1} ms   p99 {:>6.1} ms   ({note})",
            percentile(&self.latencies, 0.50).as_secs_f64() * 1e3,
            percentile(&self.latencies, 0.99).as_secs_f64() * 1e3,
        );
        rate
    }
}

/// The RSA-2048 reference next to a signed + encrypted run's `rate` (messages/s): the
/// ceiling `openssl speed` implies, the bound of this bench given the generator's own
/// `mdn_check_ms` per message, and the target.
fn print_rsa_reference(rate: f64, cores: usize, mdn_check_ms: f64) {
    let cores_f = cores as f64;
    let ia32cap = std::env::var(IA32CAP).ok();
    match openssl_rsa2048_sign_per_second(None) {
        Some(sign) => {
            let ceiling = sign * cores_f / 2.0;
            let setting = match &ia32cap {
                Some(mask) => format!(", {IA32CAP}={mask} as for the gateway"),
                None => String::new(),
            };
            println!(
                "  openssl speed rsa2048 {sign:>9.0} private-key ops/s per core -> ceiling {ceiling:.0} messages/s ({cores} cores x ops / 2 per message{setting})"
            );
            println!("  share of the ceiling  {:>8.0} %", rate / ceiling * 100.0);
            let rsa_ms = 2e3 / sign;
            println!(
                "  RSA per message       {rsa_ms:>9.2} ms (2 private-key ops at that rate); the target leaves {:.2} ms of CPU per message on {cores} cores",
                cores_f * 1e3 / TARGET_MESSAGES_PER_SECOND,
            );
            // What no gateway could beat in this bench: the RSA work plus the load
            // generator's own MDN checks, which share the cores, with all else free.
            let floor_ms = rsa_ms + mdn_check_ms;
            println!(
                "  bound of this bench   {:>9.0} messages/s (RSA at that rate plus the generator's MDN checks, {floor_ms:.2} ms per message, everything else free)",
                cores_f * 1e3 / floor_ms,
            );
        }
        None => println!("  openssl speed rsa2048: not available on this machine"),
    }
    if ia32cap.is_none()
        && let Some(sign) = openssl_rsa2048_sign_per_second(Some(AVX2_INSTEAD_OF_ADX))
    {
        println!(
            "  (with {IA32CAP}={AVX2_INSTEAD_OF_ADX}: {sign:.0} ops/s per core; if higher, set it for the gateway: docs/benchmarks.md, Tuning)"
        );
    }
    println!("  target (DESIGN.md)    {TARGET_MESSAGES_PER_SECOND:>9.0} messages/s");
}
