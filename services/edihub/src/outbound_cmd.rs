//! `edihub outbound send|list|show|cancel|resend`: messages the hub sends to partners.
//! `send` queues; the outbox relay's sender delivers (see docs/outbound.md).

use crate::Settings;
use anyhow::{Context, bail};
use chrono::{DateTime, Utc};
use clap::Subcommand;
use edihub_outbound::{
    Acknowledgement, Filter, NewOutbound, OutboundMessage, OutboundState, OutboundStore,
};
use edihub_partners::live::LiveDirectory;
use std::path::PathBuf;
use uuid::Uuid;

#[derive(Subcommand)]
pub enum OutboundCommand {
    /// Queue FILE for a partner; prints the outbound message's id.
    Send {
        /// The partner's AS2 name; its partnership needs outbound settings.
        #[arg(long)]
        to: String,
        file: PathBuf,
        #[arg(long, default_value = "application/edifact")]
        content_type: String,
    },
    /// List outbound messages, newest first.
    List {
        #[arg(long)]
        partner: Option<String>,
        /// queued, sent, delivered, failed or cancelled.
        #[arg(long)]
        state: Option<OutboundState>,
        /// Created at or after this time (RFC 3339).
        #[arg(long)]
        since: Option<DateTime<Utc>>,
        #[arg(long, default_value_t = 100)]
        limit: i64,
        /// One JSON object per line.
        #[arg(long)]
        json: bool,
    },
    /// Show one outbound message, with its last error, its MDN and the CONTRLs and
    /// APERAKs the partner answered it with.
    Show {
        id: Uuid,
        #[arg(long)]
        json: bool,
    },
    /// Withdraw a queued or sent message.
    Cancel { id: Uuid },
    /// Queue a failed or delivered message again (same Message-ID).
    Resend { id: Uuid },
}

pub async fn run(settings: &Settings, command: OutboundCommand) -> anyhow::Result<()> {
    let pool = edihub_db::pool(&settings.database)?;
    let store = OutboundStore::new(pool, &settings.kafka.topics.outbound_status);
    match command {
        OutboundCommand::Send {
            to,
            file,
            content_type,
        } => send(settings, &store, &to, &file, &content_type).await,
        OutboundCommand::List {
            partner,
            state,
            since,
            limit,
            json,
        } => {
            let filter = Filter {
                partner,
                state,
                since,
                limit,
            };
            let messages = store.list(&filter).await?;
            for message in &messages {
                if json {
                    println!("{}", serde_json::to_string(message)?);
                } else {
                    println!("{}", summary_line(message));
                }
            }
            eprintln!("{} outbound message(s)", messages.len());
            Ok(())
        }
        OutboundCommand::Show { id, json } => {
            let message = store
                .show(id)
                .await?
                .with_context(|| format!("no outbound message {id}"))?;
            let mut conn = store.pool().acquire().await?;
            let acknowledgements = edihub_outbound::acknowledgements(&mut conn, id).await?;
            if json {
                let mut shown = serde_json::to_value(&message)?;
                shown["acknowledgements"] = serde_json::to_value(&acknowledgements)?;
                println!("{}", serde_json::to_string_pretty(&shown)?);
            } else {
                print_message(&message);
                print_acknowledgements(&acknowledgements);
            }
            Ok(())
        }
        OutboundCommand::Cancel { id } => {
            let message = store.cancel(id).await?;
            println!("{} {}", message.id, message.state);
            Ok(())
        }
        OutboundCommand::Resend { id } => {
            let message = store.resend(id).await?;
            println!("{} {}", message.id, message.state);
            Ok(())
        }
    }
}

/// Queues `file` after checking the partnership can be sent to: the sender would only
/// fail it later.
async fn send(
    settings: &Settings,
    store: &OutboundStore,
    to: &str,
    file: &std::path::Path,
    content_type: &str,
) -> anyhow::Result<()> {
    let payload = std::fs::read(file).with_context(|| format!("reading {}", file.display()))?;
    let directory = LiveDirectory::new(&settings.gateway).context("the partner directory")?;
    directory
        .reload(store.pool())
        .await
        .context("loading partners from the database")?;
    let current = directory.current();
    let Some(partnership) = current.partner(to) else {
        bail!("no partnership {to}");
    };
    let Some(outbound) = &partnership.outbound else {
        bail!(
            "partnership {to} has no outbound settings (edihub partner update --outbound-url ...)"
        );
    };
    let hub = outbound.sending_identity(&settings.gateway.hub_as2_id);
    let filename = file.file_name().and_then(|name| name.to_str());
    let message = store
        .queue(&NewOutbound {
            partner: to,
            hub_as2_id: hub,
            content_type,
            payload: &payload,
            filename,
            source: "cli",
            request_id: None,
        })
        .await?;
    eprintln!(
        "queued for {to} as {} (AS2 Message-ID {})",
        message.hub_as2_id, message.as2_message_id
    );
    println!("{}", message.id);
    Ok(())
}

fn summary_line(message: &OutboundMessage) -> String {
    format!(
        "{}  {:<9}  {:<20}  attempts {}  ack {:<18}  {}  {}",
        message.id,
        message.state.as_str(),
        message.partner_as2_id,
        message.attempts,
        message.acknowledgement.as_deref().unwrap_or("-"),
        message.created_at.to_rfc3339(),
        message
            .last_error
            .as_deref()
            .or(message.filename.as_deref())
            .unwrap_or(""),
    )
}

fn print_message(message: &OutboundMessage) {
    let none = || "(none)".to_owned();
    println!("id:               {}", message.id);
    println!("state:            {}", message.state);
    println!("partner:          {}", message.partner_as2_id);
    println!("from:             {}", message.hub_as2_id);
    println!("AS2 Message-ID:   {}", message.as2_message_id);
    println!("content type:     {}", message.content_type);
    println!(
        "file:             {}",
        message.filename.clone().unwrap_or_else(none)
    );
    println!(
        "size, sha256:     {} bytes, {}",
        message.size, message.sha256
    );
    println!("attempts:         {}", message.attempts);
    println!(
        "last error:       {}",
        message.last_error.clone().unwrap_or_else(none)
    );
    println!(
        "MIC expected:     {}",
        message.mic_expected.clone().unwrap_or_else(none)
    );
    println!(
        "MIC reported:     {}",
        message.mic_reported.clone().unwrap_or_else(none)
    );
    println!("source:           {}", message.source);
    println!(
        "UNB reference:    {}",
        message.unb_reference.clone().unwrap_or_else(none)
    );
    println!(
        "acknowledgement:  {}",
        message
            .acknowledgement
            .as_ref()
            .zip(message.acknowledged_at)
            .map(|(action, at)| format!("{action} at {at}"))
            .unwrap_or_else(none)
    );
    println!(
        "created, updated: {} {}",
        message.created_at, message.updated_at
    );
    if let Some(mdn) = &message.mdn {
        println!(
            "--- MDN ({}) ---",
            message.mdn_content_type.as_deref().unwrap_or("")
        );
        println!("{}", String::from_utf8_lossy(mdn));
    }
}

fn print_acknowledgements(acknowledgements: &[Acknowledgement]) {
    for ack in acknowledgements {
        println!(
            "--- {} {} {} at {} (received message {}) ---",
            ack.message_type, ack.message_reference, ack.action, ack.received_at, ack.message_id
        );
        println!(
            "{}",
            serde_json::to_string_pretty(&ack.detail).unwrap_or_default()
        );
    }
}
