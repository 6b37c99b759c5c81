//! `edihub audit seal`: seal the stored entries that wait, now, with the `[archive]`
//! sealing key (the archive consumers do it on their own schedule).

use super::inputs::sealing_identity;
use crate::Settings;
use anyhow::Context;
use chrono::Utc;
use edihub_archive::ArchiveStore;
use edihub_ledger::{SealPolicy, Sealer};
use std::time::Duration;

pub async fn audit_seal(settings: &Settings, json: bool) -> anyhow::Result<()> {
    let archive = &settings.archive;
    let identity = sealing_identity(settings)?;
    let timestamp_url = archive
        .timestamp_url
        .as_deref()
        .map(url::Url::parse)
        .transpose()
        .context("[archive] timestamp_url")?;
    let policy = SealPolicy {
        max_entries: archive.seal_max_entries,
        max_wait: Duration::from_secs(archive.seal_interval_seconds),
        timestamp_url,
    };
    let pool = edihub_db::pool(&settings.database)?;
    let sealer = Sealer::new(pool, ArchiveStore::new(&settings.s3), identity, policy);
    let sealed = sealer.seal_now(Utc::now()).await?;
    match (sealed, json) {
        (Some(segment), true) => println!(
            "{}",
            serde_json::json!({
                "first_seq": segment.first_seq,
                "last_seq": segment.last_seq,
                "head": hex(&segment.head),
                "prefix": segment.prefix,
                "timestamped": segment.timestamped,
            })
        ),
        (Some(segment), false) => println!(
            "sealed seq {}-{} under {} (head {}{})",
            segment.first_seq,
            segment.last_seq,
            segment.prefix,
            hex(&segment.head),
            if segment.timestamped {
                ", timestamped"
            } else {
                ""
            }
        ),
        (None, true) => println!("null"),
        (None, false) => println!("nothing to seal"),
    }
    Ok(())
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}
