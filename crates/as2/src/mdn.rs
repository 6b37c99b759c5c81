//! Message Disposition Notifications (RFC 4130 section 7, RFC 3798).
//!
//! The MDN is the receipt a partner keeps as proof that we took responsibility for a
//! message, so it is built from explicit inputs only: the caller passes the MDN's own
//! Message-ID and the MIME boundary, which keeps this code deterministic (a resent message
//! must get a byte-identical MDN back, and tests can compare bytes).
//!
//! Only the unsigned form is built here. A signed MDN wraps exactly the `body` produced by
//! [`build_mdn`] (with its `content_type`) in multipart/signed: see
//! [`crate::smime::sign_mdn`]; on the client side [`crate::smime::read_mdn`] verifies and
//! unwraps before calling [`parse_mdn`].

use crate::error::As2Error;
use crate::headers::{normalize_message_id, parse_as2_name, quote_as2_name};
use crate::mic::Mic;
use crate::mime::{self, ContentType, Part};

/// The disposition-mode we always send: the MDN is produced by software, without a
/// human deciding.
const DISPOSITION_MODE: &str = "automatic-action/MDN-sent-automatically";
/// Used when the caller's boundary cannot be used as given (see [`build_mdn`]).
const FALLBACK_BOUNDARY: &str = "edihub-mdn-boundary";

/// Outcome reported in the `Disposition` field.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Disposition {
    /// `processed`: we have the message and take responsibility for it.
    Processed,
    /// `processed/error: <reason>`: we received the message but could not accept it.
    Failed(DispositionError),
    /// `processed/warning: <reason>`: we have the message, with a remark.
    Warning(DispositionWarning),
}

/// A `processed/warning` remark: the partner took the message and says something about
/// it. The hub sends only [`DispositionWarning::DuplicateDocument`]; partners send
/// others (pyas2lib, for one, spells its duplicate as `processed/Warning:
/// duplicate-document`), kept as [`DispositionWarning::Other`] so a sender can show them.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum DispositionWarning {
    /// The same signed content was accepted before under another Message-ID: this copy
    /// is acknowledged but not processed again (a replay, or a partner resending a file
    /// as a new message).
    DuplicateDocument,
    /// Any other warning text, trimmed, as the partner wrote it (possibly empty, for a
    /// bare `processed/warning`).
    Other(String),
}

impl DispositionWarning {
    /// The wire spelling, e.g. `"duplicate-document"`, or the partner's own text.
    pub fn as_str(&self) -> &str {
        match self {
            DispositionWarning::DuplicateDocument => "duplicate-document",
            DispositionWarning::Other(text) => text,
        }
    }

    /// Reads the text after `processed/warning:`. A known name counts when it is the
    /// first word (case-insensitive), as for errors; anything else is kept whole.
    pub fn parse(text: &str) -> DispositionWarning {
        let text = text.trim();
        let first = text.split_whitespace().next().unwrap_or_default();
        if first.eq_ignore_ascii_case("duplicate-document") {
            DispositionWarning::DuplicateDocument
        } else {
            DispositionWarning::Other(text.to_owned())
        }
    }
}

/// The error modifiers RFC 4130 section 7.4.3 defines.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum DispositionError {
    AuthenticationFailed,
    DecryptionFailed,
    IntegrityCheckFailed,
    InsufficientMessageSecurity,
    UnexpectedProcessingError,
}

impl DispositionError {
    pub const ALL: [DispositionError; 5] = [
        DispositionError::AuthenticationFailed,
        DispositionError::DecryptionFailed,
        DispositionError::IntegrityCheckFailed,
        DispositionError::InsufficientMessageSecurity,
        DispositionError::UnexpectedProcessingError,
    ];

    /// The wire spelling, e.g. `"authentication-failed"`.
    pub fn as_str(&self) -> &'static str {
        match self {
            DispositionError::AuthenticationFailed => "authentication-failed",
            DispositionError::DecryptionFailed => "decryption-failed",
            DispositionError::IntegrityCheckFailed => "integrity-check-failed",
            DispositionError::InsufficientMessageSecurity => "insufficient-message-security",
            DispositionError::UnexpectedProcessingError => "unexpected-processing-error",
        }
    }

    /// Case-insensitive inverse of [`DispositionError::as_str`].
    pub fn parse(s: &str) -> Option<DispositionError> {
        let s = s.trim();
        DispositionError::ALL
            .into_iter()
            .find(|e| e.as_str().eq_ignore_ascii_case(s))
    }
}

