//! The connection cap (`gateway.max_connections`): every connection holds a permit
//! from accept to close. Past the cap a plain connection is told so (503 with
//! `Retry-After`) and a TLS one is closed before its handshake, so a flood costs
//! neither memory per connection nor RSA work.

use edihub_metrics::{GATEWAY_CONNECTIONS, GATEWAY_CONNECTIONS_REFUSED};
use std::sync::Arc;
use std::time::Duration;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;
use tokio::sync::{OwnedSemaphorePermit, Semaphore};

const TOO_MANY_CONNECTIONS: &[u8] = b"HTTP/1.1 503 Service Unavailable\r\n\
Retry-After: 1\r\nConnection: close\r\nContent-Type: text/plain\r\nContent-Length: 34\r\n\r\n\
too many connections; retry later\n";

/// Refused connections answered at once at most; beyond, they are closed unanswered.
const MAX_REFUSALS_IN_PROGRESS: usize = 64;
/// How long a refused connection is read from (and its bytes discarded) after the 503,
/// so the close does not reset the connection before the client read the answer.
const LINGER: Duration = Duration::from_secs(1);

#[derive(Clone)]
pub(crate) struct ConnectionLimit {
    open: Arc<Semaphore>,
    refusing: Arc<Semaphore>,
}

/// An admitted connection's place; released (and the gauge lowered) when dropped.
pub(crate) struct Admitted {
    _permit: OwnedSemaphorePermit,
}

impl Drop for Admitted {
    fn drop(&mut self) {
        GATEWAY_CONNECTIONS.dec();
    }
}

impl ConnectionLimit {
    pub fn new(max_connections: usize) -> Self {
        GATEWAY_CONNECTIONS.set(0);
        Self {
            open: Arc::new(Semaphore::new(max_connections)),
            refusing: Arc::new(Semaphore::new(MAX_REFUSALS_IN_PROGRESS)),
        }
    }

    /// A place for a new connection, unless `max_connections` are open.
    pub fn try_admit(&self) -> Option<Admitted> {
        let permit = Arc::clone(&self.open).try_acquire_owned().ok()?;
        GATEWAY_CONNECTIONS.inc();
        Some(Admitted { _permit: permit })
    }

    /// Turns away a connection over the cap: TLS ones are closed before the handshake,
    /// plain ones get a 503 first.
    pub fn refuse(&self, stream: TcpStream, tls: bool) {
        let transport = if tls { "tls" } else { "plain" };
        GATEWAY_CONNECTIONS_REFUSED
            .with_label_values(&[transport])
            .inc();
        if tls {
            return;
        }
        let Ok(permit) = Arc::clone(&self.refusing).try_acquire_owned() else {
            return;
        };
        tokio::spawn(async move {
            let _permit = permit;
            let _ = tokio::time::timeout(LINGER, answer_busy(stream)).await;
        });
    }
}

async fn answer_busy(mut stream: TcpStream) -> std::io::Result<()> {
    stream.write_all(TOO_MANY_CONNECTIONS).await?;
    stream.shutdown().await?;
    let mut discard = [0u8; 4096];
    while stream.read(&mut discard).await? > 0 {}
    Ok(())
}
