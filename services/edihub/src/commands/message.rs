//! `edihub message` and `edihub events`: what the hub did with a message.

use crate::Settings;
use anyhow::{Context, bail};
use sqlx::PgPool;
use std::time::{Duration, Instant};
use uuid::Uuid;

/// Resolves a hub message id or an AS2 Message-ID to the hub's id.
pub(super) async fn resolve(pool: &PgPool, id: &str) -> anyhow::Result<Uuid> {
    if let Ok(uuid) = Uuid::parse_str(id) {
        return Ok(uuid);
    }
    let bare = id.trim_start_matches('<').trim_end_matches('>');
    let found = edihub_journal::find_by_as2_message_id(pool, bare).await?;
    found.with_context(|| format!("no message with id or AS2 Message-ID {id:?}"))
}

/// The Kafka key of a message's events: its hub id.
pub async fn message_key(settings: &Settings, id: &str) -> anyhow::Result<String> {
    let pool = edihub_db::pool(&settings.database)?;
    Ok(resolve(&pool, id).await?.to_string())
}

pub async fn show_message(settings: &Settings, id: &str, wait: u64) -> anyhow::Result<()> {
    let pool = edihub_db::pool(&settings.database)?;
    let message_id = resolve(&pool, id).await?;
    let deadline = Instant::now() + Duration::from_secs(wait);
    loop {
        let report = message_report(&pool, message_id).await?;
        let done = report["archive"].is_object()
            && (report["invoices"].as_array().is_some_and(|a| !a.is_empty())
                || report["outbox"].as_array().is_some_and(|rows| {
                    rows.iter().any(|r| r["event_type"] == "EdiMessageRejected")
                }));
        if done || Instant::now() >= deadline {
            println!("{}", serde_json::to_string_pretty(&report)?);
            return Ok(());
        }
        tokio::time::sleep(Duration::from_millis(250)).await;
    }
}

async fn message_report(pool: &PgPool, message_id: Uuid) -> anyhow::Result<serde_json::Value> {
    let message = edihub_journal::message_json(pool, message_id)
        .await?
        .with_context(|| format!("no message {message_id}"))?;
    let outbox = edihub_outbox::admin::aggregate_json(pool, &message_id.to_string()).await?;
    let invoices = edihub_transform::invoices_json(pool, message_id).await?;
    let archive = edihub_archive::find_record(pool, message_id).await?;
    Ok(serde_json::json!({
        "message": message,
        "outbox": outbox,
        "invoices": invoices,
        "archive": archive.map(|r| serde_json::json!({
            "bucket": r.bucket, "key": r.object_key, "version_id": r.version_id,
            "sha256": r.sha256, "size": r.size, "retention_mode": r.retention_mode,
            "retain_until": r.retain_until, "archived_at": r.archived_at,
        })),
    }))
}

pub async fn events(
    settings: &Settings,
    topic: &str,
    key: Option<&str>,
    count: usize,
    timeout: u64,
) -> anyhow::Result<()> {
    let matches = |r: &edihub_kafka::reader::RecordView| key.is_none() || r.key.as_deref() == key;
    let records = edihub_kafka::reader::read_until(
        &settings.kafka.brokers,
        topic,
        Duration::from_secs(timeout),
        |read| read.iter().filter(|r| matches(r)).count() >= count,
    )
    .await?;
    let found: Vec<_> = records.iter().filter(|r| matches(r)).take(count).collect();
    if found.is_empty() {
        bail!("no matching record on {topic} within {timeout}s");
    }
    for record in found {
        let payload: serde_json::Value = serde_json::from_slice(&record.payload)
            .unwrap_or_else(|_| String::from_utf8_lossy(&record.payload).into_owned().into());
        let headers: serde_json::Map<String, serde_json::Value> = record
            .headers
            .iter()
            .map(|(k, v)| (k.clone(), v.clone().into()))
            .collect();
        println!(
            "{}",
            serde_json::to_string_pretty(&serde_json::json!({
                "topic": record.topic, "partition": record.partition, "offset": record.offset,
                "key": record.key, "headers": headers, "payload": payload,
            }))?
        );
    }
    Ok(())
}
