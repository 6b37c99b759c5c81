//! AS2 request headers (RFC 4130 section 6) and the MDN request options (section 7.3).
//!
//! The HTTP layer hands us raw header pairs; this module turns them into one normalised
//! value so that nothing downstream has to care how a partner capitalised, quoted or
//! bracketed things. Identity comparisons (the duplicate check on `AS2-From`, `AS2-To`,
//! `Message-ID`) are only sound if every path normalises the same way, which is why the
//! rules live here and nowhere else.

use crate::error::As2Error;
use crate::mic::MicAlg;

/// Longest AS2 name RFC 4130 section 6.2 allows.
const MAX_AS2_NAME_LEN: usize = 128;
/// Longest Message-ID RFC 4130 section 5.3.3 allows (the RFC 2822 line limit).
const MAX_MESSAGE_ID_LEN: usize = 998;

/// AS2 request headers, normalised. Header names are case-insensitive.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct As2Headers {
    /// The sender's AS2 name with any quoting removed.
    pub as2_from: String,
    /// The recipient's (our) AS2 name with any quoting removed.
    pub as2_to: String,
    /// Without angle brackets; requests may carry them or not.
    pub message_id: String,
    pub as2_version: Option<String>,
    pub subject: Option<String>,
    pub content_type: String,
    /// Presence means an MDN was requested (the value itself is informational).
    pub disposition_notification_to: Option<String>,
    /// Parsed `Disposition-Notification-Options`.
    pub mdn_options: Option<MdnOptions>,
    /// The URL to POST an asynchronous MDN to, when the partner wants one.
    pub receipt_delivery_option: Option<String>,
}

/// The parsed `Disposition-Notification-Options` header.
///
/// Only the two parameters RFC 4130 defines are kept. Algorithms we do not implement are
/// dropped from `micalg` (so its first entry is the one to use); the importance is kept
/// so that the caller can decide whether an unsatisfiable `required` request is an error.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct MdnOptions {
    /// E.g. `(Optional, "pkcs7-signature")`; the protocol is lower-cased.
    pub signed_receipt_protocol: Option<(Importance, String)>,
    /// Supported algorithms in the partner's order of preference.
    pub micalg: Vec<MicAlg>,
    /// The importance given to `signed-receipt-micalg`, when that parameter was present.
    pub micalg_importance: Option<Importance>,
}

/// RFC 3798 parameter importance.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Importance {
    Required,
    Optional,
}

impl As2Headers {
    /// Builds the normalised headers from raw `(name, value)` pairs as the HTTP server
    /// received them.
    ///
    /// Only the headers this module knows are decoded, so an odd byte in an unrelated
    /// header does not reject the message. A known header that is not UTF-8, is repeated,
    /// or breaks its grammar is an [`As2Error::InvalidHeader`]; a required one that is
    /// absent is an [`As2Error::MissingHeader`].
    pub fn from_pairs<'a, I: IntoIterator<Item = (&'a str, &'a [u8])>>(
        headers: I,
    ) -> Result<As2Headers, As2Error> {
        let mut raw = RawHeaders::default();
        for (name, value) in headers {
            let name = name.trim();
            let Some(slot) = raw.slot(name) else {
                continue;
            };
            let canonical = slot.0;
            if slot.1.is_some() {
                return Err(As2Error::invalid_header(canonical, "header is repeated"));
            }
            *slot.1 = Some(decode_value(canonical, value)?);
        }

        let as2_from = parse_as2_name(
            "AS2-From",
            &raw.as2_from.ok_or(As2Error::MissingHeader("AS2-From"))?,
        )?;
        let as2_to = parse_as2_name(
            "AS2-To",
            &raw.as2_to.ok_or(As2Error::MissingHeader("AS2-To"))?,
        )?;
        let message_id = normalize_message_id(
            "Message-ID",
            &raw.message_id
                .ok_or(As2Error::MissingHeader("Message-ID"))?,
        )?;
        let content_type = raw
            .content_type
            .ok_or(As2Error::MissingHeader("Content-Type"))?;
        if content_type.is_empty() {
            return Err(As2Error::invalid_header("Content-Type", "empty value"));
        }
        let mdn_options = match raw.mdn_options {
            Some(v) if !v.is_empty() => Some(MdnOptions::parse(&v)?),
            _ => None,
        };
        Ok(As2Headers {
            as2_from,
            as2_to,
            message_id,
            as2_version: raw.as2_version,
            subject: raw.subject,
            content_type,
            disposition_notification_to: raw.disposition_notification_to,
            mdn_options,
            receipt_delivery_option: raw.receipt_delivery_option.filter(|v| !v.is_empty()),
        })
    }

    /// Whether the partner asked for an MDN at all (RFC 4130 section 7.3: the presence of
    /// `Disposition-Notification-To` is the request).
    pub fn mdn_requested(&self) -> bool {
        self.disposition_notification_to.is_some()
    }
}

