//! The consumer lag gauge (`edihub_consumer_lag`): for each assigned partition, its high
//! watermark minus the consumer's position (the offset after the last record handed to
//! the handler, so the event in progress is not counted as lag), or minus the group's
//! committed offset before the handler took a record of the partition.
//!
//! Why not librdkafka's statistics callback (`statistics.interval.ms`), which needs no
//! broker round trip: the reports are delivered through the consumer's own queue, behind
//! the records already fetched, and served only when the loop asks for the next record.
//! A consumer stuck on one event therefore reports nothing (a gauge frozen at, say, 0
//! while the backlog grows), and a lagging one reports values as old as its prefetch
//! queue. Checked against tansu 0.6, which fills every field the lag needs: the problem
//! is the delivery, not the broker. So a task beside the loop reads the position (local)
//! and the watermarks (one ListOffsets exchange per assigned partition) every interval,
//! whatever the loop is doing.

use rdkafka::consumer::{Consumer, ConsumerContext, StreamConsumer};
use rdkafka::{Offset, TopicPartitionList};
use std::sync::Arc;
use std::time::Duration;
use tokio_util::sync::CancellationToken;

/// The lag of one assigned partition.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct PartitionLag {
    pub topic: String,
    pub partition: i32,
    pub lag: i64,
}

/// Refreshes the lag gauge of `group` every `interval` until `stop`, then removes the
/// series it set: a stopped consumer reports no lag rather than a frozen one.
pub(crate) async fn report<C: ConsumerContext + 'static>(
    consumer: Arc<StreamConsumer<C>>,
    group: String,
    interval: Duration,
    stop: CancellationToken,
) {
    let mut reported: Vec<(String, i32)> = Vec::new();
    loop {
        let reader = consumer.clone();
        let timeout = interval.max(Duration::from_secs(1));
        // The watermark queries block: off the runtime's worker threads.
        let read = tokio::task::spawn_blocking(move || partition_lags(&reader, timeout));
        let lags = tokio::select! {
            _ = stop.cancelled() => break,
            lags = read => lags,
        };
        match lags {
            Ok(Ok(lags)) => reported = publish(&group, &reported, &lags),
            Ok(Err(error)) => tracing::warn!(%error, "consumer lag not read"),
            Err(error) => tracing::warn!(%error, "consumer lag reader failed"),
        }
        tokio::select! {
            _ = stop.cancelled() => break,
            _ = tokio::time::sleep(interval) => {}
        }
    }
    publish(&group, &reported, &[]);
}

/// Sets the gauge for `lags` and removes the series in `reported` that `lags` no longer
/// has (partitions revoked in a rebalance); returns the series now set.
fn publish(group: &str, reported: &[(String, i32)], lags: &[PartitionLag]) -> Vec<(String, i32)> {
    let now: Vec<(String, i32)> = lags
        .iter()
        .map(|lag| (lag.topic.clone(), lag.partition))
        .collect();
    for (topic, partition) in reported.iter().filter(|series| !now.contains(series)) {
        // Absent already is fine: there is nothing to remove.
        let _ = edihub_metrics::CONSUMER_LAG.remove_label_values(&[
            group,
            topic,
            &partition.to_string(),
        ]);
    }
    for lag in lags {
        edihub_metrics::CONSUMER_LAG
            .with_label_values(&[group, &lag.topic, &lag.partition.to_string()])
            .set(lag.lag);
    }
    now
}

/// The lag of every partition assigned to `consumer`. A partition whose watermarks do
/// not come within `timeout` is left out this time (its gauge keeps its last value).
fn partition_lags<C: ConsumerContext>(
    consumer: &StreamConsumer<C>,
    timeout: Duration,
) -> Result<Vec<PartitionLag>, rdkafka::error::KafkaError> {
    let positions = consumer.position()?;
    // Partitions the handler has not taken a record of yet start at the committed
    // offset: asked for only then, since it costs a broker exchange.
    let mut unstarted = TopicPartitionList::new();
    for element in positions.elements() {
        if position(element.offset()).is_none() {
            unstarted.add_partition(element.topic(), element.partition());
        }
    }
    let committed = if unstarted.count() == 0 {
        unstarted
    } else {
        consumer.committed_offsets(unstarted, timeout)?
    };
    let mut lags = Vec::new();
    for element in positions.elements() {
        let (topic, partition) = (element.topic(), element.partition());
        let start = position(element.offset()).or_else(|| {
            committed
                .find_partition(topic, partition)
                .and_then(|c| position(c.offset()))
        });
        match consumer.fetch_watermarks(topic, partition, timeout) {
            Ok((low, high)) => lags.push(PartitionLag {
                topic: topic.to_owned(),
                partition,
                lag: lag(start, low, high),
            }),
            Err(error) => tracing::debug!(%error, topic, partition, "watermarks not read"),
        }
    }
    Ok(lags)
}

fn position(offset: Offset) -> Option<i64> {
    match offset {
        Offset::Offset(n) if n >= 0 => Some(n),
        _ => None,
    }
}

/// Records from `start` (the position, else the committed offset) to the high
/// watermark. A group that never committed starts at the low watermark: our consumers
/// reset to the earliest offset.
pub(crate) fn lag(start: Option<i64>, low: i64, high: i64) -> i64 {
    (high - start.unwrap_or(low)).max(0)
}

#[cfg(test)]
mod tests;
