//! Outbound AS2 (issue 16): what the hub has still to deliver, what it failed to, and
//! how long partners take to answer with their MDN.
//!
//! The backlog gauges are read from `outbound_message` (by `edihub_outbound::stats`);
//! the failure counter and the MDN wait histogram are recorded by the sender as its
//! outcomes happen.

use crate::{counter_vec, gauge, gauge_vec, histogram};
use prometheus::{Histogram, IntCounterVec, IntGauge, IntGaugeVec};
use std::sync::LazyLock;

pub static OUTBOUND_BACKLOG: LazyLock<IntGaugeVec> = LazyLock::new(|| {
    gauge_vec(
        "edihub_outbound_backlog",
        "Outbound messages not yet delivered, by state (queued: waiting for the sender; sent: waiting for the asynchronous MDN)",
        &["state"],
    )
});
pub static OUTBOUND_OLDEST_UNDELIVERED_SECONDS: LazyLock<IntGauge> = LazyLock::new(|| {
    gauge(
        "edihub_outbound_oldest_undelivered_seconds",
        "Age of the oldest queued or sent outbound message, since it was queued first (0 when none)",
    )
});
pub static OUTBOUND_FAILURES: LazyLock<IntCounterVec> = LazyLock::new(|| {
    let failures = counter_vec(
        "edihub_outbound_failures_total",
        "Outbound messages that ended failed, by reason class",
        &["reason"],
    );
    for class in FailureClass::ALL {
        failures.with_label_values(&[class.as_str()]);
    }
    failures
});
pub static OUTBOUND_MDN_WAIT_SECONDS: LazyLock<Histogram> = LazyLock::new(|| {
    histogram(
        "edihub_outbound_mdn_wait_seconds",
        "Time from sending an outbound message to receiving its MDN",
        // From a quick synchronous answer to an asynchronous MDN hours later.
        vec![
            0.1, 0.5, 1.0, 5.0, 15.0, 60.0, 300.0, 900.0, 3600.0, 14400.0, 86400.0,
        ],
    )
});

/// Why an outbound message ended `failed`: the `reason` label of
/// `edihub_outbound_failures_total`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum FailureClass {
    /// The partner's MDN says `processed/error` or `failed` (RFC 4130 section 7.4.3).
    MdnError,
    /// The MDN's Received-Content-MIC is not what we sent, or is in a digest we do not
    /// accept.
    MicMismatch,
    /// The MDN's signature: missing when a signed MDN was asked for, not verifiable
    /// against the partner's certificates, or a signed receipt without its MIC.
    Signature,
    /// Every attempt allowed went without an answer that settled it (transport errors,
    /// 5xx, no MDN).
    AttemptsExhausted,
    /// The partner, or the hub before sending, turned it away: an HTTP 4xx, an answer
    /// that is no MDN, or a message that cannot be built or sent as configured.
    Refused,
}

impl FailureClass {
    pub const ALL: [FailureClass; 5] = [
        FailureClass::MdnError,
        FailureClass::MicMismatch,
        FailureClass::Signature,
        FailureClass::AttemptsExhausted,
        FailureClass::Refused,
    ];

    /// The label value, e.g. `"mic-mismatch"`.
    pub fn as_str(self) -> &'static str {
        match self {
            FailureClass::MdnError => "mdn-error",
            FailureClass::MicMismatch => "mic-mismatch",
            FailureClass::Signature => "signature",
            FailureClass::AttemptsExhausted => "attempts-exhausted",
            FailureClass::Refused => "refused",
        }
    }
}

/// Counts one outbound message ending `failed`. Call it once per transition to
/// `failed`, after the change committed, so a relay that replays the row counts nothing
/// twice.
pub fn record_failure(class: FailureClass) {
    OUTBOUND_FAILURES.with_label_values(&[class.as_str()]).inc();
}

/// Records the time a partner took to answer with its MDN: from the POST to the
/// synchronous answer, or from `sent` to the asynchronous MDN's arrival. Negative or
/// non-finite values (a clock step) are dropped rather than skewing the histogram.
pub fn record_mdn_wait(seconds: f64) {
    if seconds.is_finite() && seconds >= 0.0 {
        OUTBOUND_MDN_WAIT_SECONDS.observe(seconds);
    }
}

/// The undelivered outbound messages, as `outbound_message` holds them now.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct OutboundBacklog {
    /// Waiting for the sender: first attempt, or a retry.
    pub queued: i64,
    /// POSTed; the asynchronous MDN has not come.
    pub sent: i64,
    /// Age of the oldest queued or sent message, since it was first queued; 0 when none.
    pub oldest_undelivered_seconds: i64,
}

/// Sets the backlog gauges to `backlog`.
pub fn set_backlog(backlog: &OutboundBacklog) {
    OUTBOUND_BACKLOG
        .with_label_values(&["queued"])
        .set(backlog.queued);
    OUTBOUND_BACKLOG
        .with_label_values(&["sent"])
        .set(backlog.sent);
    OUTBOUND_OLDEST_UNDELIVERED_SECONDS.set(backlog.oldest_undelivered_seconds.max(0));
    // The failure series exist (at 0) from the first refresh on, so an alert's
    // `increase()` sees a class's first failure rather than a series appearing.
    LazyLock::force(&OUTBOUND_FAILURES);
    LazyLock::force(&OUTBOUND_MDN_WAIT_SECONDS);
}

#[cfg(test)]
mod tests;
