//! The gateway's transport: connections, their refusals, and requests hyper or the
//! gateway turned away before they reached the AS2 decision.

use crate::{counter, counter_vec, gauge};
use prometheus::{IntCounter, IntCounterVec, IntGauge};
use std::sync::LazyLock;

pub static GATEWAY_CONNECTIONS: LazyLock<IntGauge> = LazyLock::new(|| {
    gauge(
        "edihub_gateway_connections",
        "Partner connections open now (at most gateway.max_connections)",
    )
});
pub static GATEWAY_CONNECTIONS_REFUSED: LazyLock<IntCounterVec> = LazyLock::new(|| {
    counter_vec(
        "edihub_gateway_connections_refused_total",
        "Connections refused because gateway.max_connections were open, by transport (plain: answered 503, tls: closed before the handshake)",
        &["transport"],
    )
});
pub static HTTP_REJECTIONS: LazyLock<IntCounterVec> = LazyLock::new(|| {
    counter_vec(
        "edihub_http_rejections_total",
        "Requests refused before the AS2 decision, by HTTP status (400, 408, 413, 431), whether hyper or the route answered",
        &["status"],
    )
});
pub static TLS_HANDSHAKE_FAILURES: LazyLock<IntCounter> = LazyLock::new(|| {
    counter(
        "edihub_gateway_tls_handshake_failures_total",
        "TLS handshakes that failed or timed out (gateway.idle_timeout_ms)",
    )
});
pub static TLS_RELOADS: LazyLock<IntCounterVec> = LazyLock::new(|| {
    counter_vec(
        "edihub_gateway_tls_reloads_total",
        "Changed TLS certificate files, by outcome (loaded; failed: the previous certificate is kept)",
        &["outcome"],
    )
});
