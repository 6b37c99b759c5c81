-- Partnerships and the hub's identities, managed with `edihub partner|identity ...` and
-- picked up by running gateways (NOTIFY partners_changed, plus polling). They add to the
-- ones in the settings file; a database row wins over a file entry with the same AS2 id.
CREATE TABLE partner (
    as2_id                     text PRIMARY KEY,
    name                       text,
    require_signature          boolean     NOT NULL DEFAULT false,
    require_encryption         boolean     NOT NULL DEFAULT false,
    allow_expired_certificates boolean     NOT NULL DEFAULT false,
    async_mdn_urls             text[]      NOT NULL DEFAULT '{}',
    created_at                 timestamptz NOT NULL DEFAULT now(),
    updated_at                 timestamptz NOT NULL DEFAULT now()
);

-- A partner's certificates (several during a key rollover). The one with the lowest
-- position is the one the hub encrypts to.
CREATE TABLE partner_certificate (
    partner_as2_id   text        NOT NULL REFERENCES partner (as2_id) ON DELETE CASCADE,
    sha256           text        NOT NULL,   -- of the DER encoding, lower-case hex
    certificate_pem  text        NOT NULL,
    position         integer     NOT NULL,
    added_at         timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (partner_as2_id, sha256)
);

-- The hub's own AS2 identities: the AS2-To partners address, with the key that decrypts
-- their messages and signs our MDNs. Whoever can read this table holds the keys.
CREATE TABLE hub_identity (
    as2_id           text PRIMARY KEY,
    certificate_pem  text        NOT NULL,
    private_key_pem  text        NOT NULL,
    updated_at       timestamptz NOT NULL DEFAULT now()
);

CREATE FUNCTION partners_notify() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    PERFORM pg_notify('partners_changed', '');
    RETURN NULL;
END $$;
CREATE TRIGGER partner_notify AFTER INSERT OR UPDATE OR DELETE ON partner
    FOR EACH STATEMENT EXECUTE FUNCTION partners_notify();
CREATE TRIGGER partner_certificate_notify AFTER INSERT OR UPDATE OR DELETE ON partner_certificate
    FOR EACH STATEMENT EXECUTE FUNCTION partners_notify();
CREATE TRIGGER hub_identity_notify AFTER INSERT OR UPDATE OR DELETE ON hub_identity
    FOR EACH STATEMENT EXECUTE FUNCTION partners_notify();
