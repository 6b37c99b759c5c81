//! How long the relay waits after a NOTIFY before it claims. Each NOTIFY, on its
//! channel's own NOTIFY channel, says how many rows a statement committed ("3"), so
//! the relay knows how many rows have gathered: it waits `linger_ms` once enough for a
//! batch were announced (`linger_rows`), and up to `max_linger_ms` while fewer were.
//! A low, steady rate is then published in batches of many rows rather than a handful,
//! each at a batch's full cost, and a high rate waits no longer than before.
//!
//! While it lingers, the relay does not wake for each NOTIFY: it looks every
//! `linger_ms` at those that arrived meanwhile, reading them together. At a low rate
//! every commit sends one, and waking for each cost the relay more than its batches.

use super::Relay;
use edihub_config::RelaySettings;
use futures::FutureExt;
use sqlx::postgres::PgListener;
use std::time::Duration;
use tokio::time::Instant;

/// The rows a NOTIFY announces: its payload is their count. One that is not a count
/// counts as one row.
fn announced_rows(payload: &str) -> u64 {
    payload.parse().unwrap_or(1)
}

/// How long after the first NOTIFY to wait in all, given the rows announced so far:
/// none once a full batch waits, `linger_ms` once `linger_rows` do, else the longest.
fn linger_for(rows: u64, settings: &RelaySettings) -> Duration {
    let millis = if settings.linger_ms == 0 || rows >= settings.batch_size.max(1) as u64 {
        0
    } else if rows >= settings.linger_rows {
        settings.linger_ms
    } else {
        settings.max_linger_ms.max(settings.linger_ms)
    };
    Duration::from_millis(millis)
}

/// How long to sleep before the next look at the NOTIFYs, `elapsed` into a linger that
/// has heard of `rows`: `None` once the linger is over. Looks come every `linger_ms`, so
/// a linger ends at most `linger_ms` after enough rows were announced.
fn next_look(rows: u64, elapsed: Duration, settings: &RelaySettings) -> Option<Duration> {
    let left = linger_for(rows, settings).saturating_sub(elapsed);
    let step = Duration::from_millis(settings.linger_ms.max(1));
    (!left.is_zero()).then(|| left.min(step))
}

/// Whether the `followers` waiting behind a short batch, which become heads when it
/// commits, should wait for the next linger rather than be claimed at once: when there
/// is a linger, and they are too few to be worth a batch of their own. A message's
/// later events commit together, one transaction after its first, so at a low rate a
/// drain would otherwise publish each generation of them in a small batch of its own.
pub(super) fn defer_followers(followers: u64, settings: &RelaySettings) -> bool {
    settings.linger_ms > 0 && followers < settings.linger_rows
}

impl<P> Relay<P> {
    /// Lets more commits gather after a NOTIFY that announced `rows`: returns when
    /// [`linger_for`] the rows announced since then has passed, as seen at the looks
    /// [`next_look`] spaces.
    pub(super) async fn linger(&self, listener: &mut PgListener, mut rows: u64) {
        let started = Instant::now();
        while let Some(sleep) = next_look(rows, started.elapsed(), &self.settings) {
            tokio::time::sleep(sleep).await;
            rows += heard(listener);
        }
    }

    /// Waits for a NOTIFY (the listener hears this relay's channel only) and returns
    /// the rows it announced. A listener error (connection lost) returns at once, as
    /// one row: PgListener reconnects on the next `recv`, and the polling interval keeps
    /// the relay moving meanwhile.
    pub(super) async fn notified(&self, listener: &mut PgListener) -> u64 {
        match listener.recv().await {
            Ok(notification) => announced_rows(notification.payload()),
            Err(_) => 1,
        }
    }
}

/// The rows announced by the NOTIFYs that have already arrived, read without waiting
/// for more. A lost connection ends the reading: the next [`Relay::notified`]
/// reconnects, and what committed meanwhile is claimed by the drain after this linger.
fn heard(listener: &mut PgListener) -> u64 {
    let mut rows = 0;
    while let Some(Ok(Some(notification))) = listener.try_recv().now_or_never() {
        rows += announced_rows(notification.payload());
    }
    rows
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

    fn settings() -> RelaySettings {
        RelaySettings {
            batch_size: 500,
            linger_ms: 10,
            max_linger_ms: 50,
            linger_rows: 32,
            ..RelaySettings::default()
        }
    }

    #[test]
    fn few_rows_wait_longest_enough_rows_the_shortest_and_a_full_batch_not_at_all() {
        let ms = |rows| linger_for(rows, &settings()).as_millis();
        assert_eq!((ms(1), ms(31)), (50, 50));
        assert_eq!((ms(32), ms(499)), (10, 10));
        assert_eq!(ms(500), 0);
    }

    #[test]
    fn no_linger_means_none_whatever_the_rows() {
        let settings = RelaySettings {
            linger_ms: 0,
            ..settings()
        };
        assert_eq!(linger_for(1, &settings), Duration::ZERO);
    }

    #[test]
    fn few_followers_wait_for_the_next_linger_enough_are_claimed_at_once() {
        assert!(defer_followers(1, &settings()));
        assert!(defer_followers(31, &settings()));
        assert!(!defer_followers(32, &settings()));
        let no_linger = RelaySettings {
            linger_ms: 0,
            ..settings()
        };
        assert!(!defer_followers(1, &no_linger));
    }

    #[test]
    fn looks_come_every_linger_ms_until_the_linger_is_over() {
        let look = |rows, ms| next_look(rows, Duration::from_millis(ms), &settings());
        let ms = Duration::from_millis;
        assert_eq!(look(1, 0), Some(ms(10)));
        assert_eq!(look(1, 10), Some(ms(10)));
        assert_eq!(look(1, 45), Some(ms(5)));
        assert_eq!(look(1, 50), None);
        assert_eq!(look(32, 4), Some(ms(6)));
        assert_eq!(look(32, 10), None);
        assert_eq!(look(500, 0), None);
    }

    #[test]
    fn a_linger_of_zero_ms_has_no_look() {
        let settings = RelaySettings {
            linger_ms: 0,
            ..settings()
        };
        assert_eq!(next_look(1, Duration::ZERO, &settings), None);
    }

    #[test]
    fn a_longest_linger_below_the_shortest_is_the_shortest() {
        let settings = RelaySettings {
            max_linger_ms: 0,
            ..settings()
        };
        assert_eq!(linger_for(1, &settings), Duration::from_millis(10));
    }
}
