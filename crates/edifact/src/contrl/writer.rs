//! The writer: a planned CONTRL as ISO 9735 text.
//!
//! The CONTRL uses the default service characters (`UNA:+.? '`, with `*` as repetition
//! separator in syntax 4 only) whatever the subject interchange used, so that any
//! reader can take it. Values copied from the subject interchange are written in its
//! repertoire and released where they contain a service character.

use super::ContrlParams;
use super::codes::{Action, SyntaxError};
use super::plan::{Plan, Reported, Ucf, Ucm};
use crate::InterchangeHeader;
use crate::charset::Charset;
use crate::segment::ElementPosition;

/// The CONTRL's own service characters: the ISO 9735 defaults, `*` as repetition
/// separator in syntax 4 only.
const COMPONENT: char = ':';
const ELEMENT: char = '+';
const RELEASE: char = '?';
const REPETITION: char = '*';
const TERMINATOR: char = '\'';

/// `value` with every service character preceded by the release character, so that a
/// reader gets `value` back (ISO 9735: the release character makes the next character
/// data). `repetition` says whether `*` is a service character (syntax 4).
pub fn escape(value: &str, repetition: bool) -> String {
    let mut out = String::with_capacity(value.len());
    for c in value.chars() {
        if matches!(c, COMPONENT | ELEMENT | RELEASE | TERMINATOR)
            || (repetition && c == REPETITION)
        {
            out.push(RELEASE);
        }
        out.push(c);
    }
    out
}

/// The whole CONTRL interchange, UNA to UNZ, as text: the plan's levels under one UNH.
pub(super) fn write(
    header: &InterchangeHeader,
    params: &ContrlParams,
    (charset, syntax4): (Charset, bool),
    action: Action,
    plan: &Plan<'_>,
) -> String {
    let mut w = Writer::new(charset, syntax4);
    w.una();
    write_unb(&mut w, header, params, syntax4);
    let unh_at = w.segments;
    let (version, release) = if syntax4 { ("4", "1") } else { ("D", "3") };
    w.segment(
        "UNH",
        &[
            &[&params.message_reference],
            &["CONTRL", version, release, "UN"],
        ],
    );
    write_uci(&mut w, header, action, plan.uci.as_ref());
    // Messages outside groups first (segment group 1), then each group with its
    // messages (segment group 3); an interchange has one kind or the other.
    for ucm in plan.ucms.iter().filter(|u| u.group.is_none()) {
        write_ucm(&mut w, ucm);
    }
    for ucf in &plan.ucfs {
        write_ucf(&mut w, ucf);
        for ucm in plan.ucms.iter().filter(|u| u.group == Some(ucf.index)) {
            write_ucm(&mut w, ucm);
        }
    }
    let count = (w.segments - unh_at + 1).to_string();
    w.segment("UNT", &[&[&count], &[&params.message_reference]]);
    w.segment("UNZ", &[&["1"], &[&params.interchange_reference]]);
    w.text
}

fn write_unb(w: &mut Writer, header: &InterchangeHeader, params: &ContrlParams, syntax4: bool) {
    let p = params.prepared;
    let date = if syntax4 {
        format!("{:04}{:02}{:02}", p.year, p.month, p.day)
    } else {
        format!("{:02}{:02}{:02}", p.year % 100, p.month, p.day)
    };
    let time = format!("{:02}{:02}", p.hour, p.minute);
    let test = if header.test_indicator { "1" } else { "" };
    w.segment(
        "UNB",
        &[
            &[&header.syntax_identifier, &header.syntax_version],
            // The CONTRL goes back: its sender is the subject interchange's recipient.
            &[
                &header.recipient_id,
                header.recipient_qualifier.as_deref().unwrap_or_default(),
            ],
            &[
                &header.sender_id,
                header.sender_qualifier.as_deref().unwrap_or_default(),
            ],
            &[&date, &time],
            &[&params.interchange_reference],
            // S005, 0026, 0029, 0031 (never set: a CONTRL is not acknowledged), 0032.
            &[],
            &[],
            &[],
            &[],
            &[],
            &[test],
        ],
    );
}

/// UCI: the subject interchange's reference, sender and recipient as it named them, and
/// the verdict.
fn write_uci(w: &mut Writer, header: &InterchangeHeader, action: Action, error: Option<&Reported>) {
    let (code, tag, element) = reported(error);
    w.segment(
        "UCI",
        &[
            &[&header.control_reference],
            &[
                &header.sender_id,
                header.sender_qualifier.as_deref().unwrap_or_default(),
            ],
            &[
                &header.recipient_id,
                header.recipient_qualifier.as_deref().unwrap_or_default(),
            ],
            &[action.code()],
            &[code],
            &[tag],
            &[&element.0, &element.1],
        ],
    );
}

