//! `edihub_certificate_expiry_timestamp_seconds`: when each certificate the hub relies on
//! stops being valid, so an alert can fire weeks before a partner's messages start
//! failing.

use crate::gauge_vec;
use prometheus::IntGaugeVec;
use prometheus::core::Collector;
use std::sync::LazyLock;

pub static CERTIFICATE_EXPIRY: LazyLock<IntGaugeVec> = LazyLock::new(|| {
    gauge_vec(
        "edihub_certificate_expiry_timestamp_seconds",
        "notAfter of each partner, hub and TLS certificate, seconds since the Unix epoch",
        &["kind", "owner", "fingerprint"],
    )
});

/// Which certificate: a partner's (`owner` is its AS2 id), one of the hub's AS2
/// identities (its AS2 id), or the gateway's TLS server certificate (`owner` "gateway").
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CertificateKind {
    Partner,
    Hub,
    Tls,
}

impl CertificateKind {
    pub fn as_str(self) -> &'static str {
        match self {
            CertificateKind::Partner => "partner",
            CertificateKind::Hub => "hub",
            CertificateKind::Tls => "tls",
        }
    }
}

/// One certificate's expiry; `fingerprint` is the SHA-256 of its DER, hex.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CertificateExpiry {
    pub kind: CertificateKind,
    pub owner: String,
    pub fingerprint: String,
    pub not_after_unix: i64,
}

/// Replaces every series of `kind` with `certificates`, so a removed partner or a
/// rolled-over certificate stops being reported.
pub fn set_certificate_expiries(kind: CertificateKind, certificates: &[CertificateExpiry]) {
    for family in CERTIFICATE_EXPIRY.collect() {
        for metric in family.get_metric() {
            // Collected labels come sorted by name, not in the order they were declared.
            let label = |name: &str| {
                let pair = metric.get_label().iter().find(|l| l.name() == name);
                pair.map(|l| l.value()).unwrap_or_default()
            };
            if label("kind") == kind.as_str() {
                let declared = [label("kind"), label("owner"), label("fingerprint")];
                let _ = CERTIFICATE_EXPIRY.remove_label_values(&declared);
            }
        }
    }
    for certificate in certificates.iter().filter(|c| c.kind == kind) {
        CERTIFICATE_EXPIRY
            .with_label_values(&[kind.as_str(), &certificate.owner, &certificate.fingerprint])
            .set(certificate.not_after_unix);
    }
}

#[cfg(test)]
mod tests;
