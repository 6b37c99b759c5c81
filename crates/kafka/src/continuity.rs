//! Offset continuity: the consumer loop's guard against a broker that skips records.
//!
//! Our topics are written by idempotent, non-transactional producers, so a partition's
//! offsets have no holes: each record should arrive at the offset after the last one.
//! tansu 0.6 (memory and `s3://` storage alike) answers a fetch that starts inside a
//! record batch from the next batch on (ADR 0003). A consumer that restarts at a
//! committed offset inside a producer's batch would never get the rest of that batch,
//! and its next offset commit would skip those events for good. So a record past the
//! expected offset is held back, and the partition is read again from further and
//! further before the hole (0, 1, 3, 7, ... records, up to [`MAX_BACK`]) until the
//! batch that holds it is served; the records before the hole, which come again, are
//! dropped: the group has handled them. A hole still there after the furthest re-read
//! is accepted with a warning: it is a real one (records a broker lost, compaction,
//! transaction markers). How long the re-reads take does not matter: a slow broker is
//! not a hole. On Apache Kafka none of this happens: its fetches start at the offset
//! asked for.
//!
//! The expected offset of a newly assigned partition is the group's committed offset,
//! read when the assignment arrives ([`AssignmentStarts`]); when none is known, the
//! partition's first record is taken as it comes.

use rdkafka::consumer::{BaseConsumer, Consumer, ConsumerContext, Rebalance, StreamConsumer};
use rdkafka::message::BorrowedMessage;
use rdkafka::{ClientContext, Message, Offset, TopicPartitionList};
use std::collections::HashMap;
use std::sync::{Mutex, PoisonError};
use std::time::Duration;
use tokio_util::sync::CancellationToken;

/// How far before a hole the furthest re-read starts: more than a producer's batch.
pub(crate) const MAX_BACK: i64 = 4095;
/// The pause before each re-read, so that a hole never spins the loop.
const REREAD_WAIT: Duration = Duration::from_millis(20);
/// How long reading the committed offsets of a new assignment may take.
const COMMITTED_TIMEOUT: Duration = Duration::from_secs(10);
const SEEK_TIMEOUT: Duration = Duration::from_secs(5);

/// What to do with one record.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Admit {
    /// Hand it to the handler.
    Handle,
    /// Drop it: it is before the expected offset, so the group has handled it (a re-read
    /// brings such records again).
    AlreadyHandled,
    /// Hand it to the handler although the records from `missing` to it never came.
    HandleAfterHole { missing: i64 },
    /// Hold it (and the rest of its partition in this batch) and read the partition
    /// again from `from`.
    Reread { from: i64 },
}

/// A hole being read again. It starts at its partition's expected offset: whatever
/// moves that offset (a record admitted, an assignment change) forgets the hole.
#[derive(Debug, Default)]
struct Hole {
    rereads: u32,
    /// The last re-read went as far back as it may.
    furthest: bool,
}

/// The next expected offset of each assigned partition, and the holes being read again.
#[derive(Debug, Default)]
pub(crate) struct Continuity {
    expected: HashMap<i32, i64>,
    holes: HashMap<i32, Hole>,
}

impl Continuity {
    /// Applies an assignment change: a partition's records are expected from `start`
    /// (unknown: `None`), or no more once it is revoked.
    pub(crate) fn apply(&mut self, change: AssignmentChange) {
        match change {
            AssignmentChange::Assigned { partition, start } => {
                self.holes.remove(&partition);
                match start {
                    Some(start) => self.expected.insert(partition, start),
                    None => self.expected.remove(&partition),
                };
            }
            AssignmentChange::Revoked { partition } => {
                self.holes.remove(&partition);
                self.expected.remove(&partition);
            }
        }
    }

    /// Decides about the record at `offset` of `partition`. A record before the expected
    /// offset changes nothing; the expected one fills the hole, if any.
    pub(crate) fn admit(&mut self, partition: i32, offset: i64) -> Admit {
        let verdict = match self.expected.get(&partition) {
            Some(&expected) if offset < expected => return Admit::AlreadyHandled,
            Some(&expected) if offset > expected => self.hole(partition, expected),
            _ => Admit::Handle,
        };
        if !matches!(verdict, Admit::Reread { .. }) {
            self.holes.remove(&partition);
            self.expected.insert(partition, offset + 1);
        }
        verdict
    }

