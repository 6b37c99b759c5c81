//! Completing RSASSA-PSS signatures whose algorithm identifier lacks its parameters.

use der::{Any, Decode as _, Encode as _};
use openssl::x509::X509;

use super::oid::{OID_RSASSA_PSS, OID_SIGNED_DATA};
use super::raw_der::pss_parameters;

/// Some senders (pyas2lib 1.4.4, through oscrypto) sign with RSASSA-PSS but write the
/// `rsassaPss` algorithm identifier without its parameters, which RFC 4055 requires and
/// OpenSSL insists on. The hash they mean is the signer info's digest, for MGF1 too; the
/// salt is the longest the key allows (oscrypto on OpenSSL 3) or as long as the digest
/// (the RFC 4055 recommendation), so both are offered. Returns the signature with the
/// parameters written in, one variant per salt length, or nothing when there is nothing
/// to complete. The signature algorithm is not covered by the signature, so nothing
/// signed changes and a wrong guess simply fails verification.
pub(super) fn complete_pss_parameters(signature_der: &[u8], certificates: &[X509]) -> Vec<Vec<u8>> {
    let Some((signed, digest)) = pss_without_parameters(signature_der) else {
        return Vec::new();
    };
    let Some(digest_len) = digest_length(&digest.oid) else {
        return Vec::new();
    };
    let mut salts: Vec<usize> = certificates
        .iter()
        .filter_map(|cert| cert.public_key().ok()?.rsa().ok())
        .map(|rsa| {
            // emLen = ceil((modBits - 1) / 8); the longest salt is emLen - hLen - 2.
            let em_len = (rsa.n().num_bits() as usize - 1).div_ceil(8);
            em_len.saturating_sub(digest_len + 2)
        })
        .collect();
    salts.push(digest_len);
    salts.sort_unstable();
    salts.dedup();
    salts
        .into_iter()
        .filter_map(|salt| with_pss_parameters(&signed, &digest, salt))
        .collect()
}

/// The SignedData and the PSS signer's digest, when a signer info uses RSASSA-PSS with
/// absent (or NULL) parameters.
fn pss_without_parameters(
    signature_der: &[u8],
) -> Option<(cms::signed_data::SignedData, spki::AlgorithmIdentifierOwned)> {
    let info = cms::content_info::ContentInfo::from_der(signature_der).ok()?;
    if info.content_type != OID_SIGNED_DATA {
        return None;
    }
    let signed: cms::signed_data::SignedData = info.content.decode_as().ok()?;
    let digest = signed.signer_infos.0.iter().find_map(|signer| {
        let algorithm = &signer.signature_algorithm;
        let absent = algorithm
            .parameters
            .as_ref()
            .is_none_or(|p| der::Tagged::tag(p) == der::Tag::Null);
        (algorithm.oid == OID_RSASSA_PSS && absent).then(|| signer.digest_alg.clone())
    })?;
    Some((signed, digest))
}

fn with_pss_parameters(
    signed: &cms::signed_data::SignedData,
    digest: &spki::AlgorithmIdentifierOwned,
    salt: usize,
) -> Option<Vec<u8>> {
    let params = Any::from_der(&pss_parameters(digest, salt)?).ok()?;
    let mut signed = signed.clone();
    let mut signers: Vec<cms::signed_data::SignerInfo> =
        signed.signer_infos.0.iter().cloned().collect();
    for signer in &mut signers {
        if signer.signature_algorithm.oid == OID_RSASSA_PSS {
            signer.signature_algorithm.parameters = Some(params.clone());
        }
    }
    signed.signer_infos = cms::signed_data::SignerInfos(signers.try_into().ok()?);
    cms::content_info::ContentInfo {
        content_type: OID_SIGNED_DATA,
        content: Any::encode_from(&signed).ok()?,
    }
    .to_der()
    .ok()
}

pub(super) fn digest_length(oid: &der::oid::ObjectIdentifier) -> Option<usize> {
    Some(match oid.to_string().as_str() {
        "1.3.14.3.2.26" => 20,
        "2.16.840.1.101.3.4.2.4" => 28,
        "2.16.840.1.101.3.4.2.1" => 32,
        "2.16.840.1.101.3.4.2.2" => 48,
        "2.16.840.1.101.3.4.2.3" => 64,
        _ => return None,
    })
}
