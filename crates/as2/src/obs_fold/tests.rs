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
    two.extend_from_slice(b"POST /as2 HTTP/1.1\r\nSubject: x\r\n y\r\nContent-Length: 0\r\n\r\n");
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

/// Found while writing the `obs_fold` fuzz target: `push` used to call itself for what
/// followed each head in the same read, so a read full of empty heads (`\n\n`, two bytes
/// each) went one stack frame deeper per head until the stack overflowed and the process
/// aborted. One of the gateway's 16 KiB reads holds 8 192 of them.
#[test]
fn many_heads_in_one_read_do_not_deepen_the_stack() {
    let input = b"\n\n".repeat(8 * 1024);
    let out = std::thread::Builder::new()
        .stack_size(64 * 1024)
        .spawn(move || {
            let mut heads = RequestHeads::new(64 * 1024);
            let mut out = heads.push(&input);
            out.bytes.extend(heads.finish());
            out
        })
        .unwrap()
        .join()
        .unwrap();
    assert_eq!(out.bytes, b"\n\n".repeat(8 * 1024));
    assert_eq!(out.unfolded, 0);
}
