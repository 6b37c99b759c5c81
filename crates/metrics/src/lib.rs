//! Every metric edihub exports, defined once, and the operations endpoint each service
//! serves: `GET /metrics` (Prometheus text format), `GET /health` (the process runs),
//! `GET /ready` (its dependencies answer).
//!
//! | metric | type | labels | meaning |
//! |---|---|---|---|
//! | `edihub_as2_messages_total` | counter | `disposition` | AS2 messages answered, by MDN disposition (`processed`, `authentication-failed`, ...; `resend` for a repeated Message-ID) |
//! | `edihub_outbox_published_total` | counter | `outcome` | rows the relay published (`sent`), scheduled for retry (`retried`) or dead-lettered (`failed`) |
//! | `edihub_outbox_batch_size` | histogram | | rows claimed per relay step |
//! | `edihub_outbox_publish_seconds` | histogram | | time from claim to the broker's last ack, per step |
//! | `edihub_outbox_pending` | gauge | | PENDING rows (read at scrape time) |
//! | `edihub_outbox_oldest_pending_seconds` | gauge | | age of the oldest PENDING row (0 when none) |
//! | `edihub_outbox_failed` | gauge | | FAILED rows: dead letters awaiting an operator |
//! | `edihub_consumer_events_total` | counter | `consumer`, `outcome` | events handled (`done`), skipped as already seen (`duplicate`, the inbox's hits), dead-lettered (`dead_lettered`) |
//! | `edihub_consumer_lag` | gauge | `consumer`, `topic`, `partition` | records of an assigned partition not yet handed to the handler: high watermark minus the consumer's position (before its first record, the committed offset), read every `consumer.lag_interval_ms` |

use axum::Router;
use axum::http::StatusCode;
use axum::http::header::CONTENT_TYPE;
use axum::response::IntoResponse;
use axum::routing::get;
use prometheus::{
    Encoder, Histogram, HistogramOpts, IntCounterVec, IntGauge, IntGaugeVec, Opts, Registry,
    TextEncoder,
};
use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, LazyLock};
use tokio_util::sync::CancellationToken;

/// The registry all edihub metrics live in.
pub static REGISTRY: LazyLock<Registry> = LazyLock::new(Registry::new);

fn register<T: prometheus::core::Collector + Clone + 'static>(metric: T) -> T {
    // Registration fails only for a duplicate name, which the table above rules out.
    if let Err(error) = REGISTRY.register(Box::new(metric.clone())) {
        tracing::error!(%error, "metric registration");
    }
    metric
}

fn counter_vec(name: &str, help: &str, labels: &[&str]) -> IntCounterVec {
    register(
        IntCounterVec::new(Opts::new(name, help), labels)
            .unwrap_or_else(|_| unreachable!("metric names and labels are static and valid")),
    )
}

fn gauge(name: &str, help: &str) -> IntGauge {
    register(
        IntGauge::new(name, help)
            .unwrap_or_else(|_| unreachable!("metric names are static and valid")),
    )
}

fn gauge_vec(name: &str, help: &str, labels: &[&str]) -> IntGaugeVec {
    register(
        IntGaugeVec::new(Opts::new(name, help), labels)
            .unwrap_or_else(|_| unreachable!("metric names and labels are static and valid")),
    )
}

fn histogram(name: &str, help: &str, buckets: Vec<f64>) -> Histogram {
    register(
        Histogram::with_opts(HistogramOpts::new(name, help).buckets(buckets))
            .unwrap_or_else(|_| unreachable!("metric names are static and valid")),
    )
}

pub static AS2_MESSAGES: LazyLock<IntCounterVec> = LazyLock::new(|| {
    counter_vec(
        "edihub_as2_messages_total",
        "AS2 messages answered, by MDN disposition",
        &["disposition"],
    )
});
pub static AS2_ASYNC_MDN_POSTS: LazyLock<IntCounterVec> = LazyLock::new(|| {
    counter_vec(
        "edihub_as2_async_mdn_posts_total",
        "Asynchronous MDN POSTs to partners, by outcome (delivered, error)",
        &["outcome"],
    )
});
pub static OUTBOX_PUBLISHED: LazyLock<IntCounterVec> = LazyLock::new(|| {
    counter_vec(
        "edihub_outbox_published_total",
        "Outbox rows by publish outcome",
        &["outcome"],
    )
});
pub static OUTBOX_BATCH_SIZE: LazyLock<Histogram> = LazyLock::new(|| {
    histogram(
        "edihub_outbox_batch_size",
        "Rows claimed per relay step",
        vec![1.0, 10.0, 50.0, 100.0, 500.0, 1000.0, 5000.0],
    )
});
pub static OUTBOX_PUBLISH_SECONDS: LazyLock<Histogram> = LazyLock::new(|| {
    histogram(
        "edihub_outbox_publish_seconds",
        "Time from claim to the broker's last ack, per relay step",
        vec![0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1.0, 5.0],
    )
});
pub static OUTBOX_PENDING: LazyLock<IntGauge> =
    LazyLock::new(|| gauge("edihub_outbox_pending", "PENDING outbox rows"));
pub static OUTBOX_OLDEST_PENDING_SECONDS: LazyLock<IntGauge> = LazyLock::new(|| {
    gauge(
        "edihub_outbox_oldest_pending_seconds",
        "Age of the oldest PENDING outbox row",
    )
});
pub static OUTBOX_FAILED: LazyLock<IntGauge> =
    LazyLock::new(|| gauge("edihub_outbox_failed", "FAILED outbox rows (dead letters)"));
pub static CONSUMER_EVENTS: LazyLock<IntCounterVec> = LazyLock::new(|| {
    counter_vec(
        "edihub_consumer_events_total",
        "Events handled by consumers, by outcome",
        &["consumer", "outcome"],
    )
});
pub static CONSUMER_LAG: LazyLock<IntGaugeVec> = LazyLock::new(|| {
    gauge_vec(
        "edihub_consumer_lag",
        "Records of an assigned partition the consumer has not finished yet",
        &["consumer", "topic", "partition"],
    )
});

/// The current values in the Prometheus text format.
pub fn render() -> String {
    let mut buffer = Vec::new();
    if let Err(error) = TextEncoder::new().encode(&REGISTRY.gather(), &mut buffer) {
        tracing::error!(%error, "metrics encoding");
    }
    String::from_utf8(buffer).unwrap_or_default()
}

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
                    ([(CONTENT_TYPE, "text/plain; version=0.0.4")], render()).into_response()
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
