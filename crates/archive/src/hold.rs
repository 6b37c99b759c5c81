//! Legal holds on archived messages: an S3 Object Lock legal hold set on, or lifted from,
//! every object version the archive recorded for each selected message (its
//! `archive_object` rows and the original `archive_record` points to). A hold keeps a
//! version from deletion past its retention until it is lifted; it changes no byte, so
//! the evidence and the ledger are untouched.

use crate::search::{SearchError, SearchFilter, search};
use crate::store::{ArchiveStore, StoreError};
use chrono::{DateTime, Utc};
use futures::StreamExt;
use serde::Serialize;
use sqlx::PgPool;
use std::ops::Range;
use uuid::Uuid;

/// Which messages a hold applies to.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Selector {
    /// One message: the hub's id or the partner's AS2 Message-ID.
    Message(String),
    /// A partner's messages, all of them or those received in a period; or every
    /// partner's messages of a period.
    Messages {
        partner: Option<String>,
        period: Option<Range<DateTime<Utc>>>,
    },
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SelectorError {
    #[error("select the messages: --message, --partner, or --from with --to")]
    Nothing,
    #[error("--message selects one message: it does not combine with --partner, --from or --to")]
    MessageAndMore,
    #[error("a period needs both --from and --to")]
    HalfPeriod,
    #[error("--from must be before --to")]
    EmptyPeriod,
}

impl Selector {
    /// The selector the given options make, or why they make none.
    pub fn new(
        message: Option<String>,
        partner: Option<String>,
        from: Option<DateTime<Utc>>,
        to: Option<DateTime<Utc>>,
    ) -> Result<Selector, SelectorError> {
        let period = match (from, to) {
            (Some(from), Some(to)) if to <= from => return Err(SelectorError::EmptyPeriod),
            (Some(from), Some(to)) => Some(from..to),
            (None, None) => None,
            _ => return Err(SelectorError::HalfPeriod),
        };
        match (message, partner, period) {
            (Some(_), Some(_), _) | (Some(_), _, Some(_)) => Err(SelectorError::MessageAndMore),
            (Some(message), None, None) => Ok(Selector::Message(message)),
            (None, None, None) => Err(SelectorError::Nothing),
            (None, partner, period) => Ok(Selector::Messages { partner, period }),
        }
    }

    /// The search that finds the selected messages (all of them: no limit).
    pub fn filter(&self) -> SearchFilter {
        match self {
            Selector::Message(id) => match Uuid::parse_str(id.trim()) {
                Ok(uuid) => SearchFilter {
                    message_id: Some(uuid),
                    ..Default::default()
                },
                Err(_) => SearchFilter {
                    as2_message_id: Some(id.clone()),
                    ..Default::default()
                },
            },
            Selector::Messages { partner, period } => SearchFilter {
                partner: partner.clone(),
                from: period.as_ref().map(|p| p.start),
                to: period.as_ref().map(|p| p.end),
                ..Default::default()
            },
        }
    }
}

/// One object version of a message, as the archive recorded it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, sqlx::FromRow)]
pub struct HeldObject {
    pub message_id: Uuid,
    pub object_key: String,
    pub version_id: Option<String>,
}

/// What a hold change did.
#[derive(Debug, Clone, Serialize)]
pub struct HoldReport {
    /// `ON` or `OFF`.
    pub status: &'static str,
    pub messages: Vec<Uuid>,
    /// The object versions whose hold is now `status`.
    pub objects: Vec<HeldObject>,
    /// Each object version S3 refused, with its reason.
    pub failures: Vec<String>,
}

impl HoldReport {
    pub fn passed(&self) -> bool {
        self.failures.is_empty()
    }
}

#[derive(Debug, thiserror::Error)]
pub enum HoldError {
    #[error(transparent)]
    Selector(#[from] SelectorError),
    #[error(transparent)]
    Search(#[from] SearchError),
    #[error("database error: {0}")]
    Database(#[from] sqlx::Error),
    #[error("no archived message matches {0}")]
    NoMessage(String),
}

/// The archived messages `selector` names, the earliest received first.
pub async fn select(pool: &PgPool, selector: &Selector) -> Result<Vec<Uuid>, HoldError> {
    let found = search(pool, &selector.filter()).await?;
    if let (Selector::Message(id), true) = (selector, found.is_empty()) {
        return Err(HoldError::NoMessage(id.clone()));
    }
    Ok(found.into_iter().map(|f| f.message_id).collect())
}

/// Every object version the archive recorded for `messages`: the `archive_object` rows
/// and the record's original (the same version as the payload row, for messages archived
/// with their evidence, so it counts once).
pub async fn objects_of(pool: &PgPool, messages: &[Uuid]) -> Result<Vec<HeldObject>, sqlx::Error> {
    sqlx::query_as(
        "SELECT message_id, object_key, version_id FROM archive_object
          WHERE message_id = ANY($1)
         UNION
         SELECT message_id, object_key, version_id FROM archive_record
          WHERE message_id = ANY($1)
         ORDER BY message_id, object_key",
    )
    .bind(messages)
    .fetch_all(pool)
    .await
}

/// How many messages' holds change at once (each message's objects go together).
const CONCURRENT_MESSAGES: usize = 4;

/// Sets (`on`) or lifts the legal hold on every object version of `messages`. An object S3
/// refuses is reported, not fatal: the others are still changed, and the caller says
/// which failed. `progress(done, total)` counts messages.
pub async fn apply(
    pool: &PgPool,
    store: &ArchiveStore,
    messages: &[Uuid],
    on: bool,
    progress: &dyn Fn(u64, u64),
) -> Result<HoldReport, HoldError> {
    let objects = objects_of(pool, messages).await?;
    let total = messages.len() as u64;
    progress(0, total);
    let mut changes = futures::stream::iter(messages.iter().map(|message_id| {
        let mine: Vec<&HeldObject> = objects
            .iter()
            .filter(|o| o.message_id == *message_id)
            .collect();
        async move {
            let results =
                futures::future::join_all(mine.iter().map(|o| change(store, o, on))).await;
            mine.into_iter().zip(results).collect::<Vec<_>>()
        }
    }))
    .buffer_unordered(CONCURRENT_MESSAGES);
    let mut report = HoldReport {
        status: if on { "ON" } else { "OFF" },
        messages: messages.to_vec(),
        objects: Vec::new(),
        failures: Vec::new(),
    };
    let mut done = 0;
    while let Some(results) = changes.next().await {
        for (object, result) in results {
            match result {
                Ok(()) => report.objects.push(object.clone()),
                Err(error) => report.failures.push(format!(
                    "message {}: {} (version {}): {error}",
                    object.message_id,
                    object.object_key,
                    object.version_id.as_deref().unwrap_or("-")
                )),
            }
        }
        done += 1;
        progress(done, total);
    }
    report
        .objects
        .sort_by(|a, b| (a.message_id, &a.object_key).cmp(&(b.message_id, &b.object_key)));
    Ok(report)
}

async fn change(store: &ArchiveStore, object: &HeldObject, on: bool) -> Result<(), StoreError> {
    store
        .set_legal_hold(&object.object_key, object.version_id.as_deref(), on)
        .await
}

#[cfg(test)]
mod tests;
