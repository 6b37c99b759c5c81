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
                ..Default::default()
            },
            store::PartnerRow {
                as2_id: "B".into(),
                name: None,
                require_signature: false,
                require_encryption: false,
                allow_expired_certificates: false,
                async_mdn_urls: vec![],
                certificates: vec!["not a certificate".into()],
                ..Default::default()
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

/// A settings file's `[gateway]` section, read as the services read it.
fn gateway_from_toml(text: &str) -> GatewaySettings {
    #[derive(serde::Deserialize)]
    struct File {
        gateway: GatewaySettings,
    }
    let path = std::env::temp_dir().join(format!(
        "edihub-partners-{}-{}.toml",
        std::process::id(),
        text.len()
    ));
    std::fs::write(&path, text).unwrap();
    let file: File = edihub_config::load_from(Some(&path), |_| None).unwrap();
    std::fs::remove_file(path).ok();
    file.gateway
}

#[test]
fn a_partnership_in_the_settings_file_requires_signing_and_encryption_unless_it_says_not() {
    let gateway = gateway_from_toml(
        "[gateway]\n[[gateway.partners]]\nas2_id = \"SECURE\"\n\
         [[gateway.partners]]\nas2_id = \"PLAIN\"\nrequire_signature = false\n\
         require_encryption = false\n",
    );
    let secure = &gateway.partners[0];
    assert!(secure.require_signature && secure.require_encryption);
    let plain = &gateway.partners[1];
    assert!(!plain.require_signature && !plain.require_encryption);
    // Encryption required by default needs the hub's key, as before.
    let error = Directory::from_settings(&gateway).unwrap_err();
    assert!(
        error.to_string().contains("SECURE requires encryption"),
        "{error}"
    );
}

#[test]
fn the_demo_settings_still_accept_the_plain_message_the_demo_sends() {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..");
    let text = std::fs::read_to_string(root.join("deploy/local/edihub.toml")).unwrap();
    let mut gateway = gateway_from_toml(&text);
    // The file's paths are relative to the repository root, where demo.sh starts.
    let rooted = |p: &mut PathBuf| *p = root.join(&*p);
    let hub_files = [&mut gateway.hub_certificate, &mut gateway.hub_private_key];
    hub_files.into_iter().flatten().for_each(rooted);
    gateway
        .partners
        .iter_mut()
        .for_each(|p| p.certificates.iter_mut().for_each(rooted));
    let directory = Directory::from_settings(&gateway).unwrap();
    let demo = directory.partner("ACME-SUPPLIER").unwrap();
    assert!(!demo.require_signature && !demo.require_encryption);
}

#[test]
fn bad_options_in_the_settings_file_name_the_partner_and_the_value() {
    let mut s = settings();
    s.partners[0].async_mdn_allowed_networks = vec!["10.0.0.0/40".into()];
    let error = Directory::from_settings(&s).unwrap_err();
    assert!(
        error
            .to_string()
            .starts_with("partner A: async MDN network \"10.0.0.0/40\""),
        "{error}"
    );
    let mut s = settings();
    s.partners[0].min_rsa_bits = Some(512);
    let error = Directory::from_settings(&s).unwrap_err();
    assert_eq!(
        error.to_string(),
        "partner A: min_rsa_bits 512 is outside 1024 ..= 16384"
    );
}

#[test]
fn database_options_reach_the_partnership_and_a_bad_one_leaves_the_row_out() {
    let fingerprint = "ab".repeat(32);
    let with_options = store::PartnerRow {
        as2_id: "OPTIONS".into(),
        async_mdn_allowed_networks: vec!["10.20.0.0/16".into()],
        tls_client_fingerprints: vec![fingerprint],
        min_rsa_bits: Some(3072),
        digests: vec!["sha-256".into()],
        ciphers: vec!["aes256-gcm".into()],
        ..Default::default()
    };
    let bad = store::PartnerRow {
        as2_id: "BAD".into(),
        digests: vec!["md5".into()],
        ..Default::default()
    };
    let rows = store::DirectoryRows {
        identities: vec![],
        partners: vec![with_options, bad],
    };
    let (directory, problems) = Directory::with_database(&settings(), &rows).unwrap();
    let partner = directory.partner("OPTIONS").unwrap();
    assert_eq!(
        partner.async_mdn_allowed_networks,
        vec!["10.20.0.0/16".parse::<ipnet::IpNet>().unwrap()]
    );
    assert_eq!(partner.tls_client_fingerprints, vec![[0xab; 32]]);
    assert_eq!(partner.algorithms.min_rsa_bits, 3072);
    assert_eq!(partner.algorithms.digests, vec![edihub_as2::MicAlg::Sha256]);
    assert_eq!(
        partner.algorithms.ciphers,
        vec![edihub_as2::Encryption::Aes256Gcm]
    );
    assert!(directory.partner("BAD").is_none());
    assert_eq!(problems.len(), 1, "{problems:?}");
    assert!(
        problems[0].contains("unknown digest \"md5\""),
        "{problems:?}"
    );
}

fn outbound(url: &str) -> edihub_config::PartnerOutboundSettings {
    edihub_config::PartnerOutboundSettings {
        url: url.into(),
        ..Default::default()
    }
}

#[test]
fn file_outbound_settings_are_read_and_checked_against_the_partnership() {
    let mut s = settings();
    s.partners[0].outbound = Some(outbound("https://a.example/as2"));
    let directory = Directory::from_settings(&s).unwrap();
    let sent = directory.partner("A").unwrap().outbound.as_ref().unwrap();
    assert_eq!(
        *sent,
        outbound::OutboundPartnership::new("https://a.example/as2".into())
    );

    let mut s = settings();
    s.partners[0].outbound = Some(edihub_config::PartnerOutboundSettings {
        sign: Some("md5".into()),
        ..outbound("https://a.example/as2")
    });
    let error = Directory::from_settings(&s).unwrap_err().to_string();
    assert!(
        error.starts_with("partner A: outbound sign \"md5\""),
        "{error}"
    );

    // Signing needs the hub's key; encrypting needs the partner's certificate.
    let mut s = settings();
    (s.hub_certificate, s.hub_private_key) = (None, None);
    s.partners[0].require_encryption = false;
    s.partners[0].outbound = Some(outbound("https://a.example/as2"));
    let error = Directory::from_settings(&s).unwrap_err().to_string();
    assert!(
        error.contains("outbound sign needs a key, but hub identity EDIHUB"),
        "{error}"
    );
    let mut s = settings();
    s.partners[0].certificates.clear();
    s.partners[0].outbound = Some(outbound("https://a.example/as2"));
    let error = Directory::from_settings(&s).unwrap_err().to_string();
    assert!(
        error.contains("outbound encrypt aes256: the partnership has no certificate"),
        "{error}"
    );
    // Nothing to sign with, nothing to encrypt to: plain sending is allowed.
    s.partners[0].outbound = Some(edihub_config::PartnerOutboundSettings {
        sign: Some("none".into()),
        encrypt: Some("none".into()),
        ..outbound("http://a.example/as2")
    });
    (s.hub_certificate, s.hub_private_key) = (None, None);
    s.partners[0].require_encryption = false;
    assert!(
        Directory::from_settings(&s)
            .unwrap()
            .partner("A")
            .unwrap()
            .outbound
            .is_some()
    );
}

#[test]
fn database_outbound_settings_are_read_as_the_file_ones_and_unusable_ones_reported() {
    let row = |as2_id: &str, settings: edihub_config::PartnerOutboundSettings| store::PartnerRow {
        as2_id: as2_id.into(),
        certificates: vec![pem("partner-b.crt")],
        outbound: Some(sqlx::types::Json(settings)),
        ..Default::default()
    };
    let as_eu = edihub_config::PartnerOutboundSettings {
        hub_as2_id: Some("EDIHUB-EU".into()),
        mdn: Some("none".into()),
        ..outbound("https://b.example/as2")
    };
    let as_nobody = edihub_config::PartnerOutboundSettings {
        hub_as2_id: Some("NOBODY".into()),
        ..outbound("https://c.example/as2")
    };
    let mut no_certificate = row("D", outbound("https://d.example/as2"));
    no_certificate.certificates.clear();
    let rows = store::DirectoryRows {
        identities: vec![store::IdentityRow {
            as2_id: "EDIHUB-EU".into(),
            certificate_pem: pem("hub.crt"),
            private_key_pem: pem("hub.key"),
        }],
        partners: vec![row("B", as_eu), row("C", as_nobody), no_certificate],
    };
    let (directory, problems) = Directory::with_database(&settings(), &rows).unwrap();
    let b = directory.partner("B").unwrap().outbound.as_ref().unwrap();
    assert_eq!(b.sending_identity("EDIHUB"), "EDIHUB-EU");
    assert_eq!(b.mdn, outbound::MdnRequest::None);
    // An identity that is not ours: the partnership receives, but sends nothing.
    assert!(directory.partner("C").unwrap().outbound.is_none());
    assert!(
        directory.partner("D").is_none(),
        "encrypting to no certificate"
    );
    assert_eq!(problems.len(), 2, "{problems:?}");
    assert!(
        problems.iter().any(|p| p.starts_with(
            "partner C: outbound hub_as2_id \"NOBODY\" is not one of the hub's identities"
        )),
        "{problems:?}"
    );
    assert!(
        problems
            .iter()
            .any(|p| p.contains("outbound encrypt aes256")),
        "{problems:?}"
    );
}

#[test]
fn the_settings_file_takes_outbound_settings_as_a_table_under_each_partner() {
    #[derive(serde::Deserialize)]
    struct File {
        gateway: GatewaySettings,
    }
    let text = format!(
        r#"
        [gateway]
        hub_certificate = "{hub_crt}"
        hub_private_key = "{hub_key}"

        [[gateway.partners]]
        as2_id = "A"
        certificates = ["{partner_crt}"]

        [gateway.partners.outbound]
        url = "https://a.example/as2"
        encrypt = "aes128"
        mdn = "async"
        mdn_signed = "sha512"
        async_mdn_url = "https://hub.example/as2"
        max_attempts = 5

        [[gateway.partners]]
        as2_id = "B"
        require_encryption = false
        "#,
        hub_crt = fixture("hub.crt").display(),
        hub_key = fixture("hub.key").display(),
        partner_crt = fixture("partner-a.crt").display(),
    );
    let path = std::env::temp_dir().join(format!("edihub-outbound-{}.toml", std::process::id()));
    std::fs::write(&path, text).unwrap();
    let file: Result<File, _> = edihub_config::load_from(Some(&path), |_| None);
    std::fs::remove_file(&path).unwrap();
    let directory = Directory::from_settings(&file.unwrap().gateway).unwrap();
    let a = directory.partner("A").unwrap().outbound.as_ref().unwrap();
    assert_eq!(a.encrypt, Some(edihub_as2::Encryption::Aes128Cbc));
    assert_eq!(a.max_attempts, 5);
    assert_eq!(
        a.mdn,
        outbound::MdnRequest::Async {
            signed: Some(edihub_as2::MicAlg::Sha512),
            return_url: "https://hub.example/as2".into()
        }
    );
    assert!(directory.partner("B").unwrap().outbound.is_none());
}
