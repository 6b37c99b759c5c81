//! The relay alone at a steady rate, as issue 17 states its goal: "relay CPU per event
//! at a 200 messages/s steady rate". The end-to-end phases cannot show it: they last as
//! long as the S3 stand-in needs, so the relay's fixed costs (polling, wake-ups) are
//! divided by however few messages moto let through.
//!
//! For EDIHUB_BENCH_STEADY_SECONDS (10) at EDIHUB_BENCH_RATE messages per second, the
//! bench writes the outbox rows a message leaves, in the transactions that write them:
//! the gateway's (one event) and, one tick later, the transform consumer's (two events
//! of the same aggregate). They go to a topic no consumer reads, so the consumers stay
//! idle. The relay's CPU, and its backends', is read from the first row to the last
//! one SENT.

use crate::hub::Hub;
use crate::meter::{Meter, Spent};
use edihub_outbox::NewEvent;
use std::time::{Duration, Instant};
use tokio::time::MissedTickBehavior;
use uuid::Uuid;

/// Outbox rows per message: EdiMessageReceived, EdiMessageParsed, InvoiceTransformed.
pub const EVENTS_PER_MESSAGE: usize = 3;

pub struct Steady {
    pub rate: f64,
    pub events: usize,
    pub spent: Spent,
}

pub async fn run(hub: &Hub, meter: &Meter, rate: f64, seconds: f64) -> Steady {
    let topic = hub.kafka.topics.message_parsed.clone();
    let messages = (rate * seconds).round().max(1.0) as usize;
    let mut tick = tokio::time::interval(Duration::from_secs_f64(1.0 / rate));
    tick.set_missed_tick_behavior(MissedTickBehavior::Burst);
    let start = meter.read(&hub.pool).await;
    let mut previous: Option<String> = None;
    for n in 0..=messages {
        tick.tick().await;
        if n < messages {
            let aggregate = Uuid::now_v7().to_string();
            commit(hub, &[event(&aggregate, &topic, "EdiMessageReceived", n)]).await;
            if let Some(earlier) = previous.replace(aggregate) {
                commit(hub, &transformed(&earlier, &topic, n)).await;
            }
        } else if let Some(last) = previous.take() {
            commit(hub, &transformed(&last, &topic, n)).await;
        }
    }
    wait_until_sent(hub, &topic, messages * EVENTS_PER_MESSAGE).await;
    let spent = meter.read(&hub.pool).await.since(&start, meter);
    Steady {
        rate,
        events: messages * EVENTS_PER_MESSAGE,
        spent,
    }
}

impl Steady {
    /// CPU ms per event of the row labelled `label` (`None`: not measured).
    pub fn ms_per_event(&self, label: &str) -> Option<f64> {
        let row = self.spent.rows.iter().find(|(l, _)| l == label);
        row.and_then(|(_, t)| *t)
            .map(|t| t.as_secs_f64() * 1e3 / self.events.max(1) as f64)
    }

    /// CPU ms per event of the relay process and of its backends.
    pub fn print(&self) {
        let show = |v: Option<f64>| v.map_or("n/a".to_owned(), |v| format!("{v:.3}"));
        println!(
            "relay alone at a steady {} messages/s ({} events/s, {} events): process {} ms per event, its backends {} ms per event",
            self.rate,
            self.rate * EVENTS_PER_MESSAGE as f64,
            self.events,
            show(self.ms_per_event("outbox-relay")),
            show(self.ms_per_event("    outbox-relay")),
        );
    }
}

/// The transform consumer's two events for `aggregate`.
fn transformed(aggregate: &str, topic: &str, n: usize) -> [NewEvent; 2] {
    [
        event(aggregate, topic, "EdiMessageParsed", n),
        event(aggregate, topic, "InvoiceTransformed", n),
    ]
}

fn event(aggregate: &str, topic: &str, event_type: &str, n: usize) -> NewEvent {
    NewEvent {
        id: Uuid::now_v7(),
        aggregate_type: "EdiMessage".into(),
        aggregate_id: aggregate.to_owned(),
        event_type: event_type.into(),
        topic: topic.to_owned(),
        payload: edihub_tests::outbox_load::sample_payload(n),
        headers: serde_json::json!({}),
    }
}

async fn commit(hub: &Hub, events: &[NewEvent]) {
    edihub_tests::commit_events(&hub.pool, events).await;
}

async fn wait_until_sent(hub: &Hub, topic: &str, events: usize) {
    let deadline = Instant::now() + Duration::from_secs(120);
    loop {
        let sent: i64 =
            sqlx::query_scalar("SELECT count(*) FROM outbox WHERE topic = $1 AND status = 'SENT'")
                .bind(topic)
                .fetch_one(&hub.pool)
                .await
                .expect("count SENT");
        if sent as usize >= events {
            return;
        }
        assert!(
            Instant::now() < deadline,
            "the relay sent {sent} of {events} steady events in 120 s"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}
