//! A bundle checked offline: no database, no S3; the trust anchors are given (or, said
//! loudly, taken from the bundle).

use super::BundleError;
use super::chain::{Anchors, SealedEntry, check_segments};
use super::index::BundleIndex;
use super::message::check_message;
use super::paths;
use super::read::Bundle;
use super::signature::check_index_signature;
use crate::verify::{PeriodSummary, Verdict};
use edihub_as2::Certificate;
use edihub_journal::sha256_hex;
use serde::Serialize;
use std::collections::{BTreeSet, HashMap};
use std::path::Path;
use uuid::Uuid;

pub use super::message::BundleMessage;

/// The certificates the auditor obtained apart from the bundle (DER).
#[derive(Debug, Clone, Default)]
pub struct OfflineAnchors {
    /// `None`: the bundle's own certificates/sealing.pem is used, and the report says so.
    pub sealing_certificate: Option<Vec<u8>>,
    pub tsa_certificate: Option<Vec<u8>>,
}

#[derive(Debug, Clone, Serialize)]
pub struct BundleReport {
    pub summary: PeriodSummary,
    /// Where the sealing certificate came from, and its SHA-256.
    pub sealing_anchor: String,
    /// The sealing certificate was the bundle's own: the signatures then show only that
    /// whoever made the bundle holds that key.
    pub anchor_from_bundle: bool,
    pub last_segment: Option<String>,
    pub discrepancies: Vec<String>,
    pub notes: Vec<String>,
    pub messages: Vec<BundleMessage>,
}

impl BundleReport {
    pub fn passed(&self) -> bool {
        self.discrepancies.is_empty()
    }
}

/// Checks the bundle at `path`; `progress(done, total)` per message.
pub fn verify_bundle(
    path: &Path,
    anchors: &OfflineAnchors,
    progress: &dyn Fn(u64, u64),
) -> Result<BundleReport, BundleError> {
    let bundle = Bundle::open(path)?;
    let index_json = bundle
        .read(paths::INDEX_JSON)?
        .ok_or(BundleError::NoIndex)?;
    let index: BundleIndex = serde_json::from_slice(&index_json).map_err(BundleError::Index)?;
    let mut discrepancies: Vec<String> = bundle
        .duplicates()
        .iter()
        .map(|p| format!("{p}: occurs more than once in the tar file"))
        .collect();
    let mut notes = Vec::new();
    let (sealing, sealing_anchor, from_bundle) =
        sealing_anchor(&bundle, anchors, &mut discrepancies, &mut notes)?;
    // First among the chain's findings: the truncation check below trusts the index.
    discrepancies.extend(check_index_signature(&bundle, &index_json, &sealing)?);
    let chain = check_segments(
        &bundle,
        &index,
        &Anchors {
            sealing: &sealing,
            tsa: anchors.tsa_certificate.as_deref(),
        },
    )?;
    discrepancies.extend(chain.discrepancies.iter().cloned());
    notes.extend(chain.notes.iter().cloned());
    let hub = hub_certificates(&bundle, &mut notes)?;
    let total = index.messages.len() as u64;
    progress(0, total);
    let mut messages = Vec::new();
    for (done, message) in index.messages.iter().enumerate() {
        messages.push(check_message(&bundle, message, &chain.sealed, &hub)?);
        progress(done as u64 + 1, total);
    }
    discrepancies.extend(unindexed_entries(&index, &chain.sealed));
    notes.extend(unnamed_objects(&bundle, &index));
    Ok(report(
        index,
        chain.segments,
        (sealing_anchor, from_bundle),
        discrepancies,
        notes,
        messages,
    ))
}

/// The sealing certificate: the one given, else the bundle's, said loudly.
fn sealing_anchor(
    bundle: &Bundle,
    anchors: &OfflineAnchors,
    discrepancies: &mut Vec<String>,
    notes: &mut Vec<String>,
) -> Result<(Vec<u8>, String, bool), BundleError> {
    let bundled = match bundle.read(paths::SEALING_CERTIFICATE)? {
        Some(pem) => one_der(&pem),
        None => Err("missing from the bundle".to_owned()),
    };
    if let Some(given) = &anchors.sealing_certificate {
        match &bundled {
            Ok(der) if der != given => notes.push(format!(
                "{}: differs from the sealing certificate given (sha256 {}); the one given is used",
                paths::SEALING_CERTIFICATE,
                sha256_hex(der)
            )),
            _ => {}
        }
        let text = format!("the certificate given (sha256 {})", sha256_hex(given));
        return Ok((given.clone(), text, false));
    }
    match bundled {
        Ok(der) => {
            let text = format!(
                "TAKEN FROM THE BUNDLE ITSELF ({}, sha256 {}): the signatures show only that \
                 whoever made the bundle holds that key; pass --seal-certificate with the \
                 certificate obtained from the hub's operator",
                paths::SEALING_CERTIFICATE,
                sha256_hex(&der)
            );
            Ok((der, text, true))
        }
        Err(reason) => {
            discrepancies.push(format!(
                "{}: {reason}, and no sealing certificate was given: no segment signature can be \
                 checked",
                paths::SEALING_CERTIFICATE
            ));
            Ok((Vec::new(), "none".to_owned(), true))
        }
    }
}

