//! The CONTRL syntax and service report the hub returns when UNB asks for one (0031 = 1).
//!
//! Sans-IO like the rest of the crate: the caller passes the CONTRL's own interchange
//! control reference, message reference and preparation time, so the same input always
//! yields the same bytes (the transform consumer derives them from the message id and
//! the time of receipt, which makes a redelivered event produce the identical CONTRL).
//!
//! # What is written
//!
//! A complete interchange: `UNA`, `UNB` (sender and recipient of the subject interchange
//! swapped, identifiers with their qualifiers kept; same syntax identifier and version;
//! the test indicator mirrored; no acknowledgement request, since a CONTRL is never
//! acknowledged), `UNH`, `UCI`, one `UCM` per faulty message with one `UCS` per faulty
//! segment, `UNT`, `UNZ`.
//!
//! The message identifier follows the subject interchange's syntax version:
//! `CONTRL:D:3:UN` for syntax 1 to 3 and `CONTRL:4:1:UN` for syntax 4. D:3 is the
//! CONTRL of ISO 9735 version 3, which EANCOM and most partners on syntax 3 use; syntax 4
//! (ISO 9735-4) defines its own version 4 release 1 of the message. The older `2:2`
//! predates the D.93 service directory and has no place in either. Every element written
//! here sits at the same position in both versions, so one writer serves both.
//!
//! The hub accepts or rejects an interchange as a unit ([`crate::check`]), so:
//! - accepted: `UCI` action 7 (this level acknowledged, lower levels acknowledged if not
//!   explicitly rejected) and no `UCM`;
//! - rejected: `UCI` action 4 (this level and all lower levels rejected), with the first
//!   interchange-level error code (if any) in `UCI`, and a `UCM` with action 4 for every
//!   message that has faults of its own. A fault on UNH or UNT goes in `UCM` itself
//!   (0085 and the tag in 0013); a fault in a data segment goes in a `UCS` with the
//!   segment's position counted from UNH = 1, one `UCS` per segment. A fault of one
//!   value (a wrong amount, a date, a character outside the repertoire, a missing
//!   mandatory service element) gets a `UCD` under that `UCS` with the value's element
//!   and component position (S011), and the `UCS` then carries no code of its own unless
//!   the segment also has a fault as a whole. `UCI`, `UCF` and `UCM` carry S011 too when
//!   their error is one value's.
//!   A missing segment is reported at UNH, because the mapping does not know where it
//!   was expected. Action 8 (interchange received) is never sent: the check is complete
//!   before the CONTRL is built.
//!
//! In an interchange with functional groups (UNG..UNE), each group with faults of its
//! own or in its messages gets a `UCF` (action 4, with the first UNG or UNE error and
//! its tag), and the `UCM`s of its messages follow it (segment group 3 of CONTRL); a
//! fault on UNG or UNE itself is reported in the `UCF`.
//!
//! The 0085 codes each fault gets are tabled in [`codes`]'s documentation.
//!
//! # Layout
//!
//! - [`codes`]: the ISO 9735 code tables (0083 actions, 0085 syntax errors);
//! - `plan`: which segment (UCI, UCF, UCM, UCS, UCD) reports each fault;
//! - `writer`: the planned segments as text, escaped and in the subject's repertoire.
//!
//! # Characters
//!
//! Values copied from the subject interchange are written in its repertoire: a
//! character the repertoire cannot carry (one the reader already reported and decoded
//! lossily) becomes `?`, lower case becomes upper case under UNOA, and every service
//! character is preceded by the release character `?`. The bytes are ISO 8859-1 for
//! UNOC and UTF-8 otherwise, which for the ASCII repertoires (UNOA, UNOB, the ASCII half
//! of UNOD..UNOK) is ASCII.

pub mod codes;
mod plan;
mod writer;

pub use codes::{Action, SyntaxError, syntax_error};
pub use writer::escape;

use crate::charset::Charset;
use crate::check::Report;

/// The CONTRL's own references and preparation time, chosen by the caller.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ContrlParams {
    /// UNB/UNZ 0020 of the CONTRL interchange (an..14).
    pub interchange_reference: String,
    /// UNH/UNT 0062 of the CONTRL message (an..14).
    pub message_reference: String,
    /// UNB S004, the date and time of preparation.
    pub prepared: Prepared,
}

/// A date and time of preparation. Written as YYMMDD and HHMM in syntax 1 to 3 and as
/// CCYYMMDD and HHMM in syntax 4, hence the full year.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Prepared {
    pub year: u16,
    pub month: u8,
    pub day: u8,
    pub hour: u8,
    pub minute: u8,
}

/// A built CONTRL interchange.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Contrl {
    /// The interchange, encoded in the subject interchange's repertoire.
    pub bytes: Vec<u8>,
    /// The same interchange as text: `bytes` is this text in ISO 8859-1 for UNOC and in
    /// UTF-8 for every other syntax identifier.
    pub text: String,
    /// What UCI says.
    pub action: Action,
    /// UNB 0020 of the subject interchange.
    pub acknowledged_reference: String,
    /// UNB 0020 of the CONTRL interchange (as given in [`ContrlParams`]).
    pub interchange_reference: String,
    /// UNB S001/0001 of both interchanges, e.g. `UNOC`.
    pub syntax_identifier: String,
}

/// The CONTRL for the interchange `report` describes, or `None` when none is due: the
/// UNB could not be read, it does not ask for an acknowledgement, its repertoire is one
/// this crate cannot write, or the interchange holds only CONTRL messages (a CONTRL is
/// never answered with a CONTRL, which would let two hubs acknowledge each other
/// forever).
///
/// Only the first interchange of the input is acknowledged: faults after its UNZ (data
/// after UNZ, a further interchange) are reported as its own interchange-level fault.
pub fn build(report: &Report, params: &ContrlParams) -> Option<Contrl> {
    let header = report.header.as_ref()?;
    if !header.acknowledgement_requested {
        return None;
    }
    if !report.messages.is_empty()
        && report
            .messages
            .iter()
            .all(|m| m.identifier.message_type == "CONTRL")
    {
        return None;
    }
    let charset = Charset::from_syntax_identifier(header.syntax_identifier.as_bytes())?;
    let syntax4 = header.syntax_version.parse::<u8>().is_ok_and(|v| v >= 4);
    let action = if report.must_reject() {
        Action::Rejected
    } else {
        Action::Accepted
    };
    let plan = plan::plan(report);
    let text = writer::write(header, params, (charset, syntax4), action, &plan);
    Some(Contrl {
        bytes: charset.encode(&text),
        text,
        action,
        acknowledged_reference: header.control_reference.clone(),
        interchange_reference: params.interchange_reference.clone(),
        syntax_identifier: header.syntax_identifier.clone(),
    })
}

#[cfg(test)]
mod tests;
