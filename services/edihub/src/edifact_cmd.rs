//! `edihub edifact check|convert FILE`: the transform consumer's decision, offline.
//!
//! Both commands call [`edihub_edifact::check::evaluate_each_with`], the function the
//! transform consumer calls, under the charset policy given (`--charset`, as a
//! partnership's `edifact_charset`), so what they print is exactly what the hub would
//! publish: the same faults (an `EdiMessageRejected`), warnings, or canonical invoices
//! (`InvoiceTransformed`). `check --contrl` also prints the CONTRL of an
//! `EdiAcknowledgementIssued`, built by the same [`edihub_edifact::contrl::build`].

use std::io::Write;
use std::path::{Path, PathBuf};

use anyhow::Context;
use chrono::{Datelike, Timelike, Utc};
use clap::Subcommand;
use edihub_edifact::charset::CharsetPolicy;
use edihub_edifact::check::{self, Options, Report};
use edihub_edifact::contrl::{self, ContrlParams, Prepared};
use edihub_edifact::invoic::CanonicalInvoice;

/// Exit status when the interchange must be rejected.
const REJECTED: i32 = 1;

#[derive(Subcommand)]
pub enum EdifactCommand {
    /// Print every fault of the interchange in FILE with its segment number and byte
    /// offset, the charset warnings, and the EN 16931 total warnings of each invoice.
    /// Exits with status 1 when the hub would reject the interchange.
    Check {
        file: PathBuf,
        /// `tolerant` (the default): a byte outside the declared repertoire that is
        /// printable in ISO 8859-1 is a warning; `strict`: a fault.
        #[arg(long, default_value_t = CharsetPolicy::Tolerant)]
        charset: CharsetPolicy,
        /// Also print the CONTRL the hub would send back when UNB asks for one (0031 =
        /// 1), with the interchange reference PREVIEW and the current time where the hub
        /// uses the message id and the time of receipt.
        #[arg(long)]
        contrl: bool,
    },
    /// Print the canonical invoice JSON of FILE, one invoice per INVOIC message (one JSON
    /// document per line, or indented with --pretty). When the interchange must be
    /// rejected, the faults go to stderr and the exit status is 1; invoices that did map
    /// are still printed, for inspection.
    Convert {
        file: PathBuf,
        #[arg(long)]
        pretty: bool,
        /// As for `check`.
        #[arg(long, default_value_t = CharsetPolicy::Tolerant)]
        charset: CharsetPolicy,
    },
}

pub fn run(command: EdifactCommand) -> anyhow::Result<()> {
    let rejected = match command {
        EdifactCommand::Check {
            file,
            charset,
            contrl,
        } => {
            let bytes = read(&file)?;
            // Streamed: only each invoice's warnings are kept, not the messages.
            let mut tally = Tally::default();
            let report =
                check::evaluate_each_with(&bytes, &Options { charset }, &mut |m| tally.add(&m));
            let mut out = std::io::stdout().lock();
            print_check(&file, &report, &tally, &mut out)?;
            if contrl {
                print_contrl(&file, &report, &preview_params(), &mut out)?;
            }
            report.must_reject()
        }
        EdifactCommand::Convert {
            file,
            pretty,
            charset,
        } => {
            let bytes = read(&file)?;
            let mut out = std::io::BufWriter::new(std::io::stdout().lock());
            let mut written: std::io::Result<()> = Ok(());
            // Each invoice is printed as soon as it is mapped, so a large interchange
            // is never held as invoices.
            let report = check::evaluate_each_with(&bytes, &Options { charset }, &mut |m| {
                if let Some(invoice) = &m.invoice
                    && written.is_ok()
                {
                    written = print_invoice(&mut out, invoice, pretty);
                }
            });
            written?;
            out.flush()?;
            if report.must_reject() {
                let mut err = std::io::stderr().lock();
                for fault in &report.faults {
                    writeln!(err, "{}: {fault}", file.display())?;
                }
                writeln!(err, "{}: rejected", file.display())?;
            }
            report.must_reject()
        }
    };
    if rejected {
        std::process::exit(REJECTED);
    }
    Ok(())
}

