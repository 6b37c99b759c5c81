//! The transform consumer: turns INVOIC messages into canonical invoices.

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    edihub_config::telemetry::init("transform-consumer");
    let settings: transform_consumer::Settings = edihub_config::load()?;
    transform_consumer::run(settings, edihub_config::shutdown::on_signal()).await
}
