//! W3C Trace Context (<https://www.w3.org/TR/trace-context/>): the `traceparent` value
//! that follows one AS2 message from the gateway's request through the outbox and the
//! Kafka record headers into every consumer's log lines and the events they publish.
//!
//! Sans-IO: parsing, validation and formatting only. The ids come from the caller
//! ([`TraceId::random`] and [`SpanId::random`] are the conveniences the services use).
//!
//! Version `00` layout: `00-<32 hex trace-id>-<16 hex parent-id>-<2 hex flags>`, all hex
//! lower case. A value that fails to parse is ignored by the receiver, which then starts
//! a new trace (the specification's rule: a bad header must never fail the request).

use std::fmt;
use std::str::FromStr;
use uuid::Uuid;

/// Length of a version-`00` value; a later version may append fields after a `-`.
const VERSION_00_LEN: usize = 55;

/// Why a `traceparent` value was refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum TraceParentError {
    #[error("traceparent has the wrong length")]
    Length,
    #[error("traceparent version is not two lower-case hex digits, or is the invalid ff")]
    Version,
    #[error("traceparent fields are not separated by '-' where version 00 puts them")]
    Layout,
    #[error("traceparent trace-id is not 32 lower-case hex digits, or is all zero")]
    TraceId,
    #[error("traceparent parent-id is not 16 lower-case hex digits, or is all zero")]
    ParentId,
    #[error("traceparent trace-flags are not two lower-case hex digits")]
    Flags,
}

/// The 16-byte id shared by every span of one trace; never all zero.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct TraceId([u8; 16]);

/// The 8-byte id of one span (the `parent-id` of the spans it calls); never all zero.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct SpanId([u8; 8]);

impl TraceId {
    /// `None` for the all-zero id, which the specification reserves as invalid.
    pub fn from_bytes(bytes: [u8; 16]) -> Option<Self> {
        (bytes != [0; 16]).then_some(Self(bytes))
    }

    /// A new random trace id.
    pub fn random() -> Self {
        loop {
            if let Some(id) = Self::from_bytes(rand::random()) {
                return id;
            }
        }
    }

    pub fn to_bytes(self) -> [u8; 16] {
        self.0
    }
}

impl SpanId {
    /// `None` for the all-zero id, which the specification reserves as invalid.
    pub fn from_bytes(bytes: [u8; 8]) -> Option<Self> {
        (bytes != [0; 8]).then_some(Self(bytes))
    }

    /// A new random span id.
    pub fn random() -> Self {
        loop {
            if let Some(id) = Self::from_bytes(rand::random()) {
                return id;
            }
        }
    }

    pub fn to_bytes(self) -> [u8; 8] {
        self.0
    }
}

impl fmt::Display for TraceId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write_hex(f, &self.0)
    }
}

impl fmt::Display for SpanId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write_hex(f, &self.0)
    }
}

/// A parsed `traceparent`: the trace, the span that made the call, and the flags.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct TraceParent {
    trace_id: TraceId,
    parent_id: SpanId,
    flags: u8,
}

impl TraceParent {
    /// The caller may have recorded the trace.
    pub const SAMPLED: u8 = 0x01;
    /// Trace Context level 2: the trace-id's right 7 bytes are random.
    pub const RANDOM: u8 = 0x02;

    pub fn new(trace_id: TraceId, parent_id: SpanId, flags: u8) -> Self {
        Self {
            trace_id,
            parent_id,
            flags,
        }
    }

    /// The context of a span that starts a new trace. Sampled: the hub logs every
    /// message, so every trace it starts is recorded.
    pub fn root(trace_id: TraceId, span_id: SpanId) -> Self {
        Self::new(trace_id, span_id, Self::SAMPLED)
    }

    /// [`TraceParent::root`] with fresh random ids.
    pub fn random_root() -> Self {
        Self::new(
            TraceId::random(),
            SpanId::random(),
            Self::SAMPLED | Self::RANDOM,
        )
    }

