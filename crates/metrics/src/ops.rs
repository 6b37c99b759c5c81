//! The operations endpoint every service serves: `GET /metrics` (Prometheus text
//! format), `GET /health` (the process runs) and `GET /ready` (its dependencies answer).

use axum::Router;
use axum::http::StatusCode;
use axum::http::header::CONTENT_TYPE;
use axum::response::IntoResponse;
use axum::routing::get;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use tokio_util::sync::CancellationToken;

/// An async check run before answering `/ready` (and before rendering `/metrics`, to
/// refresh gauges read from the database). `true` means ready.
pub type Probe = Arc<dyn Fn() -> Pin<Box<dyn Future<Output = bool> + Send>> + Send + Sync>;

/// The `/metrics`, `/health` and `/ready` routes, to merge into a service's router.
pub fn routes(probe: Probe) -> Router {
    let ready_probe = probe.clone();
    Router::new()
        .route("/health", get(|| async { StatusCode::OK }))
        .route(
            "/ready",
            get(move || {
                let probe = ready_probe.clone();
                async move {
                    if probe().await {
                        StatusCode::OK
                    } else {
                        StatusCode::SERVICE_UNAVAILABLE
                    }
                }
            }),
        )
        .route(
            "/metrics",
            get(move || {
                let probe = probe.clone();
                async move {
                    probe().await;
                    (
                        [(CONTENT_TYPE, "text/plain; version=0.0.4")],
                        crate::render(),
                    )
                        .into_response()
                }
            }),
        )
}

/// Wraps an async readiness check as a [`Probe`].
pub fn probe<F, Fut>(check: F) -> Probe
where
    F: Fn() -> Fut + Send + Sync + 'static,
    Fut: Future<Output = bool> + Send + 'static,
{
    Arc::new(move || Box::pin(check()))
}

/// Wraps an async check of `state` (a pool, a client) as a [`Probe`]: each call runs
/// `check` on a fresh clone, so the probe needs no wrapper closure of its own.
pub fn probe_with<T, F, Fut>(state: T, check: F) -> Probe
where
    T: Clone + Send + Sync + 'static,
    F: Fn(T) -> Fut + Send + Sync + 'static,
    Fut: Future<Output = bool> + Send + 'static,
{
    Arc::new(move || Box::pin(check(state.clone())))
}

/// The operations endpoint, bound at start-up so a taken port fails the service fast.
pub struct OpsServer {
    listener: tokio::net::TcpListener,
}

impl OpsServer {
    pub async fn bind(listen: &str) -> std::io::Result<Self> {
        let listener = tokio::net::TcpListener::bind(listen).await?;
        Ok(Self { listener })
    }

    pub fn address(&self) -> Option<std::net::SocketAddr> {
        self.listener.local_addr().ok()
    }

    /// Serves `/metrics`, `/health` and `/ready` until `shutdown`.
    pub async fn run(self, probe: Probe, shutdown: CancellationToken) -> std::io::Result<()> {
        if let Some(address) = self.address() {
            tracing::info!(%address, "operations endpoint (/metrics, /health, /ready)");
        }
        axum::serve(self.listener, routes(probe))
            .with_graceful_shutdown(async move { shutdown.cancelled().await })
            .await
    }
}
