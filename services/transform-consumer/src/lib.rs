//! Wiring of the transform consumer: Kafka in, canonical invoices and their events out.

use edihub_config::{ConsumerSettings, DatabaseSettings, KafkaSettings, S3Settings};
use edihub_metrics::component;
use edihub_transform::Transformer;
use serde::Deserialize;
use tokio_util::sync::CancellationToken;

/// The default consumer group, which is also the consumer's name in the inbox.
pub const DEFAULT_GROUP: &str = "edihub-transform";

#[derive(Debug, Clone, Deserialize)]
#[serde(default)]
pub struct Settings {
    pub database: DatabaseSettings,
    pub kafka: KafkaSettings,
    pub consumer: ConsumerSettings,
    /// The archive, read for messages purged from the journal (`edihub journal purge`).
    pub s3: S3Settings,
    /// Where `/metrics`, `/health` and `/ready` are served (port 0 picks one).
    #[serde(default = "default_ops_listen")]
    pub ops_listen: String,
}

fn default_ops_listen() -> String {
    "127.0.0.1:9102".into()
}

impl Default for Settings {
    fn default() -> Self {
        Self {
            database: Default::default(),
            kafka: Default::default(),
            consumer: Default::default(),
            s3: Default::default(),
            ops_listen: default_ops_listen(),
        }
    }
}

/// Builds the consumer (fails fast on bad settings) and runs it until `shutdown`: it
/// maps each received message to canonical invoices and their events, and stops
/// between events.
pub async fn run(settings: Settings, shutdown: CancellationToken) -> anyhow::Result<()> {
    let consumer = settings.consumer.clone().or_default_group(DEFAULT_GROUP);
    let group = consumer.group_id.as_str();
    let pool = edihub_db::pool(&settings.database)?;
    let probe = edihub_metrics::probe_with(pool.clone(), |pool| async move {
        edihub_db::is_reachable(&pool).await
    });
    let archive = edihub_archive::ArchivedPayloads::new(
        pool.clone(),
        edihub_archive::ArchiveStore::new(&settings.s3),
    );
    let transformer = Transformer::new(pool, settings.kafka.topics.clone(), group)
        .with_archive(std::sync::Arc::new(archive));
    let work = edihub_kafka::run_consumer(
        &settings.kafka,
        &consumer,
        &settings.kafka.topics.inbound_received,
        transformer,
        shutdown.clone(),
    );
    component::run(&settings.ops_listen, probe, work, shutdown).await?;
    Ok(())
}

#[cfg(test)]
mod tests;
