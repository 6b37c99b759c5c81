//! Wiring of the outbox relay: the only process that publishes to Kafka, and the
//! sender of outbound AS2 messages (a second relay, on the `as2-outbound` channel).

mod claim_checks;
mod outbound;
mod own_thread;

pub use outbound::OutboundRelay;

use edihub_config::{
    ConsumerSettings, DatabaseSettings, GatewaySettings, KafkaSettings, RelaySettings, S3Settings,
};
use edihub_kafka::KafkaPublisher;
use edihub_metrics::component;
use edihub_outbound::SenderSettings;
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
    /// The outbound sender: retry, timeouts, proxy (`[outbound]`).
    pub outbound: SenderSettings,
    /// Read for the hub's identities and the file's partnerships (the same
    /// `[gateway]` section the gateway reads), which the outbound sender uses.
    pub gateway: GatewaySettings,
    /// The consumer of `OutboundRequested` events (`[outbound_requests]`; group
    /// [`REQUESTS_GROUP`] unless set), run with the sender when `outbound.requests`.
    pub outbound_requests: ConsumerSettings,
    /// The endpoint and credentials for requests' claim checks; the bucket read is
    /// `outbound.claim_check_bucket`, not `s3.bucket`.
    pub s3: S3Settings,
    /// Where `/metrics`, `/health` and `/ready` are served (port 0 picks one).
    #[serde(default = "default_ops_listen")]
    pub ops_listen: String,
}

/// The default consumer group of `OutboundRequested` events, which is also the
/// consumer's name in the inbox.
pub const REQUESTS_GROUP: &str = "edihub-outbound-requests";

fn default_ops_listen() -> String {
    "127.0.0.1:9101".into()
}

impl Default for Settings {
    fn default() -> Self {
        Self {
            database: Default::default(),
            kafka: Default::default(),
            relay: Default::default(),
            outbound: Default::default(),
            gateway: Default::default(),
            outbound_requests: Default::default(),
            s3: Default::default(),
            ops_listen: default_ops_listen(),
        }
    }
}

/// Builds the relays (fails fast on bad settings) and runs them until `shutdown`; the
/// batches in flight are finished and the producer flushed before returning.
pub async fn run(settings: Settings, shutdown: CancellationToken) -> anyhow::Result<()> {
    let pool = edihub_db::pool(&settings.database)?;
    let publisher = KafkaPublisher::new(&settings.kafka)?;
    // Ready when the database answers; each scrape refreshes the backlog gauges, the
    // outbox's and the outbound messages'.
    let probe = edihub_metrics::probe_with(pool.clone(), |pool| async move {
        let outbound = edihub_outbound::stats::refresh(&pool).await;
        if let Err(error) = &outbound {
            tracing::warn!(%error, "cannot read the outbound backlog");
        }
        edihub_outbox::admin::refresh_gauges(&pool).await && outbound.is_ok()
    });
    let outbound = match settings.outbound.enabled {
        true => Some(OutboundRelay::build(&settings, pool.clone()).await?),
        false => None,
    };
    let relay = {
        let (database, relay_settings, publisher) = (
            settings.database.clone(),
            settings.relay.clone(),
            publisher.clone(),
        );
        let shutdown = shutdown.clone();
        own_thread::spawn("kafka relay", move || async move {
            let pool = edihub_db::pool(&database)?;
            Relay::new(pool, publisher, relay_settings)
                .run(shutdown)
                .await
        })?
    };
    // The producer is flushed after a clean stop only: on an error the process exits.
    let work = {
        let shutdown = shutdown.clone();
        async move {
            let sending = async {
                if let Some(outbound) = outbound {
                    outbound.run(shutdown.clone()).await;
                }
            };
            let (stopped, ()) = tokio::join!(relay, sending);
            stopped.map_err(|_| RelayStopped::ThreadLost)??;
            publisher.flush(Duration::from_secs(10));
            Ok::<(), RelayStopped>(())
        }
    };
    component::run(&settings.ops_listen, probe, work, shutdown).await?;
    Ok(())
}

/// Why the Kafka relay stopped other than by shutdown.
#[derive(Debug, thiserror::Error)]
enum RelayStopped {
    #[error(transparent)]
    Database(#[from] sqlx::Error),
    #[error("the Kafka relay's thread ended without an outcome (it panicked)")]
    ThreadLost,
}

#[cfg(test)]
mod tests;
