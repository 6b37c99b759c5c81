//! The CMS primitives AS2 needs, on bytes: detached signatures, enveloped data and
//! compressed data (RFC 5652, RFC 3274/5402).
//!
//! OpenSSL does signing, verification, encryption and decryption. Compressed data is
//! read and written with RustCrypto's `cms` types and `flate2`, because Debian's OpenSSL is
//! built without zlib and its `CMS_compress`/`CMS_uncompress` fail there.
//!
//! Sans-IO still holds: no file is read (keys and certificates come in as PEM bytes) and
//! the signing time written into a signature is the caller's `now`, not OpenSSL's clock.
//!
//! One file per concern: `identity` (our key and the partners' certificates), then one
//! per CMS content type (`signed`, `enveloped`, `compressed`). `raw_der` is the
//! hand-written DER that rewrites a partner's signature before OpenSSL reads it, and
//! `pss` completes the RSASSA-PSS parameters some senders leave out. `algorithms` reads,
//! through the tolerant BER walker `ber`, which cipher and digests a partner's CMS names
//! before any key is used, and `certificate` what a partner certificate allows (key size,
//! key usage).

mod algorithms;
mod ber;
mod certificate;
mod compressed;
mod enveloped;
mod ffi;
mod identity;
mod oid;
mod pss;
mod raw_der;
mod signed;

pub use algorithms::{Algorithm, content_encryption_algorithm, signature_digest_algorithms};
pub use certificate::{allows_signing, rsa_bits};
pub use compressed::{DecompressError, compress, decompress, is_compressed_data};
pub use enveloped::{Encryption, decrypt, encrypt};
pub use identity::{Identity, certificates_from_pem, is_encrypted_private_key_pem};
pub use signed::{DetachedSigner, VerifyError, sign_detached, verify_detached};

/// The hand-written certificate cut, for the fuzz target in `crates/as2/fuzz` only:
/// `cargo fuzz` compiles with `--cfg fuzzing`, and no other build sees it.
#[cfg(fuzzing)]
#[doc(hidden)]
pub mod fuzzing {
    pub use super::raw_der::without_certificates;
}

#[cfg(test)]
mod tests;
