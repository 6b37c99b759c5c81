//! The gateway's single transaction: the message, its MDN and its outbox rows in one
//! statement.

use crate::{AcceptedMessage, JournalError, StoredMdn, sha256_hex};
use edihub_outbox::{NewEvent, channels, insert};
use sqlx::error::BoxDynError;
use sqlx::postgres::PgArguments;
use sqlx::{Arguments as _, PgPool};
use std::sync::LazyLock;

/// The journal's INSERTs, shared with the batched form (`crate::batch`); their values
/// are bound in this order by both.
pub(crate) const INSERT_MESSAGE: &str = "INSERT INTO edi_message (id, as2_from, as2_to, \
    as2_message_id, content_type, as2_headers, raw_body, payload, payload_sha256, payload_size, \
    unb_sender, unb_recipient, unb_reference, received_at, signed_sha256, replay_until, \
    signed_entity, security)";
pub(crate) const INSERT_MDN: &str = "INSERT INTO mdn (message_id, mdn_message_id, disposition, \
    content_type, headers, body, created_at)";

/// Every part inserts only when the message row did (`FROM message`), so a duplicate
/// writes nothing at all. A duplicate is either the same AS2 identity (a resend) or the
/// same signed content within its replay window (a replay); [`crate::find_mdn`] and
/// [`crate::find_signed_content`] tell which. The outbox parts are `edihub_outbox::insert`'s, so the rows
/// are the ones `edihub_outbox::enqueue_on` writes, channel included.
static ACCEPT: LazyLock<String> = LazyLock::new(|| {
    format!(
        "WITH message AS (
             {message}
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $20, $21, $22, $23)
             ON CONFLICT DO NOTHING
             RETURNING id),
         receipt AS (
             {receipt}
             SELECT id, $15, $16, $17, $18, $19, $14 FROM message),
         event AS ({event}),
         delivery AS ({delivery})
         SELECT count(*) FROM message",
        message = INSERT_MESSAGE,
        receipt = INSERT_MDN,
        event = insert::select(EVENT, "FROM message"),
        delivery = insert::select(
            DELIVERY,
            &format!("FROM message WHERE ${DELIVERY}::uuid IS NOT NULL")
        ),
    )
});

/// The first parameter of the event's outbox part, after the message's and the MDN's.
const EVENT: usize = 24;
/// The first parameter of the delivery's outbox part.
const DELIVERY: usize = EVENT + insert::PARAMETERS;

/// Stores the message, its MDN and the outbox event in one transaction, with the
/// delivery of the MDN when the partner asked for it asynchronously (an outbox row on
/// the `as2-mdn` channel, see `edihub-mdn-delivery`).
pub async fn accept(
    pool: &PgPool,
    message: &AcceptedMessage,
    mdn: &StoredMdn,
    event: &NewEvent,
    delivery: Option<&NewEvent>,
) -> Result<(), JournalError> {
    // One statement, so one round trip and one implicit transaction: this is the
    // gateway's hot path.
    let args = arguments(message, mdn, event, delivery).map_err(sqlx::Error::Encode)?;
    let inserted: i64 = sqlx::query_scalar_with(ACCEPT.as_str(), args)
        .fetch_one(pool)
        .await?;
    if inserted == 0 {
        return Err(JournalError::Duplicate);
    }
    Ok(())
}

fn arguments(
    message: &AcceptedMessage,
    mdn: &StoredMdn,
    event: &NewEvent,
    delivery: Option<&NewEvent>,
) -> Result<PgArguments, BoxDynError> {
    let mut args = PgArguments::default();
    args.add(message.id)?;
    args.add(&message.as2_from)?;
    args.add(&message.as2_to)?;
    args.add(&message.as2_message_id)?;
    args.add(&message.content_type)?;
    args.add(&message.as2_headers)?;
    args.add(&message.raw_body)?;
    args.add(&message.payload)?;
    args.add(sha256_hex(&message.payload))?;
    args.add(message.payload.len() as i64)?;
    args.add(&message.unb_sender)?;
    args.add(&message.unb_recipient)?;
    args.add(&message.unb_reference)?;
    args.add(message.received_at)?;
    args.add(&mdn.mdn_message_id)?;
    args.add(&mdn.disposition)?;
    args.add(&mdn.content_type)?;
    args.add(crate::mdn::headers_json(&mdn.headers))?;
    args.add(&mdn.body)?;
    args.add(message.signed_sha256.as_ref().map(|d| d.as_slice()))?;
    args.add(message.replay_until)?;
    args.add(message.signed_entity.as_deref())?;
    args.add(security_json(message.security.as_ref())?)?;
    debug_assert_eq!(args.len() + 1, EVENT);
    insert::bind(&mut args, Some(event), channels::KAFKA)?;
    insert::bind(&mut args, delivery, channels::AS2_MDN)?;
    Ok(args)
}

/// The `security` column's value.
pub(crate) fn security_json(
    security: Option<&crate::SecurityFacts>,
) -> Result<Option<serde_json::Value>, serde_json::Error> {
    security.map(serde_json::to_value).transpose()
}

#[cfg(test)]
pub(crate) mod tests;
