//! The Kafka relay runs on a thread of its own, on a current-thread runtime, with a
//! database pool of its own, so its sockets are driven by that thread alone.
//!
//! At a steady rate the relay's cost is mostly threads waking each other (a NOTIFY per
//! commit, a batch's round trips, the broker's acknowledgements), and on the
//! multi-thread runtime every wake-up could also wake a second worker
//! (docs/benchmarks.md). A current-thread runtime for the whole process would stop
//! everything while the outbound sender signs and encrypts in line, or while the
//! requests consumer's rebalance callback reads committed offsets; on a thread of its
//! own, the Kafka relay does not wait for either.

use std::future::Future;
use tokio::sync::oneshot;

/// Starts `start` on a new thread named `name` and returns the receiver of its outcome.
/// The future is made on that thread, so whatever it opens (a pool's connections)
/// belongs to that thread's runtime.
pub(crate) fn spawn<F, Fut, T>(name: &str, start: F) -> std::io::Result<oneshot::Receiver<T>>
where
    F: FnOnce() -> Fut + Send + 'static,
    Fut: Future<Output = T>,
    T: Send + 'static,
{
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    let (done, outcome) = oneshot::channel();
    std::thread::Builder::new()
        .name(name.to_owned())
        .spawn(move || {
            let result = runtime.block_on(start());
            // The process stopped waiting (it is exiting): nobody to tell.
            let _ = done.send(result);
        })?;
    Ok(outcome)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn the_future_runs_on_its_own_thread_and_returns_its_outcome() {
        let caller = std::thread::current().id();
        let outcome = spawn("test thread", move || async move {
            tokio::task::yield_now().await;
            (
                std::thread::current().id(),
                std::thread::current().name().map(str::to_owned),
            )
        })
        .expect("spawn");
        let (thread, name) = outcome.await.expect("an outcome");
        assert_ne!(thread, caller);
        assert_eq!(name.as_deref(), Some("test thread"));
    }

    #[tokio::test]
    async fn a_panic_on_the_thread_leaves_no_outcome() {
        let outcome = spawn("panicking", || async { panic!("on purpose") });
        let outcome: oneshot::Receiver<()> = outcome.expect("spawn");
        assert!(outcome.await.is_err());
    }
}
