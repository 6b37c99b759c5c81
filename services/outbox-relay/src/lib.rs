//! Wiring of the outbox relay: the only process that publishes to Kafka.

use edihub_config::{DatabaseSettings, KafkaSettings, RelaySettings};
use edihub_kafka::KafkaPublisher;
use edihub_outbox::Relay;
use serde::Deserialize;
use std::time::Duration;
use tokio_util::sync::CancellationToken;

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default)]
pub struct Settings {
    pub database: DatabaseSettings,
    pub kafka: KafkaSettings,
    pub relay: RelaySettings,
}

/// Builds the relay (fails fast on bad settings) and runs it until `shutdown`; the
/// batch in flight is finished and the producer flushed before returning.
pub async fn run(settings: Settings, shutdown: CancellationToken) -> anyhow::Result<()> {
    let pool = edihub_db::pool(&settings.database)?;
    let publisher = KafkaPublisher::new(&settings.kafka)?;
    let relay = Relay::new(pool, publisher.clone(), settings.relay);
    relay.run(shutdown).await?;
    publisher.flush(Duration::from_secs(10));
    Ok(())
}
