//! How many requests each partner may have in progress at once
//! (`gateway.max_concurrent_per_partner`).

use crate::connection::ConnectionInfo;
use edihub_partners::Directory;
use std::collections::HashMap;
use std::sync::Arc;
use tokio::sync::{OwnedSemaphorePermit, Semaphore};

/// One semaphore per known partner (created on its first request), and one shared by
/// every AS2-From that names no known partner, so random names cannot grow the map.
pub(crate) struct PartnerSlots {
    limit: usize,
    partners: std::sync::Mutex<HashMap<String, Arc<Semaphore>>>,
    strangers: Arc<Semaphore>,
}

impl PartnerSlots {
    pub(crate) fn new(limit: usize) -> Self {
        let limit = limit.max(1);
        Self {
            limit,
            partners: std::sync::Mutex::default(),
            strangers: Arc::new(Semaphore::new(limit)),
        }
    }

    /// A slot for a request from `as2_from`, or `None` when all are taken.
    pub(crate) fn try_acquire(
        &self,
        directory: &Directory,
        as2_from: &str,
        _connection: &ConnectionInfo,
    ) -> Option<OwnedSemaphorePermit> {
        let semaphore = if directory.partner(as2_from).is_some() {
            let mut partners = self.partners.lock().unwrap_or_else(|p| p.into_inner());
            Arc::clone(
                partners
                    .entry(as2_from.to_owned())
                    .or_insert_with(|| Arc::new(Semaphore::new(self.limit))),
            )
        } else {
            Arc::clone(&self.strangers)
        };
        semaphore.try_acquire_owned().ok()
    }

    pub(crate) fn limit(&self) -> usize {
        self.limit
    }
}
