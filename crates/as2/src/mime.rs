//! The little MIME this crate needs: header blocks, `Content-Type` parameters, multipart
//! splitting and transfer decoding.
//!
//! Written for what partners actually send rather than for the letter of RFC 2045/2046:
//! lines may end in CRLF or LF only, headers may be folded, boundaries may be quoted or not,
//! and a missing close delimiter is tolerated. Everything works on byte slices of the
//! original buffer so that the S/MIME layer can later slice exact signed bytes from the same
//! offsets.

use base64::Engine as _;

/// A MIME structure problem, as a plain message; callers wrap it in the error variant that
/// fits their context (an MDN parse failure, for example).
pub(crate) type MimeResult<T> = Result<T, String>;

/// Removes line breaks that are followed by a space or tab (RFC 5322 section 2.2.3:
/// unfolding removes the CRLF and keeps the whitespace). LF-only folds count too.
pub(crate) fn unfold(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut rest = s;
    while let Some(i) = rest.find('\n') {
        let (before, after) = rest.split_at(i);
        let after = &after[1..];
        if after.starts_with([' ', '\t']) {
            out.push_str(before.strip_suffix('\r').unwrap_or(before));
        } else {
            out.push_str(before);
            out.push('\n');
        }
        rest = after;
    }
    out.push_str(rest);
    out
}

/// One line of a buffer: its content without the line break, and where the next line starts.
struct Line<'a> {
    content: &'a [u8],
    next: usize,
}

fn line_at(buf: &[u8], start: usize) -> Line<'_> {
    let rest = buf.get(start..).unwrap_or_default();
    match rest.iter().position(|&b| b == b'\n') {
        Some(i) => {
            let content = &rest[..i];
            Line {
                content: content.strip_suffix(b"\r").unwrap_or(content),
                next: start + i + 1,
            }
        }
        None => Line {
            content: rest,
            next: buf.len(),
        },
    }
}

/// Parses a header block at the start of `buf`.
///
/// Returns the fields (names as written, values unfolded and trimmed) and the offset where
/// the body starts (after the blank line). When `stop_at_blank` is false, blank lines are
/// skipped instead, which suits the `message/disposition-notification` content (per-message
/// fields, blank line, per-recipient fields).
pub(crate) fn parse_fields(
    buf: &[u8],
    stop_at_blank: bool,
) -> MimeResult<(Vec<(String, String)>, usize)> {
    let mut fields: Vec<(String, String)> = Vec::new();
    // Whether the previous line was a field that a continuation line may extend.
    let mut open = false;
    let mut pos = 0;
    while pos < buf.len() {
        let line = line_at(buf, pos);
        pos = line.next;
        let text = std::str::from_utf8(line.content)
            .map_err(|_| "header line is not UTF-8".to_string())?;
        if text.trim().is_empty() {
            if stop_at_blank {
                return Ok((fields, pos));
            }
            open = false;
            continue;
        }
        if text.starts_with([' ', '\t']) {
            match fields.last_mut() {
                Some((_, value)) if open => {
                    value.push(' ');
                    value.push_str(text.trim());
                    continue;
                }
                _ => return Err(format!("continuation line without a field: {text:?}")),
            }
        }
        let (name, value) = text
            .split_once(':')
            .ok_or_else(|| format!("header line without ':': {text:?}"))?;
        let name = name.trim();
        if name.is_empty() || name.contains(char::is_whitespace) {
            return Err(format!("bad header name {name:?}"));
        }
        fields.push((name.to_string(), value.trim().to_string()));
        open = true;
    }
    Ok((fields, buf.len()))
}

/// The value of the first field called `name` (case-insensitive).
pub(crate) fn field<'a>(fields: &'a [(String, String)], name: &str) -> Option<&'a str> {
    fields
        .iter()
        .find(|(n, _)| n.eq_ignore_ascii_case(name))
        .map(|(_, v)| v.as_str())
}

/// A parsed `Content-Type`: lower-cased `type/subtype` and parameters (names lower-cased,
/// values unquoted).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct ContentType {
    pub mime_type: String,
    pub params: Vec<(String, String)>,
}

impl ContentType {
    pub fn parse(value: &str) -> MimeResult<ContentType> {
        let value = unfold(value);
        let mut segments = split_params(&value).into_iter();
        let mime_type = segments
            .next()
            .map(|s| s.trim().to_ascii_lowercase())
            .unwrap_or_default();
        if !mime_type.contains('/') {
            return Err(format!("not a media type: {value:?}"));
        }
        let mut params = Vec::new();
        for segment in segments {
            let segment = segment.trim();
            if segment.is_empty() {
                continue;
            }
            let (name, raw) = segment
                .split_once('=')
                .ok_or_else(|| format!("parameter without '=': {segment:?}"))?;
            params.push((name.trim().to_ascii_lowercase(), unquote(raw.trim())));
        }
        Ok(ContentType { mime_type, params })
    }

    pub fn param(&self, name: &str) -> Option<&str> {
        self.params
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }
}

