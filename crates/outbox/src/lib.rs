//! The transactional outbox (the `outbox` table): [`enqueue`] writes an event in the
//! caller's transaction; the [`Relay`] (its own process) publishes pending rows and marks
//! them SENT only after the broker acknowledged them. [`insert`] lends the INSERT to
//! statements of other crates (the journal's accept), [`admin`] and [`purge`] are the
//! operators' tools.
//!
//! Architecture invariant: only the relay publishes to Kafka. Everything else that wants
//! to tell the world something writes an outbox row in the transaction of its change.

pub mod admin;
pub mod insert;
mod publish;
pub mod purge;
mod relay;

pub use publish::{PublishError, Publisher};
pub use relay::{CLAIM, Relay, StepReport, backoff_delay, notify_channel};

/// Where a row goes once committed: each channel has its own relay.
pub mod channels {
    /// Published to the row's Kafka topic by the outbox relay.
    pub const KAFKA: &str = "kafka";
    /// An asynchronous AS2 MDN, POSTed by the gateway to the URL in the row's `topic`.
    pub const AS2_MDN: &str = "as2-mdn";
}

use chrono::{DateTime, Utc};
use sqlx::PgConnection;
use sqlx::postgres::PgArguments;
use uuid::Uuid;

/// An event to be published, as written by the business transaction.
#[derive(Debug, Clone)]
pub struct NewEvent {
    /// The event id (UUIDv7); becomes `ce_id`, and consumers dedupe on it.
    pub id: Uuid,
    pub aggregate_type: String,
    /// Kafka key: events of one aggregate stay in order on one partition.
    pub aggregate_id: String,
    pub event_type: String,
    pub topic: String,
    pub payload: serde_json::Value,
    /// Extra headers carried to Kafka (e.g. `correlation_id`).
    pub headers: serde_json::Value,
}

/// A claimed row, as the relay hands it to a [`Publisher`].
#[derive(Debug, Clone, sqlx::FromRow)]
pub struct OutboxRecord {
    pub id: Uuid,
    pub seq: i64,
    pub aggregate_type: String,
    pub aggregate_id: String,
    pub event_type: String,
    pub topic: String,
    /// The payload's JSON text as PostgreSQL renders the `jsonb` column, passed on
    /// without building a tree: the relay publishes it as it is.
    pub payload: Box<serde_json::value::RawValue>,
    pub headers: serde_json::Value,
    pub created_at: DateTime<Utc>,
    pub attempts: i32,
}

impl OutboxRecord {
    /// A string header carried in the `headers` column, if present.
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers.get(name).and_then(|v| v.as_str())
    }
}

/// Writes `event` for Kafka in the caller's transaction. The relay is woken at commit by
/// the `outbox_notify` trigger.
pub async fn enqueue(conn: &mut PgConnection, event: &NewEvent) -> Result<(), sqlx::Error> {
    enqueue_on(conn, channels::KAFKA, event).await
}

/// Writes `events` for Kafka in the caller's transaction, in one statement, in the
/// order given (their `seq` follows it, so the relay publishes them in that order).
pub async fn enqueue_all(conn: &mut PgConnection, events: &[NewEvent]) -> Result<(), sqlx::Error> {
    if events.is_empty() {
        return Ok(());
    }
    static SQL: std::sync::LazyLock<String> =
        std::sync::LazyLock::new(|| insert::unnest(2, "$1::uuid[]", "true"));
    let mut args = PgArguments::default();
    let ids: Vec<Uuid> = events.iter().map(|event| event.id).collect();
    let rows: Vec<Option<&NewEvent>> = events.iter().map(Some).collect();
    sqlx::Arguments::add(&mut args, ids).map_err(sqlx::Error::Encode)?;
    insert::bind_arrays(&mut args, &rows, channels::KAFKA).map_err(sqlx::Error::Encode)?;
    sqlx::query_with(SQL.as_str(), args).execute(conn).await?;
    Ok(())
}

/// Writes `event` for the relay of `channel` (one of [`channels`]).
pub async fn enqueue_on(
    conn: &mut PgConnection,
    channel: &str,
    event: &NewEvent,
) -> Result<(), sqlx::Error> {
    let mut args = PgArguments::default();
    insert::bind(&mut args, Some(event), channel).map_err(sqlx::Error::Encode)?;
    sqlx::query_with(insert::single(), args)
        .execute(conn)
        .await?;
    Ok(())
}
