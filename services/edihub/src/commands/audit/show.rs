//! `edihub audit show ID`: one message's evidence and every check on it.

use super::inputs::hub_certificates;
use super::render::print_message;
use crate::Settings;
use crate::commands::message::resolve;
use anyhow::bail;
use edihub_archive::ArchiveStore;
use edihub_archive::verify::{CheckContext, check_message};

/// Exits non-zero (an error) when any check failed, after printing them all.
pub async fn audit_show(settings: &Settings, id: &str, json: bool) -> anyhow::Result<()> {
    let pool = edihub_db::pool(&settings.database)?;
    let message_id = resolve(&pool, id).await?;
    let store = ArchiveStore::new(&settings.s3);
    let context = CheckContext {
        hub_certificates: hub_certificates(settings, &pool).await?,
    };
    let check = check_message(&pool, &store, &context, message_id).await?;
    if json {
        println!("{}", serde_json::to_string_pretty(&check)?);
    } else {
        print_message(&check);
    }
    let failed = check.failures().count();
    if failed > 0 {
        bail!("{failed} check(s) FAILED for message {message_id}");
    }
    Ok(())
}
