//! The partnerships and hub identities kept in the database: what
//! `edihub partner|identity ...` writes and what [`crate::live`] reads. Everything is
//! validated before it is written (certificates parse and have not expired, a key
//! matches its certificate, async MDN URLs are http or https, the options read as
//! [`crate::options`] reads them), so a gateway never meets a row it cannot use unless
//! it was edited by hand.

mod certificates;
mod identities;
mod outbound;
mod partners;
mod retention;

pub use certificates::{
    CertificateInfo, CertificateWarning, EXPIRY_WARNING_SECONDS, fingerprint, read_certificates,
    unix_time, warnings,
};
pub use identities::{list_identities, remove_identity, set_identity};
pub use outbound::OutboundUpdate;
pub use partners::{NewPartner, PartnerUpdate, add_partner, remove_partner, update_partner};
pub use retention::RetentionChange;

use crate::Partnership;
use crate::options::{self, OptionError};

use sqlx::PgPool;

/// The channel the `partners_notify` triggers signal on commit.
pub const NOTIFY_CHANNEL: &str = "partners_changed";

#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    #[error("database error: {0}")]
    Database(#[from] sqlx::Error),
    #[error("no partner {0:?}")]
    NoPartner(String),
    #[error("partner {0:?} exists already (use `edihub partner update`)")]
    PartnerExists(String),
    #[error("no hub identity {0:?}")]
    NoIdentity(String),
    #[error(transparent)]
    Option(#[from] OptionError),
    #[error(
        "certificate {sha256} expired on {not_after}; store it anyway with --store-expired \
         (signatures by it are still refused unless the partnership allows expired certificates)"
    )]
    ExpiredCertificate { sha256: String, not_after: String },
    #[error(
        "partner {as2_id}: retention_years {requested} is shorter than the current {current}; \
         archive retention is never shortened (the objects already locked stay locked anyway)"
    )]
    RetentionShortened {
        as2_id: String,
        current: u32,
        requested: u32,
    },
    #[error("{0}")]
    Invalid(String),
}

/// A partner as stored.
#[derive(Debug, Clone, PartialEq, Eq, Default, sqlx::FromRow)]
pub struct PartnerRow {
    pub as2_id: String,
    pub name: Option<String>,
    pub require_signature: bool,
    pub require_encryption: bool,
    pub allow_expired_certificates: bool,
    pub async_mdn_urls: Vec<String>,
    /// PEM, one certificate each, in position order (the first is the encryption one).
    pub certificates: Vec<String>,
    /// The options below as [`crate::options`] reads them (normalised when written).
    pub async_mdn_allowed_networks: Vec<String>,
    pub tls_client_fingerprints: Vec<String>,
    /// `None`: the default (`edihub_as2::DEFAULT_MIN_RSA_BITS`).
    pub min_rsa_bits: Option<i32>,
    pub digests: Vec<String>,
    pub ciphers: Vec<String>,
    /// Checked when written (`options::outbound_tls`).
    pub outbound_tls: sqlx::types::Json<edihub_outbound_tls::OutboundTls>,
    /// `strict` or `tolerant` (a CHECK constraint keeps it so).
    pub edifact_charset: String,
    /// Normalised when written (`outbound::normalized`); `None`: the hub sends nothing.
    pub outbound: Option<sqlx::types::Json<edihub_config::PartnerOutboundSettings>>,
    /// Years the archive keeps the partner's messages locked; `None`: the hub's default
    /// (`s3.retention_years`). 1 to 100 (a CHECK constraint keeps it so).
    pub retention_years: Option<i32>,
}

impl PartnerRow {
    pub(crate) fn partnership(&self) -> Result<Partnership, StoreError> {
        let mut certificates = Vec::new();
        for pem in &self.certificates {
            certificates.extend(
                edihub_as2::certificates_from_pem(pem.as_bytes())
                    .map_err(|e| StoreError::Invalid(format!("certificates: {e}")))?,
            );
        }
        Ok(Partnership {
            as2_id: self.as2_id.clone(),
            name: self.name.clone(),
            require_signature: self.require_signature,
            require_encryption: self.require_encryption,
            allow_expired: self.allow_expired_certificates,
            async_mdn_urls: self.async_mdn_urls.clone(),
            async_mdn_allowed_networks: options::networks(&self.async_mdn_allowed_networks)?,
            tls_client_fingerprints: options::fingerprints(&self.tls_client_fingerprints)?,
            algorithms: options::algorithms(self.min_rsa_bits()?, &self.digests, &self.ciphers)?,
            outbound_tls: self.outbound_tls.0.clone(),
            edifact_charset: options::charset_policy(Some(&self.edifact_charset))?,
            outbound: crate::outbound::of_partnership(
                self.outbound.as_ref().map(|json| &json.0),
                certificates.len(),
            )?,
            retention_years: self.retention_years()?,
            certificates,
        })
    }

    /// `retention_years`, checked (the column's CHECK constraint keeps it in range).
    pub fn retention_years(&self) -> Result<Option<u32>, OptionError> {
        self.retention_years
            .map(|years| options::retention_years(years.into()))
            .transpose()
    }

    /// The years the archive locks this partner's messages for, given the hub's default
    /// (`s3.retention_years`) for a partner that sets none.
    pub fn effective_retention_years(&self, hub_default: u32) -> u32 {
        match self.retention_years() {
            Ok(Some(years)) => years,
            _ => hub_default,
        }
    }

