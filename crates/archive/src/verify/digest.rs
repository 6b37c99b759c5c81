//! Bytes against a claim about them (a SHA-256 and a size), wherever the bytes came from.

use edihub_journal::sha256_hex;

/// Each way `bytes` differ from the claimed `sha256` and `size`, as "sha256 expected X,
/// found Y" and "size expected N, found M"; empty when they match.
pub(crate) fn differences(sha256: &str, size: u64, bytes: &[u8]) -> Vec<String> {
    digest_differences(sha256, size, &sha256_hex(bytes), bytes.len() as u64)
}

/// [`differences`] for bytes already hashed and counted (streamed, not held).
pub(crate) fn digest_differences(
    sha256: &str,
    size: u64,
    found_sha256: &str,
    found_size: u64,
) -> Vec<String> {
    let mut problems = Vec::new();
    if found_sha256 != sha256 {
        problems.push(format!("sha256 expected {sha256}, found {found_sha256}"));
    }
    if found_size != size {
        problems.push(format!("size expected {size}, found {found_size}"));
    }
    problems
}

#[cfg(test)]
mod tests {
    use super::differences;

    #[test]
    fn matching_bytes_have_no_difference_and_others_are_named() {
        let sha = edihub_journal::sha256_hex(b"abc");
        assert!(differences(&sha, 3, b"abc").is_empty());
        let found = differences(&sha, 3, b"abd");
        assert_eq!(found.len(), 1);
        assert!(found[0].starts_with(&format!("sha256 expected {sha}, found ")));
        assert_eq!(differences(&sha, 4, b"abc"), ["size expected 4, found 3"]);
    }
}
