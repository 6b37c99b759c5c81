//! Writing a partnership's outbound settings (`partner.outbound`): checked and
//! normalised as [`crate::outbound`] reads them, and never left encrypting to a
//! partnership without a certificate.

use super::StoreError;
use crate::options::OptionError;
use crate::outbound::{self, OutboundChanges};
use edihub_config::PartnerOutboundSettings;
use sqlx::PgConnection;
use sqlx::types::Json;

/// A change to the outbound settings with `edihub partner update`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum OutboundUpdate {
    /// The hub sends the partner nothing any more.
    Remove,
    /// These fields change; with no current setting, one is created (a url needed).
    Change(Box<OutboundChanges>),
}

/// A new partnership's settings as stored, checked against its `certificates`.
pub(super) fn checked(
    settings: Option<&PartnerOutboundSettings>,
    certificates: usize,
) -> Result<Option<PartnerOutboundSettings>, OptionError> {
    let Some(settings) = settings else {
        return Ok(None);
    };
    let stored = outbound::normalized(settings)?;
    outbound::of_partnership(Some(&stored), certificates)?;
    Ok(Some(stored))
}

/// Applies `update` to the row of `as2_id` (which the caller has locked by updating it).
pub(super) async fn apply(
    conn: &mut PgConnection,
    as2_id: &str,
    update: &OutboundUpdate,
) -> Result<(), StoreError> {
    let next = match update {
        OutboundUpdate::Remove => None,
        OutboundUpdate::Change(changes) => {
            let current: Option<Json<PartnerOutboundSettings>> =
                sqlx::query_scalar("SELECT outbound FROM partner WHERE as2_id = $1")
                    .bind(as2_id)
                    .fetch_one(&mut *conn)
                    .await?;
            Some(changes.apply(current.as_ref().map(|json| &json.0))?)
        }
    };
    sqlx::query("UPDATE partner SET outbound = $2 WHERE as2_id = $1")
        .bind(as2_id)
        .bind(next.map(Json))
        .execute(&mut *conn)
        .await?;
    Ok(())
}

/// After certificates or outbound settings changed: the stored settings still have a
/// certificate to encrypt to.
pub(super) async fn check_certificates(
    conn: &mut PgConnection,
    as2_id: &str,
) -> Result<(), StoreError> {
    let (settings, certificates): (Option<Json<PartnerOutboundSettings>>, i64) = sqlx::query_as(
        "SELECT p.outbound,
                (SELECT count(*) FROM partner_certificate c WHERE c.partner_as2_id = p.as2_id)
         FROM partner p WHERE p.as2_id = $1",
    )
    .bind(as2_id)
    .fetch_one(&mut *conn)
    .await?;
    let certificates = usize::try_from(certificates).unwrap_or(0);
    outbound::of_partnership(settings.as_ref().map(|json| &json.0), certificates)?;
    Ok(())
}
