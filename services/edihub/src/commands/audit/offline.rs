//! `edihub audit verify FILE`: an exported bundle checked offline, on its bytes alone,
//! against the trust anchors the auditor gives.

use super::inputs::certificate_der;
use super::progress::Progress;
use super::verify::{VerifyArgs, conclude};
use edihub_archive::bundle::{BundleReport, OfflineAnchors, verify_bundle};
use std::path::Path;

pub(super) fn verify_offline(file: &Path, args: &VerifyArgs) -> anyhow::Result<()> {
    let anchors = OfflineAnchors {
        sealing_certificate: args
            .sealing_certificate
            .as_deref()
            .map(certificate_der)
            .transpose()?,
        tsa_certificate: args
            .tsa_certificate
            .as_deref()
            .map(certificate_der)
            .transpose()?,
    };
    let progress = Progress::on_terminal();
    let report = verify_bundle(file, &anchors, &|done, total| progress.update(done, total));
    progress.finish();
    let report = report?;
    conclude(&report, &report.discrepancies, args.json, |report| {
        print_report(file, report)
    })
}

fn print_report(file: &Path, report: &BundleReport) {
    let s = &report.summary;
    println!("bundle:        {}", file.display());
    println!("messages:      {}", s.messages);
    println!("objects:       {} ({} bytes)", s.objects, s.bytes);
    println!("segments:      {}", s.segments);
    println!(
        "last segment:  {}",
        report.last_segment.as_deref().unwrap_or("none")
    );
    if report.anchor_from_bundle {
        println!(
            "WARNING: the sealing certificate (the trust anchor) was {}",
            report.sealing_anchor
        );
    } else {
        println!("sealing anchor: {}", report.sealing_anchor);
    }
    println!("discrepancies: {}", s.discrepancies);
    for note in &report.notes {
        println!("  note: {note}");
    }
    for discrepancy in &report.discrepancies {
        println!("  DISCREPANCY: {discrepancy}");
    }
}
