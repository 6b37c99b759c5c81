//! Finding archived messages by what an auditor knows of them: the partner, the period of
//! receipt, an invoice number (BT-1), the AS2 Message-ID or the UNB reference. Answered
//! from the archive's own rows (`archive_record`, which keeps these keys as the archive
//! recorded them) and the ledger's segment rows, never from the journal, so a search
//! sees what the archive holds.

use chrono::{DateTime, Utc};
use serde::Serialize;
use sqlx::PgPool;
use uuid::Uuid;

/// What to look for; every criterion given must hold (AND). Text criteria match exactly.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SearchFilter {
    /// The hub's message id.
    pub message_id: Option<Uuid>,
    /// The partner's AS2 name (AS2-From).
    pub partner: Option<String>,
    /// Received at or after.
    pub from: Option<DateTime<Utc>>,
    /// Received before.
    pub to: Option<DateTime<Utc>>,
    /// One of the message's invoice numbers (BT-1).
    pub invoice: Option<String>,
    /// With or without its angle brackets.
    pub as2_message_id: Option<String>,
    /// UNB 0020.
    pub unb_reference: Option<String>,
    /// At most this many messages, the earliest received first; `None`: all of them.
    pub limit: Option<i64>,
}

impl SearchFilter {
    /// Whether any criterion is set (a filter without one selects the whole archive).
    pub fn is_empty(&self) -> bool {
        self.message_id.is_none()
            && self.partner.is_none()
            && self.from.is_none()
            && self.to.is_none()
            && self.invoice.is_none()
            && self.as2_message_id.is_none()
            && self.unb_reference.is_none()
    }
}

/// One archived message found.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Found {
    pub message_id: Uuid,
    /// `None` only for a record the migration could not complete from the journal.
    pub received_at: Option<DateTime<Utc>>,
    pub partner: Option<String>,
    pub as2_message_id: Option<String>,
    pub unb_reference: Option<String>,
    pub invoice_numbers: Vec<String>,
    pub archived_at: DateTime<Utc>,
    /// The message's ledger position.
    pub ledger_seq: Option<i64>,
    /// Whether that position is in a sealed segment.
    pub sealed: bool,
}

#[derive(Debug, thiserror::Error)]
pub enum SearchError {
    #[error("database error: {0}")]
    Database(#[from] sqlx::Error),
    #[error(transparent)]
    Ledger(#[from] edihub_ledger::LedgerError),
    #[error("--from must be before --to")]
    EmptyPeriod,
    #[error("the limit must be at least 1")]
    Limit,
}

/// A value bound to a placeholder of the search statement.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Param {
    Id(Uuid),
    Text(String),
    Time(DateTime<Utc>),
    Count(i64),
}

/// The statement for `filter` and the values of its placeholders, in order. Only fixed
/// fragments enter the SQL; every value is bound.
pub(crate) fn statement(filter: &SearchFilter) -> (String, Vec<Param>) {
    let mut conditions = Vec::new();
    let mut params = Vec::new();
    let mut push = |condition: &str, param: Param| {
        params.push(param);
        conditions.push(condition.replace('?', &format!("${}", params.len())));
    };
    if let Some(id) = filter.message_id {
        push("message_id = ?", Param::Id(id));
    }
    if let Some(partner) = &filter.partner {
        push("as2_from = ?", Param::Text(partner.clone()));
    }
    if let Some(from) = filter.from {
        push("received_at >= ?", Param::Time(from));
    }
    if let Some(to) = filter.to {
        push("received_at < ?", Param::Time(to));
    }
    if let Some(invoice) = &filter.invoice {
        // `@>` rather than `= ANY`: the GIN index on invoice_numbers serves it.
        push(
            "invoice_numbers @> ARRAY[?]::text[]",
            Param::Text(invoice.clone()),
        );
    }
    if let Some(id) = &filter.as2_message_id {
        push("as2_message_id = ?", Param::Text(bare(id).to_owned()));
    }
    if let Some(reference) = &filter.unb_reference {
        push("unb_reference = ?", Param::Text(reference.clone()));
    }
    let mut sql = String::from(
        "SELECT message_id, received_at, as2_from, as2_message_id, unb_reference,
                invoice_numbers, archived_at, ledger_seq
         FROM archive_record",
    );
    if !conditions.is_empty() {
        sql.push_str(" WHERE ");
        sql.push_str(&conditions.join(" AND "));
    }
    sql.push_str(" ORDER BY received_at, message_id");
    if let Some(limit) = filter.limit {
        params.push(Param::Count(limit));
        sql.push_str(&format!(" LIMIT ${}", params.len()));
    }
    (sql, params)
}

/// An AS2 Message-ID as the journal keeps it: without its angle brackets.
fn bare(id: &str) -> &str {
    id.trim().trim_start_matches('<').trim_end_matches('>')
}

type Row = (
    Uuid,
    Option<DateTime<Utc>>,
    Option<String>,
    Option<String>,
    Option<String>,
    Vec<String>,
    DateTime<Utc>,
    Option<i64>,
);

/// The archived messages `filter` selects, the earliest received first.
pub async fn search(pool: &PgPool, filter: &SearchFilter) -> Result<Vec<Found>, SearchError> {
    if let (Some(from), Some(to)) = (filter.from, filter.to)
        && to <= from
    {
        return Err(SearchError::EmptyPeriod);
    }
    if filter.limit.is_some_and(|l| l < 1) {
        return Err(SearchError::Limit);
    }
    let (sql, params) = statement(filter);
    let mut query = sqlx::query_as::<_, Row>(sqlx::AssertSqlSafe(sql));
    for param in params {
        query = match param {
            Param::Id(id) => query.bind(id),
            Param::Text(text) => query.bind(text),
            Param::Time(time) => query.bind(time),
            Param::Count(count) => query.bind(count),
        };
    }
    let rows = query.fetch_all(pool).await?;
    let sealed = sealed_ranges(pool, rows.iter().filter_map(|r| r.7).min()).await?;
    Ok(rows
        .into_iter()
        .map(
            |(message_id, received_at, partner, as2_id, unb, invoices, archived_at, seq)| Found {
                message_id,
                received_at,
                partner,
                as2_message_id: as2_id,
                unb_reference: unb,
                invoice_numbers: invoices,
                archived_at,
                ledger_seq: seq,
                sealed: seq.is_some_and(|s| sealed.iter().any(|(a, b)| *a <= s && s <= *b)),
            },
        )
        .collect())
}

/// The sealed position ranges from `first` on, through the ledger's own read API.
async fn sealed_ranges(
    pool: &PgPool,
    first: Option<i64>,
) -> Result<Vec<(i64, i64)>, edihub_ledger::LedgerError> {
    let Some(first) = first else {
        return Ok(Vec::new());
    };
    Ok(edihub_ledger::segments(pool, first)
        .await?
        .iter()
        .map(|s| (s.first_seq, s.last_seq))
        .collect())
}

#[cfg(test)]
mod tests;
