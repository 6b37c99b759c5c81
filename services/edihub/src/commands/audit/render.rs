//! The audit reports as text for a reader.

use edihub_archive::evidence::EvidenceDocument;
use edihub_archive::verify::{
    Check, LedgerPlace, MessageCheck, ObjectCheck, PeriodReport, Verdict,
};

pub(super) fn print_message(check: &MessageCheck) {
    println!("message:         {}", check.message_id);
    if let Some(doc) = &check.evidence {
        print_evidence(doc, check.signer.as_deref());
    }
    print_ledger(check.ledger.as_ref());
    print_objects(&check.objects);
    println!("checks:");
    for c in &check.checks {
        println!("  {}", check_line(c));
    }
}

/// What evidence.json says: ids, identities, times, algorithms, signer, MIC.
fn print_evidence(doc: &EvidenceDocument, signer: Option<&str>) {
    println!("AS2 Message-ID:  {}", doc.ids.as2_message_id);
    println!(
        "partner:         {} (UNB {})",
        doc.partner.as2_name,
        doc.partner.unb_sender.as_deref().unwrap_or("-")
    );
    println!(
        "hub:             {} (UNB {})",
        doc.hub.as2_name,
        doc.hub.unb_recipient.as_deref().unwrap_or("-")
    );
    println!(
        "UNB reference:   {}",
        doc.ids.unb_reference.as_deref().unwrap_or("-")
    );
    println!("invoices:        {}", doc.ids.invoice_numbers.join(", "));
    println!("received:        {}", doc.received_at.to_rfc3339());
    match &doc.signature {
        Some(s) => println!(
            "signature:       {} by {}",
            s.digest,
            signer.unwrap_or(&s.certificate_sha256)
        ),
        None => println!("signature:       none"),
    }
    match &doc.encryption {
        Some(e) => println!("encryption:      {}", e.algorithm),
        None => println!("encryption:      none"),
    }
    println!(
        "compressed:      {}",
        if doc.compressed { "yes" } else { "no" }
    );
    if let Some(mdn) = &doc.mdn {
        println!(
            "MDN:             {} {} ({}, {}), MIC {}",
            mdn.mdn_message_id,
            mdn.disposition,
            if mdn.signed { "signed" } else { "unsigned" },
            mdn.created_at.to_rfc3339(),
            mdn.received_content_mic
        );
    }
}

fn print_ledger(place: Option<&LedgerPlace>) {
    match place {
        Some(place) => println!(
            "ledger:          seq {} (chained {}), {}",
            place.seq,
            place
                .chained_at
                .map(|t| t.to_rfc3339())
                .unwrap_or_else(|| "-".into()),
            match place.segment {
                Some((first, last)) => format!("sealed in segment {first}-{last}"),
                None => "not sealed yet".to_owned(),
            }
        ),
        None => println!("ledger:          no entry"),
    }
}

fn print_objects(objects: &[ObjectCheck]) {
    println!("objects:");
    for object in objects {
        println!(
            "  {:<16} {} (version {})\n  {:<16} sha256 {}, {} bytes, {} until {}",
            object.kind,
            object.key,
            object.version_id.as_deref().unwrap_or("-"),
            "",
            object.actual_sha256.as_deref().unwrap_or("(not fetched)"),
            object
                .actual_size
                .map(|s| s.to_string())
                .unwrap_or_else(|| "?".into()),
            object.retention_mode.as_deref().unwrap_or("NO LOCK"),
            object
                .retain_until
                .map(|t| t.to_rfc3339())
                .unwrap_or_else(|| "-".into())
        );
    }
}

fn check_line(check: &Check) -> String {
    match &check.verdict {
        Verdict::Ok => format!("OK      {}", check.name),
        Verdict::Failed(reason) => format!("FAILED  {}: {reason}", check.name),
        Verdict::Note(reason) => format!("NOTE    {}: {reason}", check.name),
    }
}

pub(super) fn print_period(report: &PeriodReport) {
    let s = &report.summary;
    println!(
        "period:        {} to {}",
        report.from.to_rfc3339(),
        report.to.to_rfc3339()
    );
    println!("messages:      {}", s.messages);
    println!("objects:       {} ({} bytes)", s.objects, s.bytes);
    println!("segments:      {}", s.segments);
    println!("discrepancies: {}", s.discrepancies);
    for note in &report.notes {
        println!("  note: {note}");
    }
    for discrepancy in &report.discrepancies {
        println!("  DISCREPANCY: {discrepancy}");
    }
}
