//! The `outbound_message` table: queue, list, show, cancel, resend, and the sender's
//! outcomes. Every change of state writes its `OutboundStatusChanged` event in the
//! transaction of the change.

use crate::{AGGREGATE_TYPE, CHANNEL, delivery_event};
use chrono::{DateTime, Utc};
use edihub_events::{OutboundState, OutboundStatusChanged, event_types, headers};
use edihub_outbox::NewEvent;
use serde::Serialize;
use sha2::{Digest as _, Sha256};
use sqlx::{PgConnection, PgPool};
use uuid::Uuid;

mod change;

pub(crate) use change::{Attempt, Change, SentColumns, SentRecord};

#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    #[error("no outbound message {0}")]
    NotFound(Uuid),
    #[error("outbound message {id} is {state}: only a {allowed} message can be {action}")]
    WrongState {
        id: Uuid,
        state: OutboundState,
        allowed: &'static str,
        action: &'static str,
    },
    #[error(transparent)]
    Database(#[from] sqlx::Error),
    #[error("encoding an acknowledgement as JSON: {0}")]
    Encoding(#[source] serde_json::Error),
}

/// A message to queue.
#[derive(Debug, Clone)]
pub struct NewOutbound<'a> {
    /// AS2-To.
    pub partner: &'a str,
    /// AS2-From: the hub identity that sends.
    pub hub_as2_id: &'a str,
    pub content_type: &'a str,
    pub payload: &'a [u8],
    pub filename: Option<&'a str>,
    /// Who asked for it: `cli`, `contrl` (the transform consumer, acknowledging an
    /// interchange) or `kafka` (an `OutboundRequested` event).
    pub source: &'a str,
    /// `ce_id` of the `OutboundRequested` event that asked for it.
    pub request_id: Option<Uuid>,
}

/// One outbound message, without its payload.
#[derive(Debug, Clone, Serialize, sqlx::FromRow)]
pub struct OutboundMessage {
    pub id: Uuid,
    pub partner_as2_id: String,
    pub hub_as2_id: String,
    pub as2_message_id: String,
    pub content_type: String,
    pub size: i64,
    pub sha256: String,
    pub filename: Option<String>,
    #[sqlx(try_from = "String")]
    pub state: OutboundState,
    pub attempts: i32,
    pub last_error: Option<String>,
    pub mic_expected: Option<String>,
    pub mic_reported: Option<String>,
    pub mdn_content_type: Option<String>,
    /// The MDN as received (not in `list`'s rows).
    #[serde(serialize_with = "lossy_text")]
    pub mdn: Option<Vec<u8>>,
    pub source: String,
    /// UNB 0020 of an EDIFACT payload: what a partner's CONTRL names.
    pub unb_reference: Option<String>,
    /// BGM 1004 of its messages: what a partner's APERAK names.
    pub document_numbers: Vec<String>,
    /// The verdict of the latest CONTRL or APERAK matched to it (`accepted`,
    /// `rejected`, `received`, `partially-accepted`), and when it came.
    pub acknowledgement: Option<String>,
    pub acknowledged_at: Option<DateTime<Utc>>,
    /// `ce_id` of the `OutboundRequested` event that asked for it.
    pub request_id: Option<Uuid>,
    pub created_at: DateTime<Utc>,
    pub updated_at: DateTime<Utc>,
}

fn lossy_text<S: serde::Serializer>(bytes: &Option<Vec<u8>>, s: S) -> Result<S::Ok, S::Error> {
    match bytes {
        Some(bytes) => s.serialize_some(&String::from_utf8_lossy(bytes)),
        None => s.serialize_none(),
    }
}

/// Which messages `list` returns, newest first.
#[derive(Debug, Clone, Default)]
pub struct Filter {
    pub partner: Option<String>,
    pub state: Option<OutboundState>,
    /// Created at or after.
    pub since: Option<DateTime<Utc>>,
    pub limit: i64,
}

/// The columns of [`OutboundMessage`], of the table as `m` (every statement names it so).
pub(crate) const COLUMNS: &str =
    "m.id, m.partner_as2_id, m.hub_as2_id, m.as2_message_id, m.content_type,
    octet_length(m.payload)::bigint AS size, m.sha256, m.filename, m.state, m.attempts,
    m.last_error, m.mic_expected, m.mic_reported, m.mdn_content_type, m.mdn, m.source,
    m.unb_reference, m.document_numbers, m.acknowledgement, m.acknowledged_at, m.request_id,
    m.created_at, m.updated_at";

/// The store, and the topic its status events go to.
#[derive(Debug, Clone)]
pub struct OutboundStore {
    pool: PgPool,
    status_topic: String,
}

