//! Wiring of the archive consumer: Kafka in, object-locked originals in S3 out.

use edihub_archive::{ArchiveStore, Archiver};
use edihub_config::{ConsumerSettings, DatabaseSettings, KafkaSettings, S3Settings};
use serde::Deserialize;
use tokio_util::sync::CancellationToken;

/// The default consumer group, which is also the consumer's name in the inbox.
pub const DEFAULT_GROUP: &str = "edihub-archive";

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default)]
pub struct Settings {
    pub database: DatabaseSettings,
    pub kafka: KafkaSettings,
    pub s3: S3Settings,
    pub consumer: ConsumerSettings,
}

pub async fn run(settings: Settings, shutdown: CancellationToken) -> anyhow::Result<()> {
    let group = match settings.consumer.group_id.as_str() {
        "" => DEFAULT_GROUP,
        group => group,
    };
    let pool = edihub_db::pool(&settings.database)?;
    let archiver = Archiver::new(pool, ArchiveStore::new(&settings.s3), group);
    edihub_kafka::run_consumer(
        &settings.kafka,
        group,
        &settings.kafka.topics.inbound_received,
        archiver,
        shutdown,
    )
    .await?;
    Ok(())
}
