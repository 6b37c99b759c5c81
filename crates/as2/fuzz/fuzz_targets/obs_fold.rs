//! `obs_fold::RequestHeads` on arbitrary bytes, fed in pieces the way the gateway feeds
//! a connection's reads. No panic, and three properties:
//! - nothing moves: the output is as long as the input, and a byte only ever changes
//!   from CR or LF to a space;
//! - the pieces do not matter: any split gives what one `push` of everything gives
//!   (with a `max_head` no head reaches, which is the one thing that depends on reads);
//! - handing on what `verbatim` allows without `push`, as `serve.rs` does, changes
//!   nothing either.
#![no_main]

use edihub_as2::obs_fold::RequestHeads;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    // The first two bytes choose the read sizes (1 to 256 bytes); the rest is the stream.
    let [a, b, stream @ ..] = data else {
        return;
    };
    let sizes = [usize::from(*a) + 1, usize::from(*b) + 1];
    let max_head = stream.len() + 1;

    let mut whole = RequestHeads::new(max_head);
    let mut expected = whole.push(stream).bytes;
    expected.extend(whole.finish());

    let mut pieces = RequestHeads::new(max_head);
    let mut bypass = RequestHeads::new(max_head);
    let (mut split, mut direct) = (Vec::new(), Vec::new());
    let mut rest = stream;
    let mut turn = 0;
    while !rest.is_empty() {
        let (read, next) = rest.split_at(sizes[turn % 2].min(rest.len()));
        turn += 1;
        rest = next;
        split.extend(pieces.push(read).bytes);
        if bypass.verbatim().is_some_and(|n| n >= read.len() as u64) {
            direct.extend_from_slice(read);
            bypass.passed(read.len());
        } else {
            direct.extend(bypass.push(read).bytes);
        }
    }
    split.extend(pieces.finish());
    direct.extend(bypass.finish());

    assert_eq!(expected.len(), stream.len(), "bytes were added or lost");
    for (out, input) in expected.iter().zip(stream) {
        assert!(
            out == input || (matches!(input, b'\r' | b'\n') && *out == b' '),
            "{input:#04x} became {out:#04x}"
        );
    }
    assert_eq!(
        split, expected,
        "the read sizes {sizes:?} changed the output"
    );
    assert_eq!(direct, expected, "the verbatim bypass changed the output");
});
