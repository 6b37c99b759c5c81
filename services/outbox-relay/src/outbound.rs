//! The second relay of this process: outbound AS2 messages (outbox channel
//! `as2-outbound`), sent as the partner directory says, and the MDN timeout's sweep
//! (`outbound.mdn_timeout_sweep_ms`), which sends again what waited too long for its
//! asynchronous MDN.

use edihub_outbound::{CHANNEL, OutboundSender, OutboundStore, SweepReport, TimeoutSweep};
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
        Ok(Self {
            relay,
            timeouts,
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
        tokio::join!(reloads, sending, sweeps);
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
