//! The relay's database sessions: connections it keeps from one batch to the next and
//! drives with lists of statements in one simple-protocol message, so that claiming a
//! batch is one round trip, and marking it and committing is one more (with the claim of
//! the next batch in the same message when there is one to make).
//!
//! Why not sqlx's `Transaction` over the pool: BEGIN, the claim, the marks and COMMIT
//! are a round trip each, and a pooled connection is pinged when it goes back to the
//! pool. At a steady rate the relay's cost is per batch, and those round trips were
//! most of it (docs/benchmarks.md, "the relay's round trips").

use sqlx::pool::PoolConnection;
use sqlx::postgres::PgRow;
use sqlx::{AssertSqlSafe, PgConnection, PgPool, Postgres};
use std::sync::{Mutex, PoisonError};

/// The connections a relay keeps between batches. A drain uses two at most: it claims
/// the next batch while it finishes the current one.
pub(super) struct Sessions {
    pool: PgPool,
    idle: Mutex<Vec<Session>>,
}

impl Sessions {
    pub(super) fn new(pool: PgPool) -> Self {
        Self {
            pool,
            idle: Mutex::new(Vec::new()),
        }
    }

    /// A kept connection if there is one, else one from the pool. A kept one is not
    /// pinged first: a claim that finds it lost is made again on a fresh one
    /// (`Relay::claim`), which costs a round trip only when it is needed.
    pub(super) async fn take(&self) -> Result<Session, sqlx::Error> {
        let kept = self
            .idle
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .pop();
        match kept {
            Some(session) => Ok(session),
            None => self.fresh().await,
        }
    }

    /// A connection from the pool.
    pub(super) async fn fresh(&self) -> Result<Session, sqlx::Error> {
        Ok(Session {
            conn: self.pool.acquire().await?,
            open: false,
            kept: false,
        })
    }

    /// Keeps a session's connection for the next batch, if no transaction is open on it.
    pub(super) fn keep(&self, mut session: Session) {
        session.kept = true;
        if !session.open {
            self.idle
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .push(session);
        }
    }

    /// Hands the kept connections back to the pool (a relay that stopped).
    pub(super) fn release(&self) {
        let kept = std::mem::take(&mut *self.idle.lock().unwrap_or_else(PoisonError::into_inner));
        drop(kept);
    }
}

/// A connection and whether a transaction may be open on it. Dropped while one may be
/// open (after an error, say), the connection is closed rather than pooled: the server
/// then rolls the transaction back and releases the claimed rows.
pub(super) struct Session {
    conn: PoolConnection<Postgres>,
    open: bool,
    /// Kept from an earlier batch: its connection may have been lost since.
    pub(super) kept: bool,
}

impl Session {
    /// Runs `statements` (one simple-protocol message) and returns the rows they
    /// produced. `open_after` says whether the list leaves a transaction open. Should
    /// any statement fail, the state is unknown, so the session counts as open.
    pub(super) async fn run(
        &mut self,
        statements: String,
        open_after: bool,
    ) -> Result<Vec<PgRow>, sqlx::Error> {
        self.open = true;
        let rows = sqlx::raw_sql(AssertSqlSafe(statements))
            .fetch_all(&mut *self.conn)
            .await?;
        self.open = open_after;
        Ok(rows)
    }

    /// The connection, for statements with parameters inside the open transaction.
    pub(super) fn conn(&mut self) -> &mut PgConnection {
        &mut self.conn
    }
}

impl Drop for Session {
    fn drop(&mut self) {
        if self.open {
            self.conn.close_on_drop();
        }
    }
}