    /// The verdict on a record past `expected`: read again from further back, or accept
    /// the hole once the furthest re-read did not fill it.
    fn hole(&mut self, partition: i32, expected: i64) -> Admit {
        let hole = self.holes.entry(partition).or_default();
        if hole.furthest {
            return Admit::HandleAfterHole { missing: expected };
        }
        let back = ((1i64 << hole.rereads.min(62)) - 1).min(MAX_BACK);
        let from = (expected - back).max(0);
        hole.furthest = back == MAX_BACK || from == 0;
        hole.rereads += 1;
        Admit::Reread { from }
    }
}

/// A change of the consumer's assignment, as the rebalance callback saw it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum AssignmentChange {
    Assigned { partition: i32, start: Option<i64> },
    Revoked { partition: i32 },
}

/// The consumer's context: on each assignment it reads the group's committed offsets,
/// where the fetches of the new partitions start, and queues the changes for the loop.
#[derive(Debug, Default)]
pub(crate) struct AssignmentStarts {
    changes: Mutex<Vec<AssignmentChange>>,
}

impl AssignmentStarts {
    /// The changes since the last call, oldest first.
    pub(crate) fn take(&self) -> Vec<AssignmentChange> {
        std::mem::take(&mut *self.changes.lock().unwrap_or_else(PoisonError::into_inner))
    }

    fn push(&self, new: impl IntoIterator<Item = AssignmentChange>) {
        (self.changes.lock().unwrap_or_else(PoisonError::into_inner)).extend(new);
    }
}

impl ClientContext for AssignmentStarts {}

impl ConsumerContext for AssignmentStarts {
    fn post_rebalance(&self, consumer: &BaseConsumer<Self>, rebalance: &Rebalance<'_>) {
        match rebalance {
            Rebalance::Assign(assigned) => {
                // A round trip to the broker, up to COMMITTED_TIMEOUT.
                let committed = edihub_config::runtime::blocking(|| {
                    consumer.committed_offsets((*assigned).clone(), COMMITTED_TIMEOUT)
                })
                .inspect_err(|error| {
                    tracing::warn!(%error, "committed offsets of new partitions not read");
                })
                .ok();
                let elements = assigned.elements();
                let changes = elements.iter().map(|e| {
                    let partition = e.partition();
                    let start = committed.as_ref().and_then(|c| offset_of(c, partition));
                    AssignmentChange::Assigned { partition, start }
                });
                self.push(changes);
            }
            Rebalance::Revoke(revoked) => {
                self.push(
                    revoked
                        .elements()
                        .iter()
                        .map(|e| AssignmentChange::Revoked {
                            partition: e.partition(),
                        }),
                );
            }
            Rebalance::Error(_) => {}
        }
    }
}

/// The offset `list` holds for `partition`, if it is a real one (not "none committed").
fn offset_of(list: &TopicPartitionList, partition: i32) -> Option<i64> {
    let element = list
        .elements()
        .into_iter()
        .find(|e| e.partition() == partition)?;
    match element.offset() {
        Offset::Offset(offset) => Some(offset),
        _ => None,
    }
}

/// A partition held back at a hole, to be read again from `from`.
#[derive(Debug)]
pub(crate) struct Reread {
    partition: i32,
    from: i64,
}

/// The records of `batch` the handler may have now, in order, and the partitions held
/// back at a hole: such a partition's records from the first one past the hole on are
/// dropped here, to be fetched again by [`read_again`].
pub(crate) fn admitted<'a>(
    continuity: &mut Continuity,
    batch: Vec<BorrowedMessage<'a>>,
) -> (Vec<BorrowedMessage<'a>>, Vec<Reread>) {
    let mut held: Vec<Reread> = Vec::new();
    let mut admitted = Vec::with_capacity(batch.len());
    for message in batch {
        let (partition, offset) = (message.partition(), message.offset());
        if held.iter().any(|r| r.partition == partition) {
            continue;
        }
        match continuity.admit(partition, offset) {
            Admit::Handle => admitted.push(message),
            Admit::AlreadyHandled => {}
            Admit::HandleAfterHole { missing } => {
                tracing::warn!(
                    partition,
                    missing_from = missing,
                    missing_to = offset - 1,
                    "the broker never served these offsets, even when read again: moving on"
                );
                admitted.push(message);
            }
            Admit::Reread { from } => {
                tracing::info!(
                    partition,
                    served = offset,
                    reread_from = from,
                    "the broker served records past a hole: reading the partition again"
                );
                held.push(Reread { partition, from });
            }
        }
    }
    (admitted, held)
}

