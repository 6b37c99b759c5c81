//! `edihub audit show ID`: one message's evidence and every check on it, and whether its
//! objects are under legal hold; the access is logged before anything is shown.

use super::access::{auditor, logged};
use super::inputs::hub_certificates;
use super::render::print_message;
use crate::Settings;
use crate::commands::message::resolve;
use anyhow::bail;
use edihub_archive::ArchiveStore;
use edihub_archive::access::commands;
use edihub_archive::verify::{CheckContext, MessageCheck, check_message};

/// Exits non-zero (an error) when any check failed, after printing them all.
pub async fn audit_show(
    settings: &Settings,
    id: &str,
    json: bool,
    auditor_name: Option<String>,
) -> anyhow::Result<()> {
    let pool = edihub_db::pool(&settings.database)?;
    let store = ArchiveStore::new(&settings.s3);
    let check = logged(
        &pool,
        &auditor(auditor_name),
        commands::SHOW,
        serde_json::json!({ "id": id }),
        async {
            let message_id = resolve(&pool, id).await?;
            let context = CheckContext {
                hub_certificates: hub_certificates(settings, &pool).await?,
            };
            Ok(check_message(&pool, &store, &context, message_id).await?)
        },
        |check: &MessageCheck| vec![check.message_id],
    )
    .await?;
    let message_id = check.message_id;
    let holds = legal_holds(&store, &check).await;
    if json {
        let mut value = serde_json::to_value(&check)?;
        if let Some(object) = value.as_object_mut() {
            object.insert("legal_holds".into(), serde_json::to_value(&holds)?);
        }
        println!("{}", serde_json::to_string_pretty(&value)?);
    } else {
        print_message(&check);
        print_holds(&holds);
    }
    let failed = check.failures().count();
    if failed > 0 {
        bail!("{failed} check(s) FAILED for message {message_id}");
    }
    Ok(())
}

/// One object's legal hold as S3 reports it now.
#[derive(Debug, serde::Serialize)]
struct Hold {
    kind: String,
    key: String,
    version_id: Option<String>,
    /// `None` when S3 could not say.
    held: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    error: Option<String>,
}

/// GetObjectLegalHold for each object: a few requests, and an answer an auditor needs
/// before relying on an object outliving its retention.
async fn legal_holds(store: &ArchiveStore, check: &MessageCheck) -> Vec<Hold> {
    let mut holds = Vec::new();
    for object in &check.objects {
        let answer = store
            .legal_hold(&object.key, object.version_id.as_deref())
            .await;
        holds.push(Hold {
            kind: object.kind.clone(),
            key: object.key.clone(),
            version_id: object.version_id.clone(),
            held: answer.as_ref().ok().copied(),
            error: answer.err().map(|e| e.to_string()),
        });
    }
    holds
}

fn print_holds(holds: &[Hold]) {
    let held: Vec<&Hold> = holds.iter().filter(|h| h.held == Some(true)).collect();
    let unknown: Vec<&Hold> = holds.iter().filter(|h| h.held.is_none()).collect();
    match held.len() {
        0 => println!("legal hold:      none"),
        n if n == holds.len() => println!("legal hold:      ON for all {n} objects"),
        n => {
            println!("legal hold:      ON for {n} of {} objects:", holds.len());
            for hold in held {
                println!("  {}", hold.kind);
            }
        }
    }
    for hold in unknown {
        println!(
            "  legal hold of {} unknown: {}",
            hold.kind,
            hold.error.as_deref().unwrap_or("-")
        );
    }
}
