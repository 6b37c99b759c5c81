//! Certificate renewal without a restart: the files are read every `reload_ms`; when
//! their bytes change and load, new handshakes get the new certificate (connections
//! already open keep theirs). A change that does not load is logged once and the
//! previous certificate kept.

use super::certificate::{CertificateFiles, CurrentCertificate, TlsError, export_expiry};
use edihub_config::GatewayTlsSettings;
use std::sync::Arc;
use std::time::Duration;
use tokio::time::MissedTickBehavior;
use tokio_util::sync::CancellationToken;

/// What the last look at the files saw: their bytes, or why they could not be read.
type Seen = Result<CertificateFiles, String>;

pub(super) async fn watch(
    settings: GatewayTlsSettings,
    current: Arc<CurrentCertificate>,
    loaded: CertificateFiles,
    shutdown: CancellationToken,
) {
    let provider = rustls::crypto::aws_lc_rs::default_provider();
    let mut interval = tokio::time::interval(Duration::from_millis(settings.reload_ms.max(10)));
    interval.set_missed_tick_behavior(MissedTickBehavior::Delay);
    let mut seen: Seen = Ok(loaded);
    loop {
        tokio::select! {
            _ = shutdown.cancelled() => return,
            _ = interval.tick() => {}
        }
        let files = settings.clone();
        let now = match tokio::task::spawn_blocking(move || CertificateFiles::read(&files)).await {
            Ok(read) => read.map_err(|e| e.to_string()),
            Err(error) => Err(error.to_string()),
        };
        if now == seen {
            continue;
        }
        seen = now.clone();
        let loaded = match now {
            Ok(files) => install(&files, &provider, &current),
            Err(reason) => {
                tracing::warn!(%reason, "TLS certificate files unreadable; the previous certificate stays");
                edihub_metrics::TLS_RELOADS
                    .with_label_values(&["failed"])
                    .inc();
                continue;
            }
        };
        match loaded {
            Ok(()) => {
                tracing::info!(certificate = %settings.certificate.display(), "TLS certificate reloaded");
                edihub_metrics::TLS_RELOADS
                    .with_label_values(&["loaded"])
                    .inc();
            }
            Err(error) => {
                tracing::warn!(%error, "changed TLS certificate not loaded; the previous one stays");
                edihub_metrics::TLS_RELOADS
                    .with_label_values(&["failed"])
                    .inc();
            }
        }
    }
}

fn install(
    files: &CertificateFiles,
    provider: &rustls::crypto::CryptoProvider,
    current: &CurrentCertificate,
) -> Result<(), TlsError> {
    let key = files.certified_key(provider)?;
    export_expiry(&key)?;
    current.replace(key);
    Ok(())
}
