//! The consumer loop shared by the transform and archive consumers.
//!
//! Offset rule: an offset is stored only after the handler's effect committed; librdkafka
//! then commits stored offsets in the background (and once more on shutdown). A crash
//! between the effect and the offset commit only causes a redelivery, which the
//! handler's inbox absorbs.
//!
//! Batches: the records already fetched when one arrives (up to `batch_max`) go to the
//! handler together, and their offsets are stored once the batch's effect committed. A
//! batch that fails is handled again record by record, so a poison event costs its
//! batch one failed attempt and then goes its own way.
//!
//! Holes: a record past the offset expected in its partition is not handled; the
//! partition is read again from before the hole (`continuity.rs`: tansu answers a fetch
//! inside a record batch from the next batch on).
//!
//! Poison events: after `max_attempts` failures an event is copied to the dead-letter
//! topic with the error in its headers, and only once the broker acknowledged that copy
//! is its offset stored. The consumer then moves on; nothing is dropped.

use crate::KafkaError;
use crate::continuity::{self, AssignmentStarts, Continuity};
use crate::dead_letters::DeadLetters;
use edihub_config::{ConsumerSettings, KafkaSettings};
use edihub_events::trace::TraceParent;
use edihub_events::{Envelope, EventHandler, Handled, headers};
use futures::FutureExt;
use rdkafka::Message;
use rdkafka::consumer::{CommitMode, Consumer, StreamConsumer};
use rdkafka::message::{BorrowedMessage, Headers};
use std::sync::Arc;
use std::time::Duration;
use tokio_util::sync::CancellationToken;
use tracing::Instrument;
use uuid::Uuid;

/// Consumes `topic` as `settings.group_id` until `shutdown`, handing each event to
/// `handler`. A failing event is retried with backoff (blocking its partition
/// meanwhile) up to `settings.max_attempts`, then dead-lettered. The shutdown signal
/// interrupts the retries without storing the offset, so the event is delivered again
/// after a restart.
pub async fn run_consumer<H: EventHandler>(
    kafka: &KafkaSettings,
    settings: &ConsumerSettings,
    topic: &str,
    handler: H,
    shutdown: CancellationToken,
) -> Result<(), KafkaError> {
    let group_id = settings.group_id.as_str();
    let dead_letters = DeadLetters::new(&kafka.brokers, &kafka.topics.dead_letter);
    let consumer = Arc::new(subscribe(&kafka.brokers, settings, topic)?);
    tracing::info!(topic, group_id, "consumer started");
    // Beside the loop, so the gauge moves even while a handler holds the loop up.
    let lag_stop = CancellationToken::new();
    let _stop_lag_on_error = lag_stop.clone().drop_guard();
    let lag_task = (settings.lag_interval_ms > 0).then(|| {
        tokio::spawn(crate::lag::report(
            consumer.clone(),
            group_id.to_owned(),
            Duration::from_millis(settings.lag_interval_ms),
            lag_stop.clone(),
        ))
    });
    let records = Records {
        handler: &handler,
        settings,
        dead_letters: &dead_letters,
        shutdown: &shutdown,
    };
    let batch_max = settings.batch_max.max(1);
    let mut continuity = Continuity::default();
    loop {
        let received = tokio::select! {
            _ = shutdown.cancelled() => break,
            received = consumer.recv() => received,
        };
        let first = match received {
            Ok(message) => message,
            Err(error) => {
                tracing::warn!(%error, "kafka receive error");
                continue;
            }
        };
        let batch = with_fetched(&consumer, first, batch_max);
        // After the receives: the rebalances they served are known now.
        for change in consumer.context().take() {
            continuity.apply(change);
        }
        let (batch, held) = continuity::admitted(&mut continuity, batch);
        let done = records.process_all(&batch).await;
        for message in &batch[..done] {
            consumer.store_offset_from_message(message)?;
        }
        if done < batch.len() {
            break; // leave the rest's offsets for the next run
        }
        if !continuity::read_again(&consumer, topic, &held, &shutdown).await {
            break;
        }
    }
    // Commit what was stored; on an empty assignment there is nothing to commit.
    if let Err(error) = consumer.commit_consumer_state(CommitMode::Sync) {
        tracing::debug!(%error, "final offset commit");
    }
    lag_stop.cancel();
    if let Some(task) = lag_task {
        // It only removes its gauge series now; a panic there is not the loop's error.
        let _ = task.await;
    }
    tracing::info!(topic, group_id, "consumer stopped");
    Ok(())
}

