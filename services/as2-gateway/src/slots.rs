//! How many requests each partner may have in progress at once
//! (`gateway.max_concurrent_per_partner`), so that no one can take every database
//! connection and every core.
//!
//! The AS2-From a request names proves nothing until its signature verified, and that
//! comes only after the body is read and decrypted. So each partner has two allowances:
//! one for requests that are already proven to come from it (its TLS client
//! certificate matched, or its address sent a message that authenticated as this
//! partner recently), and one for all the others that merely name it. Forged requests
//! naming a partner fill the second one and leave the partner's real traffic its own.
//! Requests naming no configured partner share one allowance, so random names cannot
//! grow the map.

use crate::connection::ConnectionInfo;
use edihub_partners::{Directory, Partnership};
use std::collections::HashMap;
use std::net::IpAddr;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};
use tokio::sync::{OwnedSemaphorePermit, Semaphore};

/// How long an address that authenticated as a partner counts as that partner's.
const PROVEN_FOR: Duration = Duration::from_secs(60 * 60);
/// At most this many (partner, address) pairs are remembered; the oldest goes first.
const MAX_PROVEN: usize = 4096;

/// Whether a request is already known to come from the partner it names.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Standing {
    Proven,
    Unproven,
}

/// One partner's two allowances.
struct Allowances {
    proven: Arc<Semaphore>,
    unproven: Arc<Semaphore>,
}

pub(crate) struct PartnerSlots {
    limit: usize,
    partners: Mutex<HashMap<String, Allowances>>,
    strangers: Arc<Semaphore>,
    /// When each (AS2-From, peer address) last sent a message that authenticated.
    proven: Mutex<HashMap<(String, IpAddr), Instant>>,
}

impl PartnerSlots {
    pub(crate) fn new(limit: usize) -> Self {
        let limit = limit.max(1);
        Self {
            limit,
            partners: Mutex::default(),
            strangers: Arc::new(Semaphore::new(limit)),
            proven: Mutex::default(),
        }
    }

    /// A slot for a request from `as2_from` on `connection`, or `None` when all the
    /// slots it may use are taken.
    pub(crate) fn try_acquire(
        &self,
        directory: &Directory,
        as2_from: &str,
        connection: &ConnectionInfo,
    ) -> Option<OwnedSemaphorePermit> {
        let Some(partner) = directory.partner(as2_from) else {
            return Arc::clone(&self.strangers).try_acquire_owned().ok();
        };
        let standing = self.standing(partner, connection, Instant::now());
        let semaphore = {
            let mut partners = lock(&self.partners);
            let allowances = partners
                .entry(as2_from.to_owned())
                .or_insert_with(|| Allowances {
                    proven: Arc::new(Semaphore::new(self.limit)),
                    unproven: Arc::new(Semaphore::new(self.limit)),
                });
            match standing {
                Standing::Proven => Arc::clone(&allowances.proven),
                Standing::Unproven => Arc::clone(&allowances.unproven),
            }
        };
        semaphore.try_acquire_owned().ok()
    }

    /// Records that a message from `as2_from` on `connection` authenticated (its
    /// signature verified with the partner's certificate).
    pub(crate) fn authenticated(&self, as2_from: &str, connection: &ConnectionInfo) {
        let now = Instant::now();
        let mut proven = lock(&self.proven);
        if proven.len() >= MAX_PROVEN {
            proven.retain(|_, at| now.duration_since(*at) < PROVEN_FOR);
        }
        if proven.len() >= MAX_PROVEN
            && let Some(oldest) = proven
                .iter()
                .min_by_key(|(_, at)| **at)
                .map(|(k, _)| k.clone())
        {
            proven.remove(&oldest);
        }
        proven.insert((as2_from.to_owned(), connection.peer.ip()), now);
    }

    pub(crate) fn standing(
        &self,
        partner: &Partnership,
        connection: &ConnectionInfo,
        now: Instant,
    ) -> Standing {
        let certificate_matches = connection
            .client_certificate_sha256
            .is_some_and(|sha256| partner.tls_client_fingerprints.contains(&sha256));
        let key = (partner.as2_id.clone(), connection.peer.ip());
        let recently = lock(&self.proven)
            .get(&key)
            .is_some_and(|at| now.duration_since(*at) < PROVEN_FOR);
        if certificate_matches || recently {
            Standing::Proven
        } else {
            Standing::Unproven
        }
    }

    pub(crate) fn limit(&self) -> usize {
        self.limit
    }
}

/// The map behind `mutex`, even if a thread panicked while holding it (the maps stay
/// consistent: every update is a single insert or remove).
fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

#[cfg(test)]
mod tests;
