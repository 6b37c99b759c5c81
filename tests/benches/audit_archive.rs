//! Audit archive benchmark (not a test), issue 14: EDIHUB_BENCH_MESSAGES (10,000)
//! signed and encrypted INVOIC messages go through the four services (release
//! processes, as in `whole_path`) at EDIHUB_BENCH_CONCURRENCY (8) concurrent. It prints
//! the archive consumer's rate (evidence objects, ledger entries, seals) next to the
//! ingest rate of the same run, then times the auditor's commands on what was archived:
//! `edihub audit export` of all the messages and of a tenth of them (peak memory of
//! each, read by wait4), and offline `edihub audit verify` of the full bundle, in
//! messages/s and MB/s next to `sha256sum` of the same bundle.
//!
//!     bash deploy/stack.sh up
//!     cargo build --release --bins     # the bench runs these binaries; it builds none
//!     cargo bench -p edihub-tests --bench audit_archive
//!
//! The database, topics and bucket are the run's own; the database is dropped at the
//! end, the bundles and logs stay in the folder printed first.

// The whole-path bench's hub, services, load and meter, shared from its folder.
#[path = "whole_path/hub.rs"]
mod hub;
// Only the closed loop is used here; the open loop is whole_path's.
#[allow(dead_code)]
#[path = "whole_path/load.rs"]
mod load;
#[path = "whole_path/meter.rs"]
mod meter;
#[path = "whole_path/services.rs"]
mod services;
#[path = "whole_path/wait.rs"]
mod wait;

#[path = "audit_archive/child.rs"]
mod child;
#[path = "audit_archive/commands.rs"]
mod commands;
#[path = "audit_archive/rates.rs"]
mod rates;
#[path = "audit_archive/s3_reference.rs"]
mod s3_reference;

use child::Measured;
use chrono::Utc;
use hub::Hub;
use load::{Partner, Posted, Sender};
use meter::{Meter, Spent};
use services::{SERVICES, Services};
use std::time::{Duration, Instant};
use wait::wait_until_done;

#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

#[tokio::main(flavor = "multi_thread")]
async fn main() {
    let messages = edihub_tests::env_number("EDIHUB_BENCH_MESSAGES", 10_000_usize).max(10);
    let concurrency = edihub_tests::env_number("EDIHUB_BENCH_CONCURRENCY", 8_usize).max(1);
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());

    let hub = Hub::create(&SERVICES).await;
    let dir = std::env::temp_dir().join(format!("edihub-audit-archive-{}", hub.suffix));
    std::fs::create_dir_all(&dir).expect("bench folder");
    println!(
        "audit archive: service logs and bundles in {}",
        dir.display()
    );
    let services = Services::start(&hub, &dir, concurrency).await;
    let meter = Meter::new(&services.pids(), &hub.kafka.brokers);

    let partner = Partner::load();
    let warm = partner.prepare(0, 20, &hub.suffix);
    let load = partner.prepare(20, messages, &hub.suffix);
    let sender = Sender::new(&hub.as2_url, &partner);
    let warmed = sender.closed(warm, concurrency).await;
    all_accepted(&warmed);
    wait_until_done(&hub.pool, warmed.len()).await;

    let started = Utc::now();
    let before = meter.read(&hub.pool).await;
    let clock = Instant::now();
    let posted = sender.closed(load, concurrency).await;
    let ingest = clock.elapsed();
    let ingest_end = Utc::now();
    all_accepted(&posted);
    wait_until_done(&hub.pool, warmed.len() + posted.len()).await;
    let spent = meter.read(&hub.pool).await.since(&before, &meter);
    let rates = rates::archive_rates(&hub.pool, started, ingest_end).await;
    let tenth_end = rates::nth_received(&hub.pool, started, messages as i64 / 10).await;
    drop(services); // the audit commands then have the machine to themselves

    let config = hub.settings_file("edihub", 1);
    let seal = commands::seal(&config, &dir);
    let shape = s3_reference::shape(&hub.pool, started).await;
    let store = edihub_archive::ArchiveStore::new(&hub.s3);
    let s3 = s3_reference::measure(&store, &shape, 2_000).await;
    let full = dir.join("all.tar");
    let tenth = dir.join("tenth.tar");
    let period_end = Utc::now() + chrono::Duration::minutes(1);
    let exported = commands::export(&config, &dir, (started, period_end), &full);
    let exported_tenth = commands::export(&config, &dir, (started, tenth_end), &tenth);
    let verified = commands::verify_offline(&config, &dir, &full);
    let reference = commands::sha256sum(&dir, &full);
    let _ = std::fs::remove_file(&config);

    println!();
    println!("Audit archive ({messages} messages, {concurrency} concurrent, {cores} cores)");
    let ingest_rate = messages as f64 / ingest.as_secs_f64();
    println!(
        "  ingest (POST -> MDN)          {ingest_rate:>8.1} messages/s ({messages} in {:.1} s)",
        ingest.as_secs_f64()
    );
    print_archive(&rates, ingest);
    println!(
        "    S3 server alone (reference)  {:>8.1} messages/s at most: {:.0} locked PUTs/s, {} at once, {:.1} objects of {:.1} kB per message",
        s3.puts / shape.objects_per_message,
        s3.puts,
        s3.put_concurrency,
        shape.objects_per_message,
        shape.mean_size as f64 / 1e3
    );
    print_cpu(&spent, messages);
    println!(
        "  audit seal (the rest)         {:.2} s ({})",
        seal.wall.as_secs_f64(),
        seal.stdout.trim()
    );
    let bundle_bytes = std::fs::metadata(&full).map_or(0, |m| m.len());
    println!(
        "Bundle: {} ({:.1} MB)",
        full.display(),
        bundle_bytes as f64 / 1e6
    );
    println!(
        "  S3 server alone (reference)    {:>6.1} messages/s at most: {:.0} GETs/s one after the other",
        s3.gets / shape.objects_per_message,
        s3.gets
    );
    print_command("export, all", &exported.0, exported.1, bundle_bytes);
    let tenth_bytes = std::fs::metadata(&tenth).map_or(0, |m| m.len());
    print_command(
        "export, a tenth",
        &exported_tenth.0,
        exported_tenth.1,
        tenth_bytes,
    );
    print_command("verify offline, all", &verified, exported.1, bundle_bytes);
    print_command(
        "sha256sum (reference)",
        &reference,
        exported.1,
        bundle_bytes,
    );
    hub.drop_database().await;
}

