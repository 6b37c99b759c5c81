-- The partnership options the settings file already has (issue 13), for partners kept in
-- the database. Text in the spellings the file takes, as `edihub partner add|update`
-- normalised them (crates/partners/src/options.rs reads both sources the same way).
ALTER TABLE partner
    -- CIDR networks an async MDN URL may resolve to although they are not public.
    ADD COLUMN async_mdn_allowed_networks text[]  NOT NULL DEFAULT '{}',
    -- SHA-256 of each TLS client certificate's DER, lower-case hex; empty: none required.
    ADD COLUMN tls_client_fingerprints    text[]  NOT NULL DEFAULT '{}',
    -- NULL: the default (2048).
    ADD COLUMN min_rsa_bits               integer CHECK (min_rsa_bits BETWEEN 1024 AND 16384),
    -- Empty: every digest (cipher) edihub knows.
    ADD COLUMN digests                    text[]  NOT NULL DEFAULT '{}',
    ADD COLUMN ciphers                    text[]  NOT NULL DEFAULT '{}';

-- Secure by default: a partnership refuses unsigned and unencrypted messages unless told
-- otherwise. Rows that exist keep what they were given.
ALTER TABLE partner
    ALTER COLUMN require_signature  SET DEFAULT true,
    ALTER COLUMN require_encryption SET DEFAULT true;