impl Disposition {
    /// The `Disposition` field value.
    pub fn field_value(&self) -> String {
        format!("{DISPOSITION_MODE}; {}", self.outcome())
    }

    /// The field value without its mode: `processed`, `processed/error: <reason>` or
    /// `processed/warning: <remark>`, as the journal records it.
    pub fn outcome(&self) -> String {
        match self {
            Disposition::Processed => "processed".to_owned(),
            Disposition::Failed(e) => format!("processed/error: {}", e.as_str()),
            Disposition::Warning(w) => format!("processed/warning: {}", w.as_str()),
        }
    }

    /// Reads a `Disposition` field value as a sending client receives it.
    ///
    /// The mode (`automatic-action/...` or `manual-action/...`) is not checked: it changes
    /// nothing for the sender. Mapping, chosen so that a client never mistakes a failure
    /// for success:
    /// - `processed` is [`Disposition::Processed`];
    /// - `processed/warning: <text>` is [`Disposition::Warning`], the text read by
    ///   [`DispositionWarning::parse`] (a warning still means the partner took the
    ///   message: [`crate::receipt::check_receipt`] accepts it and keeps the remark);
    /// - `processed/error: <known>` is that error;
    /// - any other error text, and `failed/...` (RFC 4130's "failed/Failure: unsupported
    ///   format"), are [`DispositionError::UnexpectedProcessingError`];
    /// - any other disposition type is malformed for AS2.
    pub fn parse(value: &str) -> Result<Disposition, As2Error> {
        let malformed = || As2Error::MalformedMdn(format!("bad Disposition field {value:?}"));
        let (_mode, outcome) = value.split_once(';').ok_or_else(malformed)?;
        let (kind, modifier) = match outcome.split_once('/') {
            Some((k, m)) => (k.trim(), Some(m.trim())),
            None => (outcome.trim(), None),
        };
        if kind.eq_ignore_ascii_case("failed") {
            return Ok(Disposition::Failed(
                DispositionError::UnexpectedProcessingError,
            ));
        }
        if !kind.eq_ignore_ascii_case("processed") {
            return Err(malformed());
        }
        let Some(modifier) = modifier else {
            return Ok(Disposition::Processed);
        };
        let (modifier_kind, description) = match modifier.split_once(':') {
            Some((k, d)) => (k.trim(), d.trim()),
            None => (modifier, ""),
        };
        if modifier_kind.eq_ignore_ascii_case("warning") {
            return Ok(Disposition::Warning(DispositionWarning::parse(description)));
        }
        // Only the first word counts: some stacks append a comment after the error name.
        let error_name = description.split_whitespace().next().unwrap_or_default();
        Ok(Disposition::Failed(
            DispositionError::parse(error_name)
                .unwrap_or(DispositionError::UnexpectedProcessingError),
        ))
    }
}

/// The content of an MDN, independent of how it is transported or signed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MdnReport {
    /// Identifies the software that produced the MDN (`Reporting-UA`).
    pub reporting_ua: String,
    /// Our AS2 id, as the partner addressed it (`Original-Recipient: rfc822; <id>`).
    pub original_recipient: String,
    /// Our AS2 id (`Final-Recipient: rfc822; <id>`).
    pub final_recipient: String,
    /// The partner's Message-ID, without angle brackets.
    pub original_message_id: String,
    /// The MIC of what we received; absent when we could not compute one (e.g. we never
    /// got as far as the content).
    pub received_content_mic: Option<Mic>,
    pub disposition: Disposition,
    /// Free text for humans reading the receipt; informational only.
    pub human_text: String,
}

/// What goes back over HTTP: response headers and body.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BuiltMdn {
    /// `AS2-Version`, `AS2-From`, `AS2-To`, `Message-ID`, `Mime-Version`, `Content-Type`.
    pub headers: Vec<(String, String)>,
    /// The `Content-Type` value (also among `headers`), for callers that sign the body.
    pub content_type: String,
    /// The multipart/report body, CRLF line endings.
    pub body: Vec<u8>,
}

