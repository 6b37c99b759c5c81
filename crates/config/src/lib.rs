//! Typed settings and telemetry set-up shared by every edihub binary.
//!
//! Settings are layered: the defaults compiled in (serde `default`s), then a TOML file
//! named by `EDIHUB_CONFIG` (optional), then environment variables (see [`ENV_OVERRIDES`]).
//! Each service declares its own settings struct from the sections defined here, so a
//! service can only read what it needs.

pub mod runtime;
mod secret;
mod sections;
pub mod shutdown;
pub mod telemetry;

pub use secret::Secret;
pub use sections::*;

use serde::de::DeserializeOwned;
use std::path::{Path, PathBuf};

/// Environment variables that override a setting, with the dotted path they set.
/// Documented in the README; the names follow DESIGN.md's local defaults.
pub const ENV_OVERRIDES: &[(&str, &str)] = &[
    ("DATABASE_URL", "database.url"),
    ("KAFKA_BROKERS", "kafka.brokers"),
    ("S3_ENDPOINT", "s3.endpoint"),
    ("S3_BUCKET", "s3.bucket"),
    ("AWS_REGION", "s3.region"),
    ("AWS_ACCESS_KEY_ID", "s3.access_key_id"),
    ("AWS_SECRET_ACCESS_KEY", "s3.secret_access_key"),
    ("AS2_LISTEN", "gateway.listen"),
    ("EDIHUB_HUB_AS2_ID", "gateway.hub_as2_id"),
    ("EDIHUB_HUB_KEY_PASSPHRASE", "gateway.hub_key_passphrase"),
    ("EDIHUB_SEAL_KEY_PASSPHRASE", "archive.seal_key_passphrase"),
    ("EDIHUB_CONSUMER_GROUP", "consumer.group_id"),
    ("EDIHUB_CONSUMER_INSTANCE", "consumer.instance_id"),
];

#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    #[error("cannot read config file {path}: {source}")]
    Read {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("config file {path} is not valid TOML: {source}")]
    Parse {
        path: PathBuf,
        source: toml::de::Error,
    },
    #[error("invalid settings: {0}")]
    Invalid(#[source] toml::de::Error),
}

/// Loads settings: defaults, then `$EDIHUB_CONFIG` if set, then the environment.
pub fn load<T: DeserializeOwned>() -> Result<T, ConfigError> {
    let file = std::env::var_os("EDIHUB_CONFIG").map(PathBuf::from);
    load_from(file.as_deref(), |name| std::env::var(name).ok())
}

/// The same layering with the file and the environment passed in, for tests.
pub fn load_from<T: DeserializeOwned>(
    file: Option<&Path>,
    env: impl Fn(&str) -> Option<String>,
) -> Result<T, ConfigError> {
    let mut table = match file {
        Some(path) => {
            let text = std::fs::read_to_string(path).map_err(|source| ConfigError::Read {
                path: path.to_owned(),
                source,
            })?;
            toml::from_str::<toml::Table>(&text).map_err(|source| ConfigError::Parse {
                path: path.to_owned(),
                source,
            })?
        }
        None => toml::Table::new(),
    };
    for (var, path) in ENV_OVERRIDES {
        if let Some(value) = env(var) {
            set_path(&mut table, path, toml::Value::String(value));
        }
    }
    toml::Value::Table(table)
        .try_into()
        .map_err(ConfigError::Invalid)
}

fn set_path(table: &mut toml::Table, dotted: &str, value: toml::Value) {
    let mut parts = dotted.split('.').peekable();
    let mut current = table;
    while let Some(part) = parts.next() {
        if parts.peek().is_none() {
            current.insert(part.to_owned(), value);
            return;
        }
        let entry = current
            .entry(part.to_owned())
            .or_insert_with(|| toml::Value::Table(toml::Table::new()));
        if !entry.is_table() {
            *entry = toml::Value::Table(toml::Table::new());
        }
        match entry {
            toml::Value::Table(next) => current = next,
            _ => return,
        }
    }
}

#[cfg(test)]
mod tests;
