//! The sentences evidence.json says about each absent part, so nothing is silent.

use super::invoices::InvoiceNumbers;
use edihub_journal::MessageEvidence;

pub fn remarks(evidence: &MessageEvidence, invoices: &InvoiceNumbers) -> Vec<String> {
    let mut remarks = Vec::new();
    let mut say = |s: &str| remarks.push(s.to_owned());
    match &evidence.security {
        None => {
            say("journaled before security facts were kept: signature, encryption and MIC unknown")
        }
        Some(security) => {
            if security.signature.is_none() {
                say("not signed: no partner signature to re-verify");
            }
            if security.encryption.is_none() {
                say("not encrypted: the request body is the plain entity");
            }
        }
    }
    let signed = evidence
        .security
        .as_ref()
        .is_none_or(|s| s.signature.is_some());
    if signed && evidence.signed_entity.is_none() {
        say("no signed entity was journaled: the partner's signature cannot be re-verified");
    }
    if evidence.mdn.is_none() {
        say("no MDN was sent for this message");
    }
    if evidence.unb_reference.is_none() {
        say("no readable UNB: no interchange reference");
    }
    if let Some(remark) = &invoices.remark {
        remarks.push(remark.clone());
    }
    remarks
}