impl OutboundStore {
    /// `status_topic`: `TopicSettings.outbound_status`.
    pub fn new(pool: PgPool, status_topic: impl Into<String>) -> Self {
        Self {
            pool,
            status_topic: status_topic.into(),
        }
    }

    pub fn pool(&self) -> &PgPool {
        &self.pool
    }

    /// Writes the message (state `queued`, a fresh Message-ID), its delivery row and its
    /// `queued` event, in one transaction.
    pub async fn queue(&self, new: &NewOutbound<'_>) -> Result<OutboundMessage, StoreError> {
        let mut tx = self.pool.begin().await?;
        let message = queue_in(&mut tx, &self.status_topic, new).await?;
        tx.commit().await?;
        Ok(message)
    }

    /// Newest first, at most `filter.limit`; `mdn` is left out.
    pub async fn list(&self, filter: &Filter) -> Result<Vec<OutboundMessage>, StoreError> {
        let columns = COLUMNS.replace("m.mdn,", "NULL::bytea AS mdn,");
        let rows = sqlx::query_as(sqlx::AssertSqlSafe(format!(
            "SELECT {columns} FROM outbound_message m
             WHERE ($1::text IS NULL OR partner_as2_id = $1)
               AND ($2::text IS NULL OR state = $2)
               AND ($3::timestamptz IS NULL OR created_at >= $3)
             ORDER BY created_at DESC, id DESC
             LIMIT $4"
        )))
        .bind(filter.partner.as_deref())
        .bind(filter.state.map(OutboundState::as_str))
        .bind(filter.since)
        .bind(filter.limit)
        .fetch_all(&self.pool)
        .await?;
        Ok(rows)
    }

    pub async fn show(&self, id: Uuid) -> Result<Option<OutboundMessage>, StoreError> {
        let row = sqlx::query_as(sqlx::AssertSqlSafe(format!(
            "SELECT {COLUMNS} FROM outbound_message m WHERE m.id = $1"
        )))
        .bind(id)
        .fetch_optional(&self.pool)
        .await?;
        Ok(row)
    }

    /// The payload the sender POSTs.
    pub(crate) async fn payload(&self, id: Uuid) -> Result<Option<Vec<u8>>, sqlx::Error> {
        sqlx::query_scalar("SELECT payload FROM outbound_message WHERE id = $1")
            .bind(id)
            .fetch_optional(&self.pool)
            .await
    }

    /// Withdraws a `queued` or `sent` message: the sender skips it from now on.
    pub async fn cancel(&self, id: Uuid) -> Result<OutboundMessage, StoreError> {
        let change = Change::cancel();
        self.apply_or_refuse(id, &change, "cancelled", false).await
    }

    /// Queues a `failed` or `delivered` message again, with the same Message-ID and a
    /// new delivery row; its attempts, error and MDN are cleared.
    pub async fn resend(&self, id: Uuid) -> Result<OutboundMessage, StoreError> {
        let change = Change::resend();
        self.apply_or_refuse(id, &change, "resent", true).await
    }

    async fn apply_or_refuse(
        &self,
        id: Uuid,
        change: &Change,
        action: &'static str,
        deliver: bool,
    ) -> Result<OutboundMessage, StoreError> {
        match self.apply_delivering(id, change, deliver).await? {
            Some(message) => Ok(message),
            None => {
                let current = self.show(id).await?.ok_or(StoreError::NotFound(id))?;
                Err(StoreError::WrongState {
                    id,
                    state: current.state,
                    allowed: change.allowed_names(),
                    action,
                })
            }
        }
    }

    /// [`Self::apply`], and when `deliver`, a new delivery row (the message is sent
    /// again), in the same transaction.
    pub(crate) async fn apply_delivering(
        &self,
        id: Uuid,
        change: &Change,
        deliver: bool,
    ) -> Result<Option<OutboundMessage>, sqlx::Error> {
        let mut tx = self.pool.begin().await?;
        let Some(message) = self.apply_in(&mut tx, id, change).await? else {
            return Ok(None);
        };
        if deliver {
            let event = delivery_event(id, &message.partner_as2_id);
            edihub_outbox::enqueue_on(&mut tx, CHANNEL, &event).await?;
        }
        tx.commit().await?;
        change.count_failure();
        Ok(Some(message))
    }