fn one_der(pem: &[u8]) -> Result<Vec<u8>, String> {
    let certificates =
        edihub_as2::certificates_from_pem(pem).map_err(|e| format!("does not read: {e}"))?;
    match certificates.as_slice() {
        [one] => one.to_der().map_err(|e| format!("does not encode: {e}")),
        more => Err(format!("holds {} certificates, expected one", more.len())),
    }
}

/// The hub's AS2 certificates in the bundle: signed MDNs are verified with them.
fn hub_certificates(
    bundle: &Bundle,
    notes: &mut Vec<String>,
) -> Result<Vec<Certificate>, BundleError> {
    let paths: Vec<String> = bundle
        .paths()
        .filter(|p| p.starts_with(paths::HUB_CERTIFICATES))
        .map(str::to_owned)
        .collect();
    let mut certificates = Vec::new();
    for path in paths {
        let Some(pem) = bundle.read(&path)? else {
            continue;
        };
        match edihub_as2::certificates_from_pem(&pem) {
            Ok(found) => certificates.extend(found),
            Err(e) => notes.push(format!("{path}: does not read: {e}")),
        }
    }
    Ok(certificates)
}

/// Entries the bundle's segments sealed for a message of the period (and partner) that the
/// index leaves out: a message removed from the bundle.
fn unindexed_entries(index: &BundleIndex, sealed: &HashMap<i64, SealedEntry>) -> Vec<String> {
    let indexed: BTreeSet<Uuid> = index.messages.iter().map(|m| m.message_id).collect();
    let period = index.from..index.to;
    let mut found: Vec<(i64, String)> = sealed
        .values()
        .filter(|s| period.contains(&s.entry.received_at))
        .filter(|s| {
            index
                .partner
                .as_deref()
                .is_none_or(|p| p == s.entry.as2_from)
        })
        .filter(|s| !indexed.contains(&s.entry.message_id))
        .map(|s| {
            let text = format!(
                "seq {}: message {} (received {}) is sealed in {} within the period, but not in \
                 index.json: a message removed from the bundle?",
                s.entry.seq,
                s.entry.message_id,
                s.entry.received_at.to_rfc3339(),
                s.segment
            );
            (s.entry.seq, text)
        })
        .collect();
    found.sort();
    found.into_iter().map(|(_, text)| text).collect()
}

/// Objects in the bundle that no message of the index names.
fn unnamed_objects(bundle: &Bundle, index: &BundleIndex) -> Vec<String> {
    let named: BTreeSet<&str> = index
        .messages
        .iter()
        .flat_map(|m| m.objects.iter().map(|o| o.key.as_str()))
        .collect();
    bundle
        .paths()
        .filter(|p| p.starts_with("originals/") || p.starts_with("evidence/"))
        .filter(|p| !named.contains(p))
        .map(|p| format!("{p}: in the bundle, but no message of index.json names it"))
        .collect()
}

fn report(
    index: BundleIndex,
    segments: u64,
    (sealing_anchor, anchor_from_bundle): (String, bool),
    mut discrepancies: Vec<String>,
    mut notes: Vec<String>,
    messages: Vec<BundleMessage>,
) -> BundleReport {
    let mut summary = PeriodSummary {
        messages: messages.len() as u64,
        segments,
        ..PeriodSummary::default()
    };
    for message in &messages {
        summary.objects += message.objects;
        summary.bytes += message.bytes;
        for check in &message.checks {
            let line =
                |reason: &str| format!("message {}: {}: {reason}", message.message_id, check.name);
            match &check.verdict {
                Verdict::Failed(reason) => discrepancies.push(line(reason)),
                Verdict::Note(reason) => notes.push(line(reason)),
                Verdict::Ok => {}
            }
        }
    }
    summary.discrepancies = discrepancies.len() as u64;
    BundleReport {
        summary,
        sealing_anchor,
        anchor_from_bundle,
        last_segment: index
            .last_segment()
            .map(|s| format!("{}-{} (head {})", s.first_seq, s.last_seq, s.head)),
        discrepancies,
        notes,
        messages,
    }
}