fn read(file: &Path) -> anyhow::Result<Vec<u8>> {
    std::fs::read(file).with_context(|| format!("reading {}", file.display()))
}

fn print_invoice(
    out: &mut impl Write,
    invoice: &CanonicalInvoice,
    pretty: bool,
) -> std::io::Result<()> {
    if pretty {
        serde_json::to_writer_pretty(&mut *out, invoice)?;
    } else {
        serde_json::to_writer(&mut *out, invoice)?;
    }
    writeln!(out)
}

/// What `check` keeps of the messages: how many, how many invoices, and their warnings.
#[derive(Default)]
struct Tally {
    messages: usize,
    invoices: usize,
    /// `(message reference, warning)`, in input order.
    warnings: Vec<(String, edihub_edifact::invoic::Warning)>,
}

impl Tally {
    fn add(&mut self, message: &check::MessageOutput) {
        self.messages += 1;
        let Some(invoice) = &message.invoice else {
            return;
        };
        self.invoices += 1;
        self.warnings.extend(
            invoice
                .warnings
                .iter()
                .map(|w| (invoice.message_reference.clone(), w.clone())),
        );
    }
}

/// The `check` output: one line per fault and per warning, then a verdict line.
fn print_check(
    file: &Path,
    report: &Report,
    tally: &Tally,
    out: &mut impl Write,
) -> std::io::Result<()> {
    let name = file.display();
    if let Some(h) = &report.header {
        writeln!(
            out,
            "{name}: interchange {} from {} to {} ({}:{})",
            h.control_reference, h.sender_id, h.recipient_id, h.syntax_identifier, h.syntax_version
        )?;
    }
    for fault in &report.faults {
        writeln!(out, "{name}: error: {fault}")?;
    }
    for warning in &report.warnings {
        writeln!(out, "{name}: warning: {warning}")?;
    }
    for (reference, w) in &tally.warnings {
        let at = w.position.map_or_else(
            || "(no position)".to_owned(),
            |p| format!("segment {} (byte {})", p.segment, p.offset),
        );
        writeln!(
            out,
            "{name}: warning: {at}: [{}] {} (message {reference})",
            w.rule, w.message
        )?;
    }
    let warnings = tally.warnings.len() + report.warnings.len();
    if report.must_reject() {
        writeln!(
            out,
            "{name}: rejected: {} fault(s), {warnings} warning(s)",
            report.faults.len()
        )?;
    } else {
        writeln!(
            out,
            "{name}: accepted: {} invoice(s), {} message(s), {warnings} warning(s)",
            tally.invoices, tally.messages
        )?;
    }
    out.flush()
}

fn preview_params() -> ContrlParams {
    let now = Utc::now();
    let two = |n: u32| u8::try_from(n).unwrap_or_default();
    ContrlParams {
        interchange_reference: "PREVIEW".to_owned(),
        message_reference: "1".to_owned(),
        prepared: Prepared {
            year: u16::try_from(now.year()).unwrap_or_default(),
            month: two(now.month()),
            day: two(now.day()),
            hour: two(now.hour()),
            minute: two(now.minute()),
        },
    }
}

/// The `check --contrl` addition: the CONTRL as the hub would send it (as text, on one
/// line), or why there is none.
fn print_contrl(
    file: &Path,
    report: &Report,
    params: &ContrlParams,
    out: &mut impl Write,
) -> std::io::Result<()> {
    let name = file.display();
    match contrl::build(report, params) {
        Some(c) => {
            writeln!(out, "{name}: CONTRL ({}):", c.action.as_str())?;
            writeln!(out, "{}", c.text)?;
        }
        None if report.header.is_none() => {
            writeln!(out, "{name}: no CONTRL: UNB is unreadable")?;
        }
        None => writeln!(
            out,
            "{name}: no CONTRL: UNB does not ask for an acknowledgement (0031)"
        )?,
    }
    out.flush()
}

#[cfg(test)]
mod tests;
