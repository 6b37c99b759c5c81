//! Whole-path benchmark (not a test): the four services run as release processes on the
//! local stack, signed and encrypted INVOIC messages are posted over AS2, and each is
//! followed until it is archived and transformed. It prints end-to-end messages/s, the
//! latencies POST -> MDN, -> archived and -> transformed, the CPU per message of every
//! process (the services, PostgreSQL with all its backends, and apart, the broker and S3
//! stand-ins), the machine's busy share, and the RSA reference `openssl speed` gives in
//! the same run.
//!
//!     bash deploy/stack.sh up
//!     cargo build --release --bins     # the bench runs these binaries; it builds none
//!     cargo bench -p edihub-tests --bench whole_path
//!
//! (A bench cannot run cargo itself: cargo holds the target directory's lock while it
//! runs the bench.) Each run has its own database (dropped at the end), topics, bucket
//! and consumer groups. After a warm-up (EDIHUB_BENCH_WARMUP, 20 messages) that lets
//! the consumers join their groups, two phases of EDIHUB_BENCH_MESSAGES (600) each:
//! a closed loop at EDIHUB_BENCH_CONCURRENCY (8) concurrent, then an open loop at
//! EDIHUB_BENCH_RATE (100) messages/s. Last, the relay alone at that rate for
//! EDIHUB_BENCH_STEADY_SECONDS (10): its CPU per event (`steady.rs`). EDIHUB_BENCH_RUST_LOG sets the services' log
//! filter (info,sqlx=warn); their logs stay in the folder printed first.
//! EDIHUB_BENCH_RELAY_LINGER_MS sets the relay's `linger_ms`. EDIHUB_BENCH_EXTRA_SETTINGS
//! is appended to every service's settings file (`\n` for a line break), e.g.
//! `'[outbound]\nenabled = false'`.
//! EDIHUB_BENCH_BIN_DIR runs the services from another folder (a copy of an earlier
//! build), so that two versions can be measured in turn on the same machine.
//!
//! When the server preloads pg_stat_statements, each phase also prints PostgreSQL's
//! costliest statements per message.
//!
//! EDIHUB_BENCH_SAVE=FILE keeps a run's figures; EDIHUB_BENCH_BASELINE=FILE prints issue
//! 17's goals against those of an earlier run (`goals.rs`): run the build before a
//! change with the first, the build after it with the second, and again in turn.
//!
//! Latencies end at the `now()` the consumer's transaction stamped its row with
//! (`archive_record.archived_at`, `canonical_invoice.created_at`): when that
//! transaction began, a few milliseconds before its commit (the archive consumer's S3
//! PUT lies in between). A phase's CPU is read from `/proc` when its last message is
//! done, so the bench's own progress queries (two counts every 100 ms) are in
//! PostgreSQL's figure, and the machine is shared: "other processes" is what ran
//! besides the hub, the stack and this bench.

// The crate root's modules resolve beside it, in benches/, where other benches live.
#[path = "whole_path/goals.rs"]
mod goals;
#[path = "whole_path/hub.rs"]
mod hub;
#[path = "whole_path/load.rs"]
mod load;
#[path = "whole_path/meter.rs"]
mod meter;
#[path = "whole_path/report.rs"]
mod report;
#[path = "whole_path/services.rs"]
mod services;
#[path = "whole_path/statements.rs"]
mod statements;
#[path = "whole_path/steady.rs"]
mod steady;
#[path = "whole_path/wait.rs"]
mod wait;

use hub::Hub;
use load::{Partner, Posted, Sender};
use meter::Meter;
use report::Phase;
use services::{SERVICES, Services};
use std::future::Future;
use std::time::Instant;
use wait::wait_until_done;

// The allocator the services run with, for the load generator too.
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

