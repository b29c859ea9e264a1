-- Sign-in hardening (docs/api.md, "Authentication and permissions").
-- sessions_revoked_at: Unix seconds; a session token whose iat is before it is refused (0: never
-- revoked); sessions_kept_jti names the one session a password change keeps (the caller's).
-- totp_secret is the base32 TOTP secret (set at setup, pending until totp_enabled);
-- totp_last_step is the last 30-second step whose code was accepted, so a code works once.
ALTER TABLE users ADD COLUMN sessions_revoked_at BIGINT NOT NULL DEFAULT 0;
ALTER TABLE users ADD COLUMN sessions_kept_jti TEXT NOT NULL DEFAULT '';
ALTER TABLE users ADD COLUMN totp_secret TEXT NOT NULL DEFAULT '';
ALTER TABLE users ADD COLUMN totp_enabled BIGINT NOT NULL DEFAULT 0;
ALTER TABLE users ADD COLUMN totp_last_step BIGINT NOT NULL DEFAULT 0;

-- Recovery codes: only the SHA-256 of each (they are 50 random bits, so a fast hash is enough);
-- used_at is set when one is spent.
CREATE TABLE totp_recovery_codes (
    user_id   TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    code_hash TEXT NOT NULL,
    used_at   TIMESTAMPTZ,
    PRIMARY KEY (user_id, code_hash)
);

-- Audit log. ip is already truncated (IPv4 /24, IPv6 /48). No foreign keys: an entry outlives
-- the user or key it names.
CREATE TABLE audit_log (
    id          TEXT PRIMARY KEY,
    at          TIMESTAMPTZ NOT NULL,
    user_id     TEXT NOT NULL DEFAULT '',
    key_id      TEXT NOT NULL DEFAULT '',
    action      TEXT NOT NULL,
    resource    TEXT NOT NULL DEFAULT '',
    resource_id TEXT NOT NULL DEFAULT '',
    ip          TEXT NOT NULL DEFAULT '',
    status      INTEGER NOT NULL
);
CREATE INDEX audit_log_at ON audit_log (at);
CREATE INDEX audit_log_action_at ON audit_log (action, at);
