//! The directory a running gateway uses, replaced whenever the database's partners or
//! identities change: on the `partners_changed` NOTIFY their triggers send at commit,
//! and on a polling interval in case a notification was missed (connection lost).
//! Requests in flight keep the snapshot they started with.

use crate::store::{self, StoreError};
use crate::{Directory, DirectoryError};
use edihub_config::GatewaySettings;
use sqlx::PgPool;
use sqlx::postgres::PgListener;
use std::sync::{Arc, RwLock};
use std::time::Duration;
use tokio_util::sync::CancellationToken;

#[derive(Debug, thiserror::Error)]
pub enum ReloadError {
    #[error(transparent)]
    Store(#[from] StoreError),
    #[error(transparent)]
    Directory(#[from] DirectoryError),
}

pub struct LiveDirectory {
    settings: GatewaySettings,
    current: RwLock<Arc<Directory>>,
}

impl LiveDirectory {
    /// Starts from the settings file alone; fails when the file's entries are unusable.
    pub fn new(settings: &GatewaySettings) -> Result<LiveDirectory, DirectoryError> {
        Ok(LiveDirectory {
            current: RwLock::new(Arc::new(Directory::from_settings(settings)?)),
            settings: settings.clone(),
        })
    }

    /// The snapshot to use for one request.
    pub fn current(&self) -> Arc<Directory> {
        // A poisoned lock only means a writer panicked mid-swap; the Arc inside is whole.
        Arc::clone(&self.current.read().unwrap_or_else(|p| p.into_inner()))
    }

    /// Reads the database and swaps the new snapshot in. Rows that cannot be used are
    /// logged and left out; on error the current snapshot stays.
    pub async fn reload(&self, pool: &PgPool) -> Result<(), ReloadError> {
        let rows = store::load(pool).await?;
        let (directory, problems) = Directory::with_database(&self.settings, &rows)?;
        for problem in &problems {
            tracing::error!(%problem, "partner directory: row left out");
        }
        tracing::info!(
            partners = directory.partners.len(),
            identities = directory.identities.len(),
            "partner directory loaded"
        );
        *self.current.write().unwrap_or_else(|p| p.into_inner()) = Arc::new(directory);
        Ok(())
    }

    /// Reloads on every change notification and every `interval`, until `shutdown`.
    pub async fn run(&self, pool: &PgPool, interval: Duration, shutdown: CancellationToken) {
        let mut listener: Option<PgListener> = None;
        while !shutdown.is_cancelled() {
            if listener.is_none() {
                listener = listen(pool).await;
            }
            // Reload after (re)subscribing, so no change between the two is missed.
            if let Err(error) = self.reload(pool).await {
                tracing::warn!(%error, "partner directory not reloaded; the previous one stays");
            }
            tokio::select! {
                _ = shutdown.cancelled() => break,
                _ = tokio::time::sleep(interval) => {}
                notified = recv(&mut listener) => {
                    if !notified {
                        listener = None;
                    }
                }
            }
        }
    }
}

async fn listen(pool: &PgPool) -> Option<PgListener> {
    let mut listener = match PgListener::connect_with(pool).await {
        Ok(listener) => listener,
        Err(error) => {
            tracing::warn!(%error, "cannot LISTEN for partner changes; polling only");
            return None;
        }
    };
    match listener.listen(store::NOTIFY_CHANNEL).await {
        Ok(()) => Some(listener),
        Err(error) => {
            tracing::warn!(%error, "cannot LISTEN for partner changes; polling only");
            None
        }
    }
}

/// Waits for a notification: `true` when one came, `false` when the listener failed.
/// Without a listener it never returns (the polling interval takes over).
async fn recv(listener: &mut Option<PgListener>) -> bool {
    match listener {
        Some(listener) => listener.recv().await.is_ok(),
        None => std::future::pending().await,
    }
}
