//! Reading back what the transform consumer wrote, for operators (`edihub message`).

use sqlx::PgPool;
use uuid::Uuid;

/// The canonical invoices of one message, as a JSON array in message-reference order
/// (empty when none were written).
pub async fn invoices_json(
    pool: &PgPool,
    message_id: Uuid,
) -> Result<serde_json::Value, sqlx::Error> {
    sqlx::query_scalar(
        "SELECT coalesce(jsonb_agg(canonical ORDER BY message_reference), '[]'::jsonb)
         FROM canonical_invoice WHERE message_id = $1",
    )
    .bind(message_id)
    .fetch_one(pool)
    .await
}
