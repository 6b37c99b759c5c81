//! `edihub audit export`: a period's evidence, ledger segments and certificates written
//! to one tar bundle that an auditor checks offline (`edihub audit verify FILE`) or with
//! standard tools (its README.txt). Logged in the access log.

use super::access::{auditor, logged};
use super::inputs::{hub_certificates, parse_bound, sealing_identity};
use super::progress::Progress;
use crate::Settings;
use anyhow::{Context, bail};
use chrono::Utc;
use edihub_archive::ArchiveStore;
use edihub_archive::access::commands;
use edihub_archive::bundle::{ExportRequest, ExportSummary, export_bundle};
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};

#[derive(Debug, clap::Args)]
pub struct ExportArgs {
    /// First day (`YYYY-MM-DD`, UTC) or instant (RFC 3339) of the period.
    #[arg(long)]
    pub from: String,
    /// Last day, included (`YYYY-MM-DD`), or the instant the period ends (RFC 3339).
    #[arg(long)]
    pub to: String,
    /// Only this partner's messages (its AS2 name).
    #[arg(long)]
    pub partner: Option<String>,
    /// The bundle (a tar file) to write.
    #[arg(long)]
    pub output: PathBuf,
    /// Who exports, for the access log (default: $EDIHUB_AUDITOR, else the OS user).
    #[arg(long)]
    pub auditor: Option<String>,
    #[arg(long)]
    pub json: bool,
}

pub async fn audit_export(settings: &Settings, args: ExportArgs) -> anyhow::Result<()> {
    let from = parse_bound(&args.from, false)?;
    let to = parse_bound(&args.to, true)?;
    if to <= from {
        bail!("--to must be after --from");
    }
    // Before anything is read or logged: a bundle without its signed index is no export.
    let sealing = sealing_identity(settings).context(
        "the export signs index.json with the ledger's sealing key: set [archive] \
         seal_certificate and seal_private_key (and seal_key_passphrase for an encrypted key)",
    )?;
    let pool = edihub_db::pool(&settings.database)?;
    let store = ArchiveStore::new(&settings.s3);
    let hub = hub_certificates(settings, &pool)
        .await?
        .iter()
        .map(|c| c.to_der())
        .collect::<Result<Vec<_>, _>>()?;
    let request = ExportRequest {
        period: from..to,
        partner: args.partner.as_deref(),
        sealing: &sealing,
        hub_certificates: &hub,
        exported_at: Utc::now(),
    };
    let arguments = serde_json::json!({
        "from": args.from, "to": args.to, "partner": args.partner,
        "output": args.output.display().to_string(),
    });
    let summary = logged(
        &pool,
        &auditor(args.auditor.clone()),
        commands::EXPORT,
        arguments,
        write_bundle(&pool, &store, &request, &args.output),
        |summary: &ExportSummary| summary.message_ids.clone(),
    )
    .await?;
    print_summary(&summary, &args.output, args.json)?;
    if !summary.problems.is_empty() {
        bail!(
            "the bundle was written, but {} object(s) are not as recorded:\n  {}",
            summary.problems.len(),
            summary.problems.join("\n  ")
        );
    }
    Ok(())
}

/// Writes to `<output>.part` and renames it when complete, so that a failed export
/// leaves no file under the bundle's name.
async fn write_bundle(
    pool: &sqlx::PgPool,
    store: &ArchiveStore,
    request: &ExportRequest<'_>,
    output: &Path,
) -> anyhow::Result<ExportSummary> {
    let mut partial = output.as_os_str().to_owned();
    partial.push(".part");
    let partial = PathBuf::from(partial);
    let file = std::fs::File::create(&partial)
        .with_context(|| format!("creating {}", partial.display()))?;
    let progress = Progress::on_terminal();
    let written = export_bundle(
        pool,
        store,
        request,
        BufWriter::new(file),
        &|done, total| progress.update(done, total),
    )
    .await;
    progress.finish();
    let (summary, out) = written?;
    let file = out.into_inner().map_err(|e| e.into_error())?;
    file.sync_all()?;
    std::fs::rename(&partial, output)
        .with_context(|| format!("renaming {} to {}", partial.display(), output.display()))?;
    Ok(summary)
}

fn print_summary(summary: &ExportSummary, output: &Path, json: bool) -> anyhow::Result<()> {
    if json {
        println!("{}", serde_json::to_string_pretty(summary)?);
        return Ok(());
    }
    let mut out = std::io::stdout().lock();
    writeln!(out, "bundle:        {}", output.display())?;
    writeln!(out, "messages:      {}", summary.messages)?;
    writeln!(out, "objects:       {}", summary.objects)?;
    writeln!(
        out,
        "files:         {} ({} bytes)",
        summary.files, summary.bytes
    )?;
    writeln!(out, "segments:      {}", summary.segments)?;
    match &summary.last_segment {
        Some(s) => writeln!(
            out,
            "last segment:  {}-{}, head {}",
            s.first_seq, s.last_seq, s.head
        )?,
        None => writeln!(
            out,
            "last segment:  none (nothing sealed holds these messages)"
        )?,
    }
    for problem in &summary.problems {
        writeln!(out, "  PROBLEM: {problem}")?;
    }
    Ok(())
}
