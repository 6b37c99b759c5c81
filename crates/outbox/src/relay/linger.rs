//! How long the relay waits after a NOTIFY before it claims. Each NOTIFY, on its
//! channel's own NOTIFY channel, says how many rows a statement committed ("3"), so
//! the relay knows how many rows have gathered: it waits `linger_ms` once enough for a
//! batch were announced (`linger_rows`) by then, and `max_linger_ms` when fewer were.
//! A low, steady rate is then published in batches of many rows rather than a handful,
//! each at a batch's full cost; a high rate still waits only `linger_ms`.
//!
//! The relay counts the rows once, at `linger_ms`, and stops hearing NOTIFYs for the
//! rest of a longer linger ([`Announcements::pause`]): at a low rate every commit sends
//! one, and being woken for each cost the relay more than its batches.

use super::Relay;
use super::announcements::Announcements;
use edihub_config::RelaySettings;
use std::time::Duration;
use tokio::time::Instant;

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

/// When to count the rows announced, after a first NOTIFY that announced `rows`: at
/// once for a full batch, else at `linger_ms`, the shortest linger.
fn count_at(rows: u64, settings: &RelaySettings) -> Duration {
    linger_for(rows, settings).min(Duration::from_millis(settings.linger_ms))
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
    /// Lets more commits gather after a NOTIFY that announced `rows`: counts the rows
    /// announced at [`count_at`], then waits out the rest of [`linger_for`] them without
    /// hearing NOTIFYs.
    pub(super) async fn linger(&self, announcements: &mut Announcements, rows: u64) {
        let started = Instant::now();
        tokio::time::sleep(count_at(rows, &self.settings)).await;
        let rows = rows + announcements.arrived();
        let until = started + linger_for(rows, &self.settings);
        if Instant::now() < until {
            announcements.pause().await;
            tokio::time::sleep_until(until).await;
            announcements.resume().await;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
    fn rows_are_counted_at_the_shortest_linger_or_at_once_for_a_full_batch() {
        let ms = |rows| count_at(rows, &settings()).as_millis();
        assert_eq!((ms(1), ms(32)), (10, 10));
        assert_eq!(ms(500), 0);
        let no_linger = RelaySettings {
            linger_ms: 0,
            ..settings()
        };
        assert_eq!(count_at(1, &no_linger), Duration::ZERO);
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
