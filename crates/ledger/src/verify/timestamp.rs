//! The segment's RFC 3161 timestamp, checked offline.

use super::Discrepancy;
use crate::files::{MANIFEST, TIMESTAMP};
use crate::tsa::{read_response, verify_token};
use openssl::x509::X509;
use sha2::{Digest, Sha256};

/// Whether `tsr` is a granted timestamp over SHA-256 of `manifest` (signed by
/// `tsa_certificate` when given); what does not hold goes to `found`.
pub(super) fn check(
    tsr: &[u8],
    manifest: &[u8],
    tsa_certificate: Option<&[u8]>,
    found: &mut Vec<Discrepancy>,
) -> bool {
    let before = found.len();
    let granted = match read_response(tsr) {
        Ok(granted) => granted,
        Err(e) => {
            found.push(Discrepancy::new(format!("{TIMESTAMP}: {e}")));
            return false;
        }
    };
    let digest = Sha256::digest(manifest);
    if granted.imprint[..] != digest[..] {
        found.push(Discrepancy::new(format!(
            "{TIMESTAMP}: the token's imprint is {}, but SHA-256 of {MANIFEST} is {}",
            hex::encode(&granted.imprint),
            hex::encode(digest)
        )));
    }
    if let Some(der) = tsa_certificate {
        match X509::from_der(der) {
            Ok(certificate) => {
                if let Err(e) = verify_token(&granted.token, &certificate) {
                    found.push(Discrepancy::new(format!(
                        "{TIMESTAMP}: the token's signature does not verify with the TSA \
                         certificate ({e})"
                    )));
                }
            }
            Err(e) => found.push(Discrepancy::new(format!(
                "the TSA certificate is not a DER X.509 certificate: {e}"
            ))),
        }
    }
    found.len() == before
}
