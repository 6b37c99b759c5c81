use super::{RunError, run};
use crate::probe;
use std::io::{Read, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use tokio_util::sync::CancellationToken;

/// A port that was free a moment ago, for a `run` that binds it itself.
fn free_address() -> SocketAddr {
    let listener = TcpListener::bind("127.0.0.1:0").expect("bind a free port");
    listener.local_addr().expect("local address")
}

/// The status line of `GET path`, over a blocking socket so no HTTP client is needed.
async fn status_line(address: SocketAddr, path: &'static str) -> String {
    tokio::task::spawn_blocking(move || {
        let mut stream = TcpStream::connect(address).expect("connect");
        write!(
            stream,
            "GET {path} HTTP/1.1\r\nHost: ops\r\nConnection: close\r\n\r\n"
        )
        .expect("write request");
        let mut response = String::new();
        stream.read_to_string(&mut response).expect("read response");
        response.lines().next().unwrap_or_default().to_owned()
    })
    .await
    .expect("request task")
}

#[tokio::test]
async fn serves_the_probe_while_the_work_runs_and_returns_after_both_stop() {
    let address = free_address();
    let shutdown = CancellationToken::new();
    let ready = Arc::new(AtomicBool::new(false));
    let flag = ready.clone();
    let probe = probe(move || {
        let flag = flag.clone();
        async move { flag.load(Ordering::SeqCst) }
    });
    let work = {
        let shutdown = shutdown.clone();
        async move {
            assert_eq!(
                status_line(address, "/ready").await,
                "HTTP/1.1 503 Service Unavailable"
            );
            ready.store(true, Ordering::SeqCst);
            assert_eq!(status_line(address, "/ready").await, "HTTP/1.1 200 OK");
            assert_eq!(status_line(address, "/health").await, "HTTP/1.1 200 OK");
            shutdown.cancel();
            Ok::<(), std::convert::Infallible>(())
        }
    };
    let outcome = run(&address.to_string(), probe, work, shutdown).await;
    assert!(outcome.is_ok(), "{outcome:?}");
    assert!(
        TcpStream::connect(address).is_err(),
        "the endpoint stops with the component"
    );
}

#[tokio::test]
async fn a_taken_port_fails_before_the_work_starts() {
    let taken = TcpListener::bind("127.0.0.1:0").expect("bind");
    let address = taken.local_addr().expect("local address");
    let started = Arc::new(AtomicBool::new(false));
    let work = {
        let started = started.clone();
        async move {
            started.store(true, Ordering::SeqCst);
            Ok::<(), std::convert::Infallible>(())
        }
    };
    let outcome = run(
        &address.to_string(),
        probe(|| async { true }),
        work,
        CancellationToken::new(),
    )
    .await;
    assert!(matches!(outcome, Err(RunError::Ops(_))), "{outcome:?}");
    assert!(!started.load(Ordering::SeqCst));
}

#[tokio::test]
async fn a_failing_work_is_returned_as_it_is() {
    let outcome = run(
        "127.0.0.1:0",
        probe(|| async { true }),
        async { Err::<(), _>(std::io::Error::other("broker unreachable")) },
        CancellationToken::new(),
    )
    .await;
    match outcome {
        Err(error @ RunError::Component(_)) => assert_eq!(error.to_string(), "broker unreachable"),
        other => panic!("{other:?}"),
    }
}
