//! Who the hub is and whom it trades with: the hub's AS2 identities and the
//! partnerships, as one immutable [`Directory`] the gateway consults per request.
//!
//! Two sources feed it. The settings file (`[gateway]` keys and `[[gateway.partners]]`)
//! is read once at start-up and must be valid, or the gateway does not start. The
//! database (`partner`, `partner_certificate`, `hub_identity`, managed with
//! `edihub partner|identity ...`, see [`store`]) is read again whenever it changes
//! ([`live`]); a database row replaces a file entry with the same AS2 id.

pub mod live;
pub mod options;
pub mod outbound;
pub mod store;

use edihub_as2::{AlgorithmPolicy, Certificate, Identity, PartnerSecurity};
use edihub_config::GatewaySettings;
use std::collections::HashMap;
use std::path::Path;

#[derive(Debug, thiserror::Error)]
pub enum DirectoryError {
    #[error("cannot read {what} {path}: {source}")]
    Read {
        what: &'static str,
        path: String,
        source: std::io::Error,
    },
    #[error("{context}: {source}")]
    KeyMaterial {
        context: String,
        source: edihub_as2::As2Error,
    },
    #[error("{0}")]
    Invalid(String),
}

/// One partnership, ready to use.
#[derive(Debug)]
pub struct Partnership {
    pub as2_id: String,
    pub name: Option<String>,
    /// Pinned certificates; the first is the one the hub encrypts to.
    pub certificates: Vec<Certificate>,
    pub require_signature: bool,
    pub require_encryption: bool,
    pub allow_expired: bool,
    /// See `PartnerSettings::async_mdn_urls`.
    pub async_mdn_urls: Vec<String>,
    /// See `PartnerSettings::async_mdn_allowed_networks`.
    pub async_mdn_allowed_networks: Vec<ipnet::IpNet>,
    /// SHA-256 of the DER of each TLS client certificate the partner may connect with;
    /// empty: no TLS client certificate is required.
    pub tls_client_fingerprints: Vec<[u8; 32]>,
    /// The key sizes, digests and ciphers accepted from this partner.
    pub algorithms: AlgorithmPolicy,
    /// How the hub connects to the partner's HTTPS server (async MDNs).
    pub outbound_tls: edihub_outbound_tls::OutboundTls,
    /// How strictly its EDIFACT is held to the declared repertoire.
    pub edifact_charset: edihub_edifact::charset::CharsetPolicy,
    /// How the hub sends to it; `None`: it sends nothing.
    pub outbound: Option<outbound::OutboundPartnership>,
    /// How many years the archive keeps its messages locked; `None`: the archive's
    /// default (`s3.retention_years`). Within [`options::RETENTION_YEARS_RANGE`].
    pub retention_years: Option<u32>,
}

impl Partnership {
    /// The partnership's security as of `now_unix` (certificate validity is judged then).
    pub fn security(&self, now_unix: i64) -> PartnerSecurity<'_> {
        PartnerSecurity {
            certificates: &self.certificates,
            require_signature: self.require_signature,
            require_encryption: self.require_encryption,
            allow_expired: self.allow_expired,
            now_unix,
            algorithms: &self.algorithms,
        }
    }
}

/// One of the hub's AS2 names, with its key when it has one (without: plain AS2 only,
/// unsigned MDNs).
#[derive(Debug)]
pub struct HubIdentity {
    pub as2_id: String,
    pub keys: Option<Identity>,
}

/// The hub's identities and partnerships at one moment.
#[derive(Debug, Default)]
pub struct Directory {
    identities: HashMap<String, HubIdentity>,
    partners: HashMap<String, Partnership>,
}

/// A file partner's outbound TLS, its extra CA read from its file.
fn file_outbound_tls(
    partner: &edihub_config::PartnerSettings,
) -> Result<edihub_outbound_tls::OutboundTls, DirectoryError> {
    let ca_pem = match &partner.outbound_tls_ca {
        Some(path) => Some(
            String::from_utf8(read(path, "outbound TLS CA")?).map_err(|_| {
                DirectoryError::Invalid(format!(
                    "partner {}: outbound TLS CA {} is not PEM text",
                    partner.as2_id,
                    path.display()
                ))
            })?,
        ),
        None => None,
    };
    options::outbound_tls(
        ca_pem,
        &partner.outbound_tls_fingerprints,
        partner.outbound_tls_client_certificate.clone(),
        partner.outbound_tls_client_key.clone(),
    )
    .map_err(|e| DirectoryError::Invalid(format!("partner {}: {e}", partner.as2_id)))
}

