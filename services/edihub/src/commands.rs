use crate::Settings;
use anyhow::{Context, bail};
use edihub_archive::ArchiveStore;
use edihub_as2::{Disposition, Mic, MicAlg, PlainMessageSpec};
use sqlx::PgPool;
use std::path::PathBuf;
use std::time::{Duration, Instant};
use uuid::Uuid;

pub async fn migrate(settings: &Settings) -> anyhow::Result<()> {
    edihub_db::create_and_migrate(&settings.database)
        .await
        .context("migrating the database")?;
    println!("database migrated");
    Ok(())
}

pub async fn init(settings: &Settings) -> anyhow::Result<()> {
    migrate(settings).await?;
    let topics = &settings.kafka.topics;
    edihub_kafka::ensure_topics(
        &settings.kafka,
        &[
            &topics.inbound_received,
            &topics.invoice_canonical,
            &topics.inbound_rejected,
        ],
    )
    .await
    .context("creating topics")?;
    println!(
        "topics ready: {}, {}, {}",
        topics.inbound_received, topics.invoice_canonical, topics.inbound_rejected
    );
    let store = ArchiveStore::new(&settings.s3);
    store.ensure_bucket().await.context("creating the bucket")?;
    println!("bucket ready: {} (Object Lock enabled)", store.bucket());
    Ok(())
}

pub struct SendArgs {
    pub file: PathBuf,
    pub url: String,
    pub from: String,
    pub to: String,
    pub message_id: Option<String>,
    pub content_type: String,
}

pub async fn send(args: SendArgs) -> anyhow::Result<()> {
    let payload =
        std::fs::read(&args.file).with_context(|| format!("reading {}", args.file.display()))?;
    let message_id = args
        .message_id
        .unwrap_or_else(|| format!("{}@{}", Uuid::now_v7(), args.from));
    let message = edihub_as2::build_plain_message(&PlainMessageSpec {
        as2_from: &args.from,
        as2_to: &args.to,
        message_id: &message_id,
        subject: "EDI message",
        content_type: &args.content_type,
        payload: &payload,
        request_mdn_to: Some("edihub-cli"),
        request_signed_mdn: None,
    });
    let client = reqwest::Client::new();
    let mut request = client.post(&args.url);
    for (name, value) in &message.headers {
        request = request.header(name, value);
    }
    let response = request
        .body(message.body)
        .send()
        .await
        .with_context(|| format!("posting to {}", args.url))?;
    let status = response.status();
    let content_type = response
        .headers()
        .get("content-type")
        .and_then(|v| v.to_str().ok())
        .unwrap_or_default()
        .to_owned();
    let body = response.bytes().await?;
    println!("AS2 Message-ID: {message_id}");
    println!("HTTP status:    {status}");
    if !status.is_success() {
        bail!(
            "the hub answered {status}: {}",
            String::from_utf8_lossy(&body)
        );
    }
    let mdn = edihub_as2::parse_mdn(&content_type, &body).context("reading the MDN")?;
    println!("--- MDN ---");
    println!("Original-Message-ID:    {}", mdn.original_message_id);
    println!("Final-Recipient:        {}", mdn.final_recipient);
    println!(
        "Received-Content-MIC:   {}",
        mdn.received_content_mic
            .as_ref()
            .map(Mic::header_value)
            .unwrap_or_else(|| "(none)".into())
    );
    println!("Disposition:            {}", mdn.disposition.field_value());
    println!("{}", mdn.human_text);
    if mdn.original_message_id != message_id {
        bail!(
            "the MDN answers another message ({})",
            mdn.original_message_id
        );
    }
    match mdn.disposition {
        Disposition::Processed => {}
        Disposition::Failed(error) => bail!("the hub refused the message: {}", error.as_str()),
    }
    // For an unsigned message the MIC covers the content alone (RFC 4130 7.3.1).
    let expected = Mic::compute(MicAlg::Sha256, &payload);
    match &mdn.received_content_mic {
        Some(mic) if *mic == Mic::compute(mic.alg, &payload) => {
            println!("MIC verified ({})", mic.alg.as_str())
        }
        Some(mic) => bail!(
            "MIC mismatch: hub computed {}, we computed {}",
            mic.header_value(),
            expected.header_value()
        ),
        None => bail!("the MDN carries no Received-Content-MIC"),
    }
    Ok(())
}

/// Resolves a hub message id or an AS2 Message-ID to the hub's id.
async fn resolve(pool: &PgPool, id: &str) -> anyhow::Result<Uuid> {
    if let Ok(uuid) = Uuid::parse_str(id) {
        return Ok(uuid);
    }
    let bare = id.trim_start_matches('<').trim_end_matches('>');
    let found: Option<Uuid> =
        sqlx::query_scalar("SELECT id FROM edi_message WHERE as2_message_id = $1")
            .bind(bare)
            .fetch_optional(pool)
            .await?;
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
    let message: Option<serde_json::Value> = sqlx::query_scalar(
        "SELECT jsonb_build_object('id', id, 'as2_from', as2_from, 'as2_to', as2_to,
                'as2_message_id', as2_message_id, 'content_type', content_type,
                'payload_sha256', payload_sha256, 'payload_size', payload_size,
                'unb_sender', unb_sender, 'unb_recipient', unb_recipient,
                'unb_reference', unb_reference, 'received_at', received_at)
         FROM edi_message WHERE id = $1",
    )
    .bind(message_id)
    .fetch_optional(pool)
    .await?;
    let message = message.with_context(|| format!("no message {message_id}"))?;
    let outbox: serde_json::Value = sqlx::query_scalar(
        "SELECT coalesce(jsonb_agg(jsonb_build_object('id', id, 'event_type', event_type,
                'topic', topic, 'status', status, 'attempts', attempts, 'sent_at', sent_at,
                'last_error', last_error) ORDER BY seq), '[]'::jsonb)
         FROM outbox WHERE aggregate_id = $1",
    )
    .bind(message_id.to_string())
    .fetch_one(pool)
    .await?;
    let invoices: serde_json::Value = sqlx::query_scalar(
        "SELECT coalesce(jsonb_agg(canonical ORDER BY message_reference), '[]'::jsonb)
         FROM canonical_invoice WHERE message_id = $1",
    )
    .bind(message_id)
    .fetch_one(pool)
    .await?;
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

pub async fn audit_fetch(
    settings: &Settings,
    id: &str,
    output: Option<PathBuf>,
) -> anyhow::Result<()> {
    let pool = edihub_db::pool(&settings.database)?;
    let message_id = resolve(&pool, id).await?;
    let store = ArchiveStore::new(&settings.s3);
    let report = edihub_archive::audit(&pool, &store, message_id).await?;
    println!("message:        {message_id}");
    println!(
        "object:         s3://{}/{} (version {})",
        report.record.bucket,
        report.record.object_key,
        report.record.version_id.as_deref().unwrap_or("-")
    );
    println!("size:           {} bytes", report.bytes.len());
    println!("recorded sha256 {}", report.record.sha256);
    println!("actual sha256   {}", report.actual_sha256);
    println!(
        "retention:      {} until {}",
        report.retention_mode.as_deref().unwrap_or("NONE"),
        report
            .retain_until
            .map(|t| t.to_rfc3339())
            .unwrap_or_else(|| "-".into())
    );
    if let Some(path) = output {
        std::fs::write(&path, &report.bytes)
            .with_context(|| format!("writing {}", path.display()))?;
        println!("original written to {}", path.display());
    }
    if !report.digest_matches() {
        bail!("DIGEST MISMATCH: the archived object is not the recorded original");
    }
    println!("verified: digest matches the record");
    Ok(())
}
