//! The settings stay what deployments and the chaos test write: `ops_listen` at the
//! top level, defaulting to this service's own port.

use super::Settings;

#[test]
fn the_ops_endpoint_defaults_to_this_services_port() {
    assert_eq!(Settings::default().ops_listen, "127.0.0.1:9101");
    let empty: Settings = toml::from_str("").expect("empty settings");
    assert_eq!(empty.ops_listen, "127.0.0.1:9101");
}

#[test]
fn ops_listen_is_read_from_the_top_level() {
    let settings: Settings = toml::from_str(r#"ops_listen = "127.0.0.1:0""#).expect("settings");
    assert_eq!(settings.ops_listen, "127.0.0.1:0");
}

#[test]
fn the_outbound_sender_runs_by_default_with_its_own_retry() {
    let settings = Settings::default();
    assert!(settings.outbound.enabled);
    assert_eq!(settings.outbound.retry.max_attempts, 10);
    let off: Settings =
        toml::from_str("[outbound]\nenabled = false\n[outbound.retry]\nmax_attempts = 3\n")
            .expect("settings");
    assert!(!off.outbound.enabled);
    assert_eq!(off.outbound.retry.max_attempts, 3);
}
