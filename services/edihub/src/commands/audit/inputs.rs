//! What the audit commands read besides the archive: certificates, the sealing key and
//! dates.

use crate::Settings;
use anyhow::{Context, bail};
use chrono::{DateTime, Days, NaiveDate, Utc};
use edihub_as2::Certificate;
use sqlx::PgPool;
use std::path::Path;

/// The hub's own certificates (settings file and `hub_identity` rows): a signed MDN is
/// verified against them.
pub(super) async fn hub_certificates(
    settings: &Settings,
    pool: &PgPool,
) -> anyhow::Result<Vec<Certificate>> {
    let mut certificates = Vec::new();
    if let Some(path) = &settings.gateway.hub_certificate {
        certificates.extend(read_certificates(path)?);
    }
    let rows = edihub_partners::store::load(pool)
        .await
        .context("reading the hub identities")?;
    for identity in rows.identities {
        certificates.extend(
            edihub_as2::certificates_from_pem(identity.certificate_pem.as_bytes())
                .with_context(|| format!("hub identity {}'s certificate", identity.as2_id))?,
        );
    }
    Ok(certificates)
}

pub(super) fn read_certificates(path: &Path) -> anyhow::Result<Vec<Certificate>> {
    let pem = std::fs::read(path).with_context(|| format!("reading {}", path.display()))?;
    edihub_as2::certificates_from_pem(&pem)
        .with_context(|| format!("{} holds no readable certificate", path.display()))
}

/// The one certificate of a PEM file, as DER.
pub(super) fn certificate_der(path: &Path) -> anyhow::Result<Vec<u8>> {
    let certificates = read_certificates(path)?;
    let [certificate] = certificates.as_slice() else {
        bail!(
            "{} holds {} certificates, expected one",
            path.display(),
            certificates.len()
        );
    };
    Ok(certificate.to_der()?)
}

/// The ledger's sealing identity, from `[archive] seal_certificate`, `seal_private_key`
/// and `seal_key_passphrase`.
pub(super) fn sealing_identity(settings: &Settings) -> anyhow::Result<edihub_as2::Identity> {
    let archive = &settings.archive;
    let certificate = archive
        .seal_certificate
        .as_ref()
        .context("[archive] seal_certificate is not set")?;
    let key = archive
        .seal_private_key
        .as_ref()
        .context("[archive] seal_private_key is not set")?;
    let read =
        |path: &Path| std::fs::read(path).with_context(|| format!("reading {}", path.display()));
    edihub_as2::Identity::from_pem_with_passphrase(
        &read(certificate)?,
        &read(key)?,
        archive
            .seal_key_passphrase
            .as_ref()
            .map(|p| p.expose().as_bytes()),
    )
    .context("the sealing key")
}

/// A period bound: RFC 3339, or a `YYYY-MM-DD` day (UTC). An end day is included: it
/// stands for the midnight after it.
pub(super) fn parse_bound(text: &str, end: bool) -> anyhow::Result<DateTime<Utc>> {
    if let Ok(time) = DateTime::parse_from_rfc3339(text) {
        return Ok(time.with_timezone(&Utc));
    }
    let day = NaiveDate::parse_from_str(text, "%Y-%m-%d")
        .with_context(|| format!("{text:?} is neither YYYY-MM-DD nor RFC 3339"))?;
    let day = if end {
        day.checked_add_days(Days::new(1))
            .with_context(|| format!("{text:?} is out of range"))?
    } else {
        day
    };
    Ok(day.and_time(chrono::NaiveTime::MIN).and_utc())
}

#[cfg(test)]
mod tests {
    use super::parse_bound;

    #[test]
    fn a_day_starts_at_midnight_and_an_end_day_is_included() {
        let from = parse_bound("2026-12-01", false).expect("from");
        let to = parse_bound("2026-12-31", true).expect("to");
        assert_eq!(from.to_rfc3339(), "2026-12-01T00:00:00+00:00");
        assert_eq!(to.to_rfc3339(), "2027-01-01T00:00:00+00:00");
    }

    #[test]
    fn rfc3339_is_taken_exactly_and_nonsense_is_refused() {
        let at = parse_bound("2026-12-04T10:30:00+01:00", true).expect("rfc3339");
        assert_eq!(at.to_rfc3339(), "2026-12-04T09:30:00+00:00");
        assert!(parse_bound("04/12/2026", false).is_err());
    }
}