/// `first` and the records already fetched after it, up to `max` in all: never waits.
fn with_fetched<'a>(
    consumer: &'a GroupConsumer,
    first: BorrowedMessage<'a>,
    max: usize,
) -> Vec<BorrowedMessage<'a>> {
    let mut batch = vec![first];
    while batch.len() < max {
        match consumer.recv().now_or_never() {
            Some(Ok(message)) => batch.push(message),
            Some(Err(error)) => {
                tracing::warn!(%error, "kafka receive error");
                break;
            }
            None => break,
        }
    }
    batch
}

/// The loop's consumer: its context records where each new assignment starts.
type GroupConsumer = StreamConsumer<AssignmentStarts>;

/// A consumer of `topic` in `settings.group_id` that stores offsets only when told.
fn subscribe(
    brokers: &str,
    settings: &ConsumerSettings,
    topic: &str,
) -> Result<GroupConsumer, KafkaError> {
    let mut config = crate::client_config(brokers);
    config
        .set("group.id", &settings.group_id)
        .set("enable.auto.commit", "true")
        .set("auto.commit.interval.ms", "1000")
        .set("enable.auto.offset.store", "false")
        .set("auto.offset.reset", "earliest")
        .set("session.timeout.ms", "10000");
    if !settings.instance_id.is_empty() {
        config.set("group.instance.id", &settings.instance_id);
    }
    let consumer: GroupConsumer = config.create_with_context(AssignmentStarts::default())?;
    consumer.subscribe(&[topic])?;
    Ok(consumer)
}

/// What the loop does after a record.
enum Next {
    /// Its effect committed (or its dead-letter copy was acknowledged).
    StoreOffset,
    /// Shutdown came first: the record is delivered again after a restart.
    Stop,
}

/// How each record is handled: decoded, given to the handler with retries, or
/// dead-lettered.
struct Records<'a, H> {
    handler: &'a H,
    settings: &'a ConsumerSettings,
    dead_letters: &'a DeadLetters<'a>,
    shutdown: &'a CancellationToken,
}

