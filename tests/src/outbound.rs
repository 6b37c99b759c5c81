//! Outbound AS2 in tests: the settings file the CLI and the outbox relay read, and the
//! relay built from it (stepped by the tests, not run).

use crate::{TestApp, fixture_path};
use outbox_relay::OutboundRelay;
use std::path::{Path, PathBuf};

/// Who a settings file sends as and to whom: AS2 names, and the fixture stems of their
/// `.crt` and `.key` files.
pub struct Pair<'a> {
    pub me: &'a str,
    pub my_key: &'a str,
    pub partner: &'a str,
    pub partner_key: &'a str,
}

/// A settings file for the CLI and the relay on `app`'s database and broker: `pair.me`
/// sends to `pair.partner` at `url`. Its retries wait 1 ms unless `outbound` sets the
/// partnership's backoff.
pub fn settings_file(app: &TestApp, pair: &Pair<'_>, url: &str, outbound: &str) -> PathBuf {
    let backoff = if outbound.contains("backoff_ms") {
        ""
    } else {
        "base_backoff_ms = 1\nmax_backoff_ms = 1"
    };
    let path = std::env::temp_dir().join(format!("edihub-outbound-{}.toml", app.suffix));
    let text = format!(
        r#"
ops_listen = "127.0.0.1:0"

[database]
url = "{database}"

[kafka]
brokers = "{brokers}"

[kafka.topics]
outbound_status = "{topic}"
outbound_requested = "{requested}"
dead_letter = "{dead_letter}"

[outbound_requests]
group_id = "edihub-outbound-requests-{suffix}"

[s3]
endpoint = "{s3}"

[outbound.retry]
batch_size = 20
poll_interval_ms = 100
base_backoff_ms = 1
max_backoff_ms = 1
max_attempts = 5

[gateway]
hub_as2_id = "{me}"
hub_certificate = "{hub_crt}"
hub_private_key = "{hub_key}"

[[gateway.partners]]
as2_id = "{partner}"
certificates = ["{partner_crt}"]
async_mdn_allowed_networks = ["127.0.0.0/8"]

[gateway.partners.outbound]
url = "{url}"
{backoff}
{outbound}
"#,
        database = app.database.url.expose(),
        brokers = app.kafka.brokers,
        topic = app.kafka.topics.outbound_status,
        requested = app.kafka.topics.outbound_requested,
        dead_letter = app.kafka.topics.dead_letter,
        suffix = app.suffix,
        s3 = app.s3.endpoint.as_deref().unwrap_or_default(),
        me = pair.me,
        partner = pair.partner,
        hub_crt = fixture_path(&format!("{}.crt", pair.my_key)).display(),
        hub_key = fixture_path(&format!("{}.key", pair.my_key)).display(),
        partner_crt = fixture_path(&format!("{}.crt", pair.partner_key)).display(),
    );
    std::fs::write(&path, text).expect("write the settings file");
    path
}

/// The outbound relay of the settings file `config`, on `app`'s pool.
pub async fn relay(config: &Path, app: &TestApp) -> OutboundRelay {
    let settings: outbox_relay::Settings =
        edihub_config::load_from(Some(config), |_| None).expect("relay settings");
    OutboundRelay::build(&settings, app.pool.clone())
        .await
        .expect("outbound relay")
}
