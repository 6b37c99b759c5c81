//! A partner's APERAK (UN D.93A to D.01B, EANCOM).
//!
//! - `BGM` (required, once): C002/1001, 1004 (a simple element up to D.96A, C106/1004
//!   after, the same position either way), 1225 and 4343, all optional.
//! - `DTM`: 2005 required (a date without its qualifier means nothing), 2380 and 2379
//!   optional. Under an RFF it is that reference's date, otherwise the message's.
//! - `RFF`: 1153 required, 1154 and 1156 optional. Before the first ERC it says what the
//!   APERAK answers (segment group 1); after one, what the error is about (group 4).
//! - `ERC`: 9321 required, 1131 and 3055 optional; opens an error (segment group 3).
//! - `FTX`: 4451, C107/4441 and C108/4440 (the lines joined with `\n`). Inside an error
//!   group it is the error's text, otherwise the message's.
//!
//! The action comes from 1225 where it is a verdict (EANCOM: 6 confirmation, 27 not
//! accepted; also 29 accepted without amendment, ...; see `codes`), else from 4343
//! (`AP`, `RE`, ...), else from the errors: an APERAK with an ERC rejects, one without
//! accepts. That last rule serves the guides that send an APERAK only to report errors
//! (BGM+313 without 1225); an ERC that acknowledges rather than reports an error, which
//! EANCOM allows, comes with 1225 = 6 there. NAD, CTA, COM and any other segment are
//! passed over.

use super::codes;
use super::error::{ReadError, ReadErrorKind};
use super::fields::{optional, required};
use super::{Action, DateTime, Document, ReceivedAcknowledgement, Reference, ReportedError};
use super::{Text, empty};
use crate::{Message, Segment};

/// Decodes an APERAK message.
pub(super) fn read(message: &Message) -> Result<ReceivedAcknowledgement, ReadError> {
    let mut decoder = Decoder {
        ack: empty(message, Action::Accepted),
        document: None,
        dates: Vec::new(),
        texts: Vec::new(),
        context: Context::Message,
    };
    for segment in &message.segments {
        decoder.segment(&segment)?;
    }
    let Some(mut document) = decoder.document else {
        let kind = ReadErrorKind::MissingSegment("BGM");
        return Err(ReadError::new(kind, decoder.ack.position));
    };
    document.dates = decoder.dates;
    document.texts = decoder.texts;
    let mut ack = decoder.ack;
    ack.action = verdict(&document, !ack.errors.is_empty());
    ack.document = Some(document);
    Ok(ack)
}

/// The segment group the last segment opened, which DTM, RFF and FTX attach to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Context {
    Message,
    /// Segment group 1: the last top-level reference.
    Reference,
    /// Segment group 3: the last error.
    Error,
    /// Segment group 4: the last reference of the last error.
    ErrorReference,
}

struct Decoder {
    ack: ReceivedAcknowledgement,
    document: Option<Document>,
    /// The message's DTM and FTX, wherever they come relative to BGM.
    dates: Vec<DateTime>,
    texts: Vec<Text>,
    context: Context,
}

impl Decoder {
    fn segment(&mut self, segment: &Segment<'_>) -> Result<(), ReadError> {
        match segment.tag {
            "BGM" => self.bgm(segment),
            "DTM" => self.dtm(segment),
            "RFF" => self.rff(segment),
            "ERC" => self.erc(segment),
            "FTX" => {
                self.ftx(segment);
                Ok(())
            }
            _ => Ok(()),
        }
    }

    fn bgm(&mut self, segment: &Segment<'_>) -> Result<(), ReadError> {
        if self.document.is_some() {
            let kind = ReadErrorKind::Misplaced {
                tag: "BGM",
                why: "occurs twice",
            };
            return Err(ReadError::new(kind, segment.position));
        }
        self.document = Some(Document {
            name_code: optional(segment, 0, 0),
            number: optional(segment, 1, 0),
            function_code: optional(segment, 2, 0),
            response_type: optional(segment, 3, 0),
            dates: Vec::new(),
            texts: Vec::new(),
            position: segment.position,
        });
        Ok(())
    }

    fn dtm(&mut self, segment: &Segment<'_>) -> Result<(), ReadError> {
        let date = DateTime {
            qualifier: required(segment, (0, 0), "2005", "date or time qualifier")?.into(),
            value: optional(segment, 0, 1),
            format: optional(segment, 0, 2),
        };
        let reference = match self.context {
            Context::Reference => self.ack.references.last_mut(),
            Context::ErrorReference => self
                .ack
                .errors
                .last_mut()
                .and_then(|e| e.references.last_mut()),
            Context::Message | Context::Error => None,
        };
        match reference {
            Some(reference) => reference.dates.push(date),
            None => self.dates.push(date),
        }
        Ok(())
    }

    fn rff(&mut self, segment: &Segment<'_>) -> Result<(), ReadError> {
        let reference = Reference {
            qualifier: required(segment, (0, 0), "1153", "reference code qualifier")?.into(),
            value: optional(segment, 0, 1),
            line: optional(segment, 0, 2),
            dates: Vec::new(),
            position: segment.position,
        };
        match self.ack.errors.last_mut() {
            Some(error) => {
                error.references.push(reference);
                self.context = Context::ErrorReference;
            }
            None => {
                self.ack.references.push(reference);
                self.context = Context::Reference;
            }
        }
        Ok(())
    }

    fn erc(&mut self, segment: &Segment<'_>) -> Result<(), ReadError> {
        let code = required(segment, (0, 0), "9321", "application error code")?;
        let mut error = ReportedError::at(Some(code.to_owned()), segment.position);
        error.code_list = optional(segment, 0, 1);
        error.agency = optional(segment, 0, 2);
        self.ack.errors.push(error);
        self.context = Context::Error;
        Ok(())
    }

    fn ftx(&mut self, segment: &Segment<'_>) {
        let lines = segment.element(3).map(|e| e.iter().collect::<Vec<_>>());
        let text = Text {
            subject: optional(segment, 0, 0),
            code: optional(segment, 2, 0),
            text: lines.map(|l| l.join("\n")).unwrap_or_default(),
        };
        match (self.context, self.ack.errors.last_mut()) {
            (Context::Error | Context::ErrorReference, Some(error)) => error.texts.push(text),
            _ => self.texts.push(text),
        }
    }
}

/// The APERAK's action: see the module documentation.
fn verdict(document: &Document, has_errors: bool) -> Action {
    let function = document.function_code.as_deref();
    let response = document.response_type.as_deref();
    function
        .and_then(codes::message_function)
        .or_else(|| response.and_then(codes::response_type))
        .unwrap_or(if has_errors {
            Action::Rejected
        } else {
            Action::Accepted
        })
}