/// Splits on `;` outside quoted strings.
fn split_params(s: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut start = 0;
    let mut quoted = false;
    let mut escaped = false;
    for (i, c) in s.char_indices() {
        if escaped {
            escaped = false;
            continue;
        }
        match c {
            '\\' if quoted => escaped = true,
            '"' => quoted = !quoted,
            ';' if !quoted => {
                out.push(&s[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    out.push(&s[start..]);
    out
}

/// Removes surrounding quotes and resolves backslash escapes; unquoted text is returned
/// as is.
pub(crate) fn unquote(s: &str) -> String {
    let Some(inner) = s.strip_prefix('"') else {
        return s.to_string();
    };
    let inner = inner.strip_suffix('"').unwrap_or(inner);
    let mut out = String::with_capacity(inner.len());
    let mut chars = inner.chars();
    while let Some(c) = chars.next() {
        if c == '\\' {
            if let Some(e) = chars.next() {
                out.push(e);
            }
        } else {
            out.push(c);
        }
    }
    out
}

/// Splits a multipart body into its parts (each still with its own headers).
///
/// A delimiter line is `--boundary` optionally followed by `--` (close) and transport
/// padding. The line break before a delimiter belongs to the delimiter (RFC 2046 section
/// 5.1.1), so it is not part of the preceding body. The preamble and epilogue are dropped.
pub(crate) fn split_multipart<'a>(body: &'a [u8], boundary: &str) -> MimeResult<Vec<&'a [u8]>> {
    if boundary.is_empty() {
        return Err("empty boundary".to_string());
    }
    let dash_boundary = format!("--{boundary}");
    let mut parts = Vec::new();
    let mut current: Option<usize> = None;
    let mut closed = false;
    let mut pos = 0;
    while pos < body.len() {
        let line = line_at(body, pos);
        let trimmed = trim_end_ws(line.content);
        if let Some(rest) = trimmed.strip_prefix(dash_boundary.as_bytes()) {
            let is_close = rest == b"--";
            if rest.is_empty() || is_close {
                if let Some(start) = current {
                    parts.push(&body[start..end_before_break(body, start, pos)]);
                }
                if is_close {
                    closed = true;
                    break;
                }
                current = Some(line.next);
            }
        }
        pos = line.next;
    }
    if !closed {
        match current {
            Some(start) => parts.push(body.get(start..).unwrap_or_default()),
            None => return Err(format!("boundary {boundary:?} not found in the body")),
        }
    }
    if parts.is_empty() {
        return Err("multipart body has no parts".to_string());
    }
    Ok(parts)
}

/// The end of a part whose next delimiter line starts at `delimiter`: the CRLF or LF in front
/// of the delimiter is dropped, but never past the part's own start.
fn end_before_break(body: &[u8], start: usize, delimiter: usize) -> usize {
    let mut end = delimiter;
    if end > start && body.get(end - 1) == Some(&b'\n') {
        end -= 1;
        if end > start && body.get(end - 1) == Some(&b'\r') {
            end -= 1;
        }
    }
    end
}

fn trim_end_ws(mut s: &[u8]) -> &[u8] {
    while let [rest @ .., b' ' | b'\t'] = s {
        s = rest;
    }
    s
}

/// One part of a multipart body: its content type and its body after transfer decoding.
pub(crate) struct Part {
    pub content_type: ContentType,
    pub body: Vec<u8>,
}

impl Part {
    /// Parses headers, applies `Content-Transfer-Encoding`, and defaults the content type
    /// to `text/plain` as RFC 2045 section 5.2 does.
    pub fn parse(raw: &[u8]) -> MimeResult<Part> {
        let (fields, body_start) = parse_fields(raw, true)?;
        let content_type = match field(&fields, "Content-Type") {
            Some(ct) => ContentType::parse(ct)?,
            None => ContentType {
                mime_type: "text/plain".to_string(),
                params: Vec::new(),
            },
        };
        let encoded = raw.get(body_start..).unwrap_or_default();
        let body = decode_transfer(field(&fields, "Content-Transfer-Encoding"), encoded)?;
        Ok(Part { content_type, body })
    }
}

/// Undoes a content-transfer-encoding. Identity encodings pass through.
pub(crate) fn decode_transfer(encoding: Option<&str>, body: &[u8]) -> MimeResult<Vec<u8>> {
    let encoding = encoding.map(|e| e.trim().to_ascii_lowercase());
    match encoding.as_deref() {
        None | Some("7bit" | "8bit" | "binary" | "") => Ok(body.to_vec()),
        Some("base64") => {
            let compact: Vec<u8> = body
                .iter()
                .copied()
                .filter(|b| !b.is_ascii_whitespace())
                .collect();
            crate::mic::lenient_base64()
                .decode(compact)
                .map_err(|e| format!("bad base64 body: {e}"))
        }
        Some("quoted-printable") => Ok(decode_quoted_printable(body)),
        Some(other) => Err(format!("unknown Content-Transfer-Encoding {other:?}")),
    }
}

/// RFC 2045 section 6.7, decoded leniently: a malformed `=XY` is kept literally.
fn decode_quoted_printable(body: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(body.len());
    let mut i = 0;
    while i < body.len() {
        let b = body[i];
        if b != b'=' {
            out.push(b);
            i += 1;
            continue;
        }
        let rest = &body[i + 1..];
        // Soft line break: "=" then optional whitespace then CRLF or LF.
        let ws = rest
            .iter()
            .take_while(|&&c| c == b' ' || c == b'\t')
            .count();
        match &rest[ws..] {
            [b'\r', b'\n', ..] => {
                i += 1 + ws + 2;
                continue;
            }
            [b'\n', ..] => {
                i += 1 + ws + 1;
                continue;
            }
            [] => {
                i = body.len();
                continue;
            }
            _ => {}
        }
        match (rest.first().and_then(hex), rest.get(1).and_then(hex)) {
            (Some(hi), Some(lo)) => {
                out.push(hi << 4 | lo);
                i += 3;
            }
            _ => {
                out.push(b'=');
                i += 1;
            }
        }
    }
    out
}

fn hex(c: &u8) -> Option<u8> {
    (*c as char).to_digit(16).map(|d| d as u8)
}

#[cfg(test)]
mod tests;
