//! The NOTIFYs that announce a relay's rows: the `outbox_notify` trigger sends one per
//! statement that commits rows of the relay's channel, with their count as payload.
//! The relay can stop hearing them for a while ([`Announcements::pause`]): each one
//! wakes its thread, and while it sits out the rest of a linger it has no use for them.

use futures::FutureExt;
use sqlx::PgPool;
use sqlx::postgres::PgListener;

pub(super) struct Announcements {
    listener: PgListener,
    channel: String,
    /// Whether an UNLISTEN took effect, so a LISTEN is owed before the next claim.
    paused: bool,
}

impl Announcements {
    /// Listens on `channel` (one connection of `pool`, kept apart).
    pub(super) async fn connect(pool: &PgPool, channel: String) -> Result<Self, sqlx::Error> {
        let mut listener = PgListener::connect_with(pool).await?;
        listener.listen(&channel).await?;
        Ok(Self {
            listener,
            channel,
            paused: false,
        })
    }

    /// Waits for a NOTIFY and returns the rows it announced. A listener error
    /// (connection lost) returns at once, as one row: PgListener reconnects on the next
    /// `recv`, and the polling interval keeps the relay moving meanwhile.
    pub(super) async fn next(&mut self) -> u64 {
        match self.listener.recv().await {
            Ok(notification) => announced_rows(notification.payload()),
            Err(_) => 1,
        }
    }

    /// The rows announced by the NOTIFYs that have already arrived, read without waiting
    /// for more. A lost connection ends the reading: the next [`Announcements::next`]
    /// reconnects.
    pub(super) fn arrived(&mut self) -> u64 {
        let mut rows = 0;
        while let Some(Ok(Some(notification))) = self.listener.try_recv().now_or_never() {
            rows += announced_rows(notification.payload());
        }
        rows
    }

    /// Stops hearing NOTIFYs until [`Announcements::resume`]. If the UNLISTEN fails, the
    /// relay simply goes on hearing them: sqlx still counts the channel as listened, and
    /// listens again on the connection it reconnects.
    pub(super) async fn pause(&mut self) {
        match self.listener.unlisten(&self.channel).await {
            Ok(()) => self.paused = true,
            Err(error) => {
                tracing::warn!(%error, "UNLISTEN failed; the relay goes on hearing NOTIFYs")
            }
        }
    }

    /// Hears NOTIFYs again, and drops those already arrived: the claim that follows sees
    /// every row they announced. Must come before that claim, so that rows committed
    /// after it announce themselves. `listen_all` records the channel before it sends the
    /// LISTEN, so a LISTEN lost with its connection is sent again when sqlx reconnects;
    /// until then the polling interval keeps the relay moving.
    pub(super) async fn resume(&mut self) {
        if std::mem::take(&mut self.paused)
            && let Err(error) = self.listener.listen_all([self.channel.as_str()]).await
        {
            tracing::warn!(%error, "LISTEN failed; the relay listens again when it reconnects");
        }
        self.arrived();
    }
}

/// The rows a NOTIFY announces: its payload is their count. One that is not a count
/// counts as one row.
fn announced_rows(payload: &str) -> u64 {
    payload.parse().unwrap_or(1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_payload_is_the_rows_committed() {
        assert_eq!(announced_rows("12"), 12);
        assert_eq!(announced_rows(""), 1);
        assert_eq!(announced_rows("kafka 3"), 1);
    }
}
