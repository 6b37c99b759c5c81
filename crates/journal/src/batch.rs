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

use std::sync::{Arc, LazyLock};

use edihub_outbox::{NewEvent, channels, insert};
use sqlx::error::BoxDynError;
use sqlx::postgres::PgArguments;
use sqlx::{Arguments as _, PgPool};
use tokio::sync::{Mutex, mpsc, oneshot};
use uuid::Uuid;

use crate::accept::{INSERT_MDN, INSERT_MESSAGE, security_json};
use crate::mdn::headers_json;
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
/// unnested. A message whose AS2 identity or signed content exists already (or repeats
/// one earlier in the batch) inserts nothing, exactly as in the single form. The outbox parts are
/// `edihub_outbox::insert`'s, keyed by the message id.
static INSERT_MANY: LazyLock<String> = LazyLock::new(|| {
    format!(
        "WITH message AS (
             {message}
             SELECT * FROM unnest($1::uuid[], $2::text[], $3::text[], $4::text[], $5::text[],
                                  $6::jsonb[], $7::bytea[], $8::bytea[], $9::text[],
                                  $10::int8[], $11::text[], $12::text[], $13::text[],
                                  $14::timestamptz[], $20::bytea[], $21::timestamptz[],
                                  $22::bytea[], $23::jsonb[])
             ON CONFLICT DO NOTHING
             RETURNING id),
         receipt AS (
             {receipt}
             SELECT r.* FROM unnest($1::uuid[], $15::text[], $16::text[], $17::text[],
                                    $18::jsonb[], $19::bytea[], $14::timestamptz[])
                 AS r(message_id, mdn_message_id, disposition, content_type, headers, body,
                      created_at)
             WHERE r.message_id IN (SELECT id FROM message)),
         event AS ({event}),
         delivery AS ({delivery})
         SELECT id FROM message",
        message = INSERT_MESSAGE,
        receipt = INSERT_MDN,
        event = insert::unnest(EVENT, "$1::uuid[]", "e.key IN (SELECT id FROM message)"),
        delivery = insert::unnest(
            DELIVERY,
            "$1::uuid[]",
            "e.id IS NOT NULL AND e.key IN (SELECT id FROM message)"
        ),
    )
});

/// The first parameter of the events' outbox part, after the messages' and the MDNs'.
const EVENT: usize = 24;
/// The first parameter of the deliveries' outbox part.
const DELIVERY: usize = EVENT + insert::PARAMETERS;

/// Writes a batch with [`INSERT_MANY`]. Returns the ids of the messages inserted.
async fn insert_many(pool: &PgPool, batch: &[Pending]) -> Result<Vec<Uuid>, sqlx::Error> {
    let accepts: Vec<&Accept> = batch.iter().map(|p| &p.accept).collect();
    let args = arguments(&accepts).map_err(sqlx::Error::Encode)?;
    sqlx::query_scalar_with(INSERT_MANY.as_str(), args)
        .fetch_all(pool)
        .await
}

fn arguments(accepts: &[&Accept]) -> Result<PgArguments, BoxDynError> {
    let mut args = PgArguments::default();
    args.add(column(accepts, |a| a.message.id))?;
    args.add(texts(accepts, |a| &a.message.as2_from))?;
    args.add(texts(accepts, |a| &a.message.as2_to))?;
    args.add(texts(accepts, |a| &a.message.as2_message_id))?;
    args.add(texts(accepts, |a| &a.message.content_type))?;
    args.add(column(accepts, |a| &a.message.as2_headers))?;
    args.add(column(accepts, |a| a.message.raw_body.as_slice()))?;
    args.add(column(accepts, |a| a.message.payload.as_slice()))?;
    args.add(column(accepts, |a| sha256_hex(&a.message.payload)))?;
    args.add(column(accepts, |a| a.message.payload.len() as i64))?;
    args.add(column(accepts, |a| a.message.unb_sender.as_deref()))?;
    args.add(column(accepts, |a| a.message.unb_recipient.as_deref()))?;
    args.add(column(accepts, |a| a.message.unb_reference.as_deref()))?;
    args.add(column(accepts, |a| a.message.received_at))?;
    args.add(texts(accepts, |a| &a.mdn.mdn_message_id))?;
    args.add(texts(accepts, |a| &a.mdn.disposition))?;
    args.add(texts(accepts, |a| &a.mdn.content_type))?;
    args.add(column(accepts, |a| headers_json(&a.mdn.headers)))?;
    args.add(column(accepts, |a| a.mdn.body.as_slice()))?;
    args.add(column(accepts, |a| {
        a.message.signed_sha256.as_ref().map(|d| d.as_slice())
    }))?;
    args.add(column(accepts, |a| a.message.replay_until))?;
    args.add(column(accepts, |a| a.message.signed_entity.as_deref()))?;
    let security: Result<Vec<_>, _> = accepts
        .iter()
        .map(|a| security_json(a.message.security.as_ref()))
        .collect();
    args.add(security?)?;
    debug_assert_eq!(args.len() + 1, EVENT);
    let events = column(accepts, |a| Some(&a.event));
    insert::bind_arrays(&mut args, &events, channels::KAFKA)?;
    let deliveries = column(accepts, |a| a.delivery.as_ref());
    insert::bind_arrays(&mut args, &deliveries, channels::AS2_MDN)?;
    Ok(args)
}

/// One text column of the batch.
fn texts<'a>(accepts: &[&'a Accept], field: impl Fn(&'a Accept) -> &'a String) -> Vec<&'a str> {
    column(accepts, |a| field(a).as_str())
}

/// One column of the batch, as the array bound to its `unnest` parameter.
fn column<T: Copy, U>(rows: &[T], field: impl Fn(T) -> U) -> Vec<U> {
    rows.iter().map(|&row| field(row)).collect()
}

#[cfg(test)]
mod tests;