#[tokio::main(flavor = "multi_thread")]
async fn main() {
    let messages = edihub_tests::env_number("EDIHUB_BENCH_MESSAGES", 600_usize).max(1);
    let concurrency = edihub_tests::env_number("EDIHUB_BENCH_CONCURRENCY", 8_usize).max(1);
    let rate = edihub_tests::env_number("EDIHUB_BENCH_RATE", 100.0_f64).max(0.1);
    let warmup = edihub_tests::env_number("EDIHUB_BENCH_WARMUP", 20_usize).max(1);
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());

    let hub = Hub::create(&SERVICES).await;
    let logs = std::env::temp_dir().join(format!("edihub-whole-path-{}", hub.suffix));
    println!("whole path: service logs in {}", logs.display());
    // Started on this (the main) thread: see the death signal in services.rs. The
    // gateway must take the open loop's backlog without answering 429.
    let services = Services::start(&hub, &logs, concurrency.max(1024)).await;
    let meter = Meter::new(&services.pids(), &hub.kafka.brokers);
    let with_statements = statements::enable(&hub.pool).await;

    let built = Instant::now();
    let partner = Partner::load();
    let warm = partner.prepare(0, warmup, &hub.suffix);
    let closed = partner.prepare(warmup, messages, &hub.suffix);
    let open = partner.prepare(warmup + messages, messages, &hub.suffix);
    println!(
        "prepared {} signed (SHA-256) + encrypted (AES-256-CBC, RSA-2048) INVOIC messages in {:.1} s",
        warmup + 2 * messages,
        built.elapsed().as_secs_f64()
    );
    let sender = Sender::new(&hub.as2_url, &partner);

    let warmed = sender.closed(warm, concurrency).await;
    if let Some(failure) = warmed.iter().find_map(|p| p.failure.as_ref()) {
        panic!("warm-up message not accepted: {failure}");
    }
    wait_until_done(&hub.pool, warmed.len()).await;

    let mut done = warmed.len();
    let mut phases = Vec::new();
    let detail = format!("{messages} messages, {concurrency} concurrent");
    let load = sender.closed(closed, concurrency);
    let phase = measure(&hub, &meter, ("closed loop", detail), done, load).await;
    done += phase.accepted();
    phases.push(phase);
    let detail = format!("{messages} messages offered at {rate} per second");
    let load = sender.open(open, rate);
    phases.push(measure(&hub, &meter, ("open loop", detail), done, load).await);
    let seconds = edihub_tests::env_number("EDIHUB_BENCH_STEADY_SECONDS", 10.0_f64).max(1.0);
    let steady = steady::run(&hub, &meter, rate, seconds).await;
    drop(services); // before openssl speed, which then has the cores to itself

    println!();
    println!(
        "Whole path (4 services as release processes, {cores} cores, a shared machine: figures are noisy)"
    );
    let rates: Vec<f64> = phases.iter().map(Phase::print).collect();
    report::print_cpu(&phases);
    report::print_rsa_reference(&phases);
    steady.print();
    let figures = goals::Figures::of(&phases, &rates, &steady);
    if let Some(path) = std::env::var_os("EDIHUB_BENCH_BASELINE") {
        let path = std::path::PathBuf::from(path);
        figures.print_goals(&goals::Figures::load(&path), &path);
    }
    if let Some(path) = std::env::var_os("EDIHUB_BENCH_SAVE") {
        figures.save(std::path::Path::new(&path));
    }
    if !with_statements {
        println!(
            "PostgreSQL statements: not measured (the server does not preload pg_stat_statements)"
        );
    }
    for phase in phases.iter().filter(|p| !p.statements.is_empty()) {
        statements::print(phase.name, &phase.statements, phase.accepted(), 15);
    }
    hub.drop_database().await;
}

/// Runs `load` (posting one phase's messages), waits until every message it got
/// accepted is archived and transformed (`before` were already), and returns the
/// phase's figures.
async fn measure(
    hub: &Hub,
    meter: &Meter,
    (name, detail): (&'static str, String),
    before: usize,
    load: impl Future<Output = Vec<Posted>>,
) -> Phase {
    statements::reset(&hub.pool).await;
    let start = meter.read(&hub.pool).await;
    let posted = load.await;
    let accepted = posted.iter().filter(|p| p.failure.is_none()).count();
    wait_until_done(&hub.pool, before + accepted).await;
    let spent = meter.read(&hub.pool).await.since(&start, meter);
    // Before the latencies' query, which is the bench's, not the hub's.
    let statements = statements::read(&hub.pool).await;
    Phase {
        name,
        detail,
        posted,
        spent,
        done: report::done(&hub.pool).await,
        statements,
    }
}
