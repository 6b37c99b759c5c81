-- Each outbox channel has a NOTIFY channel of its own ('outbox_pending:kafka'), and the
-- payload is the number of rows the statement committed. Before, every relay listened on
-- one channel and read every commit's NOTIFY, its own channel's or not: the outbound AS2
-- relay and the gateway's MDN relay woke for every Kafka row the hub wrote
-- (docs/benchmarks.md). A relay built before this listens on the old channel, hears
-- nothing, and wakes on its polling interval only, until it is restarted.
CREATE OR REPLACE FUNCTION outbox_notify() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    PERFORM pg_notify('outbox_pending:' || channel, count(*)::text)
    FROM inserted GROUP BY channel;
    RETURN NULL;
END $$;
