//! UN/EDIFACT for edihub: bytes in, checked values out.
//!
//! The crate is sans-IO (no files, sockets, clock or runtime) so that it can be unit
//! tested and fuzzed on bytes alone, and so that the AS2 gateway, the transform consumer
//! and the CLI all read interchanges the same way.
//!
//! Layers, bottom up:
//! - [`syntax`]: the UNA service string advice and the delimiters in force;
//! - [`charset`]: the repertoire named by the UNB syntax identifier (UNOA..UNOY), and the
//!   [`charset::CharsetPolicy`]: strict, or tolerant of ISO 8859-1 letters and lower case
//!   outside it (read so and warned about);
//! - `tokenizer`: bytes to [`Segment`]s with exact [`SourcePosition`]s;
//! - `envelope`: UNB/UNG/UNH/UNT/UNE/UNZ nesting, counts and references
//!   ([`Interchange::parse`], [`InterchangeHeader::peek`]);
//! - [`generic`]: any message as a lossless, JSON-serialisable rendering of its segments,
//!   elements and components with their positions;
//! - [`invoic`]: INVOIC messages to the canonical EN 16931 invoice, per profile;
//! - [`check`]: the accept/reject decision on syntax with every fault and warning, each
//!   message mapped by type on the way, shared by the transform consumer and the CLI;
//! - [`contrl`]: the CONTRL syntax and service report answering an interchange whose UNB
//!   asks for one, built from [`check`]'s report;
//! - [`received`]: CONTRL and APERAK from partners, decoded into what they acknowledge;
//! - [`references`]: what such an acknowledgement can name of an interchange the hub sends.
//!
//! Nothing here panics on input: every defect is a [`ParseError`], an
//! [`invoic::MappingError`] or a [`received::ReadError`] that names the segment and byte
//! offset at fault.

pub mod charset;
pub mod check;
pub mod contrl;
mod envelope;
mod error;
pub mod generic;
pub mod invoic;
pub mod received;
pub mod references;
mod segment;
pub mod syntax;
mod tokenizer;

pub use envelope::{Group, Interchange, InterchangeHeader, Message, Package, segments};
pub use error::{ParseError, ParseErrorKind};
pub use segment::{Element, ElementPosition, Segment, Segments, SourcePosition};
pub use syntax::Delimiters;

#[cfg(test)]
mod tests;
