-- Asynchronous MDNs (issue 16): what judging a later MDN needs of the message as it was
-- last POSTed, and the MDN timeout's sweep.
--
-- sent_mic_content: the bytes the partner's MIC covers (the signed entity, headers
-- included), to recompute the MIC in another accepted algorithm.
-- sent_receipt: the rest of the check, as JSON: {"expected_mic": "<base64>, <alg>",
-- "signed_mdn_requested": bool, "message_signed": bool, "accepted_mic_algs": ["sha-256"]}.
-- Both are written when a POST leaves the message `sent`, and cleared by a resend.
ALTER TABLE outbound_message ADD COLUMN sent_mic_content bytea;
ALTER TABLE outbound_message ADD COLUMN sent_receipt jsonb;

-- The MDN timeout's sweep reads only `sent` messages, oldest first: a message is `sent`
-- since its `updated_at` (nothing else changes a sent row but leaving that state).
CREATE INDEX outbound_message_sent_since ON outbound_message (updated_at)
    WHERE state = 'sent';
