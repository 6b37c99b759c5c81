//! What an S3 server's refusal of a PUT says, and whether trying again can help.

use aws_smithy_xml::decode::{Document, try_data};
use std::fmt;

/// A non-2xx answer: its status and, from the error document, S3's code and message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Rejection {
    pub status: u16,
    pub code: Option<String>,
    pub message: Option<String>,
    pub request_id: Option<String>,
}

impl fmt::Display for Rejection {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "HTTP {}", self.status)?;
        if let Some(code) = &self.code {
            write!(f, " {code}")?;
        }
        if let Some(message) = &self.message {
            write!(f, ": {message}")?;
        }
        if let Some(id) = &self.request_id {
            write!(f, " (request id {id})")?;
        }
        Ok(())
    }
}

impl std::error::Error for Rejection {}

impl Rejection {
    /// Reads `<Error><Code/><Message/><RequestId/></Error>`; a body that is not such a
    /// document leaves those fields empty, the status still says what happened.
    pub(crate) fn read(status: u16, body: &[u8]) -> Self {
        let mut rejection = Self {
            status,
            code: None,
            message: None,
            request_id: None,
        };
        let Ok(mut document) = Document::try_from(body) else {
            return rejection;
        };
        let Ok(mut root) = document.root_element() else {
            return rejection;
        };
        if !root.start_el().matches("Error") {
            return rejection;
        }
        while let Some(mut tag) = root.next_tag() {
            let field = match tag.start_el().local() {
                "Code" => &mut rejection.code,
                "Message" => &mut rejection.message,
                "RequestId" => &mut rejection.request_id,
                _ => continue,
            };
            *field = try_data(&mut tag).ok().map(|text| text.into_owned());
        }
        rejection
    }

    /// Throttling and the server's own faults pass; a refusal of the request itself
    /// (signature, access, lock settings) would be refused again.
    pub(crate) fn is_transient(&self) -> bool {
        matches!(self.status, 500 | 502 | 503 | 504)
            || matches!(
                self.code.as_deref(),
                Some("SlowDown" | "RequestTimeout" | "InternalError" | "ServiceUnavailable")
            )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_error_document_gives_code_message_and_request_id() {
        let body = br#"<?xml version="1.0" encoding="UTF-8"?>
<Error><Code>SignatureDoesNotMatch</Code><Message>The request signature we calculated does not match the signature you provided.</Message><StringToSign>x</StringToSign><RequestId>4442587FB7D0A2F9</RequestId></Error>"#;
        let rejection = Rejection::read(403, body);
        assert_eq!(rejection.code.as_deref(), Some("SignatureDoesNotMatch"));
        assert_eq!(rejection.request_id.as_deref(), Some("4442587FB7D0A2F9"));
        assert_eq!(
            rejection.to_string(),
            "HTTP 403 SignatureDoesNotMatch: The request signature we calculated does not \
             match the signature you provided. (request id 4442587FB7D0A2F9)"
        );
        assert!(!rejection.is_transient());
    }

    #[test]
    fn a_body_that_is_no_error_document_leaves_the_status() {
        for body in [&b""[..], b"<html>bad gateway</html>", b"\xff\xfe"] {
            let rejection = Rejection::read(502, body);
            assert_eq!(rejection.to_string(), "HTTP 502");
            assert!(rejection.is_transient());
        }
    }

    #[test]
    fn throttling_is_transient_whatever_its_status() {
        let body = b"<Error><Code>SlowDown</Code><Message>Reduce your rate</Message></Error>";
        assert!(Rejection::read(400, body).is_transient());
        let body = b"<Error><Code>AccessDenied</Code></Error>";
        assert!(!Rejection::read(403, body).is_transient());
    }
}
