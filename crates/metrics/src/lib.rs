//! Every metric edihub exports, defined once, and the operations endpoint each service
//! serves: `GET /metrics` (Prometheus text format), `GET /health` (the process runs),
//! `GET /ready` (its dependencies answer). [`component::run`] runs a relay's or a
//! consumer's work beside that endpoint, so each service only builds its parts.
//!
//! | metric | type | labels | meaning |
//! |---|---|---|---|
//! | `edihub_as2_messages_total` | counter | `disposition` | AS2 messages answered, by MDN disposition (`processed`, `authentication-failed`, ...; `resend` for a repeated Message-ID) |
//! | `edihub_as2_refusals_unrecorded_total` | counter | | refusals of unauthenticated requests answered but not recorded in `as2_refusal`, because they came faster than its budget |
//! | `edihub_gateway_connections` | gauge | | partner connections open now (at most `gateway.max_connections`) |
//! | `edihub_gateway_connections_refused_total` | counter | `transport` | connections refused at `gateway.max_connections` (`plain`: answered 503 with `Retry-After`; `tls`: closed before the handshake) |
//! | `edihub_http_rejections_total` | counter | `status` | requests refused before the AS2 decision: `400` and `431` (hyper's own answers to a malformed or oversized head, and the route's), `408` (body too slow, or head not complete in `gateway.idle_timeout_ms`: hyper closes without an answer), `413` (body over `gateway.max_body_bytes`) |
//! | `edihub_gateway_tls_handshake_failures_total` | counter | | TLS handshakes that failed (e.g. plain HTTP on the TLS port) or timed out |
//! | `edihub_gateway_tls_reloads_total` | counter | `outcome` | changes of the TLS certificate files: `loaded`, or `failed` (the previous certificate is kept) |
//! | `edihub_outbox_published_total` | counter | `outcome` | rows the relay published (`sent`), scheduled for retry (`retried`) or dead-lettered (`failed`) |
//! | `edihub_outbox_batch_size` | histogram | | rows claimed per relay step |
//! | `edihub_outbox_publish_seconds` | histogram | | time from claim to the broker's last ack, per step |
//! | `edihub_outbox_pending` | gauge | | PENDING rows (read at scrape time) |
//! | `edihub_outbox_oldest_pending_seconds` | gauge | | age of the oldest PENDING row (0 when none) |
//! | `edihub_outbox_failed` | gauge | | FAILED rows: dead letters awaiting an operator |
//! | `edihub_consumer_events_total` | counter | `consumer`, `outcome` | events handled (`done`), skipped as already seen (`duplicate`, the inbox's hits), dead-lettered (`dead_lettered`) |
//! | `edihub_outbound_backlog` | gauge | `state` | outbound messages not yet delivered: `queued` (waiting for the sender, first attempt or retry), `sent` (waiting for the asynchronous MDN); read from `outbound_message` by `edihub_outbound::stats::refresh` |
//! | `edihub_outbound_oldest_undelivered_seconds` | gauge | | age of the oldest `queued` or `sent` outbound message since it was first queued (0 when none; a resent message keeps its age) |
//! | `edihub_outbound_failures_total` | counter | `reason` | outbound messages that ended `failed`, by class: `mdn-error`, `mic-mismatch`, `signature`, `attempts-exhausted`, `refused` ([`outbound::FailureClass`]) |
//! | `edihub_outbound_mdn_wait_seconds` | histogram | | time from sending an outbound message to its MDN (synchronous: the POST's answer; asynchronous: from `sent` to the MDN's arrival) |
//! | `edihub_consumer_lag` | gauge | `consumer`, `topic`, `partition` | records of an assigned partition not yet handed to the handler: high watermark minus the consumer's position (before its first record, the committed offset), read every `consumer.lag_interval_ms` |
//! | `edihub_ledger_unsealed_entries` | gauge | | audit ledger entries not yet sealed into a signed segment (stored or not); read from `ledger_entry` by the archive consumer every sealer tick |
//! | `edihub_ledger_oldest_unsealed_seconds` | gauge | | age of the oldest unsealed ledger entry since it was chained (0 when none): grows past `archive.seal_interval_seconds` when sealing is stuck (an entry appended, never stored) |

use prometheus::{
    Encoder, Histogram, HistogramOpts, IntCounter, IntCounterVec, IntGauge, IntGaugeVec, Opts,
    Registry, TextEncoder,
};
use std::sync::LazyLock;

pub mod certificates;
pub mod component;
pub mod ledger;
mod ops;
pub mod outbound;
pub mod transport;

pub use certificates::{CertificateExpiry, CertificateKind, set_certificate_expiries};
pub use ledger::set_ledger_backlog;
pub use ops::{OpsServer, Probe, probe, probe_with, routes};
pub use outbound::{FailureClass, OutboundBacklog, record_failure, record_mdn_wait, set_backlog};
pub use transport::{
    GATEWAY_CONNECTIONS, GATEWAY_CONNECTIONS_REFUSED, HTTP_REJECTIONS, TLS_HANDSHAKE_FAILURES,
    TLS_RELOADS,
};

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

fn counter(name: &str, help: &str) -> IntCounter {
    register(
        IntCounter::new(name, help)
            .unwrap_or_else(|_| unreachable!("metric names are static and valid")),
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
pub static AS2_REFUSALS_UNRECORDED: LazyLock<IntCounter> = LazyLock::new(|| {
    counter(
        "edihub_as2_refusals_unrecorded_total",
        "refusals of unauthenticated requests not written to as2_refusal (over the budget)",
    )
});
pub static AS2_ASYNC_MDN_POSTS: LazyLock<IntCounterVec> = LazyLock::new(|| {
    counter_vec(
        "edihub_as2_async_mdn_posts_total",
        "Asynchronous MDN POSTs to partners, by outcome (delivered, error, refused: not attempted)",
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