/// UCF: a group, always rejected, since the interchange is accepted or rejected whole.
fn write_ucf(w: &mut Writer, ucf: &Ucf<'_>) {
    let g = ucf.group;
    let (code, tag, element) = reported(ucf.error.as_ref());
    w.segment(
        "UCF",
        &[
            &[&g.reference],
            &[
                g.application_sender.as_deref().unwrap_or_default(),
                g.sender_qualifier.as_deref().unwrap_or_default(),
            ],
            &[
                g.application_recipient.as_deref().unwrap_or_default(),
                g.recipient_qualifier.as_deref().unwrap_or_default(),
            ],
            &[Action::Rejected.code()],
            &[code],
            &[tag],
            &[&element.0, &element.1],
        ],
    );
}

/// UCM for a rejected message, then a UCS per faulty segment, each with its UCDs.
fn write_ucm(w: &mut Writer, ucm: &Ucm<'_>) {
    let (m, id) = (ucm.message, &ucm.message.identifier);
    let (code, tag, element) = reported(ucm.error.as_ref());
    w.segment(
        "UCM",
        &[
            &[&m.reference],
            &[
                &id.message_type,
                &id.version,
                &id.release,
                &id.agency,
                id.association_code.as_deref().unwrap_or_default(),
            ],
            &[Action::Rejected.code()],
            &[code],
            &[tag],
            &[&element.0, &element.1],
        ],
    );
    for ucs in &ucm.segments {
        let code = ucs.error.map(SyntaxError::code).unwrap_or_default();
        w.segment("UCS", &[&[&ucs.position.to_string()], &[code]]);
        for (element, error) in &ucs.elements {
            let (position, component) = s011(Some(*element));
            w.segment("UCD", &[&[error.code()], &[&position, &component]]);
        }
    }
}

/// 0085, 0013 and S011 of an error reported in UCI, UCF or UCM (empty when none).
fn reported(error: Option<&Reported>) -> (&'static str, &'static str, (String, String)) {
    match error {
        Some(e) => (e.code.code(), e.tag, s011(e.element)),
        None => ("", "", (String::new(), String::new())),
    }
}

/// S011's 0098 and 0104 (n..3 each): empty when unknown or too large to write.
fn s011(element: Option<ElementPosition>) -> (String, String) {
    match element.filter(|e| e.element <= 999 && e.component <= 999) {
        Some(e) => (e.element.to_string(), e.component.to_string()),
        None => (String::new(), String::new()),
    }
}

/// Writes segments as text and counts them.
struct Writer {
    charset: Charset,
    syntax4: bool,
    text: String,
    /// Segments written so far (UNA not counted).
    segments: usize,
}

impl Writer {
    fn new(charset: Charset, syntax4: bool) -> Self {
        Self {
            charset,
            syntax4,
            text: String::with_capacity(256),
            segments: 0,
        }
    }

    fn una(&mut self) {
        let repetition = if self.syntax4 { REPETITION } else { ' ' };
        self.text.extend([
            'U', 'N', 'A', COMPONENT, ELEMENT, '.', RELEASE, repetition, TERMINATOR,
        ]);
    }

    /// One segment; trailing empty components and elements are left out, as ISO 9735
    /// requires.
    fn segment(&mut self, tag: &str, elements: &[&[&str]]) {
        let used = |e: &[&str]| e.iter().rposition(|c| !c.is_empty()).map_or(0, |i| i + 1);
        let count = elements
            .iter()
            .rposition(|e| used(e) > 0)
            .map_or(0, |i| i + 1);
        self.text.push_str(tag);
        for element in &elements[..count] {
            self.text.push(ELEMENT);
            for (i, component) in element[..used(element)].iter().enumerate() {
                if i > 0 {
                    self.text.push(COMPONENT);
                }
                self.value(component);
            }
        }
        self.text.push(TERMINATOR);
        self.segments += 1;
    }

    /// A value in the repertoire, escaped.
    fn value(&mut self, value: &str) {
        let writable: String = value
            .chars()
            .map(|c| self.charset.writable(c).unwrap_or('?'))
            .collect();
        self.text.push_str(&escape(&writable, self.syntax4));
    }
}