/// Builds an unsigned MDN.
///
/// `mdn_message_id` may be given with or without angle brackets. `boundary` should be
/// unique per MDN and made of RFC 2046 boundary characters; characters outside that set are
/// dropped (and an unusable boundary is replaced by a fixed one) rather than failing,
/// because an MDN must always be producible, even for the error cases.
///
/// Header-breaking characters (CR, LF, other controls) in the report fields are replaced
/// with spaces, and a human-text line that would read as a boundary delimiter is indented,
/// so that nothing in the report can change the MIME structure.
pub fn build_mdn(
    report: &MdnReport,
    our_as2_id: &str,
    partner_as2_id: &str,
    mdn_message_id: &str,
    boundary: &str,
) -> BuiltMdn {
    let boundary = sanitize_boundary(boundary);
    let content_type =
        format!("multipart/report; report-type=disposition-notification; boundary=\"{boundary}\"");
    let mdn_id = bare_message_id(mdn_message_id);
    let headers = vec![
        ("AS2-Version".to_string(), "1.2".to_string()),
        (
            "AS2-From".to_string(),
            quote_as2_name(&one_line(our_as2_id)),
        ),
        (
            "AS2-To".to_string(),
            quote_as2_name(&one_line(partner_as2_id)),
        ),
        ("Message-ID".to_string(), format!("<{mdn_id}>")),
        ("Mime-Version".to_string(), "1.0".to_string()),
        ("Content-Type".to_string(), content_type.clone()),
    ];

    let text = human_text_lines(&report.human_text, &boundary);
    let (charset, cte) = if text.is_ascii() {
        ("us-ascii", "7bit")
    } else {
        ("utf-8", "8bit")
    };

    let mut body = String::new();
    body.push_str(&format!("--{boundary}\r\n"));
    body.push_str(&format!("Content-Type: text/plain; charset={charset}\r\n"));
    body.push_str(&format!("Content-Transfer-Encoding: {cte}\r\n\r\n"));
    body.push_str(&text);
    body.push_str(&format!("\r\n--{boundary}\r\n"));
    body.push_str("Content-Type: message/disposition-notification\r\n");
    body.push_str("Content-Transfer-Encoding: 7bit\r\n\r\n");
    let mut field = |name: &str, value: &str| {
        body.push_str(name);
        body.push_str(": ");
        body.push_str(&one_line(value));
        body.push_str("\r\n");
    };
    // Both fields are optional in RFC 3798; an empty value is left out rather than written
    // as something a parser would read back differently.
    if !report.reporting_ua.is_empty() {
        field("Reporting-UA", &report.reporting_ua);
    }
    if !report.original_recipient.is_empty() {
        field(
            "Original-Recipient",
            &format!("rfc822; {}", quote_as2_name(&report.original_recipient)),
        );
    }
    field(
        "Final-Recipient",
        &format!("rfc822; {}", quote_as2_name(&report.final_recipient)),
    );
    field(
        "Original-Message-ID",
        &format!("<{}>", bare_message_id(&report.original_message_id)),
    );
    if let Some(mic) = &report.received_content_mic {
        field("Received-Content-MIC", &mic.header_value());
    }
    field("Disposition", &report.disposition.field_value());
    body.push_str(&format!("\r\n--{boundary}--\r\n"));

    BuiltMdn {
        headers,
        content_type,
        body: body.into_bytes(),
    }
}

