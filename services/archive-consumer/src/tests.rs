//! The settings stay what deployments and the chaos test write: `ops_listen` at the
//! top level, defaulting to this service's own port.

use super::Settings;

#[test]
fn the_ops_endpoint_defaults_to_this_services_port() {
    assert_eq!(Settings::default().ops_listen, "127.0.0.1:9103");
    let empty: Settings = toml::from_str("").expect("empty settings");
    assert_eq!(empty.ops_listen, "127.0.0.1:9103");
}

#[test]
fn ops_listen_is_read_from_the_top_level() {
    let settings: Settings = toml::from_str(r#"ops_listen = "127.0.0.1:0""#).expect("settings");
    assert_eq!(settings.ops_listen, "127.0.0.1:0");
}

fn fixture(name: &str) -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../fixtures/as2")
        .join(name)
}

#[test]
fn without_a_sealing_certificate_it_refuses_naming_the_setting() {
    let error = crate::seal::sealing_key(&Default::default()).expect_err("no key");
    assert!(
        error.to_string().contains("archive.seal_certificate"),
        "{error}"
    );
    let mut archive = edihub_config::ArchiveSettings {
        seal_certificate: Some(fixture("hub.crt")),
        ..Default::default()
    };
    let error = crate::seal::sealing_key(&archive).expect_err("no private key");
    assert!(
        error.to_string().contains("archive.seal_private_key"),
        "{error}"
    );
    archive.seal_private_key = Some(fixture("hub.key"));
    crate::seal::sealing_key(&archive).expect("the fixture hub key seals");
}

#[test]
fn the_archive_section_is_read() {
    let settings: Settings = toml::from_str(
        "[archive]\nseal_certificate = \"a.crt\"\nseal_private_key = \"a.key\"\nseal_max_entries = 5\nseal_interval_seconds = 2\n",
    )
    .expect("settings");
    assert_eq!(settings.archive.seal_max_entries, 5);
    let policy = crate::seal::policy(&settings.archive).expect("policy");
    assert_eq!(
        crate::seal::tick(&policy),
        std::time::Duration::from_secs(1)
    );
    assert_eq!(policy.max_wait, std::time::Duration::from_secs(2));
}

#[test]
fn a_timestamp_url_that_is_no_url_is_refused() {
    let archive = edihub_config::ArchiveSettings {
        timestamp_url: Some("not a url".into()),
        ..Default::default()
    };
    assert!(crate::seal::policy(&archive).is_err());
}
