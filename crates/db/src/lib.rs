//! The database connection and the schema migrations (`migrations/` at the repo root,
//! embedded into every binary at compile time).

use edihub_config::DatabaseSettings;
use sqlx::postgres::{PgConnectOptions, PgPoolOptions};
use sqlx::{ConnectOptions, Connection, PgPool};
use std::str::FromStr;
use std::time::Duration;

pub use sqlx::migrate::Migrator;

/// The schema, embedded so a binary can migrate without the source tree.
pub static MIGRATOR: Migrator = sqlx::migrate!("../../migrations");

/// A pool on the configured database. Connections are opened lazily, so a service can
/// start (and report itself unready) while the database is down.
///
/// Unless the URL names one, the connections carry the program's name as their
/// `application_name`, so `pg_stat_activity` tells which service a backend serves.
pub fn pool(settings: &DatabaseSettings) -> Result<PgPool, sqlx::Error> {
    let mut options = PgConnectOptions::from_str(settings.url.expose())?;
    if options.get_application_name().is_none()
        && let Some(program) = program_name()
    {
        options = options.application_name(&program);
    }
    Ok(PgPoolOptions::new()
        .max_connections(settings.max_connections)
        .acquire_timeout(Duration::from_secs(5))
        // sqlx pings every idle connection it hands out: a round trip per transaction.
        // Only a connection that sat idle is pinged here. One in use within the last
        // second that a server restart took away fails its next statement, as the
        // statements in flight at the restart do anyway.
        .test_before_acquire(false)
        .before_acquire(|conn, meta| {
            Box::pin(async move {
                if meta.idle_for >= PING_AFTER_IDLE {
                    conn.ping().await?;
                }
                Ok(true)
            })
        })
        .connect_lazy_with(options))
}

/// A pooled connection idle at least this long is pinged before it is handed out.
const PING_AFTER_IDLE: Duration = Duration::from_secs(1);

/// The running executable's file name (`as2-gateway`, `edihub`, ...).
fn program_name() -> Option<String> {
    let path = std::path::PathBuf::from(std::env::args_os().next()?);
    Some(path.file_stem()?.to_string_lossy().into_owned())
}

/// Creates the database named in the URL if it does not exist (connecting to the
/// `postgres` maintenance database to do so), then applies the migrations.
pub async fn create_and_migrate(settings: &DatabaseSettings) -> Result<(), sqlx::Error> {
    let options = PgConnectOptions::from_str(settings.url.expose())?;
    let name = options.get_database().unwrap_or("edihub").to_owned();
    let mut admin = options.clone().database("postgres").connect().await?;
    let exists: bool =
        sqlx::query_scalar("SELECT EXISTS (SELECT 1 FROM pg_database WHERE datname = $1)")
            .bind(&name)
            .fetch_one(&mut admin)
            .await?;
    if !exists {
        // Identifiers cannot be bound as parameters; quote it ourselves.
        let quoted = format!("\"{}\"", name.replace('"', "\"\""));
        if let Err(err) = sqlx::query(sqlx::AssertSqlSafe(format!("CREATE DATABASE {quoted}")))
            .execute(&mut admin)
            .await
        {
            // Another process may have created it between the check and here.
            let raced = err
                .as_database_error()
                .and_then(|e| e.code())
                .is_some_and(|code| code == "42P04");
            if !raced {
                return Err(err);
            }
        }
        tracing::info!(database = %name, "created database");
    }
    admin.close().await?;
    let mut conn = options.connect().await?;
    MIGRATOR.run(&mut conn).await?;
    conn.close().await?;
    Ok(())
}

/// Whether the database answers a trivial query (readiness probes).
pub async fn is_reachable(pool: &PgPool) -> bool {
    sqlx::query("SELECT 1").execute(pool).await.is_ok()
}
