//! Blocking work called from async code.

use tokio::runtime::{Handle, RuntimeFlavor};

/// Runs `work`, which blocks (a broker round trip, RSA), without stalling the tasks
/// that share its worker thread: on tokio's multi-threaded runtime the worker hands
/// them to another thread for the duration (`block_in_place`). On a current-thread
/// runtime, or outside tokio, there is no thread to hand them to, and it simply runs.
pub fn blocking<R>(work: impl FnOnce() -> R) -> R {
    match Handle::try_current().map(|handle| handle.runtime_flavor()) {
        Ok(RuntimeFlavor::MultiThread) => tokio::task::block_in_place(work),
        _ => work(),
    }
}
