//! Wiring of the outbox relay: the only process that publishes to Kafka.

use edihub_config::{DatabaseSettings, KafkaSettings, RelaySettings};
use edihub_kafka::KafkaPublisher;
use edihub_metrics::component;
use edihub_outbox::Relay;
use serde::Deserialize;
use std::time::Duration;
use tokio_util::sync::CancellationToken;

#[derive(Debug, Clone, Deserialize)]
#[serde(default)]
pub struct Settings {
    pub database: DatabaseSettings,
    pub kafka: KafkaSettings,
    pub relay: RelaySettings,
    /// Where `/metrics`, `/health` and `/ready` are served (port 0 picks one).
    #[serde(default = "default_ops_listen")]
    pub ops_listen: String,
}

fn default_ops_listen() -> String {
    "127.0.0.1:9101".into()
}

impl Default for Settings {
    fn default() -> Self {
        Self {
            database: Default::default(),
            kafka: Default::default(),
            relay: Default::default(),
            ops_listen: default_ops_listen(),
        }
    }
}

/// Builds the relay (fails fast on bad settings) and runs it until `shutdown`; the
/// batch in flight is finished and the producer flushed before returning.
pub async fn run(settings: Settings, shutdown: CancellationToken) -> anyhow::Result<()> {
    let pool = edihub_db::pool(&settings.database)?;
    let publisher = KafkaPublisher::new(&settings.kafka)?;
    // Ready when the database answers; each scrape refreshes the backlog gauges.
    let probe = edihub_metrics::probe_with(pool.clone(), |pool| async move {
        edihub_outbox::admin::refresh_gauges(&pool).await
    });
    let relay = Relay::new(pool, publisher.clone(), settings.relay);
    // The producer is flushed after a clean stop only: on an error the process exits.
    let work = {
        let shutdown = shutdown.clone();
        async move {
            let stopped = relay.run(shutdown).await;
            stopped.inspect(|()| publisher.flush(Duration::from_secs(10)))
        }
    };
    component::run(&settings.ops_listen, probe, work, shutdown).await?;
    Ok(())
}

#[cfg(test)]
mod tests;
