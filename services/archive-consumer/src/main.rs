//! The archive consumer: stores each original immutably for the fiscal audit.

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    edihub_config::telemetry::init("archive-consumer");
    let settings: archive_consumer::Settings = edihub_config::load()?;
    archive_consumer::run(settings, edihub_config::shutdown::on_signal()).await
}
