//! The audit ledger's backlog (ADR 0006): entries chained but not yet sealed into a
//! signed segment. An entry that stays unsealed (appended, never stored) stops sealing,
//! and these gauges are how an operator sees it. The archive consumer refreshes them
//! from `edihub_ledger::backlog`.

use crate::gauge;
use prometheus::IntGauge;
use std::sync::LazyLock;

pub static LEDGER_UNSEALED_ENTRIES: LazyLock<IntGauge> = LazyLock::new(|| {
    gauge(
        "edihub_ledger_unsealed_entries",
        "Ledger entries not yet in a sealed segment",
    )
});
pub static LEDGER_OLDEST_UNSEALED_SECONDS: LazyLock<IntGauge> = LazyLock::new(|| {
    gauge(
        "edihub_ledger_oldest_unsealed_seconds",
        "Age of the oldest ledger entry not yet sealed (0 when none)",
    )
});

/// Sets both gauges: `unsealed` entries, the oldest chained `oldest_age_seconds` ago.
pub fn set_ledger_backlog(unsealed: i64, oldest_age_seconds: i64) {
    LEDGER_UNSEALED_ENTRIES.set(unsealed);
    LEDGER_OLDEST_UNSEALED_SECONDS.set(oldest_age_seconds.max(0));
}
