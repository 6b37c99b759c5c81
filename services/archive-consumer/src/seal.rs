//! The ledger's sealing, from `[archive]`: the key that signs segments (required: the
//! consumer refuses to start without it) and when to seal.

use edihub_config::ArchiveSettings;
use edihub_ledger::SealPolicy;
use std::path::Path;
use std::time::Duration;

#[derive(Debug, thiserror::Error)]
pub enum SealSetupError {
    #[error(
        "archive.{0} is not set: the archive consumer seals the audit ledger and needs a sealing certificate and key (docs/adr/0006-audit-evidence-and-ledger.md)"
    )]
    Missing(&'static str),
    #[error("archive.{setting}: cannot read {path}: {source}")]
    Read {
        setting: &'static str,
        path: std::path::PathBuf,
        source: std::io::Error,
    },
    #[error("archive.seal_certificate / seal_private_key: {0}")]
    Key(#[source] edihub_as2::As2Error),
    #[error("archive.timestamp_url is not a URL: {0}")]
    TimestampUrl(#[source] url::ParseError),
}

/// The sealing identity `[archive]` names.
pub fn sealing_key(settings: &ArchiveSettings) -> Result<edihub_as2::Identity, SealSetupError> {
    let certificate = read("seal_certificate", settings.seal_certificate.as_deref())?;
    let key = read("seal_private_key", settings.seal_private_key.as_deref())?;
    let passphrase = settings
        .seal_key_passphrase
        .as_ref()
        .map(|p| p.expose().as_bytes());
    edihub_as2::Identity::from_pem_with_passphrase(&certificate, &key, passphrase)
        .map_err(SealSetupError::Key)
}

fn read(setting: &'static str, path: Option<&Path>) -> Result<Vec<u8>, SealSetupError> {
    let path = path.ok_or(SealSetupError::Missing(setting))?;
    std::fs::read(path).map_err(|source| SealSetupError::Read {
        setting,
        path: path.to_owned(),
        source,
    })
}

pub fn policy(settings: &ArchiveSettings) -> Result<SealPolicy, SealSetupError> {
    let timestamp_url = settings
        .timestamp_url
        .as_deref()
        .map(url::Url::parse)
        .transpose()
        .map_err(SealSetupError::TimestampUrl)?;
    Ok(SealPolicy {
        max_entries: settings.seal_max_entries,
        max_wait: Duration::from_secs(settings.seal_interval_seconds),
        timestamp_url,
    })
}

/// How often the sealer looks: often enough that a due segment waits at most a second.
pub fn tick(policy: &SealPolicy) -> Duration {
    policy
        .max_wait
        .min(Duration::from_secs(1))
        .max(Duration::from_millis(50))
}
