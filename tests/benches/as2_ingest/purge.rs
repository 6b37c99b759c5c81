//! The gateway beside `outbox purge`: plain-HTTP ingest rounds alone, with a purge of
//! old SENT rows flat out, and with one paced to 6,000 rows/s (`--max-rate`), started at
//! the same time, in turn. Every round has the same old rows, purged or not, so that
//! only the purge differs.

use crate::{Run, Sender};
use edihub_as2::SecureMessage;
use edihub_tests::TestApp;
use edihub_tests::outbox_load::{Beside, fill_old_sent, purge_old_sent};

/// Old rows per round: a flat-out purge of them takes about as long as a round.
const OLD_ROWS: usize = 100_000;

/// The paced purge's rate: about twice the events the whole path writes for a gateway
/// at 1,000 messages/s (three per message).
const PACED: u32 = 6_000;

/// Runs `messages` in six rounds (alone, with a purge, with a paced purge, twice) and
/// prints each round's rate and latencies, and the purge's rate beside it.
pub async fn ingest_beside_purge(
    app: &TestApp,
    sender: &Sender<'_>,
    messages: Vec<(String, SecureMessage)>,
) {
    println!();
    println!("gateway beside an outbox purge ({OLD_ROWS} old SENT rows per round, plain HTTP):");
    let chunk = messages.len().div_ceil(6).max(1);
    let mut left = messages.into_iter();
    for (round, beside) in Beside::rounds(PACED).into_iter().enumerate() {
        sqlx::query("DELETE FROM outbox WHERE status = 'SENT'")
            .execute(&app.pool)
            .await
            .expect("clear old rows");
        sqlx::query("VACUUM ANALYZE outbox")
            .execute(&app.pool)
            .await
            .expect("vacuum the outbox");
        fill_old_sent(&app.pool, "edi.bench.old", OLD_ROWS).await;
        let batch: Vec<_> = left.by_ref().take(chunk).collect();
        let mut run = Run::default();
        let purged = if let Some(max_rate) = beside.purge() {
            let (sent, purged) = tokio::join!(sender.send(app, batch), purge(app, max_rate));
            run.add(sent);
            Some(purged)
        } else {
            run.add(sender.send(app, batch).await);
            None
        };
        let label = format!("round {}, {}", round + 1, beside.label());
        run.print(
            &label,
            &purged.map_or("no purge".to_owned(), |rate| {
                format!("purge {rate:.0} rows/s")
            }),
        );
    }
}

/// One purge of the old rows, at most `max_rate` rows/s; its rate in rows/s.
async fn purge(app: &TestApp, max_rate: Option<u32>) -> f64 {
    OLD_ROWS as f64 / purge_old_sent(app, OLD_ROWS, max_rate).await.as_secs_f64()
}
