//! `edihub`, the operator CLI: set-up, sending a file as a partner would, looking at a
//! message's journey, auditing the archive.

mod commands;
mod edifact_cmd;
mod inbox_cmd;
mod journal_cmd;
mod outbound_cmd;
mod outbox_cmd;
mod partner_cmd;

use clap::{Parser, Subcommand};
use edihub_config::{
    ArchiveSettings, DatabaseSettings, GatewaySettings, KafkaSettings, S3Settings,
};
use serde::Deserialize;
use std::path::PathBuf;

// Many short-lived allocations per message (parser, S/MIME): mimalloc serves them
// markedly faster than glibc's malloc (docs/benchmarks.md).
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// Settings read the same way as the services' (defaults, $EDIHUB_CONFIG, environment).
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default)]
pub struct Settings {
    pub database: DatabaseSettings,
    pub kafka: KafkaSettings,
    pub s3: S3Settings,
    /// Read for `gateway.hub_key_passphrase` (`edihub identity set`).
    pub gateway: GatewaySettings,
    /// The ledger's sealing key and certificate (`edihub audit seal|verify`).
    pub archive: ArchiveSettings,
}

#[derive(Parser)]
#[command(name = "edihub", version, about = "Operate an edihub EDI hub")]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Create the database if needed and apply the migrations.
    Migrate,
    /// Migrate, create the Kafka topics and the Object Lock bucket (idempotent).
    Init,
    /// Send FILE to a hub as an AS2 message (plain, or signed/encrypted/compressed) and
    /// print and check the MDN.
    Send(commands::SendArgs),
    /// Show what the hub did with a message: journal, outbox, invoices, archive.
    Message {
        /// The hub's message id or the partner's AS2 Message-ID.
        id: String,
        /// Wait up to this many seconds for the message to be transformed and archived.
        #[arg(long, default_value_t = 0)]
        wait: u64,
    },
    /// Print records of a topic (from the beginning), optionally only those with KEY.
    Events {
        #[arg(long, default_value = "edi.inbound.received")]
        topic: String,
        #[arg(long)]
        key: Option<String>,
        /// Only records of this message (the hub's id or the AS2 Message-ID).
        #[arg(long, conflicts_with = "key")]
        message: Option<String>,
        /// Stop after this many matching records.
        #[arg(long, default_value_t = 1)]
        count: usize,
        #[arg(long, default_value_t = 20)]
        timeout: u64,
    },
    /// Check or convert an EDIFACT file offline, as the transform consumer would.
    Edifact {
        #[command(subcommand)]
        command: edifact_cmd::EdifactCommand,
    },
    /// Dead letters and replays: list FAILED rows, requeue them, replay SENT ones.
    Outbox {
        #[command(subcommand)]
        command: outbox_cmd::OutboxCommand,
    },
    /// Messages the hub sends to partners (outbound AS2): send, list, show, cancel,
    /// resend.
    Outbound {
        #[command(subcommand)]
        command: outbound_cmd::OutboundCommand,
    },
    /// Journal housekeeping: purge the bytes the archive keeps.
    Journal {
        #[command(subcommand)]
        command: journal_cmd::JournalCommand,
    },
    /// Inbox housekeeping.
    Inbox {
        #[command(subcommand)]
        command: inbox_cmd::InboxCommand,
    },
    /// Partnerships in the database: add, list, show, update, remove.
    Partner {
        #[command(subcommand)]
        command: partner_cmd::PartnerCommand,
    },
    /// The hub's own AS2 identities (name, certificate, private key) in the database.
    Identity {
        #[command(subcommand)]
        command: partner_cmd::IdentityCommand,
    },
    /// Auditor's tools on the S3 archive.
    Audit {
        #[command(subcommand)]
        command: AuditCommand,
    },
}

