//! `edihub edifact check|convert FILE`: the transform consumer's decision, offline.
//!
//! Both commands call [`edihub_edifact::check::evaluate`], the function behind
//! `edihub_transform::map_invoices`, so what they print is exactly what the hub would
//! publish: the same faults (an `EdiMessageRejected`) or the same canonical invoices
//! (`InvoiceTransformed`).

use std::io::Write;
use std::path::{Path, PathBuf};

use anyhow::Context;
use clap::Subcommand;
use edihub_edifact::check::{self, Report};

/// Exit status when the interchange must be rejected.
const REJECTED: i32 = 1;

#[derive(Subcommand)]
pub enum EdifactCommand {
    /// Print every fault of the interchange in FILE with its segment number and byte
    /// offset, and the EN 16931 total warnings of each invoice. Exits with status 1 when
    /// the hub would reject the interchange.
    Check { file: PathBuf },
    /// Print the canonical invoice JSON of FILE, one invoice per INVOIC message (one JSON
    /// document per line, or indented with --pretty). When the interchange must be
    /// rejected, the faults go to stderr and the exit status is 1; invoices that did map
    /// are still printed, for inspection.
    Convert {
        file: PathBuf,
        #[arg(long)]
        pretty: bool,
    },
}

pub fn run(command: EdifactCommand) -> anyhow::Result<()> {
    let rejected = match command {
        EdifactCommand::Check { file } => {
            let report = evaluate(&file)?;
            print_check(&file, &report, &mut std::io::stdout().lock())?;
            report.must_reject()
        }
        EdifactCommand::Convert { file, pretty } => {
            let report = evaluate(&file)?;
            let mut out = std::io::stdout().lock();
            for invoice in &report.invoices {
                if pretty {
                    serde_json::to_writer_pretty(&mut out, invoice)?;
                } else {
                    serde_json::to_writer(&mut out, invoice)?;
                }
                writeln!(out)?;
            }
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

fn evaluate(file: &Path) -> anyhow::Result<Report> {
    let bytes = std::fs::read(file).with_context(|| format!("reading {}", file.display()))?;
    Ok(check::evaluate(&bytes))
}

/// The `check` output: one line per fault and per warning, then a verdict line.
fn print_check(file: &Path, report: &Report, out: &mut impl Write) -> std::io::Result<()> {
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
    for invoice in &report.invoices {
        for w in &invoice.warnings {
            let at = w.position.map_or_else(
                || "(no position)".to_owned(),
                |p| format!("segment {} (byte {})", p.segment, p.offset),
            );
            writeln!(
                out,
                "{name}: warning: {at}: [{}] {} (message {})",
                w.rule, w.message, invoice.message_reference
            )?;
        }
    }
    let warnings: usize = report.invoices.iter().map(|i| i.warnings.len()).sum();
    if report.must_reject() {
        writeln!(
            out,
            "{name}: rejected: {} fault(s), {warnings} warning(s)",
            report.faults.len()
        )?;
    } else {
        writeln!(
            out,
            "{name}: accepted: {} invoice(s), {warnings} warning(s)",
            report.invoices.len()
        )?;
    }
    out.flush()
}

#[cfg(test)]
mod tests {
    use super::*;

    const SAMPLE: &str = include_str!("../../../fixtures/edifact/invoic-eancom-d96a.edi");

    fn printed(input: &str) -> String {
        let mut out = Vec::new();
        let report = check::evaluate(input.as_bytes());
        print_check(Path::new("f.edi"), &report, &mut out).unwrap();
        String::from_utf8(out).unwrap()
    }

    #[test]
    fn check_prints_every_fault_with_its_position() {
        let input = SAMPLE
            .replace("UNT+34+1", "UNT+33+1")
            .replace("MOA+9:267.75", "MOA+9:26O");
        let text = printed(&input);
        let moa = input.find("MOA+9:26O").unwrap();
        let unt = input.find("UNT+33").unwrap();
        assert!(
            text.contains(&format!(
                "f.edi: error: segment 31 (byte {moa}): [mapping] invalid number \"26O\" (message 1)"
            )),
            "{text}"
        );
        assert!(
            text.contains(&format!(
                "f.edi: error: segment 35 (byte {unt}): [syntax] UNT declares 33"
            )),
            "{text}"
        );
        assert!(
            text.ends_with("f.edi: rejected: 2 fault(s), 0 warning(s)\n"),
            "{text}"
        );
    }

    #[test]
    fn check_prints_warnings_and_accepts() {
        let text = printed(&SAMPLE.replace("MOA+79:225.00", "MOA+79:225.50"));
        assert!(text.contains("warning: segment 27"), "{text}");
        assert!(text.contains("[BR-CO-10]"), "{text}");
        assert!(
            text.ends_with("accepted: 1 invoice(s), 2 warning(s)\n"),
            "{text}"
        );
    }
}
