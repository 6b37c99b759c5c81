//! `/ready` for the gateway: ready when the database answers, asked at most once per
//! [`FRESH_FOR`] however often probes and scrapes come, so a probe costs no query.

use edihub_metrics::Probe;
use sqlx::PgPool;
use std::sync::Arc;
use std::time::{Duration, Instant};
use tokio::sync::Mutex;

const FRESH_FOR: Duration = Duration::from_secs(1);

struct Cached {
    pool: PgPool,
    /// When the database was last asked, and what it answered.
    last: Mutex<Option<(Instant, bool)>>,
}

impl Cached {
    async fn ready(&self) -> bool {
        // Concurrent probes wait for the one that asks, then share its answer.
        let mut last = self.last.lock().await;
        if let Some((at, ready)) = *last
            && at.elapsed() < FRESH_FOR
        {
            return ready;
        }
        let ready = edihub_db::is_reachable(&self.pool).await;
        *last = Some((Instant::now(), ready));
        ready
    }
}

pub(crate) fn probe(pool: PgPool) -> Probe {
    let cached = Arc::new(Cached {
        pool,
        last: Mutex::new(None),
    });
    edihub_metrics::probe_with(cached, |cached| async move { cached.ready().await })
}