#[derive(Subcommand)]
enum AuditCommand {
    /// Download the archived original, check its SHA-256 against the record and print
    /// its retention as S3 reports it. Exits non-zero when the digest does not match.
    Fetch {
        /// The hub's message id or the partner's AS2 Message-ID.
        id: String,
        /// Write the original here (default: do not write it).
        #[arg(long)]
        output: Option<PathBuf>,
        /// Who fetches, for the access log (default: $EDIHUB_AUDITOR, else the OS user).
        #[arg(long)]
        auditor: Option<String>,
    },
    /// One message's evidence and every check on it: objects and their SHA-256, the
    /// partner's signature re-verified, the MDN's MIC recomputed, the ledger entry and its
    /// segment, the retention S3 holds. Exits non-zero when any check fails.
    Show {
        /// The hub's message id or the partner's AS2 Message-ID.
        id: String,
        #[arg(long)]
        json: bool,
        /// Who looks, for the access log (default: $EDIHUB_AUDITOR, else the OS user).
        #[arg(long)]
        auditor: Option<String>,
    },
    /// Verify every message and ledger segment of a period against S3 and the signed
    /// segments (--from, --to), or an exported bundle offline (FILE). Exits non-zero
    /// naming each discrepancy.
    Verify(commands::VerifyArgs),
    /// Export a period's evidence, ledger segments and certificates into a tar bundle
    /// that can be checked offline (`audit verify FILE`) or with standard tools.
    Export(commands::ExportArgs),
    /// Seal the archived entries that wait into a signed segment, now.
    Seal {
        #[arg(long)]
        json: bool,
    },
    /// Find archived messages by partner, period, invoice number, AS2 Message-ID or UNB
    /// reference (all criteria given must hold). Recorded in the access log.
    Search(commands::SearchArgs),
    /// Set (--on) or lift (--off) the S3 legal hold on every object of the selected
    /// messages. Recorded in the access log.
    Hold(commands::HoldArgs),
    /// List the access log: who fetched, showed, searched, exported or held what, when.
    Access(commands::AccessArgs),
}

// One thread: each command's work is sequential, and mimalloc does not reuse a block
// freed on another thread than the one that allocated it soon enough: on a multi-thread
// runtime, every large S3 body an export streams raised its peak memory (docs/audit.md).
#[tokio::main(flavor = "current_thread")]
async fn main() -> anyhow::Result<()> {
    edihub_config::telemetry::init("edihub");
    // reqwest (`edihub send`) is built with rustls but no crypto provider of its own:
    // use aws-lc-rs, which the S3 client links anyway. Fails only if one is set already.
    let _ = rustls::crypto::aws_lc_rs::default_provider().install_default();
    let cli = Cli::parse();
    let settings: Settings = edihub_config::load()?;
    match cli.command {
        Command::Migrate => commands::migrate(&settings).await,
        Command::Init => commands::init(&settings).await,
        Command::Send(args) => commands::send(args).await,
        Command::Message { id, wait } => commands::show_message(&settings, &id, wait).await,
        Command::Events {
            topic,
            key,
            message,
            count,
            timeout,
        } => {
            let key = match message {
                Some(id) => Some(commands::message_key(&settings, &id).await?),
                None => key,
            };
            commands::events(&settings, &topic, key.as_deref(), count, timeout).await
        }
        Command::Edifact { command } => edifact_cmd::run(command),
        Command::Outbox { command } => outbox_cmd::run(&settings, command).await,
        Command::Outbound { command } => outbound_cmd::run(&settings, command).await,
        Command::Inbox { command } => inbox_cmd::run(&settings, command).await,
        Command::Journal { command } => journal_cmd::run(&settings, command).await,
        Command::Partner { command } => partner_cmd::run_partner(&settings, command).await,
        Command::Identity { command } => partner_cmd::run_identity(&settings, command).await,
        Command::Audit { command } => match command {
            AuditCommand::Fetch {
                id,
                output,
                auditor,
            } => commands::audit_fetch(&settings, &id, output, auditor).await,
            AuditCommand::Show { id, json, auditor } => {
                commands::audit_show(&settings, &id, json, auditor).await
            }
            AuditCommand::Verify(args) => commands::audit_verify(&settings, args).await,
            AuditCommand::Export(args) => commands::audit_export(&settings, args).await,
            AuditCommand::Seal { json } => commands::audit_seal(&settings, json).await,
            AuditCommand::Search(args) => commands::audit_search(&settings, args).await,
            AuditCommand::Hold(args) => commands::audit_hold(&settings, args).await,
            AuditCommand::Access(args) => commands::audit_access(&settings, args).await,
        },
    }
}
