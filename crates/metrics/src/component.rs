//! The one way a relay or a consumer process runs: the service builds its parts from
//! its settings (failing fast on bad ones), then hands [`run`] the readiness probe and
//! the work, which runs beside the operations endpoint until shutdown.

use crate::{OpsServer, Probe};
use std::future::Future;
use tokio::task::JoinError;
use tokio_util::sync::CancellationToken;

/// Why a component stopped with an error. Each variant displays as its source does,
/// so a service's log line reads the same as the underlying failure.
#[derive(Debug, thiserror::Error)]
pub enum RunError<E> {
    /// The operations endpoint could not bind its address or stopped serving.
    #[error(transparent)]
    Ops(std::io::Error),
    /// The operations endpoint's task panicked.
    #[error(transparent)]
    OpsTask(JoinError),
    /// The component's own work failed.
    #[error(transparent)]
    Component(E),
}

/// Binds `ops_listen` (a taken port fails here, before `work` starts), serves
/// `/metrics`, `/health` and `/ready` with `probe` until `shutdown`, and drives `work`
/// meanwhile.
///
/// `work` must return once `shutdown` is cancelled, having finished or released what
/// it claimed; the endpoint is then awaited too. A failing `work` returns at once: the
/// process exits on it, and the endpoint stops with `shutdown`.
pub async fn run<W, E>(
    ops_listen: &str,
    probe: Probe,
    work: W,
    shutdown: CancellationToken,
) -> Result<(), RunError<E>>
where
    W: Future<Output = Result<(), E>>,
{
    let ops = OpsServer::bind(ops_listen).await.map_err(RunError::Ops)?;
    let ops = tokio::spawn(ops.run(probe, shutdown));
    work.await.map_err(RunError::Component)?;
    ops.await.map_err(RunError::OpsTask)?.map_err(RunError::Ops)
}

#[cfg(test)]
mod tests;