/// The known headers as decoded strings, before their grammar is checked.
#[derive(Default)]
struct RawHeaders {
    as2_from: Option<String>,
    as2_to: Option<String>,
    message_id: Option<String>,
    as2_version: Option<String>,
    subject: Option<String>,
    content_type: Option<String>,
    disposition_notification_to: Option<String>,
    mdn_options: Option<String>,
    receipt_delivery_option: Option<String>,
}

impl RawHeaders {
    /// The canonical name and storage slot for a header name, if it is one we read.
    fn slot(&mut self, name: &str) -> Option<(&'static str, &mut Option<String>)> {
        let table: [(&'static str, &mut Option<String>); 9] = [
            ("AS2-From", &mut self.as2_from),
            ("AS2-To", &mut self.as2_to),
            ("Message-ID", &mut self.message_id),
            ("AS2-Version", &mut self.as2_version),
            ("Subject", &mut self.subject),
            ("Content-Type", &mut self.content_type),
            (
                "Disposition-Notification-To",
                &mut self.disposition_notification_to,
            ),
            ("Disposition-Notification-Options", &mut self.mdn_options),
            ("Receipt-Delivery-Option", &mut self.receipt_delivery_option),
        ];
        table
            .into_iter()
            .find(|(canonical, _)| canonical.eq_ignore_ascii_case(name))
    }
}

/// UTF-8 check, obsolete line folding undone, control characters refused, outer
/// whitespace trimmed.
fn decode_value(name: &str, value: &[u8]) -> Result<String, As2Error> {
    let s = std::str::from_utf8(value).map_err(|e| {
        As2Error::invalid_header(
            name,
            format!("not UTF-8 (invalid byte at {})", e.valid_up_to()),
        )
    })?;
    let unfolded = crate::mime::unfold(s);
    if let Some(c) = unfolded.chars().find(|c| c.is_control() && *c != '\t') {
        return Err(As2Error::invalid_header(
            name,
            format!("control character U+{:04X}", c as u32),
        ));
    }
    Ok(unfolded.trim().to_string())
}

/// Reads an `as2-name` (RFC 4130 section 6.2): either a bare atom or a quoted string in
/// which `\"` and `\\` stand for `"` and `\`.
///
/// Bare names are accepted with inner spaces even though the grammar says atom: some
/// partners send `AS2-From: Partner A` unquoted, and refusing them gains nothing because
/// the name is compared, not re-parsed. The result must be 1..=128 printable ASCII
/// characters, which is what the RFC allows inside the quotes.
pub(crate) fn parse_as2_name(header: &str, value: &str) -> Result<String, As2Error> {
    let value = value.trim();
    let name = if let Some(inner) = value.strip_prefix('"') {
        let mut out = String::with_capacity(inner.len());
        let mut chars = inner.chars();
        let mut closed = false;
        while let Some(c) = chars.next() {
            match c {
                '\\' => match chars.next() {
                    Some(escaped) => out.push(escaped),
                    None => break,
                },
                '"' => {
                    closed = true;
                    break;
                }
                c => out.push(c),
            }
        }
        if !closed {
            return Err(As2Error::invalid_header(header, "unterminated quoted name"));
        }
        if !chars.as_str().trim().is_empty() {
            return Err(As2Error::invalid_header(
                header,
                "characters after the closing quote",
            ));
        }
        out
    } else {
        if value.contains(['"', '\\']) {
            return Err(As2Error::invalid_header(
                header,
                "quote or backslash in an unquoted name",
            ));
        }
        value.to_string()
    };
    if name.is_empty() {
        return Err(As2Error::invalid_header(header, "empty name"));
    }
    if name.len() > MAX_AS2_NAME_LEN {
        return Err(As2Error::invalid_header(
            header,
            format!("name longer than {MAX_AS2_NAME_LEN} characters"),
        ));
    }
    if !name.bytes().all(|b| (0x20..=0x7e).contains(&b)) {
        return Err(As2Error::invalid_header(
            header,
            "name must be printable ASCII",
        ));
    }
    Ok(name)
}

/// Formats an AS2 name for a header: bare when it is a plain token, otherwise quoted
/// with `"` and `\` escaped. Quoting only when needed keeps us byte-compatible with peers
/// that compare the header text instead of parsing it.
pub fn quote_as2_name(name: &str) -> String {
    let plain = !name.is_empty()
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"!#$%&'*+-/=?^_`{|}~.".contains(&b));
    if plain {
        return name.to_string();
    }
    let mut out = String::with_capacity(name.len() + 2);
    out.push('"');
    for c in name.chars() {
        match c {
            '"' | '\\' => {
                out.push('\\');
                out.push(c);
            }
            c if c.is_control() => out.push(' '),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// Strips one pair of angle brackets, if present, and checks what is left.
///
/// Both forms are normalised to the bare id because the duplicate check compares ids:
/// a partner resending `<abc@x>` as `abc@x` is still resending.
pub(crate) fn normalize_message_id(header: &str, value: &str) -> Result<String, As2Error> {
    let value = value.trim();
    let inner = match (value.strip_prefix('<'), value.ends_with('>')) {
        (Some(rest), true) => rest.strip_suffix('>').unwrap_or(rest),
        (None, false) => value,
        _ => {
            return Err(As2Error::invalid_header(
                header,
                "unbalanced angle brackets",
            ));
        }
    };
    let inner = inner.trim();
    if inner.is_empty() {
        return Err(As2Error::invalid_header(header, "empty message id"));
    }
    if inner.len() > MAX_MESSAGE_ID_LEN {
        return Err(As2Error::invalid_header(
            header,
            format!("longer than {MAX_MESSAGE_ID_LEN} characters"),
        ));
    }
    if inner.contains(['<', '>']) {
        return Err(As2Error::invalid_header(
            header,
            "angle bracket inside the id",
        ));
    }
    if inner.chars().any(|c| c.is_whitespace() || c.is_control()) {
        return Err(As2Error::invalid_header(header, "whitespace inside the id"));
    }
    Ok(inner.to_string())
}

impl MdnOptions {
    /// Parses a `Disposition-Notification-Options` value such as
    /// `signed-receipt-protocol=optional, pkcs7-signature; signed-receipt-micalg=optional, sha-256, sha1`.
    ///
    /// Attribute names and importance are case-insensitive. Unknown attributes are ignored
    /// (RFC 3798 lets a receiver ignore what it does not understand; refusing would turn a
    /// harmless extension into a failed transfer). A missing importance is read as
    /// `optional`, which some senders omit.
    pub fn parse(value: &str) -> Result<MdnOptions, As2Error> {
        const NAME: &str = "Disposition-Notification-Options";
        let mut options = MdnOptions::default();
        for param in value.split(';') {
            let param = param.trim();
            if param.is_empty() {
                continue;
            }
            let (attribute, rest) = param.split_once('=').ok_or_else(|| {
                As2Error::invalid_header(NAME, format!("parameter without '=': {param:?}"))
            })?;
            let attribute = attribute.trim().to_ascii_lowercase();
            let mut values: Vec<&str> = rest
                .split(',')
                .map(|v| v.trim().trim_matches('"').trim())
                .filter(|v| !v.is_empty())
                .collect();
            let importance = match values.first().map(|v| v.to_ascii_lowercase()) {
                Some(v) if v == "required" => Some(Importance::Required),
                Some(v) if v == "optional" => Some(Importance::Optional),
                _ => None,
            };
            if importance.is_some() {
                values.remove(0);
            }
            let importance = importance.unwrap_or(Importance::Optional);
            match attribute.as_str() {
                "signed-receipt-protocol" => {
                    let protocol = values.first().ok_or_else(|| {
                        As2Error::invalid_header(NAME, "signed-receipt-protocol without a value")
                    })?;
                    options.signed_receipt_protocol =
                        Some((importance, protocol.to_ascii_lowercase()));
                }
                "signed-receipt-micalg" => {
                    options.micalg = values.iter().filter_map(|v| MicAlg::parse(v)).collect();
                    options.micalg_importance = Some(importance);
                }
                _ => {}
            }
        }
        Ok(options)
    }

    /// The header value for these options, as a sending client writes it.
    pub fn header_value(&self) -> String {
        let mut params = Vec::new();
        if let Some((importance, protocol)) = &self.signed_receipt_protocol {
            params.push(format!(
                "signed-receipt-protocol={}, {}",
                importance.as_str(),
                protocol
            ));
        }
        if !self.micalg.is_empty() {
            let algs: Vec<&str> = self.micalg.iter().map(MicAlg::as_str).collect();
            params.push(format!(
                "signed-receipt-micalg={}, {}",
                self.micalg_importance
                    .unwrap_or(Importance::Optional)
                    .as_str(),
                algs.join(", ")
            ));
        }
        params.join("; ")
    }
}

impl Importance {
    pub fn as_str(&self) -> &'static str {
        match self {
            Importance::Required => "required",
            Importance::Optional => "optional",
        }
    }
}

#[cfg(test)]
mod tests;
