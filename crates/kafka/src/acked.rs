//! A producer whose delivery reports resolve one future per record, polled by a thread
//! of its own in long windows.
//!
//! rdkafka's `FutureProducer` polls in 100 ms windows, and turns the time a window has
//! left into whole milliseconds: its last millisecond is polled with a zero timeout, a
//! spin of up to 1 ms in every 100 (docs/benchmarks.md). A window of [`POLL_WINDOW`]
//! spins ten times less often. Delivery reports come as soon as librdkafka has them,
//! whatever the window.

use rdkafka::ClientContext;
use rdkafka::config::ClientConfig;
use rdkafka::error::KafkaError;
use rdkafka::message::OwnedHeaders;
use rdkafka::producer::{BaseProducer, BaseRecord, DeliveryResult, Producer, ProducerContext};
use rdkafka::util::Timeout;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;
use tokio::sync::oneshot;

/// How long one poll of the delivery reports lasts; also how long the producer may
/// outlive its last handle (its thread holds it until the window ends).
const POLL_WINDOW: Duration = Duration::from_secs(1);

/// The broker's answer for one record: `Ok` once it is acknowledged.
type Outcome = Result<(), KafkaError>;

/// The future of one record's [`Outcome`].
pub(crate) type Ack = oneshot::Receiver<Outcome>;

/// Hands each record's delivery report to the future waiting for it.
pub(crate) struct AckContext;

impl ClientContext for AckContext {}

impl ProducerContext for AckContext {
    type DeliveryOpaque = Box<oneshot::Sender<Outcome>>;

    fn delivery(&self, report: &DeliveryResult<'_>, ack: Self::DeliveryOpaque) {
        let outcome = match report {
            Ok(_) => Ok(()),
            Err((error, _)) => Err(error.clone()),
        };
        // The publisher may have stopped waiting (dropped): nobody to tell.
        let _ = ack.send(outcome);
    }
}

pub(crate) struct AckedProducer {
    producer: Arc<BaseProducer<AckContext>>,
    stop: Arc<AtomicBool>,
}

impl AckedProducer {
    pub(crate) fn new(config: &ClientConfig) -> Result<Self, KafkaError> {
        let producer: Arc<BaseProducer<AckContext>> =
            Arc::new(config.create_with_context(AckContext)?);
        let stop = Arc::new(AtomicBool::new(false));
        let (poller_producer, poller_stop) = (Arc::clone(&producer), Arc::clone(&stop));
        std::thread::Builder::new()
            .name("kafka acks".into())
            .spawn(move || {
                while !poller_stop.load(Ordering::Relaxed) {
                    poller_producer.poll(POLL_WINDOW);
                }
            })
            .map_err(|e| KafkaError::ClientCreation(e.to_string()))?;
        Ok(Self { producer, stop })
    }

    /// Enqueues one record and returns the future of its acknowledgement; fails at once
    /// when librdkafka refuses it (its queue is full, say).
    pub(crate) fn send(
        &self,
        topic: &str,
        key: &str,
        payload: &str,
        headers: OwnedHeaders,
    ) -> Result<Ack, KafkaError> {
        let (sender, ack) = oneshot::channel();
        let record = BaseRecord::with_opaque_to(topic, Box::new(sender))
            .key(key)
            .payload(payload)
            .headers(headers);
        self.producer.send(record).map_err(|(error, _)| error)?;
        Ok(ack)
    }

    /// Waits for outstanding records.
    pub(crate) fn flush(&self, timeout: Duration) -> Result<(), KafkaError> {
        self.producer.flush(Timeout::After(timeout))
    }
}

/// Not joined: the thread ends at the end of its window and drops the producer there,
/// so that dropping never blocks an async task for a window.
impl Drop for AckedProducer {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
    }
}
