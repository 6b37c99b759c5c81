//! The second relay of this process: outbound AS2 messages (outbox channel
//! `as2-outbound`), sent as the partner directory says; the MDN timeout's sweep
//! (`outbound.mdn_timeout_sweep_ms`), which sends again what waited too long for its
//! asynchronous MDN; and the consumer of `OutboundRequested` events, which queues what
//! downstream systems ask to send.

use crate::claim_checks::S3ClaimChecks;
use edihub_config::{ConsumerSettings, KafkaSettings};
use edihub_outbound::{
    CHANNEL, OutboundRequests, OutboundSender, OutboundStore, RequestSettings, SweepReport,
    TimeoutSweep,
};
use edihub_outbox::{Relay, StepReport};
use edihub_partners::live::LiveDirectory;
use sqlx::PgPool;
use std::sync::Arc;
use std::time::Duration;
use tokio_util::sync::CancellationToken;

use crate::Settings;

/// The outbound relay and the partner directory it reads, kept current while it runs.
pub struct OutboundRelay {
    relay: Relay<OutboundSender>,
    timeouts: TimeoutSweep,
    requests: Option<Requests>,
    directory: Arc<LiveDirectory>,
    pool: PgPool,
    reload_interval: Duration,
    sweep_interval: Duration,
}

impl OutboundRelay {
    /// Fails when the settings file's partners or hub key cannot be used, or the proxy
    /// is no URL. The database's partners are loaded when it answers.
    pub async fn build(settings: &Settings, pool: PgPool) -> anyhow::Result<Self> {
        let directory = Arc::new(LiveDirectory::new(&settings.gateway)?);
        if let Err(error) = directory.reload(&pool).await {
            tracing::warn!(%error, "partners from the database not loaded yet");
        }
        let store = OutboundStore::new(pool.clone(), &settings.kafka.topics.outbound_status);
        let timeouts = TimeoutSweep::new(store.clone(), Arc::clone(&directory), &settings.outbound);
        let sender = OutboundSender::new(store, Arc::clone(&directory), &settings.outbound)?;
        let relay = Relay::for_channel(
            pool.clone(),
            sender,
            settings.outbound.retry.clone(),
            CHANNEL,
        );
        let requests = settings
            .outbound
            .requests
            .then(|| Requests::new(settings, pool.clone(), Arc::clone(&directory)));
        Ok(Self {
            relay,
            timeouts,
            requests,
            directory,
            pool,
            reload_interval: Duration::from_millis(settings.gateway.partner_reload_ms),
            sweep_interval: Duration::from_millis(settings.outbound.mdn_timeout_sweep_ms.max(1)),
        })
    }

    /// One claim, send and mark (for tests).
    pub async fn step(&self) -> Result<StepReport, sqlx::Error> {
        self.relay.step().await
    }

    /// One MDN timeout sweep (for tests).
    pub async fn sweep_timeouts(&self) -> Result<SweepReport, sqlx::Error> {
        self.timeouts.sweep().await
    }

    /// Re-reads the partner directory (for tests that change it).
    pub async fn reload(&self) -> anyhow::Result<()> {
        Ok(self.directory.reload(&self.pool).await?)
    }

    /// Sends until `shutdown`, keeping the directory current; the batch in flight is
    /// finished first.
    pub async fn run(self, shutdown: CancellationToken) {
        let reloads = self
            .directory
            .run(&self.pool, self.reload_interval, shutdown.clone());
        let sending = async {
            // `run` fails only when it cannot LISTEN (database down): the rows wait in
            // the outbox, so try again until the database is back or we stop.
            while let Err(error) = self.relay.run(shutdown.clone()).await {
                tracing::error!(%error, "outbound relay interrupted; retrying in 5 s");
                tokio::select! {
                    _ = shutdown.cancelled() => break,
                    _ = tokio::time::sleep(Duration::from_secs(5)) => {}
                }
            }
        };
        let sweeps = self.sweep_until(shutdown.clone());
        // Boxed: the consumer loop's future is deep enough to overflow the compiler's
        // layout recursion limit nested in this one.
        let requests = async {
            if let Some(requests) = &self.requests {
                Box::pin(requests.consume_until(shutdown.clone())).await;
            }
        };
        tokio::join!(reloads, sending, sweeps, requests);
    }

    /// Sweeps every `sweep_interval` until `shutdown`; a failed sweep (database down) is
    /// tried again at the next tick.
    async fn sweep_until(&self, shutdown: CancellationToken) {
        let mut ticks = tokio::time::interval(self.sweep_interval);
        ticks.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        loop {
            tokio::select! {
                _ = shutdown.cancelled() => break,
                _ = ticks.tick() => {}
            }
            if let Err(error) = self.timeouts.sweep().await {
                tracing::error!(%error, "MDN timeout sweep failed; trying again later");
            }
        }
    }
}

/// The `OutboundRequested` consumer and what it runs with.
struct Requests {
    handler: OutboundRequests<S3ClaimChecks>,
    kafka: KafkaSettings,
    consumer: ConsumerSettings,
}

impl Requests {
    fn new(settings: &Settings, pool: PgPool, directory: Arc<LiveDirectory>) -> Self {
        let consumer = settings
            .outbound_requests
            .clone()
            .or_default_group(crate::REQUESTS_GROUP);
        let bucket = settings.outbound.claim_check_bucket.clone();
        let claim_checks = S3ClaimChecks::new(&settings.s3, bucket.as_deref().unwrap_or(""));
        let handler = OutboundRequests::new(
            pool,
            directory,
            claim_checks,
            RequestSettings {
                consumer: consumer.group_id.clone(),
                status_topic: settings.kafka.topics.outbound_status.clone(),
                main_hub: settings.gateway.hub_as2_id.clone(),
                claim_check_bucket: bucket,
                max_document_bytes: settings.outbound.max_document_bytes,
            },
        );
        Self {
            handler,
            kafka: settings.kafka.clone(),
            consumer,
        }
    }

    /// Consumes until `shutdown`; a consumer that fails (the broker unreachable when it
    /// subscribes) is started again after 5 s, its events waiting in the topic.
    async fn consume_until(&self, shutdown: CancellationToken) {
        let topic = &self.kafka.topics.outbound_requested;
        while let Err(error) = edihub_kafka::run_consumer(
            &self.kafka,
            &self.consumer,
            topic,
            &self.handler,
            shutdown.clone(),
        )
        .await
        {
            tracing::error!(%error, topic, "outbound request consumer stopped; retrying in 5 s");
            tokio::select! {
                _ = shutdown.cancelled() => break,
                _ = tokio::time::sleep(Duration::from_secs(5)) => {}
            }
        }
    }
}
