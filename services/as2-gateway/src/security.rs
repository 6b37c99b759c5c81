//! The hub's key and the partners' certificates, loaded once at start-up from the PEM files
//! the settings name, so that a wrong path or a key that does not match its certificate
//! stops the gateway before it accepts anything.

use anyhow::Context as _;
use edihub_as2::{Certificate, Identity, PartnerSecurity};
use edihub_config::GatewaySettings;
use std::collections::HashMap;
use std::path::Path;

/// One partnership's security, ready to use.
pub struct PartnerKeys {
    pub certificates: Vec<Certificate>,
    pub require_signature: bool,
    pub require_encryption: bool,
    pub allow_expired: bool,
}

impl PartnerKeys {
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

pub struct Security {
    /// Our identity; `None` when the settings name no key (plain AS2 only, unsigned MDNs).
    pub hub: Option<Identity>,
    /// By partner AS2 id.
    pub partners: HashMap<String, PartnerKeys>,
}

fn read(path: &Path, what: &str) -> anyhow::Result<Vec<u8>> {
    std::fs::read(path).with_context(|| format!("cannot read {what} {}", path.display()))
}

impl Security {
    pub fn load(settings: &GatewaySettings) -> anyhow::Result<Security> {
        let hub = match (&settings.hub_certificate, &settings.hub_private_key) {
            (Some(cert), Some(key)) => Some(
                Identity::from_pem(
                    &read(cert, "hub certificate")?,
                    &read(key, "hub private key")?,
                )
                .with_context(|| format!("hub identity from {}", cert.display()))?,
            ),
            (None, None) => None,
            _ => anyhow::bail!(
                "gateway.hub_certificate and gateway.hub_private_key must be set together"
            ),
        };
        let mut partners = HashMap::new();
        for partner in &settings.partners {
            let mut certificates = Vec::new();
            for path in &partner.certificates {
                let pem = read(path, "partner certificate")?;
                certificates.extend(edihub_as2::certificates_from_pem(&pem).with_context(
                    || format!("partner {} certificate {}", partner.as2_id, path.display()),
                )?);
            }
            if partner.require_encryption && hub.is_none() {
                anyhow::bail!(
                    "partner {} requires encryption but the hub has no key (gateway.hub_private_key)",
                    partner.as2_id
                );
            }
            let keys = PartnerKeys {
                certificates,
                require_signature: partner.require_signature,
                require_encryption: partner.require_encryption,
                allow_expired: partner.allow_expired_certificates,
            };
            if partners.insert(partner.as2_id.clone(), keys).is_some() {
                anyhow::bail!("partner {} is configured twice", partner.as2_id);
            }
        }
        Ok(Security { hub, partners })
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
        let security = Security::load(&settings()).unwrap();
        assert!(security.hub.is_some());
        let partner = &security.partners["A"];
        assert_eq!(partner.certificates.len(), 2);
        assert!(partner.require_signature && partner.require_encryption);
        // Without any key: plain AS2 only, which is fine while nobody requires encryption.
        let plain = Security::load(&GatewaySettings::default()).unwrap();
        assert!(plain.hub.is_none() && plain.partners.is_empty());
    }

    #[test]
    fn refuses_to_start_on_bad_key_material() {
        let mut s = settings();
        s.hub_private_key = Some(fixture("partner-a.key"));
        let error = Security::load(&s).err().expect("mismatched key");
        assert!(
            format!("{error:#}").contains("does not belong"),
            "{error:#}"
        );

        let mut s = settings();
        s.partners[0].certificates = vec![fixture("missing.crt")];
        assert!(Security::load(&s).is_err());

        let mut s = settings();
        s.hub_private_key = None;
        assert!(Security::load(&s).is_err(), "certificate without key");

        let mut s = settings();
        s.hub_certificate = None;
        s.hub_private_key = None;
        assert!(
            Security::load(&s).is_err(),
            "encryption required without a hub key"
        );

        let mut s = settings();
        s.partners.push(s.partners[0].clone());
        assert!(Security::load(&s).is_err(), "duplicate partner");
    }
}
