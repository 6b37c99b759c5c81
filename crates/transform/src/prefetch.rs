//! Which payloads a batch reads in one statement before its events are applied: those
//! of small interchanges, up to a budget, so that a batch of large ones still holds one
//! payload at a time (the transform's memory bound), read when its event is applied.

use edihub_events::ClaimCheck;
use uuid::Uuid;

/// Largest payload read ahead.
const MAX_PAYLOAD: u64 = 256 * 1024;
/// Most bytes a batch reads ahead.
const BUDGET: u64 = 8 * 1024 * 1024;

/// The journal ids of the claim checks whose payloads are read ahead, in order.
pub(crate) fn read_ahead<'a>(claims: impl IntoIterator<Item = &'a ClaimCheck>) -> Vec<Uuid> {
    let mut left = BUDGET;
    let mut ids = Vec::new();
    for claim in claims {
        let Some(id) = claim.journal_message_id() else {
            continue;
        };
        if claim.size <= MAX_PAYLOAD && claim.size <= left {
            left -= claim.size;
            ids.push(id);
        }
    }
    ids
}

#[cfg(test)]
mod tests {
    use super::*;

    fn claim(size: u64) -> ClaimCheck {
        ClaimCheck::for_journal(Uuid::new_v4(), "00".repeat(32), size)
    }

    #[test]
    fn small_payloads_are_read_ahead_and_large_ones_are_not() {
        let (small, large) = (claim(4_000), claim(MAX_PAYLOAD + 1));
        let ids = read_ahead([&small, &large]);
        assert_eq!(ids, vec![small.journal_message_id().unwrap()]);
    }

    #[test]
    fn reading_ahead_stops_taking_payloads_at_the_budget() {
        let claims: Vec<_> = (0..40).map(|_| claim(MAX_PAYLOAD)).collect();
        let ids = read_ahead(&claims);
        assert_eq!(ids.len() as u64, BUDGET / MAX_PAYLOAD);
        assert_eq!(ids[0], claims[0].journal_message_id().unwrap());
    }

    #[test]
    fn a_claim_check_outside_the_journal_is_left_to_its_own_resolution() {
        let foreign = ClaimCheck {
            reference: "s3://elsewhere/object".into(),
            sha256: "00".repeat(32),
            size: 10,
        };
        assert!(read_ahead([&foreign]).is_empty());
    }
}
