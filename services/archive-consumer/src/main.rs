//! The archive consumer: stores each original immutably for the fiscal audit.

// Many short-lived allocations per message (parser, S/MIME): mimalloc serves them
// markedly faster than glibc's malloc (docs/benchmarks.md).
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    edihub_config::telemetry::init("archive-consumer");
    let settings: archive_consumer::Settings = edihub_config::load()?;
    // Run as a task, not in `block_on`: a worker that reads a socket then runs the task
    // it woke itself, instead of waking the main thread for it (docs/benchmarks.md).
    let service = archive_consumer::run(settings, edihub_config::shutdown::on_signal());
    tokio::spawn(service).await?
}
