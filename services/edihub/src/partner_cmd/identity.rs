//! `edihub identity ...`: the hub's own AS2 identities in the database.

use super::now_unix;
use super::options::read;
use crate::Settings;
use clap::Subcommand;
use edihub_as2::smime::DEFAULT_MIN_RSA_BITS;
use edihub_partners::store;
use serde_json::json;
use std::path::PathBuf;

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
        /// Store the certificate although it has expired already (refused otherwise).
        #[arg(long)]
        store_expired: bool,
        /// Print what was stored, with its warnings, as JSON.
        #[arg(long)]
        json: bool,
    },
    /// List the identities in the database (never their keys).
    List,
    /// Remove an identity from the database.
    Remove { as2_id: String },
}

pub async fn run_identity(settings: &Settings, command: IdentityCommand) -> anyhow::Result<()> {
    let pool = edihub_db::pool(&settings.database)?;
    match command {
        IdentityCommand::Set {
            as2_id,
            certificate,
            private_key,
            store_expired,
            json,
        } => {
            let passphrase = settings.gateway.hub_key_passphrase_bytes();
            let info = store::set_identity(
                &pool,
                &as2_id,
                &read(&certificate)?,
                &read(&private_key)?,
                passphrase,
                store_expired,
            )
            .await?;
            // Partners' minimum key sizes are theirs; the hub's key should meet the default.
            let warnings = store::warnings(&info, now_unix(), DEFAULT_MIN_RSA_BITS);
            for warning in &warnings {
                eprintln!("warning: identity {as2_id}: {warning}");
            }
            if passphrase.is_none() {
                eprintln!(
                    "warning: the private key is stored in the clear; set \
                     EDIHUB_HUB_KEY_PASSPHRASE (gateway.hub_key_passphrase) to encrypt it"
                );
            }
            let key = if passphrase.is_some() {
                "encrypted under the passphrase"
            } else {
                "unencrypted"
            };
            if json {
                let warnings: Vec<_> = (warnings.iter())
                    .map(|w| json!({"kind": w.kind(), "certificate": w.sha256(), "message": w.to_string()}))
                    .collect();
                let value = json!({
                    "as2_id": as2_id,
                    "certificate": super::view::certificate_json(&info),
                    "key_encrypted": passphrase.is_some(),
                    "warnings": warnings,
                });
                println!("{}", serde_json::to_string_pretty(&value)?);
            } else {
                println!(
                    "identity {as2_id} stored: certificate sha256 {} ({}), valid {} .. {}, key {key}",
                    info.sha256, info.subject, info.not_before, info.not_after,
                );
            }
        }
        IdentityCommand::List => list(&pool).await?,
        IdentityCommand::Remove { as2_id } => {
            store::remove_identity(&pool, &as2_id).await?;
            println!("identity {as2_id} removed");
        }
    }
    Ok(())
}

async fn list(pool: &sqlx::PgPool) -> anyhow::Result<()> {
    let identities = store::list_identities(pool).await?;
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
    Ok(())
}
