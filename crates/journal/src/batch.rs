//! Group commit: concurrent accepts share one transaction.
//!
//! Under load the gateway's requests each wait for a commit of their own, and on a small
//! machine PostgreSQL's per-transaction work (commit record, WAL flush, NOTIFY, a
//! statement per request) competes with the RSA work for the same cores. An
//! [`AcceptQueue`] hands accepts to a few writer tasks; each writer takes whatever has
//! queued up while the previous commit ran (up to `max_batch`) and writes it with one
//! statement. Every request still gets its answer only after its own rows committed, so
//! the invariant of [`crate::accept`] (no MDN before the commit) holds unchanged.
//!
//! When a batch fails as a whole, its accepts are retried one by one, so one bad row
//! cannot fail the others and each request gets its own error.

use std::sync::Arc;

use edihub_outbox::NewEvent;
use sqlx::PgPool;
use tokio::sync::{Mutex, mpsc, oneshot};
use uuid::Uuid;

use crate::{AcceptedMessage, JournalError, StoredMdn, accept, sha256_hex};

/// What one accepted request writes: the message, its MDN, the `EdiMessageReceived`
/// outbox row and, for an asynchronous MDN, its delivery row.
#[derive(Debug, Clone)]
pub struct Accept {
    pub message: AcceptedMessage,
    pub mdn: StoredMdn,
    pub event: NewEvent,
    pub delivery: Option<NewEvent>,
}

struct Pending {
    accept: Accept,
    reply: oneshot::Sender<Result<(), JournalError>>,
}

/// The gateway's way into the journal under load; see the module documentation.
#[derive(Clone)]
pub struct AcceptQueue {
    sender: mpsc::Sender<Pending>,
}

impl AcceptQueue {
    /// Starts `writers` writer tasks on the current runtime. They stop once every clone
    /// of the queue is dropped and the queued accepts are written.
    pub fn start(pool: PgPool, writers: usize, max_batch: usize) -> Self {
        let max_batch = max_batch.max(1);
        // Room for a few batches per writer; beyond that, senders wait (backpressure
        // on the requests rather than unbounded memory).
        let (sender, receiver) = mpsc::channel(writers.max(1) * max_batch * 4);
        let receiver = Arc::new(Mutex::new(receiver));
        for _ in 0..writers.max(1) {
            tokio::spawn(write_batches(pool.clone(), receiver.clone(), max_batch));
        }
        Self { sender }
    }

    /// Writes `accept` (in a batch with whatever else is queued) and returns once it
    /// committed: `Ok`, [`JournalError::Duplicate`] as [`crate::accept`] would, or the
    /// database error.
    pub async fn accept(&self, accept: Accept) -> Result<(), JournalError> {
        let (reply, answer) = oneshot::channel();
        self.sender
            .send(Pending { accept, reply })
            .await
            .map_err(|_| JournalError::Stopped)?;
        answer.await.map_err(|_| JournalError::Stopped)?
    }
}

async fn write_batches(
    pool: PgPool,
    receiver: Arc<Mutex<mpsc::Receiver<Pending>>>,
    max_batch: usize,
) {
    loop {
        let mut batch = Vec::with_capacity(max_batch);
        // One writer collects at a time; the others are writing meanwhile.
        let received = receiver.lock().await.recv_many(&mut batch, max_batch).await;
        if received == 0 {
            return;
        }
        let results = write(&pool, &batch).await;
        for (pending, result) in batch.into_iter().zip(results) {
            // The request may have gone (client disconnected); its rows stay committed
            // and a resend finds them.
            let _ = pending.reply.send(result);
        }
    }
}

/// Writes a batch: one statement for several accepts, falling back to one by one.
async fn write(pool: &PgPool, batch: &[Pending]) -> Vec<Result<(), JournalError>> {
    if batch.len() > 1 {
        match insert_many(pool, batch).await {
            Ok(inserted) => {
                return batch
                    .iter()
                    .map(|p| {
                        if inserted.contains(&p.accept.message.id) {
                            Ok(())
                        } else {
                            Err(JournalError::Duplicate)
                        }
                    })
                    .collect();
            }
            Err(error) => {
                tracing::warn!(%error, size = batch.len(), "batched accept failed; writing one by one");
            }
        }
    }
    let mut results = Vec::with_capacity(batch.len());
    for p in batch {
        let a = &p.accept;
        results.push(accept(pool, &a.message, &a.mdn, &a.event, a.delivery.as_ref()).await);
    }
    results
}

