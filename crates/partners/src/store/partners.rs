//! Writing partnerships: `partner` and `partner_certificate`, checked first.

use super::certificates::{self, CertificateInfo, read_certificates};
use super::outbound::{self, OutboundUpdate};
use super::retention::{self, RetentionChange};
use super::{StoreError, check_as2_id, check_async_mdn_url, now_unix};
use crate::options::{self, OptionError};
use edihub_config::PartnerOutboundSettings;
use edihub_edifact::charset::CharsetPolicy;
use edihub_outbound_tls::OutboundTls;
use sqlx::types::Json;
use sqlx::{PgConnection, PgPool};

/// A new partnership, as `edihub partner add` takes it. [`Default`] is the secure one:
/// signing and encryption required.
#[derive(Debug, Clone)]
pub struct NewPartner {
    pub as2_id: String,
    pub name: Option<String>,
    pub require_signature: bool,
    pub require_encryption: bool,
    pub allow_expired_certificates: bool,
    pub async_mdn_urls: Vec<String>,
    /// PEM texts; each may hold several certificates.
    pub certificates: Vec<Vec<u8>>,
    /// Store certificates that have expired already (refused otherwise).
    pub store_expired: bool,
    /// See `PartnerSettings` for these; text as [`crate::options`] reads it.
    pub async_mdn_allowed_networks: Vec<String>,
    pub tls_client_fingerprints: Vec<String>,
    pub min_rsa_bits: Option<u32>,
    pub digests: Vec<String>,
    pub ciphers: Vec<String>,
    /// Built with `options::outbound_tls`, which checks it; checked again here.
    pub outbound_tls: OutboundTls,
    pub edifact_charset: CharsetPolicy,
    /// How the hub sends to the partner, as text (see `crate::outbound`); `None`: it
    /// sends nothing. Checked and normalised when written.
    pub outbound: Option<PartnerOutboundSettings>,
    /// Years the archive keeps the partner's messages locked (1 to 100); `None`: the
    /// hub's default (`s3.retention_years`).
    pub retention_years: Option<u32>,
}

impl Default for NewPartner {
    fn default() -> Self {
        Self {
            as2_id: String::new(),
            name: None,
            require_signature: true,
            require_encryption: true,
            allow_expired_certificates: false,
            async_mdn_urls: Vec::new(),
            certificates: Vec::new(),
            store_expired: false,
            async_mdn_allowed_networks: Vec::new(),
            tls_client_fingerprints: Vec::new(),
            min_rsa_bits: None,
            digests: Vec::new(),
            ciphers: Vec::new(),
            outbound_tls: OutboundTls::default(),
            edifact_charset: CharsetPolicy::default(),
            outbound: None,
            retention_years: None,
        }
    }
}

/// Changes to a partnership; `None` leaves a field as it is, a list replaces the whole
/// list (an empty one clears it).
#[derive(Debug, Clone, Default)]
pub struct PartnerUpdate {
    pub name: Option<String>,
    pub require_signature: Option<bool>,
    pub require_encryption: Option<bool>,
    pub allow_expired_certificates: Option<bool>,
    pub async_mdn_urls: Option<Vec<String>>,
    /// PEM texts appended after the current certificates.
    pub add_certificates: Vec<Vec<u8>>,
    /// SHA-256 fingerprints (or unique prefixes of at least 8 hex digits) to remove.
    pub remove_certificates: Vec<String>,
    /// Store added certificates that have expired already (refused otherwise).
    pub store_expired: bool,
    pub async_mdn_allowed_networks: Option<Vec<String>>,
    pub tls_client_fingerprints: Option<Vec<String>>,
    pub min_rsa_bits: Option<u32>,
    pub digests: Option<Vec<String>>,
    pub ciphers: Option<Vec<String>>,
    /// Replaces the whole outbound TLS setting.
    pub outbound_tls: Option<OutboundTls>,
    pub edifact_charset: Option<CharsetPolicy>,
    pub outbound: Option<OutboundUpdate>,
    /// A new archive retention; refused when lower than the current effective one.
    pub retention: Option<RetentionChange>,
}

/// The five options as the database stores them: checked and normalised.
#[derive(Debug, Default)]
struct StoredOptions {
    networks: Option<Vec<String>>,
    fingerprints: Option<Vec<String>>,
    min_rsa_bits: Option<i32>,
    digests: Option<Vec<String>>,
    ciphers: Option<Vec<String>>,
}

type Normalize = fn(&[String]) -> Result<Vec<String>, OptionError>;

fn normalized(
    list: Option<&Vec<String>>,
    f: Normalize,
) -> Result<Option<Vec<String>>, OptionError> {
    list.map(|l| f(l)).transpose()
}

