//! URLs as refusal reasons show them: reasons go into MDNs and refusal records, and a
//! URL's user info (`user:password@`) is a credential, so it never appears there.

/// `url` with the user info of its authority replaced by `***`, found the way the URL
/// parser finds it (after the scheme and any slashes, up to the last `@` before the
/// path, query or fragment), so that even a string that does not parse is redacted.
pub fn redacted(url: &str) -> String {
    let start = authority_start(url);
    let rest = &url[start..];
    let end = rest.find(['/', '\\', '?', '#']).unwrap_or(rest.len());
    match rest[..end].rfind('@') {
        Some(at) => format!("{}***{}", &url[..start], &rest[at..]),
        None => url.to_owned(),
    }
}

/// Where the authority begins: after `scheme:` and any slashes, or at 0 without a scheme.
fn authority_start(url: &str) -> usize {
    let Some(colon) = url.find(':') else {
        return 0;
    };
    let scheme = &url[..colon];
    let is_scheme = scheme.starts_with(|c: char| c.is_ascii_alphabetic())
        && scheme
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.'));
    if !is_scheme {
        return 0;
    }
    let slashes = url[colon + 1..]
        .chars()
        .take_while(|c| matches!(c, '/' | '\\'))
        .count();
    colon + 1 + slashes
}

#[cfg(test)]
mod tests;