/// The multi-row form of [`crate::accept`]'s statement: columns bound as arrays and
/// unnested. A message whose AS2 identity exists already (or repeats one earlier in
/// the batch) inserts nothing, exactly as in the single form. Returns the ids of the
/// messages inserted.
async fn insert_many(pool: &PgPool, batch: &[Pending]) -> Result<Vec<Uuid>, sqlx::Error> {
    let accepts: Vec<&Accept> = batch.iter().map(|p| &p.accept).collect();
    let ids: Vec<Uuid> = accepts.iter().map(|a| a.message.id).collect();
    let deliveries: Vec<Option<&NewEvent>> = accepts.iter().map(|a| a.delivery.as_ref()).collect();
    let mdn_headers: Vec<serde_json::Value> = accepts
        .iter()
        .map(|a| serde_json::to_value(&a.mdn.headers).unwrap_or(serde_json::Value::Null))
        .collect();
    sqlx::query_scalar(
        "WITH message AS (
             INSERT INTO edi_message (id, as2_from, as2_to, as2_message_id, content_type,
                                      as2_headers, raw_body, payload, payload_sha256,
                                      payload_size, unb_sender, unb_recipient, unb_reference,
                                      received_at)
             SELECT * FROM unnest($1::uuid[], $2::text[], $3::text[], $4::text[], $5::text[],
                                  $6::jsonb[], $7::bytea[], $8::bytea[], $9::text[],
                                  $10::int8[], $11::text[], $12::text[], $13::text[],
                                  $14::timestamptz[])
             ON CONFLICT ON CONSTRAINT edi_message_as2_identity DO NOTHING
             RETURNING id),
         receipt AS (
             INSERT INTO mdn (message_id, mdn_message_id, disposition, content_type, headers,
                              body, created_at)
             SELECT r.* FROM unnest($1::uuid[], $15::text[], $16::text[], $17::text[],
                                    $18::jsonb[], $19::bytea[], $14::timestamptz[])
                 AS r(message_id, mdn_message_id, disposition, content_type, headers, body,
                      created_at)
             WHERE r.message_id IN (SELECT id FROM message)),
         event AS (
             INSERT INTO outbox (id, aggregate_type, aggregate_id, event_type, topic, payload,
                                 headers, channel)
             SELECT e.id, e.aggregate_type, e.aggregate_id, e.event_type, e.topic, e.payload,
                    e.headers, $27
             FROM unnest($1::uuid[], $20::uuid[], $21::text[], $22::text[], $23::text[],
                         $24::text[], $25::jsonb[], $26::jsonb[]) WITH ORDINALITY
                 AS e(message_id, id, aggregate_type, aggregate_id, event_type, topic,
                      payload, headers, n)
             WHERE e.message_id IN (SELECT id FROM message)
             ORDER BY e.n),
         delivery AS (
             INSERT INTO outbox (id, aggregate_type, aggregate_id, event_type, topic, payload,
                                 headers, channel)
             SELECT d.id, d.aggregate_type, d.aggregate_id, d.event_type, d.topic, d.payload,
                    d.headers, $35
             FROM unnest($1::uuid[], $28::uuid[], $29::text[], $30::text[], $31::text[],
                         $32::text[], $33::jsonb[], $34::jsonb[]) WITH ORDINALITY
                 AS d(message_id, id, aggregate_type, aggregate_id, event_type, topic,
                      payload, headers, n)
             WHERE d.id IS NOT NULL AND d.message_id IN (SELECT id FROM message)
             ORDER BY d.n)
         SELECT id FROM message",
    )
    .bind(&ids)
    .bind(texts(&accepts, |a| &a.message.as2_from))
    .bind(texts(&accepts, |a| &a.message.as2_to))
    .bind(texts(&accepts, |a| &a.message.as2_message_id))
    .bind(texts(&accepts, |a| &a.message.content_type))
    .bind(column(&accepts, |a| &a.message.as2_headers))
    .bind(column(&accepts, |a| a.message.raw_body.as_slice()))
    .bind(column(&accepts, |a| a.message.payload.as_slice()))
    .bind(column(&accepts, |a| sha256_hex(&a.message.payload)))
    .bind(column(&accepts, |a| a.message.payload.len() as i64))
    .bind(column(&accepts, |a| a.message.unb_sender.as_deref()))
    .bind(column(&accepts, |a| a.message.unb_recipient.as_deref()))
    .bind(column(&accepts, |a| a.message.unb_reference.as_deref()))
    .bind(column(&accepts, |a| a.message.received_at))
    .bind(texts(&accepts, |a| &a.mdn.mdn_message_id))
    .bind(texts(&accepts, |a| &a.mdn.disposition))
    .bind(texts(&accepts, |a| &a.mdn.content_type))
    .bind(&mdn_headers)
    .bind(column(&accepts, |a| a.mdn.body.as_slice()))
    .bind(column(&accepts, |a| a.event.id))
    .bind(texts(&accepts, |a| &a.event.aggregate_type))
    .bind(texts(&accepts, |a| &a.event.aggregate_id))
    .bind(texts(&accepts, |a| &a.event.event_type))
    .bind(texts(&accepts, |a| &a.event.topic))
    .bind(column(&accepts, |a| &a.event.payload))
    .bind(column(&accepts, |a| &a.event.headers))
    .bind(edihub_outbox::channels::KAFKA)
    .bind(column(&deliveries, |d| d.map(|d| d.id)))
    .bind(column(&deliveries, |d| {
        d.map(|d| d.aggregate_type.as_str())
    }))
    .bind(column(&deliveries, |d| d.map(|d| d.aggregate_id.as_str())))
    .bind(column(&deliveries, |d| d.map(|d| d.event_type.as_str())))
    .bind(column(&deliveries, |d| d.map(|d| d.topic.as_str())))
    .bind(column(&deliveries, |d| d.map(|d| &d.payload)))
    .bind(column(&deliveries, |d| d.map(|d| &d.headers)))
    .bind(edihub_outbox::channels::AS2_MDN)
    .fetch_all(pool)
    .await
}

/// One text column of the batch.
fn texts<'a>(accepts: &[&'a Accept], field: impl Fn(&'a Accept) -> &'a String) -> Vec<&'a str> {
    column(accepts, |a| field(a).as_str())
}

/// One column of the batch, as the array bound to its `unnest` parameter.
fn column<T: Copy, U>(rows: &[T], field: impl Fn(T) -> U) -> Vec<U> {
    rows.iter().map(|&row| field(row)).collect()
}
