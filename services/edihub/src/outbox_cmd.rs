//! `edihub outbox failed|requeue|replay|purge`: the dead-letter tools and housekeeping.

use crate::Settings;
use crate::commands::audit::progress::Progress;
use anyhow::Context;
use chrono::{DateTime, Utc};
use clap::{Args, Subcommand};
use edihub_outbox::admin::{self, Selection};
use edihub_outbox::purge::PurgeOptions;
use uuid::Uuid;

#[derive(Subcommand)]
pub enum OutboxCommand {
    /// List FAILED rows (the dead letters), with their last error.
    Failed {
        #[command(flatten)]
        filter: Filter,
        #[arg(long, default_value_t = 100)]
        limit: i64,
    },
    /// Put FAILED rows back to PENDING, due now, attempts reset.
    Requeue {
        #[command(flatten)]
        filter: Filter,
        /// Show what would change, change nothing.
        #[arg(long)]
        dry_run: bool,
    },
    /// Publish SENT rows again (same ce_id: idempotent consumers ignore them).
    Replay {
        #[command(flatten)]
        filter: Filter,
        #[arg(long)]
        dry_run: bool,
    },
    /// Export SENT rows older than N days to the object-locked archive (gzip JSON lines
    /// with a manifest), then delete them. Idempotent.
    Purge {
        #[arg(long)]
        older_than_days: u32,
        #[arg(long, default_value_t = 10_000)]
        chunk: i64,
        /// At most this many rows per second, so that a purge beside a busy relay takes
        /// its CPU evenly; 0 or absent: as fast as it can.
        #[arg(long)]
        max_rate: Option<u32>,
        #[arg(long)]
        dry_run: bool,
    },
}

/// The instant `days` days ago: rows older than this are purged.
pub(crate) fn cutoff(days: u32) -> DateTime<Utc> {
    Utc::now() - chrono::Duration::days(i64::from(days))
}

#[derive(Args)]
pub struct Filter {
    /// Outbox row ids (repeatable).
    #[arg(long = "id")]
    ids: Vec<Uuid>,
    #[arg(long)]
    event_type: Option<String>,
    /// The aggregate (the hub's message id).
    #[arg(long)]
    aggregate: Option<String>,
    /// Created at or after this time (RFC 3339).
    #[arg(long)]
    from: Option<DateTime<Utc>>,
    /// Created before this time (RFC 3339).
    #[arg(long)]
    to: Option<DateTime<Utc>>,
}

impl From<Filter> for Selection {
    fn from(filter: Filter) -> Self {
        Selection {
            ids: filter.ids,
            event_type: filter.event_type,
            aggregate_id: filter.aggregate,
            created_from: filter.from,
            created_to: filter.to,
        }
    }
}

pub async fn run(settings: &Settings, command: OutboxCommand) -> anyhow::Result<()> {
    let pool = edihub_db::pool(&settings.database)?;
    match command {
        OutboxCommand::Failed { filter, limit } => {
            let rows = admin::list(&pool, "FAILED", &filter.into(), limit).await?;
            for row in &rows {
                println!("{}", serde_json::to_string(row)?);
            }
            eprintln!("{} FAILED row(s)", rows.len());
        }
        OutboxCommand::Requeue { filter, dry_run } => report(
            "requeue",
            admin::reset_to_pending(&pool, "FAILED", &filter.into(), dry_run).await,
            dry_run,
        )?,
        OutboxCommand::Purge {
            older_than_days,
            chunk,
            max_rate,
            dry_run,
        } => {
            let store = edihub_archive::ArchiveStore::new(&settings.s3);
            let progress = Progress::counting("rows");
            let options = PurgeOptions {
                cutoff: cutoff(older_than_days),
                chunk_size: chunk,
                dry_run,
                max_rows_per_second: max_rate,
            };
            let report =
                edihub_outbox::purge::purge_sent(&pool, &store, options, &|done, total| {
                    progress.update(done, total)
                })
                .await;
            progress.finish();
            let report = report?;
            if dry_run {
                eprintln!(
                    "outbox purge: {} row(s) would be exported and deleted",
                    report.rows_exported
                );
            } else {
                eprintln!(
                    "outbox purge: {} chunk(s), {} row(s) exported to s3://{}/outbox-export/, {} deleted",
                    report.chunks,
                    report.rows_exported,
                    store.bucket(),
                    report.rows_deleted
                );
            }
        }
        OutboxCommand::Replay { filter, dry_run } => report(
            "replay",
            admin::reset_to_pending(&pool, "SENT", &filter.into(), dry_run).await,
            dry_run,
        )?,
    }
    Ok(())
}

fn report(
    action: &str,
    result: Result<Vec<Uuid>, admin::AdminError>,
    dry_run: bool,
) -> anyhow::Result<()> {
    let ids = result.with_context(|| format!("{action} failed"))?;
    for id in &ids {
        println!("{id}");
    }
    let verb = if dry_run {
        "would be reset"
    } else {
        "reset to PENDING"
    };
    eprintln!("{action}: {} row(s) {verb}", ids.len());
    Ok(())
}
