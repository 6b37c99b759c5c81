use crate::Settings;
use anyhow::{Context, bail};
use edihub_archive::ArchiveStore;
use edihub_as2::{
    Disposition, Encryption, Identity, Mic, MicAlg, PlainMessageSpec, SecureMessageSpec,
};
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
            &topics.acknowledgement_issued,
            &topics.dead_letter,
        ],
    )
    .await
    .context("creating topics")?;
    println!(
        "topics ready: {}, {}, {}, {}, {}",
        topics.inbound_received,
        topics.invoice_canonical,
        topics.inbound_rejected,
        topics.acknowledgement_issued,
        topics.dead_letter
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
    pub security: SendSecurity,
}

/// The S/MIME options of `edihub send`: the same choices a partner's AS2 software offers.
#[derive(clap::Args, Debug, Clone, Default)]
pub struct SendSecurity {
    /// Sign with this digest (sha1, sha224, sha256, sha384, sha512). Needs --key and --cert.
    #[arg(long, value_parser = parse_mic_alg)]
    pub sign: Option<MicAlg>,
    /// Encrypt to the hub with this cipher (3des, aes128, aes192, aes256; aes128-gcm and
    /// aes256-gcm make authenticated enveloped data). Needs --hub-cert.
    #[arg(long, value_parser = parse_encryption)]
    pub encrypt: Option<Encryption>,
    /// Compress the content (RFC 5402) before signing.
    #[arg(long)]
    pub compress: bool,
    /// Ask for a signed MDN whose MIC uses this digest, and verify its signature against
    /// --hub-cert. Needs --hub-cert.
    #[arg(long, value_parser = parse_mic_alg)]
    pub signed_mdn: Option<MicAlg>,
    /// Our private key (PEM), to sign with.
    #[arg(long)]
    pub key: Option<PathBuf>,
    /// Our certificate (PEM), sent with the signature.
    #[arg(long)]
    pub cert: Option<PathBuf>,
    /// The hub's certificate (PEM): what we encrypt to and verify signed MDNs with.
    #[arg(long)]
    pub hub_cert: Option<PathBuf>,
}

fn parse_mic_alg(s: &str) -> Result<MicAlg, String> {
    MicAlg::parse(s)
        .ok_or_else(|| format!("unknown digest {s:?} (sha1, sha224, sha256, sha384, sha512)"))
}

fn parse_encryption(s: &str) -> Result<Encryption, String> {
    Encryption::parse(s).ok_or_else(|| {
        format!("unknown cipher {s:?} (3des, aes128, aes192, aes256, aes128-gcm, aes256-gcm)")
    })
}

fn read_file(path: &std::path::Path, what: &str) -> anyhow::Result<Vec<u8>> {
    std::fs::read(path).with_context(|| format!("reading {what} {}", path.display()))
}

pub async fn send(args: SendArgs) -> anyhow::Result<()> {
    let payload =
        std::fs::read(&args.file).with_context(|| format!("reading {}", args.file.display()))?;
    let message_id = args
        .message_id
        .unwrap_or_else(|| format!("{}@{}", Uuid::now_v7(), args.from));
    let security = &args.security;
    let identity = match (&security.key, &security.cert) {
        (Some(key), Some(cert)) => Some(
            Identity::from_pem(&read_file(cert, "certificate")?, &read_file(key, "key")?)
                .context("our signing identity")?,
        ),
        (None, None) => None,
        _ => bail!("--key and --cert go together"),
    };
    let hub_certificates = match &security.hub_cert {
        Some(path) => edihub_as2::certificates_from_pem(&read_file(path, "hub certificate")?)
            .context("the hub's certificate")?,
        None => Vec::new(),
    };
    let sign = match (security.sign, &identity) {
        (Some(alg), Some(identity)) => Some((identity, alg)),
        (Some(_), None) => bail!("--sign needs --key and --cert"),
        (None, _) => None,
    };
    let encrypt = match (security.encrypt, hub_certificates.first()) {
        (Some(cipher), Some(certificate)) => Some((certificate, cipher)),
        (Some(_), None) => bail!("--encrypt needs --hub-cert"),
        (None, _) => None,
    };
    if security.signed_mdn.is_some() && hub_certificates.is_empty() {
        bail!("--signed-mdn needs --hub-cert to verify the MDN's signature");
    }
    let boundary = format!("----=_edihub_send_{}", Uuid::new_v4().simple());
    let built = edihub_as2::build_secure_message(&SecureMessageSpec {
        plain: PlainMessageSpec {
            as2_from: &args.from,
            as2_to: &args.to,
            message_id: &message_id,
            subject: "EDI message",
            content_type: &args.content_type,
            payload: &payload,
            request_mdn_to: Some("edihub-cli"),
            request_signed_mdn: security.signed_mdn,
        },
        compress: security.compress,
        sign,
        encrypt,
        boundary: &boundary,
        now_unix: chrono::Utc::now().timestamp(),
    })
    .context("building the message")?;
    let client = reqwest::Client::new();
    let mut request = client.post(&args.url);
    for (name, value) in &built.message.headers {
        request = request.header(name, value);
    }
    let response = request
        .body(built.message.body)
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
    let read =
        edihub_as2::read_mdn(&content_type, &body, &hub_certificates).context("reading the MDN")?;
    let mdn = read.report;
    println!("--- MDN ---");
    println!(
        "Signature:              {}",
        if read.signed {
            "verified against the hub's certificate"
        } else {
            "(unsigned)"
        }
    );
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
    if security.signed_mdn.is_some() && !read.signed {
        bail!("a signed MDN was asked for but the MDN is not signed");
    }
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
    // The MIC the hub must have computed, by RFC 4130 section 7.3.1 (see
    // `build_secure_message`); compared by digest, whatever the algorithm's spelling.
    let expected = built.expected_mic;
    match &mdn.received_content_mic {
        Some(mic) if *mic == expected => println!("MIC verified ({})", mic.alg.as_str()),
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
