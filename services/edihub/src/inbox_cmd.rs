//! `edihub inbox purge`: inbox housekeeping.

use crate::Settings;
use crate::outbox_cmd::cutoff;
use clap::Subcommand;

#[derive(Subcommand)]
pub enum InboxCommand {
    /// Delete inbox rows older than N days, in bounded batches. Choose N larger than
    /// the longest time an event can be redelivered (Kafka retention, replays).
    Purge {
        #[arg(long)]
        older_than_days: u32,
        #[arg(long, default_value_t = 1000)]
        batch: i64,
    },
}

pub async fn run(settings: &Settings, command: InboxCommand) -> anyhow::Result<()> {
    let pool = edihub_db::pool(&settings.database)?;
    match command {
        InboxCommand::Purge {
            older_than_days,
            batch,
        } => {
            let deleted = edihub_inbox::purge(&pool, cutoff(older_than_days), batch).await?;
            eprintln!("inbox purge: {deleted} row(s) deleted");
        }
    }
    Ok(())
}
