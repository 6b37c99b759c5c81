//! The chain itself: canonical entry bytes and the link hash. Pure.

use crate::{EntryFacts, Position};

/// The previous hash of the first entry.
pub const GENESIS: [u8; 32] = [0; 32];

/// The entry's canonical bytes: one line of JSON, keys in a fixed order.
pub fn canonical(position: Position, facts: &EntryFacts) -> Vec<u8> {
    let _ = (position, facts);
    unimplemented!("interface stub: the ledger helper writes this")
}

/// `SHA-256(prev || canonical)`.
pub fn chain_hash(prev: &[u8; 32], canonical: &[u8]) -> [u8; 32] {
    let _ = (prev, canonical);
    unimplemented!("interface stub: the ledger helper writes this")
}
