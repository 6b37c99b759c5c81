//! `edihub audit fetch`: an archived original, fetched back and checked; the access is
//! logged before anything is shown.

use super::access::{auditor, logged};
use crate::Settings;
use crate::commands::message::resolve;
use anyhow::{Context, bail};
use edihub_archive::access::commands;
use edihub_archive::{ArchiveStore, AuditReport};
use std::path::PathBuf;

pub async fn audit_fetch(
    settings: &Settings,
    id: &str,
    output: Option<PathBuf>,
    auditor_name: Option<String>,
) -> anyhow::Result<()> {
    let pool = edihub_db::pool(&settings.database)?;
    let store = ArchiveStore::new(&settings.s3);
    let report = logged(
        &pool,
        &auditor(auditor_name),
        commands::FETCH,
        serde_json::json!({ "id": id, "output": output.as_ref().map(|p| p.display().to_string()) }),
        async {
            let message_id = resolve(&pool, id).await?;
            Ok(edihub_archive::audit(&pool, &store, message_id).await?)
        },
        |report: &AuditReport| vec![report.record.message_id],
    )
    .await?;
    let message_id = report.record.message_id;
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
