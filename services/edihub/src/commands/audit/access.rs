//! The access log from the CLI's side: who the auditor is, recording each access before
//! its data is shown, and `edihub audit access`, which lists the log.

use super::inputs::parse_bound;
use crate::Settings;
use anyhow::Context;
use edihub_archive::access::{self, Access, AccessFilter, AccessId, AccessRecord, Outcome};
use sqlx::PgPool;
use std::future::Future;
use uuid::Uuid;

/// The auditor's name: `--auditor` (or `EDIHUB_AUDITOR`, which clap reads into it), else
/// the environment's `EDIHUB_AUDITOR`, else the OS user (`$USER`, `$LOGNAME`), else
/// "unknown".
pub fn auditor(arg: Option<String>) -> String {
    let given =
        |value: Option<String>| value.map(|v| v.trim().to_owned()).filter(|v| !v.is_empty());
    given(arg)
        .or_else(|| given(std::env::var("EDIHUB_AUDITOR").ok()))
        .or_else(|| given(std::env::var("USER").ok()))
        .or_else(|| given(std::env::var("LOGNAME").ok()))
        .unwrap_or_else(|| "unknown".to_owned())
}

/// An access recorded as started, to be finished with its outcome.
pub struct LoggedAccess<'a> {
    pool: &'a PgPool,
    id: AccessId,
}

/// Records that `auditor` starts `command` with `arguments`. Call it before reading any
/// data: a failure to record stops the command.
pub async fn log_access<'a>(
    pool: &'a PgPool,
    auditor: &str,
    command: &str,
    arguments: serde_json::Value,
) -> anyhow::Result<LoggedAccess<'a>> {
    let id = access::record(pool, &AccessRecord::started(auditor, command, arguments))
        .await
        .context("recording the access (nothing was read)")?;
    Ok(LoggedAccess { pool, id })
}

impl LoggedAccess<'_> {
    /// The access succeeded with these messages.
    pub async fn ok(
        self,
        message_ids: &[Uuid],
        result: Option<serde_json::Value>,
    ) -> anyhow::Result<()> {
        access::finish(self.pool, self.id, Outcome::Ok, message_ids, result)
            .await
            .context("recording the access's outcome")
    }

    /// The access failed (after having touched these messages, if any).
    pub async fn failed(self, message_ids: &[Uuid], error: &anyhow::Error) -> anyhow::Result<()> {
        let result = serde_json::json!({ "error": format!("{error:#}") });
        access::finish(
            self.pool,
            self.id,
            Outcome::Failed,
            message_ids,
            Some(result),
        )
        .await
        .context("recording the access's failure")
    }
}

/// Runs `work` as one logged access: recorded as started first, then finished with the
/// messages `ids` names (or with the error), before the caller prints anything.
pub async fn logged<T>(
    pool: &PgPool,
    auditor: &str,
    command: &str,
    arguments: serde_json::Value,
    work: impl Future<Output = anyhow::Result<T>>,
    ids: impl Fn(&T) -> Vec<Uuid>,
) -> anyhow::Result<T> {
    let access = log_access(pool, auditor, command, arguments).await?;
    match work.await {
        Ok(value) => {
            access.ok(&ids(&value), None).await?;
            Ok(value)
        }
        Err(error) => {
            if let Err(logging) = access.failed(&[], &error).await {
                tracing::warn!(error = %format!("{logging:#}"), "access outcome not recorded");
            }
            Err(error)
        }
    }
}

#[derive(Debug, clap::Args)]
pub struct AccessArgs {
    /// Accesses from this day (`YYYY-MM-DD`, UTC) or instant (RFC 3339).
    #[arg(long)]
    pub from: Option<String>,
    /// Accesses up to this day, included, or instant.
    #[arg(long)]
    pub to: Option<String>,
    /// Only this auditor's accesses.
    #[arg(long)]
    pub auditor: Option<String>,
    /// Only this command's (fetch, show, search, export, hold).
    #[arg(long)]
    pub command: Option<String>,
    /// At most this many, the most recent.
    #[arg(long, default_value_t = 1000)]
    pub limit: i64,
    /// One JSON array.
    #[arg(long)]
    pub json: bool,
}

pub async fn audit_access(settings: &Settings, args: AccessArgs) -> anyhow::Result<()> {
    let filter = AccessFilter {
        from: args
            .from
            .as_deref()
            .map(|t| parse_bound(t, false))
            .transpose()?,
        to: args
            .to
            .as_deref()
            .map(|t| parse_bound(t, true))
            .transpose()?,
        auditor: args.auditor,
        command: args.command,
        limit: Some(args.limit.max(1)),
    };
    let pool = edihub_db::pool(&settings.database)?;
    let rows = access::list(&pool, &filter).await?;
    if args.json {
        println!("{}", serde_json::to_string_pretty(&rows)?);
    } else {
        print_accesses(&rows);
    }
    Ok(())
}

fn print_accesses(rows: &[Access]) {
    if rows.is_empty() {
        println!("no access recorded");
        return;
    }
    println!(
        "{:<25} {:<16} {:<7} {:<8} {:>8}  arguments",
        "at", "auditor", "command", "outcome", "messages"
    );
    for row in rows {
        let outcome = match row.outcome {
            Outcome::Started => "started",
            Outcome::Ok => "ok",
            Outcome::Failed => "FAILED",
        };
        println!(
            "{:<25} {:<16} {:<7} {:<8} {:>8}  {}",
            row.at.to_rfc3339_opts(chrono::SecondsFormat::Secs, true),
            row.auditor,
            row.command,
            outcome,
            row.messages
                .map(|m| m.to_string())
                .unwrap_or_else(|| "-".into()),
            row.arguments
        );
        if let Some(error) = row.result.as_ref().and_then(|r| r.get("error")) {
            println!("{:<25} {error}", "");
        }
    }
}

#[cfg(test)]
mod tests {
    use super::auditor;

    #[test]
    fn the_name_given_wins_trimmed_and_a_blank_one_does_not_count() {
        assert_eq!(auditor(Some("  J. Smith ".into())), "J. Smith");
        // A blank name falls through to the environment; whatever it holds, never blank.
        assert!(!auditor(Some("   ".into())).trim().is_empty());
    }
}
