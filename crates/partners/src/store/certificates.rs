//! Certificates described for operators, and what is wrong with them: expired, not yet
//! valid, expiring soon, or an RSA key too short for the partnership.

use super::StoreError;
use edihub_as2::Certificate;
use openssl::asn1::{Asn1Time, Asn1TimeRef};
use sha2::{Digest, Sha256};

/// How far ahead an expiry is warned about when a certificate is stored.
pub const EXPIRY_WARNING_SECONDS: i64 = 30 * 86_400;

/// One certificate, described for operators.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CertificateInfo {
    /// SHA-256 of the DER encoding, lower-case hex: what `--remove-cert` takes.
    pub sha256: String,
    pub subject: String,
    pub not_before: String,
    pub not_after: String,
    /// `not_before` and `not_after` in seconds since the Unix epoch.
    pub not_before_unix: i64,
    pub not_after_unix: i64,
    /// The key size when the key is RSA.
    pub rsa_bits: Option<u32>,
    pub pem: String,
}

fn invalid(e: &dyn std::fmt::Display) -> StoreError {
    StoreError::Invalid(format!("certificate: {e}"))
}

/// Seconds since the Unix epoch of an ASN.1 time.
pub fn unix_time(time: &Asn1TimeRef) -> Result<i64, openssl::error::ErrorStack> {
    let diff = Asn1Time::from_unix(0)?.diff(time)?;
    Ok(i64::from(diff.days) * 86_400 + i64::from(diff.secs))
}

/// SHA-256 of the certificate's DER, lower-case hex: the `fingerprint` label of the
/// expiry gauge and what `partner show` prints.
pub fn fingerprint(certificate: &Certificate) -> Result<String, openssl::error::ErrorStack> {
    Ok(hex::encode(Sha256::digest(certificate.to_der()?)))
}

fn subject(certificate: &Certificate) -> String {
    certificate
        .subject_name()
        .entries()
        .filter_map(|entry| {
            let key = entry.object().nid().short_name().ok()?;
            let value = entry.data().to_string().ok()?;
            Some(format!("{key}={value}"))
        })
        .collect::<Vec<_>>()
        .join(", ")
}

fn rsa_bits(certificate: &Certificate) -> Option<u32> {
    let key = certificate.public_key().ok()?;
    (key.id() == openssl::pkey::Id::RSA).then(|| key.bits())
}

pub(crate) fn describe(certificate: &Certificate) -> Result<CertificateInfo, StoreError> {
    let pem = certificate.to_pem().map_err(|e| invalid(&e))?;
    Ok(CertificateInfo {
        sha256: fingerprint(certificate).map_err(|e| invalid(&e))?,
        subject: subject(certificate),
        not_before: certificate.not_before().to_string(),
        not_after: certificate.not_after().to_string(),
        not_before_unix: unix_time(certificate.not_before()).map_err(|e| invalid(&e))?,
        not_after_unix: unix_time(certificate.not_after()).map_err(|e| invalid(&e))?,
        rsa_bits: rsa_bits(certificate),
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

/// Something an operator should know about a certificate being stored or in use.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CertificateWarning {
    Expired {
        sha256: String,
        not_after: String,
    },
    NotYetValid {
        sha256: String,
        not_before: String,
    },
    ExpiresSoon {
        sha256: String,
        not_after: String,
        days: i64,
    },
    WeakKey {
        sha256: String,
        bits: u32,
        min_bits: u32,
    },
}

impl CertificateWarning {
    /// A stable name for scripts (`--json`).
    pub fn kind(&self) -> &'static str {
        match self {
            Self::Expired { .. } => "expired",
            Self::NotYetValid { .. } => "not_yet_valid",
            Self::ExpiresSoon { .. } => "expires_soon",
            Self::WeakKey { .. } => "weak_key",
        }
    }

    pub fn sha256(&self) -> &str {
        match self {
            Self::Expired { sha256, .. }
            | Self::NotYetValid { sha256, .. }
            | Self::ExpiresSoon { sha256, .. }
            | Self::WeakKey { sha256, .. } => sha256,
        }
    }
}

impl std::fmt::Display for CertificateWarning {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let short = &self.sha256()[..self.sha256().len().min(16)];
        match self {
            Self::Expired { not_after, .. } => {
                write!(f, "certificate {short} expired on {not_after}")
            }
            Self::NotYetValid { not_before, .. } => {
                write!(f, "certificate {short} is not valid before {not_before}")
            }
            Self::ExpiresSoon {
                not_after, days, ..
            } => write!(
                f,
                "certificate {short} expires on {not_after}, in {days} day(s)"
            ),
            Self::WeakKey { bits, min_bits, .. } => write!(
                f,
                "certificate {short} has a {bits}-bit RSA key, under the partnership's \
                 minimum of {min_bits}: its signatures will be refused"
            ),
        }
    }
}

/// What is wrong with `certificate` as of `now_unix`, for a partnership that refuses
/// RSA keys under `min_rsa_bits`.
pub fn warnings(
    certificate: &CertificateInfo,
    now_unix: i64,
    min_rsa_bits: u32,
) -> Vec<CertificateWarning> {
    let sha256 = certificate.sha256.clone();
    let mut found = Vec::new();
    if certificate.not_after_unix < now_unix {
        found.push(CertificateWarning::Expired {
            sha256: sha256.clone(),
            not_after: certificate.not_after.clone(),
        });
    } else if certificate.not_after_unix - now_unix <= EXPIRY_WARNING_SECONDS {
        found.push(CertificateWarning::ExpiresSoon {
            sha256: sha256.clone(),
            not_after: certificate.not_after.clone(),
            days: (certificate.not_after_unix - now_unix) / 86_400,
        });
    }
    if certificate.not_before_unix > now_unix {
        found.push(CertificateWarning::NotYetValid {
            sha256: sha256.clone(),
            not_before: certificate.not_before.clone(),
        });
    }
    if let Some(bits) = certificate.rsa_bits.filter(|bits| *bits < min_rsa_bits) {
        found.push(CertificateWarning::WeakKey {
            sha256,
            bits,
            min_bits: min_rsa_bits,
        });
    }
    found
}

/// Refuses an expired certificate unless `store_expired`: stored silently, it would
/// fail every signature of the partner (or every MDN of the hub) without a word.
pub(crate) fn check_not_expired(
    certificates: &[CertificateInfo],
    now_unix: i64,
    store_expired: bool,
) -> Result<(), StoreError> {
    match certificates.iter().find(|c| c.not_after_unix < now_unix) {
        Some(expired) if !store_expired => Err(StoreError::ExpiredCertificate {
            sha256: expired.sha256.clone(),
            not_after: expired.not_after.clone(),
        }),
        _ => Ok(()),
    }
}

#[cfg(test)]
mod tests;
