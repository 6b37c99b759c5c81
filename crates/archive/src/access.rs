//! The access log (`audit_access`): who looked at or acted on the archive, what, when and
//! with what outcome. An access is recorded before its data is returned ([`record`] with
//! [`Outcome::Started`]) and completed afterwards ([`finish`]), so an access that fails or
//! dies midway is still in the log.

use chrono::{DateTime, Utc};
use serde::Serialize;
use sqlx::PgPool;
use uuid::Uuid;

/// The commands the log knows.
pub mod commands {
    pub const FETCH: &str = "fetch";
    pub const SHOW: &str = "show";
    pub const SEARCH: &str = "search";
    pub const EXPORT: &str = "export";
    pub const HOLD: &str = "hold";
}

/// How an access ended.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Outcome {
    /// Not finished (yet): a row left so was an access that died midway.
    Started,
    Ok,
    Failed,
}

/// The column's word; anything else is an access that has not finished.
impl From<String> for Outcome {
    fn from(text: String) -> Outcome {
        Outcome::parse(&text)
    }
}

impl Outcome {
    fn as_str(&self) -> &'static str {
        match self {
            Outcome::Started => "started",
            Outcome::Ok => "ok",
            Outcome::Failed => "failed",
        }
    }

    fn parse(text: &str) -> Outcome {
        match text {
            "ok" => Outcome::Ok,
            "failed" => Outcome::Failed,
            _ => Outcome::Started,
        }
    }
}

/// One access, as recorded.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct AccessRecord {
    /// Who: the auditor's name as they gave it, else the OS user.
    pub auditor: String,
    /// What: one of [`commands`].
    pub command: String,
    /// The command's arguments and ids, as the command was given them.
    pub arguments: serde_json::Value,
    /// The messages returned or acted on, when known.
    pub message_ids: Vec<Uuid>,
    pub outcome: Outcome,
    /// What the outcome adds: the error of a failure, the objects a hold changed.
    pub result: Option<serde_json::Value>,
}

impl AccessRecord {
    /// An access about to start.
    pub fn started(
        auditor: impl Into<String>,
        command: impl Into<String>,
        arguments: serde_json::Value,
    ) -> AccessRecord {
        AccessRecord {
            auditor: auditor.into(),
            command: command.into(),
            arguments,
            message_ids: Vec::new(),
            outcome: Outcome::Started,
            result: None,
        }
    }
}

/// The row id of a recorded access.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct AccessId(pub i64);

#[derive(Debug, thiserror::Error)]
pub enum AccessError {
    #[error("recording the access in audit_access: {0}")]
    Database(#[from] sqlx::Error),
    #[error("access {0} is not open (already finished, or no such row)")]
    NotOpen(i64),
    #[error("an access cannot finish as started")]
    StillStarted,
}

/// Records an access. A record already finished (`Ok` or `Failed`) is written whole, with
/// its finishing time; a `Started` one waits for [`finish`].
pub async fn record(pool: &PgPool, access: &AccessRecord) -> Result<AccessId, AccessError> {
    let finished = access.outcome != Outcome::Started;
    let id = sqlx::query_scalar(
        "INSERT INTO audit_access (auditor, command, arguments, message_ids, messages, outcome,
                                   result, finished_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, CASE WHEN $8 THEN now() END)
         RETURNING id",
    )
    .bind(&access.auditor)
    .bind(&access.command)
    .bind(&access.arguments)
    .bind(&access.message_ids)
    .bind(finished.then_some(count(&access.message_ids)))
    .bind(access.outcome.as_str())
    .bind(&access.result)
    .bind(finished)
    .fetch_one(pool)
    .await?;
    Ok(AccessId(id))
}

/// Completes a started access with its outcome and the messages it returned or acted on.
/// A finished row is never changed again.
pub async fn finish(
    pool: &PgPool,
    id: AccessId,
    outcome: Outcome,
    message_ids: &[Uuid],
    result: Option<serde_json::Value>,
) -> Result<(), AccessError> {
    if outcome == Outcome::Started {
        return Err(AccessError::StillStarted);
    }
    let done = sqlx::query(
        "UPDATE audit_access
            SET outcome = $2, message_ids = $3, messages = $4, result = $5, finished_at = now()
          WHERE id = $1 AND outcome = 'started'",
    )
    .bind(id.0)
    .bind(outcome.as_str())
    .bind(message_ids)
    .bind(count(message_ids))
    .bind(result)
    .execute(pool)
    .await?;
    if done.rows_affected() == 0 {
        return Err(AccessError::NotOpen(id.0));
    }
    Ok(())
}

fn count(ids: &[Uuid]) -> i32 {
    i32::try_from(ids.len()).unwrap_or(i32::MAX)
}

/// Which accesses to list; every criterion given must hold.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct AccessFilter {
    /// Accessed at or after.
    pub from: Option<DateTime<Utc>>,
    /// Accessed before.
    pub to: Option<DateTime<Utc>>,
    pub auditor: Option<String>,
    pub command: Option<String>,
    /// At most this many, the most recent kept; `None`: all.
    pub limit: Option<i64>,
}

/// One row of the log.
#[derive(Debug, Clone, PartialEq, Serialize, sqlx::FromRow)]
pub struct Access {
    pub id: i64,
    pub at: DateTime<Utc>,
    pub auditor: String,
    pub command: String,
    pub arguments: serde_json::Value,
    pub message_ids: Vec<Uuid>,
    /// How many messages; `None` while the access has not finished.
    pub messages: Option<i32>,
    #[sqlx(try_from = "String")]
    pub outcome: Outcome,
    pub result: Option<serde_json::Value>,
    pub finished_at: Option<DateTime<Utc>>,
}

/// The accesses `filter` selects, oldest first.
pub async fn list(pool: &PgPool, filter: &AccessFilter) -> Result<Vec<Access>, AccessError> {
    // NULL parameters switch their criterion off, so the statement is fixed. The most
    // recent `limit` rows are taken, then shown oldest first.
    Ok(sqlx::query_as(
        "SELECT * FROM (
             SELECT id, at, auditor, command, arguments, message_ids, messages, outcome,
                    result, finished_at
               FROM audit_access
              WHERE ($1::timestamptz IS NULL OR at >= $1)
                AND ($2::timestamptz IS NULL OR at < $2)
                AND ($3::text IS NULL OR auditor = $3)
                AND ($4::text IS NULL OR command = $4)
              ORDER BY id DESC
              LIMIT $5) recent
         ORDER BY id",
    )
    .bind(filter.from)
    .bind(filter.to)
    .bind(&filter.auditor)
    .bind(&filter.command)
    .bind(filter.limit)
    .fetch_all(pool)
    .await?)
}

#[cfg(test)]
mod tests;
