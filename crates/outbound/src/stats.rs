//! The outbound backlog behind the `edihub_outbound_backlog` and
//! `edihub_outbound_oldest_undelivered_seconds` gauges: what `outbound_message` holds
//! undelivered now.
//!
//! Undelivered means `queued` or `sent`: `failed` and `cancelled` are final until an
//! operator resends, and count in `edihub_outbound_failures_total` instead. The age is
//! taken from `created_at`, so retries and resends do not make a stuck message look new.

use edihub_events::OutboundState;
use edihub_metrics::OutboundBacklog;
use sqlx::PgPool;

/// Reads the backlog in one query (the `(state, created_at)` index serves it).
pub async fn backlog(pool: &PgPool) -> Result<OutboundBacklog, sqlx::Error> {
    let (queued, sent, oldest): (i64, i64, i64) = sqlx::query_as(
        "SELECT count(*) FILTER (WHERE state = $1),
                count(*) FILTER (WHERE state = $2),
                coalesce(extract(epoch FROM now() - min(created_at)), 0)::bigint
         FROM outbound_message WHERE state IN ($1, $2)",
    )
    .bind(OutboundState::Queued.as_str())
    .bind(OutboundState::Sent.as_str())
    .fetch_one(pool)
    .await?;
    Ok(OutboundBacklog {
        queued,
        sent,
        oldest_undelivered_seconds: oldest,
    })
}

/// Reads the backlog into the gauges; on an error they keep their last values.
pub async fn refresh(pool: &PgPool) -> Result<(), sqlx::Error> {
    edihub_metrics::set_backlog(&backlog(pool).await?);
    Ok(())
}
