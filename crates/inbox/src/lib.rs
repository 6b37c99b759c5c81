//! The consumer inbox (the `inbox` table): how a consumer applies each event at most
//! once although Kafka delivers at least once.
//!
//! Architecture invariant: [`claim`] runs inside the transaction that applies the
//! event's effect, so "seen" and "done" commit together or not at all.

mod purge;

pub use purge::purge;

use sqlx::PgConnection;
use std::collections::HashSet;
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

/// [`claim`] for several events in one statement (a consumer's batch): records that
/// `consumer` handles each `(event id, event type)` and returns the ids it had not
/// handled before; the caller applies the effects of those only, once each.
///
/// The rows go in in id order, so two transactions claiming overlapping batches wait
/// for each other in the same order instead of deadlocking.
pub async fn claim_all(
    conn: &mut PgConnection,
    consumer: &str,
    events: &[(Uuid, &str)],
) -> Result<HashSet<Uuid>, sqlx::Error> {
    let mut events = events.to_vec();
    events.sort_unstable_by_key(|(id, _)| *id);
    events.dedup_by_key(|(id, _)| *id);
    let (ids, types): (Vec<Uuid>, Vec<&str>) = events.into_iter().unzip();
    let claimed: Vec<Uuid> = sqlx::query_scalar(
        "INSERT INTO inbox (consumer, event_id, event_type)
         SELECT $1, id, event_type FROM unnest($2::uuid[], $3::text[]) AS e(id, event_type)
         ON CONFLICT (consumer, event_id) DO NOTHING
         RETURNING event_id",
    )
    .bind(consumer)
    .bind(ids)
    .bind(types)
    .fetch_all(conn)
    .await?;
    Ok(claimed.into_iter().collect())
}
