//! Wiring of the transform consumer: Kafka in, canonical invoices and their events out.

use edihub_config::{ConsumerSettings, DatabaseSettings, KafkaSettings};
use edihub_transform::Transformer;
use serde::Deserialize;
use tokio_util::sync::CancellationToken;

/// The default consumer group, which is also the consumer's name in the inbox.
pub const DEFAULT_GROUP: &str = "edihub-transform";

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default)]
pub struct Settings {
    pub database: DatabaseSettings,
    pub kafka: KafkaSettings,
    pub consumer: ConsumerSettings,
}

pub async fn run(settings: Settings, shutdown: CancellationToken) -> anyhow::Result<()> {
    let group = match settings.consumer.group_id.as_str() {
        "" => DEFAULT_GROUP,
        group => group,
    };
    let pool = edihub_db::pool(&settings.database)?;
    let transformer = Transformer::new(pool, settings.kafka.topics.clone(), group);
    edihub_kafka::run_consumer(
        &settings.kafka,
        group,
        &settings.kafka.topics.inbound_received,
        transformer,
        shutdown,
    )
    .await?;
    Ok(())
}
