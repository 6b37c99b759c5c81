//! `edihub audit search`: archived messages by partner, period, invoice number, AS2
//! Message-ID or UNB reference, as a table or one JSON array. The query is the archive's
//! (`edihub_archive::search`); this only renders.

use super::access::{auditor, logged};
use super::inputs::parse_bound;
use crate::Settings;
use edihub_archive::access::commands;
use edihub_archive::search::{Found, SearchFilter, search};

#[derive(Debug, clap::Args)]
pub struct SearchArgs {
    /// The partner's AS2 name (AS2-From).
    #[arg(long)]
    pub partner: Option<String>,
    /// Received from this day (`YYYY-MM-DD`, UTC) or instant (RFC 3339).
    #[arg(long)]
    pub from: Option<String>,
    /// Received up to this day, included, or before this instant.
    #[arg(long)]
    pub to: Option<String>,
    /// An invoice number (BT-1) the message carries.
    #[arg(long)]
    pub invoice: Option<String>,
    /// The partner's AS2 Message-ID (with or without angle brackets).
    #[arg(long)]
    pub as2_message_id: Option<String>,
    /// The interchange's UNB reference (0020).
    #[arg(long)]
    pub unb_reference: Option<String>,
    /// At most this many messages, the earliest received first.
    #[arg(long, default_value_t = 100)]
    pub limit: i64,
    /// One JSON array.
    #[arg(long)]
    pub json: bool,
    /// Who searches, for the access log (default: $EDIHUB_AUDITOR, else the OS user).
    #[arg(long)]
    pub auditor: Option<String>,
}

pub async fn audit_search(settings: &Settings, args: SearchArgs) -> anyhow::Result<()> {
    let filter = SearchFilter {
        message_id: None,
        partner: args.partner.clone(),
        from: args
            .from
            .as_deref()
            .map(|t| parse_bound(t, false))
            .transpose()?,
        to: args
            .to
            .as_deref()
            .map(|t| parse_bound(t, true))
            .transpose()?,
        invoice: args.invoice.clone(),
        as2_message_id: args.as2_message_id.clone(),
        unb_reference: args.unb_reference.clone(),
        limit: Some(args.limit),
    };
    let arguments = serde_json::json!({
        "partner": args.partner, "from": args.from, "to": args.to, "invoice": args.invoice,
        "as2_message_id": args.as2_message_id, "unb_reference": args.unb_reference,
        "limit": args.limit,
    });
    let pool = edihub_db::pool(&settings.database)?;
    let found = logged(
        &pool,
        &auditor(args.auditor),
        commands::SEARCH,
        arguments,
        async { Ok(search(&pool, &filter).await?) },
        |found: &Vec<Found>| found.iter().map(|f| f.message_id).collect(),
    )
    .await?;
    if args.json {
        println!("{}", serde_json::to_string_pretty(&found)?);
    } else {
        print_table(&found);
        if found.len() as i64 == args.limit {
            println!("(the first {} only: --limit)", args.limit);
        }
    }
    Ok(())
}

fn print_table(found: &[Found]) {
    if found.is_empty() {
        println!("no archived message matches");
        return;
    }
    let dash = || "-".to_owned();
    let rows: Vec<[String; 8]> = found
        .iter()
        .map(|f| {
            [
                f.message_id.to_string(),
                f.received_at
                    .map(|t| t.to_rfc3339_opts(chrono::SecondsFormat::Secs, true))
                    .unwrap_or_else(dash),
                f.partner.clone().unwrap_or_else(dash),
                f.as2_message_id.clone().unwrap_or_else(dash),
                f.unb_reference.clone().unwrap_or_else(dash),
                if f.invoice_numbers.is_empty() {
                    dash()
                } else {
                    f.invoice_numbers.join(",")
                },
                f.ledger_seq.map(|s| s.to_string()).unwrap_or_else(dash),
                if f.sealed { "sealed" } else { "not sealed" }.to_owned(),
            ]
        })
        .collect();
    let header = [
        "message",
        "received",
        "partner",
        "AS2 Message-ID",
        "UNB ref",
        "invoices",
        "seq",
        "ledger",
    ];
    let mut widths = header.map(str::len);
    for row in &rows {
        for (width, cell) in widths.iter_mut().zip(row) {
            *width = (*width).max(cell.chars().count());
        }
    }
    let line = |cells: &[&str]| {
        let padded: Vec<String> = cells
            .iter()
            .zip(widths)
            .map(|(cell, width)| format!("{cell:<width$}"))
            .collect();
        println!("{}", padded.join("  ").trim_end());
    };
    line(&header);
    for row in &rows {
        line(&row.each_ref().map(String::as_str));
    }
    println!("{} message(s)", rows.len());
}
