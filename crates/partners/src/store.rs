//! The partnerships and hub identities kept in the database: what
//! `edihub partner|identity ...` writes and what [`crate::live`] reads. Everything is
//! validated before it is written (certificates parse, a key matches its certificate,
//! async MDN URLs are http or https), so a gateway never meets a row it cannot use
//! unless its PEM was edited by hand.

use crate::Partnership;
use edihub_as2::{Certificate, Identity};
use sha2::{Digest, Sha256};
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
    #[error("{0}")]
    Invalid(String),
}

/// A partner as stored.
#[derive(Debug, Clone, PartialEq, Eq, sqlx::FromRow)]
pub struct PartnerRow {
    pub as2_id: String,
    pub name: Option<String>,
    pub require_signature: bool,
    pub require_encryption: bool,
    pub allow_expired_certificates: bool,
    pub async_mdn_urls: Vec<String>,
    /// PEM, one certificate each, in position order (the first is the encryption one).
    pub certificates: Vec<String>,
}

impl PartnerRow {
    pub(crate) fn partnership(&self) -> Result<Partnership, edihub_as2::As2Error> {
        let mut certificates = Vec::new();
        for pem in &self.certificates {
            certificates.extend(edihub_as2::certificates_from_pem(pem.as_bytes())?);
        }
        Ok(Partnership {
            as2_id: self.as2_id.clone(),
            name: self.name.clone(),
            certificates,
            require_signature: self.require_signature,
            require_encryption: self.require_encryption,
            allow_expired: self.allow_expired_certificates,
            async_mdn_urls: self.async_mdn_urls.clone(),
            async_mdn_allowed_networks: Vec::new(),
            tls_client_fingerprints: Vec::new(),
            algorithms: edihub_as2::AlgorithmPolicy::default(),
        })
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

/// One certificate, described for operators.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CertificateInfo {
    /// SHA-256 of the DER encoding, lower-case hex: what `--remove-cert` takes.
    pub sha256: String,
    pub subject: String,
    pub not_before: String,
    pub not_after: String,
    pub pem: String,
}

fn describe(certificate: &Certificate) -> Result<CertificateInfo, StoreError> {
    let invalid = |e: &dyn std::fmt::Display| StoreError::Invalid(format!("certificate: {e}"));
    let der = certificate.to_der().map_err(|e| invalid(&e))?;
    let pem = certificate.to_pem().map_err(|e| invalid(&e))?;
    let subject = certificate
        .subject_name()
        .entries()
        .filter_map(|entry| {
            let key = entry.object().nid().short_name().ok()?;
            let value = entry.data().to_string().ok()?;
            Some(format!("{key}={value}"))
        })
        .collect::<Vec<_>>()
        .join(", ");
    Ok(CertificateInfo {
        sha256: hex::encode(Sha256::digest(&der)),
        subject,
        not_before: certificate.not_before().to_string(),
        not_after: certificate.not_after().to_string(),
        pem: String::from_utf8_lossy(&pem).into_owned(),
    })
}

/// Every certificate in a PEM file (or text), described. Fails when there is none or
/// one does not parse.
pub fn read_certificates(pem: &[u8]) -> Result<Vec<CertificateInfo>, StoreError> {
    let certificates = edihub_as2::certificates_from_pem(pem)
        .map_err(|e| StoreError::Invalid(format!("certificates: {e}")))?;
    if certificates.is_empty() {
        return Err(StoreError::Invalid(
            "no certificate found in the PEM".into(),
        ));
    }
    certificates.iter().map(describe).collect()
}

/// The stored certificates of a partner, described.
pub fn describe_certificates(row: &PartnerRow) -> Result<Vec<CertificateInfo>, StoreError> {
    let mut described = Vec::new();
    for pem in &row.certificates {
        described.extend(read_certificates(pem.as_bytes())?);
    }
    Ok(described)
}

/// An async MDN URL entry must be a plain http or https URL (see
/// `PartnerSettings::async_mdn_urls` for how entries match).
fn check_async_mdn_url(entry: &str) -> Result<(), StoreError> {
    edihub_as2::receipt_url::check(entry, &[entry.to_owned()])
        .map(|_| ())
        .map_err(|e| StoreError::Invalid(format!("async MDN URL {entry:?}: {e}")))
}

/// A new partnership, as `edihub partner add` takes it.
#[derive(Debug, Clone, Default)]
pub struct NewPartner {
    pub as2_id: String,
    pub name: Option<String>,
    pub require_signature: bool,
    pub require_encryption: bool,
    pub allow_expired_certificates: bool,
    pub async_mdn_urls: Vec<String>,
    /// PEM texts; each may hold several certificates.
    pub certificates: Vec<Vec<u8>>,
}

/// Changes to a partnership; `None` leaves a field as it is.
#[derive(Debug, Clone, Default)]
pub struct PartnerUpdate {
    pub name: Option<String>,
    pub require_signature: Option<bool>,
    pub require_encryption: Option<bool>,
    pub allow_expired_certificates: Option<bool>,
    /// Replaces the whole list.
    pub async_mdn_urls: Option<Vec<String>>,
    /// PEM texts appended after the current certificates.
    pub add_certificates: Vec<Vec<u8>>,
    /// SHA-256 fingerprints (or unique prefixes of at least 8 hex digits) to remove.
    pub remove_certificates: Vec<String>,
}

fn check_as2_id(as2_id: &str) -> Result<(), StoreError> {
    // RFC 4130 6.2: 1 to 128 printable ASCII characters.
    let printable = as2_id.bytes().all(|b| (0x20..0x7f).contains(&b));
    if as2_id.is_empty() || as2_id.len() > 128 || !printable || as2_id.trim() != as2_id {
        return Err(StoreError::Invalid(format!(
            "AS2 id {as2_id:?}: 1 to 128 printable ASCII characters, no surrounding spaces"
        )));
    }
    Ok(())
}

pub async fn add_partner(pool: &PgPool, partner: &NewPartner) -> Result<(), StoreError> {
    check_as2_id(&partner.as2_id)?;
    for url in &partner.async_mdn_urls {
        check_async_mdn_url(url)?;
    }
    let mut certificates = Vec::new();
    for pem in &partner.certificates {
        certificates.extend(read_certificates(pem)?);
    }
    let mut tx = pool.begin().await?;
    let inserted = sqlx::query(
        "INSERT INTO partner (as2_id, name, require_signature, require_encryption,
                              allow_expired_certificates, async_mdn_urls)
         VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT (as2_id) DO NOTHING",
    )
    .bind(&partner.as2_id)
    .bind(&partner.name)
    .bind(partner.require_signature)
    .bind(partner.require_encryption)
    .bind(partner.allow_expired_certificates)
    .bind(&partner.async_mdn_urls)
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
    conn: &mut sqlx::PgConnection,
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
    if let Some(urls) = &update.async_mdn_urls {
        for url in urls {
            check_async_mdn_url(url)?;
        }
    }
    let mut added = Vec::new();
    for pem in &update.add_certificates {
        added.extend(read_certificates(pem)?);
    }
    let mut tx = pool.begin().await?;
    let updated = sqlx::query(
        "UPDATE partner SET
             name = coalesce($2, name),
             require_signature = coalesce($3, require_signature),
             require_encryption = coalesce($4, require_encryption),
             allow_expired_certificates = coalesce($5, allow_expired_certificates),
             async_mdn_urls = coalesce($6, async_mdn_urls),
             updated_at = now()
         WHERE as2_id = $1",
    )
    .bind(as2_id)
    .bind(&update.name)
    .bind(update.require_signature)
    .bind(update.require_encryption)
    .bind(update.allow_expired_certificates)
    .bind(&update.async_mdn_urls)
    .execute(&mut *tx)
    .await?
    .rows_affected();
    if updated == 0 {
        return Err(StoreError::NoPartner(as2_id.to_owned()));
    }
    for fingerprint in &update.remove_certificates {
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
        .fetch_all(&mut *tx)
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
            .execute(&mut *tx)
            .await?;
    }
    let next: i32 = sqlx::query_scalar(
        "SELECT coalesce(max(position) + 1, 0) FROM partner_certificate WHERE partner_as2_id = $1",
    )
    .bind(as2_id)
    .fetch_one(&mut *tx)
    .await?;
    insert_certificates(&mut tx, as2_id, &added, next).await?;
    tx.commit().await?;
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

/// Columns named as [`PartnerRow`]'s fields; callers add the filter and `GROUP BY`.
const SELECT_PARTNERS: &str = "
    SELECT p.as2_id, p.name, p.require_signature, p.require_encryption,
           p.allow_expired_certificates, p.async_mdn_urls,
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

/// Stores (or replaces) the hub identity `as2_id`. The key must belong to the
/// certificate. `passphrase` (`gateway.hub_key_passphrase`) decrypts the given key if
/// it is encrypted, and the key is stored encrypted under it; without one it is stored
/// in the clear.
pub async fn set_identity(
    pool: &PgPool,
    as2_id: &str,
    certificate_pem: &[u8],
    private_key_pem: &[u8],
    passphrase: Option<&[u8]>,
) -> Result<CertificateInfo, StoreError> {
    check_as2_id(as2_id)?;
    let identity = Identity::from_pem_with_passphrase(certificate_pem, private_key_pem, passphrase)
        .map_err(|e| StoreError::Invalid(format!("hub identity: {e}")))?;
    let info = describe(&identity.certificate)?;
    let key_pem = identity
        .private_key_pem(passphrase)
        .map_err(|e| StoreError::Invalid(format!("hub private key: {e}")))?;
    sqlx::query(
        "INSERT INTO hub_identity (as2_id, certificate_pem, private_key_pem)
         VALUES ($1, $2, $3)
         ON CONFLICT (as2_id) DO UPDATE
         SET certificate_pem = excluded.certificate_pem,
             private_key_pem = excluded.private_key_pem, updated_at = now()",
    )
    .bind(as2_id)
    .bind(&info.pem)
    .bind(String::from_utf8_lossy(&key_pem).as_ref())
    .execute(pool)
    .await?;
    Ok(info)
}

pub async fn remove_identity(pool: &PgPool, as2_id: &str) -> Result<(), StoreError> {
    let removed = sqlx::query("DELETE FROM hub_identity WHERE as2_id = $1")
        .bind(as2_id)
        .execute(pool)
        .await?
        .rows_affected();
    if removed == 0 {
        return Err(StoreError::NoIdentity(as2_id.to_owned()));
    }
    Ok(())
}

pub async fn list_identities(pool: &PgPool) -> Result<Vec<IdentityRow>, StoreError> {
    Ok(sqlx::query_as(SELECT_IDENTITIES).fetch_all(pool).await?)
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
