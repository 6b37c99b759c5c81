//! Our own identity (certificate and private key) and the partners' certificates, read
//! from PEM bytes: keys and certificates come in as values, no file is read here.

use openssl::pkey::{PKey, Private};
use openssl::symm::Cipher;
use openssl::x509::X509;

use crate::error::As2Error;

/// Our own identity: the certificate partners know us by and its private key. Used to
/// decrypt what partners encrypt to us and to sign MDNs and outgoing messages.
#[derive(Clone)]
pub struct Identity {
    pub certificate: X509,
    pub private_key: PKey<Private>,
}

impl std::fmt::Debug for Identity {
    /// Never prints the key.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Identity")
            .field("subject", &subject(&self.certificate))
            .finish_non_exhaustive()
    }
}

impl Identity {
    /// Reads a PEM certificate and an unencrypted PEM private key (PKCS#8 or traditional
    /// RSA).
    pub fn from_pem(certificate_pem: &[u8], private_key_pem: &[u8]) -> Result<Identity, As2Error> {
        Identity::from_pem_with_passphrase(certificate_pem, private_key_pem, None)
    }

    /// Like [`Identity::from_pem`], but an encrypted private key (PKCS#8 `ENCRYPTED
    /// PRIVATE KEY`, or a traditional key with `Proc-Type: 4,ENCRYPTED`) is decrypted
    /// with `passphrase`. An unencrypted key is read as it is, passphrase or not.
    pub fn from_pem_with_passphrase(
        certificate_pem: &[u8],
        private_key_pem: &[u8],
        passphrase: Option<&[u8]>,
    ) -> Result<Identity, As2Error> {
        let certificate = X509::from_pem(certificate_pem)
            .map_err(|e| As2Error::Crypto(format!("certificate: {e}")))?;
        let encrypted = is_encrypted_private_key_pem(private_key_pem);
        let private_key = match (encrypted, passphrase) {
            // Checked here: without a passphrase OpenSSL would ask for one on the
            // terminal.
            (true, None) => {
                return Err(As2Error::Crypto(
                    "private key: it is encrypted and no passphrase was given".into(),
                ));
            }
            (true, Some(passphrase)) => {
                PKey::private_key_from_pem_passphrase(private_key_pem, passphrase).map_err(|e| {
                    As2Error::Crypto(format!("private key: wrong passphrase or damaged: {e}"))
                })?
            }
            (false, _) => PKey::private_key_from_pem(private_key_pem)
                .map_err(|e| As2Error::Crypto(format!("private key: {e}")))?,
        };
        let matches = certificate
            .public_key()
            .map(|public| public.public_eq(&private_key))
            .unwrap_or(false);
        if !matches {
            return Err(As2Error::Crypto(
                "the private key does not belong to the certificate".into(),
            ));
        }
        Ok(Identity {
            certificate,
            private_key,
        })
    }

    /// The private key as PKCS#8 PEM: encrypted under `passphrase` when one is given
    /// (PBES2: PBKDF2 key derivation, AES-256-CBC), in the clear otherwise.
    pub fn private_key_pem(&self, passphrase: Option<&[u8]>) -> Result<Vec<u8>, As2Error> {
        match passphrase {
            Some(passphrase) => self
                .private_key
                .private_key_to_pem_pkcs8_passphrase(Cipher::aes_256_cbc(), passphrase),
            None => self.private_key.private_key_to_pem_pkcs8(),
        }
        .map_err(|e| As2Error::Crypto(format!("private key: {e}")))
    }
}

/// Whether a PEM private key is encrypted (PKCS#8 or traditional OpenSSL encryption).
pub fn is_encrypted_private_key_pem(pem: &[u8]) -> bool {
    let contains = |needle: &[u8]| pem.windows(needle.len()).any(|w| w == needle);
    contains(b"-----BEGIN ENCRYPTED PRIVATE KEY-----") || contains(b"Proc-Type: 4,ENCRYPTED")
}

/// Reads every certificate of a PEM bundle (a partner may have several during a
/// rollover). An empty bundle is an error.
pub fn certificates_from_pem(pem: &[u8]) -> Result<Vec<X509>, As2Error> {
    let certs =
        X509::stack_from_pem(pem).map_err(|e| As2Error::Crypto(format!("certificates: {e}")))?;
    if certs.is_empty() {
        return Err(As2Error::Crypto("no certificate in the PEM data".into()));
    }
    Ok(certs)
}

fn subject(cert: &X509) -> String {
    cert.subject_name()
        .entries()
        .filter_map(|e| e.data().to_string().ok())
        .collect::<Vec<_>>()
        .join(", ")
}