impl StoredOptions {
    fn check(
        networks: Option<&Vec<String>>,
        fingerprints: Option<&Vec<String>>,
        min_rsa_bits: Option<u32>,
        digests: Option<&Vec<String>>,
        ciphers: Option<&Vec<String>>,
    ) -> Result<Self, OptionError> {
        let bits = min_rsa_bits
            .map(|bits| options::min_rsa_bits(bits.into()))
            .transpose()?;
        Ok(Self {
            networks: normalized(networks, options::normalized_networks)?,
            fingerprints: normalized(fingerprints, options::normalized_fingerprints)?,
            // Within MIN_RSA_BITS_RANGE, so it fits.
            min_rsa_bits: bits.map(|b| b as i32),
            digests: normalized(digests, options::normalized_digests)?,
            ciphers: normalized(ciphers, options::normalized_ciphers)?,
        })
    }
}

/// The setting as stored: its server trust checked (a caller may have built it without
/// `options::outbound_tls`).
fn checked_outbound_tls(tls: &OutboundTls) -> Result<OutboundTls, OptionError> {
    Ok(OutboundTls {
        server: tls.server.clone().validated()?,
        client: tls.client.clone(),
    })
}

/// Every certificate in `pems`, described; an expired one only with `store_expired`.
fn checked_certificates(
    pems: &[Vec<u8>],
    store_expired: bool,
) -> Result<Vec<CertificateInfo>, StoreError> {
    let mut described = Vec::new();
    for pem in pems {
        described.extend(read_certificates(pem)?);
    }
    certificates::check_not_expired(&described, now_unix(), store_expired)?;
    Ok(described)
}

pub async fn add_partner(pool: &PgPool, partner: &NewPartner) -> Result<(), StoreError> {
    check_as2_id(&partner.as2_id)?;
    for url in &partner.async_mdn_urls {
        check_async_mdn_url(url)?;
    }
    let stored = StoredOptions::check(
        Some(&partner.async_mdn_allowed_networks),
        Some(&partner.tls_client_fingerprints),
        partner.min_rsa_bits,
        Some(&partner.digests),
        Some(&partner.ciphers),
    )?;
    let outbound_tls = checked_outbound_tls(&partner.outbound_tls)?;
    let certificates = checked_certificates(&partner.certificates, partner.store_expired)?;
    let outbound = outbound::checked(partner.outbound.as_ref(), certificates.len())?;
    // Within RETENTION_YEARS_RANGE, so it fits.
    let retention_years = (partner.retention_years)
        .map(|years| options::retention_years(years.into()).map(|y| y as i32))
        .transpose()?;
    let mut tx = pool.begin().await?;
    let inserted = sqlx::query(
        "INSERT INTO partner (as2_id, name, require_signature, require_encryption,
                              allow_expired_certificates, async_mdn_urls,
                              async_mdn_allowed_networks, tls_client_fingerprints,
                              min_rsa_bits, digests, ciphers, outbound_tls,
                              edifact_charset, outbound, retention_years)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15)
         ON CONFLICT (as2_id) DO NOTHING",
    )
    .bind(&partner.as2_id)
    .bind(&partner.name)
    .bind(partner.require_signature)
    .bind(partner.require_encryption)
    .bind(partner.allow_expired_certificates)
    .bind(&partner.async_mdn_urls)
    .bind(stored.networks.unwrap_or_default())
    .bind(stored.fingerprints.unwrap_or_default())
    .bind(stored.min_rsa_bits)
    .bind(stored.digests.unwrap_or_default())
    .bind(stored.ciphers.unwrap_or_default())
    .bind(Json(outbound_tls))
    .bind(partner.edifact_charset.as_str())
    .bind(outbound.map(Json))
    .bind(retention_years)
    .execute(&mut *tx)
    .await?
    .rows_affected();
    if inserted == 0 {
        return Err(StoreError::PartnerExists(partner.as2_id.clone()));
    }
    insert_certificates(&mut tx, &partner.as2_id, &certificates, 0).await?;
    tx.commit().await?;
    Ok(())
}

async fn insert_certificates(
    conn: &mut PgConnection,
    as2_id: &str,
    certificates: &[CertificateInfo],
    first_position: i32,
) -> Result<(), StoreError> {
    for (offset, certificate) in certificates.iter().enumerate() {
        sqlx::query(
            "INSERT INTO partner_certificate (partner_as2_id, sha256, certificate_pem, position)
             VALUES ($1, $2, $3, $4) ON CONFLICT (partner_as2_id, sha256) DO NOTHING",
        )
        .bind(as2_id)
        .bind(&certificate.sha256)
        .bind(&certificate.pem)
        .bind(first_position + offset as i32)
        .execute(&mut *conn)
        .await?;
    }
    Ok(())
}

