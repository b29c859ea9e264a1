-- Users of the dashboard. email keeps what the user typed; email_key is its lower-cased form, so
-- one address cannot hold two accounts by changing case (folded in Go, identical on both engines).
CREATE TABLE users (
    id            TEXT PRIMARY KEY,
    email         TEXT NOT NULL,
    email_key     TEXT NOT NULL UNIQUE,
    name          TEXT NOT NULL,
    role          TEXT NOT NULL CHECK (role IN ('owner', 'editor')),
    password_hash TEXT NOT NULL,
    bio           TEXT NOT NULL DEFAULT '',
    location      TEXT NOT NULL DEFAULT '',
    website       TEXT NOT NULL DEFAULT '',
    created_at    TEXT NOT NULL,
    updated_at    TEXT NOT NULL
);

-- API keys. Only the SHA-256 of a secret is stored (hex, unique, so a request finds its key with
-- one indexed equality lookup); prefix is the first characters of the secret, shown in lists.
-- Revoked keys stay (revoked_at set) so an audit can still name them.
CREATE TABLE api_keys (
    id           TEXT PRIMARY KEY,
    user_id      TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    name         TEXT NOT NULL,
    level        TEXT NOT NULL CHECK (level IN ('read', 'write', 'admin')),
    prefix       TEXT NOT NULL,
    key_hash     TEXT NOT NULL UNIQUE,
    created_at   TEXT NOT NULL,
    expires_at   TEXT,
    last_used_at TEXT,
    revoked_at   TEXT
);
CREATE INDEX api_keys_user ON api_keys (user_id);