    /// Counts the POST about to be made and records what its asynchronous MDN will be
    /// judged against (and the MIC it should report), before it is made, so an MDN the
    /// partner sends before the sender's outcome commits is judged rather than ignored,
    /// and finds the POST counted. An earlier POST's record is kept: its MDN is still
    /// welcome, and judged as that POST was sent.
    pub(crate) async fn await_receipt(
        &self,
        id: Uuid,
        record: &SentRecord,
    ) -> Result<(), sqlx::Error> {
        sqlx::query(
            "UPDATE outbound_message SET attempts = attempts + 1,
                 sent_receipt = COALESCE(sent_receipt, $2),
                 sent_mic_content = CASE WHEN sent_receipt IS NULL THEN $3
                                         ELSE sent_mic_content END,
                 mic_expected = CASE WHEN sent_receipt IS NULL THEN $4
                                     ELSE mic_expected END
             WHERE id = $1 AND state = 'queued'",
        )
        .bind(id)
        .bind(&record.receipt)
        .bind(&record.mic_content)
        .bind(&record.mic_expected)
        .execute(&self.pool)
        .await?;
        Ok(())
    }

    /// Applies `change` to `id` when it is in one of the change's `from` states, with
    /// its event when the state changes; `None`: not in such a state (or no such row).
    pub(crate) async fn apply(
        &self,
        id: Uuid,
        change: &Change,
    ) -> Result<Option<OutboundMessage>, sqlx::Error> {
        let mut tx = self.pool.begin().await?;
        let changed = self.apply_in(&mut tx, id, change).await?;
        tx.commit().await?;
        if changed.is_some() {
            change.count_failure();
        }
        Ok(changed)
    }

    /// [`Self::apply`] on `conn`, inside the caller's transaction.
    pub(crate) async fn apply_in(
        &self,
        conn: &mut PgConnection,
        id: Uuid,
        change: &Change,
    ) -> Result<Option<OutboundMessage>, sqlx::Error> {
        let Some((previous, message)) = change.run(conn, id, COLUMNS).await? else {
            return Ok(None);
        };
        if previous != message.state {
            let event = status_event(
                &self.status_topic,
                &message,
                Some(previous),
                change.reason(),
            );
            edihub_outbox::enqueue(conn, &event).await?;
        }
        Ok(Some(message))
    }
}

/// [`OutboundStore::queue`] inside the caller's transaction, with its own effects (the
/// transform consumer queues the CONTRL it builds with its inbox row); `status_topic`:
/// `TopicSettings.outbound_status`.
pub async fn queue_in(
    conn: &mut PgConnection,
    status_topic: &str,
    new: &NewOutbound<'_>,
) -> Result<OutboundMessage, StoreError> {
    let id = Uuid::now_v7();
    let sha256 = hex::encode(Sha256::digest(new.payload));
    let references = edihub_edifact::references::read(new.payload);
    let message: OutboundMessage = sqlx::query_as(sqlx::AssertSqlSafe(format!(
        "INSERT INTO outbound_message AS m (id, partner_as2_id, hub_as2_id, as2_message_id,
             content_type, payload, sha256, filename, source, unb_reference, unb_sender,
             document_numbers, request_id)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, COALESCE($12, '{{}}'), $13)
         RETURNING {COLUMNS}"
    )))
    .bind(id)
    .bind(new.partner)
    .bind(new.hub_as2_id)
    .bind(crate::message_id(id, new.hub_as2_id))
    .bind(new.content_type)
    .bind(new.payload)
    .bind(&sha256)
    .bind(new.filename)
    .bind(new.source)
    .bind(references.as_ref().map(|r| &r.control_reference))
    .bind(references.as_ref().map(|r| &r.sender_id))
    .bind(references.as_ref().map(|r| &r.document_numbers))
    .bind(new.request_id)
    .fetch_one(&mut *conn)
    .await?;
    edihub_outbox::enqueue_on(conn, CHANNEL, &delivery_event(id, new.partner)).await?;
    let event = status_event(status_topic, &message, None, None);
    edihub_outbox::enqueue(conn, &event).await?;
    Ok(message)
}

/// The `OutboundStatusChanged` event of `message` as it is now.
pub fn status_event(
    topic: &str,
    message: &OutboundMessage,
    previous_state: Option<OutboundState>,
    reason: Option<&str>,
) -> NewEvent {
    let payload = OutboundStatusChanged {
        outbound_id: message.id,
        partner: message.partner_as2_id.clone(),
        hub_as2_id: message.hub_as2_id.clone(),
        as2_message_id: message.as2_message_id.clone(),
        state: message.state,
        previous_state,
        attempts: u32::try_from(message.attempts).unwrap_or(0),
        reason: reason.map(str::to_owned),
        mic: message.mic_reported.clone(),
        changed_at: message.updated_at,
        request_id: message.request_id,
    };
    NewEvent {
        id: Uuid::now_v7(),
        aggregate_type: AGGREGATE_TYPE.into(),
        aggregate_id: message.id.to_string(),
        event_type: event_types::OUTBOUND_STATUS_CHANGED.into(),
        topic: topic.to_owned(),
        payload: serde_json::to_value(&payload).unwrap_or_default(),
        headers: serde_json::json!({ (headers::CORRELATION_ID): message.as2_message_id }),
    }
}
