//! `edihub partner ...` and `edihub identity ...`: partnerships and the hub's AS2
//! identities in the database. Running gateways pick changes up within a second (NOTIFY)
//! or at the latest after `gateway.partner_reload_ms`.

use crate::Settings;
use anyhow::Context;
use clap::{Args, Subcommand};
use edihub_partners::store::{self, NewPartner, PartnerRow, PartnerUpdate};
use std::path::{Path, PathBuf};

#[derive(Subcommand)]
pub enum PartnerCommand {
    /// Add a partnership.
    Add {
        /// The partner's AS2 name (the AS2-From of its messages).
        as2_id: String,
        #[command(flatten)]
        options: PartnerOptions,
        /// PEM file with the partner's certificate(s); repeat for several (rollover).
        /// The first is the one the hub encrypts to.
        #[arg(long = "cert")]
        certificates: Vec<PathBuf>,
    },
    /// List the partnerships in the database.
    List,
    /// Show one partnership with its certificates.
    Show { as2_id: String },
    /// Change a partnership; options not given stay as they are.
    Update {
        as2_id: String,
        #[command(flatten)]
        options: PartnerOptions,
        /// Add the certificate(s) in this PEM file; repeatable.
        #[arg(long = "add-cert")]
        add_certificates: Vec<PathBuf>,
        /// Remove the certificate with this SHA-256 fingerprint (or a unique prefix of
        /// at least 8 hex digits, as `show` prints it); repeatable.
        #[arg(long = "remove-cert")]
        remove_certificates: Vec<String>,
    },
    /// Remove a partnership: its messages are refused (authentication-failed) from then on.
    Remove { as2_id: String },
}

#[derive(Args)]
pub struct PartnerOptions {
    /// A human name for operators.
    #[arg(long)]
    name: Option<String>,
    /// Refuse unsigned messages (insufficient-message-security).
    #[arg(long, value_name = "BOOL")]
    require_signature: Option<bool>,
    /// Refuse unencrypted messages (insufficient-message-security).
    #[arg(long, value_name = "BOOL")]
    require_encryption: Option<bool>,
    /// Accept signatures by the partner's certificates outside their validity period.
    #[arg(long, value_name = "BOOL")]
    allow_expired_certificates: Option<bool>,
    /// A URL (exact) or URL prefix (ending in `/`) where asynchronous MDNs may be sent;
    /// repeatable. With `update`, replaces the list; `--no-async-mdn-urls` empties it.
    #[arg(long = "async-mdn-url")]
    async_mdn_urls: Vec<String>,
    /// With `update`: remove every async MDN URL.
    #[arg(long, conflicts_with = "async_mdn_urls")]
    no_async_mdn_urls: bool,
}

#[derive(Subcommand)]
pub enum IdentityCommand {
    /// Store (or replace) one of the hub's AS2 identities: the AS2-To partners address,
    /// with its certificate and private key (PEM; the key must match the certificate).
    Set {
        as2_id: String,
        #[arg(long = "cert")]
        certificate: PathBuf,
        #[arg(long = "key")]
        private_key: PathBuf,
    },
    /// List the identities in the database (never their keys).
    List,
    /// Remove an identity from the database.
    Remove { as2_id: String },
}

fn read(path: &Path) -> anyhow::Result<Vec<u8>> {
    std::fs::read(path).with_context(|| format!("cannot read {}", path.display()))
}

fn read_all(paths: &[PathBuf]) -> anyhow::Result<Vec<Vec<u8>>> {
    paths.iter().map(|p| read(p)).collect()
}

