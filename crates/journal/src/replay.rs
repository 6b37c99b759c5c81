//! Which accepted message a signed content repeats, for the gateway's answer to a replay.

use chrono::{DateTime, Utc};
use sqlx::PgPool;
use uuid::Uuid;

/// The message that first carried a signed content.
#[derive(Debug, Clone, PartialEq, Eq, sqlx::FromRow)]
pub struct SignedOriginal {
    pub id: Uuid,
    pub as2_message_id: String,
    pub received_at: DateTime<Utc>,
}

/// The message from `as2_from` with this signed content whose replay window overlaps
/// `[received_at, replay_until)`: the one that kept a copy arriving then out of the
/// journal (see the `edi_message_signed_content_once` constraint).
pub async fn find_signed_content(
    pool: &PgPool,
    as2_from: &str,
    signed_sha256: &[u8; 32],
    received_at: DateTime<Utc>,
    replay_until: DateTime<Utc>,
) -> Result<Option<SignedOriginal>, sqlx::Error> {
    sqlx::query_as(
        "SELECT id, as2_message_id, received_at FROM edi_message
         WHERE as2_from = $1 AND signed_sha256 = $2
           AND tstzrange(received_at, replay_until) && tstzrange($3, $4)
         ORDER BY received_at LIMIT 1",
    )
    .bind(as2_from)
    .bind(signed_sha256.as_slice())
    .bind(received_at)
    .bind(replay_until)
    .fetch_optional(pool)
    .await
}
