//! The AS2 gateway: receives partners' messages, journals them with their outbox event in
//! one transaction, then answers with the MDN.

use as2_gateway::{Application, Settings};

// Many short-lived allocations per message (parser, S/MIME): mimalloc serves them
// markedly faster than glibc's malloc (docs/benchmarks.md).
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    edihub_config::telemetry::init("as2-gateway");
    let settings: Settings = edihub_config::load()?;
    let app = Application::build(settings).await?;
    tracing::info!(
        address = %app.address(),
        ops = ?app.ops_address(),
        "as2-gateway listening (operations endpoint: ops)"
    );
    // Run as a task, not in `block_on`: a worker that reads a socket then runs the task
    // it woke itself, instead of waking the main thread for it (docs/benchmarks.md).
    let serving = app.run_until_stopped(edihub_config::shutdown::on_signal());
    tokio::spawn(serving).await??;
    Ok(())
}
