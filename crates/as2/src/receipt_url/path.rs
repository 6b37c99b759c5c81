//! The path of a receipt URL as the partner's server will see it.
//!
//! The URL parser already resolves `.` and `..` segments, `%2e` spellings included. What
//! it keeps are encoded bytes: `/mdn/..%2f..%2fadmin` starts with `/mdn/`, yet a server
//! that decodes `%2f` before resolving dot segments serves `/admin`. So each segment is
//! decoded once here, and a path whose decoding could change which prefix it falls under
//! is refused rather than guessed at.

/// The decoded path (segments joined by `/`), or `None` when a decoded segment holds a
/// `/`, `\` or `%` (double encoding), a control character, or is a dot segment (also
/// before a `;` parameter, which some servers strip: `..;`).
pub(super) fn normalised(path: &str) -> Option<Vec<u8>> {
    let mut normalised = Vec::with_capacity(path.len());
    for (index, segment) in path.split('/').enumerate() {
        if index > 0 {
            normalised.push(b'/');
        }
        let decoded = decode(segment);
        if !unambiguous(&decoded) {
            return None;
        }
        normalised.extend_from_slice(&decoded);
    }
    Some(normalised)
}

fn unambiguous(segment: &[u8]) -> bool {
    let before_parameters = segment.split(|&b| b == b';').next().unwrap_or_default();
    let dot_segment = matches!(before_parameters, b"." | b"..");
    let forbidden = |b: &u8| matches!(b, b'/' | b'\\' | b'%') || b.is_ascii_control();
    !dot_segment && !segment.iter().any(forbidden)
}

/// Percent-decodes `segment` once; a `%` not followed by two hex digits stays as it is.
fn decode(segment: &str) -> Vec<u8> {
    let bytes = segment.as_bytes();
    let mut decoded = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let escaped = (bytes[i] == b'%')
            .then(|| bytes.get(i + 1..i + 3))
            .flatten()
            .and_then(|hex| std::str::from_utf8(hex).ok())
            .and_then(|hex| u8::from_str_radix(hex, 16).ok());
        match escaped {
            Some(byte) => {
                decoded.push(byte);
                i += 3;
            }
            None => {
                decoded.push(bytes[i]);
                i += 1;
            }
        }
    }
    decoded
}

#[cfg(test)]
mod tests;
