-- Transactional outbox: written in the same transaction as the business change,
-- published by the relay (a separate process) and marked SENT after the broker's ack.
CREATE TABLE outbox (
    id                uuid PRIMARY KEY,            -- becomes the CloudEvents ce_id
    seq               bigserial   NOT NULL UNIQUE, -- insertion order; the relay claims in this order
    aggregate_type    text        NOT NULL,
    aggregate_id      text        NOT NULL,        -- the Kafka key: order is kept per aggregate
    event_type        text        NOT NULL,
    topic             text        NOT NULL,
    payload           jsonb       NOT NULL,
    headers           jsonb       NOT NULL DEFAULT '{}'::jsonb,
    status            text        NOT NULL DEFAULT 'PENDING'
                                  CHECK (status IN ('PENDING', 'SENT', 'FAILED')),
    created_at        timestamptz NOT NULL DEFAULT now(),
    sent_at           timestamptz,
    attempts          integer     NOT NULL DEFAULT 0,
    next_attempt_at   timestamptz NOT NULL DEFAULT now(),
    last_error        text
);
-- The relay's claim query reads only due PENDING rows, in seq order.
CREATE INDEX outbox_pending ON outbox (seq) WHERE status = 'PENDING';

-- Wake the relay as soon as a row commits (NOTIFY is delivered at commit);
-- the relay still polls as a fallback.
CREATE FUNCTION outbox_notify() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    PERFORM pg_notify('outbox_pending', '');
    RETURN NULL;
END $$;
CREATE TRIGGER outbox_notify AFTER INSERT ON outbox
    FOR EACH STATEMENT EXECUTE FUNCTION outbox_notify();

-- Consumer inbox: one row per (consumer, event) makes each consumer idempotent.
-- The insert commits in the same transaction as the consumer's effect.
CREATE TABLE inbox (
    consumer          text        NOT NULL,
    event_id          uuid        NOT NULL,
    event_type        text        NOT NULL,
    received_at       timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (consumer, event_id)
);
CREATE INDEX inbox_received_at ON inbox (received_at);
