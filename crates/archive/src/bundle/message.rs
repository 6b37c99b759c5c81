//! One message of a bundle checked on its bytes: every object against evidence.json and
//! the sealed ledger entry, the partner's signature re-verified, the MDN's MIC
//! recomputed, evidence.json's ledger position against the entry.

use super::chain::SealedEntry;
use super::index::IndexMessage;
use super::read::Bundle;
use crate::evidence::EvidenceDocument;
use crate::verify::Check;
use crate::verify::digest::differences;
use crate::verify::mdn::check_mdn;
use crate::verify::signature::check_signature;
use edihub_as2::Certificate;
use serde::Serialize;
use std::collections::{BTreeMap, HashMap};
use uuid::Uuid;

/// Every check on one message of the bundle.
#[derive(Debug, Clone, Serialize)]
pub struct BundleMessage {
    pub message_id: Uuid,
    pub seq: i64,
    /// The segment of the bundle that seals its entry.
    pub segment: Option<String>,
    pub signer: Option<String>,
    pub checks: Vec<Check>,
    /// Objects read and their bytes.
    pub objects: u64,
    pub bytes: u64,
}

/// A claim about an object: who makes it, its key, SHA-256 and size.
struct Claim {
    source: String,
    key: String,
    sha256: String,
    size: u64,
}

pub(super) fn check_message(
    bundle: &Bundle,
    message: &IndexMessage,
    sealed: &HashMap<i64, SealedEntry>,
    hub_certificates: &[Certificate],
) -> std::io::Result<BundleMessage> {
    let mut checks = Vec::new();
    let mut bytes: BTreeMap<String, Option<Vec<u8>>> = BTreeMap::new();
    for object in &message.objects {
        bytes.insert(object.key.clone(), bundle.read(&object.key)?);
    }
    let key_of = |kind: &str| {
        message
            .objects
            .iter()
            .find(|o| o.kind == kind)
            .map(|o| o.key.clone())
    };
    let evidence = read_evidence(
        key_of("evidence").and_then(|k| bytes.get(&k).cloned().flatten()),
        &mut checks,
    );
    let entry = sealed_entry(message, sealed, &mut checks);
    let mut claims = Vec::new();
    if let Some(document) = &evidence {
        claims.extend(evidence_claims(document));
        checks.push(identity_check(message, document, entry));
    }
    if let Some(sealed) = entry {
        claims.extend(entry_claims(sealed));
    }
    for claim in &claims {
        if !bytes.contains_key(&claim.key) {
            bytes.insert(claim.key.clone(), bundle.read(&claim.key)?);
        }
    }
    checks.extend(object_checks(&bytes, &claims));
    // The index names the keys; evidence.json too, should the index lack one.
    let named = |kind: &str| {
        key_of(kind).or_else(|| {
            let objects = evidence
                .as_ref()
                .map(|d| d.objects.as_slice())
                .unwrap_or_default();
            objects
                .iter()
                .find(|o| o.kind == kind)
                .map(|o| o.key.clone())
        })
    };
    let by_kind = |kind: &str| named(kind).and_then(|k| bytes.get(&k).and_then(|b| b.as_deref()));
    let signer = evidence.as_ref().and_then(|document| {
        let signature = check_signature(document.signature.as_ref(), by_kind("signed-entity"));
        checks.push(signature.check);
        checks.push(check_mdn(
            document,
            by_kind("mdn"),
            signature.content.as_deref(),
            by_kind("payload"),
            hub_certificates,
        ));
        signature.signer
    });
    let present = bytes.values().flatten();
    Ok(BundleMessage {
        message_id: message.message_id,
        seq: message.seq,
        segment: entry.map(|e| e.segment.clone()),
        signer,
        objects: present.clone().count() as u64,
        bytes: present.map(|b| b.len() as u64).sum(),
        checks,
    })
}

fn read_evidence(bytes: Option<Vec<u8>>, checks: &mut Vec<Check>) -> Option<EvidenceDocument> {
    const NAME: &str = "evidence.json";
    let Some(bytes) = bytes else {
        checks.push(Check::failed(NAME, "not in the bundle"));
        return None;
    };
    match serde_json::from_slice(&bytes) {
        Ok(document) => Some(document),
        Err(error) => {
            checks.push(Check::failed(NAME, format!("does not parse: {error}")));
            None
        }
    }
}

/// The message's entry as a segment of the bundle signed it.
fn sealed_entry<'a>(
    message: &IndexMessage,
    sealed: &'a HashMap<i64, SealedEntry>,
    checks: &mut Vec<Check>,
) -> Option<&'a SealedEntry> {
    const NAME: &str = "ledger entry";
    match sealed.get(&message.seq) {
        Some(found) if found.entry.message_id == message.message_id => Some(found),
        Some(found) => {
            checks.push(Check::failed(
                NAME,
                format!(
                    "seq {} in {} names message {}",
                    message.seq, found.segment, found.entry.message_id
                ),
            ));
            None
        }
        None if !message.sealed => {
            checks.push(Check::note(
                NAME,
                format!(
                    "seq {} was not sealed yet when the bundle was made",
                    message.seq
                ),
            ));
            None
        }
        None => {
            checks.push(Check::failed(
                NAME,
                format!("seq {} is in no segment of the bundle", message.seq),
            ));
            None
        }
    }
}

fn evidence_claims(document: &EvidenceDocument) -> Vec<Claim> {
    document
        .objects
        .iter()
        .map(|o| Claim {
            source: "evidence.json".to_owned(),
            key: o.key.clone(),
            sha256: o.sha256.clone(),
            size: o.size,
        })
        .collect()
}

fn entry_claims(sealed: &SealedEntry) -> Vec<Claim> {
    sealed
        .entry
        .objects
        .iter()
        .map(|o| Claim {
            source: format!("ledger seq {} in {}", sealed.entry.seq, sealed.segment),
            key: o.key.clone(),
            sha256: o.sha256.clone(),
            size: o.size,
        })
        .collect()
}

/// evidence.json names this message and the position its sealed entry has.
fn identity_check(
    message: &IndexMessage,
    document: &EvidenceDocument,
    entry: Option<&SealedEntry>,
) -> Check {
    let mut problems = Vec::new();
    if document.ids.message_id != message.message_id {
        problems.push(format!(
            "evidence.json names message {}",
            document.ids.message_id
        ));
    }
    if document.ledger.seq != message.seq {
        problems.push(format!(
            "evidence.json says seq {}, index.json {}",
            document.ledger.seq, message.seq
        ));
    }
    if let Some(sealed) = entry
        && sealed.entry.chained_at != document.ledger.chained_at
    {
        problems.push(format!(
            "evidence.json says chained_at {}, the sealed entry {}",
            document.ledger.chained_at.to_rfc3339(),
            sealed.entry.chained_at.to_rfc3339()
        ));
    }
    Check::from_problems("ledger position", problems)
}

/// One check per object: in the bundle, and its bytes as every claim says.
fn object_checks(bytes: &BTreeMap<String, Option<Vec<u8>>>, claims: &[Claim]) -> Vec<Check> {
    bytes
        .iter()
        .map(|(key, found)| {
            let name = format!("object {key}");
            let Some(found) = found else {
                return Check::failed(name, "missing from the bundle");
            };
            let problems = claims
                .iter()
                .filter(|c| &c.key == key)
                .flat_map(|c| {
                    differences(&c.sha256, c.size, found)
                        .into_iter()
                        .map(move |d| format!("{d} ({})", c.source))
                })
                .collect();
            Check::from_problems(name, problems)
        })
        .collect()
}
