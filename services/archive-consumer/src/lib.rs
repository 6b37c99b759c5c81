//! Wiring of the archive consumer: Kafka in, each message's evidence object-locked in
//! S3 and chained in the audit ledger out; beside it, the sealer of ledger segments.

mod backlog;
mod seal;

pub use seal::SealSetupError;

use edihub_archive::{ArchiveStore, Archiver};
use edihub_config::{
    ArchiveSettings, ConsumerSettings, DatabaseSettings, KafkaSettings, S3Settings,
};
use edihub_ledger::Sealer;
use edihub_metrics::component;
use serde::Deserialize;
use tokio_util::sync::CancellationToken;

/// The default consumer group, which is also the consumer's name in the inbox.
pub const DEFAULT_GROUP: &str = "edihub-archive";

#[derive(Debug, Clone, Deserialize)]
#[serde(default)]
pub struct Settings {
    pub database: DatabaseSettings,
    pub kafka: KafkaSettings,
    pub s3: S3Settings,
    pub consumer: ConsumerSettings,
    /// The ledger's sealing: key (required) and policy.
    pub archive: ArchiveSettings,
    /// Where `/metrics`, `/health` and `/ready` are served (port 0 picks one).
    #[serde(default = "default_ops_listen")]
    pub ops_listen: String,
}

fn default_ops_listen() -> String {
    "127.0.0.1:9103".into()
}

impl Default for Settings {
    fn default() -> Self {
        Self {
            database: Default::default(),
            kafka: Default::default(),
            s3: Default::default(),
            consumer: Default::default(),
            archive: Default::default(),
            ops_listen: default_ops_listen(),
        }
    }
}

/// Builds the consumer and the sealer (fails fast on bad settings, a missing sealing key
/// among them) and runs both until `shutdown`: the consumer archives each received
/// message's evidence and stops between events, the sealer seals the ledger's stored
/// entries into signed segments.
pub async fn run(settings: Settings, shutdown: CancellationToken) -> anyhow::Result<()> {
    let key = seal::sealing_key(&settings.archive)?;
    let policy = seal::policy(&settings.archive)?;
    let tick = seal::tick(&policy);
    let consumer = settings.consumer.clone().or_default_group(DEFAULT_GROUP);
    let group = consumer.group_id.as_str();
    let pool = edihub_db::pool(&settings.database)?;
    let probe = edihub_metrics::probe_with(pool.clone(), |pool| async move {
        edihub_db::is_reachable(&pool).await
    });
    let store = ArchiveStore::new(&settings.s3);
    let sealer = Sealer::new(pool.clone(), store.clone(), key, policy);
    let archiver = Archiver::new(pool.clone(), store, group);
    let consuming = edihub_kafka::run_consumer(
        &settings.kafka,
        &consumer,
        &settings.kafka.topics.inbound_received,
        archiver,
        shutdown.clone(),
    );
    // The sealer and the gauges stop with the consumer too, should it fail.
    let stop = shutdown.child_token();
    let sealing = sealer.run(tick, stop.clone());
    let gauges = backlog::refresh_every(pool, tick, stop.clone());
    let work = async {
        let consuming = async {
            let consumed = consuming.await;
            stop.cancel();
            consumed
        };
        let (consumed, (), ()) = tokio::join!(consuming, sealing, gauges);
        consumed
    };
    component::run(&settings.ops_listen, probe, work, shutdown).await?;
    Ok(())
}

#[cfg(test)]
mod tests;
