//! Obsolete line folding (RFC 7230 3.2.4 `obs-fold`) in HTTP/1.1 request heads.
//!
//! AS2 software built on mail libraries folds long header values (a long `Subject`, a
//! `Disposition-Notification-Options` with several parameters) onto continuation lines
//! that start with a space or tab. RFC 7230 lets a server replace each fold with spaces
//! before interpreting the message; hyper instead refuses the request with 400. So the
//! gateway passes each request head through [`RequestHeads`] before hyper sees it.
//!
//! [`RequestHeads`] is a sans-IO state machine over the bytes of one connection. It
//! buffers a request head until its empty line, replaces every fold's line break with
//! spaces (the same number of bytes, so nothing else moves), then lets the body through
//! untouched: `Content-Length` bytes, after which the next head begins. A chunked or
//! otherwise unframed body ends the rewriting for the rest of the connection (hyper then
//! sees the raw bytes, as without this module). A head longer than `max_head` is passed
//! on as it is, for hyper to refuse.

/// What [`RequestHeads::push`] hands on.
#[derive(Debug, Default)]
pub struct Output {
    /// Bytes ready for the HTTP parser, in order.
    pub bytes: Vec<u8>,
    /// Folds replaced in these bytes (for logging).
    pub unfolded: usize,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum State {
    /// Collecting a request head.
    Head,
    /// Passing `remaining` body bytes through.
    Body { remaining: u64 },
    /// Passing everything through (unframed body, oversized head).
    Passthrough,
}

/// See the module documentation.
#[derive(Debug)]
pub struct RequestHeads {
    state: State,
    head: Vec<u8>,
    max_head: usize,
}

impl RequestHeads {
    pub fn new(max_head: usize) -> Self {
        Self {
            state: State::Head,
            head: Vec::new(),
            max_head,
        }
    }

    /// Feeds the next bytes read from the connection.
    pub fn push(&mut self, input: &[u8]) -> Output {
        let mut out = Output::default();
        // What followed a head in the same read is fed again in turn, in a loop rather
        // than by recursion: a read can hold thousands of (empty) heads.
        let mut after_head = self.feed(input, &mut out);
        while let Some(rest) = after_head {
            after_head = self.feed(&rest, &mut out);
        }
        out
    }

    /// Feeds `input` until it is used up or a head has ended; in the second case, returns
    /// the bytes that followed the head.
    fn feed(&mut self, mut input: &[u8], out: &mut Output) -> Option<Vec<u8>> {
        while !input.is_empty() {
            match self.state {
                State::Passthrough => {
                    out.bytes.extend_from_slice(input);
                    input = &[];
                }
                State::Body { remaining } => {
                    let take = usize::try_from(remaining)
                        .unwrap_or(usize::MAX)
                        .min(input.len());
                    out.bytes.extend_from_slice(&input[..take]);
                    input = &input[take..];
                    self.passed(take);
                }
                State::Head => {
                    // Search from a little before the new bytes: the empty line may
                    // straddle two reads.
                    let from = self.head.len().saturating_sub(3);
                    self.head.extend_from_slice(input);
                    input = &[];
                    match head_end(&self.head, from) {
                        Some(end) => {
                            let rest = self.head.split_off(end);
                            let mut head = std::mem::take(&mut self.head);
                            out.unfolded += unfold(&mut head);
                            self.state = match body_length(&head) {
                                Some(0) => State::Head,
                                Some(length) => State::Body { remaining: length },
                                None => State::Passthrough,
                            };
                            out.bytes.extend_from_slice(&head);
                            // What followed the head is body or the next request.
                            return Some(rest);
                        }
                        None if self.head.len() > self.max_head => {
                            out.bytes.append(&mut self.head);
                            self.state = State::Passthrough;
                        }
                        None => {}
                    }
                }
            }
        }
        None
    }

    /// How many of the next bytes pass through unchanged (a body, or everything once
    /// rewriting has ended), so a caller can hand them on without [`RequestHeads::push`]
    /// copying them; `None` while a head is being collected. Report them with
    /// [`RequestHeads::passed`].
    pub fn verbatim(&self) -> Option<u64> {
        match self.state {
            State::Head => None,
            State::Body { remaining } => Some(remaining),
            State::Passthrough => Some(u64::MAX),
        }
    }

    /// `n` bytes (at most [`RequestHeads::verbatim`]) went through unchanged.
    pub fn passed(&mut self, n: usize) {
        if let State::Body { remaining } = self.state {
            let remaining = remaining.saturating_sub(n as u64);
            self.state = if remaining == 0 {
                State::Head
            } else {
                State::Body { remaining }
            };
        }
    }

    /// Bytes held back when the connection ends (an incomplete head), for the parser
    /// to judge.
    pub fn finish(&mut self) -> Vec<u8> {
        std::mem::take(&mut self.head)
    }
}

/// The index just past the head's empty line (`CRLF CRLF`, or `LF LF` from
/// LF-only clients), searching from `from`.
fn head_end(buffer: &[u8], from: usize) -> Option<usize> {
    let mut i = from;
    while i < buffer.len() {
        if buffer[i] == b'\n' {
            match buffer.get(i + 1) {
                Some(b'\n') => return Some(i + 2),
                Some(b'\r') if buffer.get(i + 2) == Some(&b'\n') => return Some(i + 3),
                _ => {}
            }
        }
        i += 1;
    }
    None
}

/// Replaces the line break of every fold after the request line with spaces; returns
/// how many folds there were. The request line itself is never joined to anything.
fn unfold(head: &mut [u8]) -> usize {
    let Some(first_line_end) = head.iter().position(|&b| b == b'\n') else {
        return 0;
    };
    let mut folds = 0;
    let mut i = first_line_end + 1;
    while i < head.len() {
        if head[i] == b'\n' && matches!(head.get(i + 1), Some(b' ' | b'\t')) {
            head[i] = b' ';
            if head[i - 1] == b'\r' {
                head[i - 1] = b' ';
            }
            folds += 1;
        }
        i += 1;
    }
    folds
}

/// The body length the head announces: `Content-Length`, or 0 with neither it nor
/// `Transfer-Encoding`. `None` for anything else (chunked, conflicting or unreadable),
/// which ends the rewriting.
fn body_length(head: &[u8]) -> Option<u64> {
    let text = std::str::from_utf8(head).ok()?;
    let mut length = None;
    for line in text.split('\n').skip(1) {
        let Some((name, value)) = line.split_once(':') else {
            continue;
        };
        let name = name.trim();
        let value = value.trim();
        if name.eq_ignore_ascii_case("transfer-encoding") {
            return None;
        }
        if name.eq_ignore_ascii_case("content-length") {
            let parsed: u64 = value.parse().ok()?;
            if length.is_some_and(|l| l != parsed) {
                return None;
            }
            length = Some(parsed);
        }
    }
    Some(length.unwrap_or(0))
}

#[cfg(test)]
mod tests;
