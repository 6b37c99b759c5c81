//! Appending to the chain, and marking an entry's objects stored.

use crate::{Appended, EntryFacts, LedgerError, Position};
use sqlx::{PgConnection, PgPool};
use uuid::Uuid;

/// Appends `message_id`'s entry in a short transaction of its own, under the ledger's
/// advisory lock: the position is the head's plus one. `build` gets the position and
/// returns the facts (evidence.json, which records the position, is among the objects).
///
/// When the message has an entry already (an earlier attempt appended it and did not
/// commit the archive), `build` gets that entry's position and `chained_at`, and the
/// rebuilt canonical bytes must equal the stored ones, else [`LedgerError::EntryMismatch`].
pub async fn append<F>(pool: &PgPool, message_id: Uuid, build: F) -> Result<Appended, LedgerError>
where
    F: FnOnce(Position) -> EntryFacts,
{
    let _ = (pool, message_id, build);
    unimplemented!("interface stub: the ledger helper writes this")
}

/// Records, in the archive's transaction, that every object of `message_id`'s entry is
/// in S3: from now on the entry may be sealed.
pub async fn mark_stored(conn: &mut PgConnection, message_id: Uuid) -> Result<(), LedgerError> {
    let _ = (conn, message_id);
    unimplemented!("interface stub: the ledger helper writes this")
}
