//! The partner's signature on signed-entity.eml, re-verified with the certificate that
//! evidence.json names, and nothing else.

use super::report::Check;
use crate::evidence::EvidenceSignature;
use edihub_as2::MicAlg;
use edihub_journal::sha256_hex;

/// What re-verifying the signature established.
pub(crate) struct SignatureOutcome {
    pub check: Check,
    /// The signed content (the first part, headers included): what the MIC covers.
    pub content: Option<Vec<u8>>,
    pub signer: Option<String>,
}

const NAME: &str = "partner signature";

pub(crate) fn check_signature(
    signature: Option<&EvidenceSignature>,
    entity: Option<&[u8]>,
) -> SignatureOutcome {
    let outcome = |check, content, signer| SignatureOutcome {
        check,
        content,
        signer,
    };
    match (signature, entity) {
        (None, None) => outcome(
            Check::note(NAME, "not signed: no partner signature to re-verify"),
            None,
            None,
        ),
        (None, Some(_)) => outcome(
            Check::failed(
                NAME,
                "evidence.json says unsigned but a signed-entity object is archived",
            ),
            None,
            None,
        ),
        (Some(_), None) => outcome(
            Check::failed(
                NAME,
                "evidence.json names a signature but no signed-entity object can be read",
            ),
            None,
            None,
        ),
        (Some(signature), Some(entity)) => match reverify(signature, entity) {
            Ok((content, signer)) => outcome(Check::ok(NAME), Some(content), Some(signer)),
            Err(reason) => outcome(Check::failed(NAME, reason), None, None),
        },
    }
}

fn reverify(signature: &EvidenceSignature, entity: &[u8]) -> Result<(Vec<u8>, String), String> {
    let certificates = edihub_as2::certificates_from_pem(signature.certificate_pem.as_bytes())
        .map_err(|e| format!("evidence.json's certificate_pem does not read: {e}"))?;
    let [certificate] = certificates.as_slice() else {
        return Err(format!(
            "evidence.json's certificate_pem holds {} certificates, expected one",
            certificates.len()
        ));
    };
    let der = certificate
        .to_der()
        .map_err(|e| format!("the signer certificate does not encode: {e}"))?;
    let fingerprint = sha256_hex(&der);
    if fingerprint != signature.certificate_sha256 {
        return Err(format!(
            "certificate_sha256 recorded {} but the certificate's fingerprint is {fingerprint}",
            signature.certificate_sha256
        ));
    }
    let verified =
        edihub_as2::smime::verify_signed_entity(entity, std::slice::from_ref(certificate))
            .map_err(|e| {
                format!("signed-entity.eml does not verify with certificate {fingerprint}: {e}")
            })?;
    if MicAlg::parse(&signature.digest) != Some(verified.digest) {
        return Err(format!(
            "evidence.json names digest {} but the signature uses {}",
            signature.digest, verified.digest
        ));
    }
    let subject = subject(certificate);
    Ok((
        verified.content,
        format!("{subject} (sha256 {fingerprint})"),
    ))
}

fn subject(certificate: &edihub_as2::Certificate) -> String {
    certificate
        .subject_name()
        .entries()
        .filter_map(|e| e.data().to_string().ok())
        .collect::<Vec<_>>()
        .join(", ")
}

#[cfg(test)]
mod tests;
