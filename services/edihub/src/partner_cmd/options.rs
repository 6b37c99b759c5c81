//! The flags `partner add` and `partner update` share, turned into the store's
//! [`NewPartner`] and [`PartnerUpdate`].

mod outbound;

use anyhow::Context;
use clap::Args;
use edihub_edifact::charset::CharsetPolicy;
use edihub_outbound_tls::OutboundTls;
use edihub_partners::options;
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
    /// Years the archive keeps this partner's messages locked (1 to 100; default: the
    /// hub's `s3.retention_years`). Never shortened: `update` refuses a lower value.
    #[arg(long, value_name = "YEARS")]
    retention_years: Option<u32>,
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
    /// Outbound HTTPS (async MDNs): a PEM file of CA certificates trusted for the
    /// partner's server besides the platform's roots (stored in the database). With
    /// `update`, any `--outbound-tls-*` flag replaces the whole outbound TLS setting.
    #[arg(
        long,
        value_name = "FILE",
        conflicts_with = "outbound_tls_fingerprints"
    )]
    outbound_tls_ca: Option<PathBuf>,
    /// Outbound HTTPS: trust only a server certificate with this SHA-256 (hex, colons
    /// optional), whatever its issuer, host name or dates; repeatable.
    #[arg(long = "outbound-tls-fingerprint", value_name = "HEX")]
    outbound_tls_fingerprints: Vec<String>,
    /// Outbound HTTPS: the client certificate (PEM chain) to present, with
    /// `--outbound-tls-client-key`. Only the paths are stored: the gateway (which delivers async MDNs) reads
    /// the files.
    #[arg(long, value_name = "FILE", requires = "outbound_tls_client_key")]
    outbound_tls_client_certificate: Option<PathBuf>,
    #[arg(
        long,
        value_name = "FILE",
        requires = "outbound_tls_client_certificate"
    )]
    outbound_tls_client_key: Option<PathBuf>,
    /// How strictly the partner's EDIFACT is held to the repertoire its UNB declares:
    /// `tolerant` (the default with `add`) reads a byte outside it that is printable in
    /// ISO 8859-1 as such and warns; `strict` rejects the interchange.
    #[arg(long, value_name = "POLICY")]
    edifact_charset: Option<CharsetPolicy>,
    /// With `update`: outbound HTTPS back to the platform's roots, no client certificate.
    #[arg(long, conflicts_with_all = [
        "outbound_tls_ca", "outbound_tls_fingerprints",
        "outbound_tls_client_certificate", "outbound_tls_client_key",
    ])]
    outbound_tls_defaults: bool,
    // Boxed: the command enum stays small (clippy's large_enum_variant).
    #[command(flatten)]
    outbound: Box<outbound::OutboundOptions>,
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

impl PartnerOptions {
    fn outbound_tls_given(&self) -> bool {
        self.outbound_tls_ca.is_some()
            || !self.outbound_tls_fingerprints.is_empty()
            || self.outbound_tls_client_certificate.is_some()
            || self.outbound_tls_defaults
    }

    /// The outbound TLS the flags describe (the defaults when none is given). A client
    /// certificate this host cannot read is only warned about: the gateway may run
    /// elsewhere.
    fn outbound_tls(&self) -> anyhow::Result<OutboundTls> {
        let ca_pem = match &self.outbound_tls_ca {
            Some(path) => Some(
                String::from_utf8(read(path)?)
                    .with_context(|| format!("{} is not PEM text", path.display()))?,
            ),
            None => None,
        };
        let absolute = |p: &Option<PathBuf>| p.as_deref().map(std::path::absolute).transpose();
        let tls = options::outbound_tls(
            ca_pem,
            &self.outbound_tls_fingerprints,
            absolute(&self.outbound_tls_client_certificate)?,
            absolute(&self.outbound_tls_client_key)?,
        )?;
        if tls.client.is_some()
            && let Err(error) = edihub_outbound_tls::client_config(&tls)
        {
            eprintln!("warning: {error} (the gateway must be able to read it)");
        }
        Ok(tls)
    }
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
        let outbound_tls = self.outbound_tls()?;
        Ok(NewPartner {
            outbound_tls,
            outbound: self.outbound.into_new()?,
            edifact_charset: self.edifact_charset.unwrap_or_default(),
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
            retention_years: self.retention_years,
        })
    }

    /// A change to a partnership; `retention_default` is the hub's `s3.retention_years`,
    /// against which a partner without a retention of its own is judged.
    pub fn into_update(
        self,
        add_certificates: Vec<Vec<u8>>,
        remove_certificates: Vec<String>,
        retention_default: u32,
    ) -> anyhow::Result<PartnerUpdate> {
        let fingerprints =
            tls_fingerprints(&self.tls_client_fingerprints, &self.tls_client_certificates)?;
        let outbound_tls = if self.outbound_tls_given() {
            Some(self.outbound_tls()?)
        } else {
            None
        };
        Ok(PartnerUpdate {
            outbound_tls,
            outbound: self.outbound.into_update(),
            edifact_charset: self.edifact_charset,
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
            retention: self.retention_years.map(|years| store::RetentionChange {
                years,
                hub_default: retention_default,
            }),
        })
    }
}
