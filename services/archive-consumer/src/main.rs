//! The archive consumer: stores each original immutably for the fiscal audit.

// Many short-lived allocations per message (parser, S/MIME): mimalloc serves them
// markedly faster than glibc's malloc (docs/benchmarks.md).
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

// One thread: the consumer mostly waits for the broker, the database and S3, and on a
// multi-threaded runtime every wake-up was handed between threads (docs/benchmarks.md,
// "the relay's wake-ups"). Parsing runs on the blocking pool.
#[tokio::main(flavor = "current_thread")]
async fn main() -> anyhow::Result<()> {
    edihub_config::telemetry::init("archive-consumer");
    let settings: archive_consumer::Settings = edihub_config::load()?;
    archive_consumer::run(settings, edihub_config::shutdown::on_signal()).await
}
