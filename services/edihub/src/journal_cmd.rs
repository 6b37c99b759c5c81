//! `edihub journal purge`: the journal stops growing forever. Bytes leave PostgreSQL only
//! for messages whose evidence is archived and sealed; their claim checks then resolve
//! from the archive.

use crate::Settings;
use crate::commands::Progress;
use crate::outbox_cmd::cutoff;
use clap::Subcommand;

#[derive(Subcommand)]
pub enum JournalCommand {
    /// Remove the HTTP body, payload and signed entity of messages received more than N
    /// days ago whose evidence the archive stored and the ledger sealed. Their rows,
    /// digests and MDNs stay. Messages not sealed yet keep their bytes. Idempotent.
    Purge {
        #[arg(long)]
        older_than_days: u32,
        #[arg(long)]
        json: bool,
    },
}

pub async fn run(settings: &Settings, command: JournalCommand) -> anyhow::Result<()> {
    let pool = edihub_db::pool(&settings.database)?;
    match command {
        JournalCommand::Purge {
            older_than_days,
            json,
        } => {
            let progress = Progress::on_terminal();
            let report = edihub_archive::journal_purge::purge_sealed(
                &pool,
                cutoff(older_than_days),
                &|done, total| progress.update(done, total),
            )
            .await?;
            progress.finish();
            if json {
                println!("{}", serde_json::to_string_pretty(&report)?);
            } else {
                println!(
                    "journal purge: {} message(s) purged ({} bytes freed), {} kept until \
                     their evidence is sealed",
                    report.purged, report.bytes_freed, report.kept_unsealed
                );
            }
        }
    }
    Ok(())
}
