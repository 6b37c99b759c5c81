//! index.json's signature: a detached CMS signature (DER) by the sealing key, as each
//! segment.json has (made as index.json is written: `super::spool`). The truncation check trusts what index.json says of the export's
//! end, so an index rewritten to match a bundle cut short must not verify.

use super::paths;
use super::read::Bundle;
use edihub_as2::Certificate;
use edihub_as2::crypto::{VerifyError, verify_detached};

/// Checks the bundle's index.json.p7s over `index_json` against the sealing anchor
/// (DER), with the segments' own verification; `Some` is the discrepancy.
pub(super) fn check_index_signature(
    bundle: &Bundle,
    index_json: &[u8],
    sealing: &[u8],
) -> std::io::Result<Option<String>> {
    let name = paths::INDEX_SIGNATURE;
    let Some(signature) = bundle.read(name)? else {
        return Ok(Some(format!(
            "{name}: missing: the index is unsigned, so what it says of the export (its \
             messages, its segments, where the ledger ended) may have been rewritten"
        )));
    };
    let certificate = match Certificate::from_der(sealing) {
        Ok(certificate) => certificate,
        Err(e) => {
            return Ok(Some(format!(
                "{name}: not checked: the sealing certificate is not a DER X.509 \
                 certificate ({e})"
            )));
        }
    };
    Ok(
        match verify_detached(&signature, index_json, &[certificate]) {
            Ok(()) => None,
            Err(VerifyError::UnknownSigner(e)) => Some(format!(
                "{name}: not signed by the sealing certificate ({e})"
            )),
            Err(VerifyError::Invalid(e)) => Some(format!(
                "{name}: the signature over {} does not verify ({e}): the index, or its \
                 signature, is not as exported",
                paths::INDEX_JSON
            )),
        },
    )
}

#[cfg(test)]
mod tests;
