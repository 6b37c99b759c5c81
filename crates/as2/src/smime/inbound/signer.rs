//! Verifying a multipart/signed layer: the digests the partnership accepts, then the
//! partner's certificates that may sign (valid now, strong enough, meant for signing).

use openssl::x509::X509;
use sha2::{Digest as _, Sha256};

use super::{PartnerSecurity, mic_alg, refusal};
use crate::crypto::{self, Algorithm, VerifyError};
use crate::headers::As2Headers;
use crate::mdn::DispositionError;
use crate::mic::{Mic, MicAlg};
use crate::mime::ContentType;
use crate::smime::InboundRefusal;
use crate::smime::policy::{AlgorithmPolicy, is_weak_digest};
use crate::smime::signature::{signature_digest, signed_parts, signer_index, verify_with_fallback};

/// A verified signed layer.
pub(super) struct Verified {
    /// The signed entity, headers included, as it verified.
    pub(super) content: Vec<u8>,
    pub(super) mic: Mic,
    /// SHA-256 of `content`: the same bytes whatever Message-ID or wrapping carried them.
    pub(super) sha256: [u8; 32],
    /// DER of the partner certificate that made the signature.
    pub(super) certificate_der: Vec<u8>,
    pub(super) digest: MicAlg,
}

/// Why a pinned certificate of the partner may not sign this message.
enum Excluded {
    OutsideValidity,
    WeakKey(u32),
    KeyUsage,
}

impl Excluded {
    fn reason(&self, algorithms: &AlgorithmPolicy) -> String {
        match self {
            Excluded::OutsideValidity => {
                "signed with a certificate of the partner that is expired or not yet valid".into()
            }
            Excluded::WeakKey(bits) => format!(
                "signed with a certificate of the partner whose RSA key has {bits} bits, fewer than the {} the partnership requires",
                algorithms.min_rsa_bits
            ),
            Excluded::KeyUsage => "signed with a certificate of the partner whose key usage does not allow signing (neither digitalSignature nor nonRepudiation)".into(),
        }
    }
}

/// Checks a multipart/signed body against the partner's certificates.
///
/// A signature that verifies only with an excluded certificate is refused
/// (authentication-failed) with the reason it was excluded, and marked authenticated:
/// the partner's key did make it.
pub(super) fn verify_signed(
    headers: &As2Headers,
    ct: &ContentType,
    body: &[u8],
    partner: &PartnerSecurity<'_>,
    warnings: &mut Vec<String>,
) -> Result<Verified, InboundRefusal> {
    use DispositionError::*;
    let (content, signature) = signed_parts(ct, body)
        .map_err(|e| refusal(IntegrityCheckFailed, format!("multipart/signed: {e}")))?;
    if partner.certificates.is_empty() {
        return Err(refusal(
            AuthenticationFailed,
            "the message is signed but no certificate is configured for the partner",
        ));
    }
    check_digests(&signature, partner.algorithms, warnings)?;
    let (signers, excluded) = candidates(partner);
    let content = verify_with_fallback(&signature, content, &signers).map_err(|e| match e {
        VerifyError::UnknownSigner(m) => unknown_signer(&signature, content, &excluded, partner, m),
        VerifyError::Invalid(m) => refusal(
            IntegrityCheckFailed,
            format!("signature does not verify ({m})"),
        ),
    })?;
    let mic = Mic::compute(mic_alg(headers, ct.param("micalg")), &content);
    let sha256 = Sha256::digest(&content).into();
    let certificate_der = signer_index(&signature, &content, &signers)
        .and_then(|i| signers.get(i))
        .and_then(|cert| cert.to_der().ok())
        .ok_or_else(|| {
            refusal(
                IntegrityCheckFailed,
                "signature does not verify with any single certificate of the partner",
            )
        })?;
    // check_digests refused every digest this crate does not know, so there is one.
    let digest = signature_digest(&signature).unwrap_or(MicAlg::Sha256);
    Ok(Verified {
        content,
        mic,
        sha256,
        certificate_der,
        digest,
    })
}

/// The refusal of a signature no accepted certificate made: the reason a partner
/// certificate was excluded when that one made it (a real verification, so the request
/// is authenticated), else "not the partner's".
fn unknown_signer(
    signature: &[u8],
    content: &[u8],
    excluded: &[(X509, Excluded)],
    partner: &PartnerSecurity<'_>,
    openssl_says: String,
) -> InboundRefusal {
    let made_by_excluded = excluded.iter().find(|(cert, _)| {
        verify_with_fallback(signature, content, std::slice::from_ref(cert)).is_ok()
    });
    match made_by_excluded {
        Some((_, why)) => InboundRefusal {
            authenticated: true,
            ..refusal(
                DispositionError::AuthenticationFailed,
                why.reason(partner.algorithms),
            )
        },
        None => refusal(
            DispositionError::AuthenticationFailed,
            format!("not signed with the partner's certificate ({openssl_says})"),
        ),
    }
}

/// Refuses a signature whose digests the partnership does not accept, before any
/// verification; SHA-1 is accepted with a warning when allowed.
fn check_digests(
    signature: &[u8],
    algorithms: &AlgorithmPolicy,
    warnings: &mut Vec<String>,
) -> Result<(), InboundRefusal> {
    use DispositionError::{InsufficientMessageSecurity, IntegrityCheckFailed};
    let digests = crypto::signature_digest_algorithms(signature).ok_or_else(|| {
        refusal(
            IntegrityCheckFailed,
            "signature does not verify (its digest algorithms cannot be read)",
        )
    })?;
    for digest in digests {
        match digest {
            Algorithm::Known(alg) if algorithms.digests.contains(&alg) => {
                if is_weak_digest(alg) {
                    warnings.push(format!("signed with {}, a weak digest", alg.as_str()));
                }
            }
            Algorithm::Known(alg) => {
                let reason = format!(
                    "signed with {}, a digest the partnership does not accept",
                    alg.as_str()
                );
                return Err(refusal(InsufficientMessageSecurity, reason));
            }
            Algorithm::Other(oid) => {
                let reason =
                    format!("signed with digest {oid}, which the partnership does not accept");
                return Err(refusal(InsufficientMessageSecurity, reason));
            }
        }
    }
    Ok(())
}

/// The partner's certificates that may sign now, and the others with the reason.
fn candidates(partner: &PartnerSecurity<'_>) -> (Vec<X509>, Vec<(X509, Excluded)>) {
    let now = openssl::asn1::Asn1Time::from_unix(partner.now_unix).ok();
    let mut signers = Vec::new();
    let mut excluded = Vec::new();
    for cert in partner.certificates {
        let valid = partner.allow_expired
            || now
                .as_ref()
                .is_none_or(|now| cert.not_before() <= now && cert.not_after() >= now);
        let weak = crypto::rsa_bits(cert).filter(|&bits| bits < partner.algorithms.min_rsa_bits);
        let why = if !valid {
            Some(Excluded::OutsideValidity)
        } else if let Some(bits) = weak {
            Some(Excluded::WeakKey(bits))
        } else if !crypto::allows_signing(cert) {
            Some(Excluded::KeyUsage)
        } else {
            None
        };
        match why {
            Some(why) => excluded.push((cert.clone(), why)),
            None => signers.push(cert.clone()),
        }
    }
    (signers, excluded)
}