pub async fn update_partner(
    pool: &PgPool,
    as2_id: &str,
    update: &PartnerUpdate,
) -> Result<(), StoreError> {
    for url in update.async_mdn_urls.iter().flatten() {
        check_async_mdn_url(url)?;
    }
    let stored = StoredOptions::check(
        update.async_mdn_allowed_networks.as_ref(),
        update.tls_client_fingerprints.as_ref(),
        update.min_rsa_bits,
        update.digests.as_ref(),
        update.ciphers.as_ref(),
    )?;
    let outbound_tls = update
        .outbound_tls
        .as_ref()
        .map(checked_outbound_tls)
        .transpose()?;
    let added = checked_certificates(&update.add_certificates, update.store_expired)?;
    let mut tx = pool.begin().await?;
    let retention_years = match &update.retention {
        Some(change) => Some(retention::checked(&mut tx, as2_id, change).await?),
        None => None,
    };
    let row = RowChange {
        stored: &stored,
        outbound_tls,
        retention_years,
    };
    update_row(&mut tx, as2_id, update, row).await?;
    for fingerprint in &update.remove_certificates {
        remove_certificate(&mut tx, as2_id, fingerprint).await?;
    }
    let next: i32 = sqlx::query_scalar(
        "SELECT coalesce(max(position) + 1, 0) FROM partner_certificate WHERE partner_as2_id = $1",
    )
    .bind(as2_id)
    .fetch_one(&mut *tx)
    .await?;
    insert_certificates(&mut tx, as2_id, &added, next).await?;
    if let Some(change) = &update.outbound {
        outbound::apply(&mut tx, as2_id, change).await?;
    }
    if update.outbound.is_some() || !update.remove_certificates.is_empty() {
        outbound::check_certificates(&mut tx, as2_id).await?;
    }
    tx.commit().await?;
    Ok(())
}

/// What `update_row` writes besides the update's own fields: checked first.
struct RowChange<'a> {
    stored: &'a StoredOptions,
    outbound_tls: Option<OutboundTls>,
    retention_years: Option<i32>,
}

async fn update_row(
    conn: &mut PgConnection,
    as2_id: &str,
    update: &PartnerUpdate,
    row: RowChange<'_>,
) -> Result<(), StoreError> {
    let stored = row.stored;
    let updated = sqlx::query(
        "UPDATE partner SET
             name = coalesce($2, name),
             require_signature = coalesce($3, require_signature),
             require_encryption = coalesce($4, require_encryption),
             allow_expired_certificates = coalesce($5, allow_expired_certificates),
             async_mdn_urls = coalesce($6, async_mdn_urls),
             async_mdn_allowed_networks = coalesce($7, async_mdn_allowed_networks),
             tls_client_fingerprints = coalesce($8, tls_client_fingerprints),
             min_rsa_bits = coalesce($9, min_rsa_bits),
             digests = coalesce($10, digests),
             ciphers = coalesce($11, ciphers),
             outbound_tls = coalesce($12, outbound_tls),
             edifact_charset = coalesce($13, edifact_charset),
             retention_years = coalesce($14, retention_years),
             updated_at = now()
         WHERE as2_id = $1",
    )
    .bind(as2_id)
    .bind(&update.name)
    .bind(update.require_signature)
    .bind(update.require_encryption)
    .bind(update.allow_expired_certificates)
    .bind(&update.async_mdn_urls)
    .bind(&stored.networks)
    .bind(&stored.fingerprints)
    .bind(stored.min_rsa_bits)
    .bind(&stored.digests)
    .bind(&stored.ciphers)
    .bind(row.outbound_tls.map(Json))
    .bind(update.edifact_charset.map(CharsetPolicy::as_str))
    .bind(row.retention_years)
    .execute(&mut *conn)
    .await?
    .rows_affected();
    if updated == 0 {
        return Err(StoreError::NoPartner(as2_id.to_owned()));
    }
    Ok(())
}

/// Removes the one certificate of `as2_id` whose SHA-256 starts with `fingerprint`.
async fn remove_certificate(
    conn: &mut PgConnection,
    as2_id: &str,
    fingerprint: &str,
) -> Result<(), StoreError> {
    let fingerprint = fingerprint.to_ascii_lowercase().replace(':', "");
    if fingerprint.len() < 8 {
        return Err(StoreError::Invalid(format!(
            "certificate fingerprint {fingerprint:?}: give at least 8 hex digits"
        )));
    }
    let matching: Vec<String> = sqlx::query_scalar(
        "SELECT sha256 FROM partner_certificate
         WHERE partner_as2_id = $1 AND starts_with(sha256, $2)",
    )
    .bind(as2_id)
    .bind(&fingerprint)
    .fetch_all(&mut *conn)
    .await?;
    let [sha256] = matching.as_slice() else {
        return Err(StoreError::Invalid(format!(
            "partner {as2_id} has {} certificates whose SHA-256 starts with {fingerprint}; \
             give a prefix that matches exactly one",
            matching.len()
        )));
    };
    sqlx::query("DELETE FROM partner_certificate WHERE partner_as2_id = $1 AND sha256 = $2")
        .bind(as2_id)
        .bind(sha256)
        .execute(&mut *conn)
        .await?;
    Ok(())
}

pub async fn remove_partner(pool: &PgPool, as2_id: &str) -> Result<(), StoreError> {
    let removed = sqlx::query("DELETE FROM partner WHERE as2_id = $1")
        .bind(as2_id)
        .execute(pool)
        .await?
        .rows_affected();
    if removed == 0 {
        return Err(StoreError::NoPartner(as2_id.to_owned()));
    }
    Ok(())
}