fn all_accepted(posted: &[Posted]) {
    let failed: Vec<&String> = posted.iter().filter_map(|p| p.failure.as_ref()).collect();
    assert!(
        failed.is_empty(),
        "{} messages not accepted (first: {:?})",
        failed.len(),
        failed.first()
    );
}

fn print_archive(rates: &rates::ArchiveRates, ingest: Duration) {
    let until = rates.until_last_archived.as_secs_f64();
    println!(
        "  archive, same run             {:>8.1} messages/s ({} archived, first POST to the last archived: {until:.1} s)",
        rates.archived as f64 / until.max(f64::EPSILON),
        rates.archived
    );
    println!(
        "    while ingesting             {:>8.1} messages/s (backlog when the last MDN was read: {}, drained {:.1} s later)",
        rates.archived_during_ingest as f64 / ingest.as_secs_f64(),
        rates.archived - rates.archived_during_ingest,
        (until - ingest.as_secs_f64()).max(0.0)
    );
    println!(
        "    received -> archived        p50 {:.2} s   p99 {:.2} s",
        rates.lag_p50.as_secs_f64(),
        rates.lag_p99.as_secs_f64()
    );
}

/// CPU per message of each process during the ingest and archive phase.
fn print_cpu(spent: &Spent, messages: usize) {
    println!(
        "  CPU per message (ms), machine busy {:.0} %:",
        spent.usage.machine_busy_share() * 100.0
    );
    for (label, time) in &spent.rows {
        match time {
            Some(t) => println!(
                "    {label:<34} {:>7.2}",
                t.as_secs_f64() * 1e3 / messages as f64
            ),
            None => println!("    {label:<34}     n/a"),
        }
    }
}

fn print_command(name: &str, measured: &Measured, messages: u64, bytes: u64) {
    let seconds = measured.wall.as_secs_f64().max(f64::EPSILON);
    println!(
        "  {name:<24} {messages:>6} messages {:>8.2} s {:>9.1} messages/s {:>8.1} MB/s   CPU {:>6.2} s   peak RSS {:>7.1} MiB",
        seconds,
        messages as f64 / seconds,
        bytes as f64 / 1e6 / seconds,
        measured.cpu.as_secs_f64(),
        measured.max_rss_mib()
    );
    if measured.wall >= Duration::from_secs(10) {
        let by = |fraction| measured.max_rss_mib_by(fraction);
        println!(
            "    peak RSS by a quarter, half, three quarters of the time: {:.1}, {:.1}, {:.1} MiB",
            by(0.25),
            by(0.5),
            by(0.75)
        );
        let late = measured.wall.mul_f64(0.75);
        let rises: Vec<String> = measured
            .rises
            .iter()
            .filter(|(at, _)| *at > late)
            .map(|(at, kib)| format!("{:.1} s: {:.1}", at.as_secs_f64(), *kib as f64 / 1024.0))
            .collect();
        let shown = rises.len().saturating_sub(6);
        println!("    its last rises (MiB): {}", rises[shown..].join(", "));
    }
}