    /// The context to pass on from a span `span_id` that continues this one: the same
    /// trace, `span_id` as the parent-id. Only the flags this version defines are kept
    /// (unknown bits must not be propagated).
    pub fn child(&self, span_id: SpanId) -> Self {
        Self::new(
            self.trace_id,
            span_id,
            self.flags & (Self::SAMPLED | Self::RANDOM),
        )
    }

    /// [`TraceParent::child`] with a fresh random span id.
    pub fn random_child(&self) -> Self {
        self.child(SpanId::random())
    }

    /// The context of the hub's span that receives message `message_id`: it continues
    /// `incoming` (the request's `traceparent`) when that is valid, and otherwise starts
    /// a new trace whose trace-id is the message id, so an operator can go from one to
    /// the other. The span id comes from the message id's random bits: the same request
    /// always yields the same context, wherever it is computed.
    pub fn for_message(incoming: Option<&str>, message_id: Uuid) -> Self {
        let bytes = message_id.into_bytes();
        let mut low = [0; 8];
        low.copy_from_slice(&bytes[8..]);
        let span_id = SpanId::from_bytes(low).unwrap_or_else(SpanId::random);
        match incoming.map(Self::parse) {
            Some(Ok(parent)) => parent.child(span_id),
            _ => Self::root(
                TraceId::from_bytes(bytes).unwrap_or_else(TraceId::random),
                span_id,
            ),
        }
    }

    pub fn trace_id(&self) -> TraceId {
        self.trace_id
    }

    pub fn parent_id(&self) -> SpanId {
        self.parent_id
    }

    pub fn flags(&self) -> u8 {
        self.flags
    }

    pub fn sampled(&self) -> bool {
        self.flags & Self::SAMPLED != 0
    }

    /// Parses a `traceparent` value. Version `00` must be exactly 55 characters; a later
    /// version is read as `00` when its first four fields fit that layout (the
    /// specification's rule for versions this code does not know yet), and formats as
    /// `00` again.
    pub fn parse(value: &str) -> Result<Self, TraceParentError> {
        let bytes = value.as_bytes();
        if bytes.len() < VERSION_00_LEN {
            return Err(TraceParentError::Length);
        }
        let version = decode_hex::<1>(&bytes[0..2]).ok_or(TraceParentError::Version)?[0];
        if version == 0xff {
            return Err(TraceParentError::Version);
        }
        if version == 0 && bytes.len() != VERSION_00_LEN {
            return Err(TraceParentError::Length);
        }
        if bytes.len() > VERSION_00_LEN && bytes[VERSION_00_LEN] != b'-' {
            return Err(TraceParentError::Layout);
        }
        if bytes[2] != b'-' || bytes[35] != b'-' || bytes[52] != b'-' {
            return Err(TraceParentError::Layout);
        }
        let trace_id = decode_hex::<16>(&bytes[3..35])
            .and_then(TraceId::from_bytes)
            .ok_or(TraceParentError::TraceId)?;
        let parent_id = decode_hex::<8>(&bytes[36..52])
            .and_then(SpanId::from_bytes)
            .ok_or(TraceParentError::ParentId)?;
        let flags = decode_hex::<1>(&bytes[53..55]).ok_or(TraceParentError::Flags)?[0];
        Ok(Self::new(trace_id, parent_id, flags))
    }
}

impl FromStr for TraceParent {
    type Err = TraceParentError;
    fn from_str(value: &str) -> Result<Self, Self::Err> {
        Self::parse(value)
    }
}

/// The version-`00` header value.
impl fmt::Display for TraceParent {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "00-{}-{}-{:02x}",
            self.trace_id, self.parent_id, self.flags
        )
    }
}

fn write_hex(f: &mut fmt::Formatter<'_>, bytes: &[u8]) -> fmt::Result {
    bytes.iter().try_for_each(|b| write!(f, "{b:02x}"))
}

