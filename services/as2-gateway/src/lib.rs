//! Wiring of the AS2 gateway: settings, the HTTP listener, the pool, the routes.
//! The AS2 protocol lives in `edihub-as2`; the journal transaction in `edihub-journal`.

mod error;
mod routes;
mod security;

use axum::Router;
use axum::extract::DefaultBodyLimit;
use axum::routing::post;
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
    /// Keys and certificates, loaded from the files the settings name.
    security: security::Security,
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

    /// Fails when a key or certificate file named in the settings cannot be read or
    /// does not parse, so a misconfigured gateway never starts accepting.
    pub async fn build_with_pool(settings: Settings, pool: PgPool) -> anyhow::Result<Self> {
        let security = security::Security::load(&settings.gateway)?;
        let listener = TcpListener::bind(&settings.gateway.listen).await?;
        let router = router(Arc::new(AppState {
            pool,
            settings,
            security,
        }));
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
    let pool = state.pool.clone();
    // Ready when the database answers: without it no message can be accepted.
    let probe = edihub_metrics::probe(move || {
        let pool = pool.clone();
        async move { edihub_db::is_reachable(&pool).await }
    });
    Router::new()
        .route("/as2", post(routes::receive))
        .layer(DefaultBodyLimit::max(limit))
        .with_state(state)
        .merge(edihub_metrics::routes(probe))
}
