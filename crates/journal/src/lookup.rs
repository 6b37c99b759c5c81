//! What operators look up in the journal (`edihub message`, `edihub audit fetch`).

use sqlx::PgPool;
use uuid::Uuid;

/// The hub's id of the message with this AS2 Message-ID, from any partner (the first
/// one found when two partners used the same Message-ID).
pub async fn find_by_as2_message_id(
    pool: &PgPool,
    as2_message_id: &str,
) -> Result<Option<Uuid>, sqlx::Error> {
    sqlx::query_scalar("SELECT id FROM edi_message WHERE as2_message_id = $1")
        .bind(as2_message_id)
        .fetch_optional(pool)
        .await
}

/// A message as the JSON that `edihub message` prints: its AS2 and UNB identity, the
/// payload's digest and size, and when it arrived (not the bytes).
pub async fn message_json(
    pool: &PgPool,
    message_id: Uuid,
) -> Result<Option<serde_json::Value>, sqlx::Error> {
    sqlx::query_scalar(
        "SELECT jsonb_build_object('id', id, 'as2_from', as2_from, 'as2_to', as2_to,
                'as2_message_id', as2_message_id, 'content_type', content_type,
                'payload_sha256', payload_sha256, 'payload_size', payload_size,
                'unb_sender', unb_sender, 'unb_recipient', unb_recipient,
                'unb_reference', unb_reference, 'received_at', received_at)
         FROM edi_message WHERE id = $1",
    )
    .bind(message_id)
    .fetch_optional(pool)
    .await
}
