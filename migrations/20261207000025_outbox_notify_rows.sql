-- The NOTIFY also says how many rows the statement committed ("kafka 3"), so that a relay
-- woken by it can wait until enough rows have gathered for a batch instead of guessing
-- (crates/outbox/src/relay/linger.rs). A relay built before this reads such a payload as
-- another channel's and wakes on its polling interval only, until it is restarted.
CREATE OR REPLACE FUNCTION outbox_notify() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    PERFORM pg_notify('outbox_pending', channel || ' ' || count(*))
    FROM inserted GROUP BY channel;
    RETURN NULL;
END $$;
