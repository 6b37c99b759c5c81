//! The async MDN client uses no proxy unless the settings name one, whatever the
//! environment says. A test binary of its own: it sets proxy variables for the whole
//! process, before any client reads them.

use edihub_config::AsyncMdnSettings;
use edihub_mdn_delivery::Clients;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use tokio::io::{AsyncReadExt, AsyncWriteExt};

/// A name that never resolves (RFC 6761): only a proxy can "reach" it.
const UNRESOLVABLE: &str = "http://mdn.edihub.invalid/mdn";

/// A proxy that answers every request 502 and counts the connections it got.
async fn start_proxy() -> (String, Arc<AtomicUsize>) {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind the proxy");
    let url = format!("http://{}", listener.local_addr().expect("proxy address"));
    let connections = Arc::new(AtomicUsize::new(0));
    let counted = Arc::clone(&connections);
    tokio::spawn(async move {
        while let Ok((mut stream, _)) = listener.accept().await {
            counted.fetch_add(1, Ordering::SeqCst);
            let mut head = [0u8; 4096];
            let _ = stream.read(&mut head).await;
            let answer =
                "HTTP/1.1 502 Bad Gateway\r\ncontent-length: 0\r\nconnection: close\r\n\r\n";
            let _ = stream.write_all(answer.as_bytes()).await;
        }
    });
    (url, connections)
}

#[tokio::test]
async fn proxy_variables_are_ignored_and_only_a_configured_proxy_is_used() {
    let (proxy, connections) = start_proxy().await;
    // SAFETY: the only test of this binary, and no other thread reads the environment
    // yet (reqwest reads it when the first client is built, below).
    unsafe {
        for name in [
            "HTTP_PROXY",
            "http_proxy",
            "HTTPS_PROXY",
            "https_proxy",
            "ALL_PROXY",
            "all_proxy",
        ] {
            std::env::set_var(name, &proxy);
        }
        std::env::remove_var("NO_PROXY");
        std::env::remove_var("no_proxy");
    }
    let _ = rustls::crypto::aws_lc_rs::default_provider().install_default();

    // The control: a client with reqwest's defaults goes through the variables' proxy.
    let default = reqwest::Client::builder()
        .build()
        .expect("a default client");
    let answer = default
        .post(UNRESOLVABLE)
        .send()
        .await
        .expect("the proxy answers");
    assert_eq!(answer.status(), 502);
    assert_eq!(connections.load(Ordering::SeqCst), 1);

    // Ours does not: the name is looked up (and fails), no proxy is asked.
    let clients = Clients::new(&AsyncMdnSettings::default()).expect("clients");
    let client = clients
        .for_endpoint(&[], &Default::default())
        .expect("a client");
    let error = client
        .post(UNRESOLVABLE)
        .send()
        .await
        .expect_err("nothing answers");
    assert!(error.is_connect(), "{error:?}");
    assert_eq!(
        connections.load(Ordering::SeqCst),
        1,
        "the proxy saw nothing more"
    );

    // A proxy named in the settings is used.
    let settings = AsyncMdnSettings {
        proxy: Some(proxy.clone()),
        ..AsyncMdnSettings::default()
    };
    let clients = Clients::new(&settings).expect("clients");
    let client = clients
        .for_endpoint(&[], &Default::default())
        .expect("a client");
    let answer = client
        .post(UNRESOLVABLE)
        .send()
        .await
        .expect("the proxy answers");
    assert_eq!(answer.status(), 502);
    assert_eq!(connections.load(Ordering::SeqCst), 2);
}
