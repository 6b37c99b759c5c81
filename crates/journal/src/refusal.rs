//! Refused messages, kept for operators and never published.

use chrono::{DateTime, Utc};
use sqlx::PgPool;
use uuid::Uuid;

/// A refused message: what the gateway knew of it and why it said no.
#[derive(Debug, Clone)]
pub struct Refusal<'a> {
    pub as2_from: Option<&'a str>,
    pub as2_to: Option<&'a str>,
    pub as2_message_id: Option<&'a str>,
    pub disposition: &'a str,
    pub reason: &'a str,
    pub body_size: usize,
    pub refused_at: DateTime<Utc>,
}

pub async fn record_refusal(pool: &PgPool, refusal: &Refusal<'_>) -> Result<(), sqlx::Error> {
    sqlx::query(
        "INSERT INTO as2_refusal (id, as2_from, as2_to, as2_message_id, disposition, reason,
                                  body_size, refused_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8)",
    )
    .bind(Uuid::now_v7())
    .bind(refusal.as2_from)
    .bind(refusal.as2_to)
    .bind(refusal.as2_message_id)
    .bind(refusal.disposition)
    .bind(refusal.reason)
    .bind(refusal.body_size as i64)
    .bind(refusal.refused_at)
    .execute(pool)
    .await?;
    Ok(())
}
