//! Partners' CONTRL and APERAK matched to the interchanges the hub sent them: a CONTRL
//! by UCI's interchange reference (and sender, when it names one), an APERAK by its
//! top-level references, which name the acknowledged document's number (BGM 1004) or,
//! in some guides, the interchange reference. What [`queue_in`](crate::queue_in) read
//! of each outbound payload is what they are matched against.

use crate::AGGREGATE_TYPE;
use crate::store::{COLUMNS, OutboundMessage, StoreError};
use chrono::{DateTime, Utc};
use edihub_edifact::received::ReceivedAcknowledgement;
use edihub_events::{OutboundAcknowledged, event_types, headers};
use edihub_outbox::NewEvent;
use serde::Serialize;
use sqlx::PgConnection;
use uuid::Uuid;

/// Where an acknowledgement came from: the received interchange that carried it.
#[derive(Debug, Clone, Copy)]
pub struct AcknowledgementSource<'a> {
    /// Its AS2-From: the partner, to whom the acknowledged message was sent.
    pub partner: &'a str,
    /// Its AS2-To: the hub identity that sent the acknowledged message.
    pub hub_as2_id: &'a str,
    /// The received interchange's id (`edi_message.id`).
    pub message_id: Uuid,
}

/// One acknowledgement of an outbound message, as `edihub outbound show` lists them.
#[derive(Debug, Clone, Serialize, sqlx::FromRow)]
pub struct Acknowledgement {
    pub message_id: Uuid,
    pub message_type: String,
    pub message_reference: String,
    pub action: String,
    pub received_at: DateTime<Utc>,
    /// The acknowledgement as decoded (docs/schema/received-acknowledgement.json).
    pub detail: serde_json::Value,
}

/// What an acknowledgement names of the interchange it answers.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Subject<'a> {
    /// A CONTRL: UCI 0020, and UCI S002/0004 when given.
    Interchange {
        reference: &'a str,
        sender: Option<&'a str>,
    },
    /// An APERAK: the values of its top-level RFF segments.
    References(Vec<&'a str>),
}

/// What `ack` can be matched by; `None` when it names nothing.
pub(crate) fn subject(ack: &ReceivedAcknowledgement) -> Option<Subject<'_>> {
    match ack.message_type.as_str() {
        "CONTRL" => Some(Subject::Interchange {
            reference: ack.interchange_reference.as_deref()?,
            sender: ack
                .interchange_sender
                .as_ref()
                .map(|party| party.id.as_str()),
        }),
        "APERAK" => {
            let values: Vec<&str> = ack
                .references
                .iter()
                .filter_map(|reference| reference.value.as_deref())
                .collect();
            (!values.is_empty()).then_some(Subject::References(values))
        }
        _ => None,
    }
}

/// The newest outbound message from `source`'s hub identity to its partner that
/// `subject` names, locked until the caller's transaction ends.
async fn matching(
    conn: &mut PgConnection,
    source: &AcknowledgementSource<'_>,
    subject: &Subject<'_>,
) -> Result<Option<Uuid>, sqlx::Error> {
    const NEWEST: &str = "ORDER BY created_at DESC, id DESC LIMIT 1 FOR UPDATE";
    let query = match subject {
        Subject::Interchange { reference, sender } => {
            sqlx::query_scalar(sqlx::AssertSqlSafe(format!(
                "SELECT id FROM outbound_message
                 WHERE partner_as2_id = $1 AND hub_as2_id = $2 AND unb_reference = $3
                   AND ($4::text IS NULL OR unb_sender = $4)
                 {NEWEST}"
            )))
            .bind(source.partner)
            .bind(source.hub_as2_id)
            .bind(*reference)
            .bind(*sender)
        }
        Subject::References(values) => sqlx::query_scalar(sqlx::AssertSqlSafe(format!(
            "SELECT id FROM outbound_message
             WHERE partner_as2_id = $1 AND hub_as2_id = $2
               AND (document_numbers && $3::text[] OR unb_reference = ANY($3::text[]))
             {NEWEST}"
        )))
        .bind(source.partner)
        .bind(source.hub_as2_id)
        .bind(values.clone()),
    };
    query.fetch_optional(conn).await
}