/// Lower-case hex only: the specification refuses upper case, so that two producers
/// cannot spell the same id two ways.
fn decode_hex<const N: usize>(digits: &[u8]) -> Option<[u8; N]> {
    fn nibble(digit: u8) -> Option<u8> {
        match digit {
            b'0'..=b'9' => Some(digit - b'0'),
            b'a'..=b'f' => Some(digit - b'a' + 10),
            _ => None,
        }
    }
    if digits.len() != 2 * N {
        return None;
    }
    let mut out = [0; N];
    for (byte, pair) in out.iter_mut().zip(digits.chunks_exact(2)) {
        *byte = nibble(pair[0])? << 4 | nibble(pair[1])?;
    }
    Some(out)
}

/// Most list-members a `tracestate` may carry.
const TRACESTATE_MEMBERS: usize = 32;
/// What the hub keeps of a `tracestate`: the length the specification says every
/// participant must propagate; longer lists lose members from the end.
const TRACESTATE_KEPT_LEN: usize = 512;

/// The `tracestate` to pass on, from the request's `tracestate` header values (several
/// headers form one list, in order). Vendor data the hub does not read, only carries
/// along the trace, as the specification asks of every participant.
///
/// `None` when there is nothing to carry, or when a member is malformed or a key is
/// repeated: the specification lets a participant drop a list it cannot parse, and a
/// half-trusted list is worse than none. Blank members are dropped, the others are
/// passed on as they came (trimmed); beyond [`TRACESTATE_MEMBERS`] members or
/// [`TRACESTATE_KEPT_LEN`] characters, members are dropped from the end.
pub fn tracestate<'a>(values: impl IntoIterator<Item = &'a str>) -> Option<String> {
    let mut members: Vec<&str> = Vec::new();
    for value in values {
        for member in value.split(',') {
            let member = member.trim_matches([' ', '\t']);
            if member.is_empty() {
                continue;
            }
            let (key, member_value) = member.split_once('=')?;
            if !tracestate_key(key) || !tracestate_value(member_value) {
                return None;
            }
            if members
                .iter()
                .any(|m| m.split_once('=').map(|(k, _)| k) == Some(key))
            {
                return None;
            }
            members.push(member);
        }
    }
    let mut kept = String::new();
    for member in members.into_iter().take(TRACESTATE_MEMBERS) {
        let separator = usize::from(!kept.is_empty());
        if kept.len() + separator + member.len() > TRACESTATE_KEPT_LEN {
            break;
        }
        if separator == 1 {
            kept.push(',');
        }
        kept.push_str(member);
    }
    (!kept.is_empty()).then_some(kept)
}

/// `simple-key` or `tenant-id@system-id`.
fn tracestate_key(key: &str) -> bool {
    let rest = |s: &str, max: usize| {
        s.len() <= max
            && s.bytes().all(|b| {
                b.is_ascii_lowercase()
                    || b.is_ascii_digit()
                    || matches!(b, b'_' | b'-' | b'*' | b'/')
            })
    };
    match key.split_once('@') {
        None => {
            let mut bytes = key.bytes();
            bytes.next().is_some_and(|b| b.is_ascii_lowercase()) && rest(&key[1..], 255)
        }
        Some((tenant, system)) => {
            let tenant_ok = tenant
                .bytes()
                .next()
                .is_some_and(|b| b.is_ascii_lowercase() || b.is_ascii_digit())
                && rest(&tenant[1..], 240);
            let system_ok = system
                .bytes()
                .next()
                .is_some_and(|b| b.is_ascii_lowercase())
                && rest(&system[1..], 13);
            tenant_ok && system_ok
        }
    }
}

/// Up to 256 printable ASCII characters other than `,` and `=`, not ending in a space.
fn tracestate_value(value: &str) -> bool {
    !value.is_empty()
        && value.len() <= 256
        && !value.ends_with(' ')
        && value
            .bytes()
            .all(|b| (0x20..=0x7e).contains(&b) && b != b',' && b != b'=')
}

#[cfg(test)]
mod tests;
