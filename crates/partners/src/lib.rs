//! Who the hub is and whom it trades with: the hub's AS2 identities and the
//! partnerships, as one immutable [`Directory`] the gateway consults per request.
//!
//! Two sources feed it. The settings file (`[gateway]` keys and `[[gateway.partners]]`)
//! is read once at start-up and must be valid, or the gateway does not start. The
//! database (`partner`, `partner_certificate`, `hub_identity`, managed with
//! `edihub partner|identity ...`, see [`store`]) is read again whenever it changes
//! ([`live`]); a database row replaces a file entry with the same AS2 id.

pub mod live;
pub mod store;

use edihub_as2::{Certificate, Identity, PartnerSecurity};
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
    /// twice, encryption required without a hub key.
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
            let partnership = Partnership {
                as2_id: partner.as2_id.clone(),
                name: partner.name.clone(),
                certificates,
                require_signature: partner.require_signature,
                require_encryption: partner.require_encryption,
                allow_expired: partner.allow_expired_certificates,
                async_mdn_urls: partner.async_mdn_urls.clone(),
            };
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
        Ok((directory, problems))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use edihub_config::PartnerSettings;
    use std::path::PathBuf;

    fn fixture(name: &str) -> PathBuf {
        PathBuf::from(env!("CARGO_MANIFEST_DIR"))
            .join("../../fixtures/as2")
            .join(name)
    }

    fn pem(name: &str) -> String {
        std::fs::read_to_string(fixture(name)).unwrap()
    }

    fn settings() -> GatewaySettings {
        GatewaySettings {
            hub_certificate: Some(fixture("hub.crt")),
            hub_private_key: Some(fixture("hub.key")),
            partners: vec![PartnerSettings {
                as2_id: "A".into(),
                certificates: vec![fixture("partner-a.crt"), fixture("partner-b.crt")],
                require_signature: true,
                require_encryption: true,
                ..Default::default()
            }],
            ..Default::default()
        }
    }

    #[test]
    fn loads_the_hub_identity_and_every_partner_certificate() {
        let directory = Directory::from_settings(&settings()).unwrap();
        assert!(directory.identity("EDIHUB").unwrap().keys.is_some());
        assert!(directory.identity("SOMEONE-ELSE").is_none());
        let partner = directory.partner("A").unwrap();
        assert_eq!(partner.certificates.len(), 2);
        assert!(partner.require_signature && partner.require_encryption);
        // Without any key: plain AS2 only, which is fine while nobody requires encryption.
        let plain = Directory::from_settings(&GatewaySettings::default()).unwrap();
        assert!(plain.identity("EDIHUB").unwrap().keys.is_none());
        assert_eq!(plain.partner_ids().count(), 0);
    }

    #[test]
    fn refuses_bad_key_material_in_the_settings_file() {
        let mut s = settings();
        s.hub_private_key = Some(fixture("partner-a.key"));
        let error = Directory::from_settings(&s).expect_err("mismatched key");
        assert!(error.to_string().contains("does not belong"), "{error}");

        let mut s = settings();
        s.partners[0].certificates = vec![fixture("missing.crt")];
        assert!(Directory::from_settings(&s).is_err());

        let mut s = settings();
        s.hub_private_key = None;
        assert!(
            Directory::from_settings(&s).is_err(),
            "certificate without key"
        );

        let mut s = settings();
        s.hub_certificate = None;
        s.hub_private_key = None;
        assert!(
            Directory::from_settings(&s).is_err(),
            "encryption required without a hub key"
        );

        let mut s = settings();
        s.partners.push(s.partners[0].clone());
        assert!(Directory::from_settings(&s).is_err(), "duplicate partner");
    }

    #[test]
    fn database_rows_override_the_file_and_bad_rows_are_reported_not_fatal() {
        let rows = store::DirectoryRows {
            identities: vec![
                store::IdentityRow {
                    as2_id: "EDIHUB-EU".into(),
                    certificate_pem: pem("hub.crt"),
                    private_key_pem: pem("hub.key"),
                },
                store::IdentityRow {
                    as2_id: "BROKEN".into(),
                    certificate_pem: pem("hub.crt"),
                    private_key_pem: pem("partner-a.key"),
                },
            ],
            partners: vec![
                store::PartnerRow {
                    as2_id: "A".into(),
                    name: Some("A from the database".into()),
                    require_signature: false,
                    require_encryption: false,
                    allow_expired_certificates: false,
                    async_mdn_urls: vec!["https://a.example/mdn".into()],
                    certificates: vec![pem("partner-b.crt")],
                },
                store::PartnerRow {
                    as2_id: "B".into(),
                    name: None,
                    require_signature: false,
                    require_encryption: false,
                    allow_expired_certificates: false,
                    async_mdn_urls: vec![],
                    certificates: vec!["not a certificate".into()],
                },
            ],
        };
        let (directory, problems) = Directory::with_database(&settings(), &rows).unwrap();
        assert!(
            directory.identity("EDIHUB").is_some(),
            "the file's identity stays"
        );
        assert!(directory.identity("EDIHUB-EU").unwrap().keys.is_some());
        assert!(directory.identity("BROKEN").is_none());
        let a = directory.partner("A").unwrap();
        assert_eq!(a.name.as_deref(), Some("A from the database"));
        assert_eq!(a.certificates.len(), 1);
        assert!(!a.require_signature);
        assert!(directory.partner("B").is_none());
        assert_eq!(problems.len(), 2, "{problems:?}");
    }

    #[test]
    fn encrypted_hub_keys_load_with_the_passphrase_and_are_reported_without_it() {
        let hub = Identity::from_pem(pem("hub.crt").as_bytes(), pem("hub.key").as_bytes()).unwrap();
        let encrypted = hub.private_key_pem(Some(b"s3cret")).unwrap();
        let key_file = std::env::temp_dir().join(format!(
            "edihub-partners-encrypted-{}.key",
            std::process::id()
        ));
        std::fs::write(&key_file, &encrypted).unwrap();
        let rows = store::DirectoryRows {
            identities: vec![store::IdentityRow {
                as2_id: "EDIHUB-EU".into(),
                certificate_pem: pem("hub.crt"),
                private_key_pem: String::from_utf8(encrypted).unwrap(),
            }],
            partners: vec![],
        };
        assert!(rows.identities[0].key_encrypted());
        let mut with_passphrase = GatewaySettings {
            hub_private_key: Some(key_file.clone()),
            hub_key_passphrase: Some(edihub_config::Secret::new("s3cret")),
            ..settings()
        };
        let (directory, problems) = Directory::with_database(&with_passphrase, &rows).unwrap();
        assert!(problems.is_empty(), "{problems:?}");
        assert!(directory.identity("EDIHUB").unwrap().keys.is_some());
        assert!(directory.identity("EDIHUB-EU").unwrap().keys.is_some());

        // Without the passphrase the encrypted file cannot be used at all ...
        with_passphrase.hub_key_passphrase = None;
        let error = Directory::from_settings(&with_passphrase).expect_err("no passphrase");
        assert!(error.to_string().contains("hub identity"), "{error}");
        // ... and the database row is reported, not fatal.
        let (directory, problems) = Directory::with_database(&settings(), &rows).unwrap();
        assert!(directory.identity("EDIHUB-EU").is_none());
        assert_eq!(problems.len(), 1, "{problems:?}");
        assert!(problems[0].contains("no passphrase"), "{problems:?}");
        std::fs::remove_file(key_file).ok();
    }
}
