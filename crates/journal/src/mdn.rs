//! The stored MDNs: looked up for resends, and loaded for asynchronous delivery.

use crate::StoredMdn;
use sqlx::PgPool;
use std::collections::HashMap;
use uuid::Uuid;

/// An `mdn` row as read, before its headers are decoded.
#[derive(sqlx::FromRow)]
struct MdnRow {
    message_id: Uuid,
    mdn_message_id: String,
    disposition: String,
    content_type: String,
    headers: serde_json::Value,
    body: Vec<u8>,
}

impl MdnRow {
    fn into_stored(self) -> (Uuid, StoredMdn) {
        let mdn = StoredMdn {
            mdn_message_id: self.mdn_message_id,
            disposition: self.disposition,
            content_type: self.content_type,
            headers: serde_json::from_value(self.headers).unwrap_or_default(),
            body: self.body,
        };
        (self.message_id, mdn)
    }
}

/// The `headers` column: the MDN's header lines as a JSON array of pairs.
pub(crate) fn headers_json(headers: &[(String, String)]) -> serde_json::Value {
    serde_json::to_value(headers).unwrap_or(serde_json::Value::Null)
}

/// The MDN the hub returned for an accepted message, looked up by its AS2 identity.
pub async fn find_mdn(
    pool: &PgPool,
    as2_from: &str,
    as2_to: &str,
    as2_message_id: &str,
) -> Result<Option<(Uuid, StoredMdn)>, sqlx::Error> {
    let row: Option<MdnRow> = sqlx::query_as(
        "SELECT d.message_id, d.mdn_message_id, d.disposition, d.content_type, d.headers,
                d.body
         FROM edi_message m JOIN mdn d ON d.message_id = m.id
         WHERE m.as2_from = $1 AND m.as2_to = $2 AND m.as2_message_id = $3",
    )
    .bind(as2_from)
    .bind(as2_to)
    .bind(as2_message_id)
    .fetch_optional(pool)
    .await?;
    Ok(row.map(MdnRow::into_stored))
}

/// The stored MDNs of `message_ids`, by message id, in one query (the asynchronous MDN
/// relay loads a batch's at once). A message without one is absent from the map.
pub async fn load_mdns(
    pool: &PgPool,
    message_ids: &[Uuid],
) -> Result<HashMap<Uuid, StoredMdn>, sqlx::Error> {
    let rows: Vec<MdnRow> = sqlx::query_as(
        "SELECT message_id, mdn_message_id, disposition, content_type, headers, body
         FROM mdn WHERE message_id = ANY($1)",
    )
    .bind(message_ids)
    .fetch_all(pool)
    .await?;
    Ok(rows.into_iter().map(MdnRow::into_stored).collect())
}
