//! The directory a running gateway uses, replaced whenever the database's partners or
//! identities change: on the `partners_changed` NOTIFY their triggers send at commit,
//! and on a polling interval in case a notification was missed (connection lost).
//! Requests in flight keep the snapshot they started with.

use crate::store::{self, StoreError};
use crate::{Directory, DirectoryError};
use edihub_as2::Certificate;
use edihub_config::GatewaySettings;
use edihub_metrics::{CertificateExpiry, CertificateKind, set_certificate_expiries};
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
        let directory = Directory::from_settings(settings)?;
        export_expiries(&directory);
        Ok(LiveDirectory {
            current: RwLock::new(Arc::new(directory)),
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
        export_expiries(&directory);
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

/// Sets `edihub_certificate_expiry_timestamp_seconds` for every partner and hub
/// certificate in `directory`, replacing the previous directory's series (a removed
/// partner's disappear).
fn export_expiries(directory: &Directory) {
    let partners = directory.partners.values().flat_map(|partner| {
        partner
            .certificates
            .iter()
            .filter_map(|c| expiry(CertificateKind::Partner, &partner.as2_id, c))
    });
    set_certificate_expiries(CertificateKind::Partner, &partners.collect::<Vec<_>>());
    let hubs = directory.identities.values().filter_map(|identity| {
        let keys = identity.keys.as_ref()?;
        expiry(CertificateKind::Hub, &identity.as2_id, &keys.certificate)
    });
    set_certificate_expiries(CertificateKind::Hub, &hubs.collect::<Vec<_>>());
}

fn expiry(
    kind: CertificateKind,
    owner: &str,
    certificate: &Certificate,
) -> Option<CertificateExpiry> {
    // Both fail only when OpenSSL cannot allocate; such a certificate goes unreported.
    let fingerprint = store::fingerprint(certificate).ok()?;
    let not_after_unix = store::unix_time(certificate.not_after()).ok()?;
    Some(CertificateExpiry {
        kind,
        owner: owner.to_owned(),
        fingerprint,
        not_after_unix,
    })
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