    /// `min_rsa_bits`, checked (the column's CHECK constraint keeps it in range).
    pub fn min_rsa_bits(&self) -> Result<Option<u32>, OptionError> {
        self.min_rsa_bits
            .map(|bits| options::min_rsa_bits(bits.into()))
            .transpose()
    }

    /// The RSA key size below which this partnership refuses signatures.
    pub fn effective_min_rsa_bits(&self) -> u32 {
        match self.min_rsa_bits() {
            Ok(Some(bits)) => bits,
            _ => edihub_as2::smime::DEFAULT_MIN_RSA_BITS,
        }
    }
}

/// A hub identity as stored.
#[derive(Debug, Clone, PartialEq, Eq, sqlx::FromRow)]
pub struct IdentityRow {
    pub as2_id: String,
    pub certificate_pem: String,
    pub private_key_pem: String,
}

impl IdentityRow {
    /// Whether the key is stored encrypted (under `gateway.hub_key_passphrase`).
    pub fn key_encrypted(&self) -> bool {
        edihub_as2::crypto::is_encrypted_private_key_pem(self.private_key_pem.as_bytes())
    }
}

/// Everything [`crate::Directory::with_database`] needs.
#[derive(Debug, Clone, Default)]
pub struct DirectoryRows {
    pub identities: Vec<IdentityRow>,
    pub partners: Vec<PartnerRow>,
}

/// The stored certificates of a partner, described.
pub fn describe_certificates(row: &PartnerRow) -> Result<Vec<CertificateInfo>, StoreError> {
    let mut described = Vec::new();
    for pem in &row.certificates {
        described.extend(read_certificates(pem.as_bytes())?);
    }
    Ok(described)
}

/// What is wrong with a partner's certificates as of `now_unix` (see [`warnings`]).
pub fn partner_warnings(
    row: &PartnerRow,
    now_unix: i64,
) -> Result<Vec<CertificateWarning>, StoreError> {
    let min_rsa_bits = row.effective_min_rsa_bits();
    Ok(describe_certificates(row)?
        .iter()
        .flat_map(|c| warnings(c, now_unix, min_rsa_bits))
        .collect())
}

/// An async MDN URL entry must be a plain http or https URL (see
/// `PartnerSettings::async_mdn_urls` for how entries match).
fn check_async_mdn_url(entry: &str) -> Result<(), StoreError> {
    edihub_as2::receipt_url::check_entry(entry)
        .map(|_| ())
        .map_err(|e| StoreError::Invalid(format!("async MDN URL {entry:?}: {e}")))
}

fn check_as2_id(as2_id: &str) -> Result<(), StoreError> {
    if !options::is_as2_id(as2_id) {
        return Err(StoreError::Invalid(format!(
            "AS2 id {as2_id:?}: 1 to 128 printable ASCII characters, no surrounding spaces"
        )));
    }
    Ok(())
}

/// The clock the store judges certificates by when they are written.
fn now_unix() -> i64 {
    chrono::Utc::now().timestamp()
}

/// Columns named as [`PartnerRow`]'s fields; callers add the filter and `GROUP BY`.
const SELECT_PARTNERS: &str = "
    SELECT p.as2_id, p.name, p.require_signature, p.require_encryption,
           p.allow_expired_certificates, p.async_mdn_urls, p.async_mdn_allowed_networks,
           p.tls_client_fingerprints, p.min_rsa_bits, p.digests, p.ciphers, p.outbound_tls,
           p.edifact_charset, p.outbound, p.retention_years,
           coalesce(array_agg(c.certificate_pem ORDER BY c.position)
                    FILTER (WHERE c.sha256 IS NOT NULL), '{}') AS certificates
    FROM partner p LEFT JOIN partner_certificate c ON c.partner_as2_id = p.as2_id";

const SELECT_IDENTITIES: &str =
    "SELECT as2_id, certificate_pem, private_key_pem FROM hub_identity ORDER BY as2_id";

pub async fn list_partners(pool: &PgPool) -> Result<Vec<PartnerRow>, StoreError> {
    Ok(sqlx::query_as(sqlx::AssertSqlSafe(format!(
        "{SELECT_PARTNERS} GROUP BY p.as2_id ORDER BY p.as2_id"
    )))
    .fetch_all(pool)
    .await?)
}

pub async fn get_partner(pool: &PgPool, as2_id: &str) -> Result<PartnerRow, StoreError> {
    let row: Option<PartnerRow> = sqlx::query_as(sqlx::AssertSqlSafe(format!(
        "{SELECT_PARTNERS} WHERE p.as2_id = $1 GROUP BY p.as2_id"
    )))
    .bind(as2_id)
    .fetch_optional(pool)
    .await?;
    row.ok_or_else(|| StoreError::NoPartner(as2_id.to_owned()))
}

/// Everything, in one snapshot (one transaction, so a partner and its certificates are
/// read as of the same commit).
pub async fn load(pool: &PgPool) -> Result<DirectoryRows, StoreError> {
    let mut tx = pool.begin().await?;
    sqlx::query("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY")
        .execute(&mut *tx)
        .await?;
    let identities = sqlx::query_as(SELECT_IDENTITIES)
        .fetch_all(&mut *tx)
        .await?;
    let partners = sqlx::query_as(sqlx::AssertSqlSafe(format!(
        "{SELECT_PARTNERS} GROUP BY p.as2_id"
    )))
    .fetch_all(&mut *tx)
    .await?;
    tx.commit().await?;
    Ok(DirectoryRows {
        identities,
        partners,
    })
}

#[cfg(test)]
mod tests;
