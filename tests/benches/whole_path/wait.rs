//! Waiting for a run's messages to be through the path.

use sqlx::PgPool;
use std::time::{Duration, Instant};

/// Polls until `expected` messages are archived and as many invoices transformed (the
/// fixture holds one invoice per message). Panics with the counts when that takes
/// longer than a minute plus 100 ms per message.
pub async fn wait_until_done(pool: &PgPool, expected: usize) {
    let timeout = Duration::from_secs(60) + Duration::from_millis(100) * expected as u32;
    let deadline = Instant::now() + timeout;
    let expected = expected as i64;
    loop {
        let (archived, transformed): (i64, i64) = sqlx::query_as(
            "SELECT (SELECT count(*) FROM archive_record), (SELECT count(*) FROM canonical_invoice)",
        )
        .fetch_one(pool)
        .await
        .expect("progress query");
        if archived >= expected && transformed >= expected {
            return;
        }
        assert!(
            Instant::now() < deadline,
            "after {timeout:?}: {archived} archived and {transformed} transformed of {expected} \
             (see the service logs)"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}
