-- Outbound messages asked for on edi.outbound.requested (issue 16, source 2), owned by
-- the edihub-outbound crate: the request's ce_id, carried by every status event of the
-- message. Unique, so a request queues one message even if its inbox row is purged and
-- the record delivered again.
ALTER TABLE outbound_message ADD COLUMN request_id uuid;

CREATE UNIQUE INDEX outbound_message_request_id
    ON outbound_message (request_id) WHERE request_id IS NOT NULL;