/// Points each held partition back to where its re-read starts, after a short pause;
/// `false` when shutdown came first.
pub(crate) async fn read_again<C: ConsumerContext>(
    consumer: &StreamConsumer<C>,
    topic: &str,
    held: &[Reread],
    shutdown: &CancellationToken,
) -> bool {
    if held.is_empty() {
        return true;
    }
    tokio::select! {
        _ = shutdown.cancelled() => return false,
        _ = tokio::time::sleep(REREAD_WAIT) => {}
    }
    for reread in held {
        let from = Offset::Offset(reread.from);
        if let Err(error) = consumer.seek(topic, reread.partition, from, SEEK_TIMEOUT) {
            // Revoked meanwhile: its next owner starts at the committed offset, which is
            // not past the hole.
            tracing::warn!(%error, partition = reread.partition, "seek back to a hole failed");
        }
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    fn assigned(partition: i32, start: i64) -> AssignmentChange {
        AssignmentChange::Assigned {
            partition,
            start: Some(start),
        }
    }

    fn reread(from: i64) -> Admit {
        Admit::Reread { from }
    }

    #[test]
    fn consecutive_records_are_handled() {
        let mut continuity = Continuity::default();
        continuity.apply(assigned(0, 10));
        assert_eq!(continuity.admit(0, 10), Admit::Handle);
        assert_eq!(continuity.admit(0, 11), Admit::Handle);
    }

    /// tansu's answer to a fetch inside a batch: the next batch. The re-reads go back
    /// until the batch that holds the hole (here from offset 4) is served.
    #[test]
    fn a_hole_is_read_again_from_further_back_until_it_is_filled() {
        let mut continuity = Continuity::default();
        continuity.apply(assigned(0, 10));
        assert_eq!(continuity.admit(0, 20), reread(10));
        assert_eq!(continuity.admit(0, 20), reread(9));
        assert_eq!(continuity.admit(0, 20), reread(7));
        assert_eq!(continuity.admit(0, 20), reread(3));
        // Served from 4: those before the hole are dropped, and it stays open.
        for offset in 4..10 {
            assert_eq!(continuity.admit(0, offset), Admit::AlreadyHandled);
        }
        assert_eq!(continuity.admit(0, 10), Admit::Handle);
        assert_eq!(continuity.admit(0, 11), Admit::Handle);
        // A new hole starts over.
        assert_eq!(continuity.admit(0, 13), reread(12));
    }

    #[test]
    fn other_partitions_are_not_held_up() {
        let mut continuity = Continuity::default();
        continuity.apply(assigned(1, 0));
        continuity.apply(assigned(2, 7));
        assert_eq!(continuity.admit(1, 0), Admit::Handle);
        assert_eq!(continuity.admit(1, 5), reread(1));
        assert_eq!(continuity.admit(2, 7), Admit::Handle);
    }

    #[test]
    fn a_hole_the_furthest_reread_does_not_fill_is_accepted() {
        let mut continuity = Continuity::default();
        continuity.apply(assigned(0, 3));
        assert_eq!(continuity.admit(0, 9), reread(3));
        assert_eq!(continuity.admit(0, 9), reread(2));
        assert_eq!(continuity.admit(0, 9), reread(0));
        assert_eq!(continuity.admit(0, 0), Admit::AlreadyHandled);
        assert_eq!(
            continuity.admit(0, 9),
            Admit::HandleAfterHole { missing: 3 }
        );
        assert_eq!(continuity.admit(0, 10), Admit::Handle);
    }

    #[test]
    fn the_rereads_go_back_at_most_max_back() {
        let mut continuity = Continuity::default();
        continuity.apply(assigned(0, 1_000_000));
        let mut froms = Vec::new();
        loop {
            match continuity.admit(0, 2_000_000) {
                Admit::Reread { from } => froms.push(from),
                Admit::HandleAfterHole { missing } => {
                    assert_eq!(missing, 1_000_000);
                    break;
                }
                other => panic!("a hole met with {other:?}"),
            }
        }
        assert_eq!(froms.last(), Some(&(1_000_000 - MAX_BACK)));
        assert_eq!(froms.len(), 13);
    }

    #[test]
    fn unknown_starts_and_revoked_partitions_are_not_checked() {
        let mut continuity = Continuity::default();
        continuity.apply(AssignmentChange::Assigned {
            partition: 0,
            start: None,
        });
        assert_eq!(continuity.admit(0, 42), Admit::Handle);
        assert_eq!(continuity.admit(0, 44), reread(43));
        continuity.apply(AssignmentChange::Revoked { partition: 0 });
        assert_eq!(continuity.admit(0, 99), Admit::Handle);
    }

    #[test]
    fn a_new_assignment_forgets_the_old_hole() {
        let mut continuity = Continuity::default();
        continuity.apply(assigned(0, 10));
        assert_eq!(continuity.admit(0, 12), reread(10));
        continuity.apply(assigned(0, 12));
        assert_eq!(continuity.admit(0, 12), Admit::Handle);
    }
}
