//! `/metrics`, `/health` and `/ready` are on `gateway.ops_listen`, not on the partner
//! port; and a gateway with neither HTTPS nor plain HTTP configured does not start.

use edihub_tests::spawn_app;

#[tokio::test]
async fn the_operations_routes_are_served_on_ops_listen_and_not_on_the_partner_port() {
    let app = spawn_app().await;
    for path in ["/metrics", "/health", "/ready"] {
        let partner_port = app
            .http
            .get(format!("http://{}{path}", app.address))
            .send()
            .await
            .expect("GET on the partner port");
        assert_eq!(partner_port.status(), 404, "{path} on the partner port");
        let ops = app
            .http
            .get(format!("http://{}{path}", app.ops_address))
            .send()
            .await
            .expect("GET on the operations port");
        assert_eq!(ops.status(), 200, "{path} on ops_listen");
    }
    assert!(app.metrics().await.contains("edihub_gateway_connections"));
}

#[tokio::test]
async fn a_gateway_without_tls_or_plain_http_refuses_to_start() {
    let mut settings = as2_gateway::Settings::default();
    settings.gateway.listen = "127.0.0.1:0".into();
    settings.gateway.ops_listen = "127.0.0.1:0".into();
    settings.database.url = edihub_config::Secret::new("postgres://postgres@127.0.0.1:1/none");
    let error = match as2_gateway::Application::build(settings).await {
        Ok(_) => panic!("a gateway without transport security started"),
        Err(error) => format!("{error:#}"),
    };
    assert!(
        error.contains("gateway.tls") && error.contains("gateway.plain_http"),
        "{error}"
    );
}
