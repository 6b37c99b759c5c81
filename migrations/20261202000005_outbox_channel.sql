-- One outbox, two ways out: 'kafka' rows are published by the outbox relay to their
-- topic; 'as2-mdn' rows are asynchronous MDNs the gateway POSTs to the partner's
-- Receipt-Delivery-Option URL (kept in `topic`). Both get the same claim, retry,
-- backoff and FAILED handling, and the same operator commands.
ALTER TABLE outbox ADD COLUMN channel text NOT NULL DEFAULT 'kafka'
    CHECK (channel IN ('kafka', 'as2-mdn'));
