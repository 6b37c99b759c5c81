//! `edihub partner ...` and `edihub identity ...`: partnerships and the hub's AS2
//! identities in the database. Running gateways pick changes up within a second (NOTIFY)
//! or at the latest after `gateway.partner_reload_ms`.

mod identity;
mod options;
mod view;
mod within;

pub use identity::{IdentityCommand, run_identity};

use crate::Settings;
use clap::Subcommand;
use edihub_partners::store::{self, CertificateInfo, PartnerRow};
use options::{PartnerOptions, read_all};
use serde_json::Value;
use sqlx::PgPool;
use std::path::PathBuf;
use view::{PartnerView, certificate_json, requirement};

#[derive(Subcommand)]
pub enum PartnerCommand {
    /// Add a partnership. It requires signed and encrypted messages unless
    /// `--require-signature false` / `--require-encryption false` say otherwise.
    Add {
        /// The partner's AS2 name (the AS2-From of its messages).
        as2_id: String,
        #[command(flatten)]
        options: PartnerOptions,
        /// PEM file with the partner's certificate(s); repeat for several (rollover).
        /// The first is the one the hub encrypts to.
        #[arg(long = "cert")]
        certificates: Vec<PathBuf>,
        /// Print the partnership as JSON.
        #[arg(long)]
        json: bool,
    },
    /// List the partnerships in the database.
    List {
        /// Only partners with a certificate that expires within this span (`30d`,
        /// `12h`, `2w`) or has expired, with those certificates.
        #[arg(long, value_name = "SPAN", value_parser = within::parse_span)]
        expiring_within: Option<i64>,
        /// Print a JSON array of partnerships.
        #[arg(long)]
        json: bool,
    },
    /// Show one partnership with its certificates.
    Show {
        as2_id: String,
        #[arg(long)]
        json: bool,
    },
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
        #[arg(long)]
        json: bool,
    },
    /// Remove a partnership: its messages are refused (authentication-failed) from then on.
    Remove { as2_id: String },
}

fn now_unix() -> i64 {
    chrono::Utc::now().timestamp()
}

pub async fn run_partner(settings: &Settings, command: PartnerCommand) -> anyhow::Result<()> {
    let pool = edihub_db::pool(&settings.database)?;
    match command {
        PartnerCommand::Add {
            as2_id,
            options,
            certificates,
            json,
        } => {
            let partner = options.into_new(as2_id.clone(), read_all(&certificates)?)?;
            store::add_partner(&pool, &partner).await?;
            report_change(settings, &pool, &as2_id, "added", json).await?;
        }
        PartnerCommand::List {
            expiring_within,
            json,
        } => {
            let hub_key = hub_key_known(settings, &pool).await?;
            list(&pool, expiring_within, hub_key, json).await?
        }
        PartnerCommand::Show { as2_id, json } => {
            let row = store::get_partner(&pool, &as2_id).await?;
            let view = PartnerView::new(&row, now_unix(), hub_key_known(settings, &pool).await?)?;
            if json {
                println!("{}", serde_json::to_string_pretty(&view.json())?);
            } else {
                view.print();
            }
        }
        PartnerCommand::Update {
            as2_id,
            options,
            add_certificates,
            remove_certificates,
            json,
        } => {
            let update = options.into_update(
                read_all(&add_certificates)?,
                remove_certificates,
                settings.s3.retention_years,
            )?;
            store::update_partner(&pool, &as2_id, &update).await?;
            report_change(settings, &pool, &as2_id, "updated", json).await?;
        }
        PartnerCommand::Remove { as2_id } => {
            store::remove_partner(&pool, &as2_id).await?;
            println!("partner {as2_id} removed");
        }
    }
    Ok(())
}

/// After `add` or `update`: the partnership as stored, its warnings on stderr too.
async fn report_change(
    settings: &Settings,
    pool: &PgPool,
    as2_id: &str,
    what: &str,
    json: bool,
) -> anyhow::Result<()> {
    let row = store::get_partner(pool, as2_id).await?;
    let view = PartnerView::new(&row, now_unix(), hub_key_known(settings, pool).await?)?;
    view.warn();
    if json {
        println!("{}", serde_json::to_string_pretty(&view.json())?);
    } else {
        println!("partner {as2_id} {what}");
        view.print();
    }
    Ok(())
}

/// Whether a hub key is known here: the CLI cannot see the gateway's own settings file,
/// so `false` is a warning, not a refusal.
async fn hub_key_known(settings: &Settings, pool: &PgPool) -> anyhow::Result<bool> {
    Ok(settings.gateway.hub_private_key.is_some()
        || !store::list_identities(pool).await?.is_empty())
}

async fn list(
    pool: &PgPool,
    expiring_within: Option<i64>,
    hub_key: bool,
    json: bool,
) -> anyhow::Result<()> {
    let partners = store::list_partners(pool).await?;
    let now = now_unix();
    let mut listed: Vec<Value> = Vec::new();
    for row in &partners {
        let view = PartnerView::new(row, now, hub_key)?;
        let Some(within) = expiring_within else {
            if json {
                listed.push(view.json());
            } else {
                print_line(row, &view);
            }
            continue;
        };
        let deadline = now.saturating_add(within);
        let expiring: Vec<_> = (view.certificates.iter())
            .filter(|c| c.not_after_unix <= deadline)
            .collect();
        if expiring.is_empty() {
            continue;
        }
        if json {
            let mut value = view.json();
            value["expiring"] = expiring.iter().map(|c| certificate_json(c)).collect();
            listed.push(value);
        } else {
            for c in expiring {
                println!("{:<24} sha256 {} {}", row.as2_id, c.sha256, expiry(c, now));
            }
        }
    }
    if json {
        println!("{}", serde_json::to_string_pretty(&listed)?);
    } else if partners.is_empty() {
        println!("no partners in the database (the settings file may list more)");
    }
    Ok(())
}

fn expiry(c: &CertificateInfo, now: i64) -> String {
    if c.not_after_unix < now {
        format!("expired {}", c.not_after)
    } else {
        let days = (c.not_after_unix - now) / 86_400;
        format!("expires {} (in {days} days)", c.not_after)
    }
}

fn print_line(row: &PartnerRow, view: &PartnerView) {
    println!(
        "{:<24} certificates={} signature={} encryption={} async-mdn-urls={} warnings={} {}",
        row.as2_id,
        row.certificates.len(),
        requirement(row.require_signature),
        requirement(row.require_encryption),
        row.async_mdn_urls.len(),
        view.warnings.len(),
        row.name.as_deref().unwrap_or(""),
    );
}
