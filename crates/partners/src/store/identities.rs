//! The hub's AS2 identities in `hub_identity`.

use super::certificates::{self, CertificateInfo};
use super::{IdentityRow, SELECT_IDENTITIES, StoreError, check_as2_id, now_unix};
use edihub_as2::Identity;
use sqlx::PgPool;

/// Stores (or replaces) the hub identity `as2_id`. The key must belong to the
/// certificate, and the certificate must not have expired unless `store_expired`.
/// `passphrase` (`gateway.hub_key_passphrase`) decrypts the given key if it is
/// encrypted, and the key is stored encrypted under it; without one it is stored in
/// the clear.
pub async fn set_identity(
    pool: &PgPool,
    as2_id: &str,
    certificate_pem: &[u8],
    private_key_pem: &[u8],
    passphrase: Option<&[u8]>,
    store_expired: bool,
) -> Result<CertificateInfo, StoreError> {
    check_as2_id(as2_id)?;
    let identity = Identity::from_pem_with_passphrase(certificate_pem, private_key_pem, passphrase)
        .map_err(|e| StoreError::Invalid(format!("hub identity: {e}")))?;
    let info = certificates::describe(&identity.certificate)?;
    certificates::check_not_expired(std::slice::from_ref(&info), now_unix(), store_expired)?;
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
