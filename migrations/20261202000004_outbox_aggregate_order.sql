-- The relay claims a row only when no earlier PENDING row of the same aggregate exists
-- (see crates/outbox/src/relay.rs); this index answers that question.
CREATE INDEX outbox_pending_aggregate ON outbox (aggregate_id, seq) WHERE status = 'PENDING';
