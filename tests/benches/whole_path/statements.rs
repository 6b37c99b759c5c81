//! Where PostgreSQL's time went, statement by statement: `pg_stat_statements` of the
//! bench's database over one phase, per message. Only when the server preloads the
//! extension (`shared_preload_libraries = 'pg_stat_statements'`); otherwise the bench
//! says so and goes on.

use sqlx::PgPool;

/// One statement's totals over a phase.
pub struct Statement {
    pub calls: i64,
    pub exec_ms: f64,
    pub plan_ms: f64,
    pub rows: i64,
    pub query: String,
}

/// Makes the view available in the bench's database; `false` when the server does
/// not load the extension.
pub async fn enable(pool: &PgPool) -> bool {
    let loaded: String = sqlx::query_scalar("SELECT current_setting('shared_preload_libraries')")
        .fetch_one(pool)
        .await
        .unwrap_or_default();
    if !loaded.contains("pg_stat_statements") {
        return false;
    }
    sqlx::query("CREATE EXTENSION IF NOT EXISTS pg_stat_statements")
        .execute(pool)
        .await
        .is_ok()
}

/// Forgets this database's statistics, at the start of a phase.
pub async fn reset(pool: &PgPool) {
    let reset = "SELECT pg_stat_statements_reset(0, \
                 (SELECT oid FROM pg_database WHERE datname = current_database()), 0)";
    if let Err(error) = sqlx::query(reset).execute(pool).await {
        eprintln!("whole_path: pg_stat_statements_reset: {error}");
    }
}

/// This database's statements since the last [`reset`], the costliest first.
pub async fn read(pool: &PgPool) -> Vec<Statement> {
    let rows: Vec<(i64, f64, f64, i64, String)> = sqlx::query_as(
        "SELECT s.calls, s.total_exec_time, s.total_plan_time, s.rows, s.query
           FROM pg_stat_statements s
           JOIN pg_database d ON d.oid = s.dbid
          WHERE d.datname = current_database()
          ORDER BY s.total_exec_time + s.total_plan_time DESC",
    )
    .fetch_all(pool)
    .await
    .unwrap_or_else(|error| {
        eprintln!("whole_path: reading pg_stat_statements: {error}");
        Vec::new()
    });
    rows.into_iter()
        .map(|(calls, exec_ms, plan_ms, rows, query)| Statement {
            calls,
            exec_ms,
            plan_ms,
            rows,
            query,
        })
        .collect()
}

/// The `limit` costliest statements of a phase, per message: calls, time in the
/// executor and the planner, rows; and what all of them took together.
pub fn print(name: &str, statements: &[Statement], messages: usize, limit: usize) {
    let per = |x: f64| x / messages.max(1) as f64;
    let total: f64 = statements.iter().map(|s| s.exec_ms + s.plan_ms).sum();
    let calls: i64 = statements.iter().map(|s| s.calls).sum();
    println!(
        "PostgreSQL statements, {name}: {:.1} calls and {:.3} ms (executor + planner) per message, the costliest:",
        per(calls as f64),
        per(total)
    );
    println!("  calls/msg  exec ms/msg  plan ms/msg  rows/call  statement");
    for statement in statements.iter().take(limit) {
        println!(
            "  {:>9.2}  {:>11.3}  {:>11.3}  {:>9.1}  {}",
            per(statement.calls as f64),
            per(statement.exec_ms),
            per(statement.plan_ms),
            statement.rows as f64 / statement.calls.max(1) as f64,
            one_line(&statement.query, 110)
        );
    }
}

/// The statement on one line, cut to `width` characters.
fn one_line(query: &str, width: usize) -> String {
    let flat = query.split_whitespace().collect::<Vec<_>>().join(" ");
    match flat.char_indices().nth(width) {
        Some((at, _)) => format!("{}...", &flat[..at]),
        None => flat,
    }
}