/// Matches `ack` to the outbound message it answers and records it there, with its
/// `OutboundAcknowledged` event on `status_topic`, in the caller's transaction. `None`
/// when it answers no message the hub sent (nothing is written). The same
/// acknowledgement recorded twice (the same received message and UNH reference) is
/// recorded once.
pub async fn record_acknowledgement(
    conn: &mut PgConnection,
    status_topic: &str,
    source: &AcknowledgementSource<'_>,
    ack: &ReceivedAcknowledgement,
) -> Result<Option<OutboundMessage>, StoreError> {
    let Some(subject) = subject(ack) else {
        return Ok(None);
    };
    let Some(outbound_id) = matching(conn, source, &subject).await? else {
        return Ok(None);
    };
    let detail = serde_json::to_value(ack).map_err(StoreError::Encoding)?;
    let inserted = sqlx::query(
        "INSERT INTO outbound_acknowledgement
             (id, outbound_id, message_id, message_reference, message_type, action, detail)
         VALUES ($1, $2, $3, $4, $5, $6, $7)
         ON CONFLICT (message_id, message_reference, outbound_id) DO NOTHING",
    )
    .bind(Uuid::now_v7())
    .bind(outbound_id)
    .bind(source.message_id)
    .bind(&ack.message_reference)
    .bind(&ack.message_type)
    .bind(ack.action.as_str())
    .bind(&detail)
    .execute(&mut *conn)
    .await?
    .rows_affected();
    if inserted == 0 {
        // The same acknowledgement again changes nothing, so it writes nothing either.
        let message = sqlx::query_as(sqlx::AssertSqlSafe(format!(
            "SELECT {COLUMNS} FROM outbound_message m WHERE m.id = $1"
        )))
        .bind(outbound_id)
        .fetch_one(&mut *conn)
        .await?;
        return Ok(Some(message));
    }
    let message: OutboundMessage = sqlx::query_as(sqlx::AssertSqlSafe(format!(
        "UPDATE outbound_message m SET acknowledgement = $2, acknowledged_at = now()
         WHERE m.id = $1 RETURNING {COLUMNS}"
    )))
    .bind(outbound_id)
    .bind(ack.action.as_str())
    .fetch_one(&mut *conn)
    .await?;
    let event = acknowledged_event(status_topic, &message, source, ack, detail);
    edihub_outbox::enqueue(conn, &event).await?;
    Ok(Some(message))
}

/// The acknowledgements of outbound message `id`, oldest first.
pub async fn acknowledgements(
    conn: &mut PgConnection,
    id: Uuid,
) -> Result<Vec<Acknowledgement>, sqlx::Error> {
    sqlx::query_as(
        "SELECT message_id, message_type, message_reference, action, received_at, detail
         FROM outbound_acknowledgement WHERE outbound_id = $1
         ORDER BY received_at, id",
    )
    .bind(id)
    .fetch_all(conn)
    .await
}

fn acknowledged_event(
    topic: &str,
    message: &OutboundMessage,
    source: &AcknowledgementSource<'_>,
    ack: &ReceivedAcknowledgement,
    detail: serde_json::Value,
) -> NewEvent {
    let payload = OutboundAcknowledged {
        outbound_id: message.id,
        partner: message.partner_as2_id.clone(),
        hub_as2_id: message.hub_as2_id.clone(),
        as2_message_id: message.as2_message_id.clone(),
        unb_reference: message.unb_reference.clone(),
        state: message.state,
        message_type: ack.message_type.clone(),
        message_reference: ack.message_reference.clone(),
        action: ack.action.as_str().to_owned(),
        message_id: source.message_id,
        acknowledgement: detail,
        acknowledged_at: message.acknowledged_at.unwrap_or_else(Utc::now),
    };
    NewEvent {
        id: Uuid::now_v7(),
        aggregate_type: AGGREGATE_TYPE.into(),
        aggregate_id: message.id.to_string(),
        event_type: event_types::OUTBOUND_ACKNOWLEDGED.into(),
        topic: topic.to_owned(),
        payload: serde_json::to_value(&payload).unwrap_or_default(),
        headers: serde_json::json!({ (headers::CORRELATION_ID): message.as2_message_id }),
    }
}

#[cfg(test)]
mod tests;
