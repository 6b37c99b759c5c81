use super::*;
use edihub_config::AsyncMdnSettings;
use std::io::ErrorKind;

fn delivery(url: &str, allowed_networks: &[&str]) -> MdnDelivery {
    MdnDelivery {
        message_id: Uuid::nil(),
        partner: "ACME".into(),
        url: url.into(),
        allowed_networks: allowed_networks
            .iter()
            .map(|n| n.parse().expect("a network"))
            .collect(),
        tls: Default::default(),
    }
}

/// What sending `delivery` with its partnership's client ends in, as `post` sees it.
async fn send(delivery: &MdnDelivery) -> Result<reqwest::Response, PostError> {
    let clients = Clients::new(&AsyncMdnSettings::default()).expect("clients");
    let client = clients
        .for_endpoint(&delivery.allowed_networks, &delivery.tls)
        .expect("a client");
    let url = checked_url(delivery)?;
    client
        .post(url)
        .send()
        .await
        .map_err(|source| send_error(delivery, source))
}

/// A listener on loopback that nothing should connect to, and its port.
fn untouched_listener() -> (std::net::TcpListener, u16) {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
    listener.set_nonblocking(true).expect("non-blocking");
    let port = listener.local_addr().expect("address").port();
    (listener, port)
}

fn nobody_connected(listener: &std::net::TcpListener) -> bool {
    matches!(listener.accept(), Err(e) if e.kind() == ErrorKind::WouldBlock)
}

#[tokio::test]
async fn a_name_resolving_only_to_loopback_is_refused_for_good_without_connecting() {
    let (listener, port) = untouched_listener();
    let refused = send(&delivery(&format!("http://localhost:{port}/mdn"), &[]))
        .await
        .expect_err("refused");
    assert!(matches!(refused, PostError::Refused { .. }), "{refused}");
    assert!(refused.is_permanent());
    assert!(
        refused.to_string().contains("127.0.0.1 (loopback)"),
        "{refused}"
    );
    assert!(nobody_connected(&listener));
}

#[tokio::test]
async fn an_ip_literal_is_checked_before_sending() {
    let (listener, port) = untouched_listener();
    for url in [
        format!("http://127.0.0.1:{port}/mdn"),
        format!("http://[::ffff:127.0.0.1]:{port}/mdn"),
    ] {
        let refused = send(&delivery(&url, &[])).await.expect_err("refused");
        assert!(matches!(refused, PostError::Address { .. }), "{refused}");
        assert!(refused.is_permanent());
    }
    assert!(nobody_connected(&listener));
}

#[tokio::test]
async fn the_partnerships_networks_let_the_connection_through() {
    let (listener, port) = untouched_listener();
    // Nothing answers on the listener: the attempt is made, and fails as a retryable
    // timeout or connection error would, not as a refusal.
    drop(listener);
    for url in [
        format!("http://localhost:{port}/mdn"),
        format!("http://127.0.0.1:{port}/mdn"),
    ] {
        let outcome = send(&delivery(&url, &["127.0.0.0/8"])).await;
        let error = outcome.expect_err("nothing listens");
        assert!(matches!(error, PostError::Send { .. }), "{error}");
        assert!(!error.is_permanent());
    }
}

#[tokio::test]
async fn a_failed_lookup_is_retried() {
    let error = send(&delivery("http://mdn.edihub.invalid/mdn", &[]))
        .await
        .expect_err("does not resolve");
    assert!(matches!(error, PostError::Send { .. }), "{error}");
    assert!(!error.is_permanent());
}
