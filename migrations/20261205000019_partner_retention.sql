-- Archive retention per partnership (issue 14): how many years each archived message of
-- the partner stays object-locked. NULL: the hub's default (`s3.retention_years`, 10).
-- The hub never shortens it: `edihub partner update` refuses a lower value, and a lock
-- already set in S3 (COMPLIANCE) cannot be shortened by anyone.
ALTER TABLE partner
    ADD COLUMN retention_years integer CHECK (retention_years BETWEEN 1 AND 100);
