//! The consumer inbox (the `inbox` table): how a consumer applies each event at most
//! once although Kafka delivers at least once.
//!
//! Architecture invariant: [`claim`] runs inside the transaction that applies the
//! event's effect, so "seen" and "done" commit together or not at all.

mod purge;

pub use purge::purge;

use sqlx::PgConnection;
use uuid::Uuid;

/// Records that `consumer` handles `event_id`. Returns `false` when the event was
/// already handled: the caller must then skip the effect.
///
/// A concurrent claim of the same event waits on the primary key until the first
/// transaction ends, then sees the row (or takes over if the first rolled back).
pub async fn claim(
    conn: &mut PgConnection,
    consumer: &str,
    event_id: Uuid,
    event_type: &str,
) -> Result<bool, sqlx::Error> {
    let result = sqlx::query(
        "INSERT INTO inbox (consumer, event_id, event_type) VALUES ($1, $2, $3)
         ON CONFLICT (consumer, event_id) DO NOTHING",
    )
    .bind(consumer)
    .bind(event_id)
    .bind(event_type)
    .execute(conn)
    .await?;
    Ok(result.rows_affected() == 1)
}
