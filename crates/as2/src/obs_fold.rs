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
    pub fn push(&mut self, mut input: &[u8]) -> Output {
        let mut out = Output::default();
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
                            let more = self.push(&rest);
                            out.bytes.extend_from_slice(&more.bytes);
                            out.unfolded += more.unfolded;
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
        out
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
mod tests {
    use super::*;

    const FOLDED: &[u8] = b"POST /as2 HTTP/1.1\r\nHost: hub\r\nSubject: a long\r\n\tsubject\r\n\
        Disposition-Notification-Options: signed-receipt-protocol=optional, pkcs7-signature;\r\n \
        signed-receipt-micalg=optional, sha256\r\nContent-Length: 5\r\n\r\nhello";

    fn all(bytes: &[u8], chunk: usize) -> Output {
        let mut heads = RequestHeads::new(64 * 1024);
        let mut out = Output::default();
        for piece in bytes.chunks(chunk) {
            let more = heads.push(piece);
            out.bytes.extend(more.bytes);
            out.unfolded += more.unfolded;
        }
        out.bytes.extend(heads.finish());
        out
    }

    #[test]
    fn folds_become_spaces_and_nothing_moves() {
        for chunk in [1, 2, 3, 7, 4096] {
            let out = all(FOLDED, chunk);
            assert_eq!(out.unfolded, 2, "chunk {chunk}");
            assert_eq!(out.bytes.len(), FOLDED.len());
            let text = String::from_utf8(out.bytes).unwrap();
            assert!(text.contains("Subject: a long  \tsubject\r\n"), "{text}");
            assert!(
                text.contains("pkcs7-signature;   signed-receipt-micalg"),
                "{text}"
            );
            assert!(text.ends_with("\r\n\r\nhello"));
        }
    }

    #[test]
    fn the_body_is_never_rewritten_and_the_next_request_is() {
        let body = b"line\r\n folded-looking body\r\n";
        let mut two = format!(
            "POST /as2 HTTP/1.1\r\nContent-Length: {}\r\n\r\n",
            body.len()
        )
        .into_bytes();
        two.extend_from_slice(body);
        two.extend_from_slice(
            b"POST /as2 HTTP/1.1\r\nSubject: x\r\n y\r\nContent-Length: 0\r\n\r\n",
        );
        for chunk in [1, 5, 4096] {
            let out = all(&two, chunk);
            assert_eq!(out.unfolded, 1, "chunk {chunk}");
            let text = String::from_utf8(out.bytes).unwrap();
            assert!(text.contains("line\r\n folded-looking body"), "{text}");
            assert!(text.contains("Subject: x   y\r\n"), "{text}");
        }
    }

    #[test]
    fn chunked_bodies_end_the_rewriting() {
        let input = b"POST /as2 HTTP/1.1\r\nTransfer-Encoding: chunked\r\nA: b\r\n c\r\n\r\n\
            5\r\nhello\r\n0\r\n\r\nPOST /as2 HTTP/1.1\r\nA: b\r\n c\r\n\r\n";
        let out = all(input, 3);
        assert_eq!(out.unfolded, 1, "the first head only");
        assert!(
            String::from_utf8(out.bytes)
                .unwrap()
                .ends_with("A: b\r\n c\r\n\r\n")
        );
    }

    #[test]
    fn lf_only_heads_and_the_request_line_are_handled() {
        let out = all(b"POST /as2 HTTP/1.1\n Host: h\nA: b\n\tc\n\n", 2);
        // The space after the request line is not a fold: it is left for hyper to refuse.
        assert_eq!(out.unfolded, 1);
        assert_eq!(
            out.bytes,
            b"POST /as2 HTTP/1.1\n Host: h\nA: b \tc\n\n".to_vec()
        );
    }

    #[test]
    fn bodies_can_be_handed_on_without_pushing_them() {
        let mut heads = RequestHeads::new(1024);
        assert_eq!(heads.verbatim(), None);
        let head = heads.push(b"POST / HTTP/1.1\r\nContent-Length: 5\r\n\r\n");
        assert!(head.bytes.ends_with(b"\r\n\r\n"));
        assert_eq!(heads.verbatim(), Some(5));
        heads.passed(3);
        assert_eq!(heads.verbatim(), Some(2));
        heads.passed(2);
        assert_eq!(heads.verbatim(), None, "the next head is collected again");
        let next = heads.push(b"POST / HTTP/1.1\r\nA: b\r\n c\r\n\r\n");
        assert_eq!(next.unfolded, 1);
    }

    #[test]
    fn oversized_heads_pass_through_unchanged() {
        let mut heads = RequestHeads::new(16);
        let input = b"POST /as2 HTTP/1.1\r\nA: b\r\n c\r\n";
        let out = heads.push(input);
        assert_eq!(out.bytes, input.to_vec());
        assert_eq!(heads.push(b"\r\n").bytes, b"\r\n".to_vec());
    }

    #[test]
    fn conflicting_lengths_end_the_rewriting() {
        assert_eq!(
            body_length(b"P / H\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\n"),
            None
        );
        assert_eq!(body_length(b"P / H\r\nContent-Length: 3\r\n\r\n"), Some(3));
        assert_eq!(body_length(b"P / H\r\n\r\n"), Some(0));
    }
}
