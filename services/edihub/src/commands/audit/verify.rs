//! `edihub audit verify --from --to`: a period's messages and segments checked against
//! S3 and the database; `edihub audit verify FILE`: an exported bundle checked offline
//! (`offline.rs`).

use super::inputs::{certificate_der, hub_certificates, parse_bound};
use super::offline::verify_offline;
use super::progress::Progress;
use super::render::print_period;
use crate::Settings;
use anyhow::{Context, bail};
use edihub_archive::ArchiveStore;
use edihub_archive::verify::{Anchors, CheckContext, verify_period};
use std::path::PathBuf;

#[derive(Debug, clap::Args)]
pub struct VerifyArgs {
    /// A bundle made by `edihub audit export`, checked offline: no database, no S3.
    #[arg(conflicts_with_all = ["from", "to"], required_unless_present = "from")]
    pub file: Option<PathBuf>,
    /// First day (`YYYY-MM-DD`, UTC) or instant (RFC 3339) of the period.
    #[arg(long, requires = "to")]
    pub from: Option<String>,
    /// Last day, included (`YYYY-MM-DD`), or the instant the period ends (RFC 3339).
    #[arg(long, requires = "from")]
    pub to: Option<String>,
    /// The hub's sealing certificate (PEM), obtained from the operator: the trust anchor.
    /// Default online: `[archive] seal_certificate`; offline: the bundle's own, which the
    /// summary then says loudly.
    #[arg(long, visible_alias = "seal-certificate")]
    pub sealing_certificate: Option<PathBuf>,
    /// The timestamp authority's certificate (PEM), to verify segment timestamps; default
    /// online: `[archive] timestamp_certificate`.
    #[arg(long)]
    pub tsa_certificate: Option<PathBuf>,
    #[arg(long)]
    pub json: bool,
}

pub async fn audit_verify(settings: &Settings, args: VerifyArgs) -> anyhow::Result<()> {
    let (from, to) = match (&args.file, &args.from, &args.to) {
        (Some(file), _, _) => return verify_offline(file, &args),
        (None, Some(from), Some(to)) => (parse_bound(from, false)?, parse_bound(to, true)?),
        _ => bail!("give a bundle FILE, or --from and --to"),
    };
    if to <= from {
        bail!("--to must be after --from");
    }
    let sealing = args
        .sealing_certificate
        .clone()
        .or_else(|| settings.archive.seal_certificate.clone())
        .context(
            "no sealing certificate: pass --sealing-certificate or set [archive] seal_certificate",
        )?;
    let sealing = certificate_der(&sealing)?;
    let tsa = args
        .tsa_certificate
        .clone()
        .or_else(|| settings.archive.timestamp_certificate.clone())
        .map(|path| certificate_der(&path))
        .transpose()?;
    let pool = edihub_db::pool(&settings.database)?;
    let store = ArchiveStore::new(&settings.s3);
    let context = CheckContext {
        hub_certificates: hub_certificates(settings, &pool).await?,
    };
    let anchors = Anchors {
        sealing_certificate: &sealing,
        tsa_certificate: tsa.as_deref(),
    };
    let progress = Progress::on_terminal();
    let report = verify_period(
        &pool,
        &store,
        &context,
        from..to,
        anchors,
        &|done, total| progress.update(done, total),
    )
    .await;
    progress.finish();
    let report = report?;
    conclude(&report, &report.discrepancies, args.json, print_period)
}

/// Prints `report` (as JSON, or as `print` renders it) and fails naming every
/// discrepancy, so both verifications end alike.
pub(super) fn conclude<R: serde::Serialize>(
    report: &R,
    discrepancies: &[String],
    json: bool,
    print: impl FnOnce(&R),
) -> anyhow::Result<()> {
    if json {
        println!("{}", serde_json::to_string_pretty(report)?);
    } else {
        print(report);
    }
    if !discrepancies.is_empty() {
        bail!(
            "{} discrepancies:\n  {}",
            discrepancies.len(),
            discrepancies.join("\n  ")
        );
    }
    Ok(())
}
