//! Operator actions on the outbox: list dead letters, requeue them, replay sent events.
//! Every action takes a [`Selection`] and can be run as a dry run first.

use chrono::{DateTime, Utc};
use sqlx::{PgPool, Postgres, QueryBuilder};
use uuid::Uuid;

/// Which rows an action applies to. Empty fields do not filter; at least one filter
/// must be given for a change, so that nobody replays the whole outbox by accident.
#[derive(Debug, Clone, Default)]
pub struct Selection {
    pub ids: Vec<Uuid>,
    pub event_type: Option<String>,
    pub aggregate_id: Option<String>,
    pub created_from: Option<DateTime<Utc>>,
    pub created_to: Option<DateTime<Utc>>,
}

impl Selection {
    pub fn is_empty(&self) -> bool {
        self.ids.is_empty()
            && self.event_type.is_none()
            && self.aggregate_id.is_none()
            && self.created_from.is_none()
            && self.created_to.is_none()
    }

    fn push_filters(&self, query: &mut QueryBuilder<Postgres>) {
        if !self.ids.is_empty() {
            query
                .push(" AND id = ANY(")
                .push_bind(self.ids.clone())
                .push(")");
        }
        if let Some(event_type) = &self.event_type {
            query
                .push(" AND event_type = ")
                .push_bind(event_type.clone());
        }
        if let Some(aggregate_id) = &self.aggregate_id {
            query
                .push(" AND aggregate_id = ")
                .push_bind(aggregate_id.clone());
        }
        if let Some(from) = self.created_from {
            query.push(" AND created_at >= ").push_bind(from);
        }
        if let Some(to) = self.created_to {
            query.push(" AND created_at < ").push_bind(to);
        }
    }
}

/// A row as an operator sees it.
#[derive(Debug, Clone, sqlx::FromRow, serde::Serialize)]
pub struct OutboxRow {
    pub id: Uuid,
    pub seq: i64,
    pub aggregate_id: String,
    pub event_type: String,
    pub topic: String,
    pub status: String,
    pub attempts: i32,
    pub created_at: DateTime<Utc>,
    pub sent_at: Option<DateTime<Utc>>,
    pub last_error: Option<String>,
}

#[derive(Debug, thiserror::Error)]
pub enum AdminError {
    #[error(
        "refusing to change rows without a filter (give ids, an event type, an aggregate or a time range)"
    )]
    NoFilter,
    #[error("database error: {0}")]
    Database(#[from] sqlx::Error),
}

/// Rows in `status` matching `selection`, oldest first.
pub async fn list(
    pool: &PgPool,
    status: &str,
    selection: &Selection,
    limit: i64,
) -> Result<Vec<OutboxRow>, AdminError> {
    let mut query = QueryBuilder::new(
        "SELECT id, seq, aggregate_id, event_type, topic, status, attempts, created_at, sent_at,
                last_error FROM outbox WHERE status = ",
    );
    query.push_bind(status.to_owned());
    selection.push_filters(&mut query);
    query.push(" ORDER BY seq LIMIT ").push_bind(limit);
    Ok(query.build_query_as().fetch_all(pool).await?)
}

/// Puts rows in `from_status` matching `selection` back to PENDING, due now, with the
/// attempt count reset. With `dry_run`, changes nothing. Returns the affected ids.
///
/// Requeue (FAILED -> PENDING) retries dead letters; replay (SENT -> PENDING) publishes
/// sent events again with their original `ce_id`, so idempotent consumers ignore them
/// while a downstream that lost data receives them again.
pub async fn reset_to_pending(
    pool: &PgPool,
    from_status: &str,
    selection: &Selection,
    dry_run: bool,
) -> Result<Vec<Uuid>, AdminError> {
    if selection.is_empty() {
        return Err(AdminError::NoFilter);
    }
    let mut query = QueryBuilder::new(if dry_run {
        "SELECT id FROM outbox WHERE status = "
    } else {
        "UPDATE outbox SET status = 'PENDING', attempts = 0, next_attempt_at = now(),
                sent_at = NULL WHERE status = "
    });
    query.push_bind(from_status.to_owned());
    selection.push_filters(&mut query);
    query.push(if dry_run {
        " ORDER BY seq"
    } else {
        " RETURNING id"
    });
    let ids: Vec<(Uuid,)> = query.build_query_as().fetch_all(pool).await?;
    Ok(ids.into_iter().map(|(id,)| id).collect())
}

/// Every row of one aggregate (a message's events), in `seq` order, as the JSON that
/// `edihub message` prints: what happened to each event, not its payload.
pub async fn aggregate_json(
    pool: &PgPool,
    aggregate_id: &str,
) -> Result<serde_json::Value, sqlx::Error> {
    sqlx::query_scalar(
        "SELECT coalesce(jsonb_agg(jsonb_build_object('id', id, 'event_type', event_type,
                'topic', topic, 'status', status, 'attempts', attempts, 'sent_at', sent_at,
                'last_error', last_error) ORDER BY seq), '[]'::jsonb)
         FROM outbox WHERE aggregate_id = $1",
    )
    .bind(aggregate_id)
    .fetch_one(pool)
    .await
}

/// The outbox's backlog, for the relay's gauges and alerts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Backlog {
    pub pending: i64,
    pub oldest_pending_seconds: i64,
    pub failed: i64,
}

pub async fn backlog(pool: &PgPool) -> Result<Backlog, sqlx::Error> {
    let (pending, oldest, failed): (i64, i64, i64) = sqlx::query_as(
        "SELECT count(*) FILTER (WHERE status = 'PENDING'),
                coalesce(extract(epoch FROM now() - min(created_at) FILTER (WHERE status = 'PENDING')), 0)::bigint,
                count(*) FILTER (WHERE status = 'FAILED')
         FROM outbox WHERE status <> 'SENT'",
    )
    .fetch_one(pool)
    .await?;
    Ok(Backlog {
        pending,
        oldest_pending_seconds: oldest,
        failed,
    })
}

/// Reads the backlog into the `edihub_outbox_*` gauges. `false` when the database
/// does not answer.
pub async fn refresh_gauges(pool: &PgPool) -> bool {
    match backlog(pool).await {
        Ok(backlog) => {
            edihub_metrics::OUTBOX_PENDING.set(backlog.pending);
            edihub_metrics::OUTBOX_OLDEST_PENDING_SECONDS.set(backlog.oldest_pending_seconds);
            edihub_metrics::OUTBOX_FAILED.set(backlog.failed);
            true
        }
        Err(error) => {
            tracing::warn!(%error, "cannot read the outbox backlog");
            false
        }
    }
}
