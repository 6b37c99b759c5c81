//! Wiring of the AS2 gateway: settings, the HTTP listener, the pool, the routes.
//! The AS2 protocol lives in `edihub-as2`; the journal transaction in `edihub-journal`.

mod error;
mod routes;

use axum::Router;
use axum::extract::DefaultBodyLimit;
use axum::routing::{get, post};
use edihub_config::{DatabaseSettings, GatewaySettings, KafkaSettings};
use serde::Deserialize;
use sqlx::PgPool;
use std::net::SocketAddr;
use std::sync::Arc;
use tokio::net::TcpListener;
use tokio_util::sync::CancellationToken;

/// The gateway's settings (see the README for the file format and variables).
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default)]
pub struct Settings {
    pub database: DatabaseSettings,
    pub gateway: GatewaySettings,
    /// Only the topic names are used here: the outbox row records where it goes.
    pub kafka: KafkaSettings,
}

/// Shared by every request.
pub struct AppState {
    pub pool: PgPool,
    pub settings: Settings,
}

pub struct Application {
    listener: TcpListener,
    router: Router,
}

impl Application {
    /// Binds the listener (port 0 picks a free one) and builds the pool (lazily
    /// connected: the gateway starts while the database is down and answers 503).
    pub async fn build(settings: Settings) -> anyhow::Result<Self> {
        let pool = edihub_db::pool(&settings.database)?;
        Self::build_with_pool(settings, pool).await
    }

    pub async fn build_with_pool(settings: Settings, pool: PgPool) -> anyhow::Result<Self> {
        let listener = TcpListener::bind(&settings.gateway.listen).await?;
        let router = router(Arc::new(AppState { pool, settings }));
        Ok(Self { listener, router })
    }

    pub fn address(&self) -> SocketAddr {
        self.listener
            .local_addr()
            .unwrap_or_else(|_| SocketAddr::from(([127, 0, 0, 1], 0)))
    }

    /// Serves until `shutdown`, then lets in-flight requests finish.
    pub async fn run_until_stopped(self, shutdown: CancellationToken) -> std::io::Result<()> {
        axum::serve(self.listener, self.router)
            .with_graceful_shutdown(async move { shutdown.cancelled().await })
            .await
    }
}

pub fn router(state: Arc<AppState>) -> Router {
    let limit = state.settings.gateway.max_body_bytes;
    Router::new()
        .route("/as2", post(routes::receive))
        .route("/health", get(routes::health))
        .route("/ready", get(routes::ready))
        .layer(DefaultBodyLimit::max(limit))
        .with_state(state)
}
