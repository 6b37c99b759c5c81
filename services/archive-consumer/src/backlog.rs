//! Refreshes the ledger backlog gauges (`edihub_ledger_unsealed_entries`,
//! `edihub_ledger_oldest_unsealed_seconds`) every tick until shutdown.

use chrono::Utc;
use sqlx::PgPool;
use std::time::Duration;
use tokio_util::sync::CancellationToken;

pub async fn refresh_every(pool: PgPool, tick: Duration, shutdown: CancellationToken) {
    loop {
        match edihub_ledger::backlog(&pool).await {
            Ok(backlog) => {
                let age = backlog
                    .oldest_unsealed
                    .map_or(0, |oldest| (Utc::now() - oldest).num_seconds());
                edihub_metrics::set_ledger_backlog(backlog.unsealed, age);
            }
            Err(error) => tracing::warn!(%error, "reading the ledger backlog"),
        }
        tokio::select! {
            () = shutdown.cancelled() => return,
            () = tokio::time::sleep(tick) => {}
        }
    }
}
