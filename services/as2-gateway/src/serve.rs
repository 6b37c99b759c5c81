//! The partner port's HTTP/1.1 loop. Not `axum::serve`: each connection is admitted
//! under the connection cap, goes through TLS when configured, has its bytes unfolded
//! (`unfolding.rs`) before hyper reads them, and hands its [`ConnectionInfo`] to every
//! request on it.

use crate::connection::ConnectionInfo;
use crate::connections::ConnectionLimit;
use crate::unfolding::Unfolding;
use axum::{Extension, Router};
use hyper_util::rt::{TokioIo, TokioTimer};
use hyper_util::server::graceful::{GracefulShutdown, Watcher};
use hyper_util::service::TowerToHyperService;
use std::io;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;
use tokio::io::{AsyncRead, AsyncWrite};
use tokio::net::{TcpListener, TcpStream};
use tokio_rustls::TlsAcceptor;
use tokio_util::sync::CancellationToken;

/// How connections on the partner port are taken in.
pub(crate) struct Transport {
    /// HTTPS; `None` when `gateway.plain_http` (behind a TLS-terminating proxy).
    pub tls: Option<TlsAcceptor>,
    pub limit: ConnectionLimit,
    /// Bounds the TLS handshake, and the wait for each request's head.
    pub idle_timeout: Duration,
    /// Request heads longer than this are not unfolded (hyper refuses them anyway).
    pub max_head_bytes: usize,
}

/// Accepts connections until `shutdown`, then waits for the requests in progress.
pub(crate) async fn serve(
    listener: TcpListener,
    router: Router,
    transport: Transport,
    shutdown: CancellationToken,
) -> io::Result<()> {
    let graceful = GracefulShutdown::new();
    let transport = Arc::new(transport);
    loop {
        let (stream, peer) = tokio::select! {
            _ = shutdown.cancelled() => break,
            accepted = listener.accept() => match accepted {
                Ok(accepted) => accepted,
                // Per-connection failures (reset before accept, out of descriptors):
                // log and keep serving.
                Err(error) => {
                    tracing::warn!(%error, "accept failed");
                    tokio::time::sleep(Duration::from_millis(50)).await;
                    continue;
                }
            },
        };
        let Some(admitted) = transport.limit.try_admit() else {
            tracing::debug!(%peer, "connection refused: gateway.max_connections open");
            transport.limit.refuse(stream, transport.tls.is_some());
            continue;
        };
        let (router, transport, watcher) =
            (router.clone(), Arc::clone(&transport), graceful.watcher());
        tokio::spawn(async move {
            let _admitted = admitted;
            connection(stream, peer, router, &transport, watcher).await;
        });
    }
    drop(listener);
    graceful.shutdown().await;
    Ok(())
}

/// One admitted connection: its TLS handshake if any, then its requests.
async fn connection(
    stream: TcpStream,
    peer: SocketAddr,
    router: Router,
    transport: &Transport,
    watcher: Watcher,
) {
    let _ = stream.set_nodelay(true);
    let Some(acceptor) = &transport.tls else {
        let info = ConnectionInfo {
            peer,
            client_certificate_sha256: None,
        };
        return http(stream, info, router, transport, watcher).await;
    };
    let stream = match tokio::time::timeout(transport.idle_timeout, acceptor.accept(stream)).await {
        Ok(Ok(stream)) => stream,
        Ok(Err(error)) => {
            edihub_metrics::TLS_HANDSHAKE_FAILURES.inc();
            return tracing::debug!(%peer, %error, "TLS handshake failed");
        }
        Err(_) => {
            edihub_metrics::TLS_HANDSHAKE_FAILURES.inc();
            return tracing::debug!(%peer, "TLS handshake not finished in gateway.idle_timeout_ms");
        }
    };
    let info = ConnectionInfo {
        peer,
        client_certificate_sha256: crate::tls::client_certificate_sha256(stream.get_ref().1),
    };
    http(stream, info, router, transport, watcher).await;
}

/// Serves the requests of one connection, each with the connection's `info`.
async fn http<I>(
    io: I,
    info: ConnectionInfo,
    router: Router,
    transport: &Transport,
    watcher: Watcher,
) where
    I: AsyncRead + AsyncWrite + Unpin + Send + 'static,
{
    let io = TokioIo::new(Unfolding::new(io, transport.max_head_bytes));
    let service = TowerToHyperService::new(router.layer(Extension(info)));
    // hyper's head timer runs whenever the connection waits for a request, after
    // connecting and between kept-alive requests: the idle timeout.
    let connection = hyper::server::conn::http1::Builder::new()
        .timer(TokioTimer::new())
        .header_read_timeout(transport.idle_timeout)
        .serve_connection(io, service);
    if let Err(error) = watcher.watch(connection).await {
        if let Some(status) = rejection(&error) {
            edihub_metrics::HTTP_REJECTIONS
                .with_label_values(&[status])
                .inc();
        }
        tracing::debug!(peer = %info.peer, %error, "connection ended with an error");
    }
}

/// The status of a request hyper turned away itself: it answers a malformed head 400
/// and an oversized one 431, and closes a head that took too long (counted as 408).
fn rejection(error: &hyper::Error) -> Option<&'static str> {
    if error.is_parse_too_large() {
        Some("431")
    } else if error.is_parse() {
        Some("400")
    } else if error.is_timeout() {
        Some("408")
    } else {
        None
    }
}