fn read(path: &Path, what: &'static str) -> Result<Vec<u8>, DirectoryError> {
    std::fs::read(path).map_err(|source| DirectoryError::Read {
        what,
        path: path.display().to_string(),
        source,
    })
}

impl Directory {
    /// The identity partners reach as `as2_to`, if it is one of ours.
    pub fn identity(&self, as2_to: &str) -> Option<&HubIdentity> {
        self.identities.get(as2_to)
    }

    pub fn partner(&self, as2_from: &str) -> Option<&Partnership> {
        self.partners.get(as2_from)
    }

    pub fn partner_ids(&self) -> impl Iterator<Item = &str> {
        self.partners.keys().map(String::as_str)
    }

    /// What the settings file says. Fails on anything that cannot be used: unreadable
    /// or unparsable files, a key that does not match its certificate, a partner listed
    /// twice, encryption required without a hub key, outbound settings that do not read
    /// or that sign as the main identity without its key or encrypt to no certificate.
    pub fn from_settings(settings: &GatewaySettings) -> Result<Directory, DirectoryError> {
        let keys = match (&settings.hub_certificate, &settings.hub_private_key) {
            (Some(cert), Some(key)) => Some(
                Identity::from_pem_with_passphrase(
                    &read(cert, "hub certificate")?,
                    &read(key, "hub private key")?,
                    settings.hub_key_passphrase_bytes(),
                )
                .map_err(|source| DirectoryError::KeyMaterial {
                    context: format!("hub identity from {}", cert.display()),
                    source,
                })?,
            ),
            (None, None) => None,
            _ => {
                return Err(DirectoryError::Invalid(
                    "gateway.hub_certificate and gateway.hub_private_key must be set together"
                        .into(),
                ));
            }
        };
        let hub_has_key = keys.is_some();
        let mut directory = Directory::default();
        directory.identities.insert(
            settings.hub_as2_id.clone(),
            HubIdentity {
                as2_id: settings.hub_as2_id.clone(),
                keys,
            },
        );
        for partner in &settings.partners {
            let mut certificates = Vec::new();
            for path in &partner.certificates {
                let pem = read(path, "partner certificate")?;
                certificates.extend(edihub_as2::certificates_from_pem(&pem).map_err(|source| {
                    DirectoryError::KeyMaterial {
                        context: format!(
                            "partner {} certificate {}",
                            partner.as2_id,
                            path.display()
                        ),
                        source,
                    }
                })?);
            }
            if partner.require_encryption && !hub_has_key {
                return Err(DirectoryError::Invalid(format!(
                    "partner {} requires encryption but the hub has no key (gateway.hub_private_key)",
                    partner.as2_id
                )));
            }
            let invalid = |e: options::OptionError| {
                DirectoryError::Invalid(format!("partner {}: {e}", partner.as2_id))
            };
            let outbound = outbound::of_partnership(partner.outbound.as_ref(), certificates.len())
                .map_err(invalid)?;
            let partnership = Partnership {
                as2_id: partner.as2_id.clone(),
                name: partner.name.clone(),
                certificates,
                require_signature: partner.require_signature,
                require_encryption: partner.require_encryption,
                allow_expired: partner.allow_expired_certificates,
                async_mdn_urls: partner.async_mdn_urls.clone(),
                async_mdn_allowed_networks: options::networks(&partner.async_mdn_allowed_networks)
                    .map_err(invalid)?,
                tls_client_fingerprints: options::fingerprints(&partner.tls_client_fingerprints)
                    .map_err(invalid)?,
                algorithms: options::algorithms(
                    partner.min_rsa_bits,
                    &partner.digests,
                    &partner.ciphers,
                )
                .map_err(invalid)?,
                outbound_tls: file_outbound_tls(partner)?,
                edifact_charset: options::charset_policy(partner.edifact_charset.as_deref())
                    .map_err(invalid)?,
                outbound,
                // The settings file has no retention key yet: the archive's default.
                retention_years: None,
            };
            if let Some(problem) = directory.main_outbound_problem(&partnership, settings) {
                return Err(DirectoryError::Invalid(problem));
            }
            if directory
                .partners
                .insert(partner.as2_id.clone(), partnership)
                .is_some()
            {
                return Err(DirectoryError::Invalid(format!(
                    "partner {} is configured twice",
                    partner.as2_id
                )));
            }
        }
        Ok(directory)
    }

