//! Opening the enveloped-data and compressed-data layers, within the partnership's
//! ciphers and the message's decompression budget.

use super::layer::cms_der;
use super::refusal;
use crate::crypto::{self, Algorithm, DecompressError, Encryption, Identity};
use crate::mdn::DispositionError;
use crate::smime::InboundRefusal;
use crate::smime::entity::Entity;
use crate::smime::limits::{LayerLimit, UnwrapLimits};
use crate::smime::policy::{AlgorithmPolicy, is_weak_cipher};

/// The content of an enveloped-data layer, decrypted with the hub's key once its cipher
/// is known to be one the partnership accepts (read from the DER first, so a forbidden
/// cipher costs no RSA private-key operation). Returns the cipher with the content.
pub(super) fn decrypted(
    layer: &Entity,
    hub: Option<&Identity>,
    algorithms: &AlgorithmPolicy,
    warnings: &mut Vec<String>,
) -> Result<(Vec<u8>, Encryption), InboundRefusal> {
    use DispositionError::{DecryptionFailed, InsufficientMessageSecurity};
    let der = cms_der(layer.transfer_encoding.as_deref(), &layer.body)
        .map_err(|e| refusal(DecryptionFailed, format!("enveloped data: {e}")))?;
    let cipher = crypto::content_encryption_algorithm(&der).ok_or_else(|| {
        refusal(
            DecryptionFailed,
            "enveloped data: its content-encryption algorithm cannot be read",
        )
    })?;
    let cipher = match cipher {
        Algorithm::Known(cipher) if algorithms.ciphers.contains(&cipher) => {
            if is_weak_cipher(cipher) {
                warnings.push(format!(
                    "encrypted with {}, a weak cipher (64-bit blocks)",
                    cipher.as_str()
                ));
            }
            cipher
        }
        Algorithm::Known(cipher) => {
            let reason = format!(
                "encrypted with {}, a cipher the partnership does not accept",
                cipher.as_str()
            );
            return Err(refusal(InsufficientMessageSecurity, reason));
        }
        Algorithm::Other(oid) => {
            let reason =
                format!("encrypted with cipher {oid}, which the partnership does not accept");
            return Err(refusal(InsufficientMessageSecurity, reason));
        }
    };
    let hub = hub.ok_or_else(|| {
        refusal(
            DecryptionFailed,
            "the message is encrypted but the hub has no private key configured",
        )
    })?;
    let plain = crypto::decrypt(hub, &der).map_err(|e| refusal(DecryptionFailed, e))?;
    Ok((plain, cipher))
}

/// The content of a compressed-data layer, inflated within what is left of the message's
/// budget (`used` counts what earlier layers took) and the expansion ratio. Inflating
/// stops at the limit: a bomb costs no more than the limit.
pub(super) fn decompressed(
    layer: &Entity,
    limits: &UnwrapLimits,
    used: &mut usize,
) -> Result<Vec<u8>, InboundRefusal> {
    use DispositionError::UnexpectedProcessingError;
    let der = cms_der(layer.transfer_encoding.as_deref(), &layer.body)
        .map_err(|e| refusal(UnexpectedProcessingError, format!("compressed: {e}")))?;
    let limit = limits.layer(der.len(), *used);
    let plain = crypto::decompress(&der, limit.bytes()).map_err(|e| match e {
        DecompressError::Malformed(m) => {
            refusal(UnexpectedProcessingError, format!("compressed data: {m}"))
        }
        DecompressError::TooLarge { .. } => refusal(
            UnexpectedProcessingError,
            too_large(limit, limits, der.len()),
        ),
    })?;
    *used += plain.len();
    Ok(plain)
}

fn too_large(limit: LayerLimit, limits: &UnwrapLimits, compressed_len: usize) -> String {
    match limit {
        LayerLimit::Total(_) => format!(
            "compressed data expands beyond {} bytes",
            limits.max_decompressed_bytes
        ),
        LayerLimit::Ratio(_) => format!(
            "compressed data expands to more than {} times its {compressed_len} bytes",
            limits.max_expansion_ratio
        ),
    }
}
