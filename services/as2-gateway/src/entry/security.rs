//! The audit evidence of an accepted message's security layers, in the journal's form
//! (`docs/adr/0006-audit-evidence-and-ledger.md`).

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD;
use edihub_as2::{Encryption, Mic, SignatureEvidence};
use edihub_inbound::Layers;
use edihub_journal::{EncryptionFacts, SecurityFacts, SignatureFacts};
use sha2::{Digest as _, Sha256};

/// The signed entity to journal and the facts of every layer. The signed entity is
/// moved out of the evidence, not copied: it is about the payload's size.
pub(super) fn evidence(
    signature: Option<SignatureEvidence>,
    encryption: Option<Encryption>,
    layers: &Layers,
    mic: &Mic,
) -> (Option<Vec<u8>>, SecurityFacts) {
    let (entity, signature) = match signature {
        Some(evidence) => {
            let facts = SignatureFacts {
                digest: evidence.digest.as_str().to_owned(),
                certificate_der_b64: STANDARD.encode(&evidence.certificate_der),
                certificate_sha256: hex::encode(Sha256::digest(&evidence.certificate_der)),
            };
            (Some(evidence.entity), Some(facts))
        }
        None => (None, None),
    };
    let facts = SecurityFacts {
        signature,
        encryption: encryption.map(|cipher| EncryptionFacts {
            algorithm: cipher.as_str().to_owned(),
        }),
        compressed: layers.compressed,
        mic: mic.header_value(),
    };
    (entity, facts)
}

#[cfg(test)]
mod tests {
    use super::*;
    use edihub_as2::MicAlg;

    #[test]
    fn a_signature_is_journaled_with_its_certificate_and_fingerprint() {
        let signature = SignatureEvidence {
            entity: b"Content-Type: multipart/signed\r\n\r\nbody".to_vec(),
            certificate_der: b"\x30\x03\x02\x01\x01".to_vec(),
            digest: MicAlg::Sha384,
        };
        let layers = Layers {
            signed: true,
            encrypted: true,
            compressed: false,
        };
        let mic = Mic::compute(MicAlg::Sha256, b"content");
        let (entity, facts) = evidence(
            Some(signature.clone()),
            Some(Encryption::Aes256Cbc),
            &layers,
            &mic,
        );
        assert_eq!(entity, Some(signature.entity));
        let json = serde_json::to_value(&facts).expect("json");
        assert_eq!(json["signature"]["digest"], "sha-384");
        assert_eq!(json["signature"]["certificate_der_b64"], "MAMCAQE=");
        assert_eq!(
            json["signature"]["certificate_sha256"],
            hex::encode(Sha256::digest(b"\x30\x03\x02\x01\x01"))
        );
        assert_eq!(
            json["encryption"]["algorithm"],
            Encryption::Aes256Cbc.as_str()
        );
        assert_eq!(json["compressed"], false);
        assert_eq!(json["mic"], mic.header_value());
    }

    #[test]
    fn an_unsigned_unencrypted_message_has_null_signature_and_encryption() {
        let layers = Layers {
            signed: false,
            encrypted: false,
            compressed: true,
        };
        let mic = Mic::compute(MicAlg::Sha256, b"content");
        let (entity, facts) = evidence(None, None, &layers, &mic);
        assert_eq!(entity, None);
        let json = serde_json::to_value(&facts).expect("json");
        assert_eq!(json["signature"], serde_json::Value::Null);
        assert_eq!(json["encryption"], serde_json::Value::Null);
        assert_eq!(json["compressed"], true);
    }
}
