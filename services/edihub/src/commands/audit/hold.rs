//! `edihub audit hold --on|--off`: an S3 legal hold set on, or lifted from, every object
//! version of the selected messages (`edihub_archive::hold`), recorded in the access log.

use super::access::{auditor, log_access};
use super::inputs::parse_bound;
use super::progress::Progress;
use crate::Settings;
use anyhow::bail;
use edihub_archive::ArchiveStore;
use edihub_archive::access::commands;
use edihub_archive::hold::{self, HoldReport, Selector};

#[derive(Debug, clap::Args)]
#[command(group(clap::ArgGroup::new("status").required(true).args(["on", "off"])))]
pub struct HoldArgs {
    /// Set the legal hold.
    #[arg(long)]
    pub on: bool,
    /// Lift the legal hold.
    #[arg(long)]
    pub off: bool,
    /// One message: the hub's id or the partner's AS2 Message-ID.
    #[arg(long)]
    pub message: Option<String>,
    /// Every message of this partner (AS2 name), or those of the period with --from/--to.
    #[arg(long)]
    pub partner: Option<String>,
    /// Messages received from this day (`YYYY-MM-DD`, UTC) or instant (RFC 3339).
    #[arg(long)]
    pub from: Option<String>,
    /// Messages received up to this day, included, or before this instant.
    #[arg(long)]
    pub to: Option<String>,
    #[arg(long)]
    pub json: bool,
    /// Who sets or lifts the hold, for the access log (default: $EDIHUB_AUDITOR, else the
    /// OS user).
    #[arg(long)]
    pub auditor: Option<String>,
}

pub async fn audit_hold(settings: &Settings, args: HoldArgs) -> anyhow::Result<()> {
    let selector = Selector::new(
        args.message.clone(),
        args.partner.clone(),
        args.from
            .as_deref()
            .map(|t| parse_bound(t, false))
            .transpose()?,
        args.to
            .as_deref()
            .map(|t| parse_bound(t, true))
            .transpose()?,
    )?;
    let on = args.on;
    let pool = edihub_db::pool(&settings.database)?;
    let store = ArchiveStore::new(&settings.s3);
    // Recorded before S3 is touched: a hold change that dies midway is still in the log.
    let access = log_access(
        &pool,
        &auditor(args.auditor),
        commands::HOLD,
        serde_json::json!({
            "status": if on { "ON" } else { "OFF" }, "message": args.message,
            "partner": args.partner, "from": args.from, "to": args.to,
        }),
    )
    .await?;
    let messages = match hold::select(&pool, &selector).await {
        Ok(messages) => messages,
        Err(error) => {
            let error = anyhow::Error::from(error);
            access.failed(&[], &error).await?;
            return Err(error);
        }
    };
    let progress = Progress::on_terminal();
    let report = hold::apply(&pool, &store, &messages, on, &|done, total| {
        progress.update(done, total)
    })
    .await;
    progress.finish();
    let report = match report {
        Ok(report) => report,
        Err(error) => {
            let error = anyhow::Error::from(error);
            access.failed(&messages, &error).await?;
            return Err(error);
        }
    };
    let result = serde_json::json!({
        "status": report.status, "objects": report.objects.len(), "failures": report.failures,
    });
    if report.passed() {
        access.ok(&messages, Some(result)).await?;
    } else {
        let error = anyhow::anyhow!("{} object(s) refused", report.failures.len());
        access.failed(&messages, &error).await?;
    }
    if args.json {
        println!("{}", serde_json::to_string_pretty(&report)?);
    } else {
        print_report(&report);
    }
    if !report.passed() {
        bail!(
            "the legal hold of {} object(s) was not changed:\n  {}",
            report.failures.len(),
            report.failures.join("\n  ")
        );
    }
    Ok(())
}

fn print_report(report: &HoldReport) {
    println!(
        "legal hold {}: {} object(s) of {} message(s)",
        report.status,
        report.objects.len(),
        report.messages.len()
    );
    for message in &report.messages {
        let objects = report
            .objects
            .iter()
            .filter(|o| o.message_id == *message)
            .count();
        println!("  {message}  {objects} object(s)");
    }
    for failure in &report.failures {
        println!("  FAILED {failure}");
    }
}