    /// The settings file's directory with the database's rows laid over it. A row that
    /// cannot be used (its PEM no longer parses) is left out and reported, so one bad
    /// row never takes every partner down.
    pub fn with_database(
        settings: &GatewaySettings,
        rows: &store::DirectoryRows,
    ) -> Result<(Directory, Vec<String>), DirectoryError> {
        let mut directory = Directory::from_settings(settings)?;
        let mut problems = Vec::new();
        for row in &rows.identities {
            match Identity::from_pem_with_passphrase(
                row.certificate_pem.as_bytes(),
                row.private_key_pem.as_bytes(),
                settings.hub_key_passphrase_bytes(),
            ) {
                Ok(keys) => {
                    directory.identities.insert(
                        row.as2_id.clone(),
                        HubIdentity {
                            as2_id: row.as2_id.clone(),
                            keys: Some(keys),
                        },
                    );
                }
                Err(e) => problems.push(format!("hub identity {}: {e}", row.as2_id)),
            }
        }
        for row in &rows.partners {
            match row.partnership() {
                Ok(partnership) => {
                    directory.partners.insert(row.as2_id.clone(), partnership);
                }
                Err(e) => problems.push(format!("partner {}: {e}", row.as2_id)),
            }
        }
        problems.extend(directory.drop_unusable_outbound(settings));
        Ok((directory, problems))
    }

    /// Why `partnership` cannot send as its hub identity, if it cannot: the identity is
    /// not one of ours, or it signs and the identity has no key.
    fn outbound_problem(
        &self,
        partnership: &Partnership,
        settings: &GatewaySettings,
    ) -> Option<String> {
        let outbound = partnership.outbound.as_ref()?;
        let sender = outbound.sending_identity(&settings.hub_as2_id);
        let problem = match self.identities.get(sender) {
            None => format!("outbound hub_as2_id {sender:?} is not one of the hub's identities"),
            Some(identity) if outbound.sign.is_some() && identity.keys.is_none() => format!(
                "outbound sign needs a key, but hub identity {sender} has none \
                 (gateway.hub_private_key, or `edihub identity set`)"
            ),
            Some(_) => return None,
        };
        Some(format!("partner {}: {problem}", partnership.as2_id))
    }

    /// [`Self::outbound_problem`] for a file partnership sending as the main identity,
    /// which the settings file alone decides. One naming another identity is judged
    /// once the database's identities are read ([`Self::with_database`]).
    fn main_outbound_problem(
        &self,
        partnership: &Partnership,
        settings: &GatewaySettings,
    ) -> Option<String> {
        let outbound = partnership.outbound.as_ref()?;
        if outbound.sending_identity(&settings.hub_as2_id) != settings.hub_as2_id {
            return None;
        }
        self.outbound_problem(partnership, settings)
    }

    /// Removes the outbound settings that cannot be used with the identities now known
    /// and says why: the partnership still receives, the hub sends it nothing.
    fn drop_unusable_outbound(&mut self, settings: &GatewaySettings) -> Vec<String> {
        let unusable: Vec<(String, String)> = self
            .partners
            .values()
            .filter_map(|p| {
                let problem = self.outbound_problem(p, settings)?;
                Some((p.as2_id.clone(), problem))
            })
            .collect();
        let mut problems = Vec::new();
        for (as2_id, problem) in unusable {
            if let Some(partnership) = self.partners.get_mut(&as2_id) {
                partnership.outbound = None;
            }
            problems.push(format!("{problem}; outbound settings left out"));
        }
        problems
    }
}

#[cfg(test)]
mod tests;