impl<H: EventHandler> Records<'_, H> {
    /// Handles `batch` and returns how many of its records, from the first, may have
    /// their offsets stored: all of them, unless shutdown came first. The batch is tried
    /// as a whole once; when that fails, each record is handled alone, with its retries
    /// and dead letter, as if it had come on its own.
    async fn process_all(&self, batch: &[BorrowedMessage<'_>]) -> usize {
        if batch.len() > 1 && self.process_together(batch).await {
            return batch.len();
        }
        for (done, message) in batch.iter().enumerate() {
            if let Next::Stop = self.process(message).await {
                return done;
            }
        }
        batch.len()
    }

    /// One attempt at `batch` as a whole; `false` when a record is not a hub event or
    /// the handler failed.
    async fn process_together(&self, batch: &[BorrowedMessage<'_>]) -> bool {
        let Ok(envelopes) = batch
            .iter()
            .map(|message| decode(message).map(continue_trace))
            .collect::<Result<Vec<_>, _>>()
        else {
            return false;
        };
        let span = tracing::info_span!("batch", events = envelopes.len());
        match self.handler.handle_batch(&envelopes).instrument(span).await {
            Ok(handled) => {
                for handled in handled {
                    edihub_metrics::CONSUMER_EVENTS
                        .with_label_values(&[&self.settings.group_id, handled.as_str()])
                        .inc();
                }
                true
            }
            Err(error) => {
                let message_ids: Vec<&str> = envelopes
                    .iter()
                    .map(|e| e.key.as_deref().unwrap_or(""))
                    .collect();
                tracing::warn!(%error, ?message_ids, "batch failed: handling its events one by one");
                false
            }
        }
    }

    async fn process(&self, message: &BorrowedMessage<'_>) -> Next {
        let envelope = match decode(message) {
            Ok(envelope) => envelope,
            Err(reason) => {
                // Not a hub event: retrying cannot help.
                tracing::error!(
                    topic = message.topic(), partition = message.partition(),
                    offset = message.offset(), %reason, "undecodable record: dead-lettered"
                );
                return self.dead_letter(message, &reason, 0).await;
            }
        };
        let envelope = continue_trace(envelope);
        let span = edihub_events::event_span(&envelope);
        let outcome = handle_with_retry(self.handler, &envelope, self.settings, self.shutdown)
            .instrument(span.clone())
            .await;
        match outcome {
            Handling::Done(handled) => {
                edihub_metrics::CONSUMER_EVENTS
                    .with_label_values(&[&self.settings.group_id, handled.as_str()])
                    .inc();
                Next::StoreOffset
            }
            Handling::Interrupted => Next::Stop,
            Handling::GaveUp { error, attempts } => {
                span.in_scope(|| {
                    tracing::error!(%error, attempts, "giving up: event dead-lettered");
                });
                self.dead_letter(message, &error, attempts).await
            }
        }
    }

    /// Dead-letters `message`; its offset may be stored once the copy is acknowledged.
    async fn dead_letter(&self, message: &BorrowedMessage<'_>, error: &str, attempts: u32) -> Next {
        let group_id = self.settings.group_id.as_str();
        let sent = (self.dead_letters)
            .send(message, group_id, error, attempts, self.shutdown)
            .await;
        if !sent {
            return Next::Stop;
        }
        edihub_metrics::CONSUMER_EVENTS
            .with_label_values(&[group_id, "dead_lettered"])
            .inc();
        Next::StoreOffset
    }
}

enum Handling {
    Done(Handled),
    Interrupted,
    GaveUp { error: String, attempts: u32 },
}

async fn handle_with_retry<H: EventHandler>(
    handler: &H,
    envelope: &Envelope,
    settings: &ConsumerSettings,
    shutdown: &CancellationToken,
) -> Handling {
    let mut delay = Duration::from_millis(settings.retry_base_ms);
    let mut attempts = 0;
    loop {
        attempts += 1;
        let error = match handler.handle(envelope).await {
            Ok(handled) => return Handling::Done(handled),
            Err(error) => error.to_string(),
        };
        if attempts >= settings.max_attempts.max(1) {
            return Handling::GaveUp { error, attempts };
        }
        tracing::warn!(%error, attempts, retry_in_ms = delay.as_millis() as u64, "handler failed");
        tokio::select! {
            _ = shutdown.cancelled() => return Handling::Interrupted,
            _ = tokio::time::sleep(delay) => {}
        }
        delay = (delay * 2).min(Duration::from_secs(30));
    }
}

/// Gives the event's handling a span of the publisher's trace (a new trace when the
/// record carried no valid traceparent); handlers pass it on to what they enqueue.
fn continue_trace(mut envelope: Envelope) -> Envelope {
    let trace = envelope
        .traceparent
        .map_or_else(TraceParent::random_root, |parent| parent.random_child());
    envelope.traceparent = Some(trace);
    envelope
}

/// Reads the CloudEvents binary-mode attributes from the record headers.
pub(crate) fn decode(message: &BorrowedMessage<'_>) -> Result<Envelope, String> {
    let mut id = None;
    let mut event_type = None;
    let mut source = None;
    let mut time = None;
    let mut correlation_id = None;
    let mut traceparent = None;
    let mut tracestate = None;
    if let Some(record_headers) = message.headers() {
        for header in record_headers.iter() {
            let Some(value) = header.value.and_then(|v| std::str::from_utf8(v).ok()) else {
                continue;
            };
            match header.key {
                headers::ID => id = Uuid::parse_str(value).ok(),
                headers::TYPE => event_type = Some(value.to_owned()),
                headers::SOURCE => source = Some(value.to_owned()),
                headers::TIME => {
                    time = chrono::DateTime::parse_from_rfc3339(value)
                        .ok()
                        .map(|t| t.to_utc())
                }
                headers::CORRELATION_ID => correlation_id = Some(value.to_owned()),
                // An invalid value is ignored: the consumer loop starts a new trace.
                headers::TRACEPARENT => traceparent = TraceParent::parse(value).ok(),
                headers::TRACESTATE => tracestate = edihub_events::trace::tracestate([value]),
                _ => {}
            }
        }
    }
    Ok(Envelope {
        id: id.ok_or("missing or invalid ce_id header")?,
        event_type: event_type.ok_or("missing ce_type header")?,
        source: source.unwrap_or_default(),
        time,
        correlation_id,
        // Only with the trace it belongs to.
        tracestate: tracestate.filter(|_| traceparent.is_some()),
        traceparent,
        key: message
            .key()
            .and_then(|k| std::str::from_utf8(k).ok())
            .map(str::to_owned),
        data: message.payload().map(<[u8]>::to_vec).unwrap_or_default(),
    })
}
