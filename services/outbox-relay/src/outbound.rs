//! The second relay of this process: outbound AS2 messages (outbox channel
//! `as2-outbound`), sent as the partner directory says.

use edihub_outbound::{CHANNEL, OutboundSender, OutboundStore};
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
    directory: Arc<LiveDirectory>,
    pool: PgPool,
    reload_interval: Duration,
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
        let sender = OutboundSender::new(store, Arc::clone(&directory), &settings.outbound)?;
        let relay = Relay::for_channel(
            pool.clone(),
            sender,
            settings.outbound.retry.clone(),
            CHANNEL,
        );
        Ok(Self {
            relay,
            directory,
            pool,
            reload_interval: Duration::from_millis(settings.gateway.partner_reload_ms),
        })
    }

    /// One claim, send and mark (for tests).
    pub async fn step(&self) -> Result<StepReport, sqlx::Error> {
        self.relay.step().await
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
        tokio::join!(reloads, sending);
    }
}