pub async fn run_partner(settings: &Settings, command: PartnerCommand) -> anyhow::Result<()> {
    let pool = edihub_db::pool(&settings.database)?;
    match command {
        PartnerCommand::Add {
            as2_id,
            options,
            certificates,
        } => {
            store::add_partner(
                &pool,
                &NewPartner {
                    as2_id: as2_id.clone(),
                    name: options.name,
                    require_signature: options.require_signature.unwrap_or(false),
                    require_encryption: options.require_encryption.unwrap_or(false),
                    allow_expired_certificates: options.allow_expired_certificates.unwrap_or(false),
                    async_mdn_urls: options.async_mdn_urls,
                    certificates: read_all(&certificates)?,
                },
            )
            .await?;
            println!("partner {as2_id} added");
            print_partner(&store::get_partner(&pool, &as2_id).await?)?;
        }
        PartnerCommand::List => {
            let partners = store::list_partners(&pool).await?;
            if partners.is_empty() {
                println!("no partners in the database (the settings file may list more)");
            }
            for p in partners {
                println!(
                    "{:<24} certificates={} signature={} encryption={} async-mdn-urls={} {}",
                    p.as2_id,
                    p.certificates.len(),
                    requirement(p.require_signature),
                    requirement(p.require_encryption),
                    p.async_mdn_urls.len(),
                    p.name.as_deref().unwrap_or(""),
                );
            }
        }
        PartnerCommand::Show { as2_id } => {
            print_partner(&store::get_partner(&pool, &as2_id).await?)?
        }
        PartnerCommand::Update {
            as2_id,
            options,
            add_certificates,
            remove_certificates,
        } => {
            let async_mdn_urls = if options.no_async_mdn_urls {
                Some(Vec::new())
            } else if options.async_mdn_urls.is_empty() {
                None
            } else {
                Some(options.async_mdn_urls)
            };
            store::update_partner(
                &pool,
                &as2_id,
                &PartnerUpdate {
                    name: options.name,
                    require_signature: options.require_signature,
                    require_encryption: options.require_encryption,
                    allow_expired_certificates: options.allow_expired_certificates,
                    async_mdn_urls,
                    add_certificates: read_all(&add_certificates)?,
                    remove_certificates,
                },
            )
            .await?;
            println!("partner {as2_id} updated");
            print_partner(&store::get_partner(&pool, &as2_id).await?)?;
        }
        PartnerCommand::Remove { as2_id } => {
            store::remove_partner(&pool, &as2_id).await?;
            println!("partner {as2_id} removed");
        }
    }
    Ok(())
}

fn requirement(required: bool) -> &'static str {
    if required { "required" } else { "optional" }
}

fn print_partner(partner: &PartnerRow) -> anyhow::Result<()> {
    println!("as2_id:                     {}", partner.as2_id);
    println!(
        "name:                       {}",
        partner.name.as_deref().unwrap_or("-")
    );
    println!(
        "signature:                  {}",
        requirement(partner.require_signature)
    );
    println!(
        "encryption:                 {}",
        requirement(partner.require_encryption)
    );
    println!(
        "allow expired certificates: {}",
        partner.allow_expired_certificates
    );
    println!("async MDN URLs:             {:?}", partner.async_mdn_urls);
    let certificates = store::describe_certificates(partner)?;
    println!("certificates:               {}", certificates.len());
    for (i, c) in certificates.iter().enumerate() {
        let role = if i == 0 { " (encryption)" } else { "" };
        println!("  sha256 {}{role}", c.sha256);
        println!("    subject   {}", c.subject);
        println!("    valid     {} .. {}", c.not_before, c.not_after);
    }
    Ok(())
}

pub async fn run_identity(settings: &Settings, command: IdentityCommand) -> anyhow::Result<()> {
    let pool = edihub_db::pool(&settings.database)?;
    match command {
        IdentityCommand::Set {
            as2_id,
            certificate,
            private_key,
        } => {
            let passphrase = settings.gateway.hub_key_passphrase_bytes();
            let info = store::set_identity(
                &pool,
                &as2_id,
                &read(&certificate)?,
                &read(&private_key)?,
                passphrase,
            )
            .await?;
            println!(
                "identity {as2_id} stored: certificate sha256 {} ({}), valid {} .. {}, key {}",
                info.sha256,
                info.subject,
                info.not_before,
                info.not_after,
                if passphrase.is_some() {
                    "encrypted under the passphrase"
                } else {
                    "unencrypted"
                }
            );
            if passphrase.is_none() {
                eprintln!(
                    "warning: the private key is stored in the clear; set \
                     EDIHUB_HUB_KEY_PASSPHRASE (gateway.hub_key_passphrase) to encrypt it"
                );
            }
        }
        IdentityCommand::List => {
            let identities = store::list_identities(&pool).await?;
            if identities.is_empty() {
                println!("no identities in the database (the settings file may name one)");
            }
            for identity in identities {
                for c in store::read_certificates(identity.certificate_pem.as_bytes())? {
                    println!(
                        "{:<24} sha256 {} {} valid {} .. {} key {}",
                        identity.as2_id,
                        c.sha256,
                        c.subject,
                        c.not_before,
                        c.not_after,
                        if identity.key_encrypted() {
                            "encrypted"
                        } else {
                            "unencrypted"
                        }
                    );
                }
            }
        }
        IdentityCommand::Remove { as2_id } => {
            store::remove_identity(&pool, &as2_id).await?;
            println!("identity {as2_id} removed");
        }
    }
    Ok(())
}