/// Parses an unsigned MDN (multipart/report) as a sending client receives it: the HTTP
/// response's `Content-Type` and body, or the same from an asynchronous MDN POST.
///
/// Lenient where real MDNs vary (LF-only lines, folded fields, quoted or bare boundary,
/// base64 or quoted-printable parts, a missing `Reporting-UA` or `Original-Recipient`, which
/// RFC 3798 makes optional) and strict where the sender relies on the answer
/// (`Final-Recipient`, `Original-Message-ID` and `Disposition` must be present and
/// readable; a present `Received-Content-MIC` must be a valid MIC).
pub fn parse_mdn(content_type: &str, body: &[u8]) -> Result<MdnReport, As2Error> {
    let ct = ContentType::parse(content_type).map_err(As2Error::MalformedMdn)?;
    if ct.mime_type == "multipart/signed" {
        return Err(As2Error::Unsupported(
            "signed MDN (multipart/signed); verify and unwrap it first".to_string(),
        ));
    }
    if ct.mime_type != "multipart/report" {
        return Err(As2Error::MalformedMdn(format!(
            "expected multipart/report, got {}",
            ct.mime_type
        )));
    }
    if let Some(report_type) = ct.param("report-type")
        && !report_type.eq_ignore_ascii_case("disposition-notification")
    {
        return Err(As2Error::MalformedMdn(format!(
            "report-type is {report_type:?}, expected disposition-notification"
        )));
    }
    let boundary = ct
        .param("boundary")
        .ok_or_else(|| As2Error::MalformedMdn("Content-Type has no boundary".to_string()))?;

    let raw_parts = mime::split_multipart(body, boundary).map_err(As2Error::MalformedMdn)?;
    let parts = raw_parts
        .into_iter()
        .map(Part::parse)
        .collect::<Result<Vec<_>, _>>()
        .map_err(As2Error::MalformedMdn)?;

    let notification = parts
        .iter()
        .find(|p| p.content_type.mime_type == "message/disposition-notification")
        .ok_or_else(|| {
            As2Error::MalformedMdn("no message/disposition-notification part".to_string())
        })?;
    let human_text = parts
        .iter()
        .find(|p| p.content_type.mime_type.starts_with("text/"))
        .map(|p| normalize_text(&p.body))
        .unwrap_or_default();

    let (fields, _) = mime::parse_fields(&notification.body, false)
        .map_err(|e| As2Error::MalformedMdn(format!("disposition-notification: {e}")))?;
    let required = |name: &'static str| {
        mime::field(&fields, name)
            .ok_or_else(|| As2Error::MalformedMdn(format!("missing {name} field")))
    };

    let final_recipient = recipient("Final-Recipient", required("Final-Recipient")?)?;
    let original_recipient = match mime::field(&fields, "Original-Recipient") {
        Some(v) => recipient("Original-Recipient", v)?,
        None => String::new(),
    };
    let original_message_id =
        normalize_message_id("Original-Message-ID", required("Original-Message-ID")?)
            .map_err(|e| As2Error::MalformedMdn(e.to_string()))?;
    let received_content_mic = mime::field(&fields, "Received-Content-MIC")
        .map(|v| {
            Mic::parse(v).map_err(|e| As2Error::MalformedMdn(format!("Received-Content-MIC: {e}")))
        })
        .transpose()?;
    let disposition = Disposition::parse(required("Disposition")?)?;

    Ok(MdnReport {
        reporting_ua: mime::field(&fields, "Reporting-UA")
            .unwrap_or_default()
            .to_string(),
        original_recipient,
        final_recipient,
        original_message_id,
        received_content_mic,
        disposition,
        human_text,
    })
}

/// `rfc822; name` to `name` (unquoted). A value without an address type is taken whole,
/// since some AS2 stacks omit it.
fn recipient(field: &str, value: &str) -> Result<String, As2Error> {
    let address = match value.split_once(';') {
        Some((_address_type, address)) => address,
        None => value,
    };
    parse_as2_name(field, address).map_err(|e| As2Error::MalformedMdn(e.to_string()))
}

/// A Message-ID without its brackets, whatever the caller passed.
fn bare_message_id(id: &str) -> String {
    let id = one_line(id);
    let id = id.trim();
    let id = id.strip_prefix('<').unwrap_or(id);
    let id = id.strip_suffix('>').unwrap_or(id);
    id.replace(['<', '>'], "")
}

/// Control characters (CR and LF among them) become spaces so a value stays on one line.
fn one_line(s: &str) -> String {
    s.chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect()
}

/// The human text with CRLF line endings, no trailing line break (the delimiter brings
/// its own), and lines that would be read as a delimiter of `boundary` indented by a space.
fn human_text_lines(text: &str, boundary: &str) -> String {
    let dash_boundary = format!("--{boundary}");
    let lines: Vec<String> = text
        .trim_end_matches(['\r', '\n'])
        .split('\n')
        .map(|line| {
            let line = line.strip_suffix('\r').unwrap_or(line);
            let line: String = line
                .chars()
                .map(|c| if c.is_control() && c != '\t' { ' ' } else { c })
                .collect();
            if line.starts_with(&dash_boundary) {
                format!(" {line}")
            } else {
                line
            }
        })
        .collect();
    lines.join("\r\n")
}

/// Decoded text part to a Rust string: invalid UTF-8 replaced, CRLF to LF, trailing line
/// breaks dropped. The text is informational, so a lossy read is preferable to failing.
fn normalize_text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes)
        .replace("\r\n", "\n")
        .trim_end_matches(['\r', '\n'])
        .to_string()
}

/// Keeps RFC 2046 `bchars` (letters, digits, `'()+_,-./:=?` and inner spaces), at most 70
/// of them, without a trailing space; falls back to a fixed boundary when nothing is left.
fn sanitize_boundary(boundary: &str) -> String {
    let kept: String = boundary
        .chars()
        .filter(|c| c.is_ascii_alphanumeric() || "'()+_,-./:=? ".contains(*c))
        .take(70)
        .collect();
    let kept = kept.trim_end();
    if kept.is_empty() {
        FALLBACK_BOUNDARY.to_string()
    } else {
        kept.to_string()
    }
}

#[cfg(test)]
mod tests;
