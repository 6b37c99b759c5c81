//! Inbox housekeeping. A row only has to outlive the redeliveries of its event, so old
//! rows are deleted outright (nothing to archive: the effect they guarded is stored).

use chrono::{DateTime, Utc};
use sqlx::PgPool;

/// Deletes inbox rows received before `cutoff`, at most `batch` rows per transaction,
/// so that a consumer claiming an event never waits long behind the purge. Returns how
/// many were deleted.
pub async fn purge(pool: &PgPool, cutoff: DateTime<Utc>, batch: i64) -> Result<u64, sqlx::Error> {
    let mut total = 0;
    loop {
        let deleted = sqlx::query(
            "DELETE FROM inbox WHERE ctid = ANY(ARRAY(
                 SELECT ctid FROM inbox WHERE received_at < $1 LIMIT $2 FOR UPDATE SKIP LOCKED))",
        )
        .bind(cutoff)
        .bind(batch)
        .execute(pool)
        .await?
        .rows_affected();
        total += deleted;
        if deleted == 0 {
            return Ok(total);
        }
    }
}
