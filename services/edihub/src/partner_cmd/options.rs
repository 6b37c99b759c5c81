//! The flags `partner add` and `partner update` share, turned into the store's
//! [`NewPartner`] and [`PartnerUpdate`].

use anyhow::Context;
use clap::Args;
use edihub_partners::store::{self, NewPartner, PartnerUpdate};
use std::path::{Path, PathBuf};

#[derive(Args)]
pub struct PartnerOptions {
    /// A human name for operators.
    #[arg(long)]
    name: Option<String>,
    /// Refuse unsigned messages (insufficient-message-security). `add` defaults to
    /// true: give `--require-signature false` to accept unsigned messages.
    #[arg(long, value_name = "BOOL")]
    require_signature: Option<bool>,
    /// Refuse unencrypted messages (insufficient-message-security). `add` defaults to
    /// true: give `--require-encryption false` to accept unencrypted messages.
    #[arg(long, value_name = "BOOL")]
    require_encryption: Option<bool>,
    /// Accept signatures by the partner's certificates outside their validity period.
    #[arg(long, value_name = "BOOL")]
    allow_expired_certificates: Option<bool>,
    /// Store a certificate given here although it has expired already (refused
    /// otherwise).
    #[arg(long)]
    store_expired: bool,
    /// A URL (exact) or URL prefix (ending in `/`) where asynchronous MDNs may be sent;
    /// repeatable. With `update`, replaces the list; `--no-async-mdn-urls` empties it.
    #[arg(long = "async-mdn-url")]
    async_mdn_urls: Vec<String>,
    /// With `update`: remove every async MDN URL.
    #[arg(long, conflicts_with = "async_mdn_urls")]
    no_async_mdn_urls: bool,
    /// A network (CIDR, or one address) an async MDN URL may resolve to although it is
    /// not public (loopback, private, link-local); repeatable. With `update`, replaces
    /// the list.
    #[arg(long = "async-mdn-allow-network", value_name = "CIDR")]
    async_mdn_allowed_networks: Vec<String>,
    /// With `update`: allow no non-public network any more.
    #[arg(long, conflicts_with = "async_mdn_allowed_networks")]
    no_async_mdn_allow_networks: bool,
    /// SHA-256 (hex, colons optional) of a TLS client certificate the partner must
    /// connect with; repeatable. With `update`, replaces the list (together with
    /// `--tls-client-certificate`).
    #[arg(long = "tls-client-fingerprint", value_name = "HEX")]
    tls_client_fingerprints: Vec<String>,
    /// PEM file of a TLS client certificate the partner must connect with (its SHA-256
    /// is stored); repeatable.
    #[arg(long = "tls-client-certificate", value_name = "FILE")]
    tls_client_certificates: Vec<PathBuf>,
    /// With `update`: require no TLS client certificate any more.
    #[arg(long, conflicts_with_all = ["tls_client_fingerprints", "tls_client_certificates"])]
    no_tls_client_certificates: bool,
    /// Refuse signatures by RSA keys shorter than this (default 2048).
    #[arg(long, value_name = "N")]
    min_rsa_bits: Option<u32>,
    /// A signature digest to accept (`sha-256`, `sha-512`, ...); repeatable. Not given
    /// (with `add`): every digest edihub knows, SHA-1 with a warning.
    #[arg(long = "digest", value_name = "NAME")]
    digests: Vec<String>,
    /// With `update`: accept every digest edihub knows again.
    #[arg(long, conflicts_with = "digests")]
    all_digests: bool,
    /// A content-encryption cipher to accept (`aes256`, `aes128-gcm`, `3des`, ...);
    /// repeatable. Not given (with `add`): every cipher edihub knows, 3DES with a
    /// warning.
    #[arg(long = "cipher", value_name = "NAME")]
    ciphers: Vec<String>,
    /// With `update`: accept every cipher edihub knows again.
    #[arg(long, conflicts_with = "ciphers")]
    all_ciphers: bool,
}

pub fn read(path: &Path) -> anyhow::Result<Vec<u8>> {
    std::fs::read(path).with_context(|| format!("cannot read {}", path.display()))
}

pub fn read_all(paths: &[PathBuf]) -> anyhow::Result<Vec<Vec<u8>>> {
    paths.iter().map(|p| read(p)).collect()
}

/// `--tls-client-fingerprint`s, then the SHA-256 of each `--tls-client-certificate`.
fn tls_fingerprints(fingerprints: &[String], files: &[PathBuf]) -> anyhow::Result<Vec<String>> {
    let mut all = fingerprints.to_vec();
    for file in files {
        let described = store::read_certificates(&read(file)?)
            .with_context(|| format!("TLS client certificate {}", file.display()))?;
        all.extend(described.into_iter().map(|c| c.sha256));
    }
    Ok(all)
}

/// A list option of `update`: `None` (unchanged) when neither the values nor the
/// clearing flag were given.
fn replacement(values: Vec<String>, clear: bool) -> Option<Vec<String>> {
    if clear {
        Some(Vec::new())
    } else if values.is_empty() {
        None
    } else {
        Some(values)
    }
}

impl PartnerOptions {
    /// A new partnership: what is not given takes the secure default.
    pub fn into_new(
        self,
        as2_id: String,
        certificates: Vec<Vec<u8>>,
    ) -> anyhow::Result<NewPartner> {
        let defaults = NewPartner::default();
        Ok(NewPartner {
            tls_client_fingerprints: tls_fingerprints(
                &self.tls_client_fingerprints,
                &self.tls_client_certificates,
            )?,
            as2_id,
            name: self.name,
            require_signature: self.require_signature.unwrap_or(defaults.require_signature),
            require_encryption: self
                .require_encryption
                .unwrap_or(defaults.require_encryption),
            allow_expired_certificates: self.allow_expired_certificates.unwrap_or(false),
            async_mdn_urls: self.async_mdn_urls,
            certificates,
            store_expired: self.store_expired,
            async_mdn_allowed_networks: self.async_mdn_allowed_networks,
            min_rsa_bits: self.min_rsa_bits,
            digests: self.digests,
            ciphers: self.ciphers,
        })
    }

    pub fn into_update(
        self,
        add_certificates: Vec<Vec<u8>>,
        remove_certificates: Vec<String>,
    ) -> anyhow::Result<PartnerUpdate> {
        let fingerprints =
            tls_fingerprints(&self.tls_client_fingerprints, &self.tls_client_certificates)?;
        Ok(PartnerUpdate {
            name: self.name,
            require_signature: self.require_signature,
            require_encryption: self.require_encryption,
            allow_expired_certificates: self.allow_expired_certificates,
            async_mdn_urls: replacement(self.async_mdn_urls, self.no_async_mdn_urls),
            add_certificates,
            remove_certificates,
            store_expired: self.store_expired,
            async_mdn_allowed_networks: replacement(
                self.async_mdn_allowed_networks,
                self.no_async_mdn_allow_networks,
            ),
            tls_client_fingerprints: replacement(fingerprints, self.no_tls_client_certificates),
            min_rsa_bits: self.min_rsa_bits,
            digests: replacement(self.digests, self.all_digests),
            ciphers: replacement(self.ciphers, self.all_ciphers),
        })
    }
}
