//! The answer to a replay: signed content the hub accepted before under another
//! Message-ID. The copy is acknowledged (the partner, or whoever replays it, must not
//! resend it forever) with `processed/warning: duplicate-document`, and nothing of it is
//! journaled or published.

use crate::decision::{DecideError, Policy, Request};
use crate::mdn::{Mdn, MdnContext};
use edihub_as2::{Disposition, DispositionWarning, Mic};
use edihub_partners::Directory;

/// The warning MDN for `request`, whose signed content arrived first as the message
/// with AS2 Message-ID `original`. `mic` is the copy's own, as computed by the
/// decision that accepted it.
pub fn replay_mdn(
    request: &Request<'_>,
    directory: &Directory,
    policy: &Policy,
    mic: Mic,
    original: &str,
) -> Result<Mdn, DecideError> {
    let as2 = request.headers;
    let context = MdnContext {
        answering: directory
            .identity(&as2.as2_to)
            .or_else(|| directory.identity(&policy.hub_as2_id)),
        main_as2_id: &policy.hub_as2_id,
        as2,
        nonce: request.mdn_nonce,
        now_unix: request.now.timestamp(),
    };
    let text = format!(
        "The message {} repeats the signed content of message {original}, which edihub \
         received before; it was not processed again.",
        as2.message_id
    );
    context
        .build(
            Disposition::Warning(DispositionWarning::DuplicateDocument),
            Some(mic),
            text,
        )
        .map_err(DecideError::SignMdn)
}
